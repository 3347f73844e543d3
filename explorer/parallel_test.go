package explorer_test

import (
	"fmt"
	"testing"

	"mcvm/asm"
	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/internal/progen"
	"mcvm/por"
	"mcvm/vm"
)

// parallelPrograms are the programs the parallel search is compared on:
// the small models and conformance programs, and generated ones.
func parallelPrograms(t *testing.T) []model {
	ps := smallModels(t)
	n := 12
	if testing.Short() {
		n = 4
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		for _, g := range []struct {
			name string
			src  string
		}{{"gen", progen.Generate(seed)}, {"genpor", progen.GeneratePOR(seed)}} {
			p, err := asm.Assemble("gen.mcasm", []byte(g.src), asm.Options{})
			if err != nil {
				t.Fatalf("%s %d: %v", g.name, seed, err)
			}
			ps = append(ps, model{fmt.Sprintf("%s/%d", g.name, seed), p})
		}
	}
	return ps
}

// parallelRun searches p with the given workers (0: the sequential
// breadth-first search with the static proviso). A small table (slots:
// the fingerprint table's first size, 0 for 2^14) makes a parallel
// search with hash compaction grow its table while levels are expanded.
func parallelRun(t *testing.T, p *bytecode.Program, mode por.Mode, st explorer.Storage, workers int, cont bool, slots int) *explorer.Result {
	return parallelRunIn(t, p, mode, st, workers, cont, slots, explorer.BFS)
}

