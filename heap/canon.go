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
	// lim and bad check a numbering again (see Verify): a reference
	// numbered lim or above must be lim, the next one its component
	// introduces. Outside Verify lim is maxRef and the check never runs.
	lim  Ref
	bad  bool
	live int
}

const maxRef = Ref(1<<31 - 1)

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
	c.lim = maxRef
}

// Root numbers r, if not yet numbered, and returns its new reference. r
// is null or an object of the heap given to Reset.
func (c *Canon) Root(r Ref) Ref {
	if r == Null {
		return Null
	}
	if id := c.ids[r]; id != 0 {
		if id >= c.lim {
			c.introduce(id)
		}
		return id
	}
	n := len(c.order)
	c.order = c.order[:n+1] // within the capacity Reset gave
	c.order[n] = r
	c.ids[r] = Ref(n + 1)
	return Ref(n + 1)
}

// introduce checks, during Verify, a reference numbered at or above lim:
// it must be the next object the component introduces.
func (c *Canon) introduce(id Ref) {
	if id == c.lim {
		c.lim++
	} else {
		c.bad = true
	}
}

// Verify begins to check that a component of a state (a thread, an
// object's slots) written again with the numbering Canon holds from an
// earlier state introduces the same objects in the same order: before is
// how many objects were numbered when the earlier traversal reached the
// component. Write the component, then call Verified.
func (c *Canon) Verify(before int) {
	c.lim, c.bad, c.live = Ref(before+1), false, len(c.order)
}

// Verified ends the check Verify began and reports whether the component
// referred only to objects numbered before it and, in order, to the
// objects the earlier traversal numbered from it: after is how many were
// numbered when that traversal left the component. If every component
// that changed passes, the numbering of the earlier state is the new
// state's: every other component refers to the same objects as before.
// A reference to an object the earlier numbering did not reach numbers
// it anew, which Verified reports as a failure and takes back: the
// numbering is the earlier state's again.
func (c *Canon) Verified(after int) bool {
	ok := !c.bad && c.lim == Ref(after+1) && len(c.order) == c.live
	if !ok {
		c.undo()
	}
	c.lim = maxRef
	return ok
}

// undo takes back what a failed check numbered.
func (c *Canon) undo() {
	for _, r := range c.order[c.live:] {
		c.ids[r] = 0
	}
	c.order = c.order[:c.live]
}

// VerifiedPrefix ends the check Verify began, as Verified does, for a
// component that may have let go of the last objects the earlier
// traversal numbered from it: it reports whether the component referred
// only to objects numbered before it and, in order, to a prefix of those
// the earlier traversal numbered from it (after: how many were numbered
// when it left the component), and how many objects are numbered up to
// the end of that prefix. Whether the numbering is then the earlier one
// cut short is the caller's to decide (nothing later may refer to the
// objects let go of).
func (c *Canon) VerifiedPrefix(after int) (reached int, ok bool) {
	reached = int(c.lim) - 1
	ok = !c.bad && reached <= after && len(c.order) == c.live
	if len(c.order) != c.live {
		c.undo()
	}
	c.lim = maxRef
	return reached, ok
}

// RefersPast reports whether an object numbered from+1 to to refers to
// an object numbered past to, or not numbered at all.
func (c *Canon) RefersPast(h *Heap, l *Layout, from, to int) bool {
	for i := from; i < to; i++ {
		o := &h.Objs[c.order[i]-1]
		if o.Len == 0 || o.Kind == KindIntArray {
			continue
		}
		var refs []bool
		if o.Kind == KindObject {
			refs = l.slots[o.Class]
		}
		for j, s := range h.Data[o.Off : o.Off+o.Len] {
			if s == 0 || refs != nil && !refs[j] {
				continue
			}
			if id := c.ids[Ref(s)]; id == 0 || int(id) > to {
				return true
			}
		}
	}
	return false
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
	b, _, _, _ = c.encodeObjects(b, h, l, skip, 0, nil, nil, nil, false)
	return b
}

// EncodeObjectsRec is EncodeObjects that also appends, for each object
// written, where its record starts (offset in the returned slice minus
// base) to starts, and how many objects were numbered when its slots
// began to befores, and its record's term (see term.go) to terms: what
// an incremental encoder needs to write single objects again (PutObject)
// and check the numbering (Verify), and a fingerprint.
func (c *Canon) EncodeObjectsRec(b []byte, h *Heap, l *Layout, skip, base int, starts, befores []int32, terms []uint64) ([]byte, []int32, []int32, []uint64) {
	return c.encodeObjects(b, h, l, skip, base, starts, befores, terms, true)
}

// encodeObjects is EncodeObjects, recording starts, befores and terms if
// rec.
func (c *Canon) encodeObjects(b []byte, h *Heap, l *Layout, skip, base int, starts, befores []int32, terms []uint64, rec bool) ([]byte, []int32, []int32, []uint64) {
	// Room for every object of h, reached or not: tag, owner, count and
	// length, and one varint per slot.
	b = Room(b, (4*len(h.Objs)+len(h.Data))*binary.MaxVarintLen64)
	if rec {
		// As many records as objects at most: with this capacity the
		// loop's appends never grow (see Room).
		starts = slices.Grow(starts, len(h.Objs))
		befores = slices.Grow(befores, len(h.Objs))
		terms = slices.Grow(terms, len(h.Objs))
	}
	p := len(b)
	p, starts, befores, terms, _ = c.putObjects(b[:cap(b)], p, h, l, skip, -1, base, starts, befores, terms, rec)
	return b[:p], starts, befores, terms
}

