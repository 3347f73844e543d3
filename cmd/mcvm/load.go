// Loading models (.mcasm or .mcb), -D defines and the shared flags.

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"mcvm/asm"
	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/por"
	"mcvm/vm"
)

// modelFlags are the flags every command that loads a model takes.
type modelFlags struct {
	defines     []string
	granularity string
	uncaught    string
	// The machine's limits (registerLimits; zero: vm's defaults).
	maxThreads, maxObjects, maxSlots int
	maxInvSteps                      int64
}

func (f *modelFlags) register(fs *pflag.FlagSet) {
	f.registerDefines(fs, "repeatable; .mcasm models only")
	fs.StringVar(&f.granularity, "granularity", "transition", "transition: run thread-local instructions together up to the next scheduling point; instruction: every instruction is a transition")
	f.registerUncaught(fs)
	f.registerLimits(fs)
}

// registerLimits adds the flags of the machine's limits, which a program
// that passes one reaches with verdict limit.
func (f *modelFlags) registerLimits(fs *pflag.FlagSet) {
	fs.IntVar(&f.maxThreads, "max-threads", vm.MaxThreads, fmt.Sprintf("the most threads a state may hold (up to %d); a program that starts more reaches verdict limit", vm.MaxThreadsLimit))
	fs.IntVar(&f.maxObjects, "max-objects", vm.MaxObjects, fmt.Sprintf("the most objects and arrays a state may hold (up to %d); more is verdict limit", vm.MaxObjectsLimit))
	fs.IntVar(&f.maxSlots, "max-heap-slots", vm.MaxSlots, fmt.Sprintf("the most fields and array elements all objects of a state may hold together, 8 bytes each (up to %d); more is verdict limit", vm.MaxSlotsLimit))
	fs.Int64Var(&f.maxInvSteps, "max-invariant-steps", vm.MaxInvariantSteps, "the most instructions one evaluation of an invariant may run; more is verdict limit")
}

// limitFlags name the flag that raises each limit of the machine.
var limitFlags = map[vm.Limit]string{vm.LimitThreads: "--max-threads", vm.LimitObjects: "--max-objects",
	vm.LimitSlots: "--max-heap-slots", vm.LimitInvariantSteps: "--max-invariant-steps"}

// limits sets the machine's limits in vo from the flags (registerLimits).
func (f *modelFlags) limits(vo vm.Options) (vm.Options, error) {
	for _, l := range []struct {
		v, max int
		name   string
	}{{f.maxThreads, vm.MaxThreadsLimit, "--max-threads"}, {f.maxObjects, vm.MaxObjectsLimit, "--max-objects"}, {f.maxSlots, vm.MaxSlotsLimit, "--max-heap-slots"}} {
		if l.v < 1 || l.v > l.max {
			return vo, fmt.Errorf("%s: want 1 to %d, got %d", l.name, l.max, l.v)
		}
	}
	if f.maxInvSteps < 1 {
		return vo, fmt.Errorf("--max-invariant-steps: want a positive number, got %d", f.maxInvSteps)
	}
	vo.MaxThreads, vo.MaxObjects, vo.MaxSlots, vo.MaxInvariantSteps = f.maxThreads, f.maxObjects, f.maxSlots, f.maxInvSteps
	return vo, nil
}

// registerUncaught adds --uncaught.
func (f *modelFlags) registerUncaught(fs *pflag.FlagSet) {
	fs.StringVar(&f.uncaught, "uncaught", "report", "an exception no handler takes: report (a violation, verdict exception) or ignore (its thread just ends)")
}

// ignoreUncaught reads --uncaught.
func (f *modelFlags) ignoreUncaught() (bool, error) {
	switch f.uncaught {
	case "report", "":
		return false, nil
	case "ignore":
		return true, nil
	}
	return false, fmt.Errorf("--uncaught: want report or ignore, got %q", f.uncaught)
}

// reductionFlags select partial-order reduction and its cycle proviso.
type reductionFlags struct {
	por, proviso string
	chain, sleep bool
	sii          bool
	symmetry     bool
	deadLocals   bool
	gc           string
	fs           *pflag.FlagSet // to tell an explicit --chain or --sleep from the default
}

