// Escape analysis on the active heap, and what a thread's next transition touches (for partial-order reduction).

package vm

import (
	"slices"

	"mcvm/bytecode"
	"mcvm/heap"
)

// ownShared marks an object reachable from more than one thread, or from a
// static; 0 marks an object no thread reaches; t.ID+1 an object only
// thread t reaches.
const ownShared int32 = -1

// escape is the escape analysis of the active state: which threads can
// reach each object (owners), which threads hold a monitor, and the
// reachability Confined asks about. Its methods read the state they are
// given, with the version it is at, and the program's tables below (set
// by New, read-only); what they compute holds until the version changes.
type escape struct {
	refStatics []int     // the statics of reference kind (Machine.refStatics)
	refSlots   [][]int32 // per class: its reference slots (Machine.refSlots)
	slotField  [][]int32 // per class, per slot: the field it holds

	// owner (see owners) is valid while ownVer is the state's version.
	ownVer    uint64
	owner     []int32
	holdVer   uint64 // holds[t]: thread t holds a monitor, valid while holdVer is the state's version
	holds     []bool
	markStack []markItem
	// Confined's marks and stack.
	conf      []bool
	confStack []heap.Ref
}

// slotFields returns, per class of p, per slot, the field it holds.
func slotFields(p *bytecode.Program, layout *heap.Layout, sub []bool) [][]int32 {
	nc := len(p.Classes)
	sf := make([][]int32, nc)
	for c := range sf {
		sf[c] = make([]int32, layout.Slots(int32(c)))
	}
	for fi, f := range p.Fields {
		for c := 0; c < nc; c++ {
			if sub[c*nc+int(f.Class)] {
				sf[c][f.Slot] = int32(fi)
			}
		}
	}
	return sf
}

// owners computes, for every object of s's heap, which threads can
// reach it (MoonWalker section 3.4, JPF's shared-object attribute). The
// roots of thread t are its Thread object, the object it waits on, its
// frames' monitors, the exceptions its pending handlers hold and every reference in its locals and operand stacks
// (a thread that has not started yet has roots too: its arguments). Every
// object reachable from a static is shared, since any thread can read the
// static. An object first reached from thread t belongs to t; reached again
// from another thread, it and everything it reaches become shared. Each
// object changes at most twice (0, a thread, shared), so this is linear in
// the heap. The result holds until the state changes from version ver
// (ownVer).
func (e *escape) owners(s *State, ver uint64) {
	if e.ownVer == ver {
		return
	}
	e.ownVer = ver
	h := &s.Heap
	n := h.Len()
	if cap(e.owner) < n {
		e.owner = make([]int32, n, n+n/2)
	}
	e.owner = e.owner[:n]
	clear(e.owner)
	for _, i := range e.refStatics {
		e.mark(h, heap.Ref(s.Statics[i]), ownShared)
	}
	for _, t := range s.Threads {
		if t.Status == StatusTerminated {
			continue
		}
		tag := t.ID + 1
		e.mark(h, t.Obj, tag)
		e.mark(h, t.WaitObj, tag)
		for i := range t.Frames {
			e.mark(h, t.Frames[i].Lock, tag)
		}
		for i := range t.Pending {
			e.mark(h, t.Pending[i].Exc, tag)
		}
		for _, v := range t.Stack {
			if v.Ref {
				e.mark(h, heap.Ref(v.I), tag)
			}
		}
	}
}

