// Searches that expand states in the order a frontier gives them back:
// breadth-first, best-first and A*.

package explorer

import "mcvm/vm"

// expandAll expands the states its frontier gives back (breadth-first:
// a first-in, first-out queue; best-first and A*: a priority queue by the
// heuristic): each state's transitions are executed from it, and the
// states they reach that are new are checked and, unless an error or
// MaxDepth stops them, pushed. Each state keeps its parent and the
// transition from it, so the path to an error is found without a stack.
//
// A* stops at an error only once no state in the frontier can lead to a
// shorter path to one: the frontier's least f (path length plus
// estimate) is at least the error's path length. With an admissible
// heuristic (one that never overestimates) the path is then a shortest
// one, although the search finds errors when it generates states, not
// when it expands them. An error one transition beyond the state being
// expanded ends the search at once: that state had the least f, at least
// its path length plus 1 (prioQueue), so no state in the frontier, nor
// one it adds, is nearer an error.
func (s *search) expandAll() {
	id, _ := s.visit()
	s.parent, s.via, s.depth = append(s.parent, -1), append(s.via, vm.Trans{}), append(s.depth, 0)
	s.goalID = -1
	enc := s.lossyEncoding()
	if s.check(id) {
		s.open(id, enc)
	} else if s.prio != nil {
		s.hval = append(s.hval, -1)
	}
	s.loaded = id
	for {
		if s.opts.Order == AStar && s.fault != nil && !s.opts.Continue && s.prio.least() >= int64(s.goal) {
			return
		}
		cur, enc, ok := s.frontier.pop()
		if !ok || !s.expandState(cur, enc) {
			return
		}
	}
}

// open puts state id, just checked and to be expanded, into the
// frontier; with a heuristic it estimates the state's distance to an
// error first (the machine holds the state, s.trans its enabled
// transitions).
func (s *search) open(id int32, enc []byte) {
	var h int32
	if s.prio != nil {
		h = s.estimate()
		s.hval = append(s.hval, h)
	}
	s.frontier.push(id, enc, s.depth[id], h)
}

// estimate is the heuristic's estimate for the state the machine holds,
// whose enabled transitions are s.trans.
func (s *search) estimate() int32 {
	if s.opts.Heuristic == nil {
		return 0
	}
	return max(s.opts.Heuristic.Estimate(s.m, s.trans), 0)
}

// reopen notes, for A*, that stored state id was reached from cur by tr
// by a path shorter than the one it was stored with: its parent becomes
// cur, and it is expanded again (an error state is not: the error's path
// becomes the shorter one, if it is A*'s). The machine holds the state.
func (s *search) reopen(cur int32, tr vm.Trans, id int32) {
	d := s.depth[cur] + 1
	s.parent[id], s.via[id], s.depth[id] = cur, tr, d
	if s.hval[id] >= 0 {
		if s.opts.MaxDepth == 0 || int(d) < s.opts.MaxDepth {
			s.stats.Reopened++
			s.frontier.push(id, nil, d, s.hval[id])
		}
		return
	}
	switch {
	case s.goalID == id:
		s.goal, s.path = d, s.pathTo(id, nil)
	case s.fault != nil && d < s.goal:
		// The error of another state, now the shortest: check it again
		// for its fault (the machine holds it; it is not counted again).
		var f *vm.Fault
		s.tmp, f, _ = CheckState(s.m, s.tune.SkipInvariants, s.tmp[:0])
		if f != nil && (s.opts.Goal == nil || s.opts.Goal(f, s.enc)) {
			s.keepShorter(f, id, nil)
		}
	}
}

// keepShorter keeps, for A*, error f at the end of the path to state id
// (then transition last, if not nil) as the search's error if none is
// kept yet or its path is shorter than the one kept.
func (s *search) keepShorter(f *vm.Fault, id int32, last *vm.Trans) {
	d := s.depth[id]
	if last != nil {
		d++
	}
	if s.fault != nil && d >= s.goal {
		return
	}
	c := *f
	s.fault, s.goal, s.goalID = &c, d, id
	if last != nil {
		s.goalID = -1
	}
	s.path = s.pathTo(id, last)
}

// lossyEncoding returns the encoding of the state visited last for the
// frontier where the store keeps none, or nil.
func (s *search) lossyEncoding() []byte {
	if s.exact != nil {
		return nil
	}
	return s.encoding()
}

// expandState executes the transitions of state cur (enc is its encoding
// where the store keeps none) that the reduction and the cycle proviso
// ask for; it returns false when the search must stop.
func (s *search) expandState(cur int32, enc []byte) bool {
	s.stats.Expanded++
	s.expanding = cur
	if s.loaded != cur {
		if enc == nil {
			enc = s.exact.Get(cur)
		}
		s.m.Decode(enc)
		// Encoding the state again makes it the incremental encoder's
		// base (a decoded state is none), so that each successor's
		// encoding writes only what its transition changed.
		s.base = s.m.Encode(s.base[:0])
		s.m.MarkInvariantsChecked() // a state to expand was checked when new
		s.loaded = cur
	}
	s.level = s.m.Enabled(s.level[:0])
	if len(s.level) > 1 {
		s.m.Save(&s.bsnap, nil)
	}
	end := PersistentSet(s.opts.Reducer, s.m, s.level)
	if end < len(s.level) {
		s.stats.Reduced++
	}
	s.sticky = false
	s.faulted = false
	anyNew := false
	for i := 0; i < len(s.level); i++ {
		if s.opts.Order == AStar && s.fault != nil && !s.opts.Continue && s.goal <= s.depth[cur]+1 {
			return false // (see expandAll)
		}
		if i == end {
			if !expandsRest(s.proviso, s.faulted, s.sticky, anyNew) {
				break
			}
			s.stats.Provisos++
		}
		if s.tick() {
			return false
		}
		if s.loaded != cur {
			s.m.Restore(&s.bsnap)
			s.m.MarkInvariantsChecked()
			s.loaded = cur
		}
		tr := s.level[i]
		if f := s.step(cur, tr); f != nil {
			s.transition(cur, tr, -1, false)
			s.record(f, cur, &tr)
			if i < end {
				s.faulted = true // see the depth-first search
			}
			continue
		}
		nid, isNew := s.visit()
		s.transition(cur, tr, nid, isNew)
		if i < end && s.m.BackJump() {
			s.sticky = true
		}
		if !isNew {
			s.stats.Revisits++
			if s.opts.Order == AStar && s.depth[cur]+1 < s.depth[nid] {
				s.reopen(cur, tr, nid)
			}
			continue
		}
		anyNew = true
		s.reached(cur, tr, nid)
	}
	return true
}

// reached notes new state nid, reached from cur by tr, which the machine
// holds: its parent, depth and check, and its place in the frontier.
func (s *search) reached(cur int32, tr vm.Trans, nid int32) {
	enc := s.lossyEncoding()
	d := s.depth[cur] + 1
	s.parent, s.via, s.depth = append(s.parent, cur), append(s.via, tr), append(s.depth, d)
	if int(d) > s.stats.MaxDepth {
		s.stats.MaxDepth = int(d)
	}
	s.trans = s.trans[:0]
	if !s.check(nid) {
		if s.prio != nil {
			s.hval = append(s.hval, -1) // an error state: never expanded
		}
		return
	}
	if s.opts.MaxDepth > 0 && int(d) >= s.opts.MaxDepth {
		if len(s.trans) > 0 {
			s.limit = "depth"
		}
		if s.prio != nil {
			s.hval = append(s.hval, s.estimate()) // expanded if A* reopens it closer
		}
		return
	}
	s.open(nid, enc)
}
