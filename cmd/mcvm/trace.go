// The counterexample trace of check, verify, certify and replay: steps
// with their shared operation, source line and values, as text and JSON.

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"mcvm/explorer"
)

// outputFlags choose how much a report says: --quiet, --stats, --values
// and -v for both.
type outputFlags struct {
	quiet, stat, vals, verbose *bool
}

// register adds the flags; stats says whether the command has search
// figures to show.
func (f *outputFlags) register(fs *pflag.FlagSet, stats bool) {
	f.quiet = fs.BoolP("quiet", "q", false, "print the verdict line only")
	f.vals = fs.Bool("values", false, "show the values each step changed, and the state of the threads involved at the error")
	f.stat = new(bool)
	if stats {
		f.stat = fs.Bool("stats", false, "show the search's internals: store, memory, collector, reductions")
		f.verbose = fs.BoolP("verbose", "v", false, "--stats and --values")
	} else {
		f.verbose = fs.BoolP("verbose", "v", false, "the same as --values")
	}
}

func (f *outputFlags) stats() bool  { return *f.stat || *f.verbose }
func (f *outputFlags) values() bool { return *f.vals || *f.verbose }

// violation is one of the distinct violations --continue lists: its kind
// and place, with the shortest trace found to it.
type violation struct {
	Kind    string      `json:"kind"`
	Message string      `json:"message"`
	Trace   []traceStep `json:"trace"`
	Threads []threadEnd `json:"threads_at_end,omitempty"`
}

// printViolations lists the distinct violations of --continue, each with
// its trace.
func printViolations(w io.Writer, vs []violation, values bool) {
	fmt.Fprintf(w, "violations (%d distinct, each with the shortest trace found):\n", len(vs))
	for i, v := range vs {
		fmt.Fprintf(w, "violation %d: %s\n", i+1, v.Message)
		printTrace(w, v.Trace, v.Threads, nil, values)
	}
}

// traceStep is one step of a trace in the report (docs/json.md).
type traceStep struct {
	Step    int               `json:"step"`
	Thread  int32             `json:"thread"`
	Method  string            `json:"method"`
	PC      int32             `json:"pc"`
	Instr   string            `json:"instr"`
	Pos     string            `json:"pos"`
	Choice  *int32            `json:"choice,omitempty"`
	Op      string            `json:"op"`
	File    string            `json:"file,omitempty"`
	Line    int32             `json:"line,omitempty"`
	Source  string            `json:"source,omitempty"`
	Woke    []int32           `json:"woke,omitempty"`
	Access  string            `json:"access,omitempty"`
	Target  string            `json:"target,omitempty"`
	Peer    int32             `json:"-"`
	Changes []explorer.Change `json:"changes"`
}

// sources reads the lines of source files for traces, each file once per
// report. A file that cannot be read (a .mcb whose source is elsewhere)
// gives no lines.
type sources map[string][]string

func (s sources) line(file string, line int32) string {
	lines, ok := s[file]
	if !ok {
		if data, err := os.ReadFile(file); err == nil {
			lines = strings.Split(string(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))), "\n")
		}
		s[file] = lines
	}
	if line < 1 || int(line) > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[line-1])
}

func toTrace(tr *explorer.Trace, src sources) []traceStep {
	if tr == nil {
		return []traceStep{}
	}
	out := make([]traceStep, 0, len(tr.Steps))
	for i, s := range tr.Steps {
		ts := traceStep{Step: i + 1, Thread: s.Thread, Method: s.Method, PC: s.PC, Instr: s.Instr, Pos: s.Pos,
			Op: s.Op, File: s.File, Line: s.Line, Woke: s.Woke, Changes: s.Changes,
			Access: s.Access, Target: s.Target, Peer: s.Peer}
		if s.Choice >= 0 {
			c := s.Choice
			ts.Choice = &c
		}
		if ts.Changes == nil {
			ts.Changes = []explorer.Change{}
		}
		if s.File != "" {
			ts.Source = src.line(s.File, s.Line)
		}
		out = append(out, ts)
	}
	return out
}

