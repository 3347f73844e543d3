// Stateful dynamic partial-order reduction: races on the DFS stack, vector clocks, static summaries at revisits.

package por

import (
	"math/bits"
	"slices"

	"mcvm/heap"
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
// below it must be accounted for without it (MoonWalker section 6.1): every
// transition on the stack that is dependent with an access a thread p may
// make below the state, and does not happen before p, gets p added as a
// backtracking point. What p may access comes from the summarised
// interleaving information (SII, MoonWalker section 6.2) of the state when
// it has one: per thread, the fields, statics, arrays, monitor operations
// and thread starts and joins of every transition explored below it,
// gathered level by level as the search backtracks and kept, collapsed, for
// every state the search has left. A state still on the stack (a cycle) or
// without a summary falls back on the static analysis of what each thread
// can still do from it (the one the ample sets use, at the level of fields
// rather than objects), which over-approximates the whole state space below
// the state; its accesses count in the summaries above it. Reaching a state
// on the stack also expands the state the cycle was closed from fully (the
// cycle proviso C3 stack: otherwise a thread could be ignored around the
// cycle).
type Dynamic struct {
	red   *Reducer
	sched interface {
		Schedule(level int, thread int32)
		ScheduleAll(level int)
	}
	stack   []entry
	top     int       // stack[:top] are the current path's transitions
	enabled [][]int32 // per level: the threads enabled there
	ample   []bool    // per level: explored with the static reducer's persistent set
	// done[level]: bit u set once thread u (u < 63) has been added at
	// level, bit 63 once all of its transitions have, so that the
	// many races found at a revisit against the same level cost nothing
	// after the first.
	done []uint64
	fut  []uint64

	// Indexes of the path, so that a race check or a vector clock looks
	// only at the transitions that can be dependent instead of scanning
	// the whole stack: per location (an open-addressing table) the last
	// level that touched it, chained to the earlier ones through
	// entry.prevLoc; the last level of unknown footprint (FootAny) and the
	// last write the invariants read, chained likewise; and per thread the
	// last level it ran or was started at. Each link is undone when its
	// entry leaves the path.
	locs    []locSlot
	nlocs   int
	anyHead int32
	visHead int32
	rel     []int32
	// For revisits, which compare a thread's future accesses (by the
	// static analysis, per field, static and the arrays: its entities)
	// with the path: per entity the last level that touched it, chained
	// through entry.prevEnt, and the last monitor operation and thread
	// status access, chained through entry.prevKind.
	entHead []int32
	monHead int32
	thrHead int32

	// SII selects the summaries at revisits (see Dynamic; NewDynamic sets
	// it); without it every revisit uses the static analysis. sum[level]
	// holds the accesses of each thread below the state at level so far
	// (words per thread, in the static futures' layout); sumOf maps a
	// state id to its summary in pool (-1: none).
	SII   bool
	sum   [][]uint64
	sumOf []int32
	pool  siiPool
	// nextFP holds, when nextOK, the footprints After found for the
	// threads of the new state it was called for (FootNone for those it
	// skipped), which Enter of that state takes for its summary instead of
	// computing them again.
	nextFP []vm.Footprint
	nextOK bool
}

// locSlot is a location's slot in Dynamic.locs: the location (see
// locOf) and the last level on the path that touched it (-1: none now).
type locSlot struct {
	used bool
	kind vm.FootKind
	obj  heap.Ref
	idx  int64
	head int32
}

// entry is the transition taken from one level of the DFS stack.
type entry struct {
	thread int32
	fp     vm.Footprint
	vis    bool    // fp writes something an invariant reads
	clock  []int32 // clock[u]: 1 + the last level of thread u that happens before it
	// Links of the path's indexes, each with what it replaced.
	slot      int32 // its location's slot in Dynamic.locs (-1 for FootNone and FootAny)
	prevLoc   int32 // the previous level on the same location (for FootAny: the previous FootAny level)
	prevVis   int32 // the previous visible write (when vis)
	prevRel   int32 // the previous level of the same thread or of its start
	started   int32 // another thread whose status this transition writes (its start), or -1
	prevStart int32 // the previous level of started
	ent       int32 // the static analysis's entity of a field, static or element access, or -1
	prevEnt   int32 // the previous level on the same entity
	prevKind  int32 // the previous monitor operation or thread status access (FootMonitor, FootThread)
}

// NewDynamic returns the dynamic reduction for program p, using r (which must
// have been built by New with a mode including DPOR) for the static
// summaries.
func NewDynamic(r *Reducer) *Dynamic {
	return &Dynamic{red: r, fut: make([]uint64, r.words), SII: true}
}

// Start implements explorer.Dynamic.
func (d *Dynamic) Start(s interface {
	Schedule(level int, thread int32)
	ScheduleAll(level int)
}) {
	d.sched = s
	d.stack = d.stack[:0]
	d.top = 0
	if d.locs == nil {
		d.locs = make([]locSlot, 64)
	}
	clear(d.locs)
	d.nlocs = 0
	d.anyHead, d.visHead = -1, -1
	d.rel = d.rel[:0]
	if d.entHead == nil {
		d.entHead = make([]int32, d.red.nent)
	}
	for i := range d.entHead {
		d.entHead[i] = -1
	}
	d.monHead, d.thrHead = -1, -1
	d.sumOf = d.sumOf[:0]
	d.pool = siiPool{}
	d.nextOK = false
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
	for len(d.done) <= level {
		d.done = append(d.done, 0)
	}
	d.done[level] = 0
	for len(d.sum) <= level {
		d.sum = append(d.sum, nil)
	}
	d.sum[level] = d.sum[level][:0]
	if d.SII {
		// The races of this state are those of every thread's next
		// transition, enabled or not (see After): its summary starts with
		// them.
		for p := int32(0); int(p) < m.NumThreads(); p++ {
			var fp vm.Footprint
			switch {
			case d.nextOK && int(p) < len(d.nextFP):
				fp = d.nextFP[p]
			case m.ThreadStatus(p) != vm.StatusTerminated && m.ThreadStatus(p) != vm.StatusNew:
				fp = m.NextFootprint(p)
			}
			if fp.Kind != vm.FootNone {
				d.summarise(level, p, fp, d.entity(fp))
			}
		}
	}
	d.nextOK = false
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
// to be taken from level, which becomes the top of the path.
func (d *Dynamic) Before(m *vm.Machine, level int, tr vm.Trans) {
	d.nextOK = false
	for d.top > level {
		d.pop()
	}
	for len(d.stack) <= level {
		d.stack = append(d.stack, entry{})
	}
	e := &d.stack[level]
	e.thread = tr.Thread
	e.fp = m.NextFootprint(tr.Thread)
	e.vis = d.visibleWrite(e.fp)
	lv := int32(level)
	e.slot = -1
	switch e.fp.Kind {
	case vm.FootNone:
	case vm.FootAny:
		e.prevLoc, d.anyHead = d.anyHead, lv
	default:
		e.slot = d.slotOf(e.fp, true)
		e.prevLoc, d.locs[e.slot].head = d.locs[e.slot].head, lv
	}
	if e.vis {
		e.prevVis, d.visHead = d.visHead, lv
	}
	e.ent = d.entity(e.fp)
	switch {
	case e.ent >= 0:
		e.prevEnt, d.entHead[e.ent] = d.entHead[e.ent], lv
	case e.fp.Kind == vm.FootMonitor:
		e.prevKind, d.monHead = d.monHead, lv
	case e.fp.Kind == vm.FootThread:
		e.prevKind, d.thrHead = d.thrHead, lv
	}
	d.growRel(e.thread)
	e.prevRel, d.rel[e.thread] = d.rel[e.thread], lv
	e.started = -1
	if q := e.fp.Index; e.fp.Kind == vm.FootThread && e.fp.Write && q != int64(e.thread) && q >= 0 && q < int64(m.NumThreads()) {
		e.started = int32(q)
		d.growRel(e.started)
		e.prevStart, d.rel[e.started] = d.rel[e.started], lv
	}
	d.top = level + 1
}

// pop removes the top transition from the path, undoing its links.
func (d *Dynamic) pop() {
	d.top--
	e := &d.stack[d.top]
	if e.started >= 0 {
		d.rel[e.started] = e.prevStart
	}
	d.rel[e.thread] = e.prevRel
	switch {
	case e.ent >= 0:
		d.entHead[e.ent] = e.prevEnt
	case e.fp.Kind == vm.FootMonitor:
		d.monHead = e.prevKind
	case e.fp.Kind == vm.FootThread:
		d.thrHead = e.prevKind
	}
	if e.vis {
		d.visHead = e.prevVis
	}
	switch e.fp.Kind {
	case vm.FootNone:
	case vm.FootAny:
		d.anyHead = e.prevLoc
	default:
		d.locs[e.slot].head = e.prevLoc
	}
}

// entity returns the static analysis's entity of a field, static or
// array element access, and -1 for other footprints.
func (d *Dynamic) entity(fp vm.Footprint) int32 {
	switch fp.Kind {
	case vm.FootField:
		return int32(fp.Index)
	case vm.FootStatic:
		return int32(len(d.red.prog.Fields)) + int32(fp.Index)
	case vm.FootElem:
		return int32(d.red.nent - 1)
	}
	return -1
}

func (d *Dynamic) growRel(p int32) {
	for int(p) >= len(d.rel) {
		d.rel = append(d.rel, -1)
	}
}

// locOf normalises a footprint to the location it touches: two footprints
// of the same kind are dependent (one of them writing, for all but
// monitors) exactly when their locations are equal.
func locOf(fp vm.Footprint) (heap.Ref, int64) {
	switch fp.Kind {
	case vm.FootStatic, vm.FootThread:
		return 0, fp.Index
	case vm.FootMonitor:
		return fp.Obj, 0
	}
	return fp.Obj, fp.Index
}

// slotOf returns the slot of fp's location in d.locs (FootField, FootElem,
// FootStatic, FootThread or FootMonitor), adding it if add is set; -1 if it
// is not there.
func (d *Dynamic) slotOf(fp vm.Footprint, add bool) int32 {
	obj, idx := locOf(fp)
	mask := uint64(len(d.locs) - 1)
	h := (uint64(uint32(obj))<<8 | uint64(fp.Kind)) * 0x9e3779b97f4a7c15
	h ^= uint64(idx) * 0xc2b2ae3d27d4eb4f
	i := (h ^ h>>31) & mask
	for {
		sl := &d.locs[i]
		if !sl.used {
			break
		}
		if sl.kind == fp.Kind && sl.obj == obj && sl.idx == idx {
			return int32(i)
		}
		i = (i + 1) & mask
	}
	if !add {
		return -1
	}
	if 2*(d.nlocs+1) > len(d.locs) {
		d.growLocs()
		return d.slotOf(fp, true)
	}
	d.nlocs++
	d.locs[i] = locSlot{used: true, kind: fp.Kind, obj: obj, idx: idx, head: -1}
	return int32(i)
}

// growLocs rehashes the location table, dropping locations no transition
// of the path touches, doubling it if it is still more than a quarter
// full, and moves the path's entries to their new slots.
func (d *Dynamic) growLocs() {
	old := d.locs
	live := 0
	for _, sl := range old {
		if sl.used && sl.head >= 0 {
			live++
		}
	}
	n := len(old)
	if 4*(live+1) > n {
		n *= 2
	}
	d.locs = make([]locSlot, n)
	d.nlocs = 0
	for _, sl := range old {
		if sl.used && sl.head >= 0 {
			i := d.slotOf(vm.Footprint{Kind: sl.kind, Obj: sl.obj, Index: sl.idx}, true)
			d.locs[i].head = sl.head
		}
	}
	for j := 0; j < d.top; j++ {
		if e := &d.stack[j]; e.slot >= 0 {
			e.slot = d.slotOf(e.fp, false)
		}
	}
}

// clockOf returns thread p's clock on the current path: that of its last
// transition, or of the start that made it runnable, or nil (all zero).
func (d *Dynamic) clockOf(p int32) []int32 {
	if int(p) < len(d.rel) && d.rel[p] >= 0 {
		return d.stack[d.rel[p]].clock
	}
	return nil
}

// After implements explorer.Dynamic.
func (d *Dynamic) After(m *vm.Machine, level int, id int32, isNew, onStack bool) {
	// The footprint stays the one predicted before the transition ran,
	// even if it threw: the happens-before order must be built from the
	// same dependencies the race checks saw (a transition recorded as more
	// dependent than predicted would order, and hide, races nobody
	// checked). What an exception adds cannot race: it releases monitors
	// the thread holds (every earlier operation on them happens before it
	// took them) and ends the thread (nobody can have joined it yet).
	d.clock(level)
	n := level + 1
	sii := int32(-1) // the revisited state's summary
	if d.SII && !isNew && !onStack && id >= 0 && int(id) < len(d.sumOf) {
		sii = d.sumOf[id]
	}
	d.nextOK = isNew && d.SII
	if d.nextOK {
		if nt := m.NumThreads(); cap(d.nextFP) < nt {
			d.nextFP = make([]vm.Footprint, nt, 2*nt)
		} else {
			d.nextFP = d.nextFP[:nt]
			clear(d.nextFP)
		}
	}
	for p := int32(0); int(p) < m.NumThreads(); p++ {
		st := m.ThreadStatus(p)
		if st == vm.StatusTerminated {
			continue
		}
		cp := d.clockOf(p)
		if isNew {
			if st == vm.StatusNew {
				continue // it cannot run before it is started, later
			}
			fp := m.NextFootprint(p)
			if d.nextOK {
				d.nextFP[p] = fp
			}
			if fp.Kind == vm.FootNone {
				continue
			}
			if d.SII {
				// (In the parent's summary also when the state is not
				// expanded and so gets no summary of its own.)
				d.summarise(level, p, fp, d.entity(fp))
			}
			if i := d.race(p, cp, fp, d.visibleWrite(fp), n); i >= 0 {
				d.backtrack(i, p)
			}
			continue
		}
		// A revisit: every access p may make below the state (its
		// summary, or by the static analysis) against the whole stack.
		if sii >= 0 {
			d.pool.thread(sii, p, d.fut)
		} else {
			d.red.future(m, p, d.fut)
		}
		if d.SII {
			d.merge(level, p, d.fut)
		}
		d.revisit(p, cp, st == vm.StatusWaiting || st == vm.StatusNotified)
	}
	if onStack {
		d.done[level] = allDone
		d.sched.ScheduleAll(level)
	}
}

// revisit adds thread p, whose future accesses are d.fut and clock cp, as
// a backtracking point at every level of the path whose transition is
// another thread's, does not happen before p and may be dependent with
// one of those accesses (waiting: p waits for a monitor): the levels on
// an entity p may write, the writes on one it may read, the monitor
// operations if p may do one, the accesses to p's status (to any thread's
// if p may start or join one), those of unknown footprint, and the
// visible writes if p may write what an invariant reads.
func (d *Dynamic) revisit(p int32, cp []int32, waiting bool) {
	r, f := d.red, d.fut
	n := r.nent
	races := func(i int32) bool {
		x := &d.stack[i]
		return x.thread != p && at(cp, x.thread) < i+1
	}
	for w, word := range f {
		for word != 0 {
			b := w*64 + bits.TrailingZeros64(word)
			word &= word - 1
			if b >= 4*n {
				break // joinBit, startBit, monBit
			}
			e, write := b%(2*n), false
			if e >= n {
				e, write = e-n, true
			}
			for i := d.entHead[e]; i >= 0; i = d.stack[i].prevEnt {
				if (write || d.stack[i].fp.Write) && races(i) {
					d.backtrack(int(i), p)
				}
			}
		}
	}
	if waiting || has(f, r.monBit) {
		for i := d.monHead; i >= 0; i = d.stack[i].prevKind {
			if races(i) {
				d.backtrack(int(i), p)
			}
		}
	}
	anyThread := has(f, r.joinBit) || has(f, r.startBit)
	for i := d.thrHead; i >= 0; i = d.stack[i].prevKind {
		if (anyThread || d.stack[i].fp.Index == int64(p)) && races(i) {
			d.backtrack(int(i), p)
		}
	}
	for i := d.anyHead; i >= 0; i = d.stack[i].prevLoc {
		if races(i) {
			d.backtrack(int(i), p)
		}
	}
	if d.visHead >= 0 && d.futureWritesInvariant() {
		for i := d.visHead; i >= 0; i = d.stack[i].prevVis {
			if races(i) {
				d.backtrack(int(i), p)
			}
		}
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
	if d.done[i]&allDone != 0 || p < 63 && d.done[i]&(1<<p) != 0 {
		return
	}
	for _, u := range d.enabled[i] {
		if u == p {
			d.sched.Schedule(i, p)
			if p < 63 {
				d.done[i] |= 1 << p
			}
			return
		}
	}
	d.sched.ScheduleAll(i)
	d.done[i] = allDone
}

const allDone = 1 << 63

// at reads a vector clock (missing entries are 0).
func at(c []int32, u int32) int32 {
	if int(u) < len(c) {
		return c[u]
	}
	return 0
}

// race returns the last of the first n levels whose transition races with
// thread p's next one (footprint fp, vis if it writes what an invariant
// reads, p's clock cp): another thread's, dependent with it, not
// happening before p, and possibly enabled together with it; -1 if none.
// A level explored with a persistent set does not count: p cannot run
// before the set's transitions there (see backtrack), so the race can
// only be reversed further down, and stopping at that level, as the
// search once did, left the earlier one unreversed (a reentrant
// monitorenter made a persistent set hid the race of the first one:
// por/testdata/gen_base_341_reentrant.mcasm).
// Only the levels that can be dependent are looked at: those on fp's
// location, those of unknown footprint and, for a visible write, the
// other visible writes.
func (d *Dynamic) race(p int32, cp []int32, fp vm.Footprint, vis bool, n int) int {
	races := func(i int32) bool {
		x := &d.stack[i]
		return !d.ample[i] && x.thread != p && at(cp, x.thread) < i+1 && dependent(x.fp, x.vis, fp, vis) && coEnabled(x.fp, fp, x.thread)
	}
	if fp.Kind == vm.FootAny {
		for i := int32(n - 1); i >= 0; i-- {
			if races(i) {
				return int(i)
			}
		}
		return -1
	}
	best := int32(-1)
	if sl := d.slotOf(fp, false); sl >= 0 {
		for i := d.locs[sl].head; i >= 0; i = d.stack[i].prevLoc {
			if races(i) {
				best = i
				break
			}
		}
	}
	for i := d.anyHead; i > best; i = d.stack[i].prevLoc {
		if races(i) {
			best = i
			break
		}
	}
	if vis {
		for i := d.visHead; i > best; i = d.stack[i].prevVis {
			if races(i) {
				best = i
				break
			}
		}
	}
	return int(best)
}

// clock computes the vector clock of the transition at level (the top of
// the path): its thread's, joined with those of every earlier dependent
// transition of other threads. It is enough to join the last ones: on a
// location, every earlier access dependent with this one is dependent
// with, and so happens before, the last write before it (every monitor
// operation counts as a write); every earlier transition of unknown
// footprint happens before the last one, and every earlier visible write
// before the last one.
func (d *Dynamic) clock(level int) {
	e := &d.stack[level]
	c := e.clock[:0]
	if e.prevRel >= 0 {
		c = append(c, d.stack[e.prevRel].clock...)
	}
	join := func(x *entry) {
		if x.thread == e.thread {
			return // its own clock is at least x's already
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
	switch e.fp.Kind {
	case vm.FootNone:
	case vm.FootAny:
		for j := 0; j < level; j++ {
			if x := &d.stack[j]; dependent(x.fp, x.vis, e.fp, e.vis) {
				join(x)
			}
		}
	default:
		for j := e.prevLoc; j >= 0; {
			x := &d.stack[j]
			if dependent(x.fp, x.vis, e.fp, e.vis) {
				join(x)
			}
			if x.fp.Write || x.fp.Kind == vm.FootMonitor {
				break
			}
			j = x.prevLoc
		}
		if j := d.anyHead; j >= 0 {
			join(&d.stack[j])
		}
		if e.vis && e.prevVis >= 0 {
			join(&d.stack[e.prevVis])
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
func (d *Dynamic) visibleWrite(fp vm.Footprint) bool { return d.red.visibleWrite(fp) }

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

// futureWritesInvariant reports whether the thread whose future is d.fut
// may write something an invariant reads.
func (d *Dynamic) futureWritesInvariant() bool {
	r, f := d.red, d.fut
	g := 2 * r.nent
	for e := 0; e < r.nent; e++ {
		if (has(r.invRead, e) || has(r.invRead, g+e)) && (has(f, r.nent+e) || has(f, g+r.nent+e)) {
			return true
		}
	}
	return false
}

// summarise notes, in the summary of level, an access of thread t's next
// transition in a state below it (footprint fp, entity ent): an entity's read or
// write bit, the monitor bit, the start or join bit (a thread's own end
// needs none: races on a thread's status are checked by the thread's
// index), or everything for an unknown footprint.
func (d *Dynamic) summarise(level int, t int32, fp vm.Footprint, ent int32) {
	r := d.red
	w := d.threadSum(level, t)
	switch {
	case ent >= 0:
		b := int(ent)
		if fp.Write {
			b += r.nent
		}
		set(w, b)
	case fp.Kind == vm.FootMonitor:
		set(w, r.monBit)
	case fp.Kind == vm.FootThread && !fp.Write:
		set(w, r.joinBit)
	case fp.Kind == vm.FootThread && fp.Index != int64(t):
		set(w, r.startBit)
	case fp.Kind == vm.FootAny:
		for b := 0; b < 2*r.nent; b++ {
			set(w, b)
		}
		set(w, r.monBit)
		set(w, r.joinBit)
		set(w, r.startBit)
	}
}

// threadSum returns thread t's words of the summary of level, growing it.
func (d *Dynamic) threadSum(level int, t int32) []uint64 {
	k := d.red.words
	sm := d.sum[level]
	for len(sm) < (int(t)+1)*k {
		sm = append(sm, 0)
	}
	d.sum[level] = sm
	return sm[int(t)*k : (int(t)+1)*k]
}

// merge adds bits, accesses thread t may make, to the summary of level.
func (d *Dynamic) merge(level int, t int32, bits []uint64) {
	or(d.threadSum(level, t), bits)
}

// Leave implements explorer.Dynamic: the state at level, stored as id, is
// done; its summary is kept for revisits and joins its parent's. (With
// sleep sets a state can be left twice, the second time after exploring
// transitions woken by a revisit: its summary is then the union.)
func (d *Dynamic) Leave(level int, id int32) {
	if !d.SII || id < 0 || level >= len(d.sum) {
		return
	}
	for int(id) >= len(d.sumOf) {
		d.sumOf = append(d.sumOf, -1)
	}
	if old := d.sumOf[id]; old >= 0 {
		k := d.red.words
		for t := int32(0); int(t)*k < int(d.pool.size[old]); t++ {
			d.pool.thread(old, t, d.fut)
			d.merge(level, t, d.fut)
		}
	}
	sm := d.sum[level]
	d.sumOf[id] = d.pool.add(sm)
	if level > 0 {
		k := d.red.words
		for t := 0; t*k < len(sm); t++ {
			d.merge(level-1, int32(t), sm[t*k:(t+1)*k])
		}
	}
}

// Asleep implements explorer.Dynamic: the transitions of the threads
// asleep at level are not explored from it, so what they would access
// below it is not seen there; the summary takes the static analysis's
// future of each instead.
func (d *Dynamic) Asleep(m *vm.Machine, level int, threads uint64) {
	if !d.SII {
		return
	}
	for b := threads; b != 0; b &= b - 1 {
		p := int32(bits.TrailingZeros64(b))
		if int(p) < m.NumThreads() {
			d.red.future(m, p, d.fut)
			d.merge(level, p, d.fut)
		}
	}
}

// Dependent implements explorer.Sleeper, as Reducer.Dependent.
func (d *Dynamic) Dependent(a, b vm.Footprint) bool { return d.red.Dependent(a, b) }

// SIIStats describes the summaries kept: how many states have one, how
// many distinct summaries there are, and their memory collapsed (each
// distinct summary once, plus an index per state) and as it would be
// without collapsing (a summary per state).
type SIIStats struct {
	States         int64 `json:"states"`
	Distinct       int64 `json:"distinct"`
	CollapsedBytes int64 `json:"collapsed_bytes"`
	FullBytes      int64 `json:"uncollapsed_bytes"`
}

// SIIStats reports the summaries kept by the last search.
func (d *Dynamic) SIIStats() SIIStats {
	p := &d.pool
	var st SIIStats
	for _, i := range d.sumOf {
		if i >= 0 {
			st.States++
			// A summary per state: its words and a slice header.
			st.FullBytes += int64(p.size[i])*8 + 24
		}
	}
	st.Distinct = int64(len(p.off))
	st.CollapsedBytes = int64(cap(p.words))*8 + int64(cap(p.off)+cap(p.size)+cap(p.next))*4 +
		int64(len(p.head))*16 + int64(cap(d.sumOf))*4
	return st
}

// siiPool keeps each distinct summary once (collapse compression of the
// summaries, MoonWalker section 6.3): summaries are trimmed of trailing
// zero words, hashed, and looked up in chains of equal hashes.
type siiPool struct {
	words []uint64 // the summaries, one after another
	off   []int32  // summary i is words[off[i] : off[i]+size[i]]
	size  []int32
	next  []int32          // the next summary with the same hash, or -1
	head  map[uint64]int32 // hash -> the first summary with it
}

// add returns the index of summary sm, adding it if new.
func (p *siiPool) add(sm []uint64) int32 {
	for len(sm) > 0 && sm[len(sm)-1] == 0 {
		sm = sm[:len(sm)-1]
	}
	h := uint64(len(sm)) * 0x9e3779b97f4a7c15
	for _, w := range sm {
		h = (h ^ w) * 0xff51afd7ed558ccd
		h ^= h >> 32
	}
	if p.head == nil {
		p.head = map[uint64]int32{}
	}
	first, ok := p.head[h]
	if ok {
		for i := first; i >= 0; i = p.next[i] {
			if slices.Equal(p.words[p.off[i]:p.off[i]+p.size[i]], sm) {
				return i
			}
		}
	} else {
		first = -1
	}
	i := int32(len(p.off))
	p.off = append(p.off, int32(len(p.words)))
	p.size = append(p.size, int32(len(sm)))
	p.next = append(p.next, first)
	p.words = append(p.words, sm...)
	p.head[h] = i
	return i
}

// thread copies thread t's words of summary i to dst (zeros past its end).
func (p *siiPool) thread(i, t int32, dst []uint64) {
	clear(dst)
	k := len(dst)
	sm := p.words[p.off[i] : p.off[i]+p.size[i]]
	lo := int(t) * k
	if lo < len(sm) {
		copy(dst, sm[lo:min(lo+k, len(sm))])
	}
}