func (f *reductionFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.por, "por", "all", "partial-order reduction: none; escape (accesses to objects only one thread can reach are not scheduling points); ample (persistent sets from what the other threads can still access); dpor (stateful dynamic POR, depth-first only; also ample+dpor, escape+dpor, escape+ample+dpor, where escape chooses persistent sets but does not merge accesses); all (escape and ample: the strongest sound combination measured)")
	fs.StringVar(&f.proviso, "proviso", "auto", "cycle proviso of the reduction: stack (depth-first only), duplicate, static (sticky backward jumps), or auto (stack for dfs, duplicate for bfs)")
	fs.BoolVar(&f.chain, "chain", true, "do not store a state whose search would explore a single transition (the only one enabled, or a singleton persistent set): run that transition at once as part of the one that reached it, checking the state's invariants; a chain stores the state after its ninth backward jump, so every cycle keeps a stored state. Fewer states stored, the same errors and end states. On by default wherever it applies: depth-first search, the stack proviso, a reduction without dpor and no --max-depth (an explicit --chain with anything else is an error); --chain=false stores every state the reduction explores. Counterexamples list every transition")
	fs.BoolVar(&f.sleep, "sleep", true, "sleep sets (Godefroid): once a state's transition of one thread has been explored, that thread sleeps in the states its later siblings reach until a dependent transition runs, and its transitions are not explored there (the states they lead to are reached the other way round); a revisit with fewer threads asleep explores the ones woken. Fewer transitions, the same states, errors and end states, 8 bytes per stored state. On by default wherever chains apply (whether or not --chain is on) with an exact store (not --hash-compact or --bitstate); with dpor only when given (there they also cut states on most models, but double dining philosophers'); an explicit --sleep elsewhere (breadth-first search, --max-depth, --por none, a lossy store) is an error, --sleep=false turns them off")
	fs.BoolVar(&f.sii, "sii", true, "with dpor: at a revisit of a state the search has left, take what each thread may access below it from the state's summarised interleaving information (the accesses seen below it, kept collapsed for every state; MoonWalker section 6) instead of the static analysis of what it can still do; --sii=false uses the static analysis at every revisit (no memory per state)")
	fs.BoolVar(&f.symmetry, "symmetry", false, symmetryUsage)
	fs.BoolVar(&f.deadLocals, "dead-locals", false, deadLocalsUsage)
	fs.StringVar(&f.gc, "gc", "mark-sweep", "garbage collector of the active heap: depth-first search frees the objects no thread or static reaches in every state it expands, and reuses their places, so the heap and the snapshots that copy it stay as small as the live objects. mark-sweep: the canonical encoding's traversal is the mark, so it costs one look at each object; memoised: MoonWalker's memoised collector (depths kept from state to state and updated where the heap changed, Ramalingam-Reps); none: never free (the canonical encoding leaves garbage out all the same). The same states, counts and traces with each. Breadth-first search and dpor never collect (an explicit --gc there is an error)")
	f.fs = fs
}

const symmetryUsage = "thread symmetry reduction: after every transition the threads are put in a canonical order (sorted by what each holds: its frames, values, status and monitors), so states that differ only in which thread is which are stored once; identical workers (producers, consumers, readers) then cost one ordering instead of all. Sound for programs that never read a thread's id (tid, Thread.id), which is checked; not with dpor. Off by default: the sorting costs time in every state, and it pays only where threads are alike. Counterexamples are given with the thread ids of a plain run"

// checkSymmetry refuses --symmetry for a program that reads a thread's id.
func checkSymmetry(p *bytecode.Program) error {
	if mi, pc, found := vm.ThreadIDUse(p); found {
		return fmt.Errorf("--symmetry: the program reads a thread's id (%s at %s), so renaming threads could change what it does", bytecode.FormatInstr(p, p.Methods[mi].Code[pc]), p.PosString(p.InstrPos(mi, pc)))
	}
	return nil
}

const deadLocalsUsage = "dead variable reduction (SPIN's dead variable elimination): after every transition the locals that no path reads again before writing them are set to 0, so states that differ only in such values are one; the same errors and end states. Off by default so that state counts stay comparable with Java PathFinder's, which keeps dead locals"

