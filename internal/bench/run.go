// Running the suite: one child mcvm check per model and reduction mode.

package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"mcvm/asm"
	"mcvm/internal/jpfreport"
	"mcvm/vm"
)

// Size is the configuration each model runs at.
type Size int

const (
	// SizeDefaults runs each model at its defaults: the parameters of the
	// SCC thesis's Table 3.1, MoonWalker's for the JGF kernels ("thesis"
	// in a row's size).
	SizeDefaults Size = iota
	// SizeSmall runs each model's SMALL configuration (seconds each).
	SizeSmall
	// SizeLarge runs each model's LARGE configuration, that of the results
	// table in benchmarks/RESULTS.md.
	SizeLarge
)

// Options configures Run. The zero value runs each model at its defaults,
// once, with check's defaults for everything else; Exe and POR must be set.
type Options struct {
	// Exe is the mcvm binary. Each run is a child process "Exe check
	// --continue --json ...", so that a row's peak memory is that
	// process's maximum resident set size.
	Exe string
	// ToolFailure is the exit code with which Exe says that it failed (as
	// opposed to finding a violation or reaching a limit); such a run is
	// an error.
	ToolFailure int
	Size        Size
	// Overrides sets parameters per model name, over those of Size
	// (ParseSets makes it). A model with overrides has size "--set".
	Overrides map[string]map[string]int64
	// POR lists the partial-order reduction modes (check --por): each
	// model runs once per mode, and the rows after a model's first carry
	// the reduction factor against it.
	POR []string
	// Repeat is how many times each row runs; its time is the median.
	// Below 1 counts as 1.
	Repeat int
	// TimeLimit, MaxStates and MemoryLimit are check's limits for each
	// run; zero values leave check's defaults.
	TimeLimit   time.Duration
	MaxStates   int
	MemoryLimit string
	// CheckArgs are more flags for every run of check, e.g. --hash-compact
	// or --chain=false.
	CheckArgs []string
	// Symmetry runs with --symmetry the models that never read a thread's
	// id (the others run without it). It does not combine with dpor modes.
	Symmetry bool
	// NoSII runs the dpor modes with --sii=false.
	NoSII bool
	// GC is the collector (check --gc) for the modes that collect, all
	// but the dpor ones; "" leaves check's default.
	GC string
	// Published, when not nil, gives each row the published figures for
	// its model.
	Published *Published
	// JPF gives, per model name, a JPF report for the model's rows.
	JPF map[string]*jpfreport.Report
	// Progress, when not nil, is called with each row when it is done.
	Progress func(Row)
	// Interrupt, if set, stops the suite once it is true: Run starts no
	// further run and returns the rows done, the last of them that of
	// the run under way (which ends with verdict limit, "interrupted", if
	// it was given the signal). Each child runs in a process group of its
	// own, so that a signal sent to the terminal's group does not reach
	// it twice; Started and Ended are told each child when it starts and
	// ends, to pass the signals on to it.
	Interrupt *atomic.Bool
	Started   func(*os.Process)
	Ended     func(*os.Process)
}

// ErrSymmetryDPOR is returned by Run for Options with both Symmetry and a
// dpor mode.
var ErrSymmetryDPOR = errors.New("--symmetry does not combine with dpor")

// Row is one model's result under one reduction mode.
type Row struct {
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
	Published     []PublishedFigure `json:"published,omitempty"`
	JPF           *jpfreport.Report `json:"jpf_log,omitempty"`
	defines       map[string]int64  // for matching published configurations
	consts        []Const           // the model's parameters
}

