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
type Heap struct {
	Objs []Object
	Data []int64
}

// Reset empties h, keeping its memory.
func (h *Heap) Reset() {
	h.Objs = h.Objs[:0]
	h.Data = h.Data[:0]
}

// Len is the number of objects, live or garbage.
func (h *Heap) Len() int { return len(h.Objs) }

// Obj returns the header of r, which must be a valid non-null reference.
func (h *Heap) Obj(r Ref) *Object { return &h.Objs[r-1] }

// Valid reports whether r refers to an object of h.
func (h *Heap) Valid(r Ref) bool { return r > 0 && int(r) <= len(h.Objs) }

// Slots returns r's slots.
func (h *Heap) Slots(r Ref) []int64 {
	o := &h.Objs[r-1]
	return h.Data[o.Off : o.Off+o.Len]
}

// alloc appends an object with n zeroed slots.
func (h *Heap) alloc(class int32, kind ObjKind, n int) Ref {
	off := len(h.Data)
	h.Data = slices.Grow(h.Data, n)[:off+n]
	clear(h.Data[off:])
	h.Objs = append(h.Objs, Object{Class: class, Kind: kind, Off: int32(off), Len: int32(n)})
	return Ref(len(h.Objs))
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
