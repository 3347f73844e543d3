// Structured exception handling: the two passes of throw (MoonWalker's
// Algorithms 2 and 3), filters, finally and fault handlers, leave and
// rethrow.
//
// The first pass (search) walks the frames from the top down for a catch
// handler that matches or a filter that accepts; a filter runs as ordinary
// code in a copy of its frame pushed on top, so the first pass may span
// several transitions, and its state is a PendFilter record. The second
// pass (unwind) runs the finally and fault handlers between the top of the
// stack and the chosen handler, each remembered by a PendUnwind record
// while it runs, pops the frames above the handler's and enters it. leave
// runs finally handlers the same way with PendLeave records. Nothing here
// allocates once the thread's slices have grown.

package vm

import (
	"mcvm/bytecode"
	"mcvm/heap"
)

func refValue(r heap.Ref) Value { return Value{I: int64(r), Ref: true} }

// throw starts handling exception r, thrown at t's current instruction.
// It returns whether the thread goes on (a handler, a filter, or a finally
// or fault handler on the way runs next); false means the transition ends
// with the thread ended (m.faulted says whether that is a fault).
func (m *Machine) throw(t *Thread, r heap.Ref) bool {
	if m.evaling {
		m.setFault(t, FaultInvariant, m.S.Heap.Obj(r).Class, "throws "+m.className(m.S.Heap.Obj(r).Class))
		return false
	}
	// A handler may lie before the throw: count every exception as a
	// possible backward jump (the static cycle proviso, BackJump).
	m.back = true
	return m.search(t, r, int32(len(t.Frames)-1), 0)
}

// search is the first pass from frame fi, handler index from: the first
// handler whose region covers the frame's pc and that is a matching catch
// (the second pass starts) or a filter (it starts running). Reaching the
// copy of a frame a filter runs in means the filter threw: the second
// pass then goes up to that copy and the filter fails.
func (m *Machine) search(t *Thread, r heap.Ref, fi, from int32) bool {
	obj := m.S.Heap.Obj(r)
	for ; fi >= 0; fi-- {
		if m.filterFrame(t, fi) {
			return m.unwind(t, r, fi, -1, 0, -1)
		}
		f := &t.Frames[fi]
		hs := m.prog.Methods[f.Method].Handlers
		for hi := from; int(hi) < len(hs); hi++ {
			h := &hs[hi]
			if !h.Covers(f.PC) {
				continue
			}
			switch h.Kind {
			case bytecode.HandlerCatch:
				if h.Class < 0 || m.isA(obj, h.Class) {
					return m.unwind(t, r, fi, hi, 0, -1)
				}
			case bytecode.HandlerFilter:
				return m.runFilter(t, r, fi, hi)
			}
		}
		from = 0
	}
	return m.uncaught(t, r)
}

// filterFrame reports whether frame fi is the copy a filter runs in.
func (m *Machine) filterFrame(t *Thread, fi int32) bool {
	for i := len(t.Pending) - 1; i >= 0 && t.Pending[i].Frame >= fi; i-- {
		if p := &t.Pending[i]; p.Frame == fi && p.Kind == PendFilter {
			return true
		}
	}
	return false
}

// runFilter starts the filter of handler hi of frame fi: a copy of the
// frame (its locals, no monitor) with only r on its operand stack, at the
// filter block.
func (m *Machine) runFilter(t *Thread, r heap.Ref, fi, hi int32) bool {
	f := t.Frames[fi]
	meth := &m.prog.Methods[f.Method]
	if len(t.Frames) >= MaxFrames || len(t.Stack)+int(meth.Locals) > MaxThreadSlot {
		return m.search(t, r, fi, hi+1) // no room to run it: it fails
	}
	base := int32(len(t.Stack))
	t.Stack = append(t.Stack, t.Stack[f.Base:f.Base+meth.Locals]...)
	t.Stack = append(t.Stack, refValue(r))
	t.Frames = append(t.Frames, Frame{Method: f.Method, PC: meth.Handlers[hi].Filter, Base: base})
	t.Pending = append(t.Pending, Pending{Frame: int32(len(t.Frames) - 1), Kind: PendFilter, Handler: hi, Exc: r, A: fi})
	return true
}

