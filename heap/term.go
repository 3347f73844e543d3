// Terms: the 64-bit hashes of a state's components that its fingerprint
// sums (see vm's fingerprint.go), computed from the values a record holds
// without writing the record.

package heap

// A component's term is computed from the integers its record holds, in
// the order the record holds them: each uvarint's value, each single
// byte's value and each signed varint's value as 64 bits. The record is a
// function of that sequence (what a record holds next follows from what it
// held so far), so different records have different sequences. The term
// starts from the component's position k (TermStart), folds in each
// integer by a multiplication (TermAdd) and mixes the result (Mix).
// Equal records at different positions have unrelated terms. Folding the
// values costs about a third of writing the record and hashing its bytes
// (the philosophers with --hash-compact: 7.7% of all the instructions).

// phi is 2^64 divided by the golden ratio, odd: the step between the
// positions' starting values.
const phi = 0x9e3779b97f4a7c15

// TermStart is the value a term at position k starts from.
func TermStart(k int) uint64 { return uint64(k+1) * phi }

// TermAdd folds integer x into a term being computed.
func TermAdd(h, x uint64) uint64 {
	h = (h ^ x) * 0xa0761d6478bd642f
	return h ^ h>>29
}

// Mix is the finaliser of SplitMix64: a bijection of 64-bit words whose
// every output bit depends on every input bit. It ends a term, and the
// fingerprint is Mix of the terms' sum.
func Mix(x uint64) uint64 {
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// ObjectTerm returns the term of the record of the object numbered id
// (component id), which PutObject would write: what it holds, folded
// (see above). Its references are numbered as PutObject numbers them.
func (c *Canon) ObjectTerm(h *Heap, l *Layout, id int) uint64 {
	o := &h.Objs[c.order[id-1]-1]
	tag, owner := c.head(o)
	x := TermAdd(TermAdd(TermStart(id), tag), owner)
	if o.Owner != 0 {
		x = TermAdd(x, uint64(o.Count))
	}
	if o.Kind != KindObject {
		x = TermAdd(x, uint64(o.Len))
	}
	if o.Len > 0 {
		x = c.addSlots(x, h, l, o)
	}
	return Mix(x)
}

// addSlots folds the slots of o into x as putSlots writes them (out of
// line for the same reason).
func (c *Canon) addSlots(x uint64, h *Heap, l *Layout, o *Object) uint64 {
	slots := h.Data[o.Off : o.Off+o.Len]
	switch o.Kind {
	case KindIntArray:
		for _, s := range slots {
			x = TermAdd(x, uint64(s))
		}
	case KindRefArray:
		for _, s := range slots {
			x = TermAdd(x, uint64(c.Root(Ref(s))))
		}
	default:
		refs := l.slots[o.Class]
		for j, s := range slots {
			if refs[j] {
				x = TermAdd(x, uint64(c.Root(Ref(s))))
			} else {
				x = TermAdd(x, uint64(s))
			}
		}
	}
	return x
}