// where is a step's place for people: file:line, or the position.
func (s *traceStep) where() string {
	if s.File != "" {
		return fmt.Sprintf("%s:%d", s.File, s.Line)
	}
	return s.Pos
}

// printTrace prints a trace: a step a line or two (three with values),
// then where the threads are at the end and, with values, the state of
// the threads the error involves.
func printTrace(w io.Writer, trace []traceStep, ends []threadEnd, involved []explorer.ThreadState, values bool) {
	if len(trace) == 0 && len(ends) == 0 {
		return
	}
	fmt.Fprintf(w, "trace (%d steps):\n", len(trace))
	mw := 0
	for _, s := range trace {
		mw = max(mw, len(s.Method))
	}
	for _, s := range trace {
		op := s.Op
		if op == "" {
			op = s.Instr
		}
		fmt.Fprintf(w, "  %3d  thread %-2d %-*s  %s\n", s.Step, s.Thread, mw, s.Method, op)
		src := s.Source
		if src == "" {
			src = s.Instr
		}
		fmt.Fprintf(w, "       %s  %s\n", s.where(), src)
		if values && len(s.Changes) > 0 {
			fmt.Fprintf(w, "       %s\n", formatChanges(s.Changes))
		}
	}
	if len(ends) > 0 {
		next := map[int32]string{}
		for _, t := range involved {
			next[t.Thread] = t.Next
		}
		fmt.Fprintln(w, "threads at the end:")
		for _, e := range ends {
			if e.Method == "" {
				fmt.Fprintf(w, "  thread %-2d %s\n", e.Thread, e.Status)
				continue
			}
			what := e.Instr
			if n := next[e.Thread]; n != "" {
				what = n
			}
			why := ""
			if e.Blocker != "" {
				why = ": " + e.Blocker
			}
			fmt.Fprintf(w, "  thread %-2d %-10s %s  %s (%s)%s\n", e.Thread, e.Status, e.Pos, what, e.Method, why)
		}
	}
	if values && len(involved) > 0 {
		fmt.Fprintln(w, "state of the threads involved:")
		for _, t := range involved {
			fmt.Fprintf(w, "  thread %d  %s", t.Thread, t.Status)
			if t.Blocker != "" {
				fmt.Fprintf(w, " (%s)", t.Blocker)
			}
			if len(t.Holds) > 0 {
				fmt.Fprintf(w, ", holds %s", strings.Join(t.Holds, ", "))
			}
			fmt.Fprintln(w)
			for _, f := range t.Frames {
				fmt.Fprintf(w, "    %s  %s", f.Method, f.Pos)
				if len(f.Locals) > 0 {
					fmt.Fprintf(w, "  %s", formatChanges(f.Locals))
				}
				fmt.Fprintln(w)
			}
			for _, o := range t.Objects {
				fmt.Fprintf(w, "    %s", o.Name)
				if len(o.Fields) > 0 {
					fmt.Fprintf(w, " {%s}", formatFields(o.Fields))
				}
				if o.Owner >= 0 {
					fmt.Fprintf(w, " monitor held by thread %d", o.Owner)
				}
				fmt.Fprintln(w)
			}
		}
	}
}

// formatChanges formats values as "i = 3, Fork#2.owner = 1".
func formatChanges(cs []explorer.Change) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		switch {
		case c.Value == "new":
			parts[i] = "new " + c.Name
			continue
		case strings.HasPrefix(c.Value, "new, "):
			parts[i] = "new " + c.Name + " (" + strings.TrimPrefix(c.Value, "new, ") + ")"
			continue
		}
		parts[i] = c.Name + " = " + c.Value
	}
	return strings.Join(parts, ", ")
}

// formatFields formats an object's fields (".owner", "[3]") as
// "owner: 1, count: 0" or "[0]: 5, [1]: 7".
func formatFields(cs []explorer.Change) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = strings.TrimPrefix(c.Name, ".") + ": " + c.Value
	}
	return strings.Join(parts, ", ")
}