// mark gives r and what it reaches in h the owner tag, promoting to
// shared whatever another thread already reached. It looks only at the
// reference slots of objects (refSlots), and pushes a reference only if
// its object's tag would change.
func (e *escape) mark(h *heap.Heap, r heap.Ref, tag int32) {
	own := e.owner
	if r <= heap.Null || int(r) > len(own) {
		return
	}
	if c := own[r-1]; c == tag || c == ownShared {
		return
	}
	st := append(e.markStack[:0], markItem{r, tag})
	for len(st) > 0 {
		it := st[len(st)-1]
		st = st[:len(st)-1]
		cur := own[it.r-1]
		if cur == it.tag || cur == ownShared {
			continue // tagged since it was pushed
		}
		tag := it.tag
		if cur != 0 {
			tag = ownShared
		}
		own[it.r-1] = tag
		o := &h.Objs[it.r-1]
		switch o.Kind {
		case heap.KindRefArray:
			for _, v := range h.Data[o.Off : o.Off+o.Len] {
				if v > 0 && int(v) <= len(own) {
					if c := own[v-1]; c != tag && c != ownShared {
						st = append(st, markItem{heap.Ref(v), tag})
					}
				}
			}
		case heap.KindObject:
			rs := e.refSlots[o.Class]
			if len(rs) == 0 {
				continue
			}
			slots := h.Data[o.Off : o.Off+o.Len]
			for _, j := range rs {
				if v := slots[j]; v > 0 && int(v) <= len(own) {
					if c := own[v-1]; c != tag && c != ownShared {
						st = append(st, markItem{heap.Ref(v), tag})
					}
				}
			}
		}
	}
	e.markStack = st[:0]
}

type markItem struct {
	r   heap.Ref
	tag int32
}

// localTo reports whether only thread t can reach r in state s, at
// version ver. Objects allocated after the owners were computed were
// allocated by the running thread in the current transition, and are its
// own.
func (e *escape) localTo(s *State, ver uint64, t *Thread, r heap.Ref) bool {
	e.owners(s, ver)
	return int(r) > len(e.owner) || e.owner[r-1] == t.ID+1
}

// allocated records that thread t just allocated r: for escape analysis,
// and for the incremental encoder (allocatedInc).
func (m *Machine) allocated(t *Thread, r heap.Ref) heap.Ref {
	m.allocatedInc()
	m.esc.allocated(t, r)
	return r
}

// allocated records that thread t just allocated r. An object allocated
// after the owners were computed is t's own (see localTo); when r reuses a
// freed object's place (heap.Heap.Free), its entry is set to say so, as
// it would be if r were new.
func (e *escape) allocated(t *Thread, r heap.Ref) {
	if int(r) <= len(e.owner) {
		e.owner[r-1] = t.ID + 1
	}
}

// forgetHolds makes HoldsMonitor look at the heap again: objects were
// freed, and a freed object's monitor is free.
func (e *escape) forgetHolds() { e.holds = e.holds[:0] }

// objOps holds, per opcode, what heapTarget and localOp read of the
// opcode table: where the reference to the object the instruction
// accesses is on the operand stack (bytecode.Info.Ref) and whether it
// takes the object's monitor (bytecode.FlagAcquire). (An array of 256,
// indexed without a bounds check: localOp runs for every heap
// instruction of a transition with Options.Escape.)
var objOps = func() (a [256]struct {
	ref     uint8
	acquire bool
}) {
	for op := range bytecode.NumOpcodes {
		info := bytecode.Opcode(op).Info()
		a[op].ref, a[op].acquire = uint8(info.Ref), info.Flags&bytecode.FlagAcquire != 0
	}
	return a
}()

// heapTarget returns the reference to the object instruction op, next in
// t, accesses, or Null if it accesses none or the value is not a non-null
// reference.
func heapTarget(t *Thread, op bytecode.Opcode) heap.Ref {
	d := int(objOps[op].ref)
	if d == 0 || len(t.Stack) < d {
		return heap.Null
	}
	v := t.Stack[len(t.Stack)-d]
	if !v.Ref {
		return heap.Null
	}
	return heap.Ref(v.I)
}

// localOp reports whether heap instruction o, next in t, touches only an
// object no other thread can reach, so that with Options.Escape it is not a
// scheduling point: no other thread can observe or affect it before t
// publishes the object, which takes a write to a shared location, itself a
// scheduling point.
// Inside an atomic region a gated instruction (see initAtomic) is local
// while it is enabled: the transition goes on through it.
func (m *Machine) localOp(t *Thread, o *op) bool {
	r := heapTarget(t, o.op)
	if r == heap.Null || !m.S.Heap.Valid(r) || !m.esc.localTo(&m.S, m.version, t, r) {
		return o.atomic && m.enabledAt(t, o)
	}
	if objOps[o.op].acquire {
		// A monitor can be held by a thread that no longer holds a
		// reference to its object; then t would block, which is not local.
		return m.lockable(t, r)
	}
	return true
}

