// mcvm check and mcvm replay: model checking and counterexample reports.

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/internal/hll"
	"mcvm/internal/progress"
	"mcvm/por"
	"mcvm/scc"
	"mcvm/vm"
)

const checkAbout = `Model checks MODEL (.mcasm or .mcb): explores every interleaving of its
threads and every value of its choice points, stopping at the first deadlock,
assertion or invariant violation, or uncaught exception (or, with --continue,
counting them all). Prints a summary and the counterexample trace; --json
prints one JSON object instead. An interrupt (Ctrl-C, SIGTERM) stops the
search and prints the report of the part explored; a second exits at once.
Exit codes: 0 no error, 1 property violated, 2 bad input or usage, 3 limit
reached (or interrupted).`

// searchFlags are the flags of check, verify and certify: the model's, the
// search's and the output's.
type searchFlags struct {
	mf         modelFlags
	search     *string
	heuristic  *string
	target     *string
	cont       *bool
	maxErrors  *int
	shuffle    *uint64
	coverage   *string
	seed       *uint64
	maxStates  *int
	maxDepth   *int
	timeLimit  *time.Duration
	memLimit   *string
	jsonOut    *bool
	trail      *string
	progress   *bool
	noProgress *bool
	cpuProfile *string
	htmlReport *string // check --report
	out        outputFlags
	// porMode and proviso are what --por and --proviso chose (verify's
	// and certify's --por, with the stack proviso), for the report.
	porMode por.Mode
	proviso explorer.Proviso
	// intr, once the command catches interrupts, stops the search on the
	// first SIGINT or SIGTERM.
	intr *interrupt
}

func (f *searchFlags) register(fs *pflag.FlagSet) {
	f.mf.register(fs)
	f.search = fs.String("search", "dfs", "search order: dfs, bfs, best-first (least estimate first), astar (least path length plus estimate first: with an admissible heuristic, a shortest counterexample) or ida (iterative-deepening A*: stores only its path)")
	f.heuristic = fs.String("heuristic", "", "for best-first, astar and ida, the estimate of a state's distance to an error: "+heuristicNames(true))
	f.target = fs.String("target", "", "the last state of this trail `FILE` (its error state) is the heuristic's target")
	f.cont = fs.Bool("continue", false, "explore the whole state space and list each distinct error instead of stopping at the first")
	f.maxErrors = fs.Int("max-errors", 10, "with --continue, list at most this many distinct errors (each with the shortest trace found; 1: the first error's trace only, as without --continue)")
	f.shuffle = fs.Uint64("random-order", 0, "depth-first: take each state's transitions in an order shuffled by this `SEED` (same seed, same search; 0: thread order). Often finds errors that need an early preemption sooner")
	f.coverage = fs.String("coverage", "auto", "when a limit ends the search, estimate the share of reachable states visited: auto (levels for bfs, best-first and astar, walk for the others), walk (random walks after the search), levels (the frontier's levels sampled twice, capture-recapture), chao (from how often the search reached each state), thesis (the search runs breadth-first on 60% of the limits, then depth-first from sampled transitions) or off")
	f.seed = fs.Uint64("seed", 1, "seed of random choices: the coverage estimator's samples, --cache's random policies (same seed, same result)")
	f.maxStates = fs.Int("max-states", 0, "stop with verdict limit after storing this many states (ida, which stores none: expanding; 0: no limit)")
	f.maxDepth = fs.Int("max-depth", 0, "do not expand states deeper than this (verdict limit if that cut anything; 0: no limit)")
	f.timeLimit = fs.Duration("time-limit", 0, "stop with verdict limit after this long, e.g. 30s or 5m (0: no limit)")
	f.memLimit = fs.String("memory-limit", "auto", "stop with verdict limit when memory use passes this `SIZE` (e.g. 4GiB, 500MB; auto: 3/4 of the machine's memory or of its cgroup's limit, whichever is less; 0: no limit)")
	f.jsonOut = fs.Bool("json", false, "print exactly one JSON object with the verdict, statistics and trace")
	f.trail = fs.String("trail", "", "write the counterexample to this trail `FILE` (replay it with mcvm replay)")
	f.progress = fs.Bool("progress", false, "print progress lines to stderr even when it is not a terminal")
	f.noProgress = fs.Bool("no-progress", false, "never print progress lines")
	f.cpuProfile = fs.String("cpuprofile", "", "write a CPU profile of the run to `FILE` (for go tool pprof; cmd/mcvm/default.pgo is made of such profiles)")
	f.out.register(fs, true)
}

// profile starts the CPU profile --cpuprofile asks for; the caller runs
// the returned stop when the command ends.
func (f *searchFlags) profile() (stop func(), err error) {
	if *f.cpuProfile == "" {
		return func() {}, nil
	}
	out, err := os.Create(*f.cpuProfile)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		out.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		out.Close()
	}, nil
}

// options returns the explorer options the flags ask for.
func (f *searchFlags) options(stderr io.Writer) (explorer.Options, error) {
	opts := explorer.Options{Continue: *f.cont, KeepViolations: *f.maxErrors, MaxStates: *f.maxStates, MaxDepth: *f.maxDepth, TimeLimit: *f.timeLimit, Shuffle: *f.shuffle}
	var ok bool
	if opts.Coverage, ok = explorer.ParseEstimator(*f.coverage); !ok {
		return opts, fmt.Errorf("--coverage: want one of %s, got %q", strings.Join(explorer.EstimatorNames(), ", "), *f.coverage)
	}
	opts.CoverageSeed = *f.seed
	if opts.Order, ok = explorer.ParseOrder(*f.search); !ok {
		return opts, fmt.Errorf("--search: want dfs, bfs, best-first, astar or ida, got %q", *f.search)
	}
	opts.Coverage = opts.Coverage.For(opts.Order)
	directed := opts.Order == explorer.BestFirst || opts.Order == explorer.AStar || opts.Order == explorer.IDA
	switch {
	case directed && *f.heuristic == "":
		return opts, fmt.Errorf("--search %s needs a --heuristic (%s)", *f.search, heuristicNames(false))
	case !directed && *f.heuristic != "":
		return opts, fmt.Errorf("--heuristic is for --search best-first, astar or ida")
	case *f.target != "" && *f.heuristic == "":
		return opts, fmt.Errorf("--target is the target of a --heuristic")
	}
	if *f.maxErrors < 1 {
		return opts, fmt.Errorf("--max-errors: want at least 1, got %d", *f.maxErrors)
	}
	if *f.maxStates < 0 || *f.maxDepth < 0 || *f.timeLimit < 0 {
		return opts, fmt.Errorf("limits must not be negative")
	}
	var err error
	if opts.MemoryLimit, err = parseMemoryLimit(*f.memLimit); err != nil {
		return opts, err
	}
	if f.intr != nil {
		opts.Interrupt = &f.intr.flag
	}
	if p := f.progressFunc(stderr); p != nil {
		opts.Listen(explorer.Funcs{OnProgress: p})
	}
	return opts, nil
}

