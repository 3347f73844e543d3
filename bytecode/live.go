// Liveness of local variables, for dead variable reduction.

package bytecode

// LiveLocals computes which locals of method m are live at each
// instruction: in[pc] has bit i set if local i may be read, on some path
// from pc (exceptions included), before it is written; out[pc] is the
// same just after pc, on the paths out of it (a caller's frame waits at
// its invoke instruction, and goes on from there). A local that is not
// live holds a value that can never matter, so states that differ only
// in such values behave alike (SPIN's dead variable elimination).
//
// ok is false, and every local is to be taken as live, where the
// analysis does not apply: methods with more than 64 locals, and methods
// with finally, fault or filter handlers, whose blocks run on behalf of
// several continuations (a leave's target, an unwinding) that the control
// flow of the code alone does not show. The program must have passed
// Verify.
func LiveLocals(m *Method) (in, out []uint64, ok bool) {
	if m.Locals > 64 {
		return nil, nil, false
	}
	for i := range m.Handlers {
		if m.Handlers[i].Kind != HandlerCatch {
			return nil, nil, false
		}
	}
	n := int32(len(m.Code))
	in, out = make([]uint64, n), make([]uint64, n)
	// Backward iteration to the fixpoint: in = use | (out &^ def), out =
	// the union of the successors' in. Sets only grow, so it ends.
	for changed := true; changed; {
		changed = false
		for pc := n - 1; pc >= 0; pc-- {
			in2 := m.Code[pc]
			var o uint64
			if !in2.Op.Is(FlagNoNext) && pc+1 < n {
				o |= in[pc+1]
			}
			if in2.Op.Is(FlagBranch) && in2.A >= 0 && in2.A < int64(n) {
				o |= in[in2.A]
			}
			// Any instruction in a protected region may throw into its
			// handler (conservatively: not only those that can throw).
			for i := range m.Handlers {
				if h := &m.Handlers[i]; h.Covers(pc) && h.Target >= 0 && h.Target < n {
					o |= in[h.Target]
				}
			}
			var use, def uint64
			switch in2.Op {
			case OpLoad:
				use = bit(in2.A)
			case OpStore:
				def = bit(in2.A)
			case OpInc:
				use = bit(in2.A)
			}
			i := use | o&^def
			if o != out[pc] || i != in[pc] {
				out[pc], in[pc] = o, i
				changed = true
			}
		}
	}
	return in, out, true
}

// bit returns the set holding local a (empty for an index out of range,
// which Verify rejects).
func bit(a int64) uint64 {
	if a < 0 || a >= 64 {
		return 0
	}
	return 1 << a
}
