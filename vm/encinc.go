// Incremental encoding: write again only the components that changed since a base state.

package vm

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"mcvm/heap"
)

// incEnc is what the incremental encoder keeps of its base, a state it
// encoded, so that an encoding of a state one transition away copies the
// records of the components that did not change and writes only the
// others (MoonWalker's delta collapse, for the plain encoding).
//
// The components of an encoding are the statics block (component 0),
// each thread's record (component i+1 for thread i, whose Thread object
// is numbered i+1) and each object's record (component k for the object
// numbered k). What changed since the base:
//
//   - a thread whose stamp differs from the one it had: a stamp
//     identifies a thread's contents, since encode advances the clock (a
//     thread changed after an encoding gets a stamp no encoding has seen)
//     and Restore gives back a copy's contents with the stamp they had;
//   - the objects in the write log, which the executors append to when
//     they write a slot or a monitor (wrote), and the statics if one was
//     written (wroteStatic). A Thread object's monitor is part of its
//     thread's record.
//
// An allocation, a log grown past logMax, or a state replaced in another
// way (Decode, Init, PermuteThreads) makes the next encoding whole.
//
// Copying the other records is right only if the canonical numbering did
// not change. It did not if every changed component, written again with
// the base's numbering, refers to objects numbered before it or, in the
// old order, to exactly the objects the base's traversal numbered from it
// (heap.Canon.Verify): the traversal then meets the same objects in the
// same order everywhere. Otherwise encode writes the whole state, which
// becomes the base.
//
// The base follows depth-first search: Save makes the state it saves the
// base if that state was the last encoded (its encoding is kept already),
// and Restore gives back the base (the write log empties) or, for another
// snapshot, encodes the restored state whole and makes it the base (at
// once or when it is restored again, see restored). So the successors of
// a state are each compared with it and differ from it by one
// transition's writes.
type incEnc struct {
	// lastFirst: the threads' records run from the last thread to the
	// first, else from the first (fixed per program, see joins). Objects
	// are numbered in the traversal's order, so the thread whose record
	// comes first numbers the objects it reaches first. A main thread that
	// outlives the others (it joins them) keeps the shared objects' numbers
	// stable while they move when it comes first (MolDyn: 4-6% fewer
	// instructions than the other order); one that starts them and returns
	// comes last, so that its return lets go of the last numbers only,
	// which fingerprintDirty takes in without a whole encoding (the
	// philosophers: 11% fewer with --hash-compact).
	lastFirst bool
	ok        bool    // the fields below describe the base, and the log is complete
	bc        int     // the base's numbering is encoder.canons[bc]
	bytes     bool    // enc and start describe the base (see promote)
	enc       []byte  // the base's encoding
	start     []int32 // per component, where its record begins in enc; then len(enc)
	before    []int32 // per component, objects numbered when the traversal reached it; then all
	stamps    []uint64
	nobjs     int    // the length of the base's heap
	gen       uint64 // advanced whenever the base's numbering is made anew

	// What encodeWhole recorded of the last whole encoding: start and
	// before for it.
	wstart, wbefore []int32

	// Fingerprints (fingerprint.go): the terms of the base's components
	// and their sum; the same of the last whole encoding; the new terms of
	// the last incremental encoding's dirty components; and the sum of the
	// last encoding's terms, whose mix is its fingerprint.
	terms, wterms []uint64
	sum, wsum     uint64
	newTerms      []uint64
	lastSum       uint64
	fpBuf         []byte // what EncodeFingerprint writes whole

	log     []heap.Ref // objects written since the base (repeats possible)
	statics bool       // a static was written since the base
	whole   bool       // the next encoding must be whole (allocation, log full)
	freed   bool       // the collector freed objects since the base (unlogged: the encoding never holds them; see undoLogged)
	// The threads stamped since the state was last the base's (repeats
	// possible; see stamp): only these can differ from the base's records.
	// all: more than fit, every thread may differ.
	touched [touchedMax]int32
	nTouch  int
	all     bool

	snap      *Snapshot // the snapshot the base was saved to (or nil)
	snapClock uint64    // and its clock then
	// Backtracking (see restored): the snapshot restored last that was
	// not the base's, how many such there were, and how many restores of
	// them in all.
	run            *Snapshot
	runClock       uint64
	runs, restores int

	// The last encoding, of the state of version lastVer: what it was, its
	// bytes (if lastInc or lastWhole), and if incremental, per component
	// rewritten, its number, its new term, and (if lastInc) its record's
	// length before and after.
	lastKind int
	truncTo  int // lastCutFP: the components kept
	last     []byte
	lastVer  uint64
	dirty    []int32
	oldLen   []int32
	newLen   []int32

	marked    []bool // per component: in dirty, once dirty is long (see touch)
	manyDirty bool   // dirty has dirtyScan components or more: marked is kept (kept, not derived from len(dirty): the test of a length cost touch 0.4% more instructions)
	scratch   []byte // the encoding of a restored state
	hits      uint64 // incremental encodings (for the tests)
	keptSteps uint64 // fingerprints StepAhead took kept (keptahead.go; for the tests)
	rolls     uint64 // levels rolled back (for the tests)
}

