// CollapseStore: the exact visited set with collapse compression (recursive indexing).

package explorer

import (
	"encoding/binary"
	"math/bits"

	"mcvm/heap"
)

// Component kinds, each with its own pool so that indices stay small.
const (
	kindStatics = iota // the statics block, with the thread count
	kindThread         // one thread's record
	kindObject         // one object's record
	numKinds
)

var kindNames = [numKinds]string{"statics", "threads", "objects"}

// kindAt returns the kind of component i of a state with n threads.
func kindAt(i, n int) int {
	switch {
	case i == 0:
		return kindStatics
	case i <= n:
		return kindThread
	}
	return kindObject
}

// CollapseStore is an exact set of canonical state encodings stored by
// collapse compression (SPIN's -DCOLLAPSE, JPF's and MoonWalker's
// recursive indexing). An encoding is cut into components (vm.Machine
// EncodeSplit says where): the statics block, each thread's record and
// each object's record. Each distinct component is stored once, in the
// pool of its kind, and the state is stored as the vector of its
// components' pool indices (uvarints) in a state table, itself a Store
// keyed by the fingerprint of the whole encoding. Pools compare components
// byte for byte and the state table compares vectors byte for byte, so
// two states are one only if their encodings are equal: the set is as
// exact as Store, and since a vector determines its encoding (the
// concatenation of its components) and the cuts are a function of the
// encoding, equal encodings give equal vectors. Fingerprints are the
// caller's, never derived from indices.
//
// Delta collapse: a transition changes few components of a state, so
// once told the parent of the states to come (SetParent), Add compares
// each component with the parent's at the same position (when both have
// the same thread count) and reuses its index when the bytes are equal;
// only changed components are hashed and looked up in their pool. Reuse
// needs equal bytes, so it cannot change which index a component gets.
type CollapseStore struct {
	pools  [numKinds]*Store
	states *Store
	// comps[k][x] is component x of pool k, aliasing the pool's chunk
	// (which never moves): rebuilding a state reads one slice per
	// component instead of parsing a pool record.
	comps [numKinds][][]byte

	vec []byte // the vector being built
	buf []byte // Get's reconstruction

	// Delta collapse: Add compares a state with base, the parent named
	// last. A new state is kept in next as it is added: depth-first search
	// names it as the parent next, and then base and next swap instead of
	// decoding it from its vector.
	delta      bool
	base, next parent

	// Components looked up in a pool, and reused from the parent.
	lookups, reused int64
}

// NewCollapseStore returns an empty collapse store.
func NewCollapseStore() *CollapseStore {
	c := &CollapseStore{states: newIDStore(1 << 16), delta: true, base: parent{id: -1}, next: parent{id: -1}}
	for k := range c.pools {
		c.pools[k] = newStore(1 << 10)
	}
	return c
}

// SetParent names stored state id as the one the next states added are
// successors of (until the next call), so that delta collapse compares
// their components with its, position by position: a transition changes
// few. Without a parent every component is looked up in its pool.
func (c *CollapseStore) SetParent(id int32) {
	if !c.delta || id == c.base.id || id < 0 || int(id) >= c.states.Len() {
		return
	}
	if id == c.next.id {
		c.base, c.next = c.next, c.base
		c.next.id = -1
		return
	}
	p := &c.base
	p.id, p.n = id, 0
	p.enc, p.cuts, p.idx = p.enc[:0], p.cuts[:0], p.idx[:0]
	vec := c.states.Get(id)
	for i, off := 0, 0; off < len(vec); i++ {
		x, k := binary.Uvarint(vec[off:])
		off += k
		b := c.comps[kindAt(i, p.n)][x]
		if i == 0 {
			p.n = threads(b, len(vec))
		}
		p.enc = append(p.enc, b...)
		p.cuts = append(p.cuts, int32(len(p.enc)))
		p.idx = append(p.idx, uint32(x))
	}
}

// parent is a state Add compares states with: its id (-1: none), thread
// count, encoding, where its components end and their pool indices.
type parent struct {
	id   int32
	n    int
	enc  []byte
	cuts []int32
	idx  []uint32
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for ; i < n && a[i] == b[i]; i++ {
	}
	return i
}