// porLabel is the row's reduction for the tables: the --por mode,
// +symmetry when the model ran with --symmetry, and the collector when it
// is not the default.
func (r *Row) porLabel() string {
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

// isDPOR reports whether a --por mode includes dynamic partial-order
// reduction, which never collects garbage and has its own revisit rule.
func isDPOR(mode string) bool { return strings.Contains(mode, "dpor") }

// Run checks each model of suite under each of o.POR's modes, in that
// order, and returns one row per model and mode.
func Run(suite []*Model, o Options) ([]Row, error) {
	if o.Symmetry && slices.ContainsFunc(o.POR, isDPOR) {
		return nil, ErrSymmetryDPOR
	}
	var rows []Row
	for _, m := range suite {
		defs := map[string]int64{}
		var cfg map[string]int64
		size := "thesis"
		switch o.Size {
		case SizeSmall:
			cfg, size = m.Small.Defines, "SMALL"
		case SizeLarge:
			cfg = m.Large.Defines
			if len(cfg) > 0 {
				size = "LARGE"
			}
		}
		for k, v := range cfg {
			defs[k] = v
		}
		if len(o.Overrides[m.Name]) > 0 {
			size = "--set"
		}
		for k, v := range o.Overrides[m.Name] {
			defs[k] = v
		}
		modelArgs := o.CheckArgs
		if o.Symmetry {
			p, err := asm.AssembleFile(m.Path, asm.Options{Defines: defs})
			if err != nil {
				return nil, err
			}
			if _, _, found := vm.ThreadIDUse(p); !found {
				modelArgs = append(slices.Clip(modelArgs), "--symmetry")
			}
		}
		var first int64
		for i, mode := range o.POR {
			if o.interrupted() {
				return rows, nil
			}
			row, err := o.runModel(m, defs, mode, o.modeArgs(modelArgs, mode))
			if err != nil {
				return nil, err
			}
			row.Size = size
			if i == 0 {
				first = row.States
			} else if row.States > 0 && row.Limit == "" {
				row.Reduction = float64(first) / float64(row.States)
			}
			if o.Published != nil {
				row.Published = o.Published.match(&row)
			}
			row.JPF = o.JPF[m.Name]
			rows = append(rows, row)
			if o.Progress != nil {
				o.Progress(row)
			}
		}
	}
	return rows, nil
}

// interrupted reports whether Options.Interrupt asks Run to stop.
func (o *Options) interrupted() bool { return o.Interrupt != nil && o.Interrupt.Load() }

// modeArgs adds to args the flags that depend on the reduction mode.
func (o *Options) modeArgs(args []string, mode string) []string {
	if o.NoSII && isDPOR(mode) {
		args = append(slices.Clip(args), "--sii=false")
	}
	if o.GC != "" && !isDPOR(mode) {
		args = append(slices.Clip(args), "--gc="+o.GC)
	}
	return args
}

// checkArgs is the command line of a child check of m with parameters
// defs, mode and the further flags extra.
func (o *Options) checkArgs(m *Model, defs map[string]int64, mode string, extra []string) []string {
	// (--max-errors 1: the first error's trace only, so that describing
	// the others adds nothing to the run's time and peak memory.)
	args := []string{"check", "--continue", "--max-errors", "1", "--json", "--no-progress", "--por", mode, "--time-limit", o.TimeLimit.String()}
	if o.MemoryLimit != "" {
		args = append(args, "--memory-limit", o.MemoryLimit)
	}
	if o.MaxStates > 0 {
		args = append(args, "--max-states", strconv.Itoa(o.MaxStates))
	}
	args = append(args, extra...)
	names := make([]string, 0, len(defs))
	for k := range defs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		args = append(args, "-D", k+"="+strconv.FormatInt(defs[k], 10))
	}
	return append(args, m.Path)
}

// runModel checks model m o.Repeat times in child processes.
func (o *Options) runModel(m *Model, defs map[string]int64, mode string, extra []string) (Row, error) {
	row := Row{Model: m.Name, Params: m.Params(defs), POR: mode, defines: defs, consts: m.Consts}
	args := o.checkArgs(m, defs, mode, extra)
	var times []float64
	for i := 0; i < max(o.Repeat, 1); i++ {
		if i > 0 && o.interrupted() {
			break
		}
		cmd := exec.Command(o.Exe, args...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		err := cmd.Start()
		if err == nil {
			if o.Started != nil {
				o.Started(cmd.Process)
			}
			err = cmd.Wait()
			if o.Ended != nil {
				o.Ended(cmd.Process)
			}
		}
		if cmd.ProcessState == nil || (err != nil && cmd.ProcessState.ExitCode() == o.ToolFailure) {
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
