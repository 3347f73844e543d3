// mcvm bench: the benchmark suite, side by side with Java PathFinder.

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"mcvm/asm"
	"mcvm/internal/bench"
	"mcvm/internal/jpfreport"
	"mcvm/por"
	"mcvm/vm"
)

const benchAbout = `Runs the benchmark suite (the models in --dir, or those named by --models)
and prints one row per model: verdict, states, transitions, transitions per
state, max depth, time, peak memory and states/s. Each model runs at its
defaults (the parameters of the SCC thesis's Table 3.1, MoonWalker's for
the JGF kernels: "thesis" in the size column) unless --small, --large or
--set say otherwise: --large
runs the configuration of the results table in benchmarks/RESULTS.md, the
defaults where those check completely within 10 minutes on 2 cores with
the default reduction and otherwise the largest configuration found that
does ("LARGE"). Each model is checked in
a child process (mcvm check --continue --json), so peak memory is that
process's maximum resident set size. --compare adds the figures published
for Java PathFinder (and MoonWalker) for the same programs, from
--published, with ratios; --jpf-log MODEL=FILE adds the figures of a JPF
report you produced yourself (mcvm jpf-report parses it), so that both
run on the same machine.`

func runBench(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("bench", "", benchAbout, stdout)
	dir := fs.String("dir", "benchmarks/models", "the directory of the benchmark models")
	models := fs.StringSlice("models", nil, "run only these models (names without .mcasm, comma separated)")
	sets := fs.StringArray("set", nil, "override a parameter: `NAME=VALUE` for every model that has it, or MODEL.NAME=VALUE for one (repeatable)")
	small := fs.Bool("small", false, "run each model at its SMALL configuration (seconds each) instead of its defaults")
	large := fs.Bool("large", false, "run each model at its LARGE configuration: its defaults where they check completely in 10 minutes on 2 cores with --por all, else the largest such configuration found (benchmarks/RESULTS.md)")
	repeat := fs.Int("repeat", 1, "run each model this many times and report the median time")
	format := fs.String("format", "text", "output format: text, markdown or json")
	compare := fs.Bool("compare", false, "add the published JPF/MoonWalker figures and ratios")
	published := fs.String("published", "benchmarks/jpf-published.json", "the published figures (with --compare)")
	jpfLogs := fs.StringArray("jpf-log", nil, "a JPF report for a model: `MODEL=FILE` (repeatable; implies --compare)")
	timeLimit := fs.Duration("time-limit", 10*time.Minute, "per model run: stop with verdict limit after this long")
	maxStates := fs.Int("max-states", 0, "per model run: stop with verdict limit after this many states (0: no limit)")
	memLimit := fs.String("memory-limit", "auto", "per model run: stop with verdict limit past this much memory (as for check)")
	hashCompact := fs.Bool("hash-compact", false, "per model run: store fingerprints only (as for check)")
	bitstate := fs.Int("bitstate", 0, "per model run: bitstate hashing in 2^`BITS` bits (as for check; 0: off)")
	collapse := fs.Bool("collapse", defaultCollapse, "per model run: the exact store with collapse compression (as for check)")
	chain := fs.Bool("chain", true, "per model run: do not store states with a single transition to explore, where the mode allows (as for check; --chain=false stores them)")
	sii := fs.Bool("sii", true, "per model run with a dpor mode: summarised interleaving information at revisits (as for check; --sii=false: the static analysis)")
	sleep := fs.Bool("sleep", true, "per model run: sleep sets, where they apply (as for check; --sleep=false turns them off)")
	symmetry := fs.Bool("symmetry", false, "per model run: thread symmetry reduction, for the models that never read a thread's id (as for check; the others run without it)")
	dead := fs.Bool("dead-locals", false, "per model run: dead variable reduction (as for check)")
	gcName := fs.String("gc", "mark-sweep", "per model run: the garbage collector of the active heap, mark-sweep, memoised or none (as for check; dpor modes never collect)")
	porModes := fs.StringSlice("por", []string{"all"}, "partial-order reduction modes to run each model with, comma separated (none, escape, ample, all): one row per mode, with the reduction factor against the first")
	if done, code := parse(fs, args, stderr, 0); done {
		return code
	}
	var storeArgs []string
	if _, err := parseGC(*gcName); err != nil {
		return fail(stderr, "bench", err)
	}
	if !*chain {
		storeArgs = append(storeArgs, "--chain=false")
	}
	if !*sleep {
		storeArgs = append(storeArgs, "--sleep=false")
	}
	if *dead {
		storeArgs = append(storeArgs, "--dead-locals")
	}
	if *hashCompact {
		storeArgs = append(storeArgs, "--hash-compact")
	}
	if *bitstate != 0 {
		storeArgs = append(storeArgs, "--bitstate", strconv.Itoa(*bitstate))
	}
	if fs.Changed("collapse") {
		storeArgs = append(storeArgs, "--collapse="+strconv.FormatBool(*collapse))
	}
	if _, _, err := storageOf(*hashCompact, *bitstate, *collapse, fs.Changed("collapse"), 0); err != nil {
		return fail(stderr, "bench", err)
	}
	if *small && *large {
		return fail(stderr, "bench", fmt.Errorf("--small and --large exclude each other"))
	}
	if *repeat < 1 {
		return fail(stderr, "bench", fmt.Errorf("--repeat must be at least 1"))
	}
	switch *format {
	case "text", "markdown", "json":
	default:
		return fail(stderr, "bench", fmt.Errorf("--format: want text, markdown or json, got %q", *format))
	}
	for _, pm := range *porModes {
		if _, err := por.ParseMode(pm); err != nil {
			return fail(stderr, "bench", fmt.Errorf("--por: %w", err))
		}
	}
	suite, err := bench.LoadModels(*dir)
	if err != nil {
		return fail(stderr, "bench", err)
	}
	if len(*models) > 0 {
		byName := map[string]*bench.Model{}
		for _, m := range suite {
			byName[m.Name] = m
		}
		suite = suite[:0]
		for _, name := range *models {
			m, ok := byName[name]
			if !ok {
				return fail(stderr, "bench", fmt.Errorf("--models: no model %q in %s", name, *dir))
			}
			suite = append(suite, m)
		}
	}
	overrides, err := parseSets(*sets, suite)
	if err != nil {
		return fail(stderr, "bench", err)
	}
	logs := map[string]*jpfreport.Report{}
	for _, l := range *jpfLogs {
		name, file, ok := strings.Cut(l, "=")
		if !ok {
			return fail(stderr, "bench", fmt.Errorf("--jpf-log %q: want MODEL=FILE", l))
		}
		r, err := loadJPFReport(file)
		if err != nil {
			return fail(stderr, "bench", err)
		}
		logs[name] = r
		*compare = true
	}
	var pub *publishedFigures
	if *compare {
		if pub, err = loadPublished(*published); err != nil {
			return fail(stderr, "bench", err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return fail(stderr, "bench", err)
	}
	var rows []benchRow
	for _, m := range suite {
		defs := map[string]int64{}
		var cfg map[string]int64
		size := "thesis"
		switch {
		case *small:
			cfg, size = m.Small.Defines, "SMALL"
		case *large:
			cfg = m.Large.Defines
			if len(cfg) > 0 {
				size = "LARGE"
			}
		}
		for k, v := range cfg {
			defs[k] = v
		}
		if len(overrides[m.Name]) > 0 {
			size = "--set"
		}
		for k, v := range overrides[m.Name] {
			defs[k] = v
		}
		var first int64
		symArgs := storeArgs
		if *symmetry {
			p, err := asm.AssembleFile(m.Path, asm.Options{Defines: defs})
			if err != nil {
				return fail(stderr, "bench", err)
			}
			if _, _, found := vm.ThreadIDUse(p); !found {
				symArgs = append(slices.Clip(storeArgs), "--symmetry")
			}
		}
		for i, pm := range *porModes {
			args := symArgs
			if !*sii && strings.Contains(pm, "dpor") {
				args = append(slices.Clip(symArgs), "--sii=false")
			}
			if !strings.Contains(pm, "dpor") && fs.Changed("gc") {
				args = append(slices.Clip(args), "--gc="+*gcName)
			}
			if strings.Contains(pm, "dpor") && *symmetry {
				return fail(stderr, "bench", fmt.Errorf("--symmetry does not combine with dpor"))
			}
			row, err := benchModel(self, m, defs, pm, *repeat, *timeLimit, *maxStates, *memLimit, args)
			if err != nil {
				return fail(stderr, "bench", err)
			}
			row.Size = size
			if i == 0 {
				first = row.States
			} else if row.States > 0 && row.Limit == "" {
				row.Reduction = float64(first) / float64(row.States)
			}
			if pub != nil {
				row.Published = pub.match(m.Name, row)
			}
			row.JPF = logs[m.Name]
			rows = append(rows, row)
			if *format == "text" && isTerminal(os.Stderr) {
				fmt.Fprintf(stderr, "mcvm bench: %s --por=%s done (%s, %.1f s)\n", m.Name, pm, row.Verdict, row.TimeS)
			}
		}
	}
	printBench(stdout, *format, rows, pub)
	return exitOK
}

// parseSets reads --set values into per-model overrides.
func parseSets(sets []string, suite []*bench.Model) (map[string]map[string]int64, error) {
	out := map[string]map[string]int64{}
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		x, err := strconv.ParseInt(strings.TrimSpace(v), 0, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("--set %q: want NAME=VALUE or MODEL.NAME=VALUE with an integer value", s)
		}
		model, name, scoped := strings.Cut(k, ".")
		if !scoped {
			model, name = "", k
		}
		used := false
		for _, m := range suite {
			if scoped && m.Name != model {
				continue
			}
			for _, c := range m.Consts {
				if c.Name == name {
					if out[m.Name] == nil {
						out[m.Name] = map[string]int64{}
					}
					out[m.Name][name] = x
					used = true
				}
			}
		}
		if !used {
			return nil, fmt.Errorf("--set %q: no selected model has a parameter %s", s, name)
		}
	}
	return out, nil
}

// benchRow is one model's result.
type benchRow struct {
	Model         string            `json:"model"`
	Params        string            `json:"params"`
	Size          string            `json:"size"` // thesis (the defaults), LARGE, SMALL or --set
	POR           string            `json:"por"`
	Symmetry      bool              `json:"symmetry,omitempty"`    // run with --symmetry
	DeadLocals    bool              `json:"dead_locals,omitempty"` // run with --dead-locals
	GC            string            `json:"gc,omitempty"`          // the collector, when the run collects
	Freed         int64             `json:"freed_objects,omitempty"`
	Reduction     float64           `json:"reduction,omitempty"` // states of the first --por mode over this one's
	Verdict       string            `json:"verdict"`
	Limit         string            `json:"limit,omitempty"`
	States        int64             `json:"states"`
	Transitions   int64             `json:"transitions"`
	TransPerState float64           `json:"transitions_per_state"`
	MaxDepth      int               `json:"max_depth"`
	Errors        int64             `json:"errors"`
	TimeS         float64           `json:"time_s"`
	PeakMemoryMB  float64           `json:"peak_memory_mb"`
	StatesPerS    float64           `json:"states_per_s"`
	Published     []publishedFigure `json:"published,omitempty"`
	JPF           *jpfreport.Report `json:"jpf_log,omitempty"`
	defines       map[string]int64  // for matching published configurations
	consts        []bench.Const     // the model's parameters
}

// porLabel is the row's reduction for the tables: the --por mode,
// +symmetry when the model ran with --symmetry, and the collector when it
// is not the default.
func (r *benchRow) porLabel() string {
	l := r.POR
	if r.Symmetry {
		l += "+symmetry"
	}
	if r.DeadLocals {
		l += "+dead"
	}
	if r.GC != "" && r.GC != vm.GCMarkSweep.String() {
		l += " gc=" + r.GC
	}
	return l
}

// benchModel checks one model repeat times in child processes.
func benchModel(self string, m *bench.Model, defs map[string]int64, porMode string, repeat int, limit time.Duration, maxStates int, memLimit string, storeArgs []string) (benchRow, error) {
	row := benchRow{Model: m.Name, Params: m.Params(defs), POR: porMode, defines: defs, consts: m.Consts}
	args := []string{"check", "--continue", "--json", "--no-progress", "--por", porMode, "--time-limit", limit.String(), "--memory-limit", memLimit}
	if maxStates > 0 {
		args = append(args, "--max-states", strconv.Itoa(maxStates))
	}
	args = append(args, storeArgs...)
	names := make([]string, 0, len(defs))
	for k := range defs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		args = append(args, "-D", k+"="+strconv.FormatInt(defs[k], 10))
	}
	args = append(args, m.Path)
	var times []float64
	for i := 0; i < repeat; i++ {
		cmd := exec.Command(self, args...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if cmd.ProcessState == nil || (err != nil && cmd.ProcessState.ExitCode() == exitUsage) {
			return row, fmt.Errorf("%s: %v %s", m.Name, err, strings.TrimSpace(errb.String()))
		}
		var r struct {
			Verdict     string  `json:"verdict"`
			Limit       string  `json:"limit"`
			States      int64   `json:"states"`
			Transitions int64   `json:"transitions"`
			MaxDepth    int     `json:"max_depth"`
			Errors      int64   `json:"errors"`
			ElapsedS    float64 `json:"elapsed_s"`
			Symmetry    bool    `json:"symmetry"`
			DeadLocals  bool    `json:"dead_locals"`
			GC          string  `json:"gc"`
			Freed       int64   `json:"freed_objects"`
		}
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			return row, fmt.Errorf("%s: unreadable output of mcvm check: %v", m.Name, err)
		}
		row.Verdict, row.Limit, row.States, row.Transitions = r.Verdict, r.Limit, r.States, r.Transitions
		row.MaxDepth, row.Errors, row.Symmetry, row.DeadLocals = r.MaxDepth, r.Errors, r.Symmetry, r.DeadLocals
		row.GC, row.Freed = r.GC, r.Freed
		times = append(times, r.ElapsedS)
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			if mb := float64(ru.Maxrss) / 1024; mb > row.PeakMemoryMB {
				row.PeakMemoryMB = mb
			}
		}
	}
	sort.Float64s(times)
	row.TimeS = times[len(times)/2]
	if row.States > 0 {
		row.TransPerState = float64(row.Transitions) / float64(row.States)
	}
	if row.TimeS > 0 {
		row.StatesPerS = float64(row.States) / row.TimeS
	}
	return row, nil
}

