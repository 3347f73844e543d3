// Snapshots: copies of the active state for fast backtracking, the heap kept as reverse deltas.

package vm

import (
	"bytes"
	"fmt"
	"slices"
	"unsafe"

	"mcvm/heap"
)

// Snapshot is a copy of a machine's state. Saving and restoring one is a
// few memory copies, much cheaper than Decode, at the price of more memory
// than an encoding. A Snapshot is reused across Saves.
//
// Threads are copied only when they changed. Every change to a thread
// stamps it with the machine's clock, and Save advances the clock, so a
// thread whose stamp is below a snapshot's clock has not changed since
// that snapshot was saved. Save shares such threads with its parent
// snapshot instead of copying them, and Restore copies back only threads
// that changed. Restore gives a restored thread the stamp it had when the
// snapshot was saved, which keeps the rule true for every snapshot still
// in use: the snapshot restored and its ancestors (depth-first search
// discards the snapshots of deeper levels before it restores a shallower
// one).
//
// Save copies the heap and the statics whole. SaveDelta keeps a reverse
// delta instead: the old values of the heap words (slots and object
// headers) and statics in which its parent's state differs from its own,
// and the parent's lengths. The machine keeps one full copy, the shadow,
// of the heap and statics of the delta saved or restored last; SaveDelta
// compares the active state with it (after rolling it back to the parent)
// to make the delta, and Restore of a delta rolls it back to the snapshot
// and copies it to the active state. A delta costs a few bytes per word
// its transitions changed instead of the whole heap, which is most of the
// memory of a deep depth-first search, for a comparison of the heap per
// save where Save copies it (benchmarks/RESULTS.md, "Stores and SPIN").
// Deltas must be a suffix of the path: once a snapshot on it is a delta,
// the later ones until it is restored past are deltas too.
type Snapshot struct {
	clock   uint64
	parent  *Snapshot     // a delta's parent
	keep    *fullCopy     // a full snapshot's copy of the heap and statics (Save); nil for a delta (SaveDelta, undo.delta)
	undo    undo          // a delta's way back to its parent
	threads []*threadCopy // the threads as they were (with the stamps they had): copies shared by the snapshots that hold them
	encBack encBack       // the way back from this state's encoding to its parent's (see incEnc)
}

// fullCopy is a copy of the heap and statics: a full snapshot's, or the
// machine's shadow.
type fullCopy struct {
	heap    heap.Heap
	statics []int64
}

// set makes c a copy of h and statics, reusing c's memory.
func (c *fullCopy) set(h *heap.Heap, statics []int64) {
	c.heap.CopyFrom(h)
	c.statics = append(c.statics[:0], statics...)
}

// undo turns a snapshot's heap and statics back into its parent's: set
// the lengths, then write the old values at their indexes. ent holds
// (index, old value) pairs: nObj of them for the words of the object
// headers (see objWords), then nData for the slots, then the statics'.
type undo struct {
	objs, data, statics int32 // the parent's lengths
	nObj, nData         int32
	delta               bool // the snapshot is a delta (SaveDelta): its heap and statics are this undo, not keep (here, it fills padding)
	ent                 []int64
}

// snapshots is the machine's side of its snapshots: the shadow, which
// deltas are taken against and rolled back in, and the memory of released
// copies that saves reuse. Its methods take the state they copy.
type snapshots struct {
	// shadow holds the heap and statics of the delta snapshot shadowAt,
	// the one saved or restored last (see Snapshot).
	shadow    fullCopy
	shadowAt  *Snapshot
	keeps     []*fullCopy   // heap copies of full snapshots since saved into as deltas, for the next Save
	copies    []*threadCopy // copies of threads no snapshot holds, for the next saves (see saveThreads)
	copyBytes int64         // the memory of every copy of a thread made for snapshots
	lines     bool          // new copies on cache lines of their own (Machine.IsolateLines)
}

