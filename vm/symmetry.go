// Thread symmetry: putting the threads of a state in a canonical order.

package vm

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"slices"

	"mcvm/bytecode"
	"mcvm/heap"
)

// ThreadIDUse returns the first instruction (method, pc) by which the
// program can observe a thread's id as a number: tid, or a read of the
// Thread object's id field. Without one, renaming the threads of a state
// (a permutation of their ids, applied to everything that holds one) is an
// isomorphism of the state graph, which thread symmetry reduction relies
// on (see SortThreads).
func ThreadIDUse(p *bytecode.Program) (method, pc int32, found bool) {
	for mi := range p.Methods {
		for pc, in := range p.Methods[mi].Code {
			switch {
			case in.Op == bytecode.OpTid:
			case in.Op == bytecode.OpGetfield && p.Fields[in.A].Class == bytecode.ClassThread:
			default:
				continue
			}
			return int32(mi), int32(pc), true
		}
	}
	return -1, -1, false
}

// SortThreads puts the threads in a canonical order. First they are
// stably sorted by a key that depends only on each thread's own record
// (status, monitor, frames, values, exception handling under way), with
// references written as "this thread's object", "another thread's
// object", "the object static i holds" or "the k-th other object the
// record mentions"; the key does not change when threads are renamed.
// Threads with equal keys can still differ in how the rest of the state
// refers to them (an array of Thread objects) or in the objects their
// records mention, so ties are refined: a walk from the statics, and then
// from the records of the threads already told apart, gives objects
// places and Thread objects ranks, which order the tied threads (see
// placeStatics and anchor). Within each run still tied the order that
// gives the smallest encoding is taken, trying every order of the runs as long as their
// orders multiply to at most MaxSymmetryTries (runs beyond that keep
// their relative order). So the order is a function of the state up to
// the names of its threads, and states that differ only in those encode
// identically, except where runs were left as they were (the reduction
// is then smaller, never unsound).
//
// It appends to perm[:0], for each new index i, the old index of the
// thread now at i, and reports whether any thread moved (then it renamed
// them as PermuteThreads does). Only sound for programs without
// ThreadIDUse.
func (m *Machine) SortThreads(perm []int32) ([]int32, bool) {
	perm, moved := m.sortThreads(perm)
	// The keys stay valid for the sorted state (see Twins): thread i's is
	// the one computed for the thread then at perm[i].
	m.symKeysVer = m.version
	m.symKeyIdx = append(m.symKeyIdx[:0], perm...)
	return perm, moved
}

