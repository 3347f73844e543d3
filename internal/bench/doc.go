// Package bench is the benchmark harness behind mcvm bench: it reads the
// benchmark models' header annotations (EXPECT, PARAMS, SMALL and LARGE
// lines; see Model), runs the suite at a chosen size under one or more
// partial-order reduction modes, matches the rows to the figures published
// for Java PathFinder and MoonWalker, and formats the results as tables.
//
// The data it works on stays in the repository's benchmarks/ directory:
// the models (benchmarks/models/*.mcasm) and the published figures
// (benchmarks/jpf-published.json). bench reads them at run time from the
// paths its caller gives (mcvm bench --dir and --published, whose defaults
// are relative to the repository's root) rather than embedding them:
// go:embed cannot reach outside a package's directory, and reading them
// lets a model edited or a figure added take effect without rebuilding,
// and other directories be benchmarked.
//
// Invariants: each model runs in a child process (Options.Exe check
// --continue --json), never in this process, so that a row's peak memory
// is that run's alone and its figures are those of the command line. Rows
// come out in the order of the suite and then of the reduction modes. bench
// writes only to the io.Writer it is given and never exits; printing and
// exit codes belong to cmd/mcvm.
//
// bench must not import mcvm/benchmarks (a directory of data, scripts and
// tests), nor explorer, por or scc: it drives the checker through its
// command line and needs only asm and vm, to decide which models may run
// with thread symmetry reduction, and internal/jpfreport, to read the JPF
// reports given with --jpf-log.
package bench
