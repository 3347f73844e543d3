// Breadth-first search.

package explorer

import (
	"mcvm/vm"
)

func (s *search) bfs() {
	id, _ := s.visit()
	if s.exact == nil {
		s.queue.push(s.encoding())
	}
	s.parent, s.via, s.depth = append(s.parent, -1), append(s.via, vm.Trans{}), append(s.depth, 0)
	s.expand = append(s.expand, s.check(id))
	s.loaded = id
	for cur := int32(0); int(cur) < s.store.size(); cur++ {
		if !s.expand[cur] {
			continue
		}
		if s.loaded != cur {
			if s.exact != nil {
				s.m.Decode(s.exact.Get(cur))
			} else {
				s.m.Decode(s.queue.get(cur))
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
				return
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
			if s.exact == nil {
				s.queue.push(s.encoding())
			}
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
			s.expand = append(s.expand, ok)
		}
	}
}
