// Garbage collection of the active heap: mark-and-sweep on the canonical
// traversal's marks, or MoonWalker's memoised collector.

package vm

import (
	"bytes"
	"math"
	"slices"

	"mcvm/heap"
)

// GC selects how CollectGarbage finds the unreachable objects it frees.
// Both free exactly the objects no root reaches, so the active heap, and
// with it every canonical state, is the same with either.
type GC uint8

const (
	// GCMarkSweep marks from the roots and frees what is not marked. Its
	// mark is the canonical encoding's traversal (heap.Canon numbers
	// exactly the reachable objects), so right after an Encode of the
	// current state it costs only the sweep, one look at each object.
	GCMarkSweep GC = iota
	// GCMemoised is MoonWalker's memoised collector (Nguyen and Ruys,
	// section 7, Algorithm 5): every object keeps its depth, the length of
	// the shortest path to it from the roots, and a collection updates the
	// depths where the heap changed since the last one with Ramalingam and
	// Reps's incremental shortest-path algorithm; objects whose depth
	// becomes infinite are unreachable.
	GCMemoised
	// GCNone frees nothing: garbage stays in the active heap until a
	// Decode replaces it (the canonical encoding leaves it out all the
	// same). For measuring what collecting saves, and differential tests.
	GCNone
)

var gcNames = [...]string{"mark-sweep", "memoised", "none"}

func (g GC) String() string {
	if int(g) < len(gcNames) {
		return gcNames[g]
	}
	return "?"
}

// ParseGC returns the collector named s (mark-sweep, memoised or none).
func ParseGC(s string) (GC, bool) {
	for i, n := range gcNames {
		if n == s {
			return GC(i), true
		}
	}
	return 0, false
}

// CollectGarbage frees the objects of the active heap that no root
// reaches (the roots are those of Encode) and returns how many it freed.
// A freed object is reused by the next allocation of as many slots, so a
// search that collects after every state keeps the active heap, and the
// snapshots that copy it, as small as the live objects. Freeing changes no
// reachable object, so the canonical encoding, the fingerprint and what
// any analysis says of the state are unchanged.
func (m *Machine) CollectGarbage() int {
	freed := m.enc.collect(m.opts.GC, m.version)
	if freed > 0 {
		// A freed object's monitor is free: HoldsMonitor looks again.
		m.esc.forgetHolds()
		m.enc.inc.freed = true
	}
	return freed
}

// collect is CollectGarbage with collector gc, of the state at version
// ver.
func (e *encoder) collect(gc GC, ver uint64) int {
	switch gc {
	case GCMemoised:
		return e.memo.collect(e)
	case GCNone:
		return 0
	}
	h := &e.st.Heap
	freed := 0
	if e.canonVer == ver {
		// The canonical traversal of the state was its mark.
		if e.canon.Live() == len(h.Objs)-h.FreeObjects() {
			return 0 // every object not free was reached
		}
		for i := range h.Objs {
			if r := heap.Ref(i + 1); !e.canon.Reached(r) && h.Objs[i].Kind != heap.KindFree {
				h.Free(r)
				freed++
			}
		}
		return freed
	}
	e.markLive()
	for i := range h.Objs {
		if e.gcMark[i] != e.gcEpoch && h.Objs[i].Kind != heap.KindFree {
			h.Free(heap.Ref(i + 1))
			freed++
		}
	}
	return freed
}

// markLive marks the objects the roots reach (gcMark[i] == gcEpoch for
// object i), depth first: mark-and-sweep's own mark, for a state not
// encoded since it last changed.
func (e *encoder) markLive() {
	h := &e.st.Heap
	e.gcEpoch++
	for len(e.gcMark) < len(h.Objs) {
		e.gcMark = append(e.gcMark, 0)
	}
	st := e.gcStack[:0]
	visit := func(i int32) {
		if e.gcMark[i] != e.gcEpoch {
			e.gcMark[i] = e.gcEpoch
			st = append(st, i)
		}
	}
	e.gcRoots = e.roots(e.gcRoots[:0])
	for _, i := range e.gcRoots {
		visit(i)
	}
	for len(st) > 0 {
		i := st[len(st)-1]
		st = st[:len(st)-1]
		o := &h.Objs[i]
		refsOf(e.refSlots, o, h.Data[o.Off:o.Off+o.Len], visit)
	}
	e.gcStack = st[:0]
}