// publishedFigures is benchmarks/jpf-published.json.
type publishedFigures struct {
	Sources map[string]struct {
		Table    string `json:"table"`
		Tool     string `json:"tool"`
		Hardware string `json:"hardware"`
	} `json:"sources"`
	Programs map[string]struct {
		Parameters string `json:"parameters"`
	} `json:"programs"`
	Figures []map[string]any `json:"figures"`
}

// publishedFigure is a published JPF (or MoonWalker) result for a model.
type publishedFigure struct {
	Source        string   `json:"source"`
	Tool          string   `json:"tool"`
	Params        string   `json:"params"`
	Variant       string   `json:"variant,omitempty"`
	States        *float64 `json:"states,omitempty"`
	TransPerState *float64 `json:"transitions_per_state,omitempty"`
	TimeS         *float64 `json:"time_s,omitempty"`
	MemoryMB      *float64 `json:"memory_mb,omitempty"`
	MaxDepth      *float64 `json:"max_depth,omitempty"`
	SameParams    bool     `json:"same_params"`
}

func loadPublished(path string) (*publishedFigures, error) {
	data, err := readInput(path)
	if err != nil {
		return nil, err
	}
	var p publishedFigures
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &p, nil
}

// comparedSources are the tables whose rows describe whole verification
// runs of JPF on the same programs: the thesis's Table 3.1, and MoonWalker's
// Tables 7 and 8 (JPF beside MoonWalker on MolDyn and RayTracer).
var comparedSources = []string{"taleghani-thesis-t3.1", "nguyen-ruys-moonwalker-t7", "nguyen-ruys-moonwalker-t8"}