// sortThreads is SortThreads but for keeping the keys for Twins.
func (m *Machine) sortThreads(perm []int32) ([]int32, bool) {
	s := &m.S
	n := len(s.Threads)
	perm = perm[:0]
	for i := 0; i < n; i++ {
		perm = append(perm, int32(i))
	}
	m.threadKeys()
	if n < 2 {
		return perm, false
	}
	key := func(i int32) []byte { return m.symKeys[m.symOff[i]:m.symOff[i+1]] }
	for i := 1; i < n; i++ { // insertion sort: stable, and linear on sorted input
		p := perm[i]
		kp := key(p)
		j := i
		for j > 0 && bytes.Compare(key(perm[j-1]), kp) > 0 {
			perm[j] = perm[j-1]
			j--
		}
		perm[j] = p
	}
	// Threads with equal keys: refined by ranks and places (see
	// placeStatics and anchor).
	ties := false
	for i := 1; i < n && !ties; i++ {
		ties = bytes.Equal(key(perm[i-1]), key(perm[i]))
	}
	m.symRun = m.symRun[:0]
	for range n {
		m.symRun = append(m.symRun, false)
	}
	if !ties {
		return perm, m.permuteIfMoved(perm)
	}
	m.placeStatics()
	rank := m.symRank
	less := func(a, b int32) bool {
		if c := bytes.Compare(key(a), key(b)); c != 0 {
			return c < 0
		}
		if rank[a] != rank[b] {
			return rank[a] < rank[b]
		}
		return m.localCompare(a, b) < 0
	}
	same := func(a, b int32) bool {
		return rank[a] == rank[b] && bytes.Equal(key(a), key(b)) && m.localCompare(a, b) == 0
	}
	// Refinement: a thread told apart from all others is an anchor, whose
	// record places the objects it mentions and ranks the Thread objects
	// they lead to; that may tell more threads apart, which anchor in turn.
	for round := 0; ; round++ {
		for i := 1; i < n; i++ {
			p := perm[i]
			j := i
			for j > 0 && less(p, perm[j-1]) {
				perm[j] = perm[j-1]
				j--
			}
			perm[j] = p
		}
		// The threads told apart now, anchored in order once all are
		// known (anchoring changes what tells threads apart).
		m.symTry = m.symTry[:0]
		for i, p := range perm {
			if !m.symAnchor[p] && (i == 0 || !same(perm[i-1], p)) && (i+1 == n || !same(p, perm[i+1])) {
				m.symTry = append(m.symTry, p)
			}
		}
		for _, p := range m.symTry {
			m.anchor(p)
		}
		if len(m.symTry) == 0 || round == n {
			break
		}
	}
	// Runs still equal, as (start, end) pairs, while their orders multiply
	// to at most MaxSymmetryTries.
	m.symGrp = m.symGrp[:0]
	tries := 1
	owns := false // m.symOwns is set
	for a := 0; a < n; {
		b := a + 1
		for b < n && same(perm[a], perm[b]) {
			m.symRun[b] = true
			b++
		}
		if b-a > 1 && !owns {
			m.monitorOwners()
			owns = true
		}
		if f := factorial(b - a); b-a > 1 && !m.alike(perm[a:b]) && tries*f <= MaxSymmetryTries {
			tries *= f
			m.symGrp = append(m.symGrp, int32(a), int32(b))
		}
		a = b
	}
	if tries > 1 {
		m.bestOrder(perm, tries)
	}
	return perm, m.permuteIfMoved(perm)
}

// permuteIfMoved renames the threads by perm unless it is the identity,
// and reports whether it was not.
func (m *Machine) permuteIfMoved(perm []int32) bool {
	for i, p := range perm {
		if p != int32(i) {
			m.PermuteThreads(perm)
			return true
		}
	}
	return false
}

// placeStatics starts the refinement of SortThreads: it sets
// m.symRank[t] of every thread t to n (unranked) and walks breadth-first
// everything the statics reach, marking each object with its place in
// the walk (m.symMark, from 1; 0 for objects not reached yet) and ranking
// the threads whose Thread objects it meets in the order it meets them.
// None of that depends on the order of the threads.
func (m *Machine) placeStatics() {
	n := len(m.S.Threads)
	m.symRank = m.symRank[:0]
	m.symAnchor = m.symAnchor[:0]
	for range n {
		m.symRank = append(m.symRank, int32(n))
		m.symAnchor = append(m.symAnchor, false)
	}
	m.symNextRank, m.symNextPlace = 0, 1
	clear(m.symMark)            // sized by threadKeys
	m.symLocal = m.symLocal[:0] // the queue
	for _, i := range m.refStatics {
		m.place(heap.Ref(m.S.Statics[i]))
	}
	m.walkPlaces()
}

// anchor continues the walk of placeStatics from thread t's record, which
// SortThreads has told apart from every other thread's: what it waits on,
// each frame's lock and values, its exceptions under way.
func (m *Machine) anchor(t int32) {
	m.symAnchor[t] = true
	th := m.S.Threads[t]
	m.place(th.WaitObj)
	for fi := range th.Frames {
		m.place(th.Frames[fi].Lock)
	}
	for _, v := range th.Stack {
		if v.Ref {
			m.place(heap.Ref(v.I))
		}
	}
	for _, pd := range th.Pending {
		m.place(pd.Exc)
	}
	m.walkPlaces()
}

// place gives r the next place if it has none, ranks its thread if it is
// a Thread object, and queues it for walkPlaces otherwise.
func (m *Machine) place(r heap.Ref) {
	if r == heap.Null || m.symMark[r] != 0 {
		return
	}
	m.symMark[r] = m.symNextPlace
	m.symNextPlace++
	h := &m.S.Heap
	o := h.Obj(r)
	if o.Kind == heap.KindObject && o.Class == bytecode.ClassThread {
		if id := h.Slots(r)[0]; id >= 0 && id < int64(len(m.symRank)) && m.symRank[id] == int32(len(m.symRank)) {
			m.symRank[id] = m.symNextRank
			m.symNextRank++
		}
		return
	}
	m.symLocal = append(m.symLocal, r)
}

