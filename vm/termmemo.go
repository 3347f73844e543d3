// Terms remembered: the term of a thread's or an object's record is
// computed again only when the record differs from those it was last
// computed for.

package vm

import (
	"unsafe"

	"mcvm/heap"
)

// A transition changes one thread, and the fingerprint needs the term of
// that thread's record (threadTerm, with the numbering checked). In a
// depth-first search a thread's record after a transition is most often
// one it had after a transition from another state: its own variables
// did not change in between, only other threads' and objects', and its
// records cycle through a few program points. So fingerprintDirty keeps,
// per thread component, the last few records it computed a term for, in
// raw form, with their terms; a record equal to one kept has its term.
// The philosophers (N = 7, --hash-compact): 94.6% of the thread terms
// are found kept (with one record kept per component, 75%); almost all
// the others are the main thread's, whose return cuts the numbering
// short (fingerprintDirty), which is not kept. A record is compared in
// about 140 instructions, where its term and check took about 250.
//
// A term is a function of the record's raw contents and of the numbering
// its references are mapped by, and so is the check of the numbering
// (heap.Canon.Verify, VerifiedPrefix): the component's position, the
// objects numbered before and after it, and the numbers of the objects it
// refers to. All are the base's, fixed while the base's generation
// (incEnc.gen) is: a base with another numbering or other positions is
// recorded whole (recordBase), which advances it, and promotion and
// rollBack keep the numbering (their changes passed the check). So an
// entry is used only in the generation it was made in, and only a record
// whose check passed whole (not cut short) is kept. Equal raw contents
// means equal in every field threadTerm reads, and a few more (the wait
// fields and the Thread object's count are compared even where the record
// leaves them out): a record is taken as equal only if it is.
//
// With Tuning.CheckEncoding every incremental fingerprint is compared
// with a whole encoding's terms (checkEncoded), remembered ones included.
type threadMemo struct {
	gen          uint64 // incEnc.gen when kept; 0: nothing kept
	term         uint64
	owner, count int32 // the Thread object's monitor
	rec          threadRec
}

// threadRec is a thread's record in raw form, as the kept terms and the
// kept transitions (keptahead.go) compare it: its status, Thread object,
// wait fields, and its frames and values (at most memoVals; no pending
// records).
type threadRec struct {
	obj, waitObj heap.Ref
	waitCount    int32
	nf, ns       int32
	status       Status
	vals         [memoVals]Value // the frames (each the size of a value), then the stack
}

// The pairs compared as words: each second field follows the first, at
// an offset a multiple of 8. These fail to compile otherwise.
var (
	_ [0]struct{} = [unsafe.Offsetof(Thread{}.WaitObj) - unsafe.Offsetof(Thread{}.Obj) - 4]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(Thread{}.Obj) % 8]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(heap.Object{}.Count) - unsafe.Offsetof(heap.Object{}.Owner) - 4]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(heap.Object{}.Owner) % 8]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(threadRec{}.waitObj) - unsafe.Offsetof(threadRec{}.obj) - 4]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(threadRec{}.obj) % 8]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(threadMemo{}.count) - unsafe.Offsetof(threadMemo{}.owner) - 4]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(threadMemo{}.owner) % 8]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(objRec{}.count) - unsafe.Offsetof(objRec{}.owner) - 4]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(objRec{}.owner) % 8]struct{}{}
)

// same reports whether t's record is r.
func (r *threadRec) same(t *Thread) bool {
	fr, st := t.Frames, t.Stack
	// (The Thread object and the waited object compared as one word.)
	if r.status != t.Status || int(r.nf) != len(fr) || int(r.ns) != len(st) || len(t.Pending) != 0 ||
		*(*uint64)(unsafe.Pointer(&r.obj)) != *(*uint64)(unsafe.Pointer(&t.Obj)) || r.waitCount != t.WaitCount {
		return false
	}
	vf := r.vals[:len(fr)]
	for i := range fr {
		// (A frame is four int32s, no padding: compared as two words.)
		if *(*[2]uint64)(unsafe.Pointer(&vf[i])) != *(*[2]uint64)(unsafe.Pointer(&fr[i])) {
			return false
		}
	}
	vs := r.vals[len(fr) : len(fr)+len(st)]
	for i, x := range st {
		if vs[i] != x {
			return false
		}
	}
	return true
}

// set makes r thread t's record (small, with no pending records).
func (r *threadRec) set(t *Thread) {
	nf, ns := len(t.Frames), len(t.Stack)
	r.obj, r.waitObj, r.waitCount, r.status, r.nf, r.ns = t.Obj, t.WaitObj, t.WaitCount, t.Status, int32(nf), int32(ns)
	copy(valueFrames(r.vals[:nf]), t.Frames)
	copy(r.vals[nf:nf+ns], t.Stack)
}

// setCopy makes r the record copy c holds (of at most memoVals frames
// and values, with no pending records).
func (r *threadRec) setCopy(c *threadCopy) {
	nf, ns := int(c.nFrames), int(c.nStack)
	r.obj, r.waitObj, r.waitCount, r.status, r.nf, r.ns = c.Obj, c.WaitObj, c.WaitCount, c.Status, int32(nf), int32(ns)
	copy(r.vals[:], c.vals[:nf+ns])
}

// memoVals bounds the frames and values of a record kept (as threadCopy's
// copy without calls does).
const memoVals = 8