// progressFunc returns what prints a progress line to stderr about every
// printEvery, or nil when no progress lines are wanted (--no-progress, or
// stderr is not a terminal and --progress was not given).
func (f *searchFlags) progressFunc(stderr io.Writer) func(explorer.Stats) {
	if (*f.progress || isTerminal(os.Stderr)) && !*f.noProgress {
		next := printEvery
		return func(s explorer.Stats) {
			if s.Elapsed < next {
				return // (check --plot has the search report more often)
			}
			next = s.Elapsed + printEvery
			printProgress(stderr, s)
		}
	}
	return nil
}

func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("check", "MODEL", checkAbout, stdout)
	var sf searchFlags
	sf.register(fs)
	var rf reductionFlags
	rf.register(fs)
	hashCompact := fs.Bool("hash-compact", false, "store only each state's 64-bit fingerprint (SPIN's hash compaction): far less memory, and a small reported probability of missing a state")
	bitstate := fs.Int("bitstate", 0, "bitstate hashing in an array of 2^`BITS` bits (e.g. 30: 128 MiB; 3 bits per state): fixed memory, partial coverage reported as a probability of missed states (0: off)")
	collapse := fs.Bool("collapse", defaultCollapse, collapseUsage)
	workers := fs.Int("workers", 1, "explore with `N` goroutines sharing one visited set (depth-first, or by levels with --search bfs; with a reduction, the static proviso)")
	bitSeed := fs.Uint64("bitstate-seed", 0, "with --bitstate: remix fingerprints with this `SEED` to place the bits (another hash function: other states missed; 0: none)")
	sf.htmlReport = fs.String("report", "", "write the report, the counterexample drawn as a sequence diagram, to this HTML `FILE`")
	sketchFile := fs.String("sketch", "", "write a HyperLogLog sketch of the stored states' fingerprints to `FILE` (swarm merges them)")
	plotFile := fs.String("plot", "", "draw the search's progress to `FILE` (.svg or .png) with mcvm-plot: states stored over time, the coverage estimate of a search a limit ended, breadth-first search's new states per level")
	var cf cacheFlags
	cf.register(fs)
	if done, code := parse(fs, args, stderr, 1); done {
		return code
	}
	var unsignal func()
	sf.intr, unsignal = catchInterrupts(stderr)
	defer unsignal()
	stop, err := sf.profile()
	if err != nil {
		return fail(stderr, "check", err)
	}
	defer stop()
	model := fs.Arg(0)
	gran, err := sf.mf.gran()
	if err != nil {
		return fail(stderr, "check", err)
	}
	ignore, err := sf.mf.ignoreUncaught()
	if err != nil {
		return fail(stderr, "check", err)
	}
	opts, err := sf.options(stderr)
	if err != nil {
		return fail(stderr, "check", err)
	}
	if opts.Storage, opts.BitstateBits, err = storageOf(*hashCompact, *bitstate, *collapse, fs.Changed("collapse"), opts.MemoryLimit); err != nil {
		return fail(stderr, "check", err)
	}
	if opts.Cache, err = cf.options(fs, *sf.seed); err != nil {
		return fail(stderr, "check", err)
	}
	if *bitSeed != 0 && opts.Storage != explorer.StorageBitstate {
		return fail(stderr, "check", fmt.Errorf("--bitstate-seed is for --bitstate"))
	}
	opts.BitstateSeed = *bitSeed
	if *workers < 1 {
		return fail(stderr, "check", fmt.Errorf("--workers: want at least 1, got %d", *workers))
	}
	if *workers > 1 {
		if err := parallelFits(fs, &opts); err != nil {
			return fail(stderr, "check", err)
		}
	}
	var sketch *hll.Sketch
	if *sketchFile != "" {
		if *workers > 1 {
			return fail(stderr, "check", fmt.Errorf("--sketch is for a search with one worker"))
		}
		sketch = new(hll.Sketch)
		opts.Listeners = append(opts.Listeners, explorer.Funcs{OnState: func(_ int32, fp uint64) { sketch.Add(fp) }})
	}
	var plot *progressPlot
	if *plotFile != "" {
		if plot, err = newProgressPlot(*plotFile); err != nil {
			return fail(stderr, "check", err)
		}
		plot.listen(&opts)
	}
	p, err := sf.mf.load(model)
	if err != nil {
		return fail(stderr, "check", err)
	}
	vo, err := sf.mf.limits(vm.Options{Granularity: gran, IgnoreUncaught: ignore})
	if err != nil {
		return fail(stderr, "check", err)
	}
	vo, mode, err := rf.apply(p, vo, &opts)
	if err == nil && opts.Cache != nil {
		err = opts.Validate() // (apply sets the dynamic reduction after validating)
	}
	if err != nil {
		return fail(stderr, "check", err)
	}
	if *workers > 1 && opts.Reducer != nil {
		opts.Proviso = explorer.ProvisoStatic
	}
	sf.porMode, sf.proviso = mode, opts.Proviso
	m, err := vm.New(p, vo)
	if err != nil {
		return fail(stderr, "check", err)
	}
	if err := sf.setHeuristic(m, &opts); err != nil {
		return fail(stderr, "check", err)
	}
	var res *explorer.Result
	if *workers > 1 {
		res, err = explorer.SearchParallel(opts, *workers, func() (explorer.Worker, error) {
			wm, err := vm.New(p, vo)
			w := explorer.Worker{Machine: wm}
			if r := por.New(p, mode); r != nil && r.Reduces() {
				w.Reducer = r
			}
			return w, err
		})
		if err != nil {
			return fail(stderr, "check", err)
		}
	} else {
		res = explorer.Search(m, opts)
	}
	if sketch != nil {
		data, _ := sketch.MarshalBinary()
		if err := replaceFile(*sketchFile, data); err != nil {
			return fail(stderr, "check", fmt.Errorf("--sketch: %w", err))
		}
	}
	if plot != nil {
		if err := plot.write(model, opts.Order, res); err != nil {
			return fail(stderr, "check", err)
		}
	}
	return sf.report(stdout, stderr, "check", model, p, m, opts, res, nil)
}

// parallelFits checks that check's flags combine with --workers, which
// searches depth-first or breadth-first by levels with the static proviso
// and the exact store or hash compaction.
func parallelFits(fs *pflag.FlagSet, opts *explorer.Options) error {
	switch {
	case opts.Order != explorer.DFS && opts.Order != explorer.BFS:
		return fmt.Errorf("--workers searches depth-first or breadth-first: it excludes --search %s", opts.Order)
	case fs.Changed("proviso") && fs.Lookup("proviso").Value.String() != "static":
		return fmt.Errorf("--workers uses the static proviso (it depends on the state alone, so every worker takes the same one)")
	case opts.Storage != explorer.StorageExact && opts.Storage != explorer.StorageHashCompact:
		return fmt.Errorf("--workers needs the exact store or --hash-compact")
	case opts.MaxDepth > 0:
		return fmt.Errorf("--workers excludes --max-depth")
	case opts.Cache != nil:
		return fmt.Errorf("--workers excludes --cache (the cache keeps the depth-first stack)")
	}
	for _, name := range []string{"chain", "sleep", "gc", "trail-ahead"} {
		if fs.Lookup(name) != nil && fs.Changed(name) && fs.Lookup(name).Value.String() == "true" {
			return fmt.Errorf("--%s needs one depth-first stack, and --workers searches with several", name)
		}
	}
	return nil
}