// roots appends to b the object index (Ref-1) of each root of the state,
// as Encode numbers them: the Thread objects, the reference statics, and
// per thread the object it waits on, its frames' locks and reference
// values, and its pending exceptions. A root may appear more than once.
func (e *encoder) roots(b []int32) []int32 {
	s := e.st
	for _, t := range s.Threads {
		b = append(b, int32(t.Obj-1))
	}
	for _, i := range e.refStatics {
		if r := heap.Ref(s.Statics[i]); r != heap.Null {
			b = append(b, int32(r-1))
		}
	}
	for _, t := range s.Threads {
		if (t.Status == StatusWaiting || t.Status == StatusNotified) && t.WaitObj != heap.Null {
			b = append(b, int32(t.WaitObj-1))
		}
		for fi := range t.Frames {
			if f := &t.Frames[fi]; e.syncMethod[f.Method] && f.Lock != heap.Null {
				b = append(b, int32(f.Lock-1))
			}
		}
		for _, v := range t.Stack {
			if v.Ref && v.I != 0 {
				b = append(b, int32(v.I-1))
			}
		}
		for _, pd := range t.Pending {
			if pd.Exc != heap.Null {
				b = append(b, int32(pd.Exc-1))
			}
		}
	}
	return b
}

// memoBlock is how many words the memoised collector compares with its
// memo at once before looking at single words: with 64 a collection took
// 0.77-0.93 of its time with the snapshots' 32 (diffBlock) on the
// BenchmarkCollectGarbage walks (medians of five rounds); 128 and 256
// were slower again on most.
const memoBlock = 64

// inf is the depth of an object no root reaches.
const inf = math.MaxInt32

// memoGC is the memoised collector's memory: the heap as it was after the
// last collection (the memo), each object's depth in it, and its
// predecessor bags. Objects are indexed by Ref-1.
//
// What changed since the last collection is found by comparing the active
// heap with the memo, block by block as snapshots do, rather than by write
// barriers in the executors: a search restores and decodes states as well
// as stepping, and a comparison sees every way the heap can change. The
// roots are gathered afresh at each collection and compared with the last
// ones; only objects whose rootness changed are affected by them.
type memoGC struct {
	objs  []heap.Object // the memo's headers
	data  []int64       // the memo's slots
	owner []int32       // per word of data: the object whose slot it is, -1 for none
	depth []int32       // per object: its depth in the memo (inf: unreachable or free)
	// Predecessor bags: per object the head of a list of edges (-1 when
	// empty), an edge being the index of the object whose slot holds the
	// reference; an object holding n references to another has n edges.
	predHead     []int32
	eFrom, eNext []int32
	eFree        int32 // 1 + the first unused edge, 0 for none

	root     []bool   // per object: a root in the memo
	rootList []int32  // the memo's roots (object indices, no repeats)
	newRoots []int32  // scratch: this collection's roots
	mark     []uint32 // per object: epoch when last put in a set below
	rootMark []uint32 // per object: epoch when seen as a root now
	epoch    uint32
	changed  []int32 // objects whose header changed (class, kind, place) or that are new or gone
	cand     []int32 // objects whose rhs may differ from their depth, and the dead to check
	dead     []int32
	candMark []uint32
	buckets  [][]int32 // the priority queue: objects by key, with stale entries
	inQ      []bool
	qKey     []int32
	qLow     int // no live entry is in a bucket below this
	qHigh    int // no entry at all is in a bucket above this
	qLen     int // live entries
}

