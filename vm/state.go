// The active state (threads, frames, statics, heap) and its canonical encoding.

package vm

import (
	"encoding/binary"
	"unsafe"

	"mcvm/bytecode"
	"mcvm/heap"
)

// Value is an operand-stack or local slot: an int64, or a heap reference
// when Ref is set (I then holds the heap.Ref; null is I == 0).
type Value struct {
	I   int64
	Ref bool
}

// Status is a thread's scheduling status.
type Status uint8

// Thread statuses.
const (
	StatusNew        Status = iota // created by newthread, not started
	StatusRunnable                 // may run when its next instruction is enabled
	StatusWaiting                  // in wait, until notified
	StatusNotified                 // notified, must reacquire its monitor
	StatusTerminated               // ended
)

var statusNames = [...]string{"new", "runnable", "waiting", "notified", "terminated"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "?"
}

// Frame is an activation record. Its locals are Thread.Stack[Base :
// Base+Locals]; its operand stack follows, up to the next frame's Base or
// the end of Thread.Stack. Lock is the monitor a synchronized method holds.
type Frame struct {
	Method int32
	PC     int32
	Base   int32
	Lock   heap.Ref
}

// PendingKind is the kind of a Pending record.
type PendingKind uint8

// Pending kinds.
const (
	// PendCatch: a catch (or filter) handler block that may rethrow is
	// running; Exc is the exception it handles.
	PendCatch PendingKind = iota
	// PendLeave: a finally handler runs for a leave to pc A.
	PendLeave
	// PendUnwind: a finally or fault handler runs in the second pass of
	// Exc, which goes to handler B of frame A (B -1: the filter whose copy
	// of a frame frame A is; the exception is then discarded).
	PendUnwind
	// PendFilter: Frame is a copy of frame A running the filter block of
	// handler Handler during the first pass of Exc.
	PendFilter
)

// Pending is what a frame must remember while a handler block or filter
// runs: an exception and where its handling goes on. Handler indexes the
// exception table of Frame's method. A thread's records are ordered by
// frame, and within a frame from the outermost block to the innermost;
// records of a frame go when the frame goes.
type Pending struct {
	Frame   int32
	Kind    PendingKind
	Handler int32
	Exc     heap.Ref
	A, B    int32
}

// Thread is one thread of the program. ID is its index in State.Threads.
type Thread struct {
	ID        int32
	Status    Status
	Obj       heap.Ref // its Thread object
	WaitObj   heap.Ref // the object waited on (waiting, notified)
	WaitCount int32    // the monitor count to restore after wait
	Frames    []Frame
	Stack     []Value
	Pending   []Pending // exception handling under way, usually none
	stamp     uint64    // Machine.clock when last changed (see Restore)
}

func (t *Thread) push(v Value) { t.Stack = append(t.Stack, v) }

// frameEnd is where frame fi's values end in t.Stack: the next frame's
// base, or the end of the stack.
func (t *Thread) frameEnd(fi int) int32 {
	if fi+1 < len(t.Frames) {
		return t.Frames[fi+1].Base
	}
	return int32(len(t.Stack))
}

func (t *Thread) pop() Value {
	n := len(t.Stack) - 1
	v := t.Stack[n]
	t.Stack = t.Stack[:n]
	return v
}

func (t *Thread) top() *Frame { return &t.Frames[len(t.Frames)-1] }

// peek returns the value d down the operand stack (1: the top), or the
// zero Value, not a reference, if there is none.
func (t *Thread) peek(d int) Value {
	if d < 1 || len(t.Stack) < d {
		return Value{}
	}
	return t.Stack[len(t.Stack)-d]
}

// pendingBit marks, in an encoded thread's status byte, that pending
// records follow its frames.
const pendingBit = 0x80

// State is the active state: the heap, the statics (ints, or heap.Refs for
// reference statics) and the threads in creation order.
type State struct {
	Heap    heap.Heap
	Statics []int64
	Threads []*Thread
}

