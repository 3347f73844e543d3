package explorer_test

import (
	"testing"

	"mcvm/explorer"
	"mcvm/vm"
)

// TestHooks checks the transition and backtrack callbacks against the
// search's own figures: one OnTransition per transition executed, new
// states reported once each with increasing ids, and in a complete DFS one
// OnBacktrack per expanded state, in the order the stack is left.
func TestHooks(t *testing.T) {
	for _, md := range smallModels(t) {
		for _, order := range []explorer.Order{explorer.DFS, explorer.BFS} {
			m, err := vm.New(md.prog, vm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var trans, news, backs int64
			maxID := int32(0)
			open := map[int32]bool{0: true}
			r := explorer.Search(m, explorer.Options{Order: order, Continue: true,
				Listeners: []explorer.Listener{explorer.Funcs{OnTransition: func(from int32, tr vm.Trans, method, pc, to int32, isNew bool) {
					trans++
					if method < 0 || pc < 0 {
						t.Errorf("%s: transition %v from %d began nowhere", md.path, tr, from)
					}
					if isNew {
						news++
						if to != maxID+1 {
							t.Errorf("%s: new state %d after %d", md.path, to, maxID)
						}
						maxID = to
						open[to] = true
					}
				},
					OnBacktrack: func(id int32) {
						backs++
						if !open[id] {
							t.Errorf("%s: backtrack from %d twice or before it was reached", md.path, id)
						}
						delete(open, id)
					}}},
			})
			if trans != r.Stats.Transitions || news != r.Stats.States-1 {
				t.Errorf("%s %v: %d transitions and %d new states reported, search counted %d and %d",
					md.path, order, trans, news, r.Stats.Transitions, r.Stats.States-1)
			}
			if order == explorer.BFS && backs != 0 {
				t.Errorf("%s: OnBacktrack called in BFS", md.path)
			}
			if order == explorer.DFS && r.Stats.Errors == 0 && (backs != r.Stats.States || len(open) != 0) {
				t.Errorf("%s: %d backtracks for %d states", md.path, backs, r.Stats.States)
			}
		}
	}
}