// walkPlaces places, breadth-first, what the queued objects refer to.
func (m *Machine) walkPlaces() {
	h := &m.S.Heap
	for q := 0; q < len(m.symLocal); q++ {
		r := m.symLocal[q]
		o := h.Obj(r)
		slots := h.Slots(r)
		switch o.Kind {
		case heap.KindIntArray:
		case heap.KindRefArray:
			for _, x := range slots {
				m.place(heap.Ref(x))
			}
		default:
			for j, x := range slots {
				if m.layout.IsRef(o.Class, j) {
					m.place(heap.Ref(x))
				}
			}
		}
	}
	m.symLocal = m.symLocal[:0]
}

// localCompare compares threads a and b, whose keys are equal, by the
// places (see placeStatics) of the objects their records mention, in
// order; objects without a place count as after all others. Like the keys
// and ranks, that does not change when threads are renamed.
func (m *Machine) localCompare(a, b int32) int {
	la := m.symLocRefs[m.symLocOff[a]:m.symLocOff[a+1]]
	lb := m.symLocRefs[m.symLocOff[b]:m.symLocOff[b+1]]
	place := func(r heap.Ref) int32 {
		if p := m.symMark[r]; p > 0 {
			return p
		}
		return math.MaxInt32
	}
	for i := range min(len(la), len(lb)) {
		if pa, pb := place(la[i]), place(lb[i]); pa != pb {
			return cmp.Compare(pa, pb)
		}
	}
	return cmp.Compare(len(la), len(lb))
}

// monitorOwners sets m.symOwns[t] for each thread t that holds the
// monitor of some object.
func (m *Machine) monitorOwners() {
	n := len(m.S.Threads)
	m.symOwns = m.symOwns[:0]
	for range n {
		m.symOwns = append(m.symOwns, false)
	}
	for i := range m.S.Heap.Objs {
		if o := m.S.Heap.Objs[i].Owner; o > 0 && int(o) <= n {
			m.symOwns[o-1] = true
		}
	}
}

// alike reports whether threads with equal keys and ranks are alike in a
// way that makes their order irrelevant: their records refer to the same
// objects in the same places and to no other thread's object, nothing
// refers to their Thread objects (the walk from the statics and the
// anchors does not reach them, and neither do the objects their records
// mention), and they hold no monitor. Their records are then identical
// and nothing else tells them apart, so every order of them encodes the
// same.
func (m *Machine) alike(ts []int32) bool {
	locals := func(t int32) []heap.Ref { return m.symLocRefs[m.symLocOff[t]:m.symLocOff[t+1]] }
	for _, t := range ts {
		if !m.symPlain[t] || m.symRank[t] != int32(len(m.S.Threads)) || m.symOwns[t] || !slices.Equal(locals(t), locals(ts[0])) {
			return false
		}
	}
	return !m.reachesThread(locals(ts[0]))
}

// reachesThread reports whether a Thread object can be reached from the
// objects rs through reference slots. Objects the walk of placeStatics
// and anchor placed are not followed: it ranked every Thread object they
// reach. It changes no place or rank.
func (m *Machine) reachesThread(rs []heap.Ref) bool {
	h := &m.S.Heap
	// Marks below symGen are stale: older generations, or zero.
	m.symGen++
	if n := len(m.symMark); cap(m.symSeen) < n || m.symGen == 0 {
		m.symSeen = make([]uint32, n, 2*n)
		m.symGen = 1
	} else {
		m.symSeen = m.symSeen[:n]
	}
	q := m.symQueue[:0]
	for _, r := range rs {
		if r != heap.Null && m.symMark[r] <= 0 && m.symSeen[r] != m.symGen {
			m.symSeen[r] = m.symGen
			q = append(q, r)
		}
	}
	found := false
	for i := 0; i < len(q) && !found; i++ {
		r := q[i]
		o := h.Obj(r)
		if o.Kind == heap.KindObject && o.Class == bytecode.ClassThread {
			found = true
			break
		}
		slots := h.Slots(r)
		for j, x := range slots {
			if o.Kind == heap.KindIntArray || (o.Kind == heap.KindObject && !m.layout.IsRef(o.Class, j)) {
				continue
			}
			if y := heap.Ref(x); y != heap.Null && m.symMark[y] <= 0 && m.symSeen[y] != m.symGen {
				m.symSeen[y] = m.symGen
				q = append(q, y)
			}
		}
	}
	m.symQueue = q[:0]
	return found
}

