// Heap storage: objects and arrays in one flat slot slab, with monitor headers.

package heap

import (
	"slices"

	"mcvm/bytecode"
)

// Ref is a reference to a heap object: 1 + its index in Heap.Objs; 0 is null.
type Ref int32

// Null is the null reference.
const Null Ref = 0

// ObjKind says whether an object is a class instance or an array.
type ObjKind uint8

// Object kinds.
const (
	KindObject ObjKind = iota
	KindIntArray
	KindRefArray
	// KindFree marks a collected object (see Heap.Free): no reference
	// reaches it, its slots are kept for the next allocation of as many,
	// and Class links it to the next free object of its size class.
	KindFree
)

// Object is an object's header. Its slots are Heap.Data[Off : Off+Len].
type Object struct {
	Class int32 // class index for KindObject, -1 for arrays
	Kind  ObjKind
	Owner int32 // id+1 of the thread owning the monitor, 0 when free
	Count int32 // monitor entry count
	Off   int32
	Len   int32
}

// Layout tells which slots of each class hold references. It is derived
// from a linked program once and shared.
type Layout struct {
	slots [][]bool // per class: slot -> is a reference
}

// NewLayout computes the layout of a verified program.
func NewLayout(p *bytecode.Program) *Layout {
	l := &Layout{slots: make([][]bool, len(p.Classes))}
	for c := range p.Classes {
		l.slots[c] = make([]bool, p.Classes[c].Slots)
	}
	for _, f := range p.Fields {
		// A field's slot is the same in its class and every subclass.
		for c := range p.Classes {
			if p.IsSubclass(int32(c), f.Class) {
				l.slots[c][f.Slot] = f.Kind == bytecode.KindRef
			}
		}
	}
	return l
}

// Slots returns the number of slots of an instance of class c.
func (l *Layout) Slots(c int32) int { return len(l.slots[c]) }

// IsRef reports whether slot i of an instance of class c is a reference.
func (l *Layout) IsRef(c int32, i int) bool { return l.slots[c][i] }

// Heap holds all objects of a state.
//
// Objects that a collector found unreachable are freed (Free): they stay
// in Objs with kind KindFree, and the next allocation of as many slots
// reuses one, so that a heap whose garbage is collected after every
// transition stays as small as its live objects. The free lists' heads and
// the number of free objects are the first Reserved words of Data, so that
// copying, diffing and restoring Data (snapshots) carries them along: head
// n < freeLists-1 lists the free objects of n slots, the last head those
// of more.
type Heap struct {
	Objs []Object
	Data []int64
}

// Reserved is the number of words at the start of Heap.Data that hold the
// free lists rather than slots (Object.Off is never below it).
const Reserved = freeLists + 1

const (
	freeLists = 17        // free lists' heads: Data[0:freeLists]
	freeCount = freeLists // Data[freeCount]: the number of free objects
)

// Reset empties h, keeping its memory.
func (h *Heap) Reset() {
	h.Objs = h.Objs[:0]
	h.Data = h.Data[:0]
}

// Len is the number of objects, live, garbage or free.
func (h *Heap) Len() int { return len(h.Objs) }

// Free frees r, which no reference reaches any more and which holds no
// monitor another object or thread could still name: its header becomes
// KindFree and it joins the free list of its size.
func (h *Heap) Free(r Ref) {
	o := &h.Objs[r-1]
	head := min(int(o.Len), freeLists-1)
	*o = Object{Class: int32(h.Data[head]), Kind: KindFree, Off: o.Off, Len: o.Len}
	h.Data[head] = int64(r)
	h.Data[freeCount]++
}

// FreeObjects returns the number of free objects in h.
func (h *Heap) FreeObjects() int {
	if len(h.Data) < Reserved {
		return 0
	}
	return int(h.Data[freeCount])
}

// Obj returns the header of r, which must be a valid non-null reference.
func (h *Heap) Obj(r Ref) *Object { return &h.Objs[r-1] }

// Valid reports whether r refers to an object of h.
func (h *Heap) Valid(r Ref) bool { return r > 0 && int(r) <= len(h.Objs) }

// Slots returns r's slots.
func (h *Heap) Slots(r Ref) []int64 {
	o := &h.Objs[r-1]
	return h.Data[o.Off : o.Off+o.Len]
}

// alloc returns an object with n zeroed slots: a free one of n slots if
// there is one (the most recently freed), else a new one at the end.
func (h *Heap) alloc(class int32, kind ObjKind, n int) Ref {
	if len(h.Data) < Reserved {
		h.Data = slices.Grow(h.Data[:0], Reserved)[:Reserved]
		clear(h.Data)
	} else if r := h.reuse(n); r != Null {
		h.Data[freeCount]--
		o := &h.Objs[r-1]
		*o = Object{Class: class, Kind: kind, Off: o.Off, Len: o.Len}
		clear(h.Data[o.Off : o.Off+o.Len])
		return r
	}
	off := len(h.Data)
	h.Data = slices.Grow(h.Data, n)[:off+n]
	clear(h.Data[off:])
	h.Objs = append(h.Objs, Object{Class: class, Kind: kind, Off: int32(off), Len: int32(n)})
	return Ref(len(h.Objs))
}

// reuse takes a free object of n slots off its free list and returns it,
// or returns Null if there is none.
func (h *Heap) reuse(n int) Ref {
	if n < freeLists-1 {
		r := Ref(h.Data[n])
		if r != Null {
			h.Data[n] = int64(h.Objs[r-1].Class)
		}
		return r
	}
	// Larger objects share one list: the first of exactly n slots.
	prev := -1 // the list's previous element, -1 for the head
	for r := Ref(h.Data[freeLists-1]); r != Null; r = Ref(h.Objs[r-1].Class) {
		if int(h.Objs[r-1].Len) == n {
			next := int64(h.Objs[r-1].Class)
			if prev < 0 {
				h.Data[freeLists-1] = next
			} else {
				h.Objs[prev].Class = int32(next)
			}
			return r
		}
		prev = int(r - 1)
	}
	return Null
}

// New allocates an instance of class c with every field 0 or null.
func (h *Heap) New(l *Layout, c int32) Ref { return h.alloc(c, KindObject, l.Slots(c)) }

// NewArray allocates an array of n elements, all 0 or null.
func (h *Heap) NewArray(kind ObjKind, n int) Ref { return h.alloc(-1, kind, n) }

// CopyFrom makes h a copy of src, reusing h's memory.
func (h *Heap) CopyFrom(src *Heap) {
	h.Objs = append(h.Objs[:0], src.Objs...)
	h.Data = append(h.Data[:0], src.Data...)
}
