// Package bench is the benchmark harness behind mcvm bench. It reads the
// benchmark models' header annotations (EXPECT, PARAMS, SMALL and LARGE
// lines; see Model).
//
// The models stay in the repository's benchmarks/models directory; bench
// reads them at run time from the directory its caller gives.
//
// bench must not import mcvm/benchmarks, a directory of data, scripts and
// tests.
package bench