// encBack is kept by a snapshot whose state became the incremental
// encoder's base by promotion from its parent's: what the parent had of
// the components that differ, with which backtracking turns the base
// back into the parent's (rollBack) instead of encoding it again. It is
// one byte string: a byte saying its form, then per component ascending
// its number (a uvarint), its term (8 bytes, little-endian) and, in form
// backRecords, its record's length (a uvarint) and the record; form
// backTerms, when the base keeps no bytes (see promote), has no records.
// The threads' stamps are not kept (see rollBack). A DFS level holds one,
// so one slice header instead of four saves about a hundred bytes a
// level.
type encBack struct {
	parent      *Snapshot // the parent's snapshot, and its clock then
	parentClock uint64
	gen         uint64 // the numbering's generation (incEnc.gen); 0: none kept
	data        []byte
}

// The kinds of the last encoding.
const (
	lastBase    = iota // the base's (as it was recorded)
	lastInc            // incremental, with the base's numbering
	lastIncFP          // incremental, fingerprint only: the dirty components' terms were computed, the encoding not written
	lastWhole          // whole, with the other numbering (encoder.canons[1-bc])
	lastCutFP          // as lastIncFP, with the base's numbering cut short after truncTo-1 objects (see fingerprintDirty)
	lastWholeFP        // as lastWhole, fingerprint only: the terms were computed, the encoding not written (see foldOther)
)

// The forms of encBack.data.
const (
	backRecords = iota
	backTerms
)

// logMax bounds the write log: a longer log means a transition that wrote
// many objects, which encode then writes whole.
const logMax = 1024

// wrote logs a write to a slot or the monitor of object r.
func (m *Machine) wrote(r heap.Ref) {
	in := &m.enc.inc
	if !in.ok {
		return
	}
	n := len(in.log)
	if n > 0 && in.log[n-1] == r {
		return
	}
	if n == logMax {
		in.whole = true
		return
	}
	in.log = append(in.log, r)
}

// wroteStatic logs a write to a static.
func (m *Machine) wroteStatic() { m.enc.inc.statics = true }

// allocatedInc notes an allocation: the next encoding is whole.
func (m *Machine) allocatedInc() { m.enc.inc.whole = true }

// replaced notes a state replaced other than by a transition or a
// snapshot: there is no base.
func (m *Machine) replaced() { m.enc.inc.ok = false }

// clearLog empties the write log and the list of threads stamped: the
// state is the base.
func (in *incEnc) clearLog() {
	in.log = in.log[:0]
	in.statics, in.whole, in.freed = false, false, false
	in.nTouch, in.all = 0, false
}

// touchedMax bounds the threads incEnc lists as stamped since the base;
// past it, every thread is compared.
const touchedMax = 16

// stamp notes that thread t changes: it gets the machine's clock as its
// stamp (see Snapshot), and the incremental encoder lists it as stamped
// since the base, so that the encoder (encodeInc) and a restore by the
// write log (Restore) look at the threads listed instead of comparing
// every thread's stamp. Every change to a thread goes through stamp.
func (m *Machine) stamp(t *Thread) {
	t.stamp = m.clock
	in := &m.enc.inc
	n := in.nTouch
	if n > 0 && in.touched[n-1] == t.ID {
		return
	}
	if n == touchedMax {
		in.all = true
		return
	}
	in.touched[n] = t.ID
	in.nTouch = n + 1
}

// stampAll stamps every thread.
func (m *Machine) stampAll() {
	for _, t := range m.S.Threads {
		t.stamp = m.clock
	}
	m.enc.inc.all = true
}

// recordInc makes the state just encoded whole with the base's numbering
// (encoder.canons[bc]) the base: enc, whose starts and befores
// encodeWhole recorded. It takes the threads' stamps and empties the log.
func (e *encoder) recordInc(enc []byte, ver uint64) {
	in := &e.inc
	in.enc = append(in.enc[:0], enc...)
	in.start, in.wstart = in.wstart, in.start
	e.recordBase(true, ver)
}

