// What the search asks of a partial-order reduction: persistent sets, dynamic races, dependence.

package explorer

import (
	"mcvm/vm"
)

// Reducer chooses persistent sets for partial-order reduction (package por
// implements it). Ample reorders trans, the enabled transitions of the
// machine's current state, so that a persistent set of transitions
// invisible to the properties comes first, and returns its length;
// len(trans) means the state is fully expanded. The search adds the cycle
// proviso.
type Reducer interface {
	Ample(m *vm.Machine, trans []vm.Trans) int
}

// Dynamic is a dynamic partial-order reduction (por.DPOR) for depth-first
// search: each state starts with a few transitions to explore, and the
// reduction adds more to the states on the stack (through the Scheduler it
// is given at the start) as it discovers races. Levels are DFS stack
// depths, 0 for the initial state.
type Dynamic interface {
	// Start is called once, before the search.
	Start(s Scheduler)
	// Enter is called for each state pushed at level, with its enabled
	// transitions in thread order, the first n of which Reducer chose (n =
	// len(trans) when it did not reduce). It may reorder trans and returns
	// how many of them (a prefix) to explore for now.
	Enter(m *vm.Machine, level int, trans []vm.Trans, n int) int
	// Before is called with the machine in level's state, just before
	// transition tr is taken from it.
	Before(m *vm.Machine, level int, tr vm.Trans)
	// After is called with the machine in the state tr led to (when it
	// did not fault): id is its id in the store (-1 with a lossy store,
	// for a revisit), isNew says it was not stored before, onStack that it
	// is on the DFS stack.
	After(m *vm.Machine, level int, id int32, isNew, onStack bool)
	// Leave is called when the search leaves the state at level, stored
	// as id, for good: all its transitions are explored.
	Leave(level int, id int32)
	// Asleep is called, with sleep sets, for the state just entered at
	// level (the machine holds it) with the threads asleep there: their
	// transitions will not be explored from it.
	Asleep(m *vm.Machine, level int, threads uint64)
}

// Scheduler lets a Dynamic reduction add transitions to the levels of the
// DFS stack. (An alias of an interface literal, so that package por can
// implement Dynamic without importing explorer.)
type Scheduler = interface {
	// Schedule adds thread's enabled transitions at level to those to explore.
	Schedule(level int, thread int32)
	// ScheduleAll makes level explore all its enabled transitions.
	ScheduleAll(level int)
}

// Sleeper decides when a transition stays asleep (Options.Sleep): whether
// the next transitions of two different threads, whose footprints
// (vm.Machine.NextFootprint) are a and b in the same state, may not
// commute. por.Reducer implements it.
type Sleeper interface {
	Dependent(a, b vm.Footprint) bool
}

// reduce applies the reducer to the transitions of the state just checked,
// s.trans[start:], and returns the end of the persistent set.
func (s *search) reduce(start int) int {
	n := PersistentSet(s.opts.Reducer, s.m, s.trans[start:])
	if n < len(s.trans)-start {
		s.stats.Reduced++
	}
	return start + n
}

// PersistentSet returns how many of a state's enabled transitions trans
// it must explore, first in trans as the reducer r orders them: r's
// persistent set (Reducer.Ample), or all of them without a reducer or
// with fewer than two. Both the search and a certifier of its script
// (package scc) decide by it.
func PersistentSet(r Reducer, m *vm.Machine, trans []vm.Trans) int {
	if r == nil || len(trans) < 2 {
		return len(trans)
	}
	return r.Ample(m, trans)
}

// Schedule implements Scheduler: thread's transitions at level join those
// to explore.
func (s *search) Schedule(level int, thread int32) {
	f := &s.stack[level]
	added := false
	for i := f.end; i < f.full; i++ {
		if s.trans[i].Thread == thread {
			s.trans[i], s.trans[f.end] = s.trans[f.end], s.trans[i]
			f.end++
			added = true
		}
	}
	if added {
		s.stats.Backtracks++
	}
}

// ScheduleAll implements Scheduler: level explores all its transitions.
func (s *search) ScheduleAll(level int) {
	f := &s.stack[level]
	if f.end < f.full {
		f.end = f.full
		s.stats.Backtracks++
	}
}