func execEndfilter(m *Machine, t *Thread, o *op) bool {
	v := t.pop()
	if v.Ref {
		return m.typeError(t, "endfilter of a reference")
	}
	n := len(t.Pending)
	if n == 0 || t.Pending[n-1].Kind != PendFilter || int(t.Pending[n-1].Frame) != len(t.Frames)-1 {
		t.push(v)
		return m.typeError(t, "endfilter outside a running filter")
	}
	p := t.Pending[n-1]
	t.Pending = t.Pending[:n-1]
	t.Stack = t.Stack[:t.top().Base]
	t.Frames = t.Frames[:len(t.Frames)-1]
	if v.I != 0 {
		return m.unwind(t, p.Exc, p.A, p.Handler, 0, -1)
	}
	return m.search(t, p.Exc, p.A, p.Handler+1)
}

// unwind is the second pass of r towards handler hi of frame ti (hi -1:
// the filter whose copy frame ti is, which then fails), continuing in the
// top frame from handler index from at pc (-1: the frame's pc). It runs
// the next finally or fault handler on the way, or enters the target.
func (m *Machine) unwind(t *Thread, r heap.Ref, ti, hi, from, pc int32) bool {
	for {
		fi := int32(len(t.Frames) - 1)
		f := &t.Frames[fi]
		if fi == ti && hi < 0 {
			return m.filterFailed(t)
		}
		if pc < 0 {
			pc = f.PC
		}
		meth := &m.prog.Methods[f.Method]
		end := int32(len(meth.Handlers))
		if fi == ti {
			end = hi
		}
		for h := from; h < end; h++ {
			hd := &meth.Handlers[h]
			if (hd.Kind == bytecode.HandlerFinally || hd.Kind == bytecode.HandlerFault) && hd.Covers(pc) {
				m.exitBlocks(t, fi, hd.Start, hd.End)
				t.Stack = t.Stack[:f.Base+meth.Locals]
				f.PC = hd.Target
				t.Pending = append(t.Pending, Pending{Frame: fi, Kind: PendUnwind, Handler: h, Exc: r, A: ti, B: hi})
				return true
			}
		}
		if fi == ti {
			hd := &meth.Handlers[hi]
			m.exitBlocks(t, fi, hd.Start, hd.End)
			t.Stack = append(t.Stack[:f.Base+meth.Locals], refValue(r))
			f.PC = hd.Target
			if m.rethrows[f.Method][hi] {
				t.Pending = append(t.Pending, Pending{Frame: fi, Kind: PendCatch, Handler: hi, Exc: r})
			}
			return true
		}
		if f.Lock != heap.Null && m.S.Heap.Obj(f.Lock).Owner != t.ID+1 {
			// As the JVM does, a synchronized method left by an exception
			// without owning its monitor throws IllegalMonitorStateException
			// instead; it no longer claims the monitor.
			f.Lock = heap.Null
			return m.throwNew(t, bytecode.ClassIllegalMonitorState)
		}
		m.popFrame(t)
		from, pc = 0, -1
	}
}

// filterFailed discards the exception that reached the copy of a frame a
// filter runs in (the top frame): the filter counts as false, and the
// first pass of the exception it was filtering goes on.
func (m *Machine) filterFailed(t *Thread) bool {
	n := len(t.Pending)
	p := t.Pending[n-1]
	t.Pending = t.Pending[:n-1]
	t.Stack = t.Stack[:t.top().Base]
	t.Frames = t.Frames[:len(t.Frames)-1]
	return m.search(t, p.Exc, p.A, p.Handler+1)
}

// exitBlocks drops the records of frame fi for handler blocks inside
// [start, end), which control is leaving. They are the innermost, so on
// top.
func (m *Machine) exitBlocks(t *Thread, fi, start, end int32) {
	hs := m.prog.Methods[t.Frames[fi].Method].Handlers
	for n := len(t.Pending); n > 0; n-- {
		p := &t.Pending[n-1]
		if p.Frame != fi || p.Kind == PendFilter {
			return
		}
		h := &hs[p.Handler]
		if h.Target < start || h.HandlerEnd > end {
			return
		}
		t.Pending = t.Pending[:n-1]
	}
}