// FootKind classifies the shared location a transition touches.
type FootKind uint8

// Footprint kinds.
const (
	FootNone    FootKind = iota // nothing another thread can see
	FootField                   // field Index of object Obj
	FootStatic                  // static Index
	FootElem                    // element Index of array Obj
	FootMonitor                 // the monitor (and wait set) of Obj
	FootThread                  // the status of thread Index (start, join, end)
	FootAny                     // unknown: dependent on everything
)

// Footprint is what the next transition of a thread touches that other
// threads can see: the access of its first instruction (the rest of a
// transition is thread-local, or with Options.Escape touches only objects
// of the thread's own, or reads final fields; a transition that may run
// into an atomic region or reach a ghost access is FootAny). Obj is a raw reference of the active state: it
// identifies the object along one path of the search as long as states
// are restored from snapshots, not decoded.
//
// NextFootprint gives it for dynamic partial-order reduction and sleep
// sets, and NextAccess, in an Access, for the persistent sets: see each.
type Footprint struct {
	Kind  FootKind
	Write bool
	// Acquire marks a monitor operation that takes the monitor (monitorenter,
	// a synchronized call, reacquiring after wait); the others (monitorexit,
	// a synchronized return, wait, notify) are done holding it, so they are
	// never enabled together with another thread's.
	Acquire bool
	Obj     heap.Ref
	Index   int64
}

// Access is the footprint of a thread's next transition as the persistent
// sets need it (NextAccess), and what makes an access independent of
// every other thread whatever its location: Held, the thread holds Obj's
// monitor; Local, only the thread can reach Obj (escape analysis). (The
// search keeps footprints in its loop, where these would cost room.)
type Access struct {
	Footprint
	Held, Local bool
}