// Save copies the machine's state into s. If parent is not nil, it must be
// a snapshot saved earlier on the current path (an ancestor: not restored
// past since), and s shares parent's copies of the threads that did not
// change since.
func (m *Machine) Save(s, parent *Snapshot) {
	m.snap.full(s, &m.S)
	m.clock++
	m.snap.saveThreads(s, parent, m.S.Threads, m.clock)
	m.saved(s)
}

// full makes s a full snapshot of st's heap and statics.
func (sn *snapshots) full(s *Snapshot, st *State) {
	if s.keep == nil {
		if k := len(sn.keeps); k > 0 {
			s.keep, sn.keeps = sn.keeps[k-1], sn.keeps[:k-1]
		} else {
			s.keep = new(fullCopy)
		}
	}
	s.undo.delta, s.parent = false, nil
	s.keep.set(&st.Heap, st.Statics)
}

// maxKeeps bounds the heap copies of full snapshots saved into as deltas
// that the machine keeps for the next full snapshots (snapshots.keeps): as
// many as the levels of a depth-first search below its first delta
// (explorer.DeltaSnapDepth).
const maxKeeps = 256

// SaveDelta is Save keeping the heap and statics as a reverse delta to
// parent, which must not be nil (see Snapshot).
func (m *Machine) SaveDelta(s, parent *Snapshot) {
	m.snap.delta(s, parent, &m.S, &m.enc.inc, m.opts.Tuning.CheckEncoding)
	m.clock++
	m.snap.saveThreads(s, parent, m.S.Threads, m.clock)
	m.saved(s)
}

// delta makes s's heap and statics a reverse delta from st's to
// parent's, taken from the write log of in where it applies (see
// diffLogged); check is Tuning.CheckEncoding.
func (sn *snapshots) delta(s, parent *Snapshot, st *State, in *incEnc, check bool) {
	// Roll the shadow back to parent before s is overwritten: s may be on
	// the way (a deeper snapshot being reused).
	sn.rollback(parent)
	if s.keep != nil {
		// The copy of the heap this memory kept as a full snapshot waits
		// for the next full one: a search that reuses snapshot memory at
		// other levels (see Release) would otherwise carry one in every
		// delta.
		if len(sn.keeps) < maxKeeps {
			sn.keeps = append(sn.keeps, s.keep)
		}
		s.keep = nil
	}
	s.undo.delta, s.parent = true, parent
	u := &s.undo
	sh := &sn.shadow
	u.objs, u.data, u.statics = int32(len(sh.heap.Objs)), int32(len(sh.heap.Data)), int32(len(sh.statics))
	if !sn.diffLogged(parent, u, st, in, check) {
		u.ent, sh.heap.Objs = diffObjs(st.Heap.Objs, sh.heap.Objs, u.ent[:0])
		u.nObj = int32(len(u.ent) / 2)
		u.ent, sh.heap.Data = diffInts(st.Heap.Data, sh.heap.Data, u.ent)
		u.nData = int32(len(u.ent)/2) - u.nObj
		u.ent, sh.statics = diffInts(st.Statics, sh.statics, u.ent)
	}
	sn.shadowAt = s
}

// diffLogged is SaveDelta's comparison of st's heap and statics with
// the shadow, which rollback made parent's, looking only at what the
// incremental encoder's write log says changed since parent: the objects
// in the log (their headers' words, then their slots) and the statics if
// one was written. It applies when parent is the encoder's base with a
// complete log and nothing allocated or freed since (the state was
// reached from parent by transitions: a depth-first search's new state,
// where comparing the whole heap cost about 1,300 instructions on the
// philosophers N = 7), and parent is a delta, whose shadow holds exactly
// its state (a full snapshot's need not, see rollback). It reports
// whether it applied; otherwise it has written nothing.
func (sn *snapshots) diffLogged(parent *Snapshot, u *undo, st *State, in *incEnc, check bool) bool {
	h, sh := &st.Heap, &sn.shadow.heap
	if !parent.undo.delta || !in.loggedSince(parent) || !shapedAs(st, &sn.shadow) {
		return false
	}
	for _, r := range in.log {
		if r < 1 || int(r) > len(sh.Objs) {
			return false
		}
	}
	ent := u.ent[:0]
	act, shw := objWords(h.Objs), objWords(sh.Objs)
	for _, r := range in.log {
		i := (int(r) - 1) * objWordsPer
		ent = diffRange(act, shw, i, i+objWordsPer, ent)
	}
	u.nObj = int32(len(ent) / 2)
	for _, r := range in.log {
		o := &sh.Objs[r-1]
		ent = diffRange(h.Data, sh.Data, int(o.Off), int(o.Off+o.Len), ent)
	}
	u.nData = int32(len(ent)/2) - u.nObj
	if in.statics {
		ent = diffWords(st.Statics, sn.shadow.statics, ent)
	}
	u.ent = ent
	if check {
		sn.checkShadow(st)
	}
	return true
}

