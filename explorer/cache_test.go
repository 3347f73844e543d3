package explorer_test

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

// cacheRun is what a search establishes, for comparing a cached search
// with the exact one: its verdict, violations, end states and the set of
// states it stored.
type cacheRun struct {
	res    *explorer.Result
	out    outcome
	states map[uint64]bool
}

func runCached(t *testing.T, p *bytecode.Program, opts explorer.Options) cacheRun {
	t.Helper()
	m, err := vm.New(p, vm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := cacheRun{out: outcome{errors: map[string]bool{}, ends: map[uint64]bool{}}, states: map[uint64]bool{}}
	opts.Listen(r.out.listener())
	opts.Listen(explorer.Funcs{OnState: func(_ int32, fp uint64) { r.states[fp] = true }})
	if err := opts.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	r.res = explorer.Search(m, opts)
	return r
}

// cacheConfigs are the reductions the differential tests run the cache
// with: none, and the default (escape and ample sets, chains).
var cacheConfigs = []struct {
	name string
	mode por.Mode
}{{"none", por.None}, {"all", por.All}}

// compareCache runs program p exhaustively with the exact store and with
// caches of several sizes (15, 50 and 95% of its states, but not below
// four times its depth), every policy, of encodings and of
// fingerprints: each must give the same verdict, violations, end states
// and set of states, hold no more states than its bound (but for the
// stack) and explore at least as many transitions.
// fracs are the cache sizes, in percent; a cached search that stores more
// than budget times the exact search's states (a small cache on a graph
// of many paths re-explores exponentially often) is not compared.
func compareCache(t *testing.T, name string, p *bytecode.Program, maxStates int, fracs []int, budget int) bool {
	t.Helper()
	compared, skipped := false, 0
	defer func() {
		if skipped > 0 {
			t.Logf("model=%s: %d cached searches passed %d times the states and were not compared", name, skipped, budget)
		}
	}()
	for _, cfg := range cacheConfigs {
		base := explorer.Options{Continue: true, MaxStates: maxStates}
		if r := por.New(p, cfg.mode); r != nil {
			base.Reducer, base.Chain = r, true
		}
		want := runCached(t, p, base)
		if want.res.Limit != "" {
			return false
		}
		compared = true
		// A cache smaller than the stack re-explores exponentially often
		// (every state held is on the stack): at least four times the
		// exact search's depth.
		n := len(want.states)
		for _, frac := range fracs {
			size := max(1, min(n, max(n*frac/100, 4*want.res.Stats.MaxDepth)))
			for _, pol := range explorer.CachePolicyNames() {
				policy, _ := explorer.ParseCachePolicy(pol)
				for _, st := range []explorer.Storage{explorer.StorageExact, explorer.StorageHashCompact} {
					what := fmt.Sprintf("model=%s/por=%s/cache=%d/policy=%s/storage=%s", name, cfg.name, size, pol, st)
					o := base
					o.MaxStates = budget * n
					o.TimeLimit = 0
					o.Storage = st
					o.Cache = &explorer.Cache{States: size, Policy: policy, Seed: 7}
					got := runCached(t, p, o)
					if got.res.Limit == "states" {
						skipped++
						continue
					}
					checkCached(t, what, want, got, size)
				}
			}
		}
	}
	return compared
}

func checkCached(t *testing.T, what string, want, got cacheRun, size int) {
	t.Helper()
	if got.res.Verdict != want.res.Verdict || got.res.Limit != "" {
		t.Errorf("%s: verdict %s (limit %q), want %s", what, got.res.Verdict, got.res.Limit, want.res.Verdict)
	}
	if !maps.Equal(got.out.errors, want.out.errors) {
		t.Errorf("%s: violations %v, want %v", what, slices.Sorted(maps.Keys(got.out.errors)), slices.Sorted(maps.Keys(want.out.errors)))
	}
	if !maps.Equal(got.out.ends, want.out.ends) {
		t.Errorf("%s: %d end states, want %d", what, len(got.out.ends), len(want.out.ends))
	}
	if !maps.Equal(got.states, want.states) {
		t.Errorf("%s: %d distinct states reached, want %d (same set)", what, len(got.states), len(want.states))
	}
	cs := got.res.Stats.Cache
	if cs.Peak > int64(size) && (cs.Overflow == 0 || cs.Peak > int64(size+got.res.Stats.MaxDepth+1)) {
		t.Errorf("%s: held %d states at most, bound %d (overflow %d, depth %d)", what, cs.Peak, size, cs.Overflow, got.res.Stats.MaxDepth)
	}
	if got.res.Stats.Transitions < want.res.Stats.Transitions || got.res.Stats.States < int64(len(want.states)) {
		t.Errorf("%s: %d transitions, %d states stored; the exact search %d, %d", what,
			got.res.Stats.Transitions, got.res.Stats.States, want.res.Stats.Transitions, len(want.states))
	}
	if size >= len(want.states) && (got.res.Stats.Transitions != want.res.Stats.Transitions || cs.Evictions != 0) {
		t.Errorf("%s: a cache that holds every state explored %d transitions and evicted %d, want %d and 0", what,
			got.res.Stats.Transitions, cs.Evictions, want.res.Stats.Transitions)
	}
}

// TestCache_conformance compares cached searches with the exact one on the
// conformance programs and the philosophers at N = 3.
func TestCache_conformance(t *testing.T) {
	for _, md := range smallModels(t) {
		compareCache(t, filepath.Base(md.path), md.prog, 20000, []int{15, 50, 95}, 1000)
	}
}

// TestCache_generated compares cached searches with the exact one on
// generated programs.
func TestCache_generated(t *testing.T) {
	forGenerated(t, 30, func(name string, p *bytecode.Program) bool {
		return compareCache(t, name, p, 3000, []int{25, 75}, 10)
	})
}

// forGenerated runs compare on n generated programs (8 with -short) and
// fails unless it compared at least half of them (compare returns false
// for one too large to compare).
func forGenerated(t *testing.T, n int, compare func(name string, p *bytecode.Program) bool) {
	t.Helper()
	if testing.Short() {
		n = 8
	}
	compared := 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		p, err := asm.Assemble("gen.mcasm", []byte(progen.Generate(seed)), asm.Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if compare(fmt.Sprintf("gen%d", seed), p) {
			compared++
		}
	}
	if compared < n/2 {
		t.Errorf("compared only %d of %d generated programs", compared, n)
	}
}

// TestCache_deterministic checks that the same seed gives the same search,
// and that a small cache evicts and explores again.
func TestCache_deterministic(t *testing.T) {
	p, err := asm.AssembleFile("../benchmarks/models/philo_ok.mcasm", asm.Options{Defines: map[string]int64{"N": 3}})
	if err != nil {
		t.Fatal(err)
	}
	for _, pol := range explorer.CachePolicyNames() {
		policy, _ := explorer.ParseCachePolicy(pol)
		run := func() explorer.Stats {
			o := explorer.Options{Continue: true, Cache: &explorer.Cache{States: 160, Policy: policy, Seed: 3}}
			return runCached(t, p, o).res.Stats
		}
		a, b := run(), run()
		if a.States != b.States || a.Transitions != b.Transitions || a.Cache != b.Cache {
			t.Errorf("policy=%s: two runs give %d/%d/%+v and %d/%d/%+v", pol, a.States, a.Transitions, a.Cache, b.States, b.Transitions, b.Cache)
		}
		if a.Cache.Evictions == 0 {
			t.Errorf("policy=%s: a cache of 160 states evicted none", pol)
		}
	}
}

// TestCache_validate checks the combinations a cache refuses.
func TestCache_validate(t *testing.T) {
	c := &explorer.Cache{States: 10}
	for _, o := range []explorer.Options{
		{Order: explorer.BFS, Cache: c},
		{Storage: explorer.StorageCollapse, Cache: c},
		{Storage: explorer.StorageBitstate, Cache: c},
		{Cache: &explorer.Cache{}},
	} {
		if o.Validate() == nil {
			t.Errorf("Validate(%+v) = nil, want an error", o)
		}
	}
	o := explorer.Options{Cache: c}
	if err := o.Validate(); err != nil {
		t.Errorf("Validate(cache of 10) = %v", err)
	}
	if o.SleepFits(true) == nil {
		t.Error("SleepFits with a cache = nil, want an error")
	}
}