// MaxSymmetryTries bounds the orders of threads with equal keys that
// SortThreads encodes to find the smallest, per state.
const MaxSymmetryTries = 120

// factorial returns k!, or MaxSymmetryTries+1 when that is larger.
func factorial(k int) int {
	f := 1
	for i := 2; i <= k; i++ {
		if f *= i; f > MaxSymmetryTries {
			return MaxSymmetryTries + 1
		}
	}
	return f
}

// bestOrder sets perm, whose runs m.symGrp hold their threads in
// increasing index order, to the order of those runs' threads (tries of
// them) whose encoding is smallest.
func (m *Machine) bestOrder(perm []int32, tries int) {
	try := append(m.symTry[:0], perm...)
	best, cur := m.symEnc[0][:0], m.symEnc[1][:0]
	for k := 0; k < tries; k++ {
		m.symInv = m.symInv[:0]
		for range try {
			m.symInv = append(m.symInv, 0)
		}
		for i, p := range try {
			m.symInv[p] = int32(i)
		}
		cur, _ = m.encode(cur[:0], nil, false, try, m.symInv, true)
		if k == 0 || bytes.Compare(cur, best) < 0 {
			best, cur = cur, best
			copy(perm, try)
		}
		// The next order: runs as the digits of an odometer, each stepping
		// through its permutations in lexicographic order.
		for g := 0; g < len(m.symGrp); g += 2 {
			if nextPermutation(try[m.symGrp[g]:m.symGrp[g+1]]) {
				break
			}
		}
	}
	m.enc.canon.SetOwners(nil)
	m.symTry, m.symEnc[0], m.symEnc[1] = try, best, cur
}

// nextPermutation steps p to its next permutation in lexicographic order
// and reports true, or, at the last one, goes back to the first (sorted)
// and reports false.
func nextPermutation(p []int32) bool {
	i := len(p) - 2
	for i >= 0 && p[i] >= p[i+1] {
		i--
	}
	if i < 0 {
		slices.Reverse(p)
		return false
	}
	j := len(p) - 1
	for p[j] <= p[i] {
		j--
	}
	p[i], p[j] = p[j], p[i]
	slices.Reverse(p[i+1:])
	return true
}

// Reference tokens in thread keys (see SortThreads), each shifted left by
// two and or-ed with 1 as an encoded reference value is.
const (
	symNull  = 0
	symSelf  = 1
	symOther = 2
	symBase  = 3 // then 2*g for static root g, 2*k+1 for the record's k-th other object
)

