// The parser of Java PathFinder's end-of-run report.

package jpfreport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ErrNotReport is wrapped by Parse's error for input that is not a JPF report.
var ErrNotReport = errors.New("not a JPF report")

// Report holds the figures of one JPF run. Counts that the report does not
// give are -1.
type Report struct {
	Version           string  `json:"jpf_version,omitempty"`
	Target            string  `json:"target,omitempty"` // the system under test, e.g. DiningPhil.main("3")
	StatesNew         int64   `json:"states_new"`
	StatesVisited     int64   `json:"states_visited"`
	StatesBacktracked int64   `json:"states_backtracked"`
	StatesEnd         int64   `json:"states_end"`
	MaxDepth          int64   `json:"max_depth"`
	Instructions      int64   `json:"instructions"`
	MaxMemoryMB       float64 `json:"max_memory_mb"`
	ElapsedS          float64 `json:"elapsed_s"`
	ThreadCGs         int64   `json:"thread_choice_generators"`
	DataCGs           int64   `json:"data_choice_generators"`
	HeapNew           int64   `json:"heap_new"`
	Errors            int     `json:"errors"`
	// ErrorClasses counts the errors by property class, for example
	// "gov.nasa.jpf.vm.NotDeadlockedProperty".
	ErrorClasses []ErrorCount `json:"error_classes"`
}

// ErrorCount is the number of errors of one property class.
type ErrorCount struct {
	Property string `json:"property"`
	Count    int    `json:"count"`
}

// maxLine bounds the length of a line Parse reads.
const maxLine = 1 << 20