// setHeuristic makes the heuristic --heuristic names for machine m, with
// the error state of the --target trail as its target.
func (sf *searchFlags) setHeuristic(m *vm.Machine, opts *explorer.Options) error {
	if *sf.heuristic == "" {
		return nil
	}
	var target []byte
	if *sf.target != "" {
		tr, err := readTrail(*sf.target)
		if err == nil {
			err = checkDigest(tr, *sf.target, "the model", m.Program())
		}
		if err != nil {
			return fmt.Errorf("--target: %w", err)
		}
		if _, target, err = errorState(m, tr.Path); err != nil {
			return fmt.Errorf("--target: %w (give the options it was written with)", err)
		}
	}
	if target != nil && opts.Symmetry {
		return fmt.Errorf("--target with --symmetry: the heuristic matches threads by index, and symmetry renames them")
	}
	h, err := explorer.NewHeuristic(*sf.heuristic, m, target)
	if err != nil {
		return fmt.Errorf("--heuristic: %w", err)
	}
	opts.Heuristic = h
	return opts.Validate()
}

// memoryLimitFrom says where the memory limit, limit bytes, comes from.
func (sf *searchFlags) memoryLimitFrom(limit int64) string {
	switch {
	case strings.TrimSpace(*sf.memLimit) == "auto":
		_, from := defaultMemoryLimit()
		return from
	case limit == 0:
		return "none (--memory-limit 0)"
	}
	return "--memory-limit"
}

// releaseAfter is the memory of a search's store and stack from which
// report returns it to the system before it builds the report.
const releaseAfter = 4 << 20

// report prints a search's (or certification's) outcome as check does,
// with the script's figures if sc is set, writes the trail if asked, and
// returns the exit code.
func (sf *searchFlags) report(stdout, stderr io.Writer, cmd, model string, p *bytecode.Program, m *vm.Machine,
	opts explorer.Options, res *explorer.Result, sc *scriptFigures) int {
	if res.Stats.StoreBytes+res.Stats.StackBytes >= releaseAfter {
		// The search's store and stack are garbage now: give their memory
		// back before the counterexample is replayed and the report
		// built, so that those do not raise the process's peak above the
		// search's (with --json on philo N = 8 they did, by 1.3 MiB).
		debug.FreeOSMemory()
	}
	var trace *explorer.Trace
	var ends []threadEnd
	gran := m.Options().Granularity
	if res.Fault != nil {
		var err error
		trace, err = explorer.Describe(m, res.Path, sf.htmlReport != nil && *sf.htmlReport != "")
		if err != nil {
			return fail(stderr, cmd, fmt.Errorf("internal error: counterexample does not replay: %w", err))
		}
		ends = threadEnds(m)
		if *sf.trail != "" {
			if err := writeTrail(*sf.trail, p, m.Options(), res.Path, explorer.VerdictOf(res.Fault.Kind)); err != nil {
				return fail(stderr, cmd, err)
			}
		}
	}
	rep := newReport(model, p, gran, opts.Order, res, trace, ends)
	rep.stats, rep.values = sf.out.stats(), sf.out.values()
	for _, v := range res.Violations {
		if *sf.maxErrors < 2 {
			break // the first error's report only, as without --continue
		}
		tr, err := explorer.Describe(m, v.Path, false)
		if err != nil {
			return fail(stderr, cmd, fmt.Errorf("internal error: counterexample does not replay: %w", err))
		}
		f := v.Fault
		rep.Violations = append(rep.Violations, violation{Kind: explorer.VerdictOf(f.Kind).String(), Message: faultMessage(p, &f),
			Trace: toTrace(tr, rep.src), Threads: threadEnds(m)})
	}
	if o := opts.Order; o == explorer.BestFirst || o == explorer.AStar || o == explorer.IDA {
		rep.Heuristic, rep.Expanded, rep.Reopened, rep.Iterations = *sf.heuristic, res.Stats.Expanded, res.Stats.Reopened, res.Stats.Iterations
		if res.Fault != nil {
			n := len(res.Path)
			rep.TrailLength = &n
		}
	}
	if rep.Memory != nil {
		rep.Memory.LimitBytes, rep.Memory.LimitFrom = opts.MemoryLimit, sf.memoryLimitFrom(opts.MemoryLimit)
	}
	rep.continued = opts.Continue
	rep.command = cmd
	rep.Script = sc
	if sc != nil {
		rep.CoverageClaimed, rep.CoverageMismatch = sc.claimed, sc.claimMismatch
	}
	rep.POR = sf.porMode.String()
	if sf.porMode != por.None {
		rep.Proviso = sf.proviso.Resolve(opts.Order).String()
	}
	rep.Chain = opts.Chain
	rep.Sleep = opts.Sleep
	rep.Symmetry = opts.Symmetry
	rep.DeadLocals = m.Options().DeadLocals
	if opts.Order == explorer.DFS && opts.Dynamic == nil && !(cmd == "certify" && sc != nil && sc.trustful) {
		rep.GC = m.Options().GC.String()
		rep.Freed = res.Stats.Freed
	}
	if d, ok := opts.Dynamic.(*por.Dynamic); ok && d.SII {
		st := d.SIIStats()
		rep.SII = &st
	}
	if sf.htmlReport != nil && *sf.htmlReport != "" {
		var states [][]explorer.ThreadState
		if trace != nil {
			states = trace.States
		}
		if err := writeReportFile(*sf.htmlReport, rep, states); err != nil {
			return fail(stderr, cmd, err)
		}
	}
	switch {
	case *sf.jsonOut:
		writeJSON(stdout, rep)
	case *sf.out.quiet:
		rep.printVerdict(stdout)
	default:
		w := bufio.NewWriter(stdout) // a trace is many short lines
		rep.print(w)
		if *sf.trail != "" && res.Fault != nil {
			fmt.Fprintf(w, "trail written to %s (replay: mcvm replay %s %s)\n", *sf.trail, *sf.trail, model)
		}
		w.Flush()
	}
	return exitCode(res.Verdict)
}

// defaultCollapse is --collapse's default. Collapse compression cuts the
// exact store to 0.13-0.35 but runs at 0.55-0.8 of its speed
// (benchmarks/RESULTS.md, "Tried and left"), so it is not the
// default.
const defaultCollapse = false