// threadKeys computes every thread's key into m.symKeys, thread i's being
// m.symKeys[m.symOff[i]:m.symOff[i+1]].
func (m *Machine) threadKeys() {
	s := &m.S
	h := &s.Heap
	nobj := h.Len() + 1
	if cap(m.symMark) < nobj {
		m.symMark = make([]int32, nobj, 2*nobj)
	} else {
		m.symMark = m.symMark[:nobj]
		clear(m.symMark)
	}
	// Objects the statics hold directly: numbered in static order, which
	// renaming threads does not change. symMark > 0: static root number +
	// 1; < 0: -(k+1), the current record's k-th other object.
	g := int32(0)
	for _, i := range m.refStatics {
		r := heap.Ref(s.Statics[i])
		if r == heap.Null || m.symMark[r] != 0 || m.isThreadObj(r) {
			continue
		}
		g++
		m.symMark[r] = g
	}
	m.symKeys = m.symKeys[:0]
	m.symOff = append(m.symOff[:0], 0)
	m.symPlain = m.symPlain[:0]
	m.symLocRefs = m.symLocRefs[:0]
	m.symLocOff = append(m.symLocOff[:0], 0)
	for _, t := range s.Threads {
		m.symLocal = m.symLocal[:0]
		plain := true
		// Room for the most the record can take (as in encode).
		k := heap.Room(m.symKeys, (8+4*len(t.Frames)+2*len(t.Stack)+7*len(t.Pending))*binary.MaxVarintLen64)
		w, p := k[:cap(k)], len(k)
		w[p] = byte(t.Status)
		p++
		obj := h.Obj(t.Obj)
		switch {
		case obj.Owner == 0:
			w[p] = 0
		case obj.Owner == t.ID+1:
			w[p] = 1
		default:
			w[p] = 2
			plain = false
		}
		p++
		p = heap.PutUvarint(w, p, uint64(obj.Count))
		p = m.refToken(w, p, t, t.WaitObj, &plain)
		p = heap.PutUvarint(w, p, uint64(t.WaitCount))
		p = heap.PutUvarint(w, p, uint64(len(t.Frames)))
		for fi := range t.Frames {
			f := &t.Frames[fi]
			end := t.frameEnd(fi)
			p = heap.PutUvarint(w, p, uint64(f.Method))
			p = heap.PutUvarint(w, p, uint64(f.PC))
			p = m.refToken(w, p, t, f.Lock, &plain)
			p = heap.PutUvarint(w, p, uint64(end-f.Base))
			for _, v := range t.Stack[f.Base:end] {
				if v.Ref {
					p = m.refToken(w, p, t, heap.Ref(v.I), &plain)
				} else {
					w[p] = 0 // an int, zig-zag (a reference's token is odd)
					p = heap.PutUvarint(w, p+1, uint64(v.I<<1^v.I>>63))
				}
			}
		}
		p = heap.PutUvarint(w, p, uint64(len(t.Pending)))
		for _, pd := range t.Pending {
			p = heap.PutUvarint(w, p, uint64(pd.Frame))
			w[p] = byte(pd.Kind)
			p = heap.PutUvarint(w, p+1, uint64(pd.Handler))
			p = m.refToken(w, p, t, pd.Exc, &plain)
			p = heap.PutVarint(w, p, int64(pd.A))
			p = heap.PutVarint(w, p, int64(pd.B))
		}
		for _, r := range m.symLocal {
			m.symMark[r] = 0
		}
		m.symLocRefs = append(m.symLocRefs, m.symLocal...)
		m.symLocOff = append(m.symLocOff, int32(len(m.symLocRefs)))
		m.symKeys = w[:p]
		m.symOff = append(m.symOff, int32(p))
		m.symPlain = append(m.symPlain, plain)
	}
}

// refToken writes at w[p:] the token of reference r in thread t's key
// (see SortThreads) and returns the position after it; it clears *plain
// for a reference to another thread's object.
func (m *Machine) refToken(w []byte, p int, t *Thread, r heap.Ref, plain *bool) int {
	var c uint64
	switch {
	case r == heap.Null:
		c = symNull
	case m.isThreadObj(r):
		c = symOther
		if r == t.Obj {
			c = symSelf
		} else {
			*plain = false
		}
	case m.symMark[r] > 0:
		c = symBase + 2*uint64(m.symMark[r]-1)
	default:
		if m.symMark[r] == 0 {
			m.symLocal = append(m.symLocal, r)
			m.symMark[r] = -int32(len(m.symLocal))
		}
		c = symBase + 2*uint64(-m.symMark[r]-1) + 1
	}
	return heap.PutUvarint(w, p, c<<2|1)
}

// isThreadObj reports whether r is some thread's Thread object.
func (m *Machine) isThreadObj(r heap.Ref) bool {
	o := m.S.Heap.Obj(r)
	return o.Kind == heap.KindObject && o.Class == bytecode.ClassThread
}

