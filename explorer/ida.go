// Iterative-deepening A*: depth-first iterations bounded by f = g + h.

package explorer

import (
	"math"

	"mcvm/vm"
)

// idaWalk is IDA* (Korf; Edelkamp et al. section 2): depth-first
// iterations of the skeleton (DepthFirst), each exploring the states
// whose f = g + h is at most a bound, the first the initial state's f and
// each next the least f the one before left out. It stores no states: a
// state on the current path is the only one known, so a transition that
// reaches one closes a cycle and is not followed, and memory is the
// path's (a snapshot and the transitions of each level). A state reached
// along many paths is explored along each: time is the price. An error
// counts in an iteration only within its bound, so that with an
// admissible heuristic the first error found has a shortest path.
type idaWalk struct {
	s      *search
	frames []frame // a level's path length g is its index
	snaps  []*vm.Snapshot
	onPath map[uint64]int32 // fingerprints of the states on the path
	bound  int32            // this iteration's bound on f, or -1 before the first
	least  int32            // the least f left out in this iteration
	fp     uint64           // the state the last Forward reached
	loaded int              // the level whose state the machine holds, or -1
}

// idaStar runs iterations until one finds an error, none left a state
// out, or a limit ends the search.
func (s *search) idaStar() {
	w := &idaWalk{s: s, onPath: make(map[uint64]int32), bound: -1}
	s.ida = w
	for {
		w.least = math.MaxInt32
		DepthFirst(w)
		s.stats.Iterations++
		for len(w.frames) > 0 {
			w.Pop()
		}
		if s.stop || s.fault != nil || s.limit != "" || w.least == math.MaxInt32 {
			return
		}
		w.bound = w.least
	}
}

// Begin implements Walker: it starts an iteration at the initial state.
func (w *idaWalk) Begin() bool {
	w.s.m.Init()
	w.s.trans = w.s.trans[:0]
	return w.enter(0, w.s.m.EncodeFingerprint())
}

// Next implements Walker.
func (w *idaWalk) Next() (vm.Trans, Move) {
	if len(w.frames) == 0 || w.s.tick() {
		return vm.Trans{}, Halt
	}
	top := &w.frames[len(w.frames)-1]
	if top.next == top.end {
		return vm.Trans{}, Leave
	}
	top.next++
	return w.s.trans[top.next-1], Take
}

// Forward implements Walker: the state reached is new unless it is on
// the path.
func (w *idaWalk) Forward(tr vm.Trans) (int32, bool, bool) {
	s, level := w.s, len(w.frames)-1
	top := &w.frames[level]
	if w.loaded != level {
		s.m.Restore(w.snaps[level])
		s.m.MarkInvariantsChecked() // checked when it was entered
	}
	w.loaded = -1
	if f := s.run(tr); f != nil {
		w.goal(f, int32(level+1))
		s.expandFully(top) // as in the depth-first search: the path ends here
		return 0, false, false
	}
	w.fp = s.m.EncodeFingerprint()
	return 0, w.onPath[w.fp] == 0, true
}

// Arrive implements Walker: the cycle provisos, on the path.
func (w *idaWalk) Arrive(_ int32, isNew bool) {
	if w.s.proviso == ProvisoStack && !isNew || w.s.proviso == ProvisoStatic && w.s.m.BackJump() {
		w.s.expandFully(&w.frames[len(w.frames)-1])
	}
}

// Enter implements Walker.
func (w *idaWalk) Enter(int32) { w.enter(int32(len(w.frames)), w.fp) }

// Revisit implements Walker.
func (w *idaWalk) Revisit(int32) { w.s.stats.Revisits++ }

// Pop implements Walker.
func (w *idaWalk) Pop() {
	s, level := w.s, len(w.frames)-1
	top := &w.frames[level]
	if w.onPath[top.fp]--; w.onPath[top.fp] == 0 {
		delete(w.onPath, top.fp)
	}
	s.m.Discard(w.snaps[level])
	s.trans = s.trans[:top.start]
	w.frames = w.frames[:level]
	if w.loaded >= level {
		w.loaded = -1
	}
}

// enter checks the state the machine holds, reached by a path of g
// transitions, with fingerprint fp, and pushes it if it is within the
// bound; it returns whether it did.
func (w *idaWalk) enter(g int32, fp uint64) bool {
	s := w.s
	start := len(s.trans)
	var f *vm.Fault
	s.trans, f, _ = CheckState(s.m, s.tune.SkipInvariants, s.trans)
	if f != nil {
		s.trans = s.trans[:start]
		if w.bound < 0 {
			w.bound = 0
		}
		w.goal(f, g)
		return false
	}
	// A state that is no error is at least one transition from one, as
	// A* counts it (prioQueue.push): the bound starts and grows closer
	// to the answer, and an admissible estimate stays admissible.
	h := max(s.estimate(), 1)
	if w.bound < 0 {
		w.bound = h
	}
	if g+h > w.bound || s.opts.MaxDepth > 0 && int(g) >= s.opts.MaxDepth {
		if g+h > w.bound {
			w.least = min(w.least, g+h)
		} else if len(s.trans) > start {
			s.limit = "depth"
		}
		s.trans = s.trans[:start]
		return false
	}
	end := s.reduce(start)
	if s.opts.Symmetry && len(s.trans)-start > 1 {
		end = s.dropTwins(start, end)
	}
	level := len(w.frames)
	for len(w.snaps) <= level {
		w.snaps = append(w.snaps, new(vm.Snapshot))
	}
	var parent *vm.Snapshot
	if level > 0 {
		parent = w.snaps[level-1]
	}
	s.m.Save(w.snaps[level], parent)
	w.frames = append(w.frames, frame{start: int32(start), end: int32(end), full: int32(len(s.trans)), next: int32(start), fp: fp, deep: -1})
	w.onPath[fp]++
	w.loaded = level
	if s.stats.Expanded++; s.opts.MaxStates > 0 && s.stats.Expanded >= int64(s.opts.MaxStates) {
		s.limit, s.stop = "states", true // (MaxStates bounds the states IDA expands)
	}
	s.stats.States = max(s.stats.States, int64(level+1))
	s.stats.MaxDepth = max(s.stats.MaxDepth, level)
	return true
}

// goal notes error f at the end of a path of g transitions: the
// search's error if it is within the bound, else a state left out.
func (w *idaWalk) goal(f *vm.Fault, g int32) {
	if g > w.bound {
		w.least = min(w.least, g)
		return
	}
	w.s.record(f, -1, nil)
}

// path is the path to the state the machine holds: each level's
// transition taken last.
func (w *idaWalk) path() []vm.Trans {
	p := make([]vm.Trans, 0, len(w.frames))
	for _, f := range w.frames {
		p = append(p, w.s.trans[f.next-1])
	}
	return p
}
