package por_test

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"mcvm/asm"
	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/internal/progen"
	"mcvm/por"
	"mcvm/vm"
)

// gcRun is what a search shows that collecting garbage must not change:
// the states in the order stored (fingerprints), the figures, the
// violations and end states, and the counterexample.
type gcRun struct {
	fps  []uint64
	o    outcome
	path []vm.Trans
}

// gcConfigs are the searches the collectors are compared under: the
// default (every static reduction, chains, sleep sets), each reduction
// alone, none, and symmetry. (Breadth-first search and dpor never collect.)
var gcConfigs = []config{
	{por.All, explorer.DFS, explorer.ProvisoAuto, explorer.StorageExact, true, true, false, ""},
	{por.Escape, explorer.DFS, explorer.ProvisoAuto, explorer.StorageExact, false, false, false, ""},
	{por.Ample, explorer.DFS, explorer.ProvisoAuto, explorer.StorageExact, true, false, false, ""},
	unreduced,
	{por.All, explorer.DFS, explorer.ProvisoAuto, explorer.StorageHashCompact, true, false, false, ""},
}

func exploreGC(t testing.TB, p *bytecode.Program, c config, gc vm.GC, symmetry, cont bool, maxStates int) gcRun {
	t.Helper()
	vo := c.mode.VMOptions(vm.Options{})
	vo.GC = gc
	m, err := vm.New(p, vo)
	if err != nil {
		t.Fatal(err)
	}
	var r gcRun
	r.o = outcome{errors: map[string]bool{}, ends: map[uint64]bool{}}
	opts := explorer.Options{Continue: cont, MaxStates: maxStates, Proviso: c.proviso, Chain: c.chain, Sleep: c.sleep,
		Storage: c.storage, Symmetry: symmetry,
		Listeners: []explorer.Listener{explorer.Funcs{OnState: func(id int32, fp uint64) { r.fps = append(r.fps, fp) },
			OnError: func(f *vm.Fault, fp uint64) {
				r.o.errors[faultKey(f)] = true
			},
			OnEnd: func(fp uint64) { r.o.ends[fp] = true }}},
	}
	if red := por.New(p, c.mode); red != nil && red.Reduces() {
		opts.Reducer = red
	}
	res := explorer.Search(m, opts)
	r.o.limit = res.Limit != ""
	r.o.stats = res.Stats
	r.path = res.Path
	return r
}

// diffGC searches p with each collector and with none, and reports any
// difference. It returns the objects the collectors freed.
func diffGC(t *testing.T, name string, p *bytecode.Program, c config, symmetry, cont bool, maxStates int) int64 {
	t.Helper()
	want := exploreGC(t, p, c, vm.GCNone, symmetry, cont, maxStates)
	var freed int64
	for _, gc := range []vm.GC{vm.GCMarkSweep, vm.GCMemoised} {
		got := exploreGC(t, p, c, gc, symmetry, cont, maxStates)
		gs, ws := got.o.stats, want.o.stats
		if !slices.Equal(got.fps, want.fps) || gs.States != ws.States || gs.Transitions != ws.Transitions ||
			gs.Revisits != ws.Revisits || gs.Errors != ws.Errors || gs.MaxDepth != ws.MaxDepth || gs.Reduced != ws.Reduced ||
			gs.Chained != ws.Chained || gs.Slept != ws.Slept || gs.Twins != ws.Twins ||
			!maps.Equal(got.o.errors, want.o.errors) || !maps.Equal(got.o.ends, want.o.ends) || !slices.Equal(got.path, want.path) {
			t.Errorf("%s, %s, symmetry=%v, gc=%s: %d states %d transitions %d errors; without collecting %d %d %d",
				name, c, symmetry, gc, gs.States, gs.Transitions, gs.Errors, ws.States, ws.Transitions, ws.Errors)
		}
		if ws.Freed != 0 {
			t.Errorf("%s: gc=none freed %d objects", name, ws.Freed)
		}
		if gc == vm.GCMarkSweep {
			freed = gs.Freed
		} else if gs.Freed != freed {
			t.Errorf("%s, %s: the memoised collector freed %d objects, mark-and-sweep %d", name, c, gs.Freed, freed)
		}
	}
	return freed
}

// TestGC_sameSearch is the differential test of garbage collection: on
// the regression and conformance programs, the benchmark models at their
// small sizes and generated programs, under the default reduction, each
// reduction alone, none, hash compaction and symmetry, a search with
// either collector must store the same states in the same order, with the
// same figures, violations, end states and counterexample, as one that
// never collects, and the two collectors must free the same objects
// (vm.TestCollectGarbage_collectorsAgree checks that they leave identical
// heaps, state by state). MCVM_GEN_PROGRAMS sets how many generated
// programs of each generator (default 30).
func TestGC_sameSearch(t *testing.T) {
	var freed int64
	for _, pr := range programs(t) {
		p, name := pr.prog, filepath.Base(pr.path)
		for i, c := range gcConfigs {
			if i > 0 && pr.model && testing.Short() {
				break
			}
			freed += diffGC(t, name, p, c, false, true, 200000)
		}
		if _, _, found := vm.ThreadIDUse(p); !found {
			freed += diffGC(t, name, p, gcConfigs[0], true, true, 200000)
		}
		freed += diffGC(t, name, p, gcConfigs[0], false, false, 200000)
	}
	n := genCount(t, 30)
	handlers := func(seed uint64) string { return progen.GenerateWith(seed, progen.Options{Handlers: true}) }
	symmetric := func(seed uint64) string { return progen.GenerateWith(seed, progen.Options{Symmetric: true}) }
	for _, g := range []func(uint64) string{progen.GeneratePOR, progen.Generate, handlers, symmetric} {
		for seed := uint64(1); seed <= uint64(n); seed++ {
			p, err := asm.Assemble("gen.mcasm", []byte(g(seed)), asm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("generated seed %d", seed)
			for _, c := range gcConfigs[:2] {
				freed += diffGC(t, name, p, c, false, true, 20000)
			}
			if _, _, found := vm.ThreadIDUse(p); !found {
				freed += diffGC(t, name, p, gcConfigs[0], true, true, 20000)
			}
		}
	}
	if freed == 0 {
		t.Error("no object was ever freed: the test compares nothing")
	}
	t.Logf("%d objects freed", freed)
}
