package por

// The dynamic reduction as first written, scanning the whole DFS stack for
// every race check, vector clock and revisit: the reference that
// TestDynamic_indexesMatchScan compares the indexed Dynamic with.

import (
	"mcvm/vm"
)

type refDynamic struct {
	red   *Reducer
	sched interface {
		Schedule(level int, thread int32)
		ScheduleAll(level int)
	}
	stack   []refEntry
	enabled [][]int32 // per level: the threads enabled there
	ample   []bool    // per level: explored with the static reducer's persistent set
	fut     []uint64
}

// refEntry is the transition taken from one level of the DFS stack.
type refEntry struct {
	thread int32
	fp     vm.Footprint
	vis    bool    // fp writes something an invariant reads
	clock  []int32 // clock[u]: 1 + the last level of thread u that happens before it
}

// newRefDynamic returns the reference dynamic reduction for program p, using r (which must
// have been built by New with a mode including DPOR) for the static
// summaries.
func newRefDynamic(r *Reducer) *refDynamic {
	return &refDynamic{red: r, fut: make([]uint64, r.words)}
}

// Start implements explorer.Dynamic.
func (d *refDynamic) Start(s interface {
	Schedule(level int, thread int32)
	ScheduleAll(level int)
}) {
	d.sched = s
	d.stack = d.stack[:0]
}

// Enter implements explorer.Dynamic: with a persistent set from the static
// reducer, that; otherwise the transitions of the first enabled thread.
func (d *refDynamic) Enter(m *vm.Machine, level int, trans []vm.Trans, n int) int {
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
func (d *refDynamic) Before(m *vm.Machine, level int, tr vm.Trans) {
	for len(d.stack) <= level {
		d.stack = append(d.stack, refEntry{})
	}
	e := &d.stack[level]
	e.thread = tr.Thread
	e.fp = m.NextFootprint(tr.Thread)
	e.vis = d.visibleWrite(e.fp)
}

// Leave implements explorer.Dynamic.
func (d *refDynamic) Leave(level int, id int32) {}

// Asleep implements explorer.Dynamic (the reference takes the static
// analysis at every revisit, which covers sleeping threads).
func (d *refDynamic) Asleep(m *vm.Machine, level int, threads uint64) {}

// After implements explorer.Dynamic.
func (d *refDynamic) After(m *vm.Machine, level int, id int32, isNew, onStack bool) {
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
				if d.ample[i] || x.thread == p || at(cp, x.thread) >= int32(i+1) || !dependent(x.fp, x.vis, fp, vis) || !coEnabled(x.fp, fp, x.thread) {
					continue // (a persistent set's level: the race is reversed further down)
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
func (d *refDynamic) backtrack(i int, p int32) {
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

// clockOf returns thread p's clock after the first n transitions of the
// stack: that of its last transition, or of the start that made it
// runnable, or nil (all zero).
func (d *refDynamic) clockOf(p int32, n int) []int32 {
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
func (d *refDynamic) clock(level int) {
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

// visibleWrite reports whether fp writes something an invariant reads.
func (d *refDynamic) visibleWrite(fp vm.Footprint) bool { return d.red.visibleWrite(fp) }

// dependentFuture reports whether footprint a may be dependent with some
// access thread p can still make (d.fut, by the static analysis): the same
// field, static or array elements with a write on either side, any monitor
// operation (or p waiting for one), any start or join, p's own status, or,
// for a write the invariants see, a write of anything they read.
func (d *refDynamic) dependentFuture(a vm.Footprint, vis bool, p int32, waiting bool) bool {
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
