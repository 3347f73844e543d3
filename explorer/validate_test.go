package explorer_test

import (
	"testing"

	"mcvm/explorer"
	"mcvm/vm"
)

// dynamicStub stands for a dynamic reduction where only its presence
// matters.
type dynamicStub struct{ explorer.Dynamic }

// TestOptions_Validate checks which combinations no search runs.
func TestOptions_Validate(t *testing.T) {
	dyn := dynamicStub{}
	for _, c := range []struct {
		name string
		o    explorer.Options
		bad  bool
	}{
		{"zero", explorer.Options{}, false},
		{"bfs", explorer.Options{Order: explorer.BFS}, false},
		{"bfs/stack", explorer.Options{Order: explorer.BFS, Proviso: explorer.ProvisoStack}, true},
		{"bfs/duplicate", explorer.Options{Order: explorer.BFS, Proviso: explorer.ProvisoDuplicate}, false},
		{"bfs/dynamic", explorer.Options{Order: explorer.BFS, Dynamic: dyn}, true},
		{"dfs/dynamic", explorer.Options{Dynamic: dyn}, false},
		{"symmetry", explorer.Options{Symmetry: true}, false},
		{"symmetry/dynamic", explorer.Options{Symmetry: true, Dynamic: dyn}, true},
		{"astar", explorer.Options{Order: explorer.AStar, Heuristic: zeroH{}}, false},
		{"astar/collapse", explorer.Options{Order: explorer.AStar, Heuristic: zeroH{}, Storage: explorer.StorageCollapse}, false},
		{"astar/no heuristic", explorer.Options{Order: explorer.AStar}, false},
		{"astar/stack", explorer.Options{Order: explorer.AStar, Heuristic: zeroH{}, Proviso: explorer.ProvisoStack}, true},
		{"astar/hash-compact", explorer.Options{Order: explorer.AStar, Heuristic: zeroH{}, Storage: explorer.StorageHashCompact}, true},
		{"ida", explorer.Options{Order: explorer.IDA, Heuristic: zeroH{}}, false},
		{"ida/stack", explorer.Options{Order: explorer.IDA, Heuristic: zeroH{}, Proviso: explorer.ProvisoStack}, false},
		{"ida/duplicate", explorer.Options{Order: explorer.IDA, Heuristic: zeroH{}, Proviso: explorer.ProvisoDuplicate}, true},
		{"ida/continue", explorer.Options{Order: explorer.IDA, Heuristic: zeroH{}, Continue: true}, true},
		{"ida/no heuristic", explorer.Options{Order: explorer.IDA}, false},
		{"best-first/bitstate", explorer.Options{Order: explorer.BestFirst, Heuristic: zeroH{}, Storage: explorer.StorageBitstate}, true},
	} {
		if err := c.o.Validate(); (err != nil) != c.bad {
			t.Errorf("%s: Validate() = %v, want an error: %v", c.name, err, c.bad)
		}
	}
}

// TestOptions_fits checks where chains and sleep sets apply.
func TestOptions_fits(t *testing.T) {
	dyn := dynamicStub{}
	for _, c := range []struct {
		name         string
		o            explorer.Options
		reduces      bool
		chain, sleep bool // they apply
	}{
		{"dfs", explorer.Options{}, true, true, true},
		{"no reduction", explorer.Options{}, false, false, false},
		{"bfs", explorer.Options{Order: explorer.BFS}, true, false, false},
		{"duplicate", explorer.Options{Proviso: explorer.ProvisoDuplicate}, true, false, false},
		{"static", explorer.Options{Proviso: explorer.ProvisoStatic}, true, false, false},
		{"max-depth", explorer.Options{MaxDepth: 5}, true, false, false},
		{"dynamic", explorer.Options{Dynamic: dyn}, true, false, true},
		{"hash-compact", explorer.Options{Storage: explorer.StorageHashCompact}, true, true, false},
		{"bitstate", explorer.Options{Storage: explorer.StorageBitstate}, true, true, false},
		{"collapse", explorer.Options{Storage: explorer.StorageCollapse}, true, true, true},
	} {
		if err := c.o.ChainFits(c.reduces); (err == nil) != c.chain {
			t.Errorf("%s: ChainFits = %v, want it to apply: %v", c.name, err, c.chain)
		}
		if err := c.o.SleepFits(c.reduces); (err == nil) != c.sleep {
			t.Errorf("%s: SleepFits = %v, want it to apply: %v", c.name, err, c.sleep)
		}
	}
	if (&explorer.Options{Dynamic: dyn}).CollectsGarbage() || (&explorer.Options{Order: explorer.BFS}).CollectsGarbage() ||
		!(&explorer.Options{}).CollectsGarbage() {
		t.Error("CollectsGarbage: want true for depth-first search without dynamic reduction only")
	}
}

// countingListener counts the events it is given, and wants those of
// want.
type countingListener struct {
	explorer.NoListener
	want                                       explorer.Events
	states, trans, backs, errs, ends, progress int
}

func (l *countingListener) Wants() explorer.Events    { return l.want }
func (l *countingListener) StateStored(int32, uint64) { l.states++ }
func (l *countingListener) Transition(int32, vm.Trans, int32, int32, int32, bool) {
	l.trans++
}
func (l *countingListener) Backtracked(int32)            { l.backs++ }
func (l *countingListener) ErrorFound(*vm.Fault, uint64) { l.errs++ }
func (l *countingListener) EndState(uint64)              { l.ends++ }
func (l *countingListener) Progress(explorer.Stats)      { l.progress++ }

// TestListener_wants checks that a listener is given the events it wants
// and no others, as many as the search's figures say, and that a
// search with a listener of transitions (and so without the lookahead)
// reaches what one without does (TestLookahead_listeners checks that the
// lookahead is on where no listener wants transitions).
func TestListener_wants(t *testing.T) {
	md := suiteModels(t, "philo")[0]
	run := func(want explorer.Events, storage explorer.Storage) (*countingListener, *explorer.Result, *vm.Machine) {
		t.Helper()
		m, err := vm.New(md.prog, vm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		l := &countingListener{want: want}
		res := explorer.Search(m, explorer.Options{Continue: true, Storage: storage, Listeners: []explorer.Listener{l}})
		return l, res, m
	}
	all, res, _ := run(explorer.AllEvents, explorer.StorageExact)
	st := res.Stats
	if int64(all.states) != st.States || int64(all.trans) != st.Transitions || int64(all.errs) != st.Errors ||
		all.backs != all.states-all.errs {
		t.Errorf("all events: %+v; the search: %d states, %d transitions, %d errors", *all, st.States, st.Transitions, st.Errors)
	}
	some, _, _ := run(explorer.EventState|explorer.EventError, explorer.StorageExact)
	if some.states != all.states || some.errs != all.errs || some.trans+some.backs+some.ends+some.progress != 0 {
		t.Errorf("states and errors only: %+v", *some)
	}
	_, withTrans, _ := run(explorer.EventTransition, explorer.StorageHashCompact)
	_, without, _ := run(explorer.EventState, explorer.StorageHashCompact)
	if withTrans.Stats.States != without.Stats.States || withTrans.Stats.Transitions != without.Stats.Transitions {
		t.Errorf("hash compaction: %d states %d transitions with a listener of transitions, %d %d without",
			withTrans.Stats.States, withTrans.Stats.Transitions, without.Stats.States, without.Stats.Transitions)
	}
}
