// Package jpfreport parses the report Java PathFinder prints at the end of
// a run: its statistics block and its list of errors, in the layout of JPF
// v8 (jpf-core) and of the older v4-v7 releases, so that mcvm's figures can
// be put beside JPF's for the same program (mcvm jpf-report, and mcvm bench
// --jpf-log).
//
// A report is divided into sections by lines of '=' characters followed by
// the section's name ("statistics", "results", "error 1", ...). Parse
// needs a statistics section; everything else is optional.
//
// Invariants: Parse reads untrusted input, so it never panics (FuzzParse),
// and its work and memory are linear in the input. Counts a report does not
// give are -1, never 0. Input that is not a JPF report is an error wrapping
// ErrNotReport.
//
// jpfreport is a leaf: it imports only the standard library, no mcvm
// package (internal/depcheck checks this). It does not read files; callers
// hand it the report's bytes.
package jpfreport