// Encode appends the canonical encoding of the machine's state to b and
// returns it. Objects are renumbered by heap.Canon from the roots in this
// order: the Thread objects of all threads (so thread i's object is always
// number i+1), reference statics by index, then per thread the object it
// waits on and per frame bottom-up the lock and the reference slots; then
// the objects they reach. Garbage is not encoded. A Thread object's only
// field is its thread's id, which is read-only, so it is not written out:
// its monitor is part of its thread's record. The encoding is
//
//	state   = nthreads:uvarint statics { thread } objects
//	statics = one slot per static (int: varint; ref: uvarint new ref)
//	thread  = status:byte owner:uvarint [count:uvarint] [waitobj:uvarint waitcount:uvarint]
//	          nframes:uvarint { frame } [npending:uvarint { pending }]
//	pending = frame:uvarint kind:byte handler:uvarint exc:uvarint a:varint b:varint
//	frame   = method:uvarint pc:uvarint [lock:uvarint] nslots:uvarint { value }
//	value   = uvarint x: x&3 == 0 small int zigzag(x>>2); x&3 == 1 ref x>>2;
//	          x == 2 big int, followed by uvarint zigzag
//
// lock appears only for frames of synchronized methods (which always hold
// one); owner and count are the monitor of the thread's Thread object (count
// only when owner is not 0); waitobj and waitcount appear only for waiting
// and notified threads; objects are those of heap.Canon.EncodeObjects
// after the Thread objects. The pending records (exception handling under
// way) follow the frames only when there are some, which the status byte
// says by its bit 0x80; their exceptions are roots, numbered after the
// thread's frames. A thread with no exception handling under way encodes
// as it did before structured exception handling existed.
func (m *Machine) Encode(b []byte) []byte {
	b, _ = m.encode(b, nil, false, nil, nil, true)
	return b
}

// EncodeFingerprint encodes the state as Encode does, but only as far as
// its fingerprint needs, and returns the fingerprint (Fingerprint returns
// it too, until the next encoding): an incremental encoding writes the
// records of the components that changed and not the others. For a search
// that keeps fingerprints only (hash compaction, bitstate hashing) and a
// certifier, which need no encoding of a state visited before. Encode
// after it writes the encoding of the same state.
func (m *Machine) EncodeFingerprint() uint64 {
	e := &m.enc
	in := &e.inc
	if !in.ok || e.noInc {
		in.fpBuf, _ = m.encode(in.fpBuf[:0], nil, false, nil, nil, false)
		return m.Fingerprint()
	}
	// encode's incremental way, without its arguments (passing and
	// keeping them was a fifth of what encode cost a transition), and
	// with no bytes written if the state is folded whole (foldOther).
	m.clock++
	e.canonVer = m.version
	e.canon = &e.canons[in.bc]
	if _, ok := e.encodeInc(nil, false); ok {
		in.lastVer = m.version
		in.hits++
		if e.check {
			m.checkEncoded(nil, false, nil, false, 0)
		}
	} else {
		e.foldOther(m.version)
	}
	return heap.Mix(in.lastSum)
}

// EncodeSplit is Encode that also appends to cuts where each component of
// the encoding ends (offsets in the returned slice): first the statics
// block, which begins with the thread count, then each thread's record in
// thread order, then each object's record in canonical order. The bytes
// are exactly Encode's; the components are what collapse compression
// (explorer.CollapseStore) stores once each.
func (m *Machine) EncodeSplit(b []byte, cuts []int32) ([]byte, []int32) {
	return m.encode(b, cuts, true, nil, nil, true)
}

