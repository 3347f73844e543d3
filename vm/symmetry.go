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

// symmetry is what SortThreads and Twins compute of a state: the thread
// keys, the places and ranks of the refinement, and their scratch. Its
// methods read the state they are given and the tables below (set by New,
// read-only); encoding an order of the threads and renaming them are the
// machine's (bestOrder, PermuteThreads).
type symmetry struct {
	layout     *heap.Layout
	refStatics []int // the statics of reference kind (Machine.refStatics)

	// The keys: thread i's is keys[off[i]:off[i+1]] (threadKeys).
	keys []byte
	off  []int32
	// Per object: in threadKeys, a static root's number or a record's
	// other object; in the refinement, the place (see placeStatics).
	mark []int32
	// A record's other objects in threadKeys; the queue of walkPlaces.
	local []heap.Ref
	// Per thread: whether its record refers to no other thread's object
	// and its Thread object's monitor is free or its own (see alike), the
	// objects it mentions (locRefs[locOff[i]:locOff[i+1]]), its rank, and
	// whether it is an anchor or holds a monitor.
	plain    []bool
	locRefs  []heap.Ref
	locOff   []int32
	rank     []int32
	anchored []bool
	owns     []bool
	// nextRank and nextPlace: the next rank and place the refinement gives.
	nextRank, nextPlace int32
	// Scratch: a permutation's inverse, the records PermuteThreads moves,
	// the orders tried and their encodings, the runs tried (start, end).
	inv []int32
	tmp []Thread
	try []int32
	enc [2][]byte
	grp []int32
	// The keys are those of the state at version keysVer, thread i's at
	// index keyIdx[i] (see SortThreads and Twins).
	keysVer uint64
	keyIdx  []int32
	// run[i] (valid with the keys): SortThreads left threads i-1 and i in
	// one run of threads it could not tell apart; Twins need not try the
	// others.
	run []bool
	// Scratch of reachesThread: visited marks (generation gen) and the
	// queue.
	seen  []uint32
	gen   uint32
	queue []heap.Ref
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
	m.sym.sorted(m.version, perm)
	return perm, moved
}

// sortThreads is SortThreads but for keeping the keys for Twins.
func (m *Machine) sortThreads(perm []int32) ([]int32, bool) {
	perm, tries := m.sym.order(&m.S, perm)
	if tries > 1 {
		m.bestOrder(perm, tries)
	}
	return perm, m.permuteIfMoved(perm)
}

// sorted records that the keys stay valid for the state SortThreads
// sorted, at version ver (see Twins): thread i's is the one computed for
// the thread then at perm[i].
func (sy *symmetry) sorted(ver uint64, perm []int32) {
	sy.keysVer = ver
	sy.keyIdx = append(sy.keyIdx[:0], perm...)
}

