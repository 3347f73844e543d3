// Executors for branches, calls, returns, exceptions and properties.

package vm

import (
	"io"
	"strconv"

	"mcvm/bytecode"
	"mcvm/heap"
)

func execGoto(m *Machine, t *Thread, o *op) bool { t.top().PC = int32(o.a); return true }

// branch1 pops one int and jumps when cond holds.
func branch1(cond func(a int64) bool) func(m *Machine, t *Thread, o *op) bool {
	return func(m *Machine, t *Thread, o *op) bool {
		v := t.pop()
		if v.Ref {
			return m.typeError(t, "%s of a reference (use ifnull or ifnonnull)", o.op)
		}
		f := t.top()
		if cond(v.I) {
			f.PC = int32(o.a)
		} else {
			f.PC++
		}
		return true
	}
}

// branch2 pops two ints and jumps when cond holds.
func branch2(cond func(a, b int64) bool) func(m *Machine, t *Thread, o *op) bool {
	return func(m *Machine, t *Thread, o *op) bool {
		a, b, ok := m.ints(t)
		if !ok {
			return m.resume
		}
		f := t.top()
		if cond(a, b) {
			f.PC = int32(o.a)
		} else {
			f.PC++
		}
		return true
	}
}

var (
	execIfz  = branch1(func(a int64) bool { return a == 0 })
	execIfnz = branch1(func(a int64) bool { return a != 0 })
	execIflt = branch2(func(a, b int64) bool { return a < b })
	execIfle = branch2(func(a, b int64) bool { return a <= b })
	execIfgt = branch2(func(a, b int64) bool { return a > b })
	execIfge = branch2(func(a, b int64) bool { return a >= b })
)

func execIfeq(m *Machine, t *Thread, o *op) bool {
	eq, ok := m.equal(t, o)
	if !ok {
		return m.resume
	}
	f := t.top()
	if eq {
		f.PC = int32(o.a)
	} else {
		f.PC++
	}
	return true
}

func execIfne(m *Machine, t *Thread, o *op) bool {
	eq, ok := m.equal(t, o)
	if !ok {
		return m.resume
	}
	f := t.top()
	if !eq {
		f.PC = int32(o.a)
	} else {
		f.PC++
	}
	return true
}

func execIfnull(m *Machine, t *Thread, o *op) bool {
	v := t.pop()
	if !v.Ref {
		return m.typeError(t, "ifnull of an int")
	}
	f := t.top()
	if v.I == 0 {
		f.PC = int32(o.a)
	} else {
		f.PC++
	}
	return true
}

func execIfnonnull(m *Machine, t *Thread, o *op) bool {
	v := t.pop()
	if !v.Ref {
		return m.typeError(t, "ifnonnull of an int")
	}
	f := t.top()
	if v.I != 0 {
		f.PC = int32(o.a)
	} else {
		f.PC++
	}
	return true
}

func execInvokestatic(m *Machine, t *Thread, o *op) bool { return m.invoke(t, int32(o.a)) }

func execInvokevirtual(m *Machine, t *Thread, o *op) bool {
	args := int(m.prog.Methods[o.a].Args)
	v := t.Stack[len(t.Stack)-args]
	if !v.Ref {
		return m.typeError(t, "invokevirtual on an int receiver")
	}
	if v.I == 0 {
		return m.throwNew(t, bytecode.ClassNullPointer)
	}
	target := m.callee(t, o)
	if target < 0 {
		return m.typeError(t, "receiver has no method %s", m.prog.MethodName(int32(o.a)))
	}
	return m.invoke(t, target)
}

// invoke pushes a frame for method mi whose arguments are on t's stack,
// acquiring the receiver's monitor for a synchronized method.
func (m *Machine) invoke(t *Thread, mi int32) bool {
	callee := &m.prog.Methods[mi]
	base := int32(len(t.Stack)) - callee.Args
	if len(t.Frames) >= MaxFrames || len(t.Stack) > MaxThreadSlot {
		return m.throwNew(t, bytecode.ClassStackOverflow)
	}
	var lock heap.Ref
	if callee.Sync() {
		v := t.Stack[base]
		if !v.Ref {
			return m.typeError(t, "synchronized call on an int receiver")
		}
		lock = heap.Ref(v.I)
		if lock == heap.Null {
			return m.throwNew(t, bytecode.ClassNullPointer)
		}
		o := m.S.Heap.Obj(lock)
		if o.Owner != 0 && o.Owner != t.ID+1 {
			return false // not enabled: the scheduler does not pick it
		}
		o.Owner = t.ID + 1
		o.Count++
		m.wrote(lock)
	}
	t.Frames = append(t.Frames, Frame{Method: mi, Base: base, Lock: lock})
	for i := callee.Args; i < callee.Locals; i++ {
		t.Stack = append(t.Stack, Value{})
	}
	return true
}

