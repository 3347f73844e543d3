// Package progress is the document in which mcvm check --plot hands a
// search's progress to mcvm-plot: samples of the states stored over time,
// breadth-first search's new states per level, and the coverage estimate
// of a search that ended at a limit. Its "kind" field, "progress", tells
// it from mcvm bench's rows, which mcvm-plot also draws.
//
// Invariants: Parse reads untrusted input, so it never panics (FuzzParse)
// and refuses a document larger than MaxBytes; a document that passes
// Validate has at least one sample, samples in order of time with figures
// not negative, and, if it has a coverage estimate, a share in (0, 1]
// within its interval and a finite estimated number of states, so that a
// plot of it needs no further checks.
//
// progress is a leaf: it imports only the standard library, no mcvm
// package (internal/depcheck checks this), so that mcvm and mcvm-plot
// share it without either pulling in the other's dependencies.
package progress