// checkShadow panics unless the shadow equals st's heap and statics
// (after SaveDelta; see Tuning.CheckEncoding).
func (sn *snapshots) checkShadow(st *State) {
	h, sh := &st.Heap, &sn.shadow.heap
	if !slices.Equal(h.Objs, sh.Objs) || !slices.Equal(h.Data, sh.Data) || !slices.Equal(st.Statics, sn.shadow.statics) {
		panic("vm: a delta taken by the write log left the shadow unlike the active heap")
	}
}

// threadCopy is a snapshot's copy of a thread: its fields, and its
// frames, values and pending records in one array of values (a frame is
// the size of a value, a pending record of one and a half; see
// valueFrames). A copy is 64 bytes and its array, where a Thread with its
// three arrays took 176 bytes for a thread of one frame and three values:
// a deep depth-first stack keeps about one copy per level. Saving and
// restoring stay copies of memory. A copy is shared by every snapshot
// whose thread list holds it, and counts them (refs).
type threadCopy struct {
	stamp     uint64
	ver       uint64  // the clock of the snapshot it was saved for: with the thread's index, names its contents (see keptTrans)
	vals      []Value // the frames, the values, the pending records (the rest)
	ID        int32
	Obj       heap.Ref
	WaitObj   heap.Ref
	WaitCount int32
	nFrames   int32
	nStack    int32
	refs      int32
	Status    Status
}

// Frames and pending records are kept in arrays of values (threadCopy):
// none of the three holds pointers, a frame is the size of a value, and a
// pending record is a whole number of words. These fail to compile
// otherwise.
var (
	_ [0]struct{} = [unsafe.Sizeof(Frame{}) - unsafe.Sizeof(Value{})]struct{}{}
	_ [0]struct{} = [unsafe.Sizeof(Value{}) - unsafe.Sizeof(Frame{})]struct{}{}
	_ [0]struct{} = [unsafe.Sizeof(Pending{}) % 8]struct{}{}
)

