// mcvm bench: the benchmark suite, side by side with Java PathFinder.

package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"mcvm/internal/bench"
	"mcvm/internal/jpfreport"
	"mcvm/por"
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
run on the same machine. An interrupt (SIGINT or SIGTERM) is passed on to
the run under way, which reports the part it explored; bench then prints
the rows done and exits with code 3.`

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
	plotFile := fs.String("plot", "", "draw states and time against JPF's figures to this SVG `FILE` with mcvm-plot (implies --compare)")
	porModes := fs.StringSlice("por", []string{"all"}, "partial-order reduction modes to run each model with, comma separated (none, escape, ample, all): one row per mode, with the reduction factor against the first")
	if done, code := parse(fs, args, stderr, 0); done {
		return code
	}
	var checkArgs []string
	if _, err := parseGC(*gcName); err != nil {
		return fail(stderr, "bench", err)
	}
	if !*chain {
		checkArgs = append(checkArgs, "--chain=false")
	}
	if !*sleep {
		checkArgs = append(checkArgs, "--sleep=false")
	}
	if *dead {
		checkArgs = append(checkArgs, "--dead-locals")
	}
	if *hashCompact {
		checkArgs = append(checkArgs, "--hash-compact")
	}
	if *bitstate != 0 {
		checkArgs = append(checkArgs, "--bitstate", strconv.Itoa(*bitstate))
	}
	if fs.Changed("collapse") {
		checkArgs = append(checkArgs, "--collapse="+strconv.FormatBool(*collapse))
	}
	if _, _, err := storageOf(*hashCompact, *bitstate, *collapse, fs.Changed("collapse"), 0); err != nil {
		return fail(stderr, "bench", err)
	}
	if _, err := parseMemoryLimit(*memLimit); err != nil {
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
	if len(suite) == 0 {
		return fail(stderr, "bench", fmt.Errorf("no models (*.mcasm) found in %s: run mcvm bench in the repository's root, or give --dir", *dir))
	}
	if len(*models) > 0 {
		if suite, err = bench.Select(suite, *models); err != nil {
			return fail(stderr, "bench", fmt.Errorf("--models: %w in %s", err, *dir))
		}
	}
	overrides, err := bench.ParseSets(*sets, suite)
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
	if *plotFile != "" {
		*compare = true
	}
	var pub *bench.Published
	if *compare {
		data, err := readInput(*published)
		if err != nil {
			return fail(stderr, "bench", err)
		}
		if pub, err = bench.ParsePublished(*published, data); err != nil {
			return fail(stderr, "bench", err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return fail(stderr, "bench", err)
	}
	o := bench.Options{
		Exe:         self,
		ToolFailure: exitUsage,
		Overrides:   overrides,
		POR:         *porModes,
		Repeat:      *repeat,
		TimeLimit:   *timeLimit,
		MaxStates:   *maxStates,
		MemoryLimit: *memLimit,
		CheckArgs:   checkArgs,
		Symmetry:    *symmetry,
		NoSII:       !*sii,
		Published:   pub,
		JPF:         logs,
	}
	switch {
	case *small:
		o.Size = bench.SizeSmall
	case *large:
		o.Size = bench.SizeLarge
	}
	if fs.Changed("gc") {
		o.GC = *gcName
	}
	if *format == "text" && isTerminal(os.Stderr) {
		o.Progress = func(row bench.Row) {
			fmt.Fprintf(stderr, "mcvm bench: %s --por=%s done (%s, %.1f s)\n", row.Model, row.POR, row.Verdict, row.TimeS)
		}
	}
	it, unsignal := catchInterrupts(stderr)
	defer unsignal()
	o.Interrupt, o.Started, o.Ended = &it.flag, it.started, it.ended
	rows, err := bench.Run(suite, o)
	if err != nil {
		return fail(stderr, "bench", err)
	}
	if *format == "json" {
		writeJSON(stdout, map[string]any{"rows": rows})
	} else {
		bench.WriteTables(stdout, *format == "markdown", *compare, rows)
	}
	if *plotFile != "" {
		if err := writePlotFile(*plotFile, rows); err != nil {
			return fail(stderr, "bench", err)
		}
	}
	if it.interrupted() {
		fmt.Fprintf(stderr, "mcvm bench: interrupted after %d of %d runs\n", len(rows), len(suite)*len(*porModes))
		return exitLimit
	}
	return exitOK
}

// writePlotFile writes bench --plot's SVG to path, drawn by mcvm-plot
// (findPlotter).
func writePlotFile(path string, rows []bench.Row) error {
	plotter, err := findPlotter()
	if err != nil {
		return err
	}
	return drawPlot(plotter, nil, map[string]any{"rows": rows}, path)
}
