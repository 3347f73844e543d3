package por_test

import (
	"maps"
	"path/filepath"
	"testing"

	"mcvm/asm"
	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/internal/progen"
	"mcvm/por"
	"mcvm/vm"
)

// orbitKey returns a key of the machine's state that is the same for
// every renaming of its threads and different for states that are not
// renamings of each other: the smallest encoding over all orders of the
// threads, by brute force for up to maxOrbitThreads threads; beyond, the
// encoding of the state sorted by vm.Machine.SortThreads.
func orbitKey(m *vm.Machine) string {
	var snap vm.Snapshot
	m.Save(&snap, nil)
	n := m.NumThreads()
	if n > maxOrbitThreads {
		m.SortThreads(nil)
		k := string(m.Encode(nil))
		m.Restore(&snap)
		return k
	}
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	best := ""
	var enc []byte
	var try func(k int)
	try = func(k int) {
		if k == n {
			m.Restore(&snap)
			m.PermuteThreads(perm)
			enc = m.Encode(enc[:0])
			if best == "" || string(enc) < best {
				best = string(enc)
			}
			return
		}
		for i := k; i < n; i++ {
			perm[k], perm[i] = perm[i], perm[k]
			try(k + 1)
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	try(0)
	m.Restore(&snap)
	return best
}

// symOutcome is outcome with deadlocks and end states keyed by their
// orbits under renaming of threads.
type symOutcome struct {
	errors map[string]bool
	ends   map[string]bool
	orbits map[string]bool // of all states stored, if asked for
	limit  bool
	stats  explorer.Stats
	res    *explorer.Result
}

func exploreSym(t testing.TB, p *bytecode.Program, c config, symmetry, cont, orbits bool, maxStates int) symOutcome {
	t.Helper()
	m, err := vm.New(p, c.mode.VMOptions(vm.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	o := symOutcome{errors: map[string]bool{}, ends: map[string]bool{}}
	opts := explorer.Options{Order: c.order, Continue: cont, MaxStates: maxStates, Proviso: c.proviso, Chain: c.chain, Sleep: c.sleep,
		Storage: c.storage, Symmetry: symmetry,
		Listeners: []explorer.Listener{explorer.Funcs{OnError: func(f *vm.Fault, fp uint64) {
			if f.Kind == vm.FaultDeadlock {
				o.errors["deadlock "+orbitKey(m)] = true
				return
			}
			o.errors[faultKey(f)] = true
		},
			OnEnd: func(uint64) { o.ends[orbitKey(m)] = true }}},
	}
	if orbits {
		o.orbits = map[string]bool{}
		opts.Listen(explorer.Funcs{OnState: func(int32, uint64) { o.orbits[orbitKey(m)] = true }})
	}
	if r := por.New(p, c.mode); r != nil && r.Reduces() {
		opts.Reducer = r
	}
	o.res = explorer.Search(m, opts)
	o.limit = o.res.Limit != ""
	o.stats = o.res.Stats
	return o
}

// maxOrbitThreads bounds the threads of a state whose orbit key is found
// by brute force.
const maxOrbitThreads = 6

// maxOrbitStates bounds the unreduced state spaces whose states
// TestSymmetry_isSound sorts into orbits (by brute force: slow).
const maxOrbitStates = 5000

// symConfigs are the searches with thread symmetry compared with the
// unreduced one: symmetry alone and with every static reduction, search
// order, proviso, chains, sleep sets and store.
var symConfigs = []config{
	unreduced,
	{por.None, explorer.BFS, explorer.ProvisoAuto, explorer.StorageExact, false, false, false, ""},
	{por.All, explorer.DFS, explorer.ProvisoAuto, explorer.StorageExact, false, false, false, ""},
	{por.All, explorer.DFS, explorer.ProvisoAuto, explorer.StorageExact, true, true, false, ""},
	{por.Ample, explorer.DFS, explorer.ProvisoAuto, explorer.StorageExact, false, true, false, ""},
	{por.All, explorer.BFS, explorer.ProvisoAuto, explorer.StorageExact, false, false, false, ""},
	{por.All, explorer.DFS, explorer.ProvisoStatic, explorer.StorageExact, false, false, false, ""},
	{por.Escape, explorer.DFS, explorer.ProvisoAuto, explorer.StorageCollapse, false, true, false, ""},
	{por.All, explorer.DFS, explorer.ProvisoAuto, explorer.StorageHashCompact, true, false, false, ""},
}

// TestSymmetry_isSound is the differential test of thread symmetry
// reduction (explorer.Options.Symmetry) against the unreduced search on
// generated programs, most of them with threads that run the same code:
// the same violations, and the same deadlocked and end states up to
// renaming of threads. With symmetry alone exactly one state per orbit of
// the unreduced search's states is stored, and the counterexample of a search that stops at the
// first error must replay, without symmetry, to that error.
func TestSymmetry_isSound(t *testing.T) {
	n := genCount(t, 60)
	sym := func(seed uint64) string { return progen.GenerateWith(seed, progen.Options{Symmetric: true}) }
	symH := func(seed uint64) string {
		return progen.GenerateWith(seed, progen.Options{Symmetric: true, Handlers: true})
	}
	var statesNone, statesSym int64
	orbitsChecked := 0
	for _, g := range []struct {
		name string
		f    func(uint64) string
		n    int
	}{{"symmetric", sym, n}, {"symmetric-handlers", symH, n / 2}, {"por", progen.GeneratePOR, n / 4}} {
		compared, reduced, withErrors := 0, 0, 0
		for seed := uint64(1); seed <= uint64(g.n); seed++ {
			src := g.f(seed)
			p, err := asm.Assemble("gen.mcasm", []byte(src), asm.Options{})
			if err != nil {
				t.Fatalf("%s seed %d does not assemble: %v\n%s", g.name, seed, err, src)
			}
			if _, _, found := vm.ThreadIDUse(p); found {
				continue
			}
			full := exploreSym(t, p, unreduced, false, true, false, 100000)
			if full.limit {
				continue
			}
			if full.stats.States <= maxOrbitStates {
				full = exploreSym(t, p, unreduced, false, true, true, 0)
			}
			compared++
			if len(full.errors) > 0 {
				withErrors++
			}
			for i, c := range symConfigs {
				red := exploreSym(t, p, c, true, true, false, 0)
				if !maps.Equal(full.errors, red.errors) || !maps.Equal(full.ends, red.ends) {
					t.Errorf("%s seed %d, %s with symmetry: finds %d errors and %d end states; unreduced: %d and %d\n%s",
						g.name, seed, c, len(red.errors), len(red.ends), len(full.errors), len(full.ends), src)
					continue
				}
				if i == 0 {
					if full.orbits != nil {
						orbitsChecked++
					}
					statesNone += full.stats.States
					statesSym += red.stats.States
					if full.orbits != nil && red.stats.States != int64(len(full.orbits)) {
						// Every state of the unreduced search is a renaming of
						// one stored, and no two stored are renamings of each
						// other: the canonical order is complete here.
						t.Errorf("%s seed %d: symmetry stores %d states, the unreduced search's %d states fall into %d orbits\n%s",
							g.name, seed, red.stats.States, full.stats.States, len(full.orbits), src)
					}
					if red.stats.States < full.stats.States {
						reduced++
					}
				}
			}
			if len(full.errors) == 0 {
				continue
			}
			// The first counterexample, found with symmetry and the default
			// reduction (and breadth-first), replays in a plain machine.
			for _, c := range []config{
				{por.All, explorer.DFS, explorer.ProvisoAuto, explorer.StorageExact, true, true, false, ""},
				{por.All, explorer.BFS, explorer.ProvisoAuto, explorer.StorageExact, false, false, false, ""},
			} {
				first := exploreSym(t, p, c, true, false, false, 0)
				if first.res.Fault == nil {
					t.Errorf("%s seed %d, %s: no error found with symmetry, stopping at the first", g.name, seed, c)
					continue
				}
				m, err := vm.New(p, por.All.VMOptions(vm.Options{}))
				if err != nil {
					t.Fatal(err)
				}
				_, f, err := explorer.Replay(m, first.res.Path)
				want := first.res.Fault
				if err != nil || f == nil || f.Kind != want.Kind || f.Method != want.Method || f.PC != want.PC || f.Thread != want.Thread {
					t.Errorf("%s seed %d, %s: counterexample replays to %v (%v), want %+v\n%s", g.name, seed, c, f, err, want, src)
				}
			}
		}
		if compared < g.n/2 {
			t.Errorf("%s: only %d of %d programs were small enough to compare", g.name, compared, g.n)
		}
		t.Logf("%s: compared %d programs (%d with errors); symmetry reduced %d of them", g.name, compared, withErrors, reduced)
	}
	if orbitsChecked < 20 {
		t.Errorf("only %d programs were small enough to count their orbits", orbitsChecked)
	}
	if statesSym >= statesNone {
		t.Errorf("symmetry stored %d states in all, the unreduced search %d: no reduction", statesSym, statesNone)
	}
	t.Logf("states: unreduced %d, symmetry %d (%.2fx); orbits counted for %d programs", statesNone, statesSym, float64(statesNone)/float64(max(statesSym, 1)), orbitsChecked)
}

// TestSymmetry_programs compares symmetry with the unreduced search on the
// regression programs, the conformance programs and the benchmark models
// at their SMALL sizes, as TestSymmetry_isSound does on generated ones.
func TestSymmetry_programs(t *testing.T) {
	compared := 0
	for _, pr := range programs(t) {
		path, p := pr.path, pr.prog
		if _, _, found := vm.ThreadIDUse(p); found {
			continue
		}
		full := exploreSym(t, p, unreduced, false, true, false, 150000)
		if full.limit {
			continue
		}
		compared++
		for _, c := range symConfigs {
			red := exploreSym(t, p, c, true, true, false, 0)
			if !maps.Equal(full.errors, red.errors) || !maps.Equal(full.ends, red.ends) {
				t.Errorf("%s, %s with symmetry: %d errors and %d end states; unreduced %d and %d",
					filepath.Base(path), c, len(red.errors), len(red.ends), len(full.errors), len(full.ends))
			}
		}
	}
	if compared < 30 {
		t.Errorf("only %d programs compared", compared)
	}
}

// TestSymmetry_boundedBuffer pins the figures of the bounded buffer with
// the original's endless loops and two alike producers and consumers
// (benchmarks/RESULTS.md, "Thread symmetry"): symmetry with the default
// reduction stores 8,028 states where the search without it stores
// 25,337, and the same figures on every run.
func TestSymmetry_boundedBuffer(t *testing.T) {
	p, err := asm.AssembleFile("../benchmarks/models/boundedbuffer.mcasm", asm.Options{Defines: map[string]int64{"ITEMS": 0, "PRODUCERS": 2, "CONSUMERS": 2}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		symmetry            bool
		states, transitions int64
	}{{false, 25337, 1018183}, {true, 8028, 299890}} {
		m, err := vm.New(p, por.All.VMOptions(vm.Options{}))
		if err != nil {
			t.Fatal(err)
		}
		res := explorer.Search(m, explorer.Options{Continue: true, Symmetry: tc.symmetry, Reducer: por.New(p, por.All), Chain: true, Sleep: true})
		if res.Verdict != explorer.VerdictOK || res.Stats.States != tc.states || res.Stats.Transitions != tc.transitions {
			t.Errorf("symmetry %v: %v, %d states, %d transitions; want ok, %d and %d",
				tc.symmetry, res.Verdict, res.Stats.States, res.Stats.Transitions, tc.states, tc.transitions)
		}
	}
}
