package por_test

import (
	"testing"

	"mcvm/asm"
	"mcvm/explorer"
	"mcvm/por"
	"mcvm/vm"
)

// BenchmarkDiningPhil explores the dining philosophers of the thesis (N = 8)
// completely with each reduction mode that finishes quickly.
func BenchmarkDiningPhil(b *testing.B) {
	p, err := asm.AssembleFile("../benchmarks/models/diningphil.mcasm", asm.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []por.Mode{por.Ample, por.All} {
		b.Run("por="+mode.String(), func(b *testing.B) {
			var st explorer.Stats
			for b.Loop() {
				m, err := vm.New(p, mode.VMOptions(vm.Options{}))
				if err != nil {
					b.Fatal(err)
				}
				st = explorer.Search(m, explorer.Options{Continue: true, Reducer: por.New(p, mode)}).Stats
			}
			b.ReportMetric(float64(st.States), "states")
			b.ReportMetric(float64(st.States)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
		})
	}
}