// NextAccess returns what the next transition of enabled thread tid begins
// with, for the persistent sets. Unlike NextFootprint it gives the kind of
// a field, static or element access whatever the object (Obj is Null if
// the instruction will throw), and FootAny for whatever may enable or
// disable other threads' transitions or be enabled or disabled by them.
// It gives FootNone for a thread-local instruction, a choice, yield, or
// the call of a method that is not synchronized and its return; a field
// or static access, or FootElem for an element's (Index 0);
// FootMonitor for a release (monitorexit, the return of a synchronized
// method that is not the thread's last) and for monitorenter, a
// synchronized call, wait, notify or notifyall of a monitor the thread
// holds (Held: until it lets go of the monitor nobody else can take it,
// wait on it or notify it); FootThread for a start (Index -1: the thread
// started is not looked up), a join of a thread that has ended (nothing
// can change that) and the thread's last return (Index is the thread
// itself); and FootAny for the other monitor operations, joins and
// synchronized calls, and for a notified thread.
func (m *Machine) NextAccess(tid int32) Access {
	t := m.S.Threads[tid]
	if t.Status != StatusRunnable || m.next(t).into {
		return Access{Footprint: Footprint{Kind: FootAny}}
	}
	o := m.next(t)
	info := o.op.Info()
	if info.Flags&(bytecode.FlagSched|bytecode.FlagCall|bytecode.FlagReturn) == 0 || o.hidden {
		return Access{} // (a hidden ghost access is into, above: a final read)
	}
	write := info.Flags&bytecode.FlagWrite != 0
	var a Access
	switch info.Access {
	case bytecode.AccessNone:
		switch {
		case info.Flags&bytecode.FlagReturn != 0:
			if len(t.Frames) == 1 {
				return Access{Footprint: Footprint{Kind: FootThread, Write: true, Index: int64(t.ID)}}
			}
			if !m.syncMethod[t.top().Method] {
				return Access{}
			}
			return Access{Footprint: Footprint{Kind: FootMonitor, Write: true, Obj: t.top().Lock}}
		case info.Flags&bytecode.FlagCall != 0:
			if o.op == bytecode.OpInvokestatic && !m.syncMethod[o.a] || o.op == bytecode.OpInvokevirtual && !m.syncVirt[o.a] {
				return Access{}
			}
			// A synchronized call on a monitor t holds only counts up.
			if c := m.callee(t, o); c >= 0 && m.syncMethod[c] {
				if r, ok := m.heldBy(t, t.peek(int(m.prog.Methods[c].Args))); ok {
					return Access{Footprint: Footprint{Kind: FootMonitor, Write: true, Acquire: true, Obj: r}, Held: true}
				}
			}
			return Access{Footprint: Footprint{Kind: FootAny}}
		}
		return Access{} // choose, yield
	case bytecode.AccessField:
		a.Footprint = Footprint{Kind: FootField, Write: write, Index: o.a}
	case bytecode.AccessStatic:
		return Access{Footprint: Footprint{Kind: FootStatic, Write: write, Index: o.a}}
	case bytecode.AccessElem:
		a.Footprint = Footprint{Kind: FootElem, Write: write} // (the element is not looked up)
	case bytecode.AccessMonitor:
		switch {
		case info.Flags&bytecode.FlagAcquire != 0:
			// Entering a monitor t holds only counts up: FootMonitor
			// (below) if it does.
			a.Footprint = Footprint{Kind: FootAny, Write: true, Acquire: true}
		case o.op == bytecode.OpMonitorexit:
			a.Footprint = Footprint{Kind: FootMonitor, Write: true}
		default: // wait, notify, notifyall
			if r, ok := m.heldBy(t, t.peek(int(info.Ref))); ok {
				return Access{Footprint: Footprint{Kind: FootMonitor, Write: true, Obj: r}, Held: true}
			}
			return Access{Footprint: Footprint{Kind: FootAny}}
		}
	case bytecode.AccessThread:
		if write {
			return Access{Footprint: Footprint{Kind: FootThread, Write: true, Index: -1}}
		}
		// Joining a thread that has ended: nothing can change that (a
		// thread never started could still be started).
		if u := m.threadOf(t.peek(int(info.Ref))); u != nil && u.Status == StatusTerminated {
			return Access{Footprint: Footprint{Kind: FootThread, Index: int64(u.ID)}}
		}
		return Access{Footprint: Footprint{Kind: FootAny}}
	default:
		return Access{Footprint: Footprint{Kind: FootAny}}
	}
	if r := heapTarget(t, o.op); r != heap.Null && m.S.Heap.Valid(r) {
		a.Obj = r
		a.Held = m.S.Heap.Obj(r).Owner == t.ID+1
		if m.esc.localTo(&m.S, m.version, t, r) {
			a.Local = !a.Acquire || m.lockable(t, r)
		}
		if a.Held && a.Acquire {
			a.Kind = FootMonitor
		}
	}
	return a
}

// Confined reports whether no other thread can reach object r, in the
// active state, except through a field of an object whose monitor thread
// tid holds and that others may only access while holding that monitor:
// the reachability of escape analysis from the statics and every other
// thread's roots, where an object whose monitor tid holds is left only
// through the fields cross allows (indexed by field; those some other
// thread, or an invariant, may access without holding the object's
// monitor). Elements of arrays are always followed. Until tid releases the
// monitors it holds, no other thread can then reach r, so an access to it
// commutes with everything they do.
func (m *Machine) Confined(tid int32, r heap.Ref, cross []bool) bool {
	return m.esc.confined(&m.S, tid, r, cross)
}

