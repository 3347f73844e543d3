// Raw records: a thread's or an object's record as kept transitions
// (keptahead.go) keep and compare it.

package vm

import (
	"unsafe"

	"mcvm/heap"
)

// threadRec is a thread's record in raw form, as the kept transitions
// (keptahead.go) compare it: its status, Thread object,
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
// copy without calls does), and an object's slots.
const memoVals = 8

// small reports whether t's record is small enough to be kept (its
// frames and values fit in memoVals).
func (t *Thread) small() bool { return len(t.Frames)+len(t.Stack) <= memoVals }

// wayOf returns one of four places (keptWays) for a record
// whose top frame's pc is pc, with salt added: the top two bits of the
// pc times 2^32 divided by the golden ratio (a 32-bit product). The pcs a
// thread stops at are often a stride apart (the philosophers': 1, 3, 5
// and 7), which the pc's low bits would put in the same places.
func wayOf(pc int32, salt uint32) int { return int((uint32(pc)*0x9e3779b9 + salt) >> 30) }

// objRec is an object's record in raw form, as the kept
// transitions (keptahead.go) compare it: its header but its place,
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
