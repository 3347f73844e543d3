// Package benchmarks holds mcvm's benchmark models (models/*.mcasm), the
// end-to-end benchmarks that check them (go test -bench), and the recorded
// figures (RESULTS.md).
package benchmarks