// confined is Confined in state s.
func (e *escape) confined(s *State, tid int32, r heap.Ref, cross []bool) bool {
	h := &s.Heap
	n := h.Len()
	if cap(e.conf) < n {
		e.conf = make([]bool, n, n+n/2)
	}
	e.conf = e.conf[:n]
	clear(e.conf)
	st := e.confStack[:0]
	for _, i := range e.refStatics {
		st = append(st, heap.Ref(s.Statics[i]))
	}
	for _, u := range s.Threads {
		if u.ID == tid || u.Status == StatusTerminated {
			continue
		}
		st = append(st, u.Obj, u.WaitObj)
		for i := range u.Frames {
			st = append(st, u.Frames[i].Lock)
		}
		for i := range u.Pending {
			st = append(st, u.Pending[i].Exc)
		}
		for _, v := range u.Stack {
			if v.Ref {
				st = append(st, heap.Ref(v.I))
			}
		}
	}
	held := tid + 1
	conf := e.conf
	for len(st) > 0 {
		x := st[len(st)-1]
		st = st[:len(st)-1]
		if x <= heap.Null || int(x) > n || conf[x-1] {
			continue
		}
		if x == r {
			e.confStack = st[:0]
			return false
		}
		conf[x-1] = true
		o := &h.Objs[x-1]
		switch o.Kind {
		case heap.KindRefArray:
			for _, v := range h.Data[o.Off : o.Off+o.Len] {
				if v > 0 && int(v) <= n && !conf[v-1] {
					st = append(st, heap.Ref(v))
				}
			}
		case heap.KindObject:
			rs := e.refSlots[o.Class]
			if len(rs) == 0 {
				continue
			}
			slots := h.Data[o.Off : o.Off+o.Len]
			sf := e.slotField[o.Class]
			lock := o.Owner == held
			for _, j := range rs {
				v := slots[j]
				if v <= 0 || int(v) > n || conf[v-1] || lock && !cross[sf[j]] {
					continue
				}
				st = append(st, heap.Ref(v))
			}
		}
	}
	e.confStack = st[:0]
	return true
}

// HoldsMonitor reports whether thread tid holds some monitor. One pass
// over the heap's headers answers it for every thread, kept until the
// state changes (holdVer).
func (m *Machine) HoldsMonitor(tid int32) bool {
	return m.esc.holdsMonitor(&m.S, m.version, tid)
}

// holdsMonitor is HoldsMonitor in state s, at version ver.
func (e *escape) holdsMonitor(s *State, ver uint64, tid int32) bool {
	if e.holdVer != ver || len(e.holds) != len(s.Threads) {
		e.holdVer = ver
		e.holds = slices.Grow(e.holds[:0], len(s.Threads))[:len(s.Threads)]
		clear(e.holds)
		for i := range s.Heap.Objs {
			if o := s.Heap.Objs[i].Owner; o > 0 && int(o) <= len(e.holds) {
				e.holds[o-1] = true
			}
		}
	}
	return e.holds[tid]
}

// NumFrames returns how many frames thread tid has.
func (m *Machine) NumFrames(tid int32) int { return len(m.S.Threads[tid].Frames) }

// FrameAt returns the method and pc of frame i (0 is the bottom) of thread
// tid. A frame below the top is at the call it waits on.
func (m *Machine) FrameAt(tid int32, i int) (method, pc int32) {
	f := &m.S.Threads[tid].Frames[i]
	return f.Method, f.PC
}

// NumThreads returns the number of threads in the active state.
func (m *Machine) NumThreads() int { return len(m.S.Threads) }

// ThreadStatus returns thread tid's status.
func (m *Machine) ThreadStatus(tid int32) Status { return m.S.Threads[tid].Status }

// BackJump reports whether the last Step executed a branch to an earlier
// or the same instruction, or entered an exception handler placed at or
// before the instruction that threw: every cycle of the state graph
// contains such a transition (Edelkamp's sticky transitions, the static
// cycle proviso).
func (m *Machine) BackJump() bool { return m.back }