// commonSuffix returns the length of the longest common suffix of a and
// b, at most limit.
func commonSuffix(a, b []byte, limit int) int {
	n := min(len(a), len(b), limit)
	i := 0
	for ; i+8 <= n; i += 8 {
		x := binary.LittleEndian.Uint64(a[len(a)-i-8:]) ^ binary.LittleEndian.Uint64(b[len(b)-i-8:])
		if x != 0 {
			return i + bits.LeadingZeros64(x)/8
		}
	}
	for ; i < n && a[len(a)-1-i] == b[len(b)-1-i]; i++ {
	}
	return i
}

// SetDelta turns delta collapse on (the default) or off; off, SetParent
// does nothing and every component is looked up in its pool. For
// measurements and tests.
func (c *CollapseStore) SetDelta(on bool) {
	c.delta = on
	c.base.id, c.next.id = -1, -1
}

// Len returns the number of states stored.
func (c *CollapseStore) Len() int { return c.states.Len() }

// threads returns the thread count an encoding (or its statics block)
// begins with, at most limit (at least the number of components: kindAt
// then gives every component the same kind as with the true count).
func threads(enc []byte, limit int) int {
	n, _ := binary.Uvarint(enc)
	return int(min(n, uint64(limit)))
}

// validCuts reports whether cuts split enc into components: increasing
// offsets ending at len(enc), the first after the thread count.
func validCuts(enc []byte, cuts []int32) bool {
	if len(cuts) == 0 || int(cuts[len(cuts)-1]) != len(enc) {
		return false
	}
	_, k := binary.Uvarint(enc)
	prev := int32(k)
	if k <= 0 {
		return false
	}
	for _, c := range cuts {
		if c < prev {
			return false
		}
		prev = c
	}
	return true
}

// Add inserts the state with encoding enc, cut into components by cuts
// (as vm.Machine.EncodeSplit gives them), unless it is stored, and returns
// its id and whether it is new. Equal encodings must come with equal cuts
// (as they do from EncodeSplit), or the store would keep one state under
// two vectors. Cuts that do not describe enc make it
// one component (still exact, not compressed).
func (c *CollapseStore) Add(enc []byte, cuts []int32) (int32, bool) {
	return c.add(enc, cuts, c.states.Key(enc))
}

// add is Add with the state's fingerprint fp (the hash of enc, which the
// search has computed already), the state table's key: a vector is a
// function of the encoding, so equal vectors come with equal keys.
func (c *CollapseStore) add(enc []byte, cuts []int32, fp uint64) (int32, bool) {
	var one [1]int32
	if !validCuts(enc, cuts) {
		one[0] = int32(len(enc))
		cuts = one[:]
	}
	n := threads(enc, len(cuts))
	// Components of the parent at the same position with the same bytes
	// keep its index. Those inside the common prefix of the two encodings
	// with the same boundaries, or inside the common suffix at the same
	// distances from the end, are equal without comparing them again.
	pEnc, pCuts, pIdx := c.base.enc, c.base.cuts, c.base.idx
	if c.base.id < 0 || c.base.n != n {
		pCuts = nil
	}
	var pre, suf int
	if len(pCuts) > 0 {
		pre = commonPrefix(enc, pEnc)
		suf = commonSuffix(enc, pEnc, min(len(enc), len(pEnc))-pre)
	}
	shift := int32(len(pEnc) - len(enc))
	vec := c.vec[:0]
	start, pStart := int32(0), int32(0)
	lookups := 0
	for i, end := range cuts {
		if i < len(pCuts) {
			pEnd := pCuts[i]
			if end-start == pEnd-pStart && (start == pStart && int(end) <= pre ||
				pStart == start+shift && len(enc)-int(start) <= suf ||
				string(enc[start:end]) == string(pEnc[pStart:pEnd])) {
				vec = heap.AppendUvarint(vec, uint64(pIdx[i]))
				start, pStart = end, pEnd
				continue
			}
			pStart = pEnd
		}
		comp := enc[start:end]
		start = end
		k := kindAt(i, n)
		id, isNew := c.pools[k].Add(comp, c.pools[k].Key(comp))
		if isNew {
			c.comps[k] = append(c.comps[k], c.pools[k].Get(id))
		}
		lookups++
		vec = heap.AppendUvarint(vec, uint64(id))
	}
	c.lookups += int64(lookups)
	c.reused += int64(len(cuts) - lookups)
	c.vec = vec
	id, isNew := c.states.Add(vec, fp)
	if isNew && c.delta {
		p := &c.next
		p.id, p.n = id, n
		p.enc = append(p.enc[:0], enc...)
		p.cuts = append(p.cuts[:0], cuts...)
		p.idx = p.idx[:0]
		for off := 0; off < len(vec); {
			x, k := binary.Uvarint(vec[off:])
			off += k
			p.idx = append(p.idx, uint32(x))
		}
	}
	return id, isNew
}

