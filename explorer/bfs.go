// Breadth-first search: states expanded in the order the frontier gives them.

package explorer

import "mcvm/vm"

// bfs expands the states its frontier (a first-in, first-out queue) gives
// back: each state's transitions are executed from it, and the states
// they reach that are new are checked and, unless an error or MaxDepth
// stops them, pushed. Each state keeps its parent and the transition from
// it, so the path to an error is found without a stack.
func (s *search) bfs() {
	id, _ := s.visit()
	s.parent, s.via, s.depth = append(s.parent, -1), append(s.via, vm.Trans{}), append(s.depth, 0)
	enc := s.lossyEncoding()
	if s.check(id) {
		s.frontier.push(id, enc)
	}
	s.loaded = id
	for {
		cur, enc, ok := s.frontier.pop()
		if !ok || !s.expandState(cur, enc) {
			return
		}
	}
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
	if s.loaded != cur {
		if enc != nil {
			s.m.Decode(enc)
		} else {
			s.m.Decode(s.exact.Get(cur))
		}
		s.m.MarkInvariantsChecked() // a state to expand was checked when new
		s.loaded = cur
	}
	s.level = s.m.Enabled(s.level[:0])
	if len(s.level) > 1 {
		s.m.Save(&s.bsnap, nil)
	}
	end := len(s.level)
	s.sticky = false
	s.faulted = false
	if s.opts.Reducer != nil && end > 1 {
		end = s.opts.Reducer.Ample(s.m, s.level)
		if end < len(s.level) {
			s.stats.Reduced++
		}
	}
	anyNew := false
	for i := 0; i < len(s.level); i++ {
		if i == end {
			// The cycle proviso: a reduced state whose persistent set
			// led to no new state (duplicate), or took a sticky
			// transition (static), is expanded fully.
			if !s.faulted && (anyNew && s.proviso != ProvisoStatic || s.proviso == ProvisoStatic && !s.sticky) {
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
	ok := s.check(nid)
	if ok && s.opts.MaxDepth > 0 && int(d) >= s.opts.MaxDepth {
		if len(s.trans) > 0 {
			s.limit = "depth"
		}
		ok = false
	}
	if ok {
		s.frontier.push(nid, enc)
	}
}