// PermuteThreads renames the threads: the thread at old index perm[i]
// becomes thread i, and every monitor owner and Thread object's id
// follows. perm must be a permutation of the thread indexes. The state is
// the same up to the names of its threads; for a program without
// ThreadIDUse it has the same futures up to that renaming.
func (m *Machine) PermuteThreads(perm []int32) {
	s := &m.S
	n := len(s.Threads)
	m.replaced()
	m.clock++
	m.version++
	m.symInv = m.symInv[:0]
	for range n {
		m.symInv = append(m.symInv, 0)
	}
	m.symTmp = m.symTmp[:0]
	for i, p := range perm {
		m.symInv[p] = int32(i)
		m.symTmp = append(m.symTmp, *s.Threads[p])
	}
	// S.Threads[i] stays m.pool[i] (see Restore): the records move, not
	// the Thread values.
	for i := range s.Threads {
		t := s.Threads[i]
		*t = m.symTmp[i]
		t.ID = int32(i)
		s.Heap.Slots(t.Obj)[0] = int64(i)
	}
	m.stampAll()
	clear(m.symTmp) // drop the slices' second references
	for i := range s.Heap.Objs {
		if o := &s.Heap.Objs[i]; o.Owner > 0 && int(o.Owner) <= n {
			o.Owner = m.symInv[o.Owner-1] + 1
		}
	}
}

// Twins appends to rep[:0], for each thread i, the smallest index j such
// that the threads j, j+1, ..., i can be renamed into one another without
// changing the state: renaming adjacent threads j and j+1 (and so on up
// to i) gives a state that encodes identically. A transition of thread i
// then leads to a renaming of what the same transition of thread j leads
// to, so with thread symmetry only thread rep[i] == i's need exploring.
// Meant for a state whose threads SortThreads has put in order (equal
// keys adjacent); only sound for programs without ThreadIDUse.
func (m *Machine) Twins(rep []int32) []int32 {
	n := len(m.S.Threads)
	rep = rep[:0]
	for i := 0; i < n; i++ {
		rep = append(rep, int32(i))
	}
	if n < 2 {
		return rep
	}
	// Threads SortThreads told apart by more than their keys (ranks,
	// places) are no twins: renaming them would move what told them
	// apart. Skipping them can only miss twins, never invent one.
	runs := m.symRun
	if m.symKeysVer != m.version || len(m.symKeyIdx) != n || len(runs) != n {
		runs = nil
	}
	if m.symKeysVer != m.version || len(m.symKeyIdx) != n {
		// Not the state SortThreads left: compute the keys.
		m.threadKeys()
		m.symKeyIdx = m.symKeyIdx[:0]
		for i := 0; i < n; i++ {
			m.symKeyIdx = append(m.symKeyIdx, int32(i))
		}
		m.symKeysVer = m.version
	}
	key := func(i int) []byte {
		k := m.symKeyIdx[i]
		return m.symKeys[m.symOff[k]:m.symOff[k+1]]
	}
	base := m.symEnc[0][:0]
	try := m.symEnc[1][:0]
	encoded := false
	for i := 1; i < n; i++ {
		if !bytes.Equal(key(i-1), key(i)) || runs != nil && !runs[i] {
			continue
		}
		if !encoded {
			base = m.Encode(base)
			encoded = true
		}
		m.symTry = m.symTry[:0]
		for k := 0; k < n; k++ {
			m.symTry = append(m.symTry, int32(k))
		}
		m.symTry[i-1], m.symTry[i] = int32(i), int32(i-1)
		try, _ = m.encode(try[:0], nil, false, m.symTry, m.symTry, true) // a transposition is its own inverse
		m.enc.canon.SetOwners(nil)
		if bytes.Equal(base, try) {
			rep[i] = rep[i-1]
		}
	}
	m.symEnc[0], m.symEnc[1] = base, try
	return rep
}

// Woken returns the thread that transition tr wakes when it begins with a
// notify that has several waiters to choose from (tr.Choice picks one),
// or -1.
func (m *Machine) Woken(tr Trans) int32 {
	if tr.Thread < 0 || int(tr.Thread) >= len(m.S.Threads) {
		return -1
	}
	t := m.S.Threads[tr.Thread]
	if t.Status != StatusRunnable || len(t.Frames) == 0 || m.next(t).op != bytecode.OpNotify || len(t.Stack) == 0 {
		return -1
	}
	r, ok := m.heldBy(t, t.Stack[len(t.Stack)-1])
	if !ok {
		return -1
	}
	if u := m.nthWaiter(r, tr.Choice); u != nil {
		return u.ID
	}
	return -1
}
