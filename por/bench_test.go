package por_test

import (
	"testing"

	"mcvm/asm"
	"mcvm/explorer"
	"mcvm/por"
	"mcvm/vm"
)

// BenchmarkDiningPhil explores the dining philosophers of the thesis (at
// N = 5, so that every mode finishes in seconds) completely with each
// reduction mode. DPOR's overhead per state is the ratio of the unreduced
// search's states/s to its states/s; per transition, likewise with
// transitions/s.
func BenchmarkDiningPhil(b *testing.B) {
	p, err := asm.AssembleFile("../benchmarks/models/diningphil.mcasm", asm.Options{Defines: map[string]int64{"N": 5}})
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []por.Mode{por.None, por.Ample, por.DPOR, por.Ample | por.DPOR, por.All} {
		b.Run("por="+mode.String(), func(b *testing.B) {
			var st explorer.Stats
			for b.Loop() {
				m, err := vm.New(p, mode.VMOptions(vm.Options{}))
				if err != nil {
					b.Fatal(err)
				}
				opts := explorer.Options{Continue: true}
				r := por.New(p, mode)
				if r.Reduces() {
					opts.Reducer = r
				}
				if mode&por.DPOR != 0 {
					opts.Dynamic = por.NewDynamic(r)
				}
				st = explorer.Search(m, opts).Stats
			}
			b.ReportMetric(float64(st.States), "states")
			b.ReportMetric(float64(st.States)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
			b.ReportMetric(float64(st.Transitions)*float64(b.N)/b.Elapsed().Seconds(), "transitions/s")
		})
	}
}
