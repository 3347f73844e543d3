package explorer_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"mcvm/asm"
	"mcvm/explorer"
	"mcvm/internal/progen"
	"mcvm/vm"
)

// zeroH estimates 0 everywhere: A* with it is a uniform-cost search, whose
// paths are breadth-first search's lengths.
type zeroH struct{}

func (zeroH) Estimate(*vm.Machine, []vm.Trans) int32 { return 0 }

// scatterH estimates from the threads' places, arbitrarily: an
// inadmissible heuristic that reorders the search a lot.
type scatterH struct{}

func (scatterH) Estimate(m *vm.Machine, _ []vm.Trans) int32 {
	h := int32(0)
	for t := range m.NumThreads() {
		meth, pc := m.Where(int32(t))
		h += (meth*7 + pc*13) % 11
	}
	return h
}

// directed runs src with order and heuristic h, unreduced, and returns
// its result and, with Continue, the violations and end states.
func directed(t *testing.T, src string, order explorer.Order, h explorer.Heuristic, cont bool) (*explorer.Result, outcome) {
	t.Helper()
	m := mustMachine(t, src)
	o := outcome{errors: map[string]bool{}, ends: map[uint64]bool{}}
	opts := explorer.Options{Order: order, Heuristic: h, Continue: cont, MaxStates: 300000, Listeners: []explorer.Listener{o.listener()}}
	if err := opts.Validate(); err != nil {
		t.Fatal(err)
	}
	res := explorer.Search(m, opts)
	o.limit = res.Limit != ""
	return res, o
}

// TestDirected_generated checks best-first search and A* against
// depth-first search on generated programs: exploring everything, they
// find the same violations and end states whatever the heuristic (test
// ones and every one NewHeuristic makes); A*
// with an admissible heuristic stops at an error with a path as short as
// breadth-first search's (with h = 0, after storing as many states), and
// every counterexample replays.
func TestDirected_generated(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 20
	}
	compared, shorter := 0, 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		src := progen.Generate(seed)
		_, dfs := directed(t, src, explorer.DFS, nil, true)
		if dfs.limit {
			continue
		}
		compared++
		type run struct {
			order explorer.Order
			h     explorer.Heuristic
			name  string
		}
		runs := []run{{explorer.AStar, zeroH{}, "zero"}, {explorer.AStar, scatterH{}, "scatter"}, {explorer.BestFirst, scatterH{}, "scatter"}}
		// Every heuristic of NewHeuristic, aimed where it takes a target
		// at the last state of DFS's counterexample, or the initial state.
		m := mustMachine(t, src)
		target := m.Encode(nil)
		if first, _ := directed(t, src, explorer.DFS, nil, false); first.Fault != nil {
			explorer.Replay(m, first.Path)
			target = m.Encode(nil)
		}
		for _, info := range explorer.Heuristics {
			for _, tg := range [][]byte{nil, target} {
				if tg == nil && info.Target == explorer.TargetRequired || tg != nil && info.Target == explorer.TargetNone {
					continue
				}
				h, err := explorer.NewHeuristic(info.Name, m, tg)
				if err != nil {
					t.Fatalf("seed %d: NewHeuristic(%q): %v", seed, info.Name, err)
				}
				name := info.Name
				if tg != nil {
					name += "+target"
				}
				runs = append(runs, run{explorer.AStar, h, name}, run{explorer.BestFirst, h, name})
			}
		}
		for _, c := range runs {
			name := fmt.Sprintf("seed=%d/search=%s/h=%s", seed, c.order, c.name)
			_, all := directed(t, src, c.order, c.h, true)
			if !maps.Equal(all.errors, dfs.errors) || !maps.Equal(all.ends, dfs.ends) {
				t.Errorf("%s: finds %v and %d end states, DFS %v and %d", name,
					slices.Sorted(maps.Keys(all.errors)), len(all.ends), slices.Sorted(maps.Keys(dfs.errors)), len(dfs.ends))
			}
			first, _ := directed(t, src, c.order, c.h, false)
			if (first.Fault != nil) != (len(dfs.errors) > 0) {
				t.Errorf("%s: stops with fault %v, DFS finds %d errors", name, first.Fault, len(dfs.errors))
				continue
			}
			if first.Fault == nil {
				continue
			}
			if _, f, err := explorer.Replay(mustMachine(t, src), first.Path); err != nil || f == nil || f.Kind != first.Fault.Kind {
				t.Errorf("%s: the counterexample replays to %v, %v; want a %s", name, f, err, first.Fault.Kind)
			}
			if _, ok := c.h.(zeroH); ok {
				bfs, _ := directed(t, src, explorer.BFS, nil, false)
				if len(first.Path) != len(bfs.Path) {
					t.Errorf("%s: A* path of %d transitions, BFS %d", name, len(first.Path), len(bfs.Path))
				}
				if first.Stats.States != bfs.Stats.States {
					t.Errorf("%s: A* stored %d states, BFS %d: with h = 0 it takes them in the same order", name, first.Stats.States, bfs.Stats.States)
				}
				dfsFirst, _ := directed(t, src, explorer.DFS, nil, false)
				if len(first.Path) < len(dfsFirst.Path) {
					shorter++
				}
			}
		}
	}
	if compared < n*3/4 {
		t.Errorf("only %d of %d programs were small enough to compare", compared, n)
	}
	t.Logf("compared %d programs; A* found a shorter path than DFS in %d", compared, shorter)
}

// TestDirected_ida checks IDA* on generated programs: it stops at an
// error exactly when depth-first search finds one (unless its bound on
// states expanded cuts it short), its counterexample replays, and with
// an admissible heuristic (h = 0: iterative deepening) it is as short as
// breadth-first search's.
func TestDirected_ida(t *testing.T) {
	n := 25
	if testing.Short() {
		n = 10
	}
	finished := 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		src := progen.Generate(seed)
		dfs, _ := directed(t, src, explorer.DFS, nil, false)
		if dfs.Limit != "" {
			continue
		}
		for _, h := range []explorer.Heuristic{zeroH{}, scatterH{}} {
			name := fmt.Sprintf("seed=%d/h=%T", seed, h)
			res, _ := directed(t, src, explorer.IDA, h, false)
			if res.Limit != "" {
				continue
			}
			finished++
			if (res.Fault != nil) != (dfs.Fault != nil) {
				t.Errorf("%s: IDA* fault %v, DFS %v", name, res.Fault, dfs.Fault)
				continue
			}
			if res.Fault == nil {
				continue
			}
			if _, f, err := explorer.Replay(mustMachine(t, src), res.Path); err != nil || f == nil || f.Kind != res.Fault.Kind {
				t.Errorf("%s: the counterexample replays to %v, %v; want a %s", name, f, err, res.Fault.Kind)
			}
			if _, ok := h.(zeroH); ok {
				if bfs, _ := directed(t, src, explorer.BFS, nil, false); len(res.Path) != len(bfs.Path) {
					t.Errorf("%s: IDA* path of %d transitions, BFS %d", name, len(res.Path), len(bfs.Path))
				}
			}
		}
	}
	if finished < n/3 {
		t.Errorf("IDA* finished on only %d of %d runs", finished, 2*n)
	}
	t.Logf("IDA* finished %d of %d runs", finished, 2*n)
}

func mustMachine(t *testing.T, src string) *vm.Machine {
	t.Helper()
	p, err := asm.Assemble("gen.mcasm", []byte(src), asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := vm.New(p, vm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