// recordFP makes the state just folded whole with the base's numbering
// (foldWhole) the base, which keeps no bytes (as after promote of an
// incremental fingerprint).
func (e *encoder) recordFP(ver uint64) { e.recordBase(false, ver) }

// recordBase ends recordInc and recordFP: the befores, terms and sum
// of the whole encoding become the base's, which keeps bytes if bytes.
func (e *encoder) recordBase(bytes bool, ver uint64) {
	in := &e.inc
	in.before, in.wbefore = in.wbefore, in.before
	in.terms, in.wterms = in.wterms, in.terms
	in.sum = in.wsum
	in.stamps = in.stamps[:0]
	for _, t := range e.st.Threads {
		in.stamps = append(in.stamps, t.stamp)
	}
	in.nobjs = len(e.st.Heap.Objs)
	in.gen++
	in.stashRoom()
	n := len(in.terms)
	in.marked = slices.Grow(in.marked[:0], n)[:n]
	clear(in.marked)
	in.dirty, in.manyDirty = in.dirty[:0], false
	in.clearLog()
	in.ok, in.bytes, in.lastKind, in.lastVer, in.snap = true, bytes, lastBase, ver, nil
}

// saved is called by Save with the snapshot it saved: if the state was
// encoded last, it becomes the base.
func (m *Machine) saved(s *Snapshot) {
	e := &m.enc
	in := &e.inc
	s.encBack.gen = 0
	if !in.ok || in.lastVer != m.version {
		return
	}
	switch in.lastKind {
	case lastInc, lastIncFP:
		if in.snap != nil {
			in.keepBack(&s.encBack)
		}
		e.promote()
	case lastWhole:
		// Written with the other numbering, which becomes the base's.
		in.bc = 1 - in.bc
		e.recordInc(in.last, m.version)
	case lastWholeFP:
		in.bc = 1 - in.bc
		e.recordFP(m.version)
	case lastCutFP:
		// A numbering cut short is the base's no longer: the state is
		// written whole to be the base (rare: the main thread's return
		// mostly reaches states visited before).
		in.ok = false
		in.scratch = m.Encode(in.scratch[:0])
		if !in.ok {
			return
		}
	}
	in.clearLog()
	in.snap, in.snapClock = s, s.clock
}

// isBase reports whether s is the base's snapshot, as it was saved.
func (in *incEnc) isBase(s *Snapshot) bool {
	return in.ok && in.snap == s && in.snapClock == s.clock
}

// loggedSince reports whether the machine's state is s's but for the
// objects in the write log and the statics if one was written: s is the
// base, the log is complete, and nothing was allocated or freed since
// (what restoreBase, undoLogged and diffLogged rely on; the threads are
// the stamped ones, see stamp).
func (in *incEnc) loggedSince(s *Snapshot) bool {
	return in.isBase(s) && !in.whole && !in.freed
}

// restoredBase counts a restore of s (see restored) and, if s is the
// base's snapshot, empties the log and reports true: the state is the
// base again. (Small enough to be inlined into Restore's fast path.)
func (in *incEnc) restoredBase(s *Snapshot) bool {
	if in.run == s && in.runClock == s.clock {
		in.restores++
	}
	if in.isBase(s) {
		in.clearLog()
		return true
	}
	return false
}

// restored is called by Restore with the snapshot it restored. If that is
// the base's, the state is the base again. Otherwise the state is the
// parent of the subtree just explored, and its remaining successors
// follow: encoding it whole to make it the base pays if several do, and
// costs a whole encoding for nothing if one does (or none is encoded).
// So the machine counts how many times, on average, a snapshot is
// restored in a row once backtracked to: at two or more it makes the
// state the base at once; below, only when it is restored a second time
// (the first successor is then written whole).
func (m *Machine) restored(s *Snapshot) {
	in := &m.enc.inc
	if in.restoredBase(s) || !in.ok {
		return
	}
	for in.snap != nil && in.snapClock == in.snap.clock {
		b := &in.snap.encBack
		if b.gen == 0 || b.gen != in.gen || b.parent.clock != b.parentClock {
			break
		}
		m.enc.rollBack(b, m.version)
		if in.isBase(s) {
			in.clearLog()
			return
		}
	}
	if in.run != s || in.runClock != s.clock {
		// Backtracked to s.
		eager := in.restores >= 2*in.runs
		in.run, in.runClock = s, s.clock
		in.runs++
		in.restores++
		if !eager {
			in.ok = false
			return
		}
	}
	in.ok = false
	in.scratch = m.Encode(in.scratch[:0])
	if in.ok {
		in.snap, in.snapClock = s, s.clock
	}
}

