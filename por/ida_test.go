package por_test

import (
	"testing"

	"mcvm/asm"
	"mcvm/explorer"
	"mcvm/internal/progen"
	"mcvm/por"
	"mcvm/vm"
)

// iterDeepening estimates 0: IDA* with it is iterative deepening.
type iterDeepening struct{}

func (iterDeepening) Estimate(*vm.Machine, []vm.Trans) int32 { return 0 }

// TestIDA_reduced checks IDA* with partial-order reduction (the stack
// proviso on its path, and the static one) against the unreduced
// depth-first search on generated programs: it stops at an error exactly
// when that search finds one (unless its bound on states expanded cuts it
// short), and its counterexample replays to an error of the same kind.
func TestIDA_reduced(t *testing.T) {
	n := genCount(t, 30)
	finished := 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		src := progen.GeneratePOR(seed)
		p, err := asm.Assemble("gen.mcasm", []byte(src), asm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		full := explore(t, p, unreduced, 200000)
		if full.limit {
			continue
		}
		for _, proviso := range []explorer.Proviso{explorer.ProvisoAuto, explorer.ProvisoStatic} {
			r := por.New(p, por.All)
			m, err := vm.New(p, por.All.VMOptions(vm.Options{}))
			if err != nil {
				t.Fatal(err)
			}
			opts := explorer.Options{Order: explorer.IDA, Heuristic: iterDeepening{}, Proviso: proviso, MaxStates: 200000}
			if r != nil && r.Reduces() {
				opts.Reducer = r
			}
			if err := opts.Validate(); err != nil {
				t.Fatal(err)
			}
			res := explorer.Search(m, opts)
			if res.Limit != "" {
				continue
			}
			finished++
			if (res.Fault != nil) != (len(full.errors) > 0) {
				t.Errorf("seed %d, proviso %s: IDA* stops with %v, the unreduced search finds %v\n%s", seed, proviso, res.Fault, full.errors, src)
				continue
			}
			if res.Fault == nil {
				continue
			}
			m2, _ := vm.New(p, por.All.VMOptions(vm.Options{})) // (escape analysis moves transition ends)
			if _, f, err := explorer.Replay(m2, res.Path); err != nil || f == nil || f.Kind != res.Fault.Kind {
				t.Errorf("seed %d, proviso %s: the counterexample replays to %v, %v; want a %s", seed, proviso, f, err, res.Fault.Kind)
			}
		}
	}
	if finished < n/3 {
		t.Errorf("IDA* finished only %d of %d runs", finished, 2*n)
	}
	t.Logf("IDA* finished %d of %d runs", finished, 2*n)
}