// parallelRunIn is parallelRun with the parallel search's order: BFS (by
// levels) or DFS (depth-first, without a bound on the states).
func parallelRunIn(t *testing.T, p *bytecode.Program, mode por.Mode, st explorer.Storage, workers int, cont bool, slots int, order explorer.Order) *explorer.Result {
	t.Helper()
	newWorker := func() (explorer.Worker, error) {
		m, err := vm.New(p, mode.VMOptions(vm.Options{}))
		if err != nil {
			return explorer.Worker{}, err
		}
		w := explorer.Worker{Machine: m}
		if r := por.New(p, mode); r != nil && r.Reduces() {
			w.Reducer = r
		}
		return w, nil
	}
	opts := explorer.Options{Order: explorer.BFS, Continue: cont, MaxStates: 20000, Storage: st}
	if workers == 0 {
		w, err := newWorker()
		if err != nil {
			t.Fatal(err)
		}
		opts.Reducer = w.Reducer
		if w.Reducer != nil {
			opts.Proviso = explorer.ProvisoStatic
		}
		return explorer.Search(w.Machine, opts)
	}
	if order == explorer.DFS {
		opts.Order, opts.MaxStates = explorer.DFS, 0
	}
	if slots == 0 {
		slots = 1 << 14 // (the default's 8 MiB would be most of a small search's time)
	}
	tu := explorer.DefaultTuning()
	tu.ParallelSlots = slots
	opts.Tuning = &tu
	res, err := explorer.SearchParallel(opts, workers, newWorker)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// forParallelCases calls f for each program of parallelPrograms, with
// and without reduction, for both stores the parallel searches take,
// whose sequential breadth-first search with the static proviso is
// complete: want is that search with --continue, first without.
func forParallelCases(t *testing.T, f func(md model, mode por.Mode, st explorer.Storage, want, first *explorer.Result)) {
	for _, md := range parallelPrograms(t) {
		for _, mode := range []por.Mode{por.None, por.All} {
			for _, st := range []explorer.Storage{explorer.StorageExact, explorer.StorageHashCompact} {
				want := parallelRun(t, md.prog, mode, st, 0, true, 0)
				if want.Limit != "" {
					continue
				}
				f(md, mode, st, want, parallelRun(t, md.prog, mode, st, 0, false, 0))
			}
		}
	}
}

// TestParallel_sameAsOneWorker checks the parallel search against the
// sequential breadth-first search with the static proviso, with and
// without reduction, with the exact store and hash compaction (with more
// than one worker, from a shared table of 16 slots, so that it grows
// while levels are expanded), with 1, 2 and 4 workers: a complete search (--continue) stores the same states,
// explores the same transitions and counts the same errors; a search to
// the first error finds one exactly when the sequential search does, and
// its counterexample replays to an error of the same kind.
func TestParallel_sameAsOneWorker(t *testing.T) {
	forParallelCases(t, func(md model, mode por.Mode, st explorer.Storage, want, first *explorer.Result) {
		for _, workers := range []int{1, 2, 4} {
			slots := 0
			if workers > 1 {
				slots = 16
			}
			name := fmt.Sprintf("%s/por=%s/store=%s/workers=%d/slots=%d", md.path, mode, st, workers, slots)
			got := parallelRun(t, md.prog, mode, st, workers, true, slots)
			if got.Stats.States != want.Stats.States || got.Stats.Transitions != want.Stats.Transitions ||
				got.Stats.Errors != want.Stats.Errors || (got.Fault == nil) != (want.Fault == nil) || got.Limit != "" {
				t.Errorf("%s --continue: %s, %d states, %d transitions, %d errors; one worker: %s, %d, %d, %d", name,
					got.Verdict, got.Stats.States, got.Stats.Transitions, got.Stats.Errors,
					want.Verdict, want.Stats.States, want.Stats.Transitions, want.Stats.Errors)
			}
			stop := parallelRun(t, md.prog, mode, st, workers, false, slots)
			if (stop.Fault == nil) != (first.Fault == nil) {
				t.Errorf("%s: verdict %s, sequential %s", name, stop.Verdict, first.Verdict)
				continue
			}
			if stop.Fault == nil || stop.Fault.Kind == vm.FaultLimit {
				continue
			}
			if len(stop.Path) != len(first.Path) {
				t.Errorf("%s: counterexample of %d transitions, breadth-first search's %d", name, len(stop.Path), len(first.Path))
			}
			m, err := vm.New(md.prog, mode.VMOptions(vm.Options{}))
			if err != nil {
				t.Fatal(err)
			}
			_, f, err := explorer.Replay(m, stop.Path)
			if err != nil || (f == nil) != (stop.Fault.Kind == vm.FaultDeadlock || stop.Fault.Kind == vm.FaultInvariant) && f == nil {
				t.Errorf("%s: the counterexample does not replay: %v", name, err)
			}
		}
	})
}

// TestParallel_depthFirst checks the parallel depth-first search against
// the sequential breadth-first search with the static proviso, as
// TestParallel_sameAsOneWorker does the search by levels, on the programs
// whose state spaces that search completes (within its bound of 20,000
// states): a complete search stores the same states, explores the same
// transitions and counts the same errors, and reports an error exactly
// when the sequential search does, with a counterexample as long (the
// levels' report) that replays. A table of 16 slots makes the workers
// grow it while they run.
func TestParallel_depthFirst(t *testing.T) {
	forParallelCases(t, func(md model, mode por.Mode, st explorer.Storage, want, first *explorer.Result) {
		for _, workers := range []int{1, 2, 4} {
			name := fmt.Sprintf("%s/por=%s/store=%s/workers=%d", md.path, mode, st, workers)
			for _, cont := range []bool{true, false} {
				got := parallelRunIn(t, md.prog, mode, st, workers, cont, 16, explorer.DFS)
				if (got.Fault == nil) != (first.Fault == nil) || got.Limit != "" {
					t.Errorf("%s continue=%v: verdict %s (limit %q), sequential %s", name, cont, got.Verdict, got.Limit, first.Verdict)
					continue
				}
				if cont && (got.Stats.States != want.Stats.States || got.Stats.Transitions != want.Stats.Transitions || got.Stats.Errors != want.Stats.Errors) {
					t.Errorf("%s --continue: %d states, %d transitions, %d errors; sequential: %d, %d, %d", name,
						got.Stats.States, got.Stats.Transitions, got.Stats.Errors, want.Stats.States, want.Stats.Transitions, want.Stats.Errors)
				}
				if got.Fault == nil || got.Fault.Kind == vm.FaultLimit {
					continue
				}
				if got.Verdict != first.Verdict || len(got.Path) != len(first.Path) {
					t.Errorf("%s continue=%v: %s after %d transitions, breadth-first search %s after %d", name, cont,
						got.Verdict, len(got.Path), first.Verdict, len(first.Path))
				}
				m, err := vm.New(md.prog, mode.VMOptions(vm.Options{}))
				if err != nil {
					t.Fatal(err)
				}
				if _, _, err := explorer.Replay(m, got.Path); err != nil {
					t.Errorf("%s: the counterexample does not replay: %v", name, err)
				}
			}
		}
	})
}

// TestParallel_depthFirstMemory: depth-first workers whose records the
// memory limit refuses stop with verdict limit, not ok.
func TestParallel_depthFirstMemory(t *testing.T) {
	for _, md := range parallelPrograms(t)[:3] {
		newWorker := func() (explorer.Worker, error) {
			m, err := vm.New(md.prog, vm.Options{})
			return explorer.Worker{Machine: m}, err
		}
		opts := explorer.Options{Continue: true, Storage: explorer.StorageExact, MemoryLimit: 1}
		r, err := explorer.SearchParallel(opts, 2, newWorker)
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict != explorer.VerdictLimit || r.Limit != "memory" {
			t.Errorf("%s: verdict %s, limit %q, want limit memory", md.path, r.Verdict, r.Limit)
		}
	}
}
