// StackSet: which states are on a depth-first stack, for the stack proviso.

package explorer

import "mcvm/vm"

// StackSet is the set of state ids on a depth-first search stack, which
// the stack proviso asks about (a transition that reaches a state on the
// stack closes a cycle). Ids below a bound are bits of a slice; the rest,
// which an untrusted script may name (package scc), are kept in a map, so
// that a large id costs no large allocation. The zero value is empty,
// with every id kept in the map; NewStackSet sets the bound.
type StackSet struct {
	dense int32
	bits  []uint64
	far   map[int32]bool
}

// NewStackSet returns an empty set whose ids below dense are bits.
func NewStackSet(dense int32) StackSet { return StackSet{dense: dense} }

// Set puts id on the stack (on) or takes it off. Negative ids are ignored.
func (s *StackSet) Set(id int32, on bool) {
	if id < 0 {
		return
	}
	if id >= s.dense {
		if s.far == nil {
			s.far = make(map[int32]bool)
		}
		if on {
			s.far[id] = true
		} else {
			delete(s.far, id)
		}
		return
	}
	w := int(id >> 6)
	for len(s.bits) <= w {
		s.bits = append(s.bits, 0)
	}
	if on {
		s.bits[w] |= 1 << (id & 63)
	} else {
		s.bits[w] &^= 1 << (id & 63)
	}
}

// Has reports whether id is on the stack.
func (s *StackSet) Has(id int32) bool {
	if id >= s.dense {
		return s.far[id]
	}
	w := int(id >> 6)
	return id >= 0 && w < len(s.bits) && s.bits[w]&(1<<(id&63)) != 0
}

// DeadlockFault returns the fault reported for a state where no thread can
// run while some started thread has not ended: the search and the
// certifier of its script (package scc) report the same.
func DeadlockFault() *vm.Fault {
	return &vm.Fault{Kind: vm.FaultDeadlock, Thread: -1, Method: -1, PC: -1, Class: -1, Msg: "deadlock: no thread can run"}
}