// uncaught ends t: no handler takes r. Unless the options ignore uncaught
// exceptions, that is a fault at the throw site (the top frame's pc: the
// first pass changes no frame).
func (m *Machine) uncaught(t *Thread, r heap.Ref) bool {
	class := m.S.Heap.Obj(r).Class
	if !m.opts.IgnoreUncaught {
		f := t.top()
		m.fault = Fault{Kind: FaultException, Thread: t.ID, Method: f.Method, PC: f.PC, Class: class,
			Msg: "uncaught " + m.className(class)}
		m.faulted = true
	}
	for i := range t.Frames {
		if l := t.Frames[i].Lock; l != heap.Null {
			if o := m.S.Heap.Obj(l); o.Owner == t.ID+1 {
				if o.Count--; o.Count == 0 {
					o.Owner = 0
				}
				m.wrote(l)
			}
		}
	}
	t.Frames = t.Frames[:0]
	t.Stack = t.Stack[:0]
	t.Pending = t.Pending[:0]
	t.Status = StatusTerminated
	if m.opts.IgnoreUncaught {
		m.leaked(t)
	}
	return false
}

func execRethrow(m *Machine, t *Thread, o *op) bool {
	fi := int32(len(t.Frames) - 1)
	for i := len(t.Pending) - 1; i >= 0 && t.Pending[i].Frame == fi; i-- {
		if p := &t.Pending[i]; p.Kind == PendCatch {
			return m.throw(t, p.Exc)
		}
	}
	return m.typeError(t, "rethrow outside a catch handler")
}

func execLeave(m *Machine, t *Thread, o *op) bool {
	fi := int32(len(t.Frames) - 1)
	f := t.top()
	meth := &m.prog.Methods[f.Method]
	t.Stack = t.Stack[:f.Base+meth.Locals]
	target := int32(o.a)
	// Leave the catch handler blocks that do not hold the target.
	for n := len(t.Pending); n > 0; n-- {
		p := &t.Pending[n-1]
		if p.Frame != fi || p.Kind != PendCatch {
			break
		}
		if h := &meth.Handlers[p.Handler]; target >= h.Target && target < h.HandlerEnd {
			break
		}
		t.Pending = t.Pending[:n-1]
	}
	return m.leave(t, fi, 0, f.PC, target)
}

// leave goes on with a leave from pc to target in frame fi: the next
// finally handler from index from whose region holds pc but not target
// runs, or control reaches target.
func (m *Machine) leave(t *Thread, fi, from, pc, target int32) bool {
	f := &t.Frames[fi]
	hs := m.prog.Methods[f.Method].Handlers
	for h := from; int(h) < len(hs); h++ {
		hd := &hs[h]
		if hd.Kind == bytecode.HandlerFinally && hd.Covers(pc) && !hd.Covers(target) {
			f.PC = hd.Target
			t.Pending = append(t.Pending, Pending{Frame: fi, Kind: PendLeave, Handler: h, A: target})
			return true
		}
	}
	f.PC = target
	return true
}

// endHandler ends the finally or fault handler of kind k running in the
// top frame: the leave or second pass that ran it goes on.
func (m *Machine) endHandler(t *Thread, o *op, k bytecode.HandlerKind) bool {
	fi := int32(len(t.Frames) - 1)
	n := len(t.Pending)
	f := t.top()
	meth := &m.prog.Methods[f.Method]
	if n == 0 || t.Pending[n-1].Frame != fi || (t.Pending[n-1].Kind != PendLeave && t.Pending[n-1].Kind != PendUnwind) ||
		meth.Handlers[t.Pending[n-1].Handler].Kind != k {
		return m.typeError(t, "%s outside a running %s handler", o.op, k)
	}
	p := t.Pending[n-1]
	t.Pending = t.Pending[:n-1]
	t.Stack = t.Stack[:f.Base+meth.Locals]
	start := meth.Handlers[p.Handler].Start
	if p.Kind == PendLeave {
		return m.leave(t, fi, p.Handler+1, start, p.A)
	}
	return m.unwind(t, p.Exc, p.A, p.B, p.Handler+1, start)
}

func execEndfinally(m *Machine, t *Thread, o *op) bool {
	return m.endHandler(t, o, bytecode.HandlerFinally)
}

func execEndfault(m *Machine, t *Thread, o *op) bool {
	return m.endHandler(t, o, bytecode.HandlerFault)
}
