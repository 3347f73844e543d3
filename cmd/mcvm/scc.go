// mcvm verify, certify, partition and merge-fp: search-carrying code.

package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"mcvm/asm"
	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/por"
	"mcvm/scc"
	"mcvm/vm"
)

// scriptReduction is verify's and certify's --por: the partial-order
// reduction of the search a script records.
type scriptReduction struct {
	name  *string
	chain *bool
	fs    *pflag.FlagSet
}

func (f *scriptReduction) register(fs *pflag.FlagSet) {
	f.fs = fs
	f.name = fs.String("por", "all", "partial-order reduction of the search the script records: none, escape, ample or all (escape and ample), with the stack proviso, as check's --por but without sleep sets (a certifier could not check what they leave out); dpor is check's only. verify and certify must be given the same; extra properties (--invariant, --properties, --next-invariant) need none")
	f.chain = fs.Bool("chain", true, "chains, as for check: a state whose search would explore a single transition is not stored, that transition runs at once as part of the one that reached it (the script names the transition that begins a chain, and the certifier runs the same chain). On by default wherever a reduction applies (not with --por none); the script's header says so, and verify and certify must agree (--chain=false for a script written without)")
}

// chains says whether the search runs chains: by default wherever a
// reduction applies; an explicit --chain without one is an error.
func (f *scriptReduction) chains(mode por.Mode) (bool, error) {
	if !*f.chain {
		return false, nil
	}
	if mode == por.None {
		if f.fs.Changed("chain") {
			return false, fmt.Errorf("--chain needs a reduction (--por other than none)")
		}
		return false, nil
	}
	return true, nil
}

// resolve parses --por: the mode, and its name in the script's header
// ("none", or the mode, the proviso and por.Revision: "all/stack/r3").
func (f *scriptReduction) resolve() (por.Mode, string, error) {
	mode, err := por.ParseMode(*f.name)
	if err != nil {
		return 0, "", fmt.Errorf("--por: %w", err)
	}
	if mode&por.DPOR != 0 {
		return 0, "", fmt.Errorf("--por %s: search scripts record persistent sets (none, escape, ample or all), not dynamic reduction", mode)
	}
	if mode == por.None {
		return mode, "none", nil
	}
	return mode, mode.String() + "/" + explorer.ProvisoStack.String() + "/r" + strconv.Itoa(por.Revision), nil
}

// scriptFigures are a search script's figures in the summary and JSON.
type scriptFigures struct {
	File               string  `json:"file,omitempty"`
	Kind               string  `json:"kind"`
	Entries            int64   `json:"entries"`
	Bytes              int64   `json:"bytes"`
	RawBytes           int64   `json:"raw_bytes"`
	TextBytes          int64   `json:"text_bytes,omitempty"`
	CompressionRatio   float64 `json:"compression_ratio"`
	TextRatio          float64 `json:"text_compression_ratio,omitempty"`
	BytesPerTransition float64 `json:"bytes_per_transition"`
	PeakFP             int64   `json:"peak_fp_entries,omitempty"`
	PeakFPPercent      float64 `json:"peak_fp_percent,omitempty"`
	Tasks              int     `json:"tasks,omitempty"`
	Jobs               int     `json:"jobs,omitempty"`
	LargestTask        int64   `json:"largest_task_transitions,omitempty"`
	LeastLargestTask   int64   `json:"least_largest_task_transitions,omitempty"` // where the tasks are uneven: the least largest task any K regions allow
	AvgInitPath        float64 `json:"avg_init_path,omitempty"`
	MaxInitPath        int     `json:"max_init_path,omitempty"`
	PartitionS         float64 `json:"partition_s,omitempty"` // splitting and the tasks' init paths, replayed once for all
	LargestTaskS       float64 `json:"largest_task_s,omitempty"`
	MergeS             float64 `json:"merge_s,omitempty"`
	Comparisons        int64   `json:"fp_comparisons,omitempty"`
	// HeaderVerdict is the verdict the script's header claims, where
	// certification of the whole script found another.
	HeaderVerdict string `json:"header_verdict,omitempty"`
	// Partial: a limit cut the script's search off; it records the part
	// searched.
	Partial       bool             `json:"partial,omitempty"`
	trustful      bool             // a trustful script or task (its certifier collects no garbage)
	claimed       *claimedCoverage // certify: the coverage estimate the header claims
	claimMismatch bool             // certify: the estimate computed again differs from it
}

// claimedCoverage is the coverage estimate a script's header claims, with
// what computing it again takes: the estimator, its seed and the
// transitions it may sample.
type claimedCoverage struct {
	Estimator string  `json:"estimator"`
	Seed      uint64  `json:"seed"`
	Budget    int64   `json:"sample_budget"`
	Visited   int64   `json:"visited_states"`
	Share     float64 `json:"coverage_estimate"`
	Low       float64 `json:"coverage_low"`
	High      float64 `json:"coverage_high"`
	Total     float64 `json:"estimated_states"`
}

// claim sets f's claimed coverage from s's header, and whether res, a
// certification of the whole script, estimated another.
func (f *scriptFigures) claim(s *scc.Script, res *explorer.Result) {
	if !s.HasCoverage() {
		return
	}
	c := s.Coverage
	f.claimed = &claimedCoverage{c.Estimator, c.Seed, c.Budget, c.Visited, c.Share, c.Low, c.High, c.Total}
	// (Certification a limit of its own cut short checked fewer states:
	// its estimate may differ.)
	f.claimMismatch = res.Limit == scc.LimitScript && !c.Same(res.Coverage)
}

