package por

import (
	"testing"

	"mcvm/asm"
	"mcvm/explorer"
	"mcvm/internal/progen"
	"mcvm/vm"
)

// TestDynamic_indexesMatchScan checks that the indexed dynamic reduction
// (the per-location, per-entity and per-thread chains of the path) makes
// exactly the decisions of the reference that scans the whole stack: the
// same states in the same order, the same transitions and backtracking
// points, on generated programs of the three generators with DPOR alone
// and with ample sets. The indexes are an optimisation only; any
// difference is a bug in them. MCVM_GEN_PROGRAMS sets the number of
// programs per generator (default 30).
func TestDynamic_indexesMatchScan(t *testing.T) {
	n, err := progen.Count(30)
	if err != nil {
		t.Fatal(err)
	}
	handlers := func(seed uint64) string { return progen.GenerateWith(seed, progen.Options{Handlers: true}) }
	gens := map[string]func(uint64) string{"por": progen.GeneratePOR, "base": progen.Generate, "handlers": handlers}
	compared := 0
	for _, name := range []string{"por", "base", "handlers"} {
		for seed := uint64(1); seed <= uint64(n); seed++ {
			p, err := asm.Assemble("gen.mcasm", []byte(gens[name](seed)), asm.Options{})
			if err != nil {
				t.Fatalf("%s seed %d: %v", name, seed, err)
			}
			for _, mode := range []Mode{DPOR, Ample | DPOR} {
				run := func(scan bool) (explorer.Stats, uint64) {
					m, err := vm.New(p, mode.VMOptions(vm.Options{}))
					if err != nil {
						t.Fatal(err)
					}
					r := New(p, mode)
					var order uint64
					opts := explorer.Options{Continue: true, MaxStates: 20000,
						Listeners: []explorer.Listener{explorer.Funcs{OnState: func(id int32, fp uint64) { order = order*1099511628211 ^ fp ^ uint64(id) }}}}
					if r.Reduces() {
						opts.Reducer = r
					}
					if scan {
						opts.Dynamic = newRefDynamic(r)
					} else {
						d := NewDynamic(r)
						d.SII = false // the reference uses the static analysis at every revisit
						opts.Dynamic = d
					}
					return explorer.Search(m, opts).Stats, order
				}
				got, gotOrder := run(false)
				want, wantOrder := run(true)
				if got.States != want.States || got.Transitions != want.Transitions || got.Backtracks != want.Backtracks || gotOrder != wantOrder {
					t.Errorf("%s seed %d --por=%v: indexed %d states, %d transitions, %d backtracks; scan %d, %d, %d (same order: %v)",
						name, seed, mode, got.States, got.Transitions, got.Backtracks, want.States, want.Transitions, want.Backtracks, gotOrder == wantOrder)
				}
				compared++
			}
		}
	}
	t.Logf("%d searches compared", compared)
}
