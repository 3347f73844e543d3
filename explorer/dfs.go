// Depth-first search: the loop, its frames, entering and leaving states.

package explorer

import (
	"math/rand/v2"

	"mcvm/vm"
)

// load makes f's state the machine's, unless it is loaded already.
func (s *search) load(f *frame) {
	if s.loaded == f.id {
		return
	}
	switch {
	case f.snap:
		s.m.Restore(s.snaps[len(s.stack)-1])
	case f.deep >= 0:
		s.m.Decode(s.deep[f.deep:])
	default:
		s.m.Decode(s.exact.Get(f.id))
		if s.window > 0 && f.snapped {
			s.stats.Decoded++
			// An evicted level (see evict): every level below it is
			// evicted too, so no delta is kept below it.
			s.m.ForgetShadow()
			if f.next < f.end {
				s.resave(len(s.stack) - 1)
			}
		}
	}
	s.m.MarkInvariantsChecked() // a state on the stack was checked when new
	s.loaded = f.id
}

// checkNew counts the depth of new state nid, reached from the top of the
// DFS stack, and checks it (see check); it returns where its transitions
// start in s.trans and whether to explore them (if not, they are dropped).
func (s *search) checkNew(nid int32) (int32, bool) {
	if depth := len(s.stack); depth > s.stats.MaxDepth {
		s.stats.MaxDepth = depth
		s.reserveDepth()
	}
	start := int32(len(s.trans))
	if !s.check(nid) {
		s.trans = s.trans[:start]
		return start, false
	}
	return start, true
}

// frame is a DFS level. (Fields are ordered so that the struct packs into
// 56 bytes: one per level of stacks millions of levels deep; what only
// sleep sets need is in a sleepFrame.)
type frame struct {
	deep int64 // lossy store, no snapshot: the state's encoding is s.deep[deep:], or -1
	// fp is the state's fingerprint, for the stack proviso with a lossy
	// store and dynamic reduction; with lookahead (which neither uses),
	// the fingerprint of the state the transition at next leads to, if
	// ain >= 0.
	fp uint64
	// again: a frame that explores woken transitions of a state whose own
	// frame is below it on the stack (it leaves the state marked as on the
	// stack). With sleep sets, curTaint says the subtree of the transition
	// being explored may hold a state not expanded, and taint says this
	// state's subtree may hold one (see Options.Sleep).
	parentSnap      int32 // the nearest level below whose snapshot is set, or -1
	id              int32
	start, end      int32 // the transitions to explore: s.trans[start:end]
	full            int32 // all its enabled transitions: s.trans[start:full]
	next            int32
	cs              int32 // with Options.Chain: its current transition's chained ones are s.chain[cs:] (up to the next frame's cs)
	snap            bool  // snaps[level] holds this state
	snapped         bool  // it did once (then it was evicted if it no longer does)
	anyNew          bool  // some transition explored so far reached a new state
	curTaint, taint bool
	again           bool
	looked          bool // it looks ahead (see search.lookahead)
	// ain is the instructions of the transition at next, looked ahead at,
	// or -1 (see search.lookahead).
	ain int32
}

// push makes the state just checked, whose transitions are s.trans[start:],
// the top of the DFS stack, with sleep set z.
func (s *search) push(id int32, start int, z uint64) {
	if s.collecting {
		s.stats.Freed += int64(s.m.CollectGarbage())
	}
	end := s.reduce(start)
	if s.opts.Symmetry && len(s.trans)-start > 1 {
		end = s.dropTwins(start, end)
	}
	if d := s.opts.Dynamic; d != nil {
		n := end - start
		if z != 0 && n == len(s.trans)-start {
			// A thread that is awake first: the dynamic reduction starts
			// with the first thread's transitions.
			s.partition(start, z, false)
		}
		end = start + d.Enter(s.m, len(s.stack), s.trans[start:], n)
		if n == len(s.trans)-start && end < len(s.trans) {
			s.stats.Reduced++
		}
		if z != 0 {
			d.Asleep(s.m, len(s.stack), z)
		}
	}
	s.shuffleRange(start, end)
	s.shuffleRange(end, len(s.trans))
	s.loaded = id
	s.stack = append(s.stack, frame{id: id, start: int32(start), end: int32(end), full: int32(len(s.trans)), next: int32(start), deep: -1, fp: s.lastFP, cs: int32(len(s.chain))})
	s.top = &s.stack[len(s.stack)-1]
	if s.sl.on {
		s.sl.frames = append(s.sl.frames, sleepFrame{sleep: z, cur: -1})
	}
	if s.tracking {
		s.setOnStack(id, s.lastFP, true)
		if s.cache != nil {
			s.cache.pushed(id)
		}
	}
	s.snapshot()
	if top := s.top; s.pf != nil {
		// Its first transition's lookahead (see ahead.go).
		top.looked, top.ain = top.snap, -1
		if top.snap && top.start < top.end {
			s.lookahead(top, top.start)
		}
	}
}