// encode is Encode, appending the components' ends to cuts if split. If
// order is not nil, it encodes the state as if the threads were renamed
// by PermuteThreads(order): thread i is the thread at order[i], and inv
// is order's inverse. Without order it writes only what changed since the
// base when it can (see incEnc), and unless full, only the records it
// writes again (see EncodeFingerprint; not with split).
func (m *Machine) encode(b []byte, cuts []int32, split bool, order, inv []int32, full bool) ([]byte, []int32) {
	// A thread changed after this encoding has a stamp above every stamp
	// the encoding saw (see incEnc).
	m.clock++
	e := &m.enc
	e.canonVer = m.version
	in := &e.inc
	if order == nil && in.ok && !e.noInc {
		e.canon = &e.canons[in.bc]
		if out, ok := e.encodeInc(b, full); ok {
			in.lastVer = m.version
			in.hits++
			n := len(cuts)
			if split {
				cuts = in.cuts(cuts, len(b))
			}
			if e.check {
				m.checkEncoded(out[len(b):], full, cuts[n:], split, len(b))
			}
			return out, cuts
		}
		base := len(b)
		b = e.encodeOther(b, m.version)
		if split {
			cuts = in.wholeCuts(cuts, base)
		}
		return b, cuts
	}
	var threads []*Thread
	if order != nil {
		m.symOrd = m.symOrd[:0]
		for _, i := range order {
			m.symOrd = append(m.symOrd, m.S.Threads[i])
		}
		threads = m.symOrd
	}
	return e.encodeBase(b, cuts, split, threads, inv, m.version)
}

// encodeBase is encode's whole encoding of the state at version ver,
// with the threads in the order of threads if it is not nil (renamed,
// inv as encode's); otherwise the state becomes the base (unless noInc).
func (e *encoder) encodeBase(b []byte, cuts []int32, split bool, threads []*Thread, inv []int32, ver uint64) ([]byte, []int32) {
	in := &e.inc
	e.canon = &e.canons[in.bc]
	in.ok = false
	// The fingerprint and a split encoding's cuts need the starts of the
	// components. (An encoding with the threads renamed has no
	// fingerprint: symmetry reduction compares such encodings only.)
	rec := threads == nil
	base := len(b)
	b = e.encodeWhole(b, threads, inv, rec)
	if rec {
		in.lastSum = in.wsum
	}
	if split {
		cuts = in.wholeCuts(cuts, base)
	}
	if rec && !e.noInc {
		e.recordInc(b[base:], ver)
	}
	return b, cuts
}

// encodeWhole appends the encoding of the whole state to b, numbering
// objects with e.canon, with the threads in the order of threads if it
// is not nil (inv as Machine.encode's). If rec, it records the start of
// each component and the objects numbered before it in the incremental
// encoder's wstart and wbefore.
func (e *encoder) encodeWhole(b []byte, threads []*Thread, inv []int32, rec bool) []byte {
	s := e.st
	c := e.canon
	c.Reset(&s.Heap)
	c.SetOwners(inv)
	if threads == nil {
		threads = s.Threads
	}
	in := &e.inc
	base := len(b)
	// The Thread objects are the first roots; the same loop counts the
	// room for the most the statics and threads can take (see heap.Room).
	n := 0
	for _, t := range threads {
		c.Root(t.Obj)
		n += threadRoom(t)
	}
	b = heap.Room(b, n+e.staticsRoom())
	w := b[:cap(b)]
	// Roots are numbered the moment they are first seen and never renumbered,
	// so statics and threads are encoded in the same pass that numbers them.
	// The statics block is component 0 (see incEnc).
	if rec {
		in.wstart = append(in.wstart[:0], 0)
		in.wbefore = append(in.wbefore[:0], int32(c.Live()))
	}
	p, t := e.putStatics(w, base)
	if rec {
		in.wterms = append(in.wterms[:0], t)
	}
	p = e.putThreads(w, p, threads, inv, rec, base)
	if !rec {
		return c.EncodeObjects(w[:p], &s.Heap, e.layout, len(s.Threads))
	}
	b, in.wstart, in.wbefore, in.wterms = c.EncodeObjectsRec(w[:p], &s.Heap, e.layout, len(s.Threads), base, in.wstart, in.wbefore, in.wterms)
	in.wstart = append(in.wstart, int32(len(b)-base))
	in.wbefore = append(in.wbefore, int32(c.Live()))
	in.sumWhole()
	return b
}

