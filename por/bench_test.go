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
// transitions/s. The dpor modes run with summaries at revisits (the
// default) and, as "/static", with the static analysis instead.
func BenchmarkDiningPhil(b *testing.B) {
	p, err := asm.AssembleFile("../benchmarks/models/diningphil.mcasm", asm.Options{Defines: map[string]int64{"N": 5}})
	if err != nil {
		b.Fatal(err)
	}
	type run struct {
		mode   por.Mode
		static bool
	}
	for _, c := range []run{{por.None, false}, {por.Ample, false}, {por.DPOR, false}, {por.DPOR, true},
		{por.Ample | por.DPOR, false}, {por.Ample | por.DPOR, true}, {por.All, false}} {
		mode, name := c.mode, "por="+c.mode.String()
		if c.static {
			name += "/static"
		}
		b.Run(name, func(b *testing.B) {
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
					d := por.NewDynamic(r)
					d.SII = !c.static
					opts.Dynamic = d
				}
				st = explorer.Search(m, opts).Stats
			}
			b.ReportMetric(float64(st.States), "states")
			b.ReportMetric(float64(st.States)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
			b.ReportMetric(float64(st.Transitions)*float64(b.N)/b.Elapsed().Seconds(), "transitions/s")
		})
	}
}