// valueFrames views values as frames, one per value.
func valueFrames(v []Value) []Frame {
	return unsafe.Slice((*Frame)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
}

// valuePending views values as n pending records (pendingValues(n) of
// them).
func valuePending(v []Value, n int) []Pending {
	_ = v[pendingValues(n)-1]
	return unsafe.Slice((*Pending)(unsafe.Pointer(unsafe.SliceData(v))), n)
}

// pendingValues returns how many values hold n pending records.
func pendingValues(n int) int {
	return (n*int(unsafe.Sizeof(Pending{})) + int(unsafe.Sizeof(Value{})) - 1) / int(unsafe.Sizeof(Value{}))
}

// save makes c a copy of t, reusing c's array, and returns the bytes c
// grew by.
func (c *threadCopy) save(t *Thread) int64 {
	c.stamp, c.ID, c.Obj, c.WaitObj, c.WaitCount, c.Status = t.stamp, t.ID, t.Obj, t.WaitObj, t.WaitCount, t.Status
	nf, ns, np := len(t.Frames), len(t.Stack), len(t.Pending)
	c.nFrames, c.nStack = int32(nf), int32(ns)
	n := nf + ns + pendingValues(np)
	var grew int64
	if cap(c.vals) < n {
		grew = int64(n-cap(c.vals)) * int64(unsafe.Sizeof(Value{}))
		c.vals = make([]Value, n)
	}
	v := c.vals[:n]
	copy(valueFrames(v[:nf]), t.Frames)
	copy(v[nf:nf+ns], t.Stack)
	if np > 0 {
		copy(valuePending(v[nf+ns:], np), t.Pending)
	}
	c.vals = v
	return grew
}

// restore makes t the thread c copied, reusing t's arrays.
func (c *threadCopy) restore(t *Thread) {
	t.stamp, t.ID, t.Obj, t.WaitObj, t.WaitCount, t.Status = c.stamp, c.ID, c.Obj, c.WaitObj, c.WaitCount, c.Status
	nf, ns := int(c.nFrames), int(c.nStack)
	v := c.vals
	if len(v) != nf+ns || cap(t.Frames) < nf || cap(t.Stack) < ns || nf+ns > 8 {
		c.restoreArrays(t)
		return
	}
	// A few words and no pending records (most threads): copied here,
	// without calls. The slices are cut in place, which writes their
	// lengths only. (The other cases, in their own function, made this
	// one keep a larger frame.)
	fr, st := t.Frames[:nf], t.Stack[:ns]
	t.Frames, t.Stack = fr, st
	vf, vs := v[:nf], v[nf:]
	for i := range fr {
		fr[i] = *(*Frame)(unsafe.Pointer(&vf[i])) // (see valueFrames)
	}
	for i := range st {
		st[i] = vs[i]
	}
	t.Pending = t.Pending[:0]
}

// restoreArrays is restore's copy of t's arrays when they have pending
// records, more than a few words or too little room.
func (c *threadCopy) restoreArrays(t *Thread) {
	nf, ns := int(c.nFrames), int(c.nStack)
	v := c.vals
	t.Frames = append(t.Frames[:0], valueFrames(v[:nf])...)
	t.Stack = append(t.Stack[:0], v[nf:nf+ns]...)
	t.Pending = t.Pending[:0]
	if rest := len(v) - nf - ns; rest > 0 {
		// rest values hold the most records that fit (pendingValues
		// rounds up by less than a record).
		if np := rest * int(unsafe.Sizeof(Value{})) / int(unsafe.Sizeof(Pending{})); np > 0 {
			t.Pending = append(t.Pending, valuePending(v[nf+ns:], np)...)
		}
	}
}

// lineThreadCopy is a threadCopy padded to whole cache lines (see
// Machine.IsolateLines).
type lineThreadCopy struct {
	threadCopy
	_ [64 - unsafe.Sizeof(threadCopy{})%64]byte
}

// newCopy returns a new thread copy. With lines it is alone on its cache
// lines and has room for 32 values in lines of their own.
func (sn *snapshots) newCopy() *threadCopy {
	if !sn.lines {
		return new(threadCopy)
	}
	c := &new(lineThreadCopy).threadCopy
	c.vals = make([]Value, 0, 32)
	return c
}

// saveThreads copies threads into s, saved at clock (just advanced),
// sharing parent's copies of those that did not change since it was
// saved. The copies that s's old list alone held go back to the spares
// (copies) and are saved into first.
func (sn *snapshots) saveThreads(s, parent *Snapshot, threads []*Thread, clock uint64) {
	s.clock = clock
	sn.dropThreads(s)
	if cap(s.threads) < len(threads) {
		// The exact size: deep stacks keep one such slice per level.
		s.threads = make([]*threadCopy, 0, len(threads))
	}
	list := s.threads[:len(threads)]
	s.threads = list
	var shared []*threadCopy
	var since uint64
	if parent != nil {
		shared, since = parent.threads, parent.clock
	}
	for i, t := range threads {
		if i < len(shared) && t.stamp < since {
			c := shared[i]
			c.refs++
			list[i] = c
			continue
		}
		var c *threadCopy
		if n := len(sn.copies); n > 0 {
			c, sn.copies = sn.copies[n-1], sn.copies[:n-1]
		} else {
			c = sn.newCopy()
			sn.copyBytes += c.bytes()
		}
		sn.copyBytes += c.save(t)
		c.ver = s.clock
		c.refs = 1
		list[i] = c
	}
}

// dropThreads empties s's list of threads, putting the copies no other
// snapshot holds with the spares. The list's array keeps its
// pointers past the list's end: each copy there is a spare or another
// snapshot's, so none is kept alive that would not be, and saveThreads
// writes every entry before the list is read. (Clearing them, each a
// pointer store with the collector's write barrier, was 0.5% of the
// instructions of philo N = 7 with --hash-compact.)
func (sn *snapshots) dropThreads(s *Snapshot) {
	for _, c := range s.threads {
		if c.refs--; c.refs == 0 {
			sn.copies = append(sn.copies, c)
		}
	}
	s.threads = s.threads[:0]
}

// bytes returns the memory of c.
func (c *threadCopy) bytes() int64 {
	return int64(unsafe.Sizeof(*c)) + int64(cap(c.vals))*int64(unsafe.Sizeof(Value{}))
}

// Restore makes s the machine's state again.
func (m *Machine) Restore(s *Snapshot) {
	m.version++
	m.invDirty = true
	if m.restoreBase(s) {
		return
	}
	st := &m.S
	src := m.snap.source(s)
	logged := m.undoLogged(s, src)
	if !logged {
		st.Heap.CopyFrom(&src.heap)
		st.Statics = st.Statics[:0]
		if len(src.statics) > 0 { // (an append of nothing still calls memmove)
			st.Statics = append(st.Statics, src.statics...)
		}
	}
	n := len(s.threads)
	for len(m.pool) < n {
		m.pool = append(m.pool, newThread())
	}
	live := len(st.Threads)
	// S.Threads[i] is always m.pool[i] (a thread's id is its index), so the
	// slice changes only with the number of threads.
	if live != n {
		st.Threads = append(st.Threads[:0], m.pool[:n]...)
	}
	if in := &m.enc.inc; logged && live == n && !in.all {
		// The state came from s by transitions whose threads the
		// incremental encoder listed (see Machine.stamp): the list was
		// emptied when the state was s's.
		for _, i := range in.touched[:in.nTouch] {
			if t := st.Threads[i]; t.stamp >= s.clock {
				s.threads[i].restore(t)
			}
		}
	} else {
		for i, t := range st.Threads {
			if i >= live || t.stamp >= s.clock {
				s.threads[i].restore(t)
			}
		}
	}
	if m.opts.Tuning.CheckEncoding {
		checkRestored(&m.S, s, src)
	}
	m.restored(s)
}

// checkRestored panics if state st, just restored from s (whose heap and
// statics were src's), differs from it: a heap or statics other than
// src's, or a thread changed since s was saved (see Tuning.CheckEncoding).
func checkRestored(st *State, s *Snapshot, src *fullCopy) {
	h, sh := &st.Heap, &src.heap
	if !slices.Equal(h.Objs, sh.Objs) || !slices.Equal(h.Data, sh.Data) || !slices.Equal(st.Statics, src.statics) {
		panic("vm: a restored heap differs from the snapshot's copy")
	}
	for i, t := range st.Threads {
		if t.stamp >= s.clock {
			panic(fmt.Sprintf("vm: thread %d changed since the snapshot and was not restored", i))
		}
	}
}

// restoreBase is Restore of the incremental encoder's base, the state
// the machine held when s was saved, from a state that transitions
// reached from it with everything they changed logged (the lookahead's
// and depth-first search's restore after each successor): it copies
// back the objects in the write log and the threads listed, in one
// function with its helpers inlined (copyLogged, incEnc.restoredBase;
// undoLogged, the loop over the threads and restored, as calls, cost
// twice the instructions). It reports false in every other case, which
// Restore then handles (it may have copied some of the objects or rolled
// the shadow back to s by then, which Restore does again). With
// Tuning.CheckEncoding it checks the state as Restore does
// (checkRestored).
func (m *Machine) restoreBase(s *Snapshot) bool {
	in := &m.enc.inc
	if !in.loggedSince(s) || in.all {
		return false
	}
	src := m.snap.source(s) // (as Restore's; again there if this gives up)
	h, sh := &m.S.Heap, &src.heap
	if !shapedAs(&m.S, src) || len(m.S.Threads) != len(s.threads) {
		return false
	}
	if !copyLogged(h, sh, in.log) {
		// Not written by a transition: Restore copies the whole heap,
		// over what was copied so far.
		return false
	}
	if in.statics {
		copy(m.S.Statics, src.statics)
	}
	for _, i := range in.touched[:in.nTouch] {
		if t := m.S.Threads[i]; t.stamp >= s.clock {
			s.threads[i].restore(t)
		}
	}
	if m.opts.Tuning.CheckEncoding {
		checkRestored(&m.S, s, src)
	}
	in.restoredBase(s)
	return true
}

// shapedAs reports whether st's heap and statics have src's lengths:
// with loggedSince, the active state is src's but for the logged objects
// and statics. (Small enough to be inlined.)
func shapedAs(st *State, src *fullCopy) bool {
	h, sh := &st.Heap, &src.heap
	return len(h.Objs) == len(sh.Objs) && len(h.Data) == len(sh.Data) && len(st.Statics) == len(src.statics)
}

// copyLogged copies the objects in log (header and slots) from sh into h;
// it reports false at the first that is not an object of sh. (Small
// enough to be inlined into its two callers.)
func copyLogged(h, sh *heap.Heap, log []heap.Ref) bool {
	for _, r := range log {
		if r < 1 || int(r) > len(sh.Objs) {
			return false
		}
		o := &sh.Objs[r-1]
		h.Objs[r-1] = *o
		if o.Len > 0 { // (a copy of nothing still calls memmove; monitors have no slots)
			copy(h.Data[o.Off:o.Off+o.Len], sh.Data[o.Off:o.Off+o.Len])
		}
	}
	return true
}

// undoLogged gives the active heap and statics back src's contents, s's,
// by copying only what the transitions since s was saved or restored
// wrote, if the incremental encoder's write log says what that was: s is
// its base, the log is complete and no object was allocated (Restore of
// the state a transition came from, the most frequent in a depth-first
// search, where copying the whole heap was 5% of the time on
// philosophers N = 8). It reports whether it did.
func (m *Machine) undoLogged(s *Snapshot, src *fullCopy) bool {
	in, h, sh := &m.enc.inc, &m.S.Heap, &src.heap
	if !in.loggedSince(s) || !shapedAs(&m.S, src) {
		return false
	}
	if !copyLogged(h, sh, in.log) {
		// Not written by a transition: Restore copies the whole heap,
		// over what was copied so far.
		return false
	}
	if in.statics {
		copy(m.S.Statics, src.statics)
	}
	return true
}

// Bytes returns the memory s holds: the snapshot, its thread list, its
// heap (a full copy kept, or a delta) and its encoding's way back
// (capacities, as allocated). The copies of threads, which snapshots
// share, are counted by Machine.SnapshotBytes.
func (s *Snapshot) Bytes() int64 {
	n := int64(unsafe.Sizeof(*s)) + int64(cap(s.threads))*8 + int64(cap(s.undo.ent))*8 + int64(cap(s.encBack.data))
	if s.keep != nil {
		n += s.keep.bytes()
	}
	return n
}

// bytes returns the memory c holds.
func (c *fullCopy) bytes() int64 {
	return int64(unsafe.Sizeof(*c)) + int64(cap(c.heap.Objs))*int64(unsafe.Sizeof(heap.Object{})) +
		int64(cap(c.heap.Data)+cap(c.statics))*8
}

// SnapshotBytes returns the memory the machine keeps for snapshots
// besides their own (Snapshot.Bytes): every copy of a thread made for
// them, held or spare, and the heap copies kept for the next full
// snapshots (see SaveDelta).
func (m *Machine) SnapshotBytes() int64 { return m.snap.bytes() }

// bytes is SnapshotBytes.
func (sn *snapshots) bytes() int64 {
	n := sn.copyBytes + int64(cap(sn.copies))*8
	for _, c := range sn.keeps {
		n += c.bytes()
	}
	return n
}

// Release gives up snapshot s, which will not be restored or saved
// against again, so that its memory can be saved into again (Save,
// SaveDelta) at any level: child, if not nil, is the snapshot saved
// with s as its nearest ancestor. s lets go of its copies of threads (the
// ones child shares stay child's), and child stops referring to s: its
// delta, if it is one, ends the shadow's walks back (child itself is
// still restored correctly), and what it kept to turn its encoding back
// into s's is dropped. (The incremental encoder's other references to s
// are checked against its clock, which the next save into s advances.)
func (m *Machine) Release(s, child *Snapshot) {
	if child != nil {
		child.detach()
	}
	s.detach()
	m.snap.dropThreads(s)
}

// Discard tells the machine that s will not be restored, or saved
// against, before it is saved into again (a depth-first level popped): its
// copies of threads that no other snapshot holds go back to the spares.
// Without it a snapshot left behind by a deeper level that the search
// returned from held its copies, and those of its ancestors, until the
// next save into it (MolDyn: an eighth more memory). s stays as it was
// otherwise: a rollback of the shadow may walk through its delta, and the
// encoder through its way back.
func (m *Machine) Discard(s *Snapshot) { m.snap.dropThreads(s) }

// detach makes s stop referring to its parent and the parent's encoding.
func (s *Snapshot) detach() {
	s.parent = nil
	s.encBack.parent, s.encBack.gen = nil, 0
}

// ForgetShadow makes the machine forget which snapshot its shadow holds,
// so that no later rollback walks the deltas it came from. Only a full
// snapshot (Save) may then be restored or made a parent until a delta is
// saved against one: a search does this when it has loaded a state in
// another way (Decode) below which it keeps no delta.
func (m *Machine) ForgetShadow() { m.snap.shadowAt = nil }

// rollback makes the shadow hold s's heap and statics: undoing the deltas
// from the one it holds up to s, or copying s if s is full. s must be full
// or on the path of deltas from the delta saved or restored last.
//
// When the shadow stops at a full snapshot, its contents need not be that
// snapshot's (Save does not update the shadow, and a path abandoned for a
// new one may have left another state there): a full snapshot is
// restored from its own copy, and the shadow serves only as what the
// deltas saved next are taken against, which is correct whatever it
// holds, since each delta is exactly the difference from the shadow as
// it was.
func (sn *snapshots) rollback(s *Snapshot) {
	for sn.shadowAt != s && sn.shadowAt != nil && sn.shadowAt.undo.delta {
		u, sh := &sn.shadowAt.undo, &sn.shadow
		o, d := 2*int(u.nObj), 2*int(u.nObj+u.nData)
		sh.heap.Objs = undoObjs(sh.heap.Objs, int(u.objs), u.ent[:o])
		sh.heap.Data = undoInts(sh.heap.Data, int(u.data), u.ent[o:d])
		sh.statics = undoInts(sh.statics, int(u.statics), u.ent[d:])
		sn.shadowAt = sn.shadowAt.parent
	}
	if sn.shadowAt == s {
		return
	}
	if s.undo.delta {
		panic("vm: a delta snapshot restored or used as a parent is not on the path of deltas from the last one")
	}
	sn.shadow.set(&s.keep.heap, s.keep.statics)
	sn.shadowAt = s
}

// source returns the copy of s's heap and statics: its own if it is full,
// else the shadow rolled back to s. (Small enough to be inlined: most
// often the shadow is at s.)
func (sn *snapshots) source(s *Snapshot) *fullCopy {
	if !s.undo.delta {
		return s.keep
	}
	if sn.shadowAt != s {
		sn.rollback(s)
	}
	return &sn.shadow
}

// diffBlock is how many words diffWords compares at once as bytes
// (runtime memequal, vectorised) before looking at single words: most of
// a heap is unchanged between two snapshots, and a word-by-word loop cost
// 25% more instructions than copying the heap whole on MolDyn.
const diffBlock = 32

// objWords views object headers as 64-bit words (an Object is 24 bytes,
// word-aligned, with no pointers), so that the headers are compared and
// restored as words like the slots: equal words are equal headers, and a
// word that differs only in padding is restored with it, harmlessly.
func objWords(s []heap.Object) []int64 {
	return unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*objWordsPer)
}