// sumWhole sets the whole encoding's sum of terms.
func (in *incEnc) sumWhole() {
	var sum uint64
	for _, t := range in.wterms {
		sum += t
	}
	in.wsum = sum
}

// staticsRoom is the most bytes putStatics writes: a varint for the
// thread count and one per static.
func (e *encoder) staticsRoom() int {
	return (1 + len(e.st.Statics)) * binary.MaxVarintLen64
}

// putStatics writes the statics block (the thread count, then the
// statics) at w[p:] and returns the position after it and the block's
// term (see fingerprint.go).
func (e *encoder) putStatics(w []byte, p int) (int, uint64) {
	return staticsRecord[writeRec](e, w, p)
}

// staticsTerm returns the term of the statics block (component 0): what
// putStatics writes, folded (see fingerprint.go).
func (e *encoder) staticsTerm() uint64 {
	_, h := staticsRecord[foldRec](e, nil, 0)
	return h
}

// staticsRecord is the layout of the statics block, as threadRecord is
// of a thread's record.
func staticsRecord[S foldRec | writeRec](e *encoder, w []byte, p int) (int, uint64) {
	var mode S
	write := unsafe.Sizeof(mode) != 0
	s := e.st
	c := e.canon
	p, h := recUvarint(w, p, heap.TermStart(0), uint64(len(s.Threads)), write)
	for i, v := range s.Statics {
		if e.staticRef[i] {
			p, h = recUvarint(w, p, h, uint64(c.Root(heap.Ref(v))), write)
		} else {
			p, h = recVarint(w, p, h, v, write)
		}
	}
	return p, heap.Mix(h)
}

// threadRoom is the most bytes putThread writes for t: per thread status,
// owner, count, waitobj, waitcount, nframes and npending, per frame
// method, pc, lock and nslots, up to two per value (a big int is a marker
// and a varint) and six per pending record.
func threadRoom(t *Thread) int {
	return (7 + 4*len(t.Frames) + 2*len(t.Stack) + 6*len(t.Pending)) * binary.MaxVarintLen64
}

// putThreads writes the records of threads at w[p:] and returns the
// position after them; inv renames monitor owners as encode's. If rec, it
// appends to the incremental encoder's starts, befores and terms (see
// incEnc) each record's start (minus base), the objects numbered before
// it and its term.
// (A call of putThread per thread cost the whole encoder 10% more
// instructions on the philosophers when every encoding was whole; since
// most are incremental, writing one record, it saves 0.7-0.9%.)
func (e *encoder) putThreads(w []byte, p int, threads []*Thread, inv []int32, rec bool, base int) int {
	c := e.canon
	in := &e.inc
	for j := range threads {
		i := j
		if in.lastFirst {
			i = len(threads) - 1 - j
		}
		t := threads[i]
		if rec {
			in.wstart = append(in.wstart, int32(p-base))
			in.wbefore = append(in.wbefore, int32(c.Live()))
		}
		var h uint64
		p, h = e.putThread(w, p, t, inv, j+1)
		if rec {
			in.wterms = append(in.wterms, h)
		}
	}
	return p
}

// putThread writes thread t's record at w[p:] (see putThreads) and
// returns the position after it and the record's term as component k
// (see fingerprint.go).
func (e *encoder) putThread(w []byte, p int, t *Thread, inv []int32, k int) (int, uint64) {
	return threadRecord[writeRec](e, w, p, t, inv, k)
}

// threadTerm returns the term of thread t's record as component k: what
// putThread writes (inv as there), folded (see fingerprint.go).
func (e *encoder) threadTerm(k int, t *Thread, inv []int32) uint64 {
	_, h := threadRecord[foldRec](e, nil, 0, t, inv, k)
	return h
}