// headerVerdict returns the verdict s's header claims if it is not v,
// certification's verdict, and the two must agree: a whole script,
// certified to the end (no limit), for the program's own properties.
func (cf *certifyFlags) headerVerdict(s *scc.Script, v explorer.Verdict) string {
	extra := len(*cf.invariants) > 0 || len(*cf.props) > 0 || len(*cf.nextInv) > 0
	if s.IsTask() || extra || v == explorer.VerdictLimit || s.Verdict == v.String() {
		return ""
	}
	return s.Verdict
}

func (f *scriptFigures) print(w io.Writer) {
	fmt.Fprintf(w, "script:      %s %s: %d entries, %d bytes (%d uncompressed, ratio %.1f",
		f.Kind, f.File, f.Entries, f.Bytes, f.RawBytes, f.CompressionRatio)
	if f.TextBytes > 0 {
		fmt.Fprintf(w, "; as text %d bytes, ratio %.0f", f.TextBytes, f.TextRatio)
	}
	fmt.Fprintf(w, "), %.3f bytes/transition", f.BytesPerTransition)
	if f.Partial {
		fmt.Fprint(w, "; the part searched before the limit")
	}
	fmt.Fprintln(w)
	if f.PeakFP > 0 {
		fmt.Fprintf(w, "fp map:      peak %d entries (%.1f%% of the states)\n", f.PeakFP, f.PeakFPPercent)
	}
	if f.Tasks > 0 {
		least := ""
		if f.LeastLargestTask > 0 {
			least = fmt.Sprintf(" (no split into at most %d regions has one under %d)", f.Tasks, f.LeastLargestTask)
		}
		fmt.Fprintf(w, "tasks:       %d in %d jobs; largest %d transitions%s; init paths avg %.1f max %d; partition %.3f s, largest task %.3f s, merge %.3f s (%d FP comparisons)\n",
			f.Tasks, f.Jobs, f.LargestTask, least, f.AvgInitPath, f.MaxInitPath, f.PartitionS, f.LargestTaskS, f.MergeS, f.Comparisons)
	}
}

func figures(file string, s *scc.Script, transitions int64) *scriptFigures {
	f := &scriptFigures{File: file, Kind: kindName(s), Entries: s.Entries + s.InitEntries, Bytes: s.FileBytes, RawBytes: s.RawBytes, trustful: s.Trustful(), Partial: s.Limited()}
	if s.FileBytes > 0 {
		f.CompressionRatio = float64(s.RawBytes) / float64(s.FileBytes)
	}
	if transitions > 0 {
		f.BytesPerTransition = float64(s.FileBytes) / float64(transitions)
	}
	return f
}

func kindName(s *scc.Script) string {
	switch s.Kind {
	case scc.KindFull:
		return "tamper-proof script"
	case scc.KindTrustful:
		return "trustful script"
	case scc.KindTask:
		return fmt.Sprintf("task %d of %d", s.Task, s.Tasks)
	}
	return fmt.Sprintf("trustful task %d of %d", s.Task, s.Tasks)
}

const verifyAbout = `Model checks MODEL exhaustively by depth-first search, as check does, and
writes a search script (search-carrying code): every transition explored,
as the instruction that begins it, the thread and the choice value, with
the ID of the state it reaches, and every backtrack, with the Subgraphs list
and last-use marks (--script, for tamper-proof certification); or only the
productive transitions (--trustful-script, for trustful certification). The
script is compressed with zstd and carries the program's digest and the
options that shape the state space; see docs/scc-format.md. The search is
reduced by --por (all by default, as for check) with the stack proviso,
with chains as check runs them (--chain=false: without), but without sleep
sets, which a certifier could not check: its figures are check's with
--sleep=false. --chain, --dead-locals and --symmetry apply as for check and
are recorded in the header. A search a limit stops (--max-states,
--time-limit, --memory-limit, an interrupt) writes a script of the part it
searched, with verdict limit and its --coverage estimate (estimator, seed,
sample budget and figures) in the header, for certify to compute again;
with --max-depth or a limit of the machine it writes none, and with
--cache only given --coverage off (the cache's states are not the
script's). Prints check's
summary plus the script's figures. Exit codes as check.`