// Walker is what the depth-first skeleton (DepthFirst) drives: a state
// space walked from one stack of states, whose successor source answers
// which transition to take next and which state it reaches. The search
// walks one with the machine and the visited store as its source; the
// certifier of a search script (package scc) walks one with the machine
// and the script, which says which transition to take and names the
// state reached. Each keeps its features in these steps, and the rules
// they share (reductions, provisos, chains, twins, checks) in the parts
// of this package they call.
type Walker interface {
	// Begin enters the initial state; it returns false if there is
	// nothing to explore.
	Begin() bool
	// Next says what to do next in the state on top of the stack: take
	// the transition it returns, leave the state (Pop), or stop (also
	// when the stack is empty).
	Next() (vm.Trans, Move)
	// Forward takes tr from the top state and returns the state it
	// reaches and whether that is new; ok is false when the path ends
	// there (the transition faulted, or was not taken).
	Forward(tr vm.Trans) (to int32, isNew, ok bool)
	// Arrive applies, to the top state, what reaching state to tells
	// (the provisos).
	Arrive(to int32, isNew bool)
	// Enter checks new state to, which the machine holds, and pushes it
	// unless it is not to be expanded.
	Enter(to int32)
	// Revisit handles a transition that reached a state seen before.
	Revisit(to int32)
	// Pop leaves the top state for good.
	Pop()
}

// Move is a Walker's next step.
type Move uint8

const (
	Take  Move = iota // take the transition returned
	Leave             // leave the top state
	Halt              // stop the walk
)

// DepthFirst is the depth-first search, in the manner of JPF's
// DFSearch: take the next transition of the state on top of the stack
// and follow it; enter the state it reaches if that is new, and leave the
// top state when it has no transition left to explore.
func DepthFirst(w Walker) {
	if w.Begin() {
		walkDown(w)
	}
}

// walkDown is DepthFirst's loop, from the stack w has.
func walkDown(w Walker) {
	for {
		tr, mv := w.Next()
		switch mv {
		case Halt:
			return
		case Leave:
			w.Pop()
			continue
		}
		to, isNew, ok := w.Forward(tr)
		if !ok {
			continue
		}
		w.Arrive(to, isNew)
		if isNew {
			w.Enter(to)
		} else {
			w.Revisit(to)
		}
	}
}

// The search as a Walker: Next settles sleep sets and applies the
// duplicate proviso (hasNext), Forward executes a transition and runs the
// chain it begins (forward) or takes the successor looked ahead at
// (ahead.go, the hot path of the lossy stores' unreduced search), Arrive
// applies the other provisos and tells the dynamic reduction, Enter
// checks a new state and pushes it, Revisit wakes what sleep sets left
// asleep, Pop backtracks.

// Next implements Walker.
func (s *search) Next() (vm.Trans, Move) {
	top := s.top
	if top == nil || s.tick() {
		return vm.Trans{}, Halt
	}
	if (top.next == top.end || s.sl.on) && !s.hasNext(top) {
		return vm.Trans{}, Leave
	}
	tr := s.trans[top.next]
	top.next++
	return tr, Take
}

// Forward implements Walker.
func (s *search) Forward(tr vm.Trans) (int32, bool, bool) {
	top := s.top
	if top.looked {
		// The successor's fingerprint, looked ahead at (ahead.go).
		if fp, instr := s.takeAhead(top); instr >= 0 {
			s.z = 0
			nid, isNew := s.visitAhead(top, tr, fp, instr)
			s.transition(top.id, tr, nid, isNew)
			return nid, isNew, true
		}
	}
	nid, isNew, ok := s.forward(top, tr)
	if ok {
		s.transition(top.id, tr, nid, isNew)
	}
	return nid, isNew, ok
}

// Arrive implements Walker.
func (s *search) Arrive(to int32, isNew bool) {
	if top := s.top; top.end < top.full || s.opts.Dynamic != nil {
		s.arrive(top, to, isNew)
	}
}