// threadRecord is the layout of a thread's record (the grammar's thread,
// which Decode reads), the one definition that putThread writes and
// threadTerm folds: the integers the record holds, in order, each folded
// into the record's term as component k (see fingerprint.go) and, when S
// is writeRec, written at w[p:], which has room for it (threadRoom). It
// returns the position after the record (p when folding) and the term.
// Objects are numbered by e.canon as the record goes; inv renames
// monitor owners as encode's.
func threadRecord[S foldRec | writeRec](e *encoder, w []byte, p int, t *Thread, inv []int32, k int) (int, uint64) {
	var mode S
	write := unsafe.Sizeof(mode) != 0
	c := e.canon
	st := byte(t.Status)
	if len(t.Pending) > 0 {
		st |= pendingBit
	}
	p, h := recByte(w, p, heap.TermStart(k), st, write)
	obj := e.st.Heap.Obj(t.Obj)
	owner := obj.Owner
	if inv != nil && owner > 0 {
		owner = inv[owner-1] + 1
	}
	p, h = recUvarint(w, p, h, uint64(owner), write)
	if obj.Owner != 0 {
		p, h = recUvarint(w, p, h, uint64(obj.Count), write)
	}
	if t.Status == StatusWaiting || t.Status == StatusNotified {
		p, h = recUvarint(w, p, h, uint64(c.Root(t.WaitObj)), write)
		p, h = recUvarint(w, p, h, uint64(t.WaitCount), write)
	}
	p, h = recUvarint(w, p, h, uint64(len(t.Frames)), write)
	for fi := range t.Frames {
		f := &t.Frames[fi]
		end := t.frameEnd(fi)
		p, h = recUvarint(w, p, h, uint64(f.Method), write)
		p, h = recUvarint(w, p, h, uint64(f.PC), write)
		if e.syncMethod[f.Method] {
			p, h = recUvarint(w, p, h, uint64(c.Root(f.Lock)), write)
		}
		p, h = recUvarint(w, p, h, uint64(end-f.Base), write)
		for _, v := range t.Stack[f.Base:end] {
			var x uint64
			if v.Ref {
				x = uint64(c.Root(heap.Ref(v.I)))<<2 | 1
			} else if z := uint64(v.I<<1) ^ uint64(v.I>>63); z < 1<<62 {
				x = z << 2
			} else {
				p, h = recByte(w, p, h, 2, write)
				x = z
			}
			p, h = recUvarint(w, p, h, x, write)
		}
	}
	if len(t.Pending) > 0 {
		p, h = recUvarint(w, p, h, uint64(len(t.Pending)), write)
		for _, pd := range t.Pending {
			p, h = recUvarint(w, p, h, uint64(pd.Frame), write)
			p, h = recByte(w, p, h, byte(pd.Kind), write)
			p, h = recUvarint(w, p, h, uint64(pd.Handler), write)
			p, h = recUvarint(w, p, h, uint64(c.Root(pd.Exc)), write)
			p, h = recVarint(w, p, h, int64(pd.A), write)
			p, h = recVarint(w, p, h, int64(pd.B), write)
		}
	}
	return p, heap.Mix(h)
}

// foldRec and writeRec say whether a record's layout (threadRecord,
// staticsRecord) folds its integers into the term alone or writes them
// as well. They differ in size, so the compiler makes a separate copy of
// the layout for each (Go shares one copy between type arguments of the
// same shape only) in which write, their size, is a constant, and the
// folding copy has no trace of the writes: it is as fast as a function
// that folds alone. (A write flag tested at run time made the fingerprint
// of the philosophers' threads 17% slower; a sink type with methods
// would call them through the generic dictionary.)
type (
	foldRec  struct{}
	writeRec struct{ _ byte }
)

// recUvarint folds x into term h and, if write, writes it as a uvarint
// at w[p:]: one integer of a record (see threadRecord). (Inlined: with
// write constant, the test goes.)
func recUvarint(w []byte, p int, h, x uint64, write bool) (int, uint64) {
	if write {
		p = heap.PutUvarint(w, p, x)
	}
	return p, heap.TermAdd(h, x)
}