// keepBack keeps in b what rollBack needs to turn the last encoding,
// incremental, back into the base's, which is its parent's.
func (in *incEnc) keepBack(b *encBack) {
	b.parent, b.parentClock, b.gen = in.snap, in.snapClock, in.gen
	form := byte(backRecords)
	if in.lastKind == lastIncFP {
		form = backTerms
	}
	d := append(b.data[:0], form)
	for _, k := range in.dirty {
		d = heap.AppendUvarint(d, uint64(k))
		d = binary.LittleEndian.AppendUint64(d, in.terms[k])
		if form == backTerms {
			continue
		}
		rec := in.enc[in.start[k]:in.start[k+1]]
		d = heap.AppendUvarint(d, uint64(len(rec)))
		d = append(d, rec...)
	}
	b.data = d
}

// backUvarint reads the uvarint at data[p:] (a component's number in an
// encBack: most take one byte, read here without a call).
func backUvarint(data []byte, p int) (uint64, int) {
	if b := data[p]; b < 0x80 {
		return uint64(b), 1
	}
	return binary.Uvarint(data[p:])
}

// rollBack makes the base's parent (see encBack) the base. The base's
// bytes are rebuilt if it has them and b keeps records; with terms only,
// it has none after. It runs only at the end of Restore (restored), when
// the machine holds the state the base is rolled back towards, so the
// threads' stamps are taken from the machine's threads rather than kept in
// b: a rollback that stops short of that state leaves no base (restored),
// so the stamps of the states rolled through on the way (which may have
// more threads than the machine holds) are never read. (Kept in b as
// uvarints, the stamps and their decoding were 1.4% of the instructions
// of philo N = 7 with --hash-compact.)
func (e *encoder) rollBack(b *encBack, ver uint64) {
	in := &e.inc
	in.untouch()
	data := b.data[1:]
	if b.data[0] == backTerms {
		for p := 0; p < len(data); {
			k, n := backUvarint(data, p)
			p += n
			if i := in.threadOf(int32(k)); i >= 0 && i < len(e.st.Threads) {
				in.stamps[i] = e.st.Threads[i].stamp
			}
			t := binary.LittleEndian.Uint64(data[p:])
			p += 8
			in.sum += t - in.terms[k]
			in.terms[k] = t
		}
		in.bytes = false
	} else {
		rebuild := in.bytes
		in.oldLen, in.newLen = in.oldLen[:0], in.newLen[:0]
		out := in.last[:0]
		prev := int32(0)
		for p := 0; p < len(data); {
			k, n := backUvarint(data, p)
			p += n
			c := int32(k)
			if i := in.threadOf(c); i >= 0 && i < len(e.st.Threads) {
				in.stamps[i] = e.st.Threads[i].stamp
			}
			t := binary.LittleEndian.Uint64(data[p:])
			p += 8
			ln, n := binary.Uvarint(data[p:])
			p += n
			rec := data[p : p+int(ln)]
			p += int(ln)
			in.sum += t - in.terms[c]
			in.terms[c] = t
			if rebuild {
				out = append(out, in.enc[in.start[prev]:in.start[c]]...)
				out = append(out, rec...)
				in.dirty = append(in.dirty, c)
				in.oldLen = append(in.oldLen, in.start[c+1]-in.start[c])
				in.newLen = append(in.newLen, int32(ln))
				prev = c + 1
			}
		}
		if rebuild {
			out = append(out, in.enc[in.start[prev]:]...)
			in.enc, in.last = out, in.enc
			in.shiftStarts()
			in.dirty = in.dirty[:0]
		}
	}
	in.snap, in.snapClock = b.parent, b.parentClock
	in.lastKind, in.lastVer = lastBase, ver
	in.lastSum = in.sum
	in.rolls++
}

// promote makes the last (incremental) encoding the base. If it was made
// for its fingerprint only (lastIncFP), the base keeps no bytes after:
// its terms, stamps and numbering are what the next incremental
// fingerprints need, and a search that keeps fingerprints only (hash
// compaction, bitstate hashing) asks for no encoding; one that is asked
// for is then written whole (see encode).
func (e *encoder) promote() {
	in := &e.inc
	if in.lastKind == lastIncFP {
		in.bytes = false
	} else {
		// (The last encoding is not read again once it is the base's:
		// its memory becomes the scratch that the next one is assembled
		// in.)
		in.enc, in.last = in.last, in.enc
		in.shiftStarts()
	}
	for i, k := range in.dirty {
		if i := in.threadOf(k); i >= 0 {
			in.stamps[i] = e.st.Threads[i].stamp
		}
		in.terms[k] = in.newTerms[i]
	}
	in.sum = in.lastSum
	in.lastKind = lastBase
}