// NextFootprint returns the footprint of thread tid's next transition,
// whether or not it is enabled (a blocked monitorenter touches the monitor;
// a waiting or notified thread will reacquire its monitor), for dynamic
// partial-order reduction and sleep sets: the location exactly, nothing
// (FootNone) for an instruction about to throw, and an object of the
// thread's own counts, since it may have been shared before (dynamic
// reduction is not combined with Options.Escape, whose merged accesses
// to objects that are the thread's own now may race with other threads'
// earlier accesses, when the objects were shared).
func (m *Machine) NextFootprint(tid int32) Footprint {
	t := m.S.Threads[tid]
	switch m.footStatus(t) {
	case StatusWaiting, StatusNotified:
		return Footprint{Kind: FootMonitor, Write: true, Acquire: true, Obj: t.WaitObj}
	case StatusRunnable:
	default:
		return m.otherFootprint(t)
	}
	o := m.next(t)
	if o.hidden {
		return Footprint{} // a final read (a ghost access is into, above)
	}
	info := o.op.Info()
	write := info.Flags&bytecode.FlagWrite != 0
	obj := func(d int) (heap.Ref, bool) {
		v := t.peek(d)
		r := heap.Ref(v.I)
		if !v.Ref || r == heap.Null || !m.S.Heap.Valid(r) {
			return 0, false
		}
		return r, true
	}
	switch info.Access {
	case bytecode.AccessField:
		r, ok := obj(int(info.Ref))
		if !ok {
			return Footprint{}
		}
		return Footprint{Kind: FootField, Write: write, Obj: r, Index: o.a}
	case bytecode.AccessStatic:
		return Footprint{Kind: FootStatic, Write: write, Index: o.a}
	case bytecode.AccessElem:
		d := int(info.Ref)
		r, ok := obj(d)
		if !ok {
			return Footprint{}
		}
		return Footprint{Kind: FootElem, Write: write, Obj: r, Index: t.peek(d - 1).I}
	case bytecode.AccessMonitor:
		r, ok := obj(int(info.Ref))
		if !ok {
			return Footprint{}
		}
		return Footprint{Kind: FootMonitor, Write: write, Acquire: info.Flags&bytecode.FlagAcquire != 0, Obj: r}
	case bytecode.AccessThread:
		u := m.threadOf(t.peek(int(info.Ref)))
		if u == nil {
			return Footprint{}
		}
		return Footprint{Kind: FootThread, Write: write, Index: int64(u.ID)}
	}
	switch {
	case info.Flags&bytecode.FlagCall != 0:
		callee := m.callee(t, o)
		if callee < 0 || !m.syncMethod[callee] {
			return Footprint{} // not synchronized, or it throws
		}
		r, ok := obj(int(m.prog.Methods[callee].Args))
		if !ok {
			return Footprint{}
		}
		return Footprint{Kind: FootMonitor, Write: true, Acquire: true, Obj: r}
	case info.Flags&bytecode.FlagReturn != 0:
		f := t.top()
		if len(t.Frames) == 1 {
			if f.Lock != heap.Null {
				return Footprint{Kind: FootAny}
			}
			return Footprint{Kind: FootThread, Write: true, Index: int64(t.ID)}
		}
		if f.Lock == heap.Null {
			return Footprint{}
		}
		return Footprint{Kind: FootMonitor, Write: true, Obj: f.Lock}
	}
	return Footprint{} // nothing shared (choose and yield too)
}

// statusInto stands, in NextFootprint, for a thread whose next
// transition may run into an atomic region or reach a ghost access
// (op.into).
const statusInto Status = 255

// footStatus is t's status for NextFootprint: statusInto when its next
// transition may run into an atomic region or reach a ghost access.
func (m *Machine) footStatus(t *Thread) Status {
	if (t.Status == StatusRunnable || t.Status == StatusWaiting || t.Status == StatusNotified) && m.next(t).into {
		return statusInto
	}
	return t.Status
}

// otherFootprint is NextFootprint for a thread that is neither runnable
// nor in wait, or whose transition may run into an atomic region or
// reach a ghost access (it may touch anything: FootAny).
func (m *Machine) otherFootprint(t *Thread) Footprint {
	if m.footStatus(t) == statusInto {
		return Footprint{Kind: FootAny}
	}
	return Footprint{}
}

// heldBy returns the object v refers to if thread t holds its monitor.
func (m *Machine) heldBy(t *Thread, v Value) (heap.Ref, bool) {
	if !v.Ref {
		return heap.Null, false
	}
	r := heap.Ref(v.I)
	if !m.S.Heap.Valid(r) || m.S.Heap.Obj(r).Owner != t.ID+1 {
		return heap.Null, false
	}
	return r, true
}
