// Package benchmarks has no code: the directory holds mcvm's benchmark
// models (models/*.mcasm, each with its provenance, parameters and
// expected figures in its header), the figures published for Java
// PathFinder and MoonWalker (jpf-published.json), the measured figures
// (RESULTS.md), the scripts that produced them, and the runs of peer tools
// (peers/).
//
// Its tests are an external test package: models_test.go checks every
// model against its header (SMALL, LARGE, EXPECT), spin_test.go checks
// the mcvm side of the Promela twins in peers/ against SPIN's counts (with
// SPIN installed, peers/spin_suite.py --counts checks both sides and
// peers/spin_suite.py compares their speed and memory), and bench_test.go
// holds the end-to-end go test -bench benchmarks. The harness that reads the
// headers and runs the suite is mcvm/internal/bench (mcvm bench), which
// reads these files at run time from the paths it is given; the product
// packages and cmd/mcvm must not import this package (internal/depcheck).
// pgo.sh remakes cmd/mcvm/default.pgo, the profile the command is built
// with, from mcvm's own searches; engine-diff.py compares two builds'
// verdicts, counts, traces and scripts.
package benchmarks
