// Canonicalisation and garbage collection: the one place objects are renumbered.

package heap

import (
	"encoding/binary"
	"slices"
)

// Canon renumbers the objects reachable from an ordered list of roots:
// roots get numbers 1, 2, ... in the order they are first given, then the
// objects they reach in breadth-first order, each object's reference slots
// visited in slot order. The numbering therefore depends only on the
// logical contents of the state, not on allocation order, and objects that
// are not reached (garbage) get no number and are dropped by EncodeObjects.
// A Canon is reused across states; it allocates only when a heap grows.
type Canon struct {
	ids   []Ref // old ref -> new ref, 0 when not reached
	order []Ref // new ref - 1 -> old ref
	// owners, if not nil, renames monitor owners: owner o > 0 is written
	// as owners[o-1]+1 (see SetOwners).
	owners []int32
}

// SetOwners makes EncodeObjects write a monitor owner o > 0 as
// owners[o-1]+1 (nil: as it is), for an encoding whose owners (thread
// numbers, to heap) are renamed. Reset does not change it.
func (c *Canon) SetOwners(owners []int32) { c.owners = owners }

// Reset prepares c for heap h.
func (c *Canon) Reset(h *Heap) {
	n := len(h.Objs) + 1
	if cap(c.ids) < n {
		c.ids = make([]Ref, n, 2*n)
	} else {
		c.ids = c.ids[:n]
		clear(c.ids)
	}
	// No more objects than h holds are numbered, so with this capacity
	// Root never grows order: its hot path has no call, which would make
	// the encoders' loops save and reload their registers around it.
	if cap(c.order) < n {
		c.order = make([]Ref, 0, 2*n)
	}
	c.order = c.order[:0]
}

// Root numbers r, if not yet numbered, and returns its new reference. r
// is null or an object of the heap given to Reset.
func (c *Canon) Root(r Ref) Ref {
	if r == Null {
		return Null
	}
	if id := c.ids[r]; id != 0 {
		return id
	}
	n := len(c.order)
	c.order = c.order[:n+1] // within the capacity Reset gave
	c.order[n] = r
	c.ids[r] = Ref(n + 1)
	return Ref(n + 1)
}

// Reached reports whether r, an object of the heap given to Reset, has
// been numbered (after EncodeObjects: whether it is reachable).
func (c *Canon) Reached(r Ref) bool { return c.ids[r] != 0 }

// Live returns the number of objects numbered so far (after
// EncodeObjects: the reachable ones).
func (c *Canon) Live() int { return len(c.order) }

// AppendUvarint appends x as a uvarint, with a fast path for one byte.
func AppendUvarint(b []byte, x uint64) []byte {
	if x < 0x80 {
		return append(b, byte(x))
	}
	return binary.AppendUvarint(b, x)
}

// AppendVarint appends x as a zig-zag varint.
func AppendVarint(b []byte, x int64) []byte {
	return AppendUvarint(b, uint64(x<<1)^uint64(x>>63))
}

// The encoders make room for the most their output can take once, then
// write with PutUvarint: its bounds checks cannot fail and their failure
// path does not return, whereas append's growth path is a call that makes
// the compiler save and reload the loop's registers on every iteration.

// Room returns b with capacity for at least n more bytes.
func Room(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	return slices.Grow(b, n)
}

// PutUvarint writes x as a uvarint at w[p:] and returns the position after
// it. w must have room (binary.MaxVarintLen64 bytes always do).
func PutUvarint(w []byte, p int, x uint64) int {
	for x >= 0x80 {
		w[p] = byte(x) | 0x80
		x >>= 7
		p++
	}
	w[p] = byte(x)
	return p + 1
}

// PutVarint writes x as a zig-zag varint (see PutUvarint).
func PutVarint(w []byte, p int, x int64) int {
	return PutUvarint(w, p, uint64(x<<1)^uint64(x>>63))
}

// EncodeObjects numbers everything reachable from the roots given so far
// and appends the reachable objects in their new order:
//
//	objects = { tag:uvarint owner:uvarint [count:uvarint] [len:uvarint] slots }
//
// running to the end of the encoding. tag is 0 for an int array, 1 for a
// reference array, class+2 for an object; count follows only a non-zero
// owner; len only for arrays; int slots are zig-zag varints and reference
// slots uvarints of new references. Objects are numbered breadth-first in
// the same pass that encodes them: an object's references are numbered
// when its slots are written, which is exactly the order a separate
// traversal would give.
//
// The first skip objects numbered are not written: the caller encodes them
// in its own way, and they must not hold references.
func (c *Canon) EncodeObjects(b []byte, h *Heap, l *Layout, skip int) []byte {
	b, _ = c.encodeObjects(b, h, l, skip, nil, false)
	return b
}