// grow makes the per-object arrays hold n objects; new ones are free of
// edges, unreachable and in no set.
func (g *memoGC) grow(n int) {
	for len(g.depth) < n {
		g.depth = append(g.depth, inf)
		g.predHead = append(g.predHead, -1)
		g.root = append(g.root, false)
		g.mark = append(g.mark, 0)
		g.rootMark = append(g.rootMark, 0)
		g.candMark = append(g.candMark, 0)
		g.inQ = append(g.inQ, false)
		g.qKey = append(g.qKey, 0)
	}
}

// addEdge records that object from holds a reference to object to.
func (g *memoGC) addEdge(from, to int32) {
	e := g.eFree - 1
	if e < 0 {
		e = int32(len(g.eFrom))
		g.eFrom = append(g.eFrom, 0)
		g.eNext = append(g.eNext, -1)
	} else {
		g.eFree = g.eNext[e] + 1
	}
	g.eFrom[e], g.eNext[e] = from, g.predHead[to]
	g.predHead[to] = e
}

// removeEdge removes one edge from object from to object to.
func (g *memoGC) removeEdge(from, to int32) {
	prev := int32(-1)
	for e := g.predHead[to]; e >= 0; prev, e = e, g.eNext[e] {
		if g.eFrom[e] != from {
			continue
		}
		if prev < 0 {
			g.predHead[to] = g.eNext[e]
		} else {
			g.eNext[prev] = g.eNext[e]
		}
		g.eNext[e] = g.eFree - 1
		g.eFree = e + 1
		return
	}
	panic("vm: memoised GC lost a predecessor edge")
}

// refsOf calls fn with the index (Ref-1) of each object that the object
// with header o and slots slots references; refSlots are the reference
// slots of each class.
func refsOf(refSlots [][]int32, o *heap.Object, slots []int64, fn func(to int32)) {
	switch o.Kind {
	case heap.KindRefArray:
		for _, v := range slots {
			if v != 0 {
				fn(int32(v - 1))
			}
		}
	case heap.KindObject:
		for _, j := range refSlots[o.Class] {
			if v := slots[j]; v != 0 {
				fn(int32(v - 1))
			}
		}
	}
}

// isRefSlot reports whether slot j of the object with header o holds a
// reference, by layout l.
func isRefSlot(l *heap.Layout, o *heap.Object, j int) bool {
	switch o.Kind {
	case heap.KindRefArray:
		return true
	case heap.KindObject:
		return l.IsRef(o.Class, j)
	}
	return false
}

// candidate adds object i to the candidates, once per collection.
func (g *memoGC) candidate(i int32) {
	if g.candMark[i] != g.epoch {
		g.candMark[i] = g.epoch
		g.cand = append(g.cand, i)
	}
}

// rhs is the depth object i would have from its predecessors' depths: 1
// for a root, otherwise one more than its shallowest predecessor's.
func (g *memoGC) rhs(i int32) int32 {
	if g.root[i] {
		return 1
	}
	best := int32(inf)
	for e := g.predHead[i]; e >= 0; e = g.eNext[e] {
		if d := g.depth[g.eFrom[e]]; d < best-1 {
			best = d + 1
		}
	}
	return best
}

// push puts object i in the queue with key k, or moves it there.
func (g *memoGC) push(i, k int32) {
	for int(k) >= len(g.buckets) {
		g.buckets = append(g.buckets, nil)
	}
	if !g.inQ[i] {
		g.qLen++
	}
	g.inQ[i], g.qKey[i] = true, k
	g.buckets[k] = append(g.buckets[k], i)
	g.qLow = min(g.qLow, int(k))
	g.qHigh = max(g.qHigh, int(k))
}