// match returns the published figures for model name from the compared
// tables, noting whether they were measured at the same parameters.
func (p *publishedFigures) match(name string, row benchRow) []publishedFigure {
	var out []publishedFigure
	for _, src := range comparedSources {
		for _, f := range p.Figures {
			if f["program"] != name || f["source"] != src {
				continue
			}
			pf := publishedFigure{Source: p.Sources[src].Table, Tool: str(f["tool"]), Params: str(f["params"]), Variant: str(f["variant"])}
			pf.States, pf.TransPerState, pf.TimeS = num(f["states"]), num(f["transitions_per_state"]), num(f["time_s"])
			pf.MemoryMB, pf.MaxDepth = num(f["memory_mb"]), num(f["max_depth"])
			pf.SameParams = pf.Params == row.jgfParams() || row.sameThesisParams(pf.Params)
			out = append(out, pf)
		}
	}
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func num(v any) *float64 {
	if f, ok := v.(float64); ok {
		return &f
	}
	return nil
}

// sameThesisParams reports whether published parameters such as "5,4,4"
// are the values of the row's leading parameters.
func (r *benchRow) sameThesisParams(published string) bool {
	var vals []string
	for _, c := range r.consts {
		v := c.Value
		if x, ok := r.defines[c.Name]; ok {
			v = strconv.FormatInt(x, 10)
		}
		vals = append(vals, v)
		if strings.Join(vals, ",") == published {
			return true
		}
	}
	return false
}

// jgfParams renders THREADS-SIZE as MoonWalker's tables do (e.g. "2-1").
func (r *benchRow) jgfParams() string {
	get := func(name string) string {
		if x, ok := r.defines[name]; ok {
			return strconv.FormatInt(x, 10)
		}
		for _, c := range r.consts {
			if c.Name == name {
				return c.Value
			}
		}
		return ""
	}
	t, s := get("THREADS"), get("SIZE")
	if t == "" || s == "" {
		return ""
	}
	return t + "-" + s
}

func printBench(w io.Writer, format string, rows []benchRow, pub *publishedFigures) {
	if format == "json" {
		writeJSON(w, map[string]any{"rows": rows})
		return
	}
	md := format == "markdown"
	header := []string{"model", "params", "size", "por", "verdict", "states", "transitions", "trans/state", "max depth", "time (s)", "peak MB", "states/s", "reduction"}
	var table [][]string
	for _, r := range rows {
		verdict := r.Verdict
		if r.Limit != "" {
			verdict += " (" + r.Limit + ")"
		}
		red := "-"
		if r.Reduction > 0 {
			red = fmt.Sprintf("%.1fx", r.Reduction)
		}
		table = append(table, []string{r.Model, r.Params, r.Size, r.porLabel(), verdict, itoa(r.States), itoa(r.Transitions),
			fmt.Sprintf("%.2f", r.TransPerState), strconv.Itoa(r.MaxDepth), fmt.Sprintf("%.2f", r.TimeS),
			fmt.Sprintf("%.0f", r.PeakMemoryMB), fmt.Sprintf("%.0f", r.StatesPerS), red})
	}
	writeTable(w, md, header, table)
	if pub == nil {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Published figures (JPF unless the tool says otherwise) and ratios mcvm/published.")
	fmt.Fprintln(w, "Their times come from older hardware: the thesis used a Pentium 4 3.2 GHz with 1.5 GB (Windows XP),")
	fmt.Fprintln(w, "MoonWalker's paper 2.4 GHz machines with 2 GB. Both tools use (different) partial-order reductions,")
	fmt.Fprintln(w, "so states and times are not like for like: compare states and transitions per state first.")
	fmt.Fprintln(w, "mcvm's MolDyn and RayTracer are small fixed-point versions of the JGF kernels: THREADS-SIZE names the")
	fmt.Fprintln(w, "configuration, not the same amount of data as MoonWalker's runs.")
	fmt.Fprintln(w)
	header = []string{"model", "source", "tool", "their params", "same params", "their states", "states ratio", "their trans/state", "their time (s)", "time ratio", "their MB"}
	table = nil
	for _, r := range rows {
		same := false
		for _, p := range r.Published {
			same = same || p.SameParams
		}
		for _, p := range r.Published {
			if same && !p.SameParams {
				continue // show the configurations that match ours, when some do
			}
			table = append(table, []string{r.Model + " (" + r.porLabel() + ")", p.Source, p.Tool + variantSuffix(p.Variant), p.Params, yesNo(p.SameParams),
				optNum(p.States, "%.0f"), ratio(float64(r.States), p.States), optNum(p.TransPerState, "%.2f"),
				optNum(p.TimeS, "%.0f"), ratio(r.TimeS, p.TimeS), optNum(p.MemoryMB, "%.0f")})
		}
		if j := r.JPF; j != nil {
			st := float64(j.StatesNew)
			tr := "-"
			if j.StatesNew > 0 && j.StatesVisited >= 0 {
				tr = fmt.Sprintf("%.2f", float64(j.StatesNew+j.StatesVisited)/float64(j.StatesNew))
			}
			table = append(table, []string{r.Model + " (" + r.porLabel() + ")", "your JPF report", "JPF " + j.Version, j.Target, "?",
				itoa(j.StatesNew), ratio(float64(r.States), &st), tr, fmt.Sprintf("%.0f", j.ElapsedS),
				ratio(r.TimeS, &j.ElapsedS), fmt.Sprintf("%.0f", j.MaxMemoryMB)})
		}
	}
	if len(table) == 0 {
		fmt.Fprintln(w, "(no published figures for these models)")
		return
	}
	writeTable(w, md, header, table)
}

func variantSuffix(v string) string {
	if v == "" {
		return ""
	}
	if i := strings.IndexAny(v, ":("); i > 0 {
		v = v[:i]
	}
	return " [" + strings.TrimSpace(v) + "]"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func optNum(v *float64, f string) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf(f, *v)
}

func ratio(ours float64, theirs *float64) string {
	if theirs == nil || *theirs <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", ours / *theirs)
}

func itoa(x int64) string { return strconv.FormatInt(x, 10) }

// writeTable prints aligned text columns or a markdown table.
func writeTable(w io.Writer, md bool, header []string, rows [][]string) {
	if md {
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
		for _, r := range rows {
			fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
		}
		return
	}
	width := make([]int, len(header))
	for i, h := range header {
		width[i] = len(h)
	}
	for _, r := range rows {
		for i, c := range r {
			if len(c) > width[i] {
				width[i] = len(c)
			}
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		for i, c := range cells {
			if i > 0 {
				b.WriteString("  ")
			}
			fmt.Fprintf(&b, "%-*s", width[i], c)
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	line(header)
	for _, r := range rows {
		line(r)
	}
}