const collapseUsage = "exact store with collapse compression (SPIN's -DCOLLAPSE): each distinct statics block, thread record and object record is stored once and a state as the vector of their indices; 0.13-0.35 of the store's memory, at 0.55-0.8 of the speed. Only the top 4,096 levels of a depth-first search keep snapshots for backtracking (deeper ones are decoded from the store)"

// storageOf checks --hash-compact, --bitstate and --collapse (explicit:
// given on the command line, not defaulted).
func storageOf(hashCompact bool, bits int, collapse, explicit bool, memLimit int64) (explorer.Storage, int, error) {
	switch {
	case hashCompact && bits != 0:
		return 0, 0, fmt.Errorf("--hash-compact and --bitstate exclude each other")
	case collapse && explicit && (hashCompact || bits != 0):
		return 0, 0, fmt.Errorf("--collapse is for the exact store: it excludes --hash-compact and --bitstate")
	case hashCompact:
		return explorer.StorageHashCompact, 0, nil
	case bits == 0 && collapse:
		return explorer.StorageCollapse, 0, nil
	case bits == 0:
		return explorer.StorageExact, 0, nil
	case bits < 10 || bits > explorer.MaxBitstateBits:
		return 0, 0, fmt.Errorf("--bitstate: want 10 to %d (the array has 2^BITS bits), got %d", explorer.MaxBitstateBits, bits)
	case memLimit > 0 && int64(1)<<(bits-3) > memLimit:
		return 0, 0, fmt.Errorf("--bitstate %d: the array (%d MiB) exceeds the memory limit (%d MiB)", bits, int64(1)<<(bits-23), memLimit>>20)
	}
	return explorer.StorageBitstate, bits, nil
}

// peakRSS returns the process's peak resident memory in bytes (0 if unknown).
func peakRSS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return int64(ru.Maxrss) * 1024
}

func exitCode(v explorer.Verdict) int {
	switch v {
	case explorer.VerdictOK:
		return exitOK
	case explorer.VerdictLimit:
		return exitLimit
	}
	return exitViolation
}

// writeTrail writes the trail of a violation with verdict v to path
// (replaceFile). After its first line it records the verdict and the
// number of steps, as comment lines, which explorer.ReadTrail passes
// over and readTrail checks, so that a trail cut short is known as such.
func writeTrail(path string, p *bytecode.Program, vo vm.Options, trs []vm.Trans, v explorer.Verdict) error {
	var b bytes.Buffer
	if err := explorer.WriteTrail(&b, &explorer.Trail{Digest: bytecode.Digest(p), Granularity: vo.Granularity, Escape: vo.Escape, DeadLocals: vo.DeadLocals, Path: trs}); err != nil {
		return err
	}
	data := b.Bytes()
	first := bytes.IndexByte(data, '\n') + 1
	out := append([]byte(nil), data[:first]...)
	out = fmt.Appendf(out, "%s%s\n%s%d\n", trailVerdict, v, trailSteps, len(trs))
	return replaceFile(path, append(out, data[first:]...))
}

// The lines with which writeTrail records a trail's verdict and length.
const (
	trailVerdict = "# verdict "
	trailSteps   = "# steps "
)

// trailFile is a trail as read from a file: the explorer's trail and what
// the file records beside it.
type trailFile struct {
	*explorer.Trail
	Verdict string // the violation it was written for ("" if the file does not say)
}

// readTrail reads and parses trail file name. A trail that records its
// length must hold that many steps.
func readTrail(name string) (*trailFile, error) {
	data, err := readInput(name)
	if err != nil {
		return nil, err
	}
	return parseTrail(name, data)
}

// parseTrail is readTrail of the file's contents, data.
func parseTrail(name string, data []byte) (*trailFile, error) {
	tr, err := explorer.ReadTrail(name, data)
	if err != nil {
		return nil, err
	}
	verdict, steps, err := trailRecord(name, data)
	if err != nil {
		return nil, err
	}
	switch {
	case verdict == "":
	case len(tr.Path) < steps:
		return nil, fmt.Errorf("trail %s is incomplete: its steps end after %d of the %d it records, before its error (recorded verdict: %s)", name, len(tr.Path), steps, verdict)
	case len(tr.Path) > steps:
		return nil, fmt.Errorf("trail %s has %d steps, more than the %d it records (recorded verdict: %s)", name, len(tr.Path), steps, verdict)
	}
	return &trailFile{Trail: tr, Verdict: verdict}, nil
}

// trailRecord returns the verdict and the number of steps a trail records
// (writeTrail), or "" if it records none. It reads the header's lines
// only, up to the first step.
func trailRecord(name string, data []byte) (verdict string, steps int, err error) {
	haveSteps := false
scan:
	for ln, rest := 1, data; len(rest) > 0; ln++ {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		f := strings.Fields(string(line))
		switch {
		case len(f) == 3 && f[0] == "#" && (f[1] == "verdict" || f[1] == "steps"):
			var ok bool
			if f[1] == "verdict" {
				ok = verdict == "" && isViolation(f[2])
				verdict = f[2]
			} else {
				n, err := strconv.ParseInt(f[2], 10, 32)
				ok = !haveSteps && err == nil && n >= 0
				steps, haveSteps = int(n), true
			}
			if !ok {
				return "", 0, fmt.Errorf("%s:%d:1: want \"%sVERDICT\" and \"%sN\", once each, VERDICT a violation or limit", name, ln, trailVerdict, trailSteps)
			}
		case len(f) == 0 || strings.HasPrefix(f[0], "#"):
		case f[0] == "mcvm-trail" || f[0] == "program" || f[0] == "granularity" || f[0] == "escape" || f[0] == "dead-locals":
		default:
			break scan // a step: the header is over
		}
	}
	if (verdict != "") != haveSteps {
		return "", 0, fmt.Errorf("%s: the trail records one of its verdict and its number of steps, not both", name)
	}
	return verdict, steps, nil
}

// isViolation reports whether v names a verdict a trail can record: that
// of a property violation, or limit, for a transition that reached a limit
// of the machine (--max-threads, ...). (VerdictLivelock is the last.)
func isViolation(v string) bool {
	for w := explorer.VerdictDeadlock; w <= explorer.VerdictLivelock; w++ {
		if w.String() == v {
			return true
		}
	}
	return false
}

// checkDigest refuses trail tr (file name) unless it is program p's
// (model names p in the message).
func checkDigest(tr *trailFile, name, model string, p *bytecode.Program) error {
	if d := bytecode.Digest(p); d != tr.Digest {
		return fmt.Errorf("trail %s belongs to another program (digest %016x, %s has %016x): were the same -D values given?", name, tr.Digest, model, d)
	}
	return nil
}