const objWordsPer = int(unsafe.Sizeof(heap.Object{}) / 8)

// An Object must be a whole number of words (and word-aligned in its
// slice) for objWords: this fails to compile otherwise.
var _ [0]struct{} = [unsafe.Sizeof(heap.Object{}) % 8]struct{}{}

func int64Bytes(s []int64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*8)
}

// diffWords makes sh (as long as act) equal to act, appending to ent the
// (index, old value) pairs of the words it changed.
func diffWords(act, sh []int64, ent []int64) []int64 {
	for b := 0; b < len(act); b += diffBlock {
		e := min(b+diffBlock, len(act))
		a0, s0 := act[b:e], sh[b:e]
		if bytes.Equal(int64Bytes(a0), int64Bytes(s0)) {
			continue
		}
		ent = diffRange(act, sh, b, e, ent)
	}
	return ent
}

// diffRange makes sh[lo:hi] equal to act[lo:hi], appending to ent the
// (index, old value) pairs of the words it changed (indices in act and
// sh).
func diffRange(act, sh []int64, lo, hi int, ent []int64) []int64 {
	for i := lo; i < hi; i++ {
		if v := act[i]; v != sh[i] {
			ent = append(ent, int64(i), sh[i])
			sh[i] = v
		}
	}
	return ent
}