// recVarint is recUvarint for a signed integer, written as a zig-zag
// varint and folded as its 64 bits.
func recVarint(w []byte, p int, h uint64, x int64, write bool) (int, uint64) {
	if write {
		p = heap.PutVarint(w, p, x)
	}
	return p, heap.TermAdd(h, uint64(x))
}

// recByte is recUvarint for an integer written as a single byte.
func recByte(w []byte, p int, h uint64, x byte, write bool) (int, uint64) {
	if write {
		w[p] = x
		p++
	}
	return p, heap.TermAdd(h, uint64(x))
}

// checkEncoded checks the incremental encoding just made (see Tuning.CheckEncoding):
// if full, its bytes written, else the fingerprint's terms, against
// the records written again if the base has bytes (without them, only
// the terms are compared); cuts are the encoding's, if split, offsets
// in a slice where it starts at base.
func (m *Machine) checkEncoded(written []byte, full bool, cuts []int32, split bool, base int) {
	in := &m.enc.inc
	var enc []byte
	switch {
	case full:
		enc = written
	case in.bytes && in.lastKind != lastCutFP:
		enc, _ = m.enc.rewrite(nil)
	}
	m.checkIncremental(enc, cuts, split, base)
}

// encodeOther appends the state's whole encoding made with the other
// numbering than the base's, which it keeps, after encodeInc could not
// encode it: the next state is likely one transition from the base again.
func (e *encoder) encodeOther(b []byte, ver uint64) []byte {
	in := &e.inc
	e.canon = &e.canons[1-in.bc]
	base := len(b)
	b = e.encodeWhole(b, nil, nil, true)
	in.lastSum = in.wsum
	in.last = append(in.last[:0], b[base:]...)
	in.lastVer, in.lastKind = ver, lastWhole
	return b
}

// foldOther is encodeOther for the fingerprint alone (foldWhole, with
// the other numbering than the base's).
func (e *encoder) foldOther(ver uint64) {
	in := &e.inc
	e.canon = &e.canons[1-in.bc]
	e.foldWhole()
	if e.check {
		e.checkFolded()
	}
	in.lastSum = in.wsum
	in.lastVer, in.lastKind = ver, lastWholeFP
}

// foldWhole is encodeWhole with rec and without order for the
// fingerprint alone: it numbers the objects as encodeWhole does and sets
// the components' befores and terms and their sum (wbefore, wterms,
// wsum) as it does, writing no record (and no starts).
func (e *encoder) foldWhole() {
	s := e.st
	c := e.canon
	c.Reset(&s.Heap)
	c.SetOwners(nil)
	for _, t := range s.Threads {
		c.Root(t.Obj)
	}
	in := &e.inc
	in.wstart = in.wstart[:0]
	in.wbefore = append(in.wbefore[:0], int32(c.Live()))
	in.wterms = append(in.wterms[:0], e.staticsTerm())
	nt := int32(len(s.Threads))
	for k := int32(1); k <= nt; k++ {
		in.wbefore = append(in.wbefore, int32(c.Live()))
		in.wterms = append(in.wterms, e.threadTerm(int(k), s.Threads[in.thread(k, nt)], nil))
	}
	in.wbefore, in.wterms = c.FoldObjects(&s.Heap, e.layout, len(s.Threads), in.wbefore, in.wterms)
	in.wbefore = append(in.wbefore, int32(c.Live()))
	in.sumWhole()
}

