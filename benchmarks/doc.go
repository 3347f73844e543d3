// Package benchmarks holds mcvm's benchmark models (models/*.mcasm), the
// end-to-end benchmarks and tests that check them (go test -bench, go
// test), and the recorded figures (RESULTS.md), which docs/design.md
// refers to rather than quotes.
//
// A model's header says what to expect of it (Model, models.go): its
// verdict, its parameters, a SMALL configuration that checks completely
// in seconds (the differential tests of the reductions run it) and the
// LARGE configuration of the results table, each with its states and
// transitions. Subpackage jpfreport parses Java PathFinder's reports so
// that mcvm's figures can stand beside JPF's (mcvm bench, mcvm
// jpf-report); peers/ holds the SPIN model and scripts the store figures
// are compared with; pgo.sh remakes cmd/mcvm/default.pgo, the profile the
// command is built with, from mcvm's own searches. The other scripts
// produce and compare the tables of RESULTS.md.
//
// The package imports nothing from mcvm (its tests import asm, vm,
// explorer and por), so cmd/mcvm and other packages' tests can read the
// models through it.
package benchmarks