// small reports whether t's record is small enough to be kept (its
// frames and values fit in memoVals).
func (t *Thread) small() bool { return len(t.Frames)+len(t.Stack) <= memoVals }

// memoWays is how many records are kept per component: one per place,
// chosen by the top frame's pc (a thread's records cycle through a few
// pcs; the philosophers' through four, which with four places keeps all).
const memoWays = 4

// wayOf returns one of four places (memoWays, keptWays) for a record
// whose top frame's pc is pc, with salt added: the top two bits of the
// pc times 2^32 divided by the golden ratio (a 32-bit product). The pcs a
// thread stops at are often a stride apart (the philosophers': 1, 3, 5
// and 7), which the pc's low bits would put in the same places.
func wayOf(pc int32, salt uint32) int { return int((uint32(pc)*0x9e3779b9 + salt) >> 30) }

// memoAt returns the place of thread t's record as component k.
func (in *incEnc) memoAt(k int32, t *Thread) *threadMemo {
	w := 0
	if n := len(t.Frames); n > 0 {
		w = wayOf(t.Frames[n-1].PC, 0)
	}
	return &in.memo[int(k)*memoWays+w] // (recordBase makes room for each thread's component)
}

// memoTerm returns the term kept for thread t as component k and true if
// t's record is the one it was kept for, in this generation.
func (in *incEnc) memoTerm(k int32, t *Thread, o *heap.Object) (uint64, bool) {
	mt := in.memoAt(k, t)
	// (The monitor's owner and count compared as one word.)
	if mt.gen != in.gen || *(*uint64)(unsafe.Pointer(&mt.owner)) != *(*uint64)(unsafe.Pointer(&o.Owner)) || !mt.rec.same(t) {
		return 0, false
	}
	return mt.term, true
}

// keepTerm keeps term as thread t's as component k, whose numbering
// passed the check whole, if its record is small enough.
func (in *incEnc) keepTerm(k int32, t *Thread, o *heap.Object, term uint64) {
	if !t.small() || len(t.Pending) != 0 {
		return
	}
	mt := in.memoAt(k, t)
	mt.gen, mt.term, mt.owner, mt.count = in.gen, term, o.Owner, o.Count
	mt.rec.set(t)
}

// Objects' terms are kept the same way, in a table of a fixed size (a
// heap can hold many more objects than a state has threads) where an
// object's record has one place, chosen by its component and its
// monitor's owner (the philosophers' forks: 99.9% of their terms found
// kept). A record is kept with its component's number, its header and
// its slots, if it has at most memoVals.
type objMemo struct {
	gen  uint64 // incEnc.gen when kept; 0: nothing kept
	term uint64
	k    int32 // the component
	rec  objRec
}

// objRec is an object's record in raw form, as the kept terms and the
// kept transitions (keptahead.go) compare it: its header but its place,
// and its slots (at most memoVals).
type objRec struct {
	owner, count int32
	class        int32
	n            int32 // slots
	kind         heap.ObjKind
	slots        [memoVals]int64
}

// same reports whether object o, whose slots are h's, is r.
func (r *objRec) same(o *heap.Object, h *heap.Heap) bool {
	// (The owner and count compared as one word.)
	if *(*uint64)(unsafe.Pointer(&r.owner)) != *(*uint64)(unsafe.Pointer(&o.Owner)) || r.class != o.Class || r.kind != o.Kind || r.n != o.Len {
		return false
	}
	if o.Len == 0 { // (monitors: slicing nothing costs the bounds' tests)
		return true
	}
	ks := r.slots[:o.Len] // (o.Len <= memoVals: kept so)
	for i, x := range h.Data[o.Off : o.Off+o.Len] {
		if ks[i] != x {
			return false
		}
	}
	return true
}

// set makes r object o, whose slots are h's (at most memoVals).
func (r *objRec) set(o *heap.Object, h *heap.Heap) {
	r.owner, r.count, r.class, r.kind, r.n = o.Owner, o.Count, o.Class, o.Kind, o.Len
	copy(r.slots[:], h.Data[o.Off:o.Off+o.Len])
}

// objMemoSize is the number of places in the table (a power of two).
const objMemoSize = 256

// objAt returns the place of object o's record as component k.
func (in *incEnc) objAt(k int32, o *heap.Object) *objMemo {
	i := (uint32(k)*0x9e3779b9 ^ uint32(o.Owner)*0x85ebca6b) >> 24 // (8 bits: objMemoSize)
	return &in.objMemo[i]
}

// objTerm returns the term kept for object o, whose slots are h's, as
// component k and true if its record is the one it was kept for, in this
// generation.
func (in *incEnc) objTerm(k int32, o *heap.Object, h *heap.Heap) (uint64, bool) {
	mt := in.objAt(k, o)
	if mt.gen != in.gen || mt.k != k || !mt.rec.same(o, h) {
		return 0, false
	}
	return mt.term, true
}

// keepObjTerm keeps term as object o's as component k, whose numbering
// passed the check whole, if it has few enough slots.
func (in *incEnc) keepObjTerm(k int32, o *heap.Object, h *heap.Heap, term uint64) {
	if o.Len > memoVals {
		return
	}
	mt := in.objAt(k, o)
	mt.gen, mt.term, mt.k = in.gen, term, k
	mt.rec.set(o, h)
}