// Enter implements Walker.
func (s *search) Enter(to int32) {
	s.top.anyNew = true
	s.enter(to)
}

// Revisit implements Walker.
func (s *search) Revisit(to int32) {
	s.stats.Revisits++
	if s.sl.on {
		s.revisit(to)
	}
}

// Pop implements Walker.
func (s *search) Pop() { s.pop(s.top) }

// Begin implements Walker: it visits and checks the initial state and
// pushes it.
func (s *search) Begin() bool {
	if s.opts.Shuffle != 0 {
		s.rng = rand.New(rand.NewPCG(s.opts.Shuffle, 0x6d637673))
	}
	if s.opts.Dynamic != nil {
		s.opts.Dynamic.Start(s)
	}
	id, _ := s.visit()
	if s.sl.on {
		s.setSleep(id, 0)
	}
	if !s.check(id) {
		return false
	}
	s.push(id, 0, 0)
	return true
}

// hasNext reports whether top has a transition left to explore. With
// sleep sets it first settles the transition explored last; with the
// duplicate proviso, a reduced state none of whose transitions reached a
// new state explores the rest.
func (s *search) hasNext(top *frame) bool {
	if s.sl.on {
		if sf := &s.sl.frames[len(s.sl.frames)-1]; sf.cur >= 0 {
			s.settle(top, sf)
		}
	}
	if top.next == top.end && top.end < top.full && s.proviso == ProvisoDuplicate && !top.anyNew {
		s.expandFully(top)
	}
	return top.next < top.end
}

// pop leaves top, the top of the stack, for good.
func (s *search) pop(top *frame) {
	for _, l := range s.lis.Backtrack {
		l.Backtracked(top.id)
	}
	if s.tracking {
		if !top.again {
			s.setOnStack(top.id, top.fp, false)
		}
		if s.cache != nil {
			s.cache.popped(top.id)
		}
	}
	if s.opts.Dynamic != nil {
		s.opts.Dynamic.Leave(len(s.stack)-1, top.id)
	}
	if top.taint {
		s.sl.of[top.id] |= taintBit
		if len(s.stack) > 1 {
			s.stack[len(s.stack)-2].curTaint = true
		}
	}
	if top.deep >= 0 {
		s.deep = s.deep[:top.deep]
	}
	s.trans = s.trans[:top.start]
	if l := len(s.stack) - 1; l < len(s.snaps) && s.snaps[l] != nil {
		s.m.Discard(s.snaps[l])
	}
	s.stack = s.stack[:len(s.stack)-1]
	s.top = nil
	if len(s.stack) > 0 {
		s.top = &s.stack[len(s.stack)-1]
	}
	if s.sl.on {
		s.sl.frames = s.sl.frames[:len(s.sl.frames)-1]
	}
	if s.window > 0 {
		s.low = min(s.low, len(s.stack))
		s.unsnap(len(s.stack))
	}
	if s.pf != nil && len(s.stack) > 0 {
		// Back from a subtree: the lookahead's slot again.
		s.prefetchAhead(s.top)
	}
}

// forward takes transition tr from top's state and stores the state it
// reaches (after the chain it begins, with chains): it returns its id and
// whether it is new, or ok false when there is no state to go on with
// (the transition slept, faulted, or its chain ended in a violation). With
// sleep sets it leaves the sleep set of the state reached in s.z.
func (s *search) forward(top *frame, tr vm.Trans) (nid int32, isNew, ok bool) {
	s.z = 0
	var sf *sleepFrame // with sleep sets, top's
	if s.sl.on {
		sf = &s.sl.frames[len(s.sl.frames)-1]
		if sf.sleep&threadBit(tr.Thread) != 0 && top.end == top.full {
			// Only a fully expanded state leaves out sleeping threads: a
			// reduced one explores all it was reduced to, so that a cycle
			// it lies on is seen by the stack proviso (a persistent set all
			// asleep would otherwise hide the cycle, and with it the
			// transitions the proviso must add). The same holds for the
			// dynamic reduction's states (leaving sleepers out of those
			// lost an assertion on a program with exception handlers,
			// por/testdata/gen_handlers_351.mcasm).
			s.stats.Slept++
			return 0, false, false
		}
	}
	s.load(top)
	s.chain = s.chain[:top.cs]
	if s.opts.Dynamic != nil {
		s.opts.Dynamic.Before(s.m, len(s.stack)-1, tr)
	}
	var fc vm.Footprint
	nt := 0
	if sf != nil {
		sf.cur = tr.Thread
		s.z = (sf.sleep | sf.done) &^ threadBit(tr.Thread)
		if s.z != 0 {
			s.sleepers(s.z)
			fc = s.m.NextFootprint(tr.Thread)
		}
		nt = s.m.NumThreads()
	}
	f := s.step(top.id, tr)
	if f != nil {
		s.transition(top.id, tr, -1, false)
		s.record(f, -1, nil)
		if top.end < top.full {
			// The path ends here: the other threads' transitions,
			// independent of this one, would never be taken after it,
			// and a reduced state would lose everything they reach
			// (their own errors, end states) without it. The state is
			// expanded fully (this is also what dynamic reduction
			// needs: the races of the other threads never show).
			s.expandFully(top)
		}
		return 0, false, false
	}
	if s.z != 0 {
		s.z = s.stillAsleep(s.z, fc, nt)
	}
	if s.chaining && !s.chainOn(top, tr) {
		return 0, false, false
	}
	nid, isNew = s.visit()
	return nid, isNew, true
}