func runVerify(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("verify", "MODEL", verifyAbout, stdout)
	var sf searchFlags
	sf.register(fs)
	// A script records a depth-first search: the search order flags do
	// not apply (given, they are refused with a reason).
	hideFlags(fs, "search", "heuristic", "target")
	fs.Lookup("coverage").Usage = verifyCoverageUsage()
	var red scriptReduction
	red.register(fs)
	script := fs.String("script", "", "write the tamper-proof search script to `FILE`")
	trustful := fs.String("trustful-script", "", "write a trustful search script (productive transitions only) to `FILE`")
	collapse := fs.Bool("collapse", defaultCollapse, collapseUsage+" (the script is the same; a script needs the exact store's state IDs, so there is no --hash-compact or --bitstate)")
	gcName := fs.String("gc", "mark-sweep", "garbage collector of the active heap, as for check: mark-sweep, memoised or none (the script is the same with each)")
	dead := fs.Bool("dead-locals", false, deadLocalsUsage+" (the script's header says so, and certify must be given it too)")
	sym := fs.Bool("symmetry", false, symmetryUsage+" (the script's header says so, and certify must be given it too)")
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
		return fail(stderr, "verify", err)
	}
	defer stop()
	if (*script == "") == (*trustful == "") {
		return fail(stderr, "verify", fmt.Errorf("give exactly one of --script FILE and --trustful-script FILE"))
	}
	out := *script
	if out == "" {
		out = *trustful
	}
	model := fs.Arg(0)
	gran, err := sf.mf.gran()
	if err != nil {
		return fail(stderr, "verify", err)
	}
	if ignore, err := sf.mf.ignoreUncaught(); err != nil || ignore {
		return fail(stderr, "verify", fmt.Errorf("--uncaught must be report for search scripts (a script records a search that reports uncaught exceptions)"))
	}
	mode, porName, err := red.resolve()
	if err != nil {
		return fail(stderr, "verify", err)
	}
	opts, err := sf.options(stderr)
	if err != nil {
		return fail(stderr, "verify", err)
	}
	if *collapse {
		opts.Storage = explorer.StorageCollapse
	}
	if opts.Cache, err = cf.options(fs, *sf.seed); err != nil {
		return fail(stderr, "verify", err)
	}
	if opts.Cache != nil {
		if err := opts.Validate(); err != nil {
			return fail(stderr, "verify", err)
		}
	}
	if mode != por.None && opts.MaxDepth > 0 {
		return fail(stderr, "verify", fmt.Errorf("--max-depth needs --por none: the stack proviso of a reduced search needs every path"))
	}
	p, err := sf.mf.load(model)
	if err != nil {
		return fail(stderr, "verify", err)
	}
	gc, err := parseGC(*gcName)
	if err != nil {
		return fail(stderr, "verify", err)
	}
	vo, err := sf.mf.limits(vm.Options{Granularity: gran, GC: gc, DeadLocals: *dead})
	if err != nil {
		return fail(stderr, "verify", err)
	}
	m, err := vm.New(p, mode.VMOptions(vo))
	if err != nil {
		return fail(stderr, "verify", err)
	}
	if mode != por.None {
		opts.Reducer, opts.Proviso = por.New(p, mode), explorer.ProvisoStack
		sf.porMode, sf.proviso = mode, explorer.ProvisoStack
	}
	if opts.Chain, err = red.chains(mode); err != nil {
		return fail(stderr, "verify", err)
	}
	if *sym {
		if err := checkSymmetry(p); err != nil {
			return fail(stderr, "verify", err)
		}
		opts.Symmetry = true
	}
	start := time.Now()
	res, s, err := scc.Verify(m, opts, *trustful != "", porName)
	if err != nil {
		if errors.Is(err, scc.ErrIncomplete) {
			fmt.Fprintf(stderr, "mcvm verify: %v\n", err)
			return sf.report(stdout, stderr, "verify", model, p, m, opts, res, nil)
		}
		return fail(stderr, "verify", err)
	}
	data := scc.Encode(s)
	if err := replaceFile(out, data); err != nil {
		return fail(stderr, "verify", err)
	}
	res.Stats.Elapsed = time.Since(start) // the script's encoding and writing included
	fig := figures(out, s, res.Stats.Transitions)
	if t := scc.TextSize(s, p); t > 0 {
		fig.TextBytes, fig.TextRatio = t, float64(t)/float64(len(data))
	}
	return sf.report(stdout, stderr, "verify", model, p, m, opts, res, fig)
}

// verifyCoverageUsage is verify's --coverage: the estimators a certifier
// can compute again, from the states it certifies.
func verifyCoverageUsage() string {
	var names []string
	for _, n := range []string{"walk", "chao", "thesis"} {
		if e, ok := explorer.ParseEstimator(n); ok && e.Stored() {
			names = append(names, n)
		}
	}
	return "when a limit ends the search, estimate the share of reachable states visited and record it in the script's header: auto (for a script's depth-first search, walk), " +
		strings.Join(names, ", ") + " or off (the estimators certify can compute again from the states it certifies)"
}

const certifyAbout = `Certifies MODEL with a search script written by mcvm verify: follows the
script (Algorithm 3.1 of Taleghani's thesis) instead of searching, checks
the program's properties in every state, and checks on the fly that the
script describes the program's whole reachability graph, with a map from
state IDs to fingerprints instead of a visited set. A script that does not
(a transition the state lacks, a backtrack from a partly explored state, an
ID mapped to a different state, a damaged file, a wrong Subgraphs list)
fails with its position and the kind of discrepancy. Exit codes: 0
certified, 1 property violated, 2 discrepancy or bad input, 3 limit.

  --script FILE             certify with a whole script (--trustful for a trustful one)
  --tasks K --jobs N        partition the script into K tasks and certify them in N
                            goroutines, then merge and compare their FP maps
  --task DIR/task-I         certify one task written by mcvm partition and write its
                            FP map (--fp-out, default DIR/task-I.fp) for mcvm merge-fp

--por must be the one the script was written with (all by default): the
certifier computes each state's persistent set itself and requires it
explored, and all transitions where the stack proviso asks. Likewise
--chain (on by default with a reduction), --dead-locals and --symmetry:
give them exactly as verify was given them (the script's header says
which; a mismatch is refused up front).

Extra properties, which the producer need not have checked: --invariant
CLASS.METHOD (a static method returning nonzero in every state), from the
program or from a --properties FILE linked in; --next-invariant PRE:POST
(in every transition from a state where PRE holds, POST holds in the state
reached; tamper-proof scripts only, which cover every transition). They
need a script of the unreduced search (verify and certify with --por
none). The other flags are check's: limits end certification with verdict
limit (never a pass); there are no search order flags, since certification
follows the script's order.

A script of a search a limit cut off records the part searched: certify
checks it as it checks a whole script, but ends with verdict limit (exit
3), and computes the coverage estimate the header claims again, with the
header's estimator, seed and sample budget, from the states it certified,
and prints both (a warning where they differ). Such a script is certified
whole: --tasks, --slurm and mcvm partition refuse it.`