// Decode replaces the machine's state with the one encoded in b by Encode.
// b must come from Encode on a machine for the same program.
func (m *Machine) Decode(b []byte) {
	m.replaced()
	m.clock++
	m.version++
	m.invDirty = true
	s := &m.S
	off := 0
	uv := func() uint64 {
		x, k := binary.Uvarint(b[off:])
		off += k
		return x
	}
	sv := func() int64 {
		x, k := binary.Varint(b[off:])
		off += k
		return x
	}
	n := int(uv())
	s.Heap.Reset()
	for i := 0; i < n; i++ {
		r := s.Heap.New(m.layout, bytecode.ClassThread)
		s.Heap.Slots(r)[0] = int64(i)
	}
	for i := range s.Statics {
		if m.staticRef[i] {
			s.Statics[i] = int64(uv())
		} else {
			x, k := binary.Varint(b[off:])
			off += k
			s.Statics[i] = x
		}
	}
	s.Threads = s.Threads[:0]
	for i := 0; i < n; i++ {
		m.thread(int32(i))
	}
	// The records run in incEnc.lastFirst's order (putThreads).
	for j := 0; j < n; j++ {
		i := m.enc.inc.thread(int32(j+1), int32(n))
		t := s.Threads[i]
		t.Status = Status(b[off] &^ pendingBit)
		pending := b[off]&pendingBit != 0
		off++
		t.Obj = heap.Ref(i + 1)
		obj := s.Heap.Obj(t.Obj)
		if obj.Owner = int32(uv()); obj.Owner != 0 {
			obj.Count = int32(uv())
		}
		t.WaitObj, t.WaitCount = 0, 0
		if t.Status == StatusWaiting || t.Status == StatusNotified {
			t.WaitObj = heap.Ref(uv())
			t.WaitCount = int32(uv())
		}
		nf := int(uv())
		for fi := 0; fi < nf; fi++ {
			f := Frame{Method: int32(uv()), PC: int32(uv()), Base: int32(len(t.Stack))}
			if m.syncMethod[f.Method] {
				f.Lock = heap.Ref(uv())
			}
			t.Frames = append(t.Frames, f)
			ns := int(uv())
			for j := 0; j < ns; j++ {
				x := uv()
				switch x & 3 {
				case 0:
					z := x >> 2
					t.Stack = append(t.Stack, Value{I: int64(z>>1) ^ -int64(z&1)})
				case 1:
					t.Stack = append(t.Stack, Value{I: int64(x >> 2), Ref: true})
				default:
					z := uv()
					t.Stack = append(t.Stack, Value{I: int64(z>>1) ^ -int64(z&1)})
				}
			}
		}
		if pending {
			np := int(uv())
			for j := 0; j < np; j++ {
				p := Pending{Frame: int32(uv())}
				p.Kind = PendingKind(b[off])
				off++
				p.Handler = int32(uv())
				p.Exc = heap.Ref(uv())
				p.A, p.B = int32(sv()), int32(sv())
				t.Pending = append(t.Pending, p)
			}
		}
	}
	heap.DecodeObjects(b, off, &s.Heap, m.layout)
}

// lineThread is a Thread padded to a whole number of 64-byte cache
// lines. A Thread is written at every step of its thread; Go's allocator
// packs small objects of one size together, and the machines of a parallel
// search's workers allocate theirs from whichever processor their goroutine
// runs on, so two workers' unpadded Threads can share a line, which each
// core's writes then take from the other (false sharing).
type lineThread struct {
	Thread
	_ [64 - unsafe.Sizeof(Thread{})%64]byte
}

// newThread returns a Thread alone on its cache lines, with room for its
// frames, values and pending records in arrays of whole lines too (an
// array that outgrows them doubles, and stays whole lines).
func newThread() *Thread {
	t := &new(lineThread).Thread
	t.Frames = make([]Frame, 0, 8)
	t.Stack = make([]Value, 0, 32)
	t.Pending = make([]Pending, 0, 8)
	return t
}

// thread appends a cleared thread with the given id to the state, reusing
// a pooled Thread and its slices.
func (m *Machine) thread(id int32) *Thread {
	s := &m.S
	var t *Thread
	if int(id) < len(m.pool) {
		t = m.pool[id]
	} else {
		t = newThread()
		m.pool = append(m.pool, t)
	}
	*t = Thread{ID: id, Frames: t.Frames[:0], Stack: t.Stack[:0], Pending: t.Pending[:0]}
	s.Threads = append(s.Threads, t)
	m.stamp(t)
	return t
}
