// Canonicalisation and garbage collection: the one place objects are renumbered.

package heap

import "encoding/binary"

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
}

// Reset prepares c for heap h.
func (c *Canon) Reset(h *Heap) {
	n := len(h.Objs) + 1
	if cap(c.ids) < n {
		c.ids = make([]Ref, n, 2*n)
	} else {
		c.ids = c.ids[:n]
		clear(c.ids)
	}
	c.order = c.order[:0]
}

// Root numbers r, if not yet numbered, and returns its new reference.
func (c *Canon) Root(r Ref) Ref {
	if r == Null {
		return Null
	}
	if id := c.ids[r]; id != 0 {
		return id
	}
	c.order = append(c.order, r)
	id := Ref(len(c.order))
	c.ids[r] = id
	return id
}

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
	for i := skip; i < len(c.order); i++ {
		o := &h.Objs[c.order[i]-1]
		slots := h.Data[o.Off : o.Off+o.Len]
		switch o.Kind {
		case KindIntArray:
			b = append(b, 0)
		case KindRefArray:
			b = append(b, 1)
		default:
			b = AppendUvarint(b, uint64(o.Class)+2)
		}
		b = AppendUvarint(b, uint64(o.Owner))
		if o.Owner != 0 {
			b = AppendUvarint(b, uint64(o.Count))
		}
		switch o.Kind {
		case KindIntArray:
			b = AppendUvarint(b, uint64(len(slots)))
			for _, s := range slots {
				b = AppendVarint(b, s)
			}
		case KindRefArray:
			b = AppendUvarint(b, uint64(len(slots)))
			for _, s := range slots {
				b = AppendUvarint(b, uint64(c.Root(Ref(s))))
			}
		default:
			refs := l.slots[o.Class]
			for j, s := range slots {
				if refs[j] {
					b = AppendUvarint(b, uint64(c.Root(Ref(s))))
				} else {
					b = AppendVarint(b, s)
				}
			}
		}
		if split {
			cuts = append(cuts, int32(len(b)))
		}
	}
	return b, cuts
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
