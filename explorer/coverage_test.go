package explorer_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"mcvm/asm"
	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/por"
	"mcvm/vm"
)

// checkCoverage reports what is wrong with a limited search's estimate:
// it must be there, from the estimator asked for (or walk, the fallback),
// with 0 < Low <= Share <= High <= 1 and Total = Visited / Share.
func checkCoverage(res *explorer.Result, want explorer.Estimator) error {
	c := res.Coverage
	switch {
	case c == nil:
		return fmt.Errorf("limit %q, no estimate", res.Limit)
	case c.Estimator != want && c.Estimator != explorer.EstimatorWalk:
		return fmt.Errorf("estimator %v, want %v", c.Estimator, want)
	case c.Visited != res.Stats.States:
		return fmt.Errorf("visited %d, the search stored %d", c.Visited, res.Stats.States)
	case !(0 < c.Low && c.Low <= c.Share && c.Share <= c.High && c.High <= 1):
		return fmt.Errorf("interval %v <= %v <= %v out of order or out of (0, 1]", c.Low, c.Share, c.High)
	case c.Total < float64(c.Visited)*0.999 || c.Total > float64(c.Visited)/c.Share*1.001:
		return fmt.Errorf("total %v for %d visited at share %v", c.Total, c.Visited, c.Share)
	}
	return nil
}

// compareThesis runs p exhaustively depth-first, then with the thesis's
// two-phase search at limits of 30 and 70% of its states and without a
// limit that binds: the thesis's search must store only reachable states
// and report only errors the exhaustive search finds, estimate at a
// limit, and, unbound, store every state and find every error.
func compareThesis(t *testing.T, name string, p *bytecode.Program, maxStates int) bool {
	t.Helper()
	full := runCached(t, p, explorer.Options{Continue: true, MaxStates: maxStates})
	if full.res.Limit != "" {
		return false
	}
	n := int(full.res.Stats.States)
	for _, frac := range []int{30, 70, 1000} {
		budget := max(n*frac/100, 2)
		got := runCached(t, p, explorer.Options{Continue: true, MaxStates: budget, Coverage: explorer.EstimatorThesis, CoverageSeed: uint64(frac)})
		for fp := range got.states {
			if !full.states[fp] {
				t.Fatalf("%s at %d%%: the thesis's search stored a state the exhaustive one did not reach", name, frac)
			}
		}
		for e := range got.out.errors {
			if !full.out.errors[e] {
				t.Fatalf("%s at %d%%: error %s, not found exhaustively", name, frac, e)
			}
		}
		if int(got.res.Stats.States) > budget {
			t.Errorf("%s at %d%%: stored %d states, budget %d", name, frac, got.res.Stats.States, budget)
		}
		// The same with the default reduction: the errors it reports are
		// errors, and complete, it finds one if there is one.
		red := runCached(t, p, explorer.Options{Continue: true, MaxStates: budget, Coverage: explorer.EstimatorThesis,
			CoverageSeed: uint64(frac), Reducer: por.New(p, por.All)})
		for e := range red.out.errors {
			if !full.out.errors[e] {
				t.Fatalf("%s at %d%%, reduced: error %s, not found exhaustively", name, frac, e)
			}
		}
		if red.res.Limit == "" && (len(red.out.errors) == 0) != (len(full.out.errors) == 0) {
			t.Errorf("%s at %d%%, reduced: %d errors, the exhaustive search %d", name, frac, len(red.out.errors), len(full.out.errors))
		}
		if got.res.Limit == "" {
			if len(got.states) != len(full.states) || len(got.out.errors) != len(full.out.errors) {
				t.Errorf("%s at %d%%: complete with %d states and %d errors, want %d and %d",
					name, frac, len(got.states), len(got.out.errors), len(full.states), len(full.out.errors))
			}
			if got.res.Coverage != nil {
				t.Errorf("%s at %d%%: a complete search estimated its coverage", name, frac)
			}
			continue
		}
		if frac >= 100 {
			t.Errorf("%s: limit %q with a budget of ten times the states", name, got.res.Limit)
		}
		if err := checkCoverage(got.res, explorer.EstimatorThesis); err != nil {
			t.Errorf("%s at %d%%: %v", name, frac, err)
		}
	}
	return true
}

// TestCoverage_thesisSound checks the thesis's search, which changes the
// search order, against the exhaustive one on the conformance models and
// generated programs.
func TestCoverage_thesisSound(t *testing.T) {
	for _, md := range smallModels(t) {
		compareThesis(t, filepath.Base(md.path), md.prog, 20000)
	}
	forGenerated(t, 30, func(name string, p *bytecode.Program) bool { return compareThesis(t, name, p, 3000) })
}