// certifyFlags are certify's own flags.
type certifyFlags struct {
	script, task, fpOut *string
	slurm               *string
	tasks, jobs         *int
	trustful, forget    *bool
	deadLocals, sym     *bool
	gc                  *string
	gcMode              vm.GC // *gc parsed
	invariants, props   *[]string
	nextInv             *[]string
}

func runCertify(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("certify", "MODEL", certifyAbout, stdout)
	var sf searchFlags
	sf.register(fs)
	// Certification follows the script's order (given, these are
	// refused with a reason).
	hideFlags(fs, "search", "heuristic", "target", "random-order", "coverage", "seed")
	var red scriptReduction
	red.register(fs)
	var cf certifyFlags
	cf.script = fs.String("script", "", "the search script `FILE` to certify with")
	cf.task = fs.String("task", "", "certify one task `FILE` written by mcvm partition")
	cf.fpOut = fs.String("fp-out", "", "with --task: write the task's FP map to `FILE` (default: the task file with .fp appended)")
	cf.tasks = fs.Int("tasks", 0, "partition the script into `K` tasks and certify them in parallel (0: certify sequentially)")
	cf.jobs = fs.Int("jobs", 1, "with --tasks: certify `N` tasks at a time")
	cf.slurm = fs.String("slurm", "", "with --tasks: write the tasks and Slurm batch scripts to `DIR` instead of certifying (a job array of certify --task, then merge-fp)")
	cf.trustful = fs.Bool("trustful", false, "the script is trustful (verify --trustful-script): a perfect search without fingerprints, state properties only")
	cf.forget = fs.Bool("forget", false, "drop FP entries after their last use (sequential tamper-proof certification) and report the peak number held")
	cf.invariants = fs.StringArray("invariant", nil, "also check this invariant `CLASS.METHOD` in every state (repeatable)")
	cf.props = fs.StringArray("properties", nil, "link this .mcasm `FILE` of property methods (classes without statics) into the program (repeatable)")
	cf.nextInv = fs.StringArray("next-invariant", nil, "an invariant over consecutive states `PRE:POST`, both CLASS.METHOD (repeatable)")
	cf.deadLocals = fs.Bool("dead-locals", false, "the script was written with verify --dead-locals: "+deadLocalsUsage)
	cf.sym = fs.Bool("symmetry", false, "the script was written with verify --symmetry: "+symmetryUsage)
	cf.gc = fs.String("gc", "mark-sweep", "garbage collector of the active heap, as for check and verify: mark-sweep, memoised or none (tamper-proof certification frees the objects no root reaches in every state it enters, as the search does, its fingerprint serving as the mark; trustful certification, which computes no fingerprints, does not collect; any collector certifies any script)")
	if done, code := parse(fs, args, stderr, 1); done {
		return code
	}
	var unsignal func()
	sf.intr, unsignal = catchInterrupts(stderr)
	defer unsignal()
	stop, err := sf.profile()
	if err != nil {
		return fail(stderr, "certify", err)
	}
	defer stop()
	model := fs.Arg(0)
	n := 0
	for _, s := range []string{*cf.script, *cf.task} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return fail(stderr, "certify", fmt.Errorf("give exactly one of --script FILE and --task FILE"))
	}
	if *cf.tasks < 0 || *cf.jobs < 1 || (*cf.tasks > 0 && *cf.task != "") {
		return fail(stderr, "certify", fmt.Errorf("--tasks K needs --script and K >= 1; --jobs N needs N >= 1"))
	}
	if *cf.forget && (*cf.tasks > 0 || *cf.task != "") {
		return fail(stderr, "certify", fmt.Errorf("--forget applies to sequential certification only: the FP maps of tasks are compared whole at the end"))
	}
	if *cf.slurm != "" {
		if *cf.tasks < 1 || *cf.script == "" {
			return fail(stderr, "certify", fmt.Errorf("--slurm DIR needs --tasks K and --script FILE"))
		}
		return cf.writeSlurm(fs, model, stdout, stderr)
	}
	if *sf.search != "dfs" || *sf.shuffle != 0 {
		return fail(stderr, "certify", fmt.Errorf("certification follows the script's order: --search and --random-order apply to verify"))
	}
	if fs.Changed("coverage") || fs.Changed("seed") {
		return fail(stderr, "certify", fmt.Errorf("--coverage and --seed apply to verify: certify computes the estimate a script's header claims with the header's estimator and seed"))
	}
	gran, err := sf.mf.gran()
	if err != nil {
		return fail(stderr, "certify", err)
	}
	if cf.gcMode, err = parseGC(*cf.gc); err != nil {
		return fail(stderr, "certify", err)
	}
	if ignore, err := sf.mf.ignoreUncaught(); err != nil || ignore {
		return fail(stderr, "certify", fmt.Errorf("--uncaught must be report for search scripts (a script records a search that reports uncaught exceptions)"))
	}
	mode, porName, err := red.resolve()
	if err != nil {
		return fail(stderr, "certify", err)
	}
	chains, err := red.chains(mode)
	if err != nil {
		return fail(stderr, "certify", err)
	}
	if mode != por.None && (len(*cf.invariants) > 0 || len(*cf.props) > 0 || len(*cf.nextInv) > 0) {
		return fail(stderr, "certify", fmt.Errorf("extra properties (--invariant, --properties, --next-invariant) need a script of the unreduced search: verify and certify with --por none (partial-order reduction keeps only the states the program's own properties need)"))
	}
	file := *cf.script
	if file == "" {
		file = *cf.task
	}
	data, err := readInput(file)
	if err != nil {
		return fail(stderr, "certify", err)
	}
	s, err := scc.Read(data)
	if err != nil {
		return certifyFail(stderr, file, err)
	}
	if s.Trustful() != *cf.trustful {
		if s.Trustful() {
			return fail(stderr, "certify", fmt.Errorf("%s is a trustful script: certify it with --trustful", file))
		}
		return fail(stderr, "certify", fmt.Errorf("%s is a tamper-proof script, not a trustful one: drop --trustful", file))
	}
	if *cf.task == "" && s.IsTask() {
		return fail(stderr, "certify", fmt.Errorf("%s is a task: certify it with --task", file))
	}
	if *cf.task != "" && !s.IsTask() {
		return fail(stderr, "certify", fmt.Errorf("%s is a whole script, not a task: certify it with --script", file))
	}
	base, err := sf.mf.load(model)
	if err != nil {
		return fail(stderr, "certify", err)
	}
	digest := bytecode.Digest(base)
	if *cf.sym {
		if err := checkSymmetry(base); err != nil {
			return fail(stderr, "certify", err)
		}
	}
	if err := s.Match(digest, gran.String(), porName, *cf.deadLocals, *cf.sym, chains); err != nil {
		return fail(stderr, "certify", fmt.Errorf("%s: %w", file, err))
	}
	mk, err := cf.machines(&sf, model, base, gran, mode)
	if err != nil {
		return fail(stderr, "certify", err)
	}
	eo, err := sf.options(stderr)
	if err != nil {
		return fail(stderr, "certify", err)
	}
	eo.Chain = chains // (for the summary)
	opts := scc.Options{Forget: *cf.forget, Continue: eo.Continue, MaxStates: eo.MaxStates, MaxDepth: eo.MaxDepth,
		TimeLimit: eo.TimeLimit, MemoryLimit: eo.MemoryLimit, Interrupt: eo.Interrupt, Listeners: eo.Listeners, Digest: digest, POR: porName, Symmetry: *cf.sym, Chain: chains}
	if mode != por.None {
		sf.porMode, sf.proviso = mode, explorer.ProvisoStack
	}
	if *cf.tasks > 0 {
		return cf.parallel(stdout, stderr, &sf, model, file, s, mk, opts, eo)
	}
	ms, err := mk()
	if err != nil {
		return fail(stderr, "certify", err)
	}
	opts.Extra, opts.Next, opts.Reducer = ms.extra, ms.next, ms.reducer()
	res, err := scc.Certify(ms.m, s, opts)
	if err != nil {
		return certifyFail(stderr, file, err)
	}
	fig := figures(file, s, res.Stats.Transitions)
	fig.HeaderVerdict = cf.headerVerdict(s, res.Verdict)
	fig.claim(s, &res.Result)
	if !s.Trustful() {
		fig.PeakFP = res.PeakFP
		if res.Stats.States > 0 {
			fig.PeakFPPercent = 100 * float64(res.PeakFP) / float64(res.Stats.States)
		}
	}
	if *cf.task != "" {
		out := *cf.fpOut
		if out == "" {
			out = file + ".fp"
		}
		if err := replaceFile(out, scc.EncodeFPMap(res.FP)); err != nil {
			return fail(stderr, "certify", err)
		}
		if !*sf.jsonOut {
			defer fmt.Fprintf(stdout, "fp map written to %s (merge all tasks' maps with mcvm merge-fp)\n", out)
		}
	}
	return sf.report(stdout, stderr, "certify", model, ms.m.Program(), ms.m, eo, &res.Result, fig)
}