// chainOn runs the chain that tr, just taken from top's state, begins
// (see runChain); it returns false when the chain leaves no state to go
// on with.
func (s *search) chainOn(top *frame, tr vm.Trans) bool {
	f, reduced, slept := s.runChain(&s.z)
	switch {
	case slept:
		return false
	case f == errChainInvariant:
		// A state of the chain violates an invariant: tr leads to no
		// stored state, as if it faulted.
		s.transition(top.id, tr, -1, false)
		s.taint()
		return false
	case f != nil:
		s.transition(top.id, tr, -1, false)
		s.record(f, -1, nil)
		if reduced && !s.stop {
			s.taint()
			s.materialise(tr)
		}
		return false
	}
	return true
}

// arrive tells the dynamic reduction that the transition taken from top
// reached state nid, and applies the cycle proviso to top.
func (s *search) arrive(top *frame, nid int32, isNew bool) {
	if s.opts.Dynamic != nil {
		s.opts.Dynamic.After(s.m, len(s.stack)-1, nid, isNew, !isNew && s.isOnStack(nid))
	}
	if top.end < top.full {
		switch s.proviso {
		case ProvisoStack:
			if !isNew && s.isOnStack(nid) {
				s.expandFully(top)
			}
		case ProvisoStatic:
			if s.m.BackJump() {
				s.expandFully(top)
			}
		}
	}
}

// revisit handles, with sleep sets, a transition that reached state nid,
// stored before: it explores what was asleep there and is awake now.
func (s *search) revisit(nid int32) {
	if s.sl.of[nid]&taintBit != 0 || s.isOnStack(nid) {
		// What it leads to may hold a state not expanded (one on the
		// stack: not known yet).
		s.taint()
	}
	s.wake(nid, s.z)
}

// enter checks new state nid, which the machine holds, and pushes it
// unless it is not to be expanded (an error state, or one at MaxDepth).
func (s *search) enter(nid int32) {
	if s.sl.on {
		s.setSleep(nid, taintBit) // an error state is not expanded, now or later
	}
	start, ok := s.checkNew(nid)
	if !ok {
		s.taint()
		return
	}
	if depth := len(s.stack); s.opts.MaxDepth > 0 && depth >= s.opts.MaxDepth {
		if len(s.trans) > int(start) {
			s.limit = "depth"
		}
		s.trans = s.trans[:start]
		return
	}
	if s.sl.on {
		s.setSleep(nid, s.z)
	}
	if s.share != nil && s.share.hungry.Load() && len(s.trans) > int(start) {
		// A worker of a parallel search waits for work: this state is
		// its (see pdfs.go).
		s.share.give(s.encoding())
		s.trans = s.trans[:start]
		return
	}
	s.push(nid, int(start), s.z)
}

// reserveDepth, at each new greatest depth, doubles the stack's and the
// transitions' arrays when they are nearly full. append alone grows a
// large array by a quarter, so a search that goes hundreds of thousands
// of levels deep (a model whose runs are long cycles) would copy each
// array about five times over, and as often make and clear a new one.
func (s *search) reserveDepth() {
	if len(s.stack) == cap(s.stack) && len(s.stack) > 0 {
		s.stack = growHuge(s.stack, len(s.stack)+1)
		s.top = &s.stack[len(s.stack)-1]
	}
	if cap(s.trans)-len(s.trans) < 256 {
		s.trans = growHuge(s.trans, len(s.trans)+256) // (to twice the length)
	}
}
