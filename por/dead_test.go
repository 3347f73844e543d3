// Dead variable reduction against the search without it: the same violations and end states.

package por_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/cespare/xxhash/v2"

	"mcvm/asm"
	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/internal/progen"
	"mcvm/por"
	"mcvm/vm"
)

// deadOutcome explores p completely with dead variable reduction (dead)
// or without, under reduction mode (with chains and sleep sets where they
// apply, as check does), and returns the violations by kind and place,
// the deadlocked states and the end states. Deadlocked states are given
// by the fingerprint of the state with its dead locals zeroed, so that the
// two searches can be compared.
func deadOutcome(t testing.TB, p *bytecode.Program, mode por.Mode, order explorer.Order, dead bool, maxStates int) (outcome, bool) {
	t.Helper()
	m, err := vm.New(p, mode.VMOptions(vm.Options{DeadLocals: dead}))
	if err != nil {
		t.Fatal(err)
	}
	z, err := vm.New(p, vm.Options{DeadLocals: true}) // zeroes a state's dead locals
	if err != nil {
		t.Fatal(err)
	}
	var enc []byte
	o := outcome{errors: map[string]bool{}, ends: map[uint64]bool{}}
	opts := explorer.Options{Order: order, Continue: true, MaxStates: maxStates,
		Listeners: []explorer.Listener{explorer.Funcs{OnError: func(f *vm.Fault, fp uint64) {
			if f.Kind == vm.FaultDeadlock {
				enc = m.Encode(enc[:0])
				z.Decode(enc)
				z.ZeroDeadLocals()
				enc = z.Encode(enc[:0])
				o.errors[fmt.Sprintf("deadlock %016x", xxhash.Sum64(enc))] = true
				return
			}
			o.errors[faultKey(f)] = true
		},
			OnEnd: func(fp uint64) { o.ends[fp] = true }}},
	}
	if r := por.New(p, mode); r != nil {
		if r.Reduces() {
			opts.Reducer = r
			opts.Chain = order == explorer.DFS && mode&por.DPOR == 0
			opts.Sleep = order == explorer.DFS && mode&por.DPOR == 0
		}
		if mode&por.DPOR != 0 {
			opts.Dynamic = por.NewDynamic(r)
		}
	}
	res := explorer.Search(m, opts)
	o.stats = res.Stats
	if dead && res.Fault != nil {
		// The counterexample replays, on a machine with the same options,
		// to the same kind of violation.
		r, err := vm.New(p, mode.VMOptions(vm.Options{DeadLocals: true}))
		if err != nil {
			t.Fatal(err)
		}
		_, f, err := explorer.Replay(r, res.Path)
		if err != nil || f == nil || f.Kind != res.Fault.Kind {
			t.Errorf("counterexample of a %s with dead variable reduction replays to %v (%v)", res.Fault.Kind, f, err)
		}
	}
	return o, res.Limit != ""
}

// TestDeadLocals_sameOutcome: with dead variable reduction the search finds
// the same violations (deadlocked states compared with their dead locals
// zeroed) and end states as without, unreduced (depth- and breadth-first),
// with the default reduction and with ample+dpor, on the regression and
// conformance programs, the SMALL models (the default reduction only) and
// generated ones (MCVM_GEN_PROGRAMS per generator, default 20), never
// stores more states unreduced, and gives counterexamples that replay.
func TestDeadLocals_sameOutcome(t *testing.T) {
	type prog struct {
		name  string
		p     *bytecode.Program
		model bool // the default reduction only (the unreduced searches of the models are long)
	}
	var progs []prog
	for _, pr := range programs(t) {
		progs = append(progs, prog{pr.path, pr.prog, pr.model})
	}
	n := genCount(t, 20)
	handlers := func(seed uint64) string { return progen.GenerateWith(seed, progen.Options{Handlers: true}) }
	for gi, g := range []func(uint64) string{progen.GeneratePOR, progen.Generate, handlers} {
		for seed := uint64(1); seed <= uint64(n); seed++ {
			p, err := asm.Assemble("gen.mcasm", []byte(g(seed)), asm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			progs = append(progs, prog{fmt.Sprintf("gen %d seed %d", gi, seed), p, false})
		}
	}
	var before, after int64
	compared := 0
	for _, pr := range progs {
		for _, c := range []struct {
			mode  por.Mode
			order explorer.Order
		}{{por.None, explorer.DFS}, {por.All, explorer.DFS}, {por.None, explorer.BFS}, {por.Ample | por.DPOR, explorer.DFS}} {
			if pr.model && c.mode != por.All {
				continue
			}
			plain, lim := deadOutcome(t, pr.p, c.mode, c.order, false, 200000)
			if lim {
				continue
			}
			dead, _ := deadOutcome(t, pr.p, c.mode, c.order, true, 0)
			compared++
			name := fmt.Sprintf("%s, por=%s, %s", pr.name, c.mode, c.order)
			if !maps.Equal(plain.errors, dead.errors) || !maps.Equal(plain.ends, dead.ends) {
				t.Errorf("%s: with dead variable reduction %v and %d end states, without %v and %d",
					name, slices.Sorted(maps.Keys(dead.errors)), len(dead.ends), slices.Sorted(maps.Keys(plain.errors)), len(plain.ends))
			}
			if dead.stats.States > plain.stats.States && c.mode == por.None {
				t.Errorf("%s: %d states with dead variable reduction, %d without", name, dead.stats.States, plain.stats.States)
			}
			if c.mode == por.All && c.order == explorer.DFS {
				before += plain.stats.States
				after += dead.stats.States
			}
		}
	}
	if after >= before {
		t.Errorf("dead variable reduction stored %d states against %d: it merged nothing", after, before)
	}
	t.Logf("%d searches compared; states of the default reduction %d without, %d with (%.2fx)", compared, before, after, float64(before)/float64(max(after, 1)))
}