// parseGC reads a --gc value.
func parseGC(s string) (vm.GC, error) {
	gc, ok := vm.ParseGC(s)
	if !ok {
		return 0, fmt.Errorf("--gc: want mark-sweep, memoised or none, got %q", s)
	}
	return gc, nil
}

// apply sets up the reduction for program p: the vm options it needs and
// the explorer's reducer and proviso. Which options combine is explorer's
// to say (explorer.Options.Validate, ChainFits, SleepFits); apply adds
// what only the command line knows: which flags were given explicitly.
func (f *reductionFlags) apply(p *bytecode.Program, vo vm.Options, eo *explorer.Options) (vm.Options, por.Mode, error) {
	mode, err := por.ParseMode(f.por)
	if err != nil {
		return vo, 0, fmt.Errorf("--por: %w", err)
	}
	pv, ok := explorer.ParseProviso(f.proviso)
	if !ok {
		return vo, 0, fmt.Errorf("--proviso: want auto, stack, duplicate or static, got %q", f.proviso)
	}
	eo.Proviso = pv
	if err := eo.Validate(); err != nil {
		return vo, 0, err
	}
	if mode&por.DPOR != 0 && eo.Order != explorer.DFS {
		if mode == por.DPOR {
			return vo, 0, fmt.Errorf("--por=dpor needs depth-first search")
		}
		mode &^= por.DPOR // breadth-first: escape and ample sets only
	}
	if f.explicit("sii") && mode&por.DPOR == 0 {
		return vo, 0, fmt.Errorf("--sii needs dynamic reduction (--por dpor, ample+dpor, escape+dpor or escape+ample+dpor)")
	}
	if r := por.New(p, mode); r != nil {
		if r.Reduces() {
			eo.Reducer = r
		}
		if mode&por.DPOR != 0 {
			d := por.NewDynamic(r)
			d.SII = f.sii
			eo.Dynamic = d
		}
	}
	// Chains and sleep sets are used by default where they apply; asked
	// for explicitly where they do not, they are an error.
	if f.chain {
		why := unfit("chain", eo.ChainFits(mode != por.None))
		if why != nil && f.explicit("chain") {
			return vo, 0, why
		}
		eo.Chain = why == nil
	}
	if f.sleep {
		why := unfit("sleep", eo.SleepFits(mode != por.None))
		if why != nil && f.explicit("sleep") {
			return vo, 0, why
		}
		// With dpor only when asked for: measured, they cut the states
		// and time of most models but double dining philosophers'
		// (benchmarks/RESULTS.md).
		eo.Sleep = why == nil && (mode&por.DPOR == 0 || f.explicit("sleep"))
	}
	if f.symmetry {
		if err := checkSymmetry(p); err != nil {
			return vo, 0, err
		}
		eo.Symmetry = true
		if err := eo.Validate(); err != nil {
			return vo, 0, err
		}
	}
	gc, err := parseGC(f.gc)
	if err != nil {
		return vo, 0, err
	}
	if f.explicit("gc") && !eo.CollectsGarbage() {
		return vo, 0, fmt.Errorf("--gc: only depth-first search without dpor collects garbage (dpor compares object references along the search stack, which reusing a freed object's place would confuse)")
	}
	vo.GC = gc
	vo.DeadLocals = f.deadLocals
	return mode.VMOptions(vo), mode, nil
}

// unfit names the flag in why, the reason explorer gives for --name
// (chain or sleep) not applying, or returns nil.
func unfit(name string, why error) error {
	if why == nil {
		return nil
	}
	return fmt.Errorf("--%s %w", name, why)
}

// explicit reports whether flag name was given on the command line.
func (f *reductionFlags) explicit(name string) bool { return f.fs != nil && f.fs.Changed(name) }

// registerDefines adds only -D, with a note on how it applies.
func (f *modelFlags) registerDefines(fs *pflag.FlagSet, note string) {
	fs.StringArrayVarP(&f.defines, "define", "D", nil, "override a .const: `NAME=VALUE` ("+note+"; each name once)")
}

