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
// breadth-first search with the static proviso).
func parallelRun(t *testing.T, p *bytecode.Program, mode por.Mode, st explorer.Storage, workers int, cont bool) *explorer.Result {
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
	res, err := explorer.SearchParallel(opts, workers, newWorker)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestParallel_sameAsOneWorker checks the parallel search against the
// sequential breadth-first search with the static proviso, with and
// without reduction, with the exact store and hash compaction, with 1, 2
// and 4 workers: a complete search (--continue) stores the same states,
// explores the same transitions and counts the same errors; a search to
// the first error finds one exactly when the sequential search does, and
// its counterexample replays to an error of the same kind.
func TestParallel_sameAsOneWorker(t *testing.T) {
	for _, md := range parallelPrograms(t) {
		for _, mode := range []por.Mode{por.None, por.All} {
			for _, st := range []explorer.Storage{explorer.StorageExact, explorer.StorageHashCompact} {
				want := parallelRun(t, md.prog, mode, st, 0, true)
				if want.Limit != "" {
					continue
				}
				first := parallelRun(t, md.prog, mode, st, 0, false)
				for _, workers := range []int{1, 2, 4} {
					if st != explorer.StorageExact && workers != 2 {
						continue // (the stores differ only in what the shards keep)
					}
					name := fmt.Sprintf("%s/por=%s/store=%s/workers=%d", md.path, mode, st, workers)
					got := parallelRun(t, md.prog, mode, st, workers, true)
					if got.Stats.States != want.Stats.States || got.Stats.Transitions != want.Stats.Transitions ||
						got.Stats.Errors != want.Stats.Errors || (got.Fault == nil) != (want.Fault == nil) || got.Limit != "" {
						t.Errorf("%s --continue: %s, %d states, %d transitions, %d errors; one worker: %s, %d, %d, %d", name,
							got.Verdict, got.Stats.States, got.Stats.Transitions, got.Stats.Errors,
							want.Verdict, want.Stats.States, want.Stats.Transitions, want.Stats.Errors)
					}
					stop := parallelRun(t, md.prog, mode, st, workers, false)
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
			}
		}
	}
}