// loadTrail reads trail file name and model, checks that the trail is the
// model's, and returns a machine with the trail's options.
func loadTrail(mf *modelFlags, name, model string) (*trailFile, *bytecode.Program, *vm.Machine, error) {
	tr, err := readTrail(name)
	if err != nil {
		return nil, nil, nil, err
	}
	p, err := mf.load(model)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := checkDigest(tr, name, model, p); err != nil {
		return nil, nil, nil, err
	}
	ignore, err := mf.ignoreUncaught()
	if err != nil {
		return nil, nil, nil, err
	}
	vo, err := mf.limits(vm.Options{Granularity: tr.Granularity, Escape: tr.Escape, DeadLocals: tr.DeadLocals, IgnoreUncaught: ignore})
	if err != nil {
		return nil, nil, nil, err
	}
	m, err := vm.New(p, vo)
	if err != nil {
		return nil, nil, nil, err
	}
	return tr, p, m, nil
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func printProgress(w io.Writer, s explorer.Stats) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(w, "mcvm: %.1fs states %d (%.0f/s) transitions %d depth %d memory %d MiB\n",
		s.Elapsed.Seconds(), s.States, s.StatesPerSecond(), s.Transitions, s.MaxDepth, ms.Sys>>20)
}

// threadEnd is where a thread is in the final state of a counterexample.
type threadEnd struct {
	Thread  int32  `json:"thread"`
	Status  string `json:"status"`
	Blocker string `json:"blocked_on,omitempty"`
	Method  string `json:"method,omitempty"`
	Instr   string `json:"instr,omitempty"`
	Pos     string `json:"pos,omitempty"`
}

func threadEnds(m *vm.Machine) []threadEnd {
	p := m.Program()
	var ends []threadEnd
	for _, t := range m.S.Threads {
		e := threadEnd{Thread: t.ID, Status: t.Status.String()}
		if b := m.Blocker(t.ID); b != "" {
			if t.Status != vm.StatusWaiting {
				e.Status = "blocked"
			}
			e.Blocker = b
		}
		if meth, pc := m.Where(t.ID); meth >= 0 {
			if w := m.WaitPC(t.ID); w >= 0 {
				pc = w // show the wait, not the instruction after it
			}
			e.Method = p.MethodName(meth)
			e.Instr = bytecode.FormatInstr(p, p.Methods[meth].Code[pc])
			e.Pos = p.PosString(p.InstrPos(meth, pc))
		}
		ends = append(ends, e)
	}
	return ends
}

// report is what check and replay print; its JSON form is check --json.
type report struct {
	Model         string        `json:"model"`
	Verdict       string        `json:"verdict"`
	Message       string        `json:"message,omitempty"`
	Limit         string        `json:"limit,omitempty"`
	Granularity   string        `json:"granularity"`
	Search        string        `json:"search"`
	Heuristic     string        `json:"heuristic,omitempty"`       // best-first, astar, ida: --heuristic
	Expanded      int64         `json:"expanded_states,omitempty"` // best-first, astar, ida: states expanded (A* counts a reopened one again)
	Reopened      int64         `json:"reopened_states,omitempty"` // astar: states reached again by a shorter path
	Iterations    int64         `json:"iterations,omitempty"`      // ida: depth-first iterations
	TrailLength   *int          `json:"trail_length,omitempty"`    // best-first, astar, ida: the counterexample's transitions
	TrailVerdict  string        `json:"trail_verdict,omitempty"`   // replay: the verdict the trail records, where the replay reached another
	POR           string        `json:"por"`
	Proviso       string        `json:"proviso,omitempty"`
	Reduced       int64         `json:"reduced_states,omitempty"`
	Chain         bool          `json:"chain"`                         // chains were used (--chain, the default where it applies)
	Chained       int64         `json:"chained_transitions,omitempty"` // transitions run from states not stored
	ChainReduced  int64         `json:"chained_reduced,omitempty"`     // of them, singleton persistent sets out of several enabled
	Sleep         bool          `json:"sleep"`                         // sleep sets were used (--sleep, the default where it applies)
	Slept         int64         `json:"slept_transitions,omitempty"`   // transitions not explored: their thread was asleep
	Woken         int64         `json:"woken_revisits,omitempty"`      // revisits that explored transitions asleep before
	SleepAgain    bool          `json:"sleep_again,omitempty"`         // searched again after an invariant violation (--continue)
	SII           *por.SIIStats `json:"sii,omitempty"`                 // dpor's summaries (--sii)
	Symmetry      bool          `json:"symmetry"`                      // thread symmetry reduction (--symmetry)
	Twins         int64         `json:"twin_transitions,omitempty"`    // transitions not explored: a twin thread's same ones were
	GC            string        `json:"gc,omitempty"`                  // the collector of the active heap (--gc), when the search collects
	DeadLocals    bool          `json:"dead_locals,omitempty"`         // dead variable reduction (--dead-locals)
	Freed         int64         `json:"freed_objects"`                 // objects it freed
	Evicted       int64         `json:"evicted_snapshots,omitempty"`   // depth-first levels whose snapshot was forgotten (--collapse)
	Decoded       int64         `json:"decoded_levels,omitempty"`      // returns to such levels, decoded from the store
	States        int64         `json:"states"`
	Transitions   int64         `json:"transitions"`
	Revisits      int64         `json:"revisits"`
	MaxDepth      int           `json:"max_depth"`
	Errors        int64         `json:"errors"`
	Instructions  int64         `json:"instructions"`
	ElapsedS      float64       `json:"elapsed_s"`
	StatesPerS    float64       `json:"states_per_s"`
	BytesPerState float64       `json:"bytes_per_state"`
	Memory        *memory       `json:"memory,omitempty"`
	Cache         *cacheFigures `json:"cache,omitempty"` // --cache
	Levels        []int64       `json:"levels,omitempty"`
	// A search that ended at a limit: the estimated share of the
	// reachable states it stored (--coverage), with a 95% interval.
	CoverageEstimate *float64    `json:"coverage_estimate,omitempty"`
	CoverageLow      *float64    `json:"coverage_low,omitempty"`
	CoverageHigh     *float64    `json:"coverage_high,omitempty"`
	EstimatedStates  *float64    `json:"estimated_states,omitempty"`
	Estimator        string      `json:"estimator,omitempty"`
	CoverageSamples  int64       `json:"coverage_samples,omitempty"`
	Trace            []traceStep `json:"trace"`
	Threads          []threadEnd `json:"threads_at_end,omitempty"`
	// Involved is the state of the threads the error involves, at the
	// error: frames with named locals, monitors held, objects reached.
	Involved []explorer.ThreadState `json:"threads_involved,omitempty"`
	// Violations, with --continue, are the distinct violations found,
	// each with the shortest trace found to it.
	Violations []violation `json:"violations,omitempty"`
	// CoverageClaimed, for certify of a script a limit cut off, is the
	// coverage estimate its header claims (the figures above are the one
	// computed again); CoverageMismatch, that the two differ though
	// certification followed the whole script.
	CoverageClaimed  *claimedCoverage `json:"coverage_claimed,omitempty"`
	CoverageMismatch bool             `json:"coverage_mismatch,omitempty"`
	// Script holds the search script's figures (verify, certify).
	Script    *scriptFigures `json:"script,omitempty"`
	continued bool           // --continue: always say how many errors
	command   string         // the command printed in the first line
	stats     bool           // --stats: print the search's internals
	values    bool           // --values: print the values steps changed
	src       sources        // the source lines the traces quote
}

