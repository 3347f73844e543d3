// Executors for integer arithmetic, bitwise operations and comparisons.

package vm

import "mcvm/bytecode"

// ints pops two ints, or records a type error.
func (m *Machine) ints(t *Thread) (a, b int64, ok bool) {
	s := t.Stack
	n := len(s)
	x, y := s[n-2], s[n-1]
	if x.Ref || y.Ref {
		m.typeError(t, "%s of a reference", m.next(t).op)
		return 0, 0, false
	}
	t.Stack = s[:n-2]
	return x.I, y.I, true
}

// binop is the shape of every two-int, one-int executor.
func binop(f func(a, b int64) int64) func(m *Machine, t *Thread, o *op) bool {
	return func(m *Machine, t *Thread, o *op) bool {
		s := t.Stack
		n := len(s)
		x, y := s[n-2], s[n-1]
		if x.Ref || y.Ref {
			return m.typeError(t, "%s of a reference", o.op)
		}
		s[n-2] = Value{I: f(x.I, y.I)}
		t.Stack = s[:n-1]
		t.top().PC++
		return true
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

var (
	execAdd  = binop(func(a, b int64) int64 { return a + b })
	execSub  = binop(func(a, b int64) int64 { return a - b })
	execMul  = binop(func(a, b int64) int64 { return a * b })
	execAnd  = binop(func(a, b int64) int64 { return a & b })
	execOr   = binop(func(a, b int64) int64 { return a | b })
	execXor  = binop(func(a, b int64) int64 { return a ^ b })
	execShl  = binop(func(a, b int64) int64 { return a << uint(b&63) })
	execShr  = binop(func(a, b int64) int64 { return a >> uint(b&63) })
	execUshr = binop(func(a, b int64) int64 { return int64(uint64(a) >> uint(b&63)) })
	execLt   = binop(func(a, b int64) int64 { return b2i(a < b) })
	execLe   = binop(func(a, b int64) int64 { return b2i(a <= b) })
	execGt   = binop(func(a, b int64) int64 { return b2i(a > b) })
	execGe   = binop(func(a, b int64) int64 { return b2i(a >= b) })
)

func execDiv(m *Machine, t *Thread, o *op) bool { return m.divrem(t, o, false) }
func execRem(m *Machine, t *Thread, o *op) bool { return m.divrem(t, o, true) }

func (m *Machine) divrem(t *Thread, o *op, rem bool) bool {
	s := t.Stack
	n := len(s)
	x, y := s[n-2], s[n-1]
	if x.Ref || y.Ref {
		return m.typeError(t, "%s of a reference", o.op)
	}
	if y.I == 0 {
		return m.throwNew(t, bytecode.ClassArithmetic)
	}
	var r int64
	switch {
	case y.I == -1 && rem:
		r = 0 // avoids the MinInt64 % -1 trap; the result is 0
	case y.I == -1:
		r = -x.I // wraps for MinInt64, as in Java
	case rem:
		r = x.I % y.I
	default:
		r = x.I / y.I
	}
	s[n-2] = Value{I: r}
	t.Stack = s[:n-1]
	t.top().PC++
	return true
}

func execNeg(m *Machine, t *Thread, o *op) bool {
	v := &t.Stack[len(t.Stack)-1]
	if v.Ref {
		return m.typeError(t, "neg of a reference")
	}
	v.I = -v.I
	t.top().PC++
	return true
}

func execNot(m *Machine, t *Thread, o *op) bool {
	v := &t.Stack[len(t.Stack)-1]
	if v.Ref {
		return m.typeError(t, "not of a reference (use ifnull)")
	}
	v.I = b2i(v.I == 0)
	t.top().PC++
	return true
}

// equal compares two values of the same kind; references by identity.
func (m *Machine) equal(t *Thread, o *op) (eq, ok bool) {
	s := t.Stack
	n := len(s)
	x, y := s[n-2], s[n-1]
	if x.Ref != y.Ref {
		m.typeError(t, "%s compares an int with a reference", o.op)
		return false, false
	}
	t.Stack = s[:n-2]
	return x.I == y.I, true
}

func execEq(m *Machine, t *Thread, o *op) bool {
	eq, ok := m.equal(t, o)
	if !ok {
		return m.resume
	}
	t.Stack = append(t.Stack, Value{I: b2i(eq)})
	t.top().PC++
	return true
}

func execNe(m *Machine, t *Thread, o *op) bool {
	eq, ok := m.equal(t, o)
	if !ok {
		return m.resume
	}
	t.Stack = append(t.Stack, Value{I: b2i(!eq)})
	t.top().PC++
	return true
}