// has reports whether the store holds enc, of fingerprint fp and cut by
// cuts as add is given them, without adding it: its vector is the one
// interning would give, which is the one add stores.
func (c *CollapseStore) has(enc []byte, cuts []int32, fp uint64) bool {
	var one [1]int32
	if !validCuts(enc, cuts) {
		one[0] = int32(len(enc))
		cuts = one[:]
	}
	n := threads(enc, len(cuts))
	vec := c.vec[:0]
	start := int32(0)
	for i, end := range cuts {
		comp := enc[start:end]
		start = end
		k := kindAt(i, n)
		id, ok := c.pools[k].find(comp, c.pools[k].Key(comp))
		if !ok {
			return false
		}
		vec = heap.AppendUvarint(vec, uint64(id))
	}
	c.vec = vec
	return c.states.has(vec, fp)
}

// Get returns the encoding of state id, rebuilt from its components. The
// slice is the store's and valid until the next call of Get.
func (c *CollapseStore) Get(id int32) []byte {
	vec := c.states.Get(id)
	b := c.buf[:0]
	n := 0
	for i, off := 0, 0; off < len(vec); i++ {
		x, k := binary.Uvarint(vec[off:])
		off += k
		comp := c.comps[kindAt(i, n)][x]
		if i == 0 {
			n = threads(comp, len(vec))
		}
		b = append(b, comp...)
	}
	c.buf = b
	return b
}

// SetMemoryLimit makes the store refuse to grow past limit bytes of
// process memory (0: no limit); Full then reports true.
func (c *CollapseStore) SetMemoryLimit(limit int64) {
	c.states.SetMemoryLimit(limit)
	for _, p := range c.pools {
		p.SetMemoryLimit(limit)
	}
}

// Full reports that the store refused to grow because of the memory limit.
func (c *CollapseStore) Full() bool {
	if c.states.Full() {
		return true
	}
	for _, p := range c.pools {
		if p.Full() {
			return true
		}
	}
	return false
}

// Bytes returns the memory the store uses: the state table (vectors, index
// and hash table) and the pools.
func (c *CollapseStore) Bytes() int64 {
	b := c.states.Bytes()
	for k, p := range c.pools {
		b += c.poolBytes(k, p)
	}
	return b
}

// poolBytes returns the memory pool k uses: the pool and its slices.
func (c *CollapseStore) poolBytes(k int, p *Store) int64 {
	return p.Bytes() + int64(cap(c.comps[k]))*24
}

// Reuse returns how many components Add looked up in a pool and how many
// it reused from the parent (delta collapse).
func (c *CollapseStore) Reuse() (lookups, reused int64) { return c.lookups, c.reused }

func (c *CollapseStore) size() int  { return c.Len() }
func (c *CollapseStore) full() bool { return c.Full() }

func (c *CollapseStore) account() StoreAccount {
	s := c.states
	a := StoreAccount{Storage: StorageCollapse.String(), Bytes: c.Bytes(), TableSlots: int64(len(s.table)),
		TableBytes: s.tableBytes(), RecordBytes: s.bytes, IndexBytes: s.indexBytes()}
	for k, p := range c.pools {
		a.Pools = append(a.Pools, PoolAccount{Kind: kindNames[k], Components: int64(p.Len()), Bytes: c.poolBytes(k, p)})
	}
	return a
}

// Account returns the store's memory account (as Stats.Store has it).
func (c *CollapseStore) Account() StoreAccount { return c.account() }