func newReport(model string, p *bytecode.Program, g vm.Granularity, o explorer.Order, res *explorer.Result,
	tr *explorer.Trace, ends []threadEnd) *report {
	st := res.Stats
	r := &report{
		Model: model, Verdict: res.Verdict.String(), Limit: res.Limit, Granularity: g.String(), Search: o.String(),
		States: st.States, Transitions: st.Transitions, Revisits: st.Revisits, MaxDepth: st.MaxDepth,
		Errors: st.Errors, Instructions: st.Instructions, ElapsedS: st.Elapsed.Seconds(),
		StatesPerS: st.StatesPerSecond(), Trace: []traceStep{}, Threads: ends, POR: "none", src: sources{},
		Reduced: st.Reduced, Chained: st.Chained, ChainReduced: st.ChainedReduced, Slept: st.Slept, Woken: st.Woken, SleepAgain: st.SleepAgain,
		Twins: st.Twins, Evicted: st.Evicted, Decoded: st.Decoded,
	}
	if st.States > 0 {
		r.BytesPerState = float64(st.StoreBytes) / float64(st.States)
	}
	if strings.HasPrefix(st.Store.Storage, "cache") {
		r.Cache = &cacheFigures{Capacity: st.Cache.Capacity, Peak: st.Cache.Peak, Evictions: st.Cache.Evictions, Overflow: st.Cache.Overflow}
	}
	r.Levels = st.Levels
	if c := res.Coverage; c != nil {
		r.CoverageEstimate, r.CoverageLow, r.CoverageHigh, r.EstimatedStates = &c.Share, &c.Low, &c.High, &c.Total
		r.Estimator, r.CoverageSamples = c.Estimator.String(), c.Samples
	}
	a := st.Store
	r.Memory = &memory{Store: a.Storage, StoreBytes: a.Bytes, TableSlots: a.TableSlots, TableBytes: a.TableBytes,
		RecordBytes: a.RecordBytes, IndexBytes: a.IndexBytes, SleepBytes: a.SleepBytes, StackBytes: st.StackBytes, PeakGoBytes: st.PeakMemory, PeakRSSBytes: peakRSS(),
		MissProbability: a.MissProbability, ExpectedMissed: a.ExpectedMissed}
	for _, p := range a.Pools {
		r.Memory.Pools = append(r.Memory.Pools, pool{Kind: p.Kind, Components: p.Components, Bytes: p.Bytes})
	}
	if st.States > 0 {
		r.Memory.PeakRSSPerState = float64(r.Memory.PeakRSSBytes) / float64(st.States)
	}
	if res.Fault != nil {
		r.Message = faultMessage(p, res.Fault)
	}
	r.Trace = toTrace(tr, r.src)
	if tr != nil {
		r.Involved = tr.Involved
	}
	return r
}

// faultMessage describes a fault for people: what and where.
func faultMessage(p *bytecode.Program, f *vm.Fault) string {
	var b strings.Builder
	switch f.Kind {
	case vm.FaultAssertion:
		fmt.Fprintf(&b, "assertion violated: %s", f.Msg)
	case vm.FaultLimit:
		fmt.Fprintf(&b, "%s, %s raises it", f.Msg, limitFlags[f.Limit])
	default:
		b.WriteString(f.Msg)
	}
	switch {
	case f.Method >= 0 && f.PC >= 0 && f.Thread < 0: // in an invariant
		fmt.Fprintf(&b, " (%s, %s)", p.MethodName(f.Method), p.PosString(p.InstrPos(f.Method, f.PC)))
	case f.Method >= 0 && f.PC >= 0:
		fmt.Fprintf(&b, " (thread %d, %s, %s)", f.Thread, p.MethodName(f.Method), p.PosString(p.InstrPos(f.Method, f.PC)))
	case f.Thread >= 0:
		fmt.Fprintf(&b, " (thread %d)", f.Thread)
	}
	return b.String()
}

func (r *report) print(w io.Writer) {
	cmd := r.command
	if cmd == "" {
		cmd = "check"
	}
	fmt.Fprintf(w, "mcvm %s %s\n", cmd, r.Model)
	r.printVerdict(w)
	if r.Script != nil && r.Script.HeaderVerdict != "" {
		fmt.Fprintf(w, "warning:     the script's header claims the verdict %s; the verdict above is certification's\n", r.Script.HeaderVerdict)
	}
	if r.CoverageMismatch {
		fmt.Fprintln(w, "warning:     the script's header claims another coverage estimate than the states certified give; the recomputed one is certification's")
	}
	switch {
	case r.Message != "" && r.Verdict == "limit":
		fmt.Fprintf(w, "limit:       %s\n", r.Message)
	case r.Message != "":
		fmt.Fprintf(w, "error:       %s\n", r.Message)
	}
	if r.continued || r.Errors > 1 {
		fmt.Fprintf(w, "errors:      %d", r.Errors)
		if len(r.Violations) > 1 {
			fmt.Fprintf(w, ", %d distinct", len(r.Violations))
		}
		fmt.Fprintln(w)
	}
	if len(r.Violations) > 1 {
		printViolations(w, r.Violations, r.values)
	} else {
		printTrace(w, r.Trace, r.Threads, r.Involved, r.values)
	}
	r.printSummary(w)
	if r.stats {
		r.printStats(w)
	}
	if r.Script != nil {
		r.Script.print(w)
	}
	if r.Verdict == "limit" && r.command != "certify" && r.Message == "" {
		// (A limit of the machine says itself which flag raises it.)
		fmt.Fprintln(w, "hint:        no error was found in the part explored. Smaller parameters (-D) may finish; an error")
		fmt.Fprintln(w, "             that needs an early preemption may be found sooner with --search bfs or --random-order 1.")
		if m := r.Memory; r.Limit == "memory" && m != nil && m.Store == "exact" {
			fmt.Fprintln(w, "             To store more states in the same memory: --collapse keeps the store exact in a third of its")
			fmt.Fprintln(w, "             memory or less, at about two thirds of the speed; --hash-compact keeps 8-16 bytes a state,")
			fmt.Fprintln(w, "             with a small probability of missing states (it reports it).")
		}
	}
}