// writeJSON prints v as one indented JSON object.
func writeJSON(w io.Writer, v any) {
	// One line: indenting was a third of a --continue report's time
	// where it held ten traces (jq or python -m json.tool indent it).
	json.NewEncoder(w).Encode(v)
}

func (f *modelFlags) gran() (vm.Granularity, error) {
	switch f.granularity {
	case "transition":
		return vm.GranTransition, nil
	case "instruction":
		return vm.GranInstruction, nil
	}
	return 0, fmt.Errorf("--granularity: want transition or instruction, got %q", f.granularity)
}

// parseDefines parses NAME=VALUE pairs; a name given twice is an error,
// since neither value would be obviously the one that counts.
func parseDefines(defs []string) (map[string]int64, error) {
	if len(defs) == 0 {
		return nil, nil
	}
	m := make(map[string]int64, len(defs))
	for _, d := range defs {
		name, val, ok := strings.Cut(d, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("-D %s: want NAME=VALUE", d)
		}
		v, err := strconv.ParseInt(strings.TrimSpace(val), 0, 64)
		if err != nil {
			return nil, fmt.Errorf("-D %s: value %q is not an integer", d, val)
		}
		if _, dup := m[name]; dup {
			return nil, fmt.Errorf("-D %s: %s is given twice: give each name once", d, name)
		}
		m[name] = v
	}
	return m, nil
}

// load reads a model: .mcb files are decoded, anything else is assembled.
func (f *modelFlags) load(path string) (*bytecode.Program, error) {
	defs, err := parseDefines(f.defines)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(path, ".mcb") {
		if len(defs) > 0 {
			return nil, fmt.Errorf("-D applies to .mcasm sources only; %s is already assembled", path)
		}
		data, err := readInput(path)
		if err != nil {
			return nil, err
		}
		p, err := bytecode.Decode(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return p, nil
	}
	return asm.AssembleFile(path, asm.Options{Defines: defs})
}

// replaceFile writes data to a temporary file beside path and renames it
// to path, so that path never holds half the data.
func replaceFile(path string, data []byte) error {
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	fh, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = fh.Write(data)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// maxInput bounds the size of any file mcvm reads.
const maxInput = 256 << 20

func readInput(path string) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxInput+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxInput {
		return nil, fmt.Errorf("%s: larger than %d MiB", path, maxInput>>20)
	}
	return data, nil
}

// helpSink, when set (by the test that writes docs/flags.md), is given
// each flag set whose --help is asked for, instead of printing it.
var helpSink func(*pflag.FlagSet)

// newFlagSet makes a flag set whose --help prints the command's usage.
func newFlagSet(name, args, about string, stdout io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.SortFlags = false
	fs.Usage = func() {
		if helpSink != nil {
			helpSink(fs)
			return
		}
		fmt.Fprintf(stdout, "Usage: mcvm %s [flags] %s\n\n%s\n\nFlags (docs/flags.md explains each):\n%s", name, args, about, shortUsages(fs))
	}
	return fs
}

// parse parses args; it returns done with an exit code when the command
// should stop (help was shown, or the flags were bad).
func parse(fs *pflag.FlagSet, args []string, stderr io.Writer, nargs int) (done bool, code int) {
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return true, exitOK
		}
		fmt.Fprintf(stderr, "mcvm %s: %v%s\n", fs.Name(), err, flagSuggestion(fs, err))
		return true, exitUsage
	}
	if fs.NArg() != nargs {
		fmt.Fprintf(stderr, "mcvm %s: want %d argument(s), got %d (see mcvm %s --help)\n", fs.Name(), nargs, fs.NArg(), fs.Name())
		return true, exitUsage
	}
	return false, 0
}

// parseMemoryLimit parses --memory-limit: "auto" (defaultMemoryLimit:
// three quarters of the least of the machine's memory and the limits of
// the process's cgroups, or none where no figure can be read), "0" (no
// limit), or a size with an optional unit (B, KB, MB, GB, KiB, MiB, GiB).
func parseMemoryLimit(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "auto" {
		limit, _ := defaultMemoryLimit()
		return limit, nil
	}
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("--memory-limit: want a size such as 4GiB or 500MB, \"auto\" or 0, got %q", s)
	}
	return int64(v * float64(mult)), nil
}