// shiftStarts moves the starts of the records after each dirty component
// by the lengths the records gained or lost so far (oldLen to newLen).
func (in *incEnc) shiftStarts() {
	var delta int32
	d := in.dirty
	for i, k := range d {
		delta += in.newLen[i] - in.oldLen[i]
		if delta == 0 {
			continue
		}
		end := len(in.start)
		if i+1 < len(d) {
			end = int(d[i+1]) + 1
		}
		for j := int(k) + 1; j < end; j++ {
			in.start[j] += delta
		}
	}
}

// untouch empties the list of dirty components (and their marks).
func (in *incEnc) untouch() {
	if in.manyDirty {
		in.unmark()
	}
	in.dirty = in.dirty[:0]
}

// unmark clears the marks of the dirty components.
func (in *incEnc) unmark() {
	for _, k := range in.dirty {
		in.marked[k] = false
	}
	in.manyDirty = false
}

// threadOf returns the thread whose record is component k of the base,
// or -1 if k is not a thread's (see lastFirst).
func (in *incEnc) threadOf(k int32) int {
	n := int32(len(in.stamps))
	if k < 1 || k > n {
		return -1
	}
	return int(in.thread(k, n))
}

// thread returns the thread whose record is component k (1 <= k <= n) of
// a state of n threads, and component the component of thread i's.
func (in *incEnc) thread(k, n int32) int32 {
	if in.lastFirst {
		return n - k
	}
	return k - 1
}

func (in *incEnc) component(i, n int32) heap.Ref {
	if in.lastFirst {
		return heap.Ref(n - i)
	}
	return heap.Ref(i + 1)
}

// dirtyScan is the length of the dirty list from which touch looks a
// component up in marked instead of scanning the list: a transition
// changes one to three components, and keeping marks cost more than
// the scan (setting and clearing them, 0.8% of the instructions of
// philosophers N = 7 with --hash-compact).
const dirtyScan = 8

// touch notes that component k changed.
func (in *incEnc) touch(k heap.Ref) {
	if !in.manyDirty {
		for _, d := range in.dirty {
			if d == int32(k) {
				return
			}
		}
		in.dirty = append(in.dirty, int32(k))
		if len(in.dirty) == dirtyScan {
			in.markAll()
		}
		return
	}
	if !in.marked[k] {
		in.marked[k] = true
		in.dirty = append(in.dirty, int32(k))
	}
}

// markAll marks the dirty components, from which on touch looks them up
// in marked.
func (in *incEnc) markAll() {
	for _, d := range in.dirty {
		in.marked[d] = true
	}
	in.manyDirty = true
}

// cuts appends the ends of the components (see EncodeSplit) of the last
// encoding, incremental, written at b[base:].
func (in *incEnc) cuts(cuts []int32, base int) []int32 {
	var delta int32
	i := 0
	for k := 1; k < len(in.start); k++ {
		for i < len(in.dirty) && int(in.dirty[i]) < k {
			delta += in.newLen[i] - in.oldLen[i]
			i++
		}
		cuts = append(cuts, in.start[k]+delta+int32(base))
	}
	return cuts
}

// wholeCuts appends the ends of the components of the last encoding,
// whole, written at b[base:].
func (in *incEnc) wholeCuts(cuts []int32, base int) []int32 {
	for _, e := range in.wstart[1:] {
		cuts = append(cuts, e+int32(base))
	}
	return cuts
}

// encodeInc appends the encoding of the state to b by copying the base's
// records of the components that did not change, and reports false if it
// cannot (see incEnc; or, if full, the base keeps no bytes); the caller
// then encodes the whole state, which becomes the base. Unless full, it
// appends only the records of the components that changed, enough for
// the fingerprint. The caller sets the last encoding's version (lastVer)
// when it reports true.
func (e *encoder) encodeInc(b []byte, full bool) ([]byte, bool) {
	in, s, c := &e.inc, e.st, e.canon
	// Objects are added only by allocations, which make in.whole; the
	// length is checked as well, since the numbering has room for the
	// objects of the base's heap only.
	if in.whole || len(s.Threads) != len(in.stamps) || len(s.Heap.Objs) != in.nobjs || full && !in.bytes {
		return b, false
	}
	in.untouch()
	if in.statics {
		in.touch(0)
	}
	nt := int32(len(s.Threads))
	if in.all {
		for i, t := range s.Threads {
			if t.stamp != in.stamps[i] {
				in.touch(in.component(int32(i), nt))
			}
		}
	} else {
		for _, i := range in.touched[:in.nTouch] {
			if s.Threads[i].stamp != in.stamps[i] {
				in.touch(in.component(i, nt))
			}
		}
	}
	for _, r := range in.log {
		switch id := c.ID(r); {
		case id > heap.Ref(nt):
			in.touch(id)
		case id != 0:
			// A Thread object's monitor is in its thread's record.
			in.touch(in.component(int32(id)-1, nt))
		}
	}
	if !full {
		return b, e.fingerprintDirty()
	}
	out, ok := e.rewrite(b)
	if ok {
		in.last = append(in.last[:0], out[len(b):]...)
		in.lastKind = lastInc
	}
	return out, ok
}