// certifyFail reports a failed certification: a discrepancy or bad input.
func certifyFail(stderr io.Writer, file string, err error) int {
	var d *scc.Discrepancy
	if errors.As(err, &d) {
		fmt.Fprintf(stderr, "mcvm certify: %s: certification failed: %v\n", file, err)
		return exitUsage
	}
	return fail(stderr, "certify", fmt.Errorf("%s: %w", file, err))
}

// machineSet is one certifier's machines: the program's and those that
// evaluate extra properties.
type machineSet struct {
	m     *vm.Machine
	extra *vm.Machine
	next  []scc.NextInvariant
	red   *por.Reducer // the script's reduction (nil: none); one per goroutine
}

// reducer returns the set's reducer as the certifier takes it (a nil
// interface without one).
func (ms *machineSet) reducer() explorer.Reducer {
	if ms.red == nil {
		return nil
	}
	return ms.red
}

var newMachineMu sync.Mutex

// machines links the properties into the program and returns a function
// that makes a fresh set of machines (one per goroutine).
func (cf *certifyFlags) machines(sf *searchFlags, model string, base *bytecode.Program, gran vm.Granularity, mode por.Mode) (func() (*machineSet, error), error) {
	prog := base
	if len(*cf.props) > 0 {
		var err error
		if prog, err = link(sf, model, base, *cf.props); err != nil {
			return nil, err
		}
	}
	find := func(name string) (int32, error) {
		for i := range prog.Methods {
			if prog.MethodName(int32(i)) == name {
				return int32(i), nil
			}
		}
		return 0, fmt.Errorf("no method %q in the program or the --properties files", name)
	}
	with := func(invs []int32) *bytecode.Program {
		q := *prog
		q.Invariants = invs
		return &q
	}
	var extras []int32
	if prog != base {
		extras = append(extras, prog.Invariants[len(base.Invariants):]...)
	}
	for _, name := range *cf.invariants {
		mi, err := find(name)
		if err != nil {
			return nil, fmt.Errorf("--invariant: %w", err)
		}
		extras = append(extras, mi)
	}
	type pair struct {
		name     string
		pre, pos int32
	}
	var pairs []pair
	for _, spec := range *cf.nextInv {
		a, b, ok := strings.Cut(spec, ":")
		if !ok {
			return nil, fmt.Errorf("--next-invariant %s: want PRE:POST, both CLASS.METHOD", spec)
		}
		pre, err := find(strings.TrimSpace(a))
		if err != nil {
			return nil, fmt.Errorf("--next-invariant: %w", err)
		}
		post, err := find(strings.TrimSpace(b))
		if err != nil {
			return nil, fmt.Errorf("--next-invariant: %w", err)
		}
		pairs = append(pairs, pair{spec, pre, post})
	}
	if len(pairs) > 64 {
		return nil, fmt.Errorf("at most 64 --next-invariant pairs")
	}
	main := with(base.Invariants)
	vo, err := sf.mf.limits(vm.Options{Granularity: gran, GC: cf.gcMode, DeadLocals: *cf.deadLocals})
	if err != nil {
		return nil, err
	}
	vo = mode.VMOptions(vo)
	mk := func() (*machineSet, error) {
		newMachineMu.Lock()
		defer newMachineMu.Unlock()
		ms := &machineSet{}
		var err error
		if ms.m, err = vm.New(main, vo); err != nil {
			return nil, err
		}
		ms.red = por.New(main, mode)
		if len(extras) > 0 {
			if ms.extra, err = vm.New(with(extras), vo); err != nil {
				return nil, fmt.Errorf("extra invariants: %w", err)
			}
		}
		for _, p := range pairs {
			ni := scc.NextInvariant{Name: p.name}
			if ni.Pre, err = vm.New(with([]int32{p.pre}), vo); err == nil {
				ni.Post, err = vm.New(with([]int32{p.pos}), vo)
			}
			if err != nil {
				return nil, fmt.Errorf("--next-invariant %s: %w", p.name, err)
			}
			ms.next = append(ms.next, ni)
		}
		return ms, nil
	}
	_, err = mk() // report errors now, before any work
	return mk, err
}