// popFrame leaves the top frame, releasing a synchronized method's monitor.
// If the thread no longer owns that monitor it throws
// IllegalMonitorStateException instead and returns false; m.resume then
// says whether the transition may go on (the exception was caught).
func (m *Machine) popFrame(t *Thread) bool {
	f := t.top()
	if f.Lock != heap.Null {
		o := m.S.Heap.Obj(f.Lock)
		if o.Owner != t.ID+1 {
			m.throwNew(t, bytecode.ClassIllegalMonitorState)
			return false
		}
		if o.Count--; o.Count == 0 {
			o.Owner = 0
		}
		m.wrote(f.Lock)
	}
	t.Stack = t.Stack[:f.Base]
	t.Frames = t.Frames[:len(t.Frames)-1]
	for n := len(t.Pending); n > 0 && int(t.Pending[n-1].Frame) >= len(t.Frames); n-- {
		t.Pending = t.Pending[:n-1]
	}
	return true
}

func execReturn(m *Machine, t *Thread, o *op) bool {
	if !m.popFrame(t) {
		return m.resume
	}
	if len(t.Frames) == 0 {
		m.endThread(t, Value{})
		return false
	}
	t.top().PC++
	return true
}

func execRetval(m *Machine, t *Thread, o *op) bool {
	v := t.Stack[len(t.Stack)-1]
	if !m.popFrame(t) {
		return m.resume
	}
	if len(t.Frames) == 0 {
		m.endThread(t, v)
		return false
	}
	t.Stack = append(t.Stack, v)
	t.top().PC++
	return true
}

func (m *Machine) endThread(t *Thread, v Value) {
	t.Status = StatusTerminated
	t.Stack = t.Stack[:0]
	m.leaked(t)
	if m.evaling {
		m.evalVal = v
	}
}

func execThrow(m *Machine, t *Thread, o *op) bool {
	v := t.pop()
	if !v.Ref {
		return m.typeError(t, "throw of an int")
	}
	if v.I == 0 {
		return m.throwNew(t, bytecode.ClassNullPointer)
	}
	if !m.instance(v, bytecode.ClassThrowable) {
		t.push(v)
		return m.typeError(t, "throw of %s, which is not a Throwable", m.className(m.S.Heap.Obj(heap.Ref(v.I)).Class))
	}
	return m.throw(t, heap.Ref(v.I))
}

// throwNew throws a new instance of a built-in exception class. Like
// throw it returns whether a handler caught it, and it records that in
// m.resume for executors whose helpers threw.
func (m *Machine) throwNew(t *Thread, class int32) bool {
	if m.evaling {
		m.setFault(t, FaultInvariant, class, "throws "+m.className(class))
		m.resume = false
		return false
	}
	m.resume = m.throw(t, m.allocated(t, m.S.Heap.New(m.layout, class)))
	return m.resume
}

func (m *Machine) className(c int32) string {
	if c < 0 {
		return "array"
	}
	return m.prog.Classes[c].Name
}

func execAssert(m *Machine, t *Thread, o *op) bool {
	v := t.pop()
	if v.Ref {
		return m.typeError(t, "assert of a reference")
	}
	if v.I == 0 {
		t.Stack = append(t.Stack, v) // the state stays as it was before the assert
		m.setFault(t, FaultAssertion, -1, m.prog.Strings[o.a])
		return false
	}
	t.top().PC++
	return true
}

func execPrint(m *Machine, t *Thread, o *op) bool {
	if m.opts.Out != nil {
		io.WriteString(m.opts.Out, m.prog.Strings[o.a])
	}
	t.top().PC++
	return true
}

func execPrinti(m *Machine, t *Thread, o *op) bool {
	v := t.pop()
	if v.Ref {
		return m.typeError(t, "printi of a reference")
	}
	if m.opts.Out != nil {
		m.numBuf = strconv.AppendInt(m.numBuf[:0], v.I, 10)
		m.opts.Out.Write(m.numBuf)
	}
	t.top().PC++
	return true
}

func execChoose(m *Machine, t *Thread, o *op) bool {
	t.Stack = append(t.Stack, Value{I: int64(m.choice)})
	t.top().PC++
	return true
}