// Parse reads a JPF report. name is used in error messages.
func Parse(name string, data []byte) (*Report, error) {
	r := &Report{StatesNew: -1, StatesVisited: -1, StatesBacktracked: -1, StatesEnd: -1, MaxDepth: -1,
		Instructions: -1, MaxMemoryMB: -1, ElapsedS: -1, ThreadCGs: -1, DataCGs: -1, HeapNew: -1}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	section := ""
	sawStats := false
	classes := map[string]int{}
	errSections := 0
	lineNo := 0
	var perr error
	fail := func(format string, args ...any) {
		if perr == nil {
			perr = fmt.Errorf("%s:%d: %s", name, lineNo, fmt.Sprintf(format, args...))
		}
	}
	for sc.Scan() {
		lineNo++
		line := strings.TrimRight(sc.Text(), "\r")
		if s, ok := sectionName(line); ok {
			section = s
			if section == "statistics" {
				sawStats = true
			}
			if strings.HasPrefix(section, "error") {
				errSections++
			}
			continue
		}
		trimmed := strings.TrimSpace(line)
		if r.Version == "" && lineNo <= 5 {
			if v := versionOf(trimmed); v != "" {
				r.Version = v
			}
		}
		switch {
		case section == "system under test" && trimmed != "" && r.Target == "":
			r.Target = trimmed
		case section == "results":
			if p := errorProperty(trimmed); p != "" {
				classes[p]++
				r.Errors++
			}
		case section == "statistics":
			key, val, ok := strings.Cut(trimmed, ":")
			if !ok {
				continue
			}
			if err := r.stat(strings.TrimSpace(key), strings.TrimSpace(val)); err != nil {
				fail("%v", err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if perr != nil {
		return nil, perr
	}
	if !sawStats {
		return nil, fmt.Errorf("%s: %w: no \"statistics\" section (JPF prints one at the end of every run; was the run cut short?)", name, ErrNotReport)
	}
	if r.StatesNew < 0 && r.Instructions < 0 && r.ElapsedS < 0 {
		return nil, fmt.Errorf("%s: %w: the statistics section has no states, instructions or elapsed time", name, ErrNotReport)
	}
	// JPF v4/v5 list errors only as sections, without a results line each.
	if r.Errors == 0 && errSections > 0 {
		r.Errors = errSections
	}
	for p, n := range classes {
		r.ErrorClasses = append(r.ErrorClasses, ErrorCount{p, n})
	}
	sort.Slice(r.ErrorClasses, func(i, j int) bool { return r.ErrorClasses[i].Property < r.ErrorClasses[j].Property })
	if r.ErrorClasses == nil {
		r.ErrorClasses = []ErrorCount{}
	}
	return r, nil
}

// sectionName recognises a section header: a run of at least 10 '='
// followed by the section's name.
func sectionName(line string) (string, bool) {
	t := strings.TrimSpace(line)
	n := 0
	for n < len(t) && t[n] == '=' {
		n++
	}
	if n < 10 {
		return "", false
	}
	return strings.ToLower(strings.TrimSpace(t[n:])), true
}

// versionOf extracts the version from JPF's banner, e.g.
// "JavaPathfinder core system v8.0 (rev ...)" or "JavaPathfinder v5.0 - ...".
func versionOf(line string) string {
	l := strings.ToLower(line)
	if !strings.Contains(l, "pathfinder") {
		return ""
	}
	for _, f := range strings.Fields(line) {
		if len(f) > 1 && (f[0] == 'v' || f[0] == 'V') && f[1] >= '0' && f[1] <= '9' {
			return f[1:]
		}
	}
	return ""
}

// errorProperty returns the property class of a results line such as
//
//	error #1: gov.nasa.jpf.vm.NotDeadlockedProperty "deadlock encountered: ..."
func errorProperty(line string) string {
	rest, ok := strings.CutPrefix(line, "error #")
	if !ok {
		return ""
	}
	_, rest, ok = strings.Cut(rest, ":")
	if !ok {
		return ""
	}
	f := strings.Fields(rest)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// stat records one line of the statistics section.
func (r *Report) stat(key, val string) error {
	key = strings.ToLower(key)
	switch key {
	case "elapsed time":
		s, err := parseDuration(val)
		if err != nil {
			return fmt.Errorf("elapsed time %q: %v", val, err)
		}
		r.ElapsedS = s
	case "max memory":
		mb, err := parseMemory(val)
		if err != nil {
			return fmt.Errorf("max memory %q: %v", val, err)
		}
		r.MaxMemoryMB = mb
	case "states", "search", "choice generators", "heap":
		kv, err := pairs(val)
		if err != nil {
			return fmt.Errorf("%s: %v", key, err)
		}
		switch key {
		case "states":
			r.StatesNew, r.StatesVisited = get(kv, "new"), get(kv, "visited")
			r.StatesBacktracked, r.StatesEnd = get(kv, "backtracked"), get(kv, "end")
		case "search":
			r.MaxDepth = get(kv, "maxdepth")
		case "choice generators":
			r.ThreadCGs, r.DataCGs = get(kv, "thread"), get(kv, "data")
		case "heap":
			r.HeapNew = get(kv, "new")
		}
	case "instructions", "thread cg", "data cg": // the CG lines are JPF v4's
		n, err := leadingInt(val)
		if err != nil {
			return fmt.Errorf("%s: %v", key, err)
		}
		switch key {
		case "instructions":
			r.Instructions = n
		case "thread cg":
			r.ThreadCGs = n
		case "data cg":
			r.DataCGs = n
		}
	}
	return nil
}

// pairs parses "new=85,visited=66, backtracked=138,end=15" into lowercase
// keys; parenthesised details such as "thread=84 (signal=0,lock=48)" are
// skipped.
func pairs(s string) (map[string]int64, error) {
	out := map[string]int64{}
	depth := 0
	var b strings.Builder
	flush := func() error {
		item := strings.TrimSpace(b.String())
		b.Reset()
		if item == "" {
			return nil
		}
		k, v, ok := strings.Cut(item, "=")
		if !ok {
			return nil // a word without a value, e.g. "constraints hit" in some versions
		}
		n, err := leadingInt(v)
		if err != nil {
			return fmt.Errorf("%q: %v", item, err)
		}
		out[strings.ToLower(strings.TrimSpace(k))] = n
		return nil
	}
	for _, c := range s {
		switch {
		case c == '(':
			depth++
		case c == ')':
			if depth > 0 {
				depth--
			}
		case depth > 0:
		case c == ',':
			if err := flush(); err != nil {
				return nil, err
			}
		default:
			b.WriteRune(c)
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

func get(kv map[string]int64, k string) int64 {
	if v, ok := kv[k]; ok {
		return v
	}
	return -1
}

// leadingInt parses the integer at the start of s (digits, optionally
// with ',' thousands separators), ignoring what follows a space.
func leadingInt(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, " \t("); i >= 0 {
		s = s[:i]
	}
	s = strings.ReplaceAll(s, ",", "")
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a count", s)
	}
	return n, nil
}

// parseDuration parses JPF's h:mm:ss or hh:mm:ss (also mm:ss, or seconds).
func parseDuration(s string) (float64, error) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) > 3 {
		return 0, errors.New("want h:mm:ss")
	}
	var total float64
	for _, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || v < 0 {
			return 0, errors.New("want h:mm:ss")
		}
		total = total*60 + v
	}
	return total, nil
}

// parseMemory parses "382MB" (also KB, GB, or bytes) into megabytes.
func parseMemory(s string) (float64, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	mult := 1.0 / (1 << 20)
	for _, u := range []struct {
		suffix string
		mult   float64
	}{{"GB", 1024}, {"MB", 1}, {"KB", 1.0 / 1024}, {"B", 1.0 / (1 << 20)}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 {
		return 0, errors.New("want a size such as 382MB")
	}
	return v * mult, nil
}