// link assembles the model together with property files and checks that
// they only add: the model's classes, statics, fields and methods keep
// their numbers and code, so the state space is the same.
func link(sf *searchFlags, model string, base *bytecode.Program, props []string) (*bytecode.Program, error) {
	if strings.HasSuffix(model, ".mcb") {
		return nil, fmt.Errorf("--properties needs the model's .mcasm source")
	}
	defs, err := parseDefines(sf.mf.defines)
	if err != nil {
		return nil, err
	}
	var src strings.Builder
	for _, f := range append([]string{model}, props...) {
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&src, ".include %q\n", abs)
	}
	p, err := asm.Assemble(filepath.Join(filepath.Dir(model), "(linked properties)"), []byte(src.String()), asm.Options{Defines: defs})
	if err != nil {
		return nil, err
	}
	ok := len(p.Classes) >= len(base.Classes) && len(p.Methods) >= len(base.Methods) &&
		len(p.Statics) == len(base.Statics) && len(p.Fields) == len(base.Fields) &&
		len(p.Invariants) >= len(base.Invariants) && slices.Equal(p.Invariants[:len(base.Invariants)], base.Invariants)
	for i := 0; ok && i < len(base.Classes); i++ {
		ok = p.Classes[i].Name == base.Classes[i].Name
	}
	for i := 0; ok && i < len(base.Methods); i++ {
		ok = p.Methods[i].Name == base.Methods[i].Name && p.Methods[i].Class == base.Methods[i].Class && slices.Equal(p.Methods[i].Code, base.Methods[i].Code)
	}
	if !ok {
		return nil, fmt.Errorf("--properties: the files must only add classes with methods (no statics or fields, no changes to the model)")
	}
	return p, nil
}