// printVerdict prints the verdict line, the only line of --quiet.
func (r *report) printVerdict(w io.Writer) {
	verdict := r.Verdict
	switch {
	case r.Limit == "interrupted" && r.Verdict == "limit":
		verdict += " (interrupted; the state space was not fully explored)"
	case r.Limit == "interrupted":
		verdict += " (then an interrupt stopped the search before it was complete)"
	case r.Limit == scc.LimitScript && r.Verdict == "limit":
		verdict += " (the script records a search a limit cut off; the part it records was certified)"
	case r.Limit == scc.LimitScript:
		verdict += " (then the script, which records a search a limit cut off, ended)"
	case r.Limit != "" && r.Verdict == "limit":
		verdict += " (" + r.Limit + " limit reached; the state space was not fully explored)"
	case r.Limit != "":
		verdict += " (then the " + r.Limit + " limit stopped the search before it was complete)"
	}
	fmt.Fprintf(w, "verdict:     %s\n", verdict)
}

// perStateFrom is the number of states from which the summary gives
// per-state figures (states/s): below it they measure start-up, not the
// search.
const perStateFrom = 100_000

// printSummary prints the search's figures in two or three lines.
func (r *report) printSummary(w io.Writer) {
	fmt.Fprintf(w, "states:      %d stored, %d transitions (%d revisits), max depth %d\n", r.States, r.Transitions, r.Revisits, r.MaxDepth)
	switch c := r.CoverageClaimed; {
	case c != nil:
		recomputed := "not recomputed"
		if r.CoverageEstimate != nil {
			recomputed = fmt.Sprintf("recomputed about %s (%s-%s; about %s states)",
				progress.Percent(*r.CoverageEstimate), progress.Percent(*r.CoverageLow), progress.Percent(*r.CoverageHigh), progress.RoundStates(*r.EstimatedStates))
		}
		fmt.Fprintf(w, "coverage:    claimed about %s (%s-%s; %s estimate: about %s states), %s\n",
			progress.Percent(c.Share), progress.Percent(c.Low), progress.Percent(c.High), c.Estimator, progress.RoundStates(c.Total), recomputed)
	case r.CoverageEstimate != nil:
		fmt.Fprintf(w, "coverage:    about %s of the reachable states (sampling interval %s-%s; %s estimate: about %s states)\n",
			progress.Percent(*r.CoverageEstimate), progress.Percent(*r.CoverageLow), progress.Percent(*r.CoverageHigh), r.Estimator, progress.RoundStates(*r.EstimatedStates))
	}
	if r.Heuristic != "" {
		fmt.Fprintf(w, "directed:    %s, heuristic %s: %d states expanded", r.Search, r.Heuristic, r.Expanded)
		switch {
		case r.Reopened > 0:
			fmt.Fprintf(w, ", %d reopened", r.Reopened)
		case r.Iterations > 0:
			fmt.Fprintf(w, " in %d iterations (it stores only its path)", r.Iterations)
		}
		if r.TrailLength != nil {
			fmt.Fprintf(w, "; counterexample of %d transitions", *r.TrailLength)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "time:        %.3f s", r.ElapsedS)
	if r.States >= perStateFrom {
		fmt.Fprintf(w, " (%.0f states/s)", r.StatesPerS)
	}
	if m := r.Memory; m != nil {
		fmt.Fprintf(w, ", peak memory %.1f MiB", mib(m.PeakRSSBytes))
	}
	fmt.Fprintf(w, "; %s, %s granularity", r.Search, r.Granularity)
	if r.POR != "" && r.POR != "none" {
		fmt.Fprintf(w, ", --por=%s", r.POR)
	}
	fmt.Fprintln(w)
	if m := r.Memory; m != nil && r.Limit == "memory" {
		m.printLimit(w, r.Limit)
	}
}

// printStats prints the search's internals (--stats): store, memory,
// collector, reductions.
func (r *report) printStats(w io.Writer) {
	if m := r.Memory; m != nil && m.Store == "" {
		// Certification: no visited set.
		fmt.Fprintf(w, "memory:      peak resident %.1f MiB (%.1f bytes/state), %.0f states/s\n", mib(m.PeakRSSBytes), m.PeakRSSPerState, r.StatesPerS)
		if r.Limit != "memory" {
			m.printLimit(w, r.Limit)
		}
	}
	if m := r.Memory; m != nil && m.Store != "" {
		fmt.Fprintf(w, "store:       %s, %.1f MiB: table %d %s (%.1f MiB)", m.Store, mib(m.StoreBytes), m.TableSlots,
			map[bool]string{true: "bits", false: "slots"}[m.Store == "bitstate"], mib(m.TableBytes))
		switch m.Store {
		case "exact":
			fmt.Fprintf(w, ", encodings %.1f MiB, index %.1f MiB", mib(m.RecordBytes), mib(m.IndexBytes))
		case "collapse":
			fmt.Fprintf(w, ", index vectors %.1f MiB, index %.1f MiB\n", mib(m.RecordBytes), mib(m.IndexBytes))
			fmt.Fprintf(w, "pools:      ")
			for i, p := range m.Pools {
				if i > 0 {
					fmt.Fprint(w, ",")
				}
				fmt.Fprintf(w, " %s %d (%.1f MiB)", p.Kind, p.Components, mib(p.Bytes))
			}
		}
		if m.SleepBytes > 0 {
			fmt.Fprintf(w, "; sleep sets %.1f MiB", mib(m.SleepBytes))
		}
		fmt.Fprintln(w)
		if c := r.Cache; c != nil {
			fmt.Fprintf(w, "cache:       held %d states at most (bound %d, 0: by memory), %d evicted; \"stored\" counts a state explored again each time\n", c.Peak, c.Capacity, c.Evictions)
		}
		if m.Store != "exact" && m.Store != "collapse" && m.Store != "cache" {
			fmt.Fprintf(w, "coverage:    probability of a missed state %.3g (expected states missed %.3g)\n", m.MissProbability, m.ExpectedMissed)
		}
		fmt.Fprintf(w, "memory:      peak resident %.1f MiB (%.1f bytes/state; store %.1f bytes/state), peak Go runtime %.1f MiB, %.0f states/s",
			mib(m.PeakRSSBytes), m.PeakRSSPerState, r.BytesPerState, mib(m.PeakGoBytes), r.StatesPerS)
		if m.StackBytes > 0 {
			fmt.Fprintf(w, "; depth-first stack %.1f MiB", mib(m.StackBytes))
		}
		fmt.Fprintln(w)
		if r.Limit != "memory" {
			m.printLimit(w, r.Limit)
		}
		if r.Evicted > 0 {
			fmt.Fprintf(w, "stack:       %d snapshots of levels far below the top given up; %d returns to such levels decoded the state from the store\n", r.Evicted, r.Decoded)
		}
	}
	if r.GC != "" {
		fmt.Fprintf(w, "gc:          %s; %d objects freed in the active heap\n", r.GC, r.Freed)
	}
	if r.DeadLocals {
		fmt.Fprintf(w, "dead locals: zeroed after every transition (--dead-locals)\n")
	}
	if r.POR != "" && r.POR != "none" {
		fmt.Fprintf(w, "reduction:   --por=%s, %s proviso; %d states expanded with one thread's transitions\n", r.POR, r.Proviso, r.Reduced)
		if r.Chain {
			fmt.Fprintf(w, "chain:       %d transitions run from states with a single transition to explore, not stored (%d of them a singleton persistent set, the others the only one enabled)\n", r.Chained, r.ChainReduced)
		}
		if s := r.SII; s != nil {
			fmt.Fprintf(w, "sii:         %d states summarised, %d distinct summaries: %.1f MiB collapsed, %.1f MiB without collapsing\n",
				s.States, s.Distinct, mib(s.CollapsedBytes), mib(s.FullBytes))
		}
		if r.Symmetry {
			fmt.Fprintf(w, "symmetry:    threads sorted into a canonical order after every transition; %d transitions not explored, a twin thread's same ones were\n", r.Twins)
		}
		if r.Sleep {
			fmt.Fprintf(w, "sleep:       %d transitions not explored, their thread asleep; %d revisits explored transitions asleep before\n", r.Slept, r.Woken)
			if r.SleepAgain {
				fmt.Fprintf(w, "             (searched twice: the first search met an invariant violation, which --continue does not expand, so the second kept threads awake where one may lie below)\n")
			}
		}
	}
	fmt.Fprintf(w, "instructions: %d executed\n", r.Instructions)
}

const replayAbout = `Replays a counterexample TRAIL (written by mcvm check --trail) on MODEL and
prints its steps and the error it reaches. The trail must belong to the same
program (its digest is checked) and granularity. A trail mcvm wrote records
its verdict and its number of steps: one whose steps end before its error
(a file cut short) is reported as incomplete, with its recorded verdict
(exit code 2), and a replay that reaches another violation says so. Exit
code 1 when the trail reaches a property violation, 3 when it reaches a
limit of the machine (--max-threads, ...), 0 when it does neither (a
trail written by hand, which records no verdict).`

func runReplay(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("replay", "TRAIL MODEL", replayAbout, stdout)
	var mf modelFlags
	mf.registerDefines(fs, "as given to check")
	mf.registerUncaught(fs)
	mf.registerLimits(fs)
	jsonOut := fs.Bool("json", false, "print one JSON object with the verdict and trace")
	var of outputFlags
	of.register(fs, false)
	htmlReport := fs.String("report", "", "write the report, the counterexample drawn as a sequence diagram, to this HTML `FILE`")
	if done, code := parse(fs, args, stderr, 2); done {
		return code
	}
	tr, p, m, err := loadTrail(&mf, fs.Arg(0), fs.Arg(1))
	if err != nil {
		return fail(stderr, "replay", err)
	}
	start := time.Now()
	trace, err := explorer.Describe(m, tr.Path, *htmlReport != "")
	if err != nil {
		return fail(stderr, "replay", err)
	}
	f := trace.Fault
	if f == nil && tr.Verdict != "" && tr.Verdict != explorer.VerdictLimit.String() {
		// (A limit of the machine raised since is not reached: the
		// replay's verdict, with a warning.)
		return fail(stderr, "replay", fmt.Errorf("trail %s is incomplete: its %d steps end before its error (recorded verdict: %s)", fs.Arg(0), len(tr.Path), tr.Verdict))
	}
	res := &explorer.Result{Fault: f, Path: tr.Path}
	res.Stats.Elapsed = time.Since(start)
	res.Stats.Transitions = int64(len(tr.Path))
	if f != nil {
		res.Verdict = explorer.VerdictOf(f.Kind)
	}
	rep := newReport(fs.Arg(1), p, tr.Granularity, explorer.DFS, res, trace, threadEnds(m))
	if tr.Verdict != "" && tr.Verdict != rep.Verdict {
		rep.TrailVerdict = tr.Verdict
	}
	rep.command = "replay"
	if *htmlReport != "" {
		if err := writeReportFile(*htmlReport, rep, trace.States); err != nil {
			return fail(stderr, "replay", err)
		}
	}
	switch {
	case *jsonOut:
		writeJSON(stdout, rep)
	case *of.quiet:
		rep.printVerdict(stdout)
	default:
		fmt.Fprintf(stdout, "mcvm replay %s %s\n", fs.Arg(0), fs.Arg(1))
		rep.printVerdict(stdout)
		if rep.TrailVerdict != "" {
			fmt.Fprintf(stdout, "warning:     the trail records the verdict %s; the verdict above is the replay's\n", rep.TrailVerdict)
		}
		if rep.Message != "" {
			fmt.Fprintf(stdout, "%-13s%s\n", map[bool]string{true: "limit:", false: "error:"}[res.Verdict == explorer.VerdictLimit], rep.Message)
		}
		printTrace(stdout, rep.Trace, rep.Threads, rep.Involved, of.values())
	}
	return exitCode(res.Verdict)
}

// memory is the memory account of check's report.
type memory struct {
	Store           string  `json:"store"`
	StoreBytes      int64   `json:"store_bytes"`
	TableSlots      int64   `json:"table_slots"`
	TableBytes      int64   `json:"table_bytes"`
	RecordBytes     int64   `json:"encoding_bytes"`
	IndexBytes      int64   `json:"index_bytes"`
	SleepBytes      int64   `json:"sleep_set_bytes,omitempty"` // with sleep sets: each state's (part of store_bytes)
	StackBytes      int64   `json:"stack_bytes,omitempty"`     // the depth-first stack (frames, transition lists, snapshots), about its peak
	PeakGoBytes     int64   `json:"peak_go_bytes"`
	LimitBytes      int64   `json:"limit_bytes"` // the memory limit (0: none)
	LimitFrom       string  `json:"limit_from"`  // where it comes from: --memory-limit, or what auto read
	PeakRSSBytes    int64   `json:"peak_rss_bytes"`
	PeakRSSPerState float64 `json:"peak_rss_bytes_per_state"`
	MissProbability float64 `json:"miss_probability"`
	ExpectedMissed  float64 `json:"expected_missed_states"`
	// Pools are the collapse store's component pools (encoding_bytes is
	// then its index vectors).
	Pools []pool `json:"pools,omitempty"`
}

// pool is one of the collapse store's component pools.
type pool struct {
	Kind       string `json:"kind"`
	Components int64  `json:"components"`
	Bytes      int64  `json:"bytes"`
}

// printLimit prints the memory limit where the report must say what it
// was: when it ended the search (limit "memory"), and when there was
// none because no figure of the memory available could be read.
func (m *memory) printLimit(w io.Writer, limit string) {
	switch {
	case limit == "memory" && m.LimitBytes > 0:
		fmt.Fprintf(w, "             limit %.1f MiB: %s\n", mib(m.LimitBytes), m.LimitFrom)
	case m.LimitBytes == 0 && strings.HasPrefix(m.LimitFrom, "none: "):
		fmt.Fprintf(w, "             no memory limit: %s\n", strings.TrimPrefix(m.LimitFrom, "none: "))
	}
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }
