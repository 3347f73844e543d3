// Stateful dynamic partial-order reduction: races on the DFS stack, vector clocks, static summaries at revisits.

package por

import (
	"mcvm/bytecode"
	"mcvm/vm"
)

// Dynamic is Flanagan and Godefroid's dynamic partial-order reduction made
// stateful, for depth-first search. It implements explorer.Dynamic.
//
// A new state is explored with the transitions of one thread (or the
// persistent set the static reducer found). Each transition taken is
// recorded on a stack with its footprint (the object field, static, array
// element, monitor or thread status it touches, at the level of single
// objects) and a vector clock of the happens-before order along the path.
// In every new state, the next transition of every thread p is checked
// against the stack: for the last transition i of another thread that is
// dependent with it and does not happen before p, p is added to the state
// i was taken from (or, if p was not enabled there, all of its
// transitions): Flanagan and Godefroid's backtracking points.
//
// A revisited state's subtree is not explored again, so what could happen
// below it must be accounted for without it (MoonWalker section 6.1). Where
// MoonWalker keeps summarised interleaving information for every stored
// state, this reduction uses the static analysis of what each thread can
// still do from the revisited state (the same one the ample sets use, at
// the level of fields rather than objects): every transition on the stack
// that is dependent with a possible future access of a thread p, and does
// not happen before p, gets p added as a backtracking point. That over-
// approximates the interleaving information of the whole state space below
// the state, not only of the part explored, needs no memory per state and
// is complete also for states still on the stack. Reaching a state on the
// stack (a cycle) also expands the state the cycle was closed from fully
// (the cycle proviso C3 stack: otherwise a thread could be ignored around
// the cycle).
type Dynamic struct {
	red   *Reducer
	sched interface {
		Schedule(level int, thread int32)
		ScheduleAll(level int)
	}
	stack   []entry
	enabled [][]int32 // per level: the threads enabled there
	ample   []bool    // per level: explored with the static reducer's persistent set
	fut     []uint64
	zero    []int32
}

// entry is the transition taken from one level of the DFS stack.
type entry struct {
	thread int32
	fp     vm.Footprint
	vis    bool    // fp writes something an invariant reads
	clock  []int32 // clock[u]: 1 + the last level of thread u that happens before it
}

// NewDynamic returns the dynamic reduction for program p, using r (which must
// have been built by New with a mode including DPOR) for the static
// summaries.
func NewDynamic(r *Reducer) *Dynamic {
	return &Dynamic{red: r, fut: make([]uint64, r.words)}
}

// Start implements explorer.Dynamic.
func (d *Dynamic) Start(s interface {
	Schedule(level int, thread int32)
	ScheduleAll(level int)
}) {
	d.sched = s
	d.stack = d.stack[:0]
}

// Enter implements explorer.Dynamic: with a persistent set from the static
// reducer, that; otherwise the transitions of the first enabled thread.
func (d *Dynamic) Enter(m *vm.Machine, level int, trans []vm.Trans, n int) int {
	for len(d.enabled) <= level {
		d.enabled = append(d.enabled, nil)
	}
	en := d.enabled[level][:0]
	for i, tr := range trans {
		if i == 0 || tr.Thread != trans[i-1].Thread {
			en = append(en, tr.Thread)
		}
	}
	d.enabled[level] = en
	for len(d.ample) <= level {
		d.ample = append(d.ample, false)
	}
	d.ample[level] = n < len(trans)
	if n < len(trans) || len(trans) == 0 {
		return n
	}
	k := 1
	for k < len(trans) && trans[k].Thread == trans[0].Thread {
		k++
	}
	return k
}

// Before implements explorer.Dynamic: the footprint of the transition about
// to be taken from level.
func (d *Dynamic) Before(m *vm.Machine, level int, tr vm.Trans) {
	for len(d.stack) <= level {
		d.stack = append(d.stack, entry{})
	}
	e := &d.stack[level]
	e.thread = tr.Thread
	e.fp = m.NextFootprint(tr.Thread)
	e.vis = d.visibleWrite(e.fp)
}