// fingerprintDirty is rewrite for the fingerprint alone: it computes the
// term of each dirty component from the values its record would hold
// (see fingerprint.go), writing no record, checks the numbering as the
// writing would, and sets the component's new term and the sum and the
// kind of the last encoding; it reports false if the
// numbering changed. Each component's check stands alone
// (heap.Canon.Verify), so the dirty components are taken in the order
// they were found.
//
// One change of the numbering is taken in where the records run from the
// last thread to the first (incEnc.lastFirst): the last thread record
// (thread 0's, the main thread's) letting go of the last objects the
// base's traversal numbered from it. After that record come only
// objects' records; if none of the objects still reached refers to one
// past them (heap.Canon.RefersPast, on the state's objects), the objects
// let go of are unreachable, and nothing was numbered after them (an
// object record would have referred to it): the state's numbering is the
// base's cut short, and its components are the base's without the
// objects' let go of (kind lastCutFP). So the main thread's return,
// which drops the objects only it referred to, is not a whole encoding.
func (e *encoder) fingerprintDirty() bool {
	in, s, c := &e.inc, e.st, e.canon
	h := &s.Heap
	nt := int32(len(s.Threads))
	sum := in.sum
	in.newTerms = in.newTerms[:0]
	cut := -1 // the objects numbered when the numbering is cut short, or -1
	for _, k := range in.dirty {
		var t uint64
		switch {
		case k == 0:
			c.Verify(int(in.before[k]))
			t = e.staticsTerm()
		case k <= nt:
			i := in.thread(k, nt)
			th := s.Threads[i]
			if c.ID(th.Obj) != heap.Ref(i+1) {
				return false
			}
			c.Verify(int(in.before[k]))
			t = e.threadTerm(int(k), th, nil)
		default:
			if c.Object(h, int(k)).Kind == heap.KindFree {
				// Freed since it was numbered: one of the objects a
				// numbering cut short let go of (see below), written
				// before it was let go of; the numbering is not the
				// base's.
				return false
			}
			c.Verify(int(in.before[k]))
			t = c.ObjectTerm(h, e.layout, int(k))
		}
		after := int(in.before[k+1])
		reached, ok := c.VerifiedPrefix(after)
		if !ok {
			return false
		}
		if reached != after {
			if !in.lastFirst || k != nt {
				return false
			}
			cut = reached
		}
		in.newTerms = append(in.newTerms, t)
		sum += t - in.terms[k]
	}
	in.lastKind = lastIncFP
	if cut >= 0 {
		// Cut short after the object numbered cut: no object past it
		// may have changed, and no object up to it may refer past it.
		for _, k := range in.dirty {
			if int(k) > cut {
				return false
			}
		}
		if c.RefersPast(h, e.layout, int(nt), cut) {
			return false
		}
		for k := cut + 1; k < len(in.terms); k++ {
			sum -= in.terms[k]
		}
		in.lastKind, in.truncTo = lastCutFP, cut+1
		// The numbering reaches the objects let go of: it is not this
		// state's mark for the collector.
		e.canonVer = ^uint64(0)
	}
	in.lastSum = sum
	return true
}