// diffTail is diffWords for sh as long as act or longer: it also records
// the words of sh beyond act's end, which a shorter state drops.
func diffTail(act, sh []int64, ent []int64) []int64 {
	ent = diffWords(act, sh[:len(act)], ent)
	for i := len(act); i < len(sh); i++ {
		ent = append(ent, int64(i), sh[i])
	}
	return ent
}

// diffInts appends to ent the (index, old value) pairs of the values of sh
// that differ from act (or lie beyond its end) and returns it with sh made
// equal to act.
func diffInts(act, sh []int64, ent []int64) ([]int64, []int64) {
	n := min(len(act), len(sh))
	ent = diffTail(act[:n], sh, ent)
	return ent, append(sh[:n], act[n:]...)
}

// diffObjs is diffInts for object headers, by words (see objWords).
func diffObjs(act, sh []heap.Object, ent []int64) ([]int64, []heap.Object) {
	n := min(len(act), len(sh))
	ent = diffTail(objWords(act[:n]), objWords(sh), ent)
	return ent, append(sh[:n], act[n:]...)
}

// undoInts sets sh's length to n and writes the (index, old value) pairs
// of ent. Every index at or beyond sh's length up to n is among them
// (diffInts records them).
func undoInts(sh []int64, n int, ent []int64) []int64 {
	if n <= cap(sh) {
		sh = sh[:n]
	} else {
		sh = append(sh, make([]int64, n-len(sh))...)
	}
	undoWords(sh, ent)
	return sh
}

// undoObjs is undoInts for object headers, by words (see objWords).
func undoObjs(sh []heap.Object, n int, ent []int64) []heap.Object {
	if n <= cap(sh) {
		sh = sh[:n]
	} else {
		sh = append(sh, make([]heap.Object, n-len(sh))...)
	}
	undoWords(objWords(sh), ent)
	return sh
}

// undoWords writes the (index, old value) pairs of ent into w.
func undoWords(w []int64, ent []int64) {
	for k := 0; k < len(ent); k += 2 {
		w[ent[k]] = ent[k+1]
	}
}

// IsolateLines keeps the copies of threads the machine makes for its
// snapshots on cache lines of their own, as its Threads always are
// (newThread). A machine that runs on one core while others run on the
// rest (a parallel search's worker) needs this: Go's allocator packs
// small objects of one size together, from whichever processor the
// goroutine runs on at the time, so two workers' copies would otherwise
// share lines that both cores write (false sharing). A sequential search
// does not call it and keeps its many copies small.
func (m *Machine) IsolateLines() { m.snap.lines = true }