// parallel partitions the script and certifies the tasks in goroutines.
func (cf *certifyFlags) parallel(stdout, stderr io.Writer, sf *searchFlags, model, file string, s *scc.Script,
	mk func() (*machineSet, error), opts scc.Options, eo explorer.Options) int {
	start := time.Now()
	part, err := scc.Split(s, *cf.tasks)
	if err != nil {
		return certifyFail(stderr, file, err)
	}
	// The tasks' init paths, replayed once as a tree before the tasks run.
	ms, err := mk()
	if err != nil {
		return fail(stderr, "certify", err)
	}
	po := opts
	po.Reducer = ms.reducer()
	if err := part.Prepare(ms.m, po); err != nil {
		return certifyFail(stderr, file, err)
	}
	partS := time.Since(start)
	type out struct {
		res *scc.Result
		err error
		d   time.Duration
	}
	outs := make([]out, len(part.Tasks))
	next := make(chan int)
	var wg sync.WaitGroup
	for j := 0; j < *cf.jobs; j++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ms, err := mk()
			for i := range next {
				if err != nil {
					outs[i].err = err
					continue
				}
				o := opts
				o.Extra, o.Next, o.Reducer = ms.extra, ms.next, ms.reducer()
				t0 := time.Now()
				outs[i].res, outs[i].err = scc.Certify(ms.m, part.Tasks[i], o)
				outs[i].d = time.Since(t0)
			}
		}()
	}
	// Largest task first (by transitions), so that the last to finish are
	// small ones and the jobs end together.
	order := make([]int, len(part.Tasks))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(part.Sizes[b], part.Sizes[a]) })
	for _, i := range order {
		next <- i
	}
	close(next)
	wg.Wait()
	t0 := time.Now()
	var maps []*scc.FPMap
	var largest time.Duration
	var first *scc.Result
	for i, o := range outs {
		if o.err != nil {
			return certifyFail(stderr, fmt.Sprintf("%s (task %d of %d)", file, i+1, len(outs)), o.err)
		}
		largest = max(largest, o.d)
		maps = append(maps, o.res.FP)
		if first == nil && o.res.Fault != nil {
			first = o.res
		}
	}
	var mr *scc.MergeResult
	if limit := slices.IndexFunc(outs, func(o out) bool { return o.res.Limit != "" }); limit < 0 {
		if mr, err = scc.Merge(maps); err != nil {
			return certifyFail(stderr, file, err)
		}
	} else {
		// A task a limit cut off explored part of its region only: the
		// maps cannot cover the graph, and certification ends with the
		// limit (never a pass) and the tasks' figures added up.
		mr = &scc.MergeResult{}
		for _, o := range outs {
			st := &o.res.Stats
			mr.States += st.States
			mr.Transitions += st.Transitions
			mr.Revisits += st.Revisits
			mr.Errors += st.Errors
			mr.Instructions += st.Instructions
			mr.Chained += st.Chained
			mr.ChainedRed += st.ChainedReduced
		}
	}
	mergeS := time.Since(t0)
	res := &explorer.Result{}
	if first != nil {
		res.Fault, res.Path, res.Verdict = first.Fault, first.Path, first.Verdict
	}
	for _, o := range outs {
		if o.res.Limit != "" && res.Limit == "" {
			res.Limit = o.res.Limit
			if res.Verdict == explorer.VerdictOK {
				res.Verdict = explorer.VerdictLimit
			}
		}
		res.Stats.MaxDepth = max(res.Stats.MaxDepth, o.res.Stats.MaxDepth+o.res.InitLen)
		// Each task collects in its own machine, the states of its region
		// (not those of its init path): the sum need not be a whole
		// certification's count.
		res.Stats.Freed += o.res.Stats.Freed
	}
	res.Stats.States, res.Stats.Transitions, res.Stats.Revisits = mr.States, mr.Transitions, mr.Revisits
	res.Stats.Errors, res.Stats.Instructions = mr.Errors, mr.Instructions
	res.Stats.Chained, res.Stats.ChainedReduced = mr.Chained, mr.ChainedRed
	res.Stats.Elapsed = time.Since(start)
	fig := figures(file, s, mr.Transitions)
	fig.HeaderVerdict = cf.headerVerdict(s, res.Verdict)
	fig.Tasks, fig.Jobs, fig.Comparisons, fig.LeastLargestTask = len(part.Tasks), *cf.jobs, mr.Comparisons, part.Least
	fig.PartitionS, fig.LargestTaskS, fig.MergeS = partS.Seconds(), largest.Seconds(), mergeS.Seconds()
	var sum int
	for i, n := range part.Sizes {
		fig.LargestTask = max(fig.LargestTask, n)
		sum += part.Init[i]
		fig.MaxInitPath = max(fig.MaxInitPath, part.Init[i])
	}
	fig.AvgInitPath = float64(sum) / float64(len(part.Init))
	return sf.report(stdout, stderr, "certify", model, ms.m.Program(), ms.m, eo, res, fig)
}

const partitionAbout = `Partitions a complete search script (written by mcvm verify) into K
independent certification tasks (Algorithm 3.2 of Taleghani's thesis): each
task is the region of the state graph rooted at one state, chosen from the
script's Subgraphs list so that the tasks are about equally large, prefixed
by the path from the initial state to its root. Writes DIR/task-1 ... and
prints each task's size and init path. Certify each with mcvm certify
--task (on any machine), then check them together with mcvm merge-fp.`