// rewrite appends to b the base's encoding with the records of the dirty
// components written again, checking the numbering as it goes; it
// reports false if the numbering changed. It sets the terms and the sum
// of the fingerprint, and the records' old and new lengths.
// (EncodeFingerprint's incremental encodings are fingerprintDirty's.)
func (e *encoder) rewrite(b []byte) ([]byte, bool) {
	in, s, c := &e.inc, e.st, e.canon
	h := &s.Heap
	d := in.dirty
	in.oldLen, in.newLen, in.newTerms = in.oldLen[:0], in.newLen[:0], in.newTerms[:0]
	if len(d) == 0 {
		in.lastSum = in.sum
		return append(b, in.enc...), true
	}
	// Sort the few dirty components (insertion sort: usually one to three).
	for i := 1; i < len(d); i++ {
		for j := i; j > 0 && d[j] < d[j-1]; j-- {
			d[j], d[j-1] = d[j-1], d[j]
		}
	}
	nt := int32(len(s.Threads))
	need := len(in.enc)
	for _, k := range d {
		switch {
		case k == 0:
			need += e.staticsRoom()
		case k <= nt:
			i := in.thread(k, nt)
			t := s.Threads[i]
			if c.ID(t.Obj) != heap.Ref(i+1) {
				return b, false
			}
			need += threadRoom(t)
		default:
			need += c.ObjectRoom(h, int(k))
		}
	}
	base := len(b)
	b = heap.Room(b, need)
	w := b[:cap(b)]
	p := base
	prev := int32(0) // the next component whose record is still to copy
	sum := in.sum
	for _, k := range d {
		p += copy(w[p:], in.enc[in.start[prev]:in.start[k]])
		q := p
		c.Verify(int(in.before[k]))
		var t uint64
		switch {
		case k == 0:
			p, t = e.putStatics(w, p)
		case k <= nt:
			p, t = e.putThread(w, p, s.Threads[in.thread(k, nt)], nil, int(k))
		default:
			p, t = c.PutObject(w, p, h, e.layout, int(k))
		}
		if !c.Verified(int(in.before[k+1])) {
			return b, false
		}
		in.oldLen = append(in.oldLen, in.start[k+1]-in.start[k])
		in.newLen = append(in.newLen, int32(p-q))
		in.newTerms = append(in.newTerms, t)
		sum += t - in.terms[k]
		prev = k + 1
	}
	p += copy(w[p:], in.enc[in.start[prev]:])
	in.lastSum = sum
	return w[:p], true
}

// checkIncremental encodes the whole state again and panics if enc (just
// written incrementally; nil: none) differs from it, or the fingerprint's
// terms or sum differ, or, if split, the cuts (offsets from base) differ
// (see Tuning.CheckEncoding). It leaves the base, the log and the numbering (and
// whether it is the state's mark, canonVer) as they were.
func (m *Machine) checkIncremental(enc []byte, cuts []int32, split bool, base int) {
	in := &m.enc.inc
	saved := *in
	saved.enc, saved.start, saved.before = slices.Clone(in.enc), slices.Clone(in.start), slices.Clone(in.before)
	saved.stamps, saved.log, saved.marked = slices.Clone(in.stamps), slices.Clone(in.log), slices.Clone(in.marked)
	saved.last, saved.dirty = slices.Clone(in.last), slices.Clone(in.dirty)
	saved.oldLen, saved.newLen = slices.Clone(in.oldLen), slices.Clone(in.newLen)
	saved.wstart, saved.wbefore = slices.Clone(in.wstart), slices.Clone(in.wbefore)
	saved.terms, saved.wterms, saved.newTerms = slices.Clone(in.terms), slices.Clone(in.wterms), slices.Clone(in.newTerms)
	c, cv := m.enc.canon, m.enc.canonVer
	ids, order := c.Save()
	m.enc.noInc = true
	full, fullCuts := m.encode(nil, nil, split, nil, nil, true)
	m.enc.noInc = false
	if enc != nil && !bytes.Equal(enc, full) {
		panic(fmt.Sprintf("vm: incremental encoding\n%x\ndiffers from the whole\n%x", enc, full))
	}
	terms := slices.Clone(saved.terms)
	for i, k := range saved.dirty {
		terms[k] = saved.newTerms[i]
	}
	if saved.lastKind == lastCutFP {
		terms = terms[:saved.truncTo]
	}
	if !slices.Equal(terms, in.wterms) {
		panic(fmt.Sprintf("vm: incremental fingerprint's terms %x differ from the whole encoding's %x", terms, in.wterms))
	}
	if got, want := heap.Mix(saved.lastSum), heap.Mix(in.lastSum); got != want {
		panic(fmt.Sprintf("vm: incremental fingerprint %016x differs from the whole encoding's %016x", got, want))
	}
	for i := range cuts {
		cuts[i] -= int32(base)
	}
	if split && !slices.Equal(cuts, fullCuts) {
		panic(fmt.Sprintf("vm: incremental encoding's cuts %v differ from the whole's %v", cuts, fullCuts))
	}
	for i := range cuts {
		cuts[i] += int32(base)
	}
	*in = saved
	in.stashRoom()
	m.enc.canon, m.enc.canonVer = c, cv
	c.Load(ids, order)
}