// pop removes and returns the object with the least key (the queue must
// not be empty). Entries of objects since moved or removed are skipped.
func (g *memoGC) pop() int32 {
	for {
		b := g.buckets[g.qLow]
		if len(b) == 0 {
			g.qLow++
			continue
		}
		i := b[len(b)-1]
		g.buckets[g.qLow] = b[:len(b)-1]
		if g.inQ[i] && int(g.qKey[i]) == g.qLow {
			g.inQ[i] = false
			g.qLen--
			return i
		}
	}
}

// update puts object i in the queue if it is inconsistent (its rhs differs
// from its depth), keyed by the smaller of the two, and takes it out if
// it is consistent (Algorithm 5, lines 15-21).
func (g *memoGC) update(i int32) {
	r := g.rhs(i)
	if r != g.depth[i] {
		g.push(i, min(r, g.depth[i]))
	} else if g.inQ[i] {
		g.inQ[i] = false
		g.qLen--
	}
}

// structural reports whether two headers differ in what the collector
// sees (class, kind and slots), not only in their monitors.
func structural(a, b *heap.Object) bool {
	return a.Class != b.Class || a.Kind != b.Kind || a.Off != b.Off || a.Len != b.Len
}

// collect is CollectGarbage with the memoised collector.
func (g *memoGC) collect(enc *encoder) int {
	h := &enc.st.Heap
	rs := enc.refSlots
	g.epoch++
	nAct, nOld := len(h.Objs), len(g.objs)
	g.grow(max(nAct, nOld))
	g.changed, g.cand = g.changed[:0], g.cand[:0]

	// Headers: the objects whose class, kind or place changed, and those
	// that are new or gone.
	both := min(nAct, nOld)
	aw, ow := objWords(h.Objs[:both]), objWords(g.objs[:both])
	for b := 0; b < len(aw); b += memoBlock {
		e := min(b+memoBlock, len(aw))
		if bytes.Equal(int64Bytes(aw[b:e]), int64Bytes(ow[b:e])) {
			continue
		}
		for i := b / objWordsPer; i < (e+objWordsPer-1)/objWordsPer; i++ {
			switch {
			case g.mark[i] == g.epoch:
			case structural(&h.Objs[i], &g.objs[i]):
				g.mark[i] = g.epoch
				g.changed = append(g.changed, int32(i))
			default:
				g.objs[i] = h.Objs[i] // its monitor: the memo follows
			}
		}
	}
	for i := both; i < max(nAct, nOld); i++ {
		g.mark[i] = g.epoch
		g.changed = append(g.changed, int32(i))
	}

	// Slots of unchanged objects: each changed reference moves an edge.
	// The memo takes each new value as it goes, but for the slots of
	// changed objects, whose old values are needed below.
	nd := min(len(h.Data), len(g.data))
	for b := heap.Reserved; b < nd; b += memoBlock {
		e := min(b+memoBlock, nd)
		a0, o0 := h.Data[b:e], g.data[b:e]
		if bytes.Equal(int64Bytes(a0), int64Bytes(o0)) {
			continue
		}
		for k, v := range a0 {
			old := o0[k]
			if v == old {
				continue
			}
			d := b + k
			i := g.owner[d]
			if i >= 0 && g.mark[i] == g.epoch {
				continue // its object is redone whole below
			}
			o0[k] = v
			if i < 0 {
				continue
			}
			o := &g.objs[i]
			if o.Kind == heap.KindFree || !isRefSlot(enc.layout, o, d-int(o.Off)) {
				continue
			}
			if old != 0 {
				g.removeEdge(i, int32(old-1))
				g.candidate(int32(old - 1))
			}
			if v != 0 {
				g.addEdge(i, int32(v-1))
				g.candidate(int32(v - 1))
			}
		}
	}

	// Changed objects: their old edges go, their new ones come, and the
	// memo takes their headers and slots.
	for len(g.owner) < len(h.Data) {
		g.owner = append(g.owner, -1)
	}
	nOldData := len(g.data)
	if nAct > nOld {
		g.objs = append(g.objs, h.Objs[nOld:]...)
	}
	if len(h.Data) > nOldData {
		g.data = append(g.data, h.Data[nOldData:]...)
	}
	for _, i := range g.changed {
		// All old edges first: a changed object's new slots may lie where
		// another's old ones were.
		if int(i) < nOld {
			if o := &g.objs[i]; o.Kind != heap.KindFree {
				refsOf(rs, o, g.data[o.Off:o.Off+o.Len], func(to int32) {
					g.removeEdge(i, to)
					g.candidate(to)
				})
			}
		}
		g.depth[i] = inf
	}
	for _, i := range g.changed {
		if int(i) < nAct {
			o := &h.Objs[i]
			g.objs[i] = *o
			copy(g.data[o.Off:o.Off+o.Len], h.Data[o.Off:o.Off+o.Len])
			for d := o.Off; d < o.Off+o.Len; d++ {
				g.owner[d] = i
			}
			if o.Kind != heap.KindFree {
				refsOf(rs, o, h.Data[o.Off:o.Off+o.Len], func(to int32) {
					g.addEdge(i, to)
					g.candidate(to)
				})
				g.candidate(i)
			}
		}
	}

	// Roots: those that stopped or started being one.
	enc.gcRoots = enc.roots(enc.gcRoots[:0])
	g.newRoots = g.newRoots[:0]
	for _, i := range enc.gcRoots {
		if g.rootMark[i] != g.epoch {
			g.rootMark[i] = g.epoch
			g.newRoots = append(g.newRoots, i)
		}
	}
	for _, i := range g.rootList {
		if g.rootMark[i] != g.epoch {
			g.root[i] = false
			if int(i) < nAct {
				g.candidate(i)
			}
		}
	}
	for _, i := range g.newRoots {
		if !g.root[i] {
			g.root[i] = true
			g.candidate(i)
		}
	}
	g.rootList, g.newRoots = g.newRoots, g.rootList

	// Ramalingam and Reps (Algorithm 5): make the inconsistent objects
	// consistent, nearest the roots first.
	g.qLow, g.qHigh, g.qLen = 0, 0, 0
	for _, i := range g.cand {
		if int(i) < nAct && h.Objs[i].Kind != heap.KindFree {
			g.update(i)
		}
	}
	for g.qLen > 0 {
		u := g.pop()
		o := &h.Objs[u]
		slots := h.Data[o.Off : o.Off+o.Len]
		switch r := g.rhs(u); {
		case r < g.depth[u]: // nearer the roots than it was
			g.depth[u] = r
		case r > g.depth[u]: // farther, or unreachable
			g.depth[u] = inf
			g.update(u)
			g.candidate(u) // maybe dead
		default:
			continue
		}
		refsOf(rs, o, slots, g.update)
	}
	for k := 0; k <= g.qHigh && k < len(g.buckets); k++ {
		g.buckets[k] = g.buckets[k][:0]
	}

	// The dead: candidates left unreachable, freed in the order of the
	// heap as the sweep of mark-and-sweep frees them, so that the free
	// lists, and the heap, are the same with either collector.
	dead := g.dead[:0]
	for _, i := range g.cand {
		if int(i) < nAct && g.depth[i] == inf && h.Objs[i].Kind != heap.KindFree {
			dead = append(dead, i)
		}
	}
	slices.Sort(dead)
	for _, i := range dead {
		o := &h.Objs[i]
		refsOf(rs, o, h.Data[o.Off:o.Off+o.Len], func(to int32) { g.removeEdge(i, to) })
		h.Free(heap.Ref(i + 1))
	}
	g.dead = dead
	freed := len(dead)
	for _, i := range dead {
		g.objs[i] = h.Objs[i]
	}
	g.objs, g.data = g.objs[:nAct], g.data[:len(h.Data)]
	copy(g.data[:min(len(g.data), heap.Reserved)], h.Data) // the free lists
	return freed
}