// order is SortThreads's ordering of the threads of s, but for the runs
// of threads it could not tell apart: it appends to perm[:0], for each
// new index i, the old index of the thread to be at i, with every run it
// leaves to bestOrder in increasing index order (in grp), and returns
// how many orders of those runs there are to try (1: none).
func (sy *symmetry) order(s *State, perm []int32) ([]int32, int) {
	n := len(s.Threads)
	perm = perm[:0]
	for i := 0; i < n; i++ {
		perm = append(perm, int32(i))
	}
	sy.threadKeys(s)
	if n < 2 {
		return perm, 1
	}
	key := func(i int32) []byte { return sy.keys[sy.off[i]:sy.off[i+1]] }
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
	sy.run = sy.run[:0]
	for range n {
		sy.run = append(sy.run, false)
	}
	if !ties {
		return perm, 1
	}
	sy.placeStatics(s)
	rank := sy.rank
	less := func(a, b int32) bool {
		if c := bytes.Compare(key(a), key(b)); c != 0 {
			return c < 0
		}
		if rank[a] != rank[b] {
			return rank[a] < rank[b]
		}
		return sy.localCompare(a, b) < 0
	}
	same := func(a, b int32) bool {
		return rank[a] == rank[b] && bytes.Equal(key(a), key(b)) && sy.localCompare(a, b) == 0
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
		sy.try = sy.try[:0]
		for i, p := range perm {
			if !sy.anchored[p] && (i == 0 || !same(perm[i-1], p)) && (i+1 == n || !same(p, perm[i+1])) {
				sy.try = append(sy.try, p)
			}
		}
		for _, p := range sy.try {
			sy.anchor(s, p)
		}
		if len(sy.try) == 0 || round == n {
			break
		}
	}
	// Runs still equal, as (start, end) pairs, while their orders multiply
	// to at most MaxSymmetryTries.
	sy.grp = sy.grp[:0]
	tries := 1
	owns := false // sy.owns is set
	for a := 0; a < n; {
		b := a + 1
		for b < n && same(perm[a], perm[b]) {
			sy.run[b] = true
			b++
		}
		if b-a > 1 && !owns {
			sy.monitorOwners(s)
			owns = true
		}
		if f := factorial(b - a); b-a > 1 && !sy.alike(s, perm[a:b]) && tries*f <= MaxSymmetryTries {
			tries *= f
			sy.grp = append(sy.grp, int32(a), int32(b))
		}
		a = b
	}
	return perm, tries
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

// placeStatics starts the refinement of SortThreads in s: it sets
// rank[t] of every thread t to n (unranked) and walks breadth-first
// everything the statics reach, marking each object with its place in
// the walk (mark, from 1; 0 for objects not reached yet) and ranking
// the threads whose Thread objects it meets in the order it meets them.
// None of that depends on the order of the threads.
func (sy *symmetry) placeStatics(s *State) {
	n := len(s.Threads)
	sy.rank = sy.rank[:0]
	sy.anchored = sy.anchored[:0]
	for range n {
		sy.rank = append(sy.rank, int32(n))
		sy.anchored = append(sy.anchored, false)
	}
	sy.nextRank, sy.nextPlace = 0, 1
	clear(sy.mark)          // sized by threadKeys
	sy.local = sy.local[:0] // the queue
	for _, i := range sy.refStatics {
		sy.place(&s.Heap, heap.Ref(s.Statics[i]))
	}
	sy.walkPlaces(&s.Heap)
}

// anchor continues the walk of placeStatics from the record of thread t
// of s, which SortThreads has told apart from every other thread's: what
// it waits on, each frame's lock and values, its exceptions under way.
func (sy *symmetry) anchor(s *State, t int32) {
	sy.anchored[t] = true
	th := s.Threads[t]
	h := &s.Heap
	sy.place(h, th.WaitObj)
	for fi := range th.Frames {
		sy.place(h, th.Frames[fi].Lock)
	}
	for _, v := range th.Stack {
		if v.Ref {
			sy.place(h, heap.Ref(v.I))
		}
	}
	for _, pd := range th.Pending {
		sy.place(h, pd.Exc)
	}
	sy.walkPlaces(h)
}

// place gives r, an object of h, the next place if it has none, ranks
// its thread if it is a Thread object, and queues it for walkPlaces
// otherwise.
func (sy *symmetry) place(h *heap.Heap, r heap.Ref) {
	if r == heap.Null || sy.mark[r] != 0 {
		return
	}
	sy.mark[r] = sy.nextPlace
	sy.nextPlace++
	o := h.Obj(r)
	if o.Kind == heap.KindObject && o.Class == bytecode.ClassThread {
		if id := h.Slots(r)[0]; id >= 0 && id < int64(len(sy.rank)) && sy.rank[id] == int32(len(sy.rank)) {
			sy.rank[id] = sy.nextRank
			sy.nextRank++
		}
		return
	}
	sy.local = append(sy.local, r)
}

// walkPlaces places, breadth-first, what the queued objects of h refer
// to.
func (sy *symmetry) walkPlaces(h *heap.Heap) {
	for q := 0; q < len(sy.local); q++ {
		r := sy.local[q]
		o := h.Obj(r)
		slots := h.Slots(r)
		switch o.Kind {
		case heap.KindIntArray:
		case heap.KindRefArray:
			for _, x := range slots {
				sy.place(h, heap.Ref(x))
			}
		default:
			for j, x := range slots {
				if sy.layout.IsRef(o.Class, j) {
					sy.place(h, heap.Ref(x))
				}
			}
		}
	}
	sy.local = sy.local[:0]
}

// localCompare compares threads a and b, whose keys are equal, by the
// places (see placeStatics) of the objects their records mention, in
// order; objects without a place count as after all others. Like the keys
// and ranks, that does not change when threads are renamed.
func (sy *symmetry) localCompare(a, b int32) int {
	la := sy.locRefs[sy.locOff[a]:sy.locOff[a+1]]
	lb := sy.locRefs[sy.locOff[b]:sy.locOff[b+1]]
	place := func(r heap.Ref) int32 {
		if p := sy.mark[r]; p > 0 {
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

// monitorOwners sets owns[t] for each thread t of s that holds the
// monitor of some object.
func (sy *symmetry) monitorOwners(s *State) {
	n := len(s.Threads)
	sy.owns = sy.owns[:0]
	for range n {
		sy.owns = append(sy.owns, false)
	}
	for i := range s.Heap.Objs {
		if o := s.Heap.Objs[i].Owner; o > 0 && int(o) <= n {
			sy.owns[o-1] = true
		}
	}
}

// alike reports whether threads ts of s, with equal keys and ranks, are
// alike in a way that makes their order irrelevant: their records refer
// to the same objects in the same places and to no other thread's object,
// nothing refers to their Thread objects (the walk from the statics and
// the anchors does not reach them, and neither do the objects their
// records mention), and they hold no monitor. Their records are then
// identical and nothing else tells them apart, so every order of them
// encodes the same.
func (sy *symmetry) alike(s *State, ts []int32) bool {
	locals := func(t int32) []heap.Ref { return sy.locRefs[sy.locOff[t]:sy.locOff[t+1]] }
	for _, t := range ts {
		if !sy.plain[t] || sy.rank[t] != int32(len(s.Threads)) || sy.owns[t] || !slices.Equal(locals(t), locals(ts[0])) {
			return false
		}
	}
	return !sy.reachesThread(&s.Heap, locals(ts[0]))
}

// reachesThread reports whether a Thread object can be reached from the
// objects rs of h through reference slots. Objects the walk of placeStatics
// and anchor placed are not followed: it ranked every Thread object they
// reach. It changes no place or rank.
func (sy *symmetry) reachesThread(h *heap.Heap, rs []heap.Ref) bool {
	// Marks below gen are stale: older generations, or zero.
	sy.gen++
	if n := len(sy.mark); cap(sy.seen) < n || sy.gen == 0 {
		sy.seen = make([]uint32, n, 2*n)
		sy.gen = 1
	} else {
		sy.seen = sy.seen[:n]
	}
	q := sy.queue[:0]
	for _, r := range rs {
		if r != heap.Null && sy.mark[r] <= 0 && sy.seen[r] != sy.gen {
			sy.seen[r] = sy.gen
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
			if o.Kind == heap.KindIntArray || (o.Kind == heap.KindObject && !sy.layout.IsRef(o.Class, j)) {
				continue
			}
			if y := heap.Ref(x); y != heap.Null && sy.mark[y] <= 0 && sy.seen[y] != sy.gen {
				sy.seen[y] = sy.gen
				q = append(q, y)
			}
		}
	}
	sy.queue = q[:0]
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

// bestOrder sets perm, whose runs m.sym.grp hold their threads in
// increasing index order, to the order of those runs' threads (tries of
// them) whose encoding is smallest.
func (m *Machine) bestOrder(perm []int32, tries int) {
	sy := &m.sym
	try := append(sy.try[:0], perm...)
	best, cur := sy.enc[0][:0], sy.enc[1][:0]
	for k := 0; k < tries; k++ {
		sy.inv = sy.inv[:0]
		for range try {
			sy.inv = append(sy.inv, 0)
		}
		for i, p := range try {
			sy.inv[p] = int32(i)
		}
		cur, _ = m.encode(cur[:0], nil, false, try, sy.inv, true)
		if k == 0 || bytes.Compare(cur, best) < 0 {
			best, cur = cur, best
			copy(perm, try)
		}
		// The next order: runs as the digits of an odometer, each stepping
		// through its permutations in lexicographic order.
		for g := 0; g < len(sy.grp); g += 2 {
			if nextPermutation(try[sy.grp[g]:sy.grp[g+1]]) {
				break
			}
		}
	}
	m.enc.canon.SetOwners(nil)
	sy.try, sy.enc[0], sy.enc[1] = try, best, cur
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

// threadKeys computes the key of every thread of s into keys, thread i's
// being keys[off[i]:off[i+1]].
func (sy *symmetry) threadKeys(s *State) {
	h := &s.Heap
	nobj := h.Len() + 1
	if cap(sy.mark) < nobj {
		sy.mark = make([]int32, nobj, 2*nobj)
	} else {
		sy.mark = sy.mark[:nobj]
		clear(sy.mark)
	}
	// Objects the statics hold directly: numbered in static order, which
	// renaming threads does not change. mark > 0: static root number +
	// 1; < 0: -(k+1), the current record's k-th other object.
	g := int32(0)
	for _, i := range sy.refStatics {
		r := heap.Ref(s.Statics[i])
		if r == heap.Null || sy.mark[r] != 0 || isThreadObj(h, r) {
			continue
		}
		g++
		sy.mark[r] = g
	}
	sy.keys = sy.keys[:0]
	sy.off = append(sy.off[:0], 0)
	sy.plain = sy.plain[:0]
	sy.locRefs = sy.locRefs[:0]
	sy.locOff = append(sy.locOff[:0], 0)
	for _, t := range s.Threads {
		sy.local = sy.local[:0]
		plain := true
		// Room for the most the record can take (as in encode).
		k := heap.Room(sy.keys, (8+4*len(t.Frames)+2*len(t.Stack)+7*len(t.Pending))*binary.MaxVarintLen64)
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
		p = sy.refToken(h, w, p, t, t.WaitObj, &plain)
		p = heap.PutUvarint(w, p, uint64(t.WaitCount))
		p = heap.PutUvarint(w, p, uint64(len(t.Frames)))
		for fi := range t.Frames {
			f := &t.Frames[fi]
			end := t.frameEnd(fi)
			p = heap.PutUvarint(w, p, uint64(f.Method))
			p = heap.PutUvarint(w, p, uint64(f.PC))
			p = sy.refToken(h, w, p, t, f.Lock, &plain)
			p = heap.PutUvarint(w, p, uint64(end-f.Base))
			for _, v := range t.Stack[f.Base:end] {
				if v.Ref {
					p = sy.refToken(h, w, p, t, heap.Ref(v.I), &plain)
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
			p = sy.refToken(h, w, p, t, pd.Exc, &plain)
			p = heap.PutVarint(w, p, int64(pd.A))
			p = heap.PutVarint(w, p, int64(pd.B))
		}
		for _, r := range sy.local {
			sy.mark[r] = 0
		}
		sy.locRefs = append(sy.locRefs, sy.local...)
		sy.locOff = append(sy.locOff, int32(len(sy.locRefs)))
		sy.keys = w[:p]
		sy.off = append(sy.off, int32(p))
		sy.plain = append(sy.plain, plain)
	}
}

// refToken writes at w[p:] the token of reference r, an object of h, in
// thread t's key (see SortThreads) and returns the position after it; it
// clears *plain for a reference to another thread's object.
func (sy *symmetry) refToken(h *heap.Heap, w []byte, p int, t *Thread, r heap.Ref, plain *bool) int {
	var c uint64
	switch {
	case r == heap.Null:
		c = symNull
	case isThreadObj(h, r):
		c = symOther
		if r == t.Obj {
			c = symSelf
		} else {
			*plain = false
		}
	case sy.mark[r] > 0:
		c = symBase + 2*uint64(sy.mark[r]-1)
	default:
		if sy.mark[r] == 0 {
			sy.local = append(sy.local, r)
			sy.mark[r] = -int32(len(sy.local))
		}
		c = symBase + 2*uint64(-sy.mark[r]-1) + 1
	}
	return heap.PutUvarint(w, p, c<<2|1)
}

// isThreadObj reports whether r, an object of h, is some thread's Thread
// object.
func isThreadObj(h *heap.Heap, r heap.Ref) bool {
	o := h.Obj(r)
	return o.Kind == heap.KindObject && o.Class == bytecode.ClassThread
}

// PermuteThreads renames the threads: the thread at old index perm[i]
// becomes thread i, and every monitor owner and Thread object's id
// follows. perm must be a permutation of the thread indexes. The state is
// the same up to the names of its threads; for a program without
// ThreadIDUse it has the same futures up to that renaming.
func (m *Machine) PermuteThreads(perm []int32) {
	m.replaced()
	m.clock++
	m.version++
	m.sym.permute(&m.S, perm)
	m.stampAll()
}

// permute is PermuteThreads's renaming of the threads of s.
func (sy *symmetry) permute(s *State, perm []int32) {
	n := len(s.Threads)
	sy.inv = sy.inv[:0]
	for range n {
		sy.inv = append(sy.inv, 0)
	}
	sy.tmp = sy.tmp[:0]
	for i, p := range perm {
		sy.inv[p] = int32(i)
		sy.tmp = append(sy.tmp, *s.Threads[p])
	}
	// s.Threads[i] stays the machine's pool[i] (see Restore): the records
	// move, not the Thread values.
	for i := range s.Threads {
		t := s.Threads[i]
		*t = sy.tmp[i]
		t.ID = int32(i)
		s.Heap.Slots(t.Obj)[0] = int64(i)
	}
	clear(sy.tmp) // drop the slices' second references
	for i := range s.Heap.Objs {
		if o := &s.Heap.Objs[i]; o.Owner > 0 && int(o.Owner) <= n {
			o.Owner = sy.inv[o.Owner-1] + 1
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
	sy := &m.sym
	runs := sy.keysOf(&m.S, m.version)
	key := func(i int) []byte {
		k := sy.keyIdx[i]
		return sy.keys[sy.off[k]:sy.off[k+1]]
	}
	base := sy.enc[0][:0]
	try := sy.enc[1][:0]
	encoded := false
	for i := 1; i < n; i++ {
		if !bytes.Equal(key(i-1), key(i)) || runs != nil && !runs[i] {
			continue
		}
		if !encoded {
			base = m.Encode(base)
			encoded = true
		}
		sy.try = sy.try[:0]
		for k := 0; k < n; k++ {
			sy.try = append(sy.try, int32(k))
		}
		sy.try[i-1], sy.try[i] = int32(i), int32(i-1)
		try, _ = m.encode(try[:0], nil, false, sy.try, sy.try, true) // a transposition is its own inverse
		m.enc.canon.SetOwners(nil)
		if bytes.Equal(base, try) {
			rep[i] = rep[i-1]
		}
	}
	sy.enc[0], sy.enc[1] = base, try
	return rep
}

// keysOf makes the keys those of state s, at version ver: as
// SortThreads left them if it sorted that state, else computed in thread
// order. It returns SortThreads's runs (see run), or nil if it did not
// sort the state.
func (sy *symmetry) keysOf(s *State, ver uint64) []bool {
	n := len(s.Threads)
	runs := sy.run
	if sy.keysVer != ver || len(sy.keyIdx) != n || len(runs) != n {
		runs = nil
	}
	if sy.keysVer != ver || len(sy.keyIdx) != n {
		// Not the state SortThreads left: compute the keys.
		sy.threadKeys(s)
		sy.keyIdx = sy.keyIdx[:0]
		for i := 0; i < n; i++ {
			sy.keyIdx = append(sy.keyIdx, int32(i))
		}
		sy.keysVer = ver
	}
	return runs
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