// checkFolded panics if the befores, terms or sum foldWhole just set
// differ from those encodeWhole sets for the state (see Tuning.CheckEncoding); it
// leaves them, and the numbering, as foldWhole did.
func (e *encoder) checkFolded() {
	in := &e.inc
	before, terms, sum := slices.Clone(in.wbefore), slices.Clone(in.wterms), in.wsum
	e.encodeWhole(nil, nil, nil, true)
	if !slices.Equal(before, in.wbefore) || !slices.Equal(terms, in.wterms) || sum != in.wsum {
		panic(fmt.Sprintf("vm: a state folded whole (befores %v, terms %x) differs from its whole encoding (befores %v, terms %x)", before, terms, in.wbefore, in.wterms))
	}
	in.wstart = in.wstart[:0]
}

// FPStash is what EncodeFingerprint left of an incremental encoding (see
// Machine.StashFingerprint): the dirty components and their new terms,
// up to stashMax of them.
type FPStash struct {
	ok             bool
	n              int32
	gen, snapClock uint64
	snap           *Snapshot
	sum            uint64
	dirty          [stashMax]int32
	newTerms       [stashMax]uint64
}

// stashMax is the most dirty components an FPStash keeps: a transition
// changes one to three components (its thread, an object, a thread it
// woke); one that changed more is encoded again.
const stashMax = 4

// UnstashFingerprint puts back fewer dirty components than touch starts
// marking from.
var _ [dirtyScan - 1 - stashMax]struct{}

// StashFingerprint keeps in st what the EncodeFingerprint just done left,
// if it was incremental, so that UnstashFingerprint can stand for it when
// the same state is reached again from the same base: explorer's
// lookahead executes a new state's transition a second time, and need not
// encode it again. The encoder is left as it was.
func (m *Machine) StashFingerprint(st *FPStash) {
	in := &m.enc.inc
	n := len(in.dirty)
	st.ok = in.ok && in.lastKind == lastIncFP && in.lastVer == m.version && n <= stashMax
	if !st.ok {
		return
	}
	st.gen, st.snap, st.snapClock, st.sum, st.n = in.gen, in.snap, in.snapClock, in.lastSum, int32(n)
	// The whole arrays, past n too (see stashRoom): a copy of 48 bytes
	// instead of a loop.
	st.dirty = [stashMax]int32(in.dirty[:stashMax])
	st.newTerms = [stashMax]uint64(in.newTerms[:stashMax])
}

// stashRoom makes room for stashMax dirty components and terms, which
// StashFingerprint and UnstashFingerprint copy whole, without a test
// there (the test kept StashFingerprint from being inlined: 1% more
// instructions). The lists keep their room, so it is made where a base
// is recorded (no stash is made before) and where checkIncremental puts
// back copies.
func (in *incEnc) stashRoom() {
	if cap(in.dirty) < stashMax || cap(in.newTerms) < stashMax {
		in.dirty = slices.Grow(in.dirty, stashMax)
		in.newTerms = slices.Grow(in.newTerms, stashMax)
	}
}

// UnstashFingerprint stands for EncodeFingerprint when the machine holds
// the state st was stashed for, reached again by the same transition
// from the same base (its snapshot restored, then the transition
// executed): it leaves the encoder as that encoding did and returns the
// fingerprint. If the base is not the one st was stashed with (or st
// holds nothing), it reports false and does nothing. With Tuning.CheckEncoding it
// encodes the state and compares.
func (m *Machine) UnstashFingerprint(st *FPStash) (uint64, bool) {
	in := &m.enc.inc
	if !st.ok || !in.ok || in.gen != st.gen || in.snap != st.snap || in.snapClock != st.snapClock || in.snap == nil {
		return 0, false
	}
	if m.opts.Tuning.CheckEncoding {
		fp := m.EncodeFingerprint()
		if fp != heap.Mix(st.sum) {
			panic(fmt.Sprintf("vm: a stashed fingerprint %016x differs from the state's %016x", heap.Mix(st.sum), fp))
		}
		st.ok = false
		return fp, true
	}
	m.clock++ // (as encode: see incEnc)
	m.enc.canonVer = m.version
	m.enc.canon = &m.enc.canons[in.bc]
	in.untouch()
	// (Fewer than dirtyScan: no marks. The arrays whole, as stashed.)
	in.dirty, in.newTerms = in.dirty[:stashMax], in.newTerms[:stashMax]
	*(*[stashMax]int32)(in.dirty) = st.dirty
	*(*[stashMax]uint64)(in.newTerms) = st.newTerms
	in.dirty, in.newTerms = in.dirty[:st.n], in.newTerms[:st.n]
	st.ok = false
	in.lastSum = st.sum
	in.lastVer, in.lastKind = m.version, lastIncFP
	in.hits++
	return heap.Mix(in.lastSum), true
}