// TestCoverage_walk checks the random-walk estimate with each store: a
// search that stores every state before its limit stops it is estimated
// at exactly 100% (every state a walk meets is stored), a search cut
// short below it; the same seed gives the same estimate, and
// EstimateStored, given the search's stored states, recomputes it.
func TestCoverage_walk(t *testing.T) {
	p, err := asm.AssembleFile("../benchmarks/models/philo_ok.mcasm", asm.Options{Defines: map[string]int64{"N": 3}})
	if err != nil {
		t.Fatal(err)
	}
	full := runCached(t, p, explorer.Options{Continue: true})
	n := int(full.res.Stats.States)
	for _, st := range []explorer.Storage{explorer.StorageExact, explorer.StorageCollapse, explorer.StorageHashCompact, explorer.StorageBitstate} {
		// The whole state space, stopped by a limit at its last state.
		all := runCached(t, p, explorer.Options{Continue: true, MaxStates: n, Storage: st, BitstateBits: 20, Coverage: explorer.EstimatorWalk})
		if err := checkCoverage(all.res, explorer.EstimatorWalk); err != nil {
			t.Fatalf("%v, all states: %v", st, err)
		}
		if c := all.res.Coverage; c.Share != 1 || c.High != 1 {
			t.Errorf("%v: every state stored, estimate %v (%v-%v), want 1", st, c.Share, c.Low, c.High)
		}
		// A third of it.
		opts := explorer.Options{Continue: true, MaxStates: n / 3, Storage: st, BitstateBits: 20, Coverage: explorer.EstimatorWalk, CoverageSeed: 7}
		a, b := runCached(t, p, opts), runCached(t, p, opts)
		if err := checkCoverage(a.res, explorer.EstimatorWalk); err != nil {
			t.Fatalf("%v, a third: %v", st, err)
		}
		if *a.res.Coverage != *b.res.Coverage {
			t.Errorf("%v: the same seed gives %+v and %+v", st, *a.res.Coverage, *b.res.Coverage)
		}
		if a.res.Coverage.Share >= 1 {
			t.Errorf("%v: a third of the states stored, estimate %v", st, a.res.Coverage.Share)
		}
		// Recomputed from the stored set alone, as a certifier does.
		m, err := vm.New(p, vm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		has := func(m *vm.Machine) bool { return a.states[m.EncodeFingerprint()] }
		c := explorer.EstimateStored(m, &opts, explorer.EstimatorWalk, int64(len(a.states)),
			explorer.SampleBudget(a.res.Stats.Transitions), opts.CoverageSeed, has)
		if *c != *a.res.Coverage {
			t.Errorf("%v: recomputed %+v, the search's %+v", st, *c, *a.res.Coverage)
		}
	}
}

// TestCoverage_when checks which searches estimate: one that ends at a
// limit, unless --coverage=off; not one that completes.
func TestCoverage_when(t *testing.T) {
	p, err := asm.AssembleFile("../benchmarks/models/philo_ok.mcasm", asm.Options{Defines: map[string]int64{"N": 3}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opts explorer.Options
		want bool
	}{
		{explorer.Options{Continue: true}, false},
		{explorer.Options{Continue: true, MaxStates: 50}, true},
		{explorer.Options{Continue: true, MaxStates: 50, Coverage: explorer.EstimatorOff}, false},
		{explorer.Options{Continue: true, MaxDepth: 5}, true},
		{explorer.Options{Continue: true, MaxStates: 50, Order: explorer.BFS}, true},
		{explorer.Options{Continue: true, MaxStates: 50, Coverage: explorer.EstimatorChao}, true},
		{explorer.Options{Continue: true, MaxDepth: 5, Order: explorer.BFS, Coverage: explorer.EstimatorLevels}, true},
	} {
		if tc.opts.Coverage == 0 && tc.want {
			tc.opts.Coverage = explorer.EstimatorWalk
		}
		res := runCached(t, p, tc.opts).res
		if got := res.Coverage != nil; got != tc.want {
			t.Errorf("%+v: limit %q, estimate %v, want %v", tc.opts, res.Limit, got, tc.want)
			continue
		}
		if tc.want {
			if err := checkCoverage(res, tc.opts.Coverage); err != nil {
				t.Errorf("%+v: %v", tc.opts, err)
			}
			if res.Coverage.Share >= 1 {
				t.Errorf("%+v: %d states stored, estimate 100%%", tc.opts, res.Stats.States)
			}
		}
	}
}

// TestCoverage_validate checks what the thesis's estimator refuses.
func TestCoverage_validate(t *testing.T) {
	th := explorer.EstimatorThesis
	for _, o := range []explorer.Options{
		{Coverage: th},
		{Coverage: th, MaxStates: 10, Storage: explorer.StorageCollapse},
		{Coverage: th, MaxStates: 10, Order: explorer.AStar},
		{Coverage: th, MaxStates: 10, Cache: &explorer.Cache{States: 10}},
		{Coverage: explorer.EstimatorChao, Storage: explorer.StorageHashCompact},
		{Coverage: explorer.EstimatorChao, Cache: &explorer.Cache{States: 10}},
	} {
		if o.Validate() == nil {
			t.Errorf("Validate(%+v) = nil, want an error", o)
		}
	}
	for _, o := range []explorer.Options{{Coverage: th, MaxStates: 10}, {Coverage: th, TimeLimit: 1e9}, {Coverage: th, MemoryLimit: 1 << 30}} {
		if err := o.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v", o, err)
		}
	}
}

// TestCoverage_parallel checks the estimate of a parallel search: every
// state stored before the limit, exactly 100%; a third, below.
func TestCoverage_parallel(t *testing.T) {
	p, err := asm.AssembleFile("../benchmarks/models/philo_ok.mcasm", asm.Options{Defines: map[string]int64{"N": 3}})
	if err != nil {
		t.Fatal(err)
	}
	newWorker := func() (explorer.Worker, error) {
		m, err := vm.New(p, vm.Options{})
		return explorer.Worker{Machine: m}, err
	}
	full := runCached(t, p, explorer.Options{Continue: true, Order: explorer.BFS})
	n := int(full.res.Stats.States)
	for _, st := range []explorer.Storage{explorer.StorageExact, explorer.StorageHashCompact} {
		for _, tc := range []struct {
			max  int
			full bool
		}{{n, true}, {n / 3, false}} {
			opts := explorer.Options{Continue: true, MaxStates: tc.max, Storage: st, Coverage: explorer.EstimatorWalk}
			res, err := explorer.SearchParallel(opts, 2, newWorker)
			if err != nil {
				t.Fatal(err)
			}
			if err := checkCoverage(res, explorer.EstimatorWalk); err != nil {
				t.Fatalf("%v, %d states: %v", st, tc.max, err)
			}
			if got := res.Coverage.Share == 1; got != tc.full {
				t.Errorf("%v: %d of %d states stored, estimate %v", st, res.Stats.States, n, res.Coverage.Share)
			}
		}
	}
}

// TestCoverage_levels checks the levels estimate of breadth-first search
// with each store it runs with: every state stored before the limit,
// exactly 100% (no sample meets a state not stored); a third, below; the
// same seed, the same estimate.
func TestCoverage_levels(t *testing.T) {
	p, err := asm.AssembleFile("../benchmarks/models/philo_ok.mcasm", asm.Options{Defines: map[string]int64{"N": 3}})
	if err != nil {
		t.Fatal(err)
	}
	full := runCached(t, p, explorer.Options{Continue: true, Order: explorer.BFS})
	n := int(full.res.Stats.States)
	for _, st := range []explorer.Storage{explorer.StorageExact, explorer.StorageCollapse, explorer.StorageHashCompact} {
		opts := explorer.Options{Continue: true, Order: explorer.BFS, MaxStates: n, Storage: st, Coverage: explorer.EstimatorLevels}
		all := runCached(t, p, opts)
		if err := checkCoverage(all.res, explorer.EstimatorLevels); err != nil {
			t.Fatalf("%v, all states: %v", st, err)
		}
		if c := all.res.Coverage; c.Share != 1 || c.Estimator != explorer.EstimatorLevels {
			t.Errorf("%v: every state stored, %v estimate %v (%v-%v), want 1", st, c.Estimator, c.Share, c.Low, c.High)
		}
		opts.MaxStates, opts.CoverageSeed = n/3, 5
		a, b := runCached(t, p, opts), runCached(t, p, opts)
		if err := checkCoverage(a.res, explorer.EstimatorLevels); err != nil {
			t.Fatalf("%v, a third: %v", st, err)
		}
		if *a.res.Coverage != *b.res.Coverage {
			t.Errorf("%v: the same seed gives %+v and %+v", st, *a.res.Coverage, *b.res.Coverage)
		}
		if c := a.res.Coverage; c.Share >= 1 || c.Estimator != explorer.EstimatorLevels {
			t.Errorf("%v: a third of the states stored, %v estimate %v", st, c.Estimator, c.Share)
		}
	}
	for _, tc := range []struct {
		order explorer.Order
		want  explorer.Estimator
	}{{explorer.DFS, explorer.EstimatorWalk}, {explorer.BFS, explorer.EstimatorLevels}, {explorer.AStar, explorer.EstimatorLevels}} {
		if got := explorer.EstimatorAuto.For(tc.order); got != tc.want {
			t.Errorf("auto for %v = %v, want %v", tc.order, got, tc.want)
		}
	}
}