// FoldObjects is EncodeObjectsRec for the fingerprint alone: it numbers
// the objects as EncodeObjectsRec does and appends the same befores and
// terms (ObjectTerm's), writing no record.
func (c *Canon) FoldObjects(h *Heap, l *Layout, skip int, befores []int32, terms []uint64) ([]int32, []uint64) {
	for i := skip; i < len(c.order); i++ { // (the traversal numbers more as it goes)
		befores = append(befores, int32(len(c.order)))
		terms = append(terms, c.ObjectTerm(h, l, i+1))
	}
	return befores, terms
}

// PutObject writes the record of the object numbered id (see
// EncodeObjects) at w[p:] and returns the position after it. w must have
// room for it (ObjectRoom).
func (c *Canon) PutObject(w []byte, p int, h *Heap, l *Layout, id int) (int, uint64) {
	p, _, _, _, t := c.putObjects(w, p, h, l, id-1, id, 0, nil, nil, nil, false)
	return p, t
}

// Object returns the object numbered id.
func (c *Canon) Object(h *Heap, id int) *Object { return &h.Objs[c.order[id-1]-1] }

// ObjectRoom is the most bytes PutObject writes for the object numbered id.
func (c *Canon) ObjectRoom(h *Heap, id int) int {
	return (4 + int(h.Objs[c.order[id-1]-1].Len)) * binary.MaxVarintLen64
}

// Save returns copies of c's numbering, which Load puts back (for a check
// that encodes another state in between).
func (c *Canon) Save() (ids, order []Ref) {
	return slices.Clone(c.ids), slices.Clone(c.order)
}

// Load puts back a numbering Save returned.
func (c *Canon) Load(ids, order []Ref) {
	c.ids = append(c.ids[:0], ids...)
	c.order = slices.Grow(c.order[:0], cap(order))
	c.order = append(c.order, order...)
	c.lim = maxRef
}

// ID returns the number of r, an object of the heap given to Reset: 0
// if it has none.
func (c *Canon) ID(r Ref) Ref { return c.ids[r] }

// putObjects writes at w[p:] the records of the objects numbered from+1
// up to to (-1: as long as the traversal numbers more) and returns the
// position after them; if rec it appends each record's start (minus base)
// and the objects numbered before its slots to starts and befores. One
// call writes all the objects of a whole encoding (see vm's putThreads).
func (c *Canon) putObjects(w []byte, p int, h *Heap, l *Layout, from, to, base int, starts, befores []int32, terms []uint64, rec bool) (int, []int32, []int32, []uint64, uint64) {
	var x uint64 // the term of the record being written (see term.go)
	for i := from; i < len(c.order) && i != to; i++ {
		if rec {
			starts = append(starts, int32(p-base))
			befores = append(befores, int32(len(c.order)))
		}
		o := &h.Objs[c.order[i]-1]
		tag, owner := c.head(o)
		p = PutUvarint(w, p, tag)
		p = PutUvarint(w, p, owner)
		x = TermAdd(TermAdd(TermStart(i+1), tag), owner)
		if o.Owner != 0 {
			p = PutUvarint(w, p, uint64(o.Count))
			x = TermAdd(x, uint64(o.Count))
		}
		if o.Kind != KindObject {
			p = PutUvarint(w, p, uint64(o.Len))
			x = TermAdd(x, uint64(o.Len))
		}
		if o.Len > 0 {
			p, x = c.putSlots(w, p, h, l, o, x)
		}
		x = Mix(x)
		if rec {
			terms = append(terms, x)
		}
	}
	return p, starts, befores, terms, x
}

// head returns the first two integers of o's record: its tag (0 int
// array, 1 reference array, else its class plus 2) and its monitor's
// owner, renamed by SetOwners' table.
func (c *Canon) head(o *Object) (tag, owner uint64) {
	tag = uint64(o.Class) + 2
	if o.Kind != KindObject {
		tag = uint64(o.Kind - KindIntArray)
	}
	own := o.Owner
	if c.owners != nil && own > 0 && int(own) <= len(c.owners) {
		own = c.owners[own-1] + 1
	}
	return tag, uint64(own)
}

// putSlots writes the slots of o at w[p:] and folds them into term x
// (see term.go), and returns the position after them and the term. It is
// out of line: without it the loop over objects keeps fewer values live,
// and objects without slots (monitors) are the common case.
func (c *Canon) putSlots(w []byte, p int, h *Heap, l *Layout, o *Object, x uint64) (int, uint64) {
	slots := h.Data[o.Off : o.Off+o.Len]
	switch o.Kind {
	case KindIntArray:
		for _, s := range slots {
			p = PutVarint(w, p, s)
			x = TermAdd(x, uint64(s))
		}
	case KindRefArray:
		for _, s := range slots {
			r := uint64(c.Root(Ref(s)))
			p = PutUvarint(w, p, r)
			x = TermAdd(x, r)
		}
	default:
		refs := l.slots[o.Class]
		for j, s := range slots {
			if refs[j] {
				r := uint64(c.Root(Ref(s)))
				p = PutUvarint(w, p, r)
				x = TermAdd(x, r)
			} else {
				p = PutVarint(w, p, s)
				x = TermAdd(x, uint64(s))
			}
		}
	}
	return p, x
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
