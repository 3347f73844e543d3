// Executors for threads, monitors, wait and notify.

package vm

import (
	"mcvm/bytecode"
	"mcvm/heap"
)

func execNewthread(m *Machine, t *Thread, o *op) bool {
	if len(m.S.Threads) >= m.opts.MaxThreads {
		return m.limitFault(t, LimitThreads, "thread limit of %d reached", m.opts.MaxThreads)
	}
	if m.S.Heap.Len() >= m.opts.MaxObjects {
		return m.limitFault(t, LimitObjects, "object limit of %d reached", m.opts.MaxObjects)
	}
	callee := &m.prog.Methods[o.a]
	u := m.newThread(int32(o.a))
	m.allocated(t, u.Obj)
	base := len(t.Stack) - int(callee.Args)
	u.Stack = append(u.Stack, t.Stack[base:]...)
	for i := callee.Args; i < callee.Locals; i++ {
		u.Stack = append(u.Stack, Value{})
	}
	t.Stack = append(t.Stack[:base], Value{I: int64(u.Obj), Ref: true})
	t.top().PC++
	return true
}

// threadArg pops a Thread object and returns its thread.
func (m *Machine) threadArg(t *Thread) (*Thread, bool) {
	v := t.Stack[len(t.Stack)-1]
	if _, ok := m.object(t, v); !ok {
		return nil, false
	}
	u := m.threadOf(v)
	if u == nil {
		m.typeError(t, "%s of an object that is not a Thread", m.next(t).op)
		return nil, false
	}
	t.Stack = t.Stack[:len(t.Stack)-1]
	return u, true
}

func execStart(m *Machine, t *Thread, o *op) bool {
	u, ok := m.threadArg(t)
	if !ok {
		return m.resume
	}
	if u.Status != StatusNew {
		t.Stack = append(t.Stack, Value{I: int64(u.Obj), Ref: true})
		return m.throwNew(t, bytecode.ClassIllegalThreadState)
	}
	u.Status = StatusRunnable
	m.stamp(u)
	t.top().PC++
	return true
}

func execJoin(m *Machine, t *Thread, o *op) bool {
	if _, ok := m.threadArg(t); !ok {
		return m.resume
	}
	t.top().PC++
	return true
}

func execYield(m *Machine, t *Thread, o *op) bool { t.top().PC++; return true }

func execTid(m *Machine, t *Thread, o *op) bool {
	t.Stack = append(t.Stack, Value{I: int64(t.ID)})
	t.top().PC++
	return true
}

func execMonitorenter(m *Machine, t *Thread, o *op) bool {
	r, ok := m.object(t, t.Stack[len(t.Stack)-1])
	if !ok {
		return m.resume
	}
	obj := m.S.Heap.Obj(r)
	if obj.Owner != 0 && obj.Owner != t.ID+1 {
		return false // not enabled
	}
	obj.Owner = t.ID + 1
	obj.Count++
	m.wrote(r)
	t.Stack = t.Stack[:len(t.Stack)-1]
	t.top().PC++
	return true
}

// owned checks that t owns the monitor of the reference on top of its
// stack and pops it; otherwise it throws (NullPointerException,
// IllegalMonitorStateException) and leaves the stack as it was.
func (m *Machine) owned(t *Thread) (heap.Ref, *heap.Object, bool) {
	r, ok := m.object(t, t.Stack[len(t.Stack)-1])
	if !ok {
		return 0, nil, false
	}
	obj := m.S.Heap.Obj(r)
	if obj.Owner != t.ID+1 {
		m.throwNew(t, bytecode.ClassIllegalMonitorState)
		return 0, nil, false
	}
	t.Stack = t.Stack[:len(t.Stack)-1]
	return r, obj, true
}

func execMonitorexit(m *Machine, t *Thread, o *op) bool {
	r, obj, ok := m.owned(t)
	if !ok {
		return m.resume
	}
	if obj.Count--; obj.Count == 0 {
		obj.Owner = 0
	}
	m.wrote(r)
	t.top().PC++
	return true
}

func execWait(m *Machine, t *Thread, o *op) bool {
	r, obj, ok := m.owned(t)
	if !ok {
		return m.resume
	}
	t.WaitObj, t.WaitCount = r, obj.Count
	obj.Owner, obj.Count = 0, 0
	m.wrote(r)
	t.Status = StatusWaiting
	t.top().PC++
	return false
}

func execNotify(m *Machine, t *Thread, o *op) bool {
	r, _, ok := m.owned(t)
	if !ok {
		return m.resume
	}
	if u := m.nthWaiter(r, m.choice); u != nil {
		u.Status = StatusNotified
		m.stamp(u)
	}
	t.top().PC++
	return true
}

// nthWaiter returns the k-th thread, in id order, waiting on r, or nil.
func (m *Machine) nthWaiter(r heap.Ref, k int32) *Thread {
	for _, u := range m.S.Threads {
		if u.Status == StatusWaiting && u.WaitObj == r {
			if k == 0 {
				return u
			}
			k--
		}
	}
	return nil
}

func execNotifyall(m *Machine, t *Thread, o *op) bool {
	r, _, ok := m.owned(t)
	if !ok {
		return m.resume
	}
	for _, u := range m.S.Threads {
		if u.Status == StatusWaiting && u.WaitObj == r {
			u.Status = StatusNotified
			m.stamp(u)
		}
	}
	t.top().PC++
	return true
}
