// Thread symmetry in the search: the transitions of twin threads left out.

package explorer

import (
	"mcvm/vm"
)

// dropTwins, with Options.Symmetry, removes from s.trans[start:] the
// transitions symmetry reduction leaves out (DropTwins); the transitions
// to explore, s.trans[start:end], stay first. It returns their new end.
func (s *search) dropTwins(start, end int) int {
	var n, e int
	n, e, s.twins, s.keep = DropTwins(s.m, s.trans[start:], end-start, s.twins, s.keep)
	s.stats.Twins += int64(len(s.trans) - start - n)
	s.trans = s.trans[:start+n]
	return start + e
}

// DropTwins removes from a state's enabled transitions trans, the
// persistent set trans[:end] first, those of threads that are twins of an
// earlier thread (vm.Machine.Twins: renaming the two leaves the state as
// it is, so what the twin's transitions lead to is a renaming of what the
// earlier thread's same transitions lead to), and the choices of a notify
// that wake a twin of a waiter an earlier choice wakes (see KeptByTwins).
// The others stay in order: trans[:n], the persistent set trans[:newEnd]
// first. One in the persistent set is dropped only for a twin's in it (a
// persistent set that held a thread's transitions but not its twin's
// keeps them). Threads from 64 on are never dropped. Both the search and
// a certifier of its script (package scc) decide by it. twins and keep
// are scratch, returned grown.
func DropTwins(m *vm.Machine, trans []vm.Trans, end int, twins []int32, keep []bool) (n, newEnd int, _ []int32, _ []bool) {
	twins, keep = KeptByTwins(m, trans, end, twins, keep)
	newEnd = end
	for i := range trans {
		if i == end {
			newEnd = n
		}
		if keep[i] {
			trans[n] = trans[i]
			n++
		}
	}
	if end == len(trans) {
		newEnd = n
	}
	return n, newEnd, twins, keep
}

// KeptByTwins says which of a state's enabled transitions trans, the
// persistent set trans[:end] first, thread symmetry reduction explores
// (Options.Symmetry): keep[i] is false for a transition of a thread whose
// twin (vm.Machine.Twins, the lowest of its class) has transitions too,
// within the persistent set for one in it, and for a notify whose waiter
// is a twin of one an earlier choice of the same thread wakes. Both the
// search and a certifier of its script (package scc) decide by it. twins
// and keep are scratch, returned grown.
func KeptByTwins(m *vm.Machine, trans []vm.Trans, end int, twins []int32, keep []bool) ([]int32, []bool) {
	twins = m.Twins(twins)
	keep = keep[:0]
	var inSet, inAll uint64 // the threads with transitions in trans[:end], trans
	for i, tr := range trans {
		if t := tr.Thread; t < 64 {
			inAll |= 1 << t
			if i < end {
				inSet |= 1 << t
			}
		}
	}
	cur, woken := int32(-1), uint64(0) // the twin classes the current thread's choices wake
	for i, tr := range trans {
		if i == end {
			cur = -1
		}
		have := inAll
		if i < end {
			have = inSet
		}
		if r := twins[tr.Thread]; r != tr.Thread && tr.Thread < 64 && have&(1<<r) != 0 {
			keep = append(keep, false)
			continue
		}
		if tr.Thread != cur {
			cur, woken = tr.Thread, 0
		}
		if w := m.Woken(tr); w >= 0 && twins[w] < 64 {
			// A notify choosing among waiters: waking a twin of a waiter
			// an earlier choice wakes leads to a renaming of its state.
			b := uint64(1) << twins[w]
			if woken&b != 0 {
				keep = append(keep, false)
				continue
			}
			woken |= b
		}
		keep = append(keep, true)
	}
	return twins, keep
}
