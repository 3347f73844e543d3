package explorer_test

import (
	"sync/atomic"
	"testing"

	"mcvm/asm"
	"mcvm/explorer"
	"mcvm/vm"
)

// TestSearch_interrupt checks that Options.Interrupt ends every search
// order within 1,024 steps of being set, with verdict limit and limit
// "interrupted", and that an error found before it stays the verdict.
func TestSearch_interrupt(t *testing.T) {
	p, err := asm.AssembleFile("../benchmarks/models/philo_ok.mcasm", asm.Options{Defines: map[string]int64{"N": 6}})
	if err != nil {
		t.Fatal(err)
	}
	for _, order := range []explorer.Order{explorer.DFS, explorer.BFS, explorer.AStar, explorer.IDA} {
		t.Run("search="+order.String(), func(t *testing.T) {
			m, err := vm.New(p, vm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var stop atomic.Bool
			opts := explorer.Options{Order: order, Continue: order != explorer.IDA, Interrupt: &stop}
			if order == explorer.AStar || order == explorer.IDA {
				if opts.Heuristic, err = explorer.NewHeuristic("active", m, nil); err != nil {
					t.Fatal(err)
				}
			}
			// Interrupted after 500 steps, from inside the search as a
			// signal handler would (IDA, which tells listeners nothing,
			// before it starts).
			after := int64(500)
			if order == explorer.IDA {
				after = 0
				stop.Store(true)
			}
			var n int64
			opts.Listen(explorer.Funcs{OnTransition: func(int32, vm.Trans, int32, int32, int32, bool) {
				if n++; n == after {
					stop.Store(true)
				}
			}})
			res := explorer.Search(m, opts)
			if res.Verdict != explorer.VerdictLimit || res.Limit != "interrupted" || res.Stats.Transitions > after+1024 {
				t.Errorf("Search interrupted after %d transitions = verdict %v, limit %q, %d transitions; want limit, \"interrupted\", at most %d",
					after, res.Verdict, res.Limit, res.Stats.Transitions, after+1024)
			}
		})
	}
	t.Run("error-first", func(t *testing.T) {
		q, err := asm.AssembleFile("../benchmarks/models/philo.mcasm", asm.Options{Defines: map[string]int64{"N": 6}})
		if err != nil {
			t.Fatal(err)
		}
		m, err := vm.New(q, vm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var stop atomic.Bool
		opts := explorer.Options{Continue: true, Interrupt: &stop}
		opts.Listen(explorer.Funcs{OnError: func(*vm.Fault, uint64) { stop.Store(true) }})
		res := explorer.Search(m, opts)
		if res.Verdict != explorer.VerdictDeadlock || res.Limit != "interrupted" || res.Fault == nil || len(res.Path) == 0 {
			t.Errorf("Search interrupted after a deadlock = verdict %v, limit %q, fault %v; want deadlock, \"interrupted\", with its path",
				res.Verdict, res.Limit, res.Fault)
		}
	})
}