// EncodeObjectsSplit is EncodeObjects that also appends to cuts, for each
// object written, the offset in the returned slice where its record ends
// (collapse compression stores each object's record on its own).
func (c *Canon) EncodeObjectsSplit(b []byte, h *Heap, l *Layout, skip int, cuts []int32) ([]byte, []int32) {
	return c.encodeObjects(b, h, l, skip, cuts, true)
}

// encodeObjects is EncodeObjects, appending each object's end to cuts if
// split.
func (c *Canon) encodeObjects(b []byte, h *Heap, l *Layout, skip int, cuts []int32, split bool) ([]byte, []int32) {
	// Room for every object of h, reached or not: tag, owner, count and
	// length, and one varint per slot.
	b = Room(b, (4*len(h.Objs)+len(h.Data))*binary.MaxVarintLen64)
	w, p := b[:cap(b)], len(b)
	for i := skip; i < len(c.order); i++ {
		o := &h.Objs[c.order[i]-1]
		tag := uint64(o.Class) + 2
		if o.Kind != KindObject {
			tag = uint64(o.Kind - KindIntArray) // 0 int array, 1 reference array
		}
		p = PutUvarint(w, p, tag)
		owner := o.Owner
		if c.owners != nil && owner > 0 && int(owner) <= len(c.owners) {
			owner = c.owners[owner-1] + 1
		}
		p = PutUvarint(w, p, uint64(owner))
		if o.Owner != 0 {
			p = PutUvarint(w, p, uint64(o.Count))
		}
		if o.Kind != KindObject {
			p = PutUvarint(w, p, uint64(o.Len))
		}
		if o.Len > 0 {
			p = c.putSlots(w, p, h, l, o)
		}
		if split {
			cuts = append(cuts, int32(p))
		}
	}
	return w[:p], cuts
}

// putSlots writes the slots of o at w[p:] and returns the position after
// them. It is out of line: without it the loop over objects keeps fewer
// values live, and objects without slots (monitors) are the common case.
func (c *Canon) putSlots(w []byte, p int, h *Heap, l *Layout, o *Object) int {
	slots := h.Data[o.Off : o.Off+o.Len]
	switch o.Kind {
	case KindIntArray:
		for _, s := range slots {
			p = PutVarint(w, p, s)
		}
	case KindRefArray:
		for _, s := range slots {
			p = PutUvarint(w, p, uint64(c.Root(Ref(s))))
		}
	default:
		refs := l.slots[o.Class]
		for j, s := range slots {
			if refs[j] {
				p = PutUvarint(w, p, uint64(c.Root(Ref(s))))
			} else {
				p = PutVarint(w, p, s)
			}
		}
	}
	return p
}

// DecodeObjects appends to h the objects encoded in b[off:] by
// EncodeObjects, which run to the end of b. The input must come from
// EncodeObjects with the same layout, and h must hold exactly the skipped
// objects.
func DecodeObjects(b []byte, off int, h *Heap, l *Layout) {
	for off < len(b) {
		tag, k := binary.Uvarint(b[off:])
		off += k
		owner, k := binary.Uvarint(b[off:])
		off += k
		var count uint64
		if owner != 0 {
			count, k = binary.Uvarint(b[off:])
			off += k
		}
		var r Ref
		switch tag {
		case 0, 1:
			ln, k := binary.Uvarint(b[off:])
			off += k
			kind := KindIntArray
			if tag == 1 {
				kind = KindRefArray
			}
			r = h.alloc(-1, kind, int(ln))
			slots := h.Slots(r)
			for j := range slots {
				if tag == 0 {
					v, k := binary.Varint(b[off:])
					off += k
					slots[j] = v
				} else {
					v, k := binary.Uvarint(b[off:])
					off += k
					slots[j] = int64(v)
				}
			}
		default:
			class := int32(tag - 2)
			r = h.alloc(class, KindObject, l.Slots(class))
			slots := h.Slots(r)
			refs := l.slots[class]
			for j := range slots {
				if refs[j] {
					v, k := binary.Uvarint(b[off:])
					off += k
					slots[j] = int64(v)
				} else {
					v, k := binary.Varint(b[off:])
					off += k
					slots[j] = v
				}
			}
		}
		o := h.Obj(r)
		o.Owner = int32(owner)
		o.Count = int32(count)
	}
}