// After implements explorer.Dynamic.
func (d *Dynamic) After(m *vm.Machine, level int, isNew, onStack bool) {
	// The footprint stays the one predicted before the transition ran,
	// even if it threw: the happens-before order must be built from the
	// same dependencies the race checks saw (a transition recorded as more
	// dependent than predicted would order, and hide, races nobody
	// checked). What an exception adds cannot race: it releases monitors
	// the thread holds (every earlier operation on them happens before it
	// took them) and ends the thread (nobody can have joined it yet).
	d.clock(level)
	n := level + 1
	for p := int32(0); int(p) < m.NumThreads(); p++ {
		st := m.ThreadStatus(p)
		if st == vm.StatusTerminated {
			continue
		}
		cp := d.clockOf(p, n)
		if isNew {
			if st == vm.StatusNew {
				continue // it cannot run before it is started, later
			}
			fp := m.NextFootprint(p)
			if fp.Kind == vm.FootNone {
				continue
			}
			vis := d.visibleWrite(fp)
			for i := n - 1; i >= 0; i-- {
				x := &d.stack[i]
				if x.thread == p || at(cp, x.thread) >= int32(i+1) || !dependent(x.fp, x.vis, fp, vis) || !coEnabled(x.fp, fp, x.thread) {
					continue
				}
				d.backtrack(i, p)
				break
			}
			continue
		}
		// A revisit: every access p may still make, by the static
		// analysis, against the whole stack.
		d.red.future(m, p, d.fut)
		waiting := st == vm.StatusWaiting || st == vm.StatusNotified
		for i := n - 1; i >= 0; i-- {
			x := &d.stack[i]
			if x.thread == p || at(cp, x.thread) >= int32(i+1) {
				continue
			}
			if d.dependentFuture(x.fp, x.vis, p, waiting) {
				d.backtrack(i, p)
			}
		}
	}
	if onStack {
		d.sched.ScheduleAll(level)
	}
}

// backtrack adds thread p at level i, or all of level i's transitions if p
// was not enabled there.
func (d *Dynamic) backtrack(i int, p int32) {
	if d.ample[i] {
		// A persistent set already: no transition outside it can race
		// with one in it before one of them runs.
		return
	}
	for _, u := range d.enabled[i] {
		if u == p {
			d.sched.Schedule(i, p)
			return
		}
	}
	d.sched.ScheduleAll(i)
}

// at reads a vector clock (missing entries are 0).
func at(c []int32, u int32) int32 {
	if int(u) < len(c) {
		return c[u]
	}
	return 0
}

// clockOf returns thread p's clock after the first n transitions of the
// stack: that of its last transition, or of the start that made it
// runnable, or nil (all zero).
func (d *Dynamic) clockOf(p int32, n int) []int32 {
	for j := n - 1; j >= 0; j-- {
		x := &d.stack[j]
		if x.thread == p || x.fp.Kind == vm.FootThread && x.fp.Write && x.fp.Index == int64(p) {
			return x.clock
		}
	}
	return nil
}

// clock computes the vector clock of the transition at level: its
// thread's, joined with those of every earlier dependent transition.
func (d *Dynamic) clock(level int) {
	e := &d.stack[level]
	c := e.clock[:0]
	base := d.clockOf(e.thread, level)
	c = append(c, base...)
	for j := 0; j < level; j++ {
		x := &d.stack[j]
		if x.thread == e.thread || !dependent(x.fp, x.vis, e.fp, e.vis) {
			continue
		}
		for len(c) < len(x.clock) {
			c = append(c, 0)
		}
		for u, v := range x.clock {
			if v > c[u] {
				c[u] = v
			}
		}
	}
	for int(e.thread) >= len(c) {
		c = append(c, 0)
	}
	c[e.thread] = int32(level + 1)
	e.clock = c
}