func runPartition(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("partition", "", partitionAbout, stdout)
	k := fs.Int("tasks", 0, "split into `K` tasks (fewer if the script has too few regions)")
	script := fs.String("script", "", "the search script `FILE`")
	dir := fs.StringP("output", "o", "", "write the tasks to directory `DIR` (created if needed)")
	if done, code := parse(fs, args, stderr, 0); done {
		return code
	}
	if *k < 1 || *script == "" || *dir == "" {
		return fail(stderr, "partition", fmt.Errorf("want --tasks K (K >= 1), --script FILE and -o DIR"))
	}
	data, err := readInput(*script)
	if err != nil {
		return fail(stderr, "partition", err)
	}
	s, err := scc.Read(data)
	if err != nil {
		return fail(stderr, "partition", fmt.Errorf("%s: %w", *script, err))
	}
	part, err := scc.Split(s, *k)
	if err != nil {
		return fail(stderr, "partition", fmt.Errorf("%s: %w", *script, err))
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return fail(stderr, "partition", err)
	}
	var total int64
	for _, n := range part.Sizes {
		total += n
	}
	fmt.Fprintf(stdout, "mcvm partition %s: %d tasks, %d transitions\n", *script, len(part.Tasks), total)
	if part.Least > 0 {
		fmt.Fprintf(stdout, "  uneven: no split into at most %d regions has a largest task under %d transitions, %.1f%% of them\n", *k, part.Least, 100*float64(part.Least)/float64(max(total, 1)))
	}
	for i, t := range part.Tasks {
		name := filepath.Join(*dir, fmt.Sprintf("task-%d", i+1))
		b := scc.Encode(t)
		if err := replaceFile(name, b); err != nil {
			return fail(stderr, "partition", err)
		}
		pct := 0.0
		if total > 0 {
			pct = 100 * float64(part.Sizes[i]) / float64(total)
		}
		fmt.Fprintf(stdout, "  %s  root state %d, %d transitions (%.1f%%), init path %d, %d bytes\n", name, t.Root, part.Sizes[i], pct, part.Init[i], len(b))
	}
	return exitOK
}

const mergeAbout = `Merges the FP maps that mcvm certify --task wrote for every task of one
partition and checks them together: every state ID maps to one fingerprint
in all tasks, is explored by exactly one task, and every state reached is
explored by some task (so the tasks together covered the whole reachability
graph). Prints the totals. Exit codes: 0 certified, 1 some task found a
property violation, 2 a discrepancy or bad input, 3 some task was cut off
by a limit (certify it again).`

func runMergeFP(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("merge-fp", "FILE...", mergeAbout, stdout)
	jsonOut := fs.Bool("json", false, "print one JSON object with the totals")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "mcvm merge-fp: %v\n", err)
		return exitUsage
	}
	if fs.NArg() == 0 {
		return fail(stderr, "merge-fp", fmt.Errorf("want the FP map files of all tasks"))
	}
	var maps []*scc.FPMap
	for _, f := range fs.Args() {
		data, err := readInput(f)
		if err != nil {
			return fail(stderr, "merge-fp", err)
		}
		m, err := scc.ReadFPMap(data)
		if err != nil {
			return fail(stderr, "merge-fp", fmt.Errorf("%s: %w", f, err))
		}
		maps = append(maps, m)
	}
	limited := slices.IndexFunc(maps, func(m *scc.FPMap) bool { return m.Verdict == explorer.VerdictLimit.String() })
	var mr *scc.MergeResult
	if limited < 0 {
		var err error
		if mr, err = scc.Merge(maps); err != nil {
			fmt.Fprintf(stderr, "mcvm merge-fp: certification failed: %v\n", err)
			return exitUsage
		}
	} else {
		// A task cut off by a limit covers part of its region only:
		// the maps cannot cover the graph. Verdict limit, never a pass.
		fmt.Fprintf(stderr, "mcvm merge-fp: %s: its task was cut off by a limit; certify it again to complete the certification\n", fs.Arg(limited))
		mr = &scc.MergeResult{Verdict: explorer.VerdictLimit.String()}
		for _, m := range maps {
			mr.States += m.States
			mr.Transitions += m.Transitions
			mr.Revisits += m.Revisits
			mr.Errors += m.Errors
		}
	}
	if *jsonOut {
		writeJSON(stdout, struct {
			Verdict     string `json:"verdict"`
			Tasks       int    `json:"tasks"`
			States      int64  `json:"states"`
			Transitions int64  `json:"transitions"`
			Revisits    int64  `json:"revisits"`
			Errors      int64  `json:"errors"`
			Comparisons int64  `json:"fp_comparisons"`
		}{mr.Verdict, len(maps), mr.States, mr.Transitions, mr.Revisits, mr.Errors, mr.Comparisons})
	} else {
		fmt.Fprintf(stdout, "mcvm merge-fp: %d tasks\n", len(maps))
		fmt.Fprintf(stdout, "verdict:     %s\n", mr.Verdict)
		fmt.Fprintf(stdout, "states:      %d, %d transitions (%d revisits), %d errors; %d fingerprint comparisons\n",
			mr.States, mr.Transitions, mr.Revisits, mr.Errors, mr.Comparisons)
	}
	switch mr.Verdict {
	case explorer.VerdictOK.String():
		return exitOK
	case explorer.VerdictLimit.String():
		return exitLimit
	}
	return exitViolation
}
