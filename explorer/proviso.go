// The cycle proviso of partial-order reduction and the states on the depth-first stack.

package explorer

// Proviso is the cycle condition that keeps partial-order reduction from
// ignoring a transition forever around a cycle (Edelkamp, Lafuente and
// Leue, section 4.1).
type Proviso uint8

// Provisos.
const (
	// ProvisoAuto: ProvisoStack for depth-first search, ProvisoDuplicate
	// otherwise.
	ProvisoAuto Proviso = iota
	// ProvisoStack (C3 stack, depth-first only): a state is fully expanded
	// when one of its reduced transitions leads to a state on the stack.
	ProvisoStack
	// ProvisoDuplicate (C3 duplicate minus, any order): a state is fully
	// expanded when none of its reduced transitions leads to a new state.
	ProvisoDuplicate
	// ProvisoStatic (C3 static, any order): a state is fully expanded when
	// one of its reduced transitions is sticky: it jumps backwards in the
	// code, which every cycle of the state graph does (vm.Machine.BackJump).
	ProvisoStatic
)

var provisoNames = [...]string{"auto", "stack", "duplicate", "static"}

func (p Proviso) String() string { return provisoNames[p] }

// ParseProviso parses a --proviso value.
func ParseProviso(s string) (Proviso, bool) {
	for i, n := range provisoNames {
		if n == s {
			return Proviso(i), true
		}
	}
	return 0, false
}

// Resolve returns the proviso a search in order o uses for p.
func (p Proviso) Resolve(o Order) Proviso {
	if p != ProvisoAuto {
		return p
	}
	if o == DFS || o == IDA {
		return ProvisoStack
	}
	return ProvisoDuplicate
}

func (s *search) setOnStack(id int32, fp uint64, on bool) {
	if (s.proviso != ProvisoStack || s.opts.Reducer == nil) && s.opts.Dynamic == nil {
		return
	}
	if s.exact == nil {
		// A lossy store does not give a revisited state's id: keep the
		// stack's fingerprints (a state can be on the stack only once).
		if s.stackFP == nil {
			s.stackFP = map[uint64]int32{}
		}
		if on {
			s.stackFP[fp] = id
		} else {
			delete(s.stackFP, fp)
		}
		return
	}
	s.onStack.Set(id, on)
}

func (s *search) isOnStack(id int32) bool {
	if s.exact == nil {
		_, ok := s.stackFP[s.lastFP]
		return ok
	}
	return s.onStack.Has(id)
}

// expandFully makes a reduced DFS level explore all its transitions, as
// the cycle proviso demands.
func (s *search) expandFully(f *frame) {
	if f.end < f.full {
		f.end = f.full
		s.stats.Provisos++
	}
}

// expandsRest reports whether a breadth-first or parallel search, having
// explored the persistent set of a reduced state, goes on to the state's
// other transitions: where one of the set's faulted (as every search
// does), and by the cycle proviso, under the static one where one of the
// set's was sticky (a backward jump), under the duplicate one where none
// led to a new state.
func expandsRest(p Proviso, faulted, sticky, anyNew bool) bool {
	switch {
	case faulted:
		return true
	case p == ProvisoStatic:
		return sticky
	}
	return !anyNew
}