// coEnabled reports whether transition a (taken by thread ta) and the next
// transition b of another thread may be enabled in the same state, as
// Flanagan and Godefroid's race condition requires: not a monitor operation
// done holding the monitor and another thread's operation on the same
// monitor (one of them would wait for the other), and not the end of
// thread ta and a join of ta (the join waits for it). Races are only
// looked for among transitions that may be co-enabled; the others stay
// ordered by happens-before.
func coEnabled(a, b vm.Footprint, ta int32) bool {
	switch {
	case a.Kind == vm.FootMonitor && b.Kind == vm.FootMonitor && a.Obj == b.Obj:
		return a.Acquire && b.Acquire
	case a.Kind == vm.FootThread && b.Kind == vm.FootThread && a.Write && !b.Write && a.Index == int64(ta):
		return false
	}
	return true
}

// visibleWrite reports whether fp writes something an invariant reads.
func (d *Dynamic) visibleWrite(fp vm.Footprint) bool {
	if !fp.Write || len(d.red.prog.Invariants) == 0 {
		return false
	}
	r := d.red
	switch fp.Kind {
	case vm.FootField:
		return has(r.invRead, int(fp.Index)) || has(r.invRead, 2*r.nent+int(fp.Index))
	case vm.FootStatic:
		return has(r.invRead, len(r.prog.Fields)+int(fp.Index))
	case vm.FootElem:
		return has(r.invRead, r.nent-1)
	}
	return false
}

// dependent is the dependency relation between two footprints: the same
// location, one of them writing (monitor operations always conflict). Two
// writes of what the invariants read are dependent too, so that every
// combination of values they can see is reached.
// (va and vb: whether a and b write what the invariants read.)
func dependent(a vm.Footprint, va bool, b vm.Footprint, vb bool) bool {
	if a.Kind == vm.FootNone || b.Kind == vm.FootNone {
		return false
	}
	if a.Kind == vm.FootAny || b.Kind == vm.FootAny {
		return true
	}
	if va && vb {
		return true
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case vm.FootField, vm.FootElem:
		return a.Obj == b.Obj && a.Index == b.Index && (a.Write || b.Write)
	case vm.FootStatic, vm.FootThread:
		return a.Index == b.Index && (a.Write || b.Write)
	case vm.FootMonitor:
		return a.Obj == b.Obj
	}
	return true
}

// dependentFuture reports whether footprint a may be dependent with some
// access thread p can still make (d.fut, by the static analysis): the same
// field, static or array elements with a write on either side, any monitor
// operation (or p waiting for one), any start or join, p's own status, or,
// for a write the invariants see, a write of anything they read.
func (d *Dynamic) dependentFuture(a vm.Footprint, vis bool, p int32, waiting bool) bool {
	r, f := d.red, d.fut
	g := 2 * r.nent
	conflict := func(e int, write bool) bool {
		if has(f, r.nent+e) || has(f, g+r.nent+e) {
			return true
		}
		return write && (has(f, e) || has(f, g+e))
	}
	switch a.Kind {
	case vm.FootNone:
		return false
	case vm.FootAny:
		return true
	}
	if vis {
		for e := 0; e < r.nent; e++ {
			if (has(r.invRead, e) || has(r.invRead, g+e)) && (has(f, r.nent+e) || has(f, g+r.nent+e)) {
				return true
			}
		}
	}
	switch a.Kind {
	case vm.FootField:
		return conflict(int(a.Index), a.Write)
	case vm.FootStatic:
		return conflict(len(r.prog.Fields)+int(a.Index), a.Write)
	case vm.FootElem:
		return conflict(r.nent-1, a.Write)
	case vm.FootMonitor:
		return waiting || has(f, r.monBit)
	case vm.FootThread:
		return a.Index == int64(p) || has(f, r.joinBit) || has(f, r.startBit)
	}
	return true
}

// monitorOp reports whether an instruction operates on a monitor (a
// synchronized call or return counts: see analyse).
func monitorOp(op bytecode.Opcode) bool {
	switch op {
	case bytecode.OpMonitorenter, bytecode.OpMonitorexit, bytecode.OpWait, bytecode.OpNotify, bytecode.OpNotifyall:
		return true
	}
	return false
}
