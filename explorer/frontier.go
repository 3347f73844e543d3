// Frontiers: the states a state-expanding search has stored and not yet expanded.

package explorer

import (
	"encoding/binary"
	"math"
)

// frontier holds the states a state-expanding search (breadth-first,
// best-first, A*) has stored and not yet expanded, and gives them back in
// its order. Where the store keeps no encodings (hash compaction,
// bitstate hashing), the frontier keeps each state's encoding until it
// is taken.
type frontier interface {
	// push adds state id, reached by a path of length g, with heuristic
	// estimate h (the queue's order ignores both); enc is its encoding
	// where the store keeps none (nil otherwise), copied.
	push(id int32, enc []byte, g, h int32)
	// pop takes the next state, with its encoding if push was given one
	// (valid until the next call); ok is false when the frontier is empty.
	pop() (id int32, enc []byte, ok bool)
	// size is the number of states it holds.
	size() int
}

// queue is breadth-first search's frontier: first in, first out, so that
// states are expanded by depth and the first path to an error is a
// shortest one.
type queue struct {
	ids  []int32
	head int
	encs encQueue
}

func (q *queue) push(id int32, enc []byte, _, _ int32) {
	q.ids = append(q.ids, id)
	if enc != nil {
		q.encs.push(enc)
	}
}

func (q *queue) size() int { return len(q.ids) - q.head }

func (q *queue) pop() (int32, []byte, bool) {
	if q.head == len(q.ids) {
		return 0, nil, false
	}
	id := q.ids[q.head]
	q.head++
	if q.head >= 1<<16 && 2*q.head >= len(q.ids) {
		// Give back the ids taken: the queue keeps only the frontier.
		q.ids = q.ids[:copy(q.ids, q.ids[q.head:])]
		q.head = 0
	}
	return id, q.encs.pop(), true
}

// prioQueue is best-first search's and A*'s frontier: a binary heap of
// states by priority (best-first: the estimate h, then the path length g,
// the longer first; A*: f = g + h, then h), first in, first out among
// equals, so that the search is the same in every run. Of two equally
// promising states the one further along its path, and so by the
// estimate nearer an error, goes first: where the estimate is flat the
// search goes on from the state it reached last, as depth-first search
// does, instead of widening. A* counts an estimate below 1 as 1: a state
// in the frontier was checked and is no error, so an error is at least
// one transition away; with h = 0 everywhere A* is then breadth-first
// search, states taken in the same order. A* adds a state again when it
// finds a shorter path to it; an entry whose g is no longer the state's
// is stale and skipped. It takes exact stores only: it keeps no
// encodings.
type prioQueue struct {
	astar bool
	depth *[]int32 // the search's path lengths by state
	heap  []prioEntry
	seq   uint64
}

func (q *prioQueue) size() int { return len(q.heap) }

type prioEntry struct {
	pri   uint64 // A*: f<<32 | h; best-first: h<<32 | (MaxInt32 - g)
	seq   uint64
	id, g int32
}

func (a *prioEntry) before(b *prioEntry) bool {
	return a.pri < b.pri || a.pri == b.pri && a.seq < b.seq
}

func (q *prioQueue) push(id int32, _ []byte, g, h int32) {
	e := prioEntry{pri: uint64(h)<<32 | uint64(math.MaxInt32-g), seq: q.seq, id: id, g: g}
	if q.astar {
		h = max(h, 1)
		e.pri = uint64(g+h)<<32 | uint64(h)
	}
	q.seq++
	q.heap = append(q.heap, e)
	for i := len(q.heap) - 1; i > 0; {
		p := (i - 1) / 2
		if !q.heap[i].before(&q.heap[p]) {
			break
		}
		q.heap[i], q.heap[p] = q.heap[p], q.heap[i]
		i = p
	}
}

func (q *prioQueue) pop() (int32, []byte, bool) {
	if !q.dropStale() {
		return 0, nil, false
	}
	id := q.heap[0].id
	q.remove()
	return id, nil, true
}

// least returns the least f in the queue (A*), or the largest int64 if it
// is empty.
func (q *prioQueue) least() int64 {
	if !q.dropStale() {
		return 1<<63 - 1
	}
	return int64(q.heap[0].pri >> 32)
}

// dropStale removes stale entries from the top; it returns false if the
// queue is empty.
func (q *prioQueue) dropStale() bool {
	for len(q.heap) > 0 && q.heap[0].g != (*q.depth)[q.heap[0].id] {
		q.remove()
	}
	return len(q.heap) > 0
}

// remove takes the top entry off the heap.
func (q *prioQueue) remove() {
	n := len(q.heap) - 1
	q.heap[0] = q.heap[n]
	q.heap = q.heap[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && q.heap[c+1].before(&q.heap[c]) {
			c++
		}
		if !q.heap[c].before(&q.heap[i]) {
			break
		}
		q.heap[i], q.heap[c] = q.heap[c], q.heap[i]
		i = c
	}
}

// encQueue holds encodings first in, first out, in chunks of chunkSize
// bytes, each released once every encoding in it has been taken and
// written into again (a new chunk's pages would be faulted in again).
type encQueue struct {
	chunks [][]byte
	spare  [][]byte // chunks released, empty
	offs   []uint64 // chunk<<32 | offset of each encoding not yet taken, from head
	head   int
}

func (q *encQueue) push(enc []byte) {
	need := len(enc) + binary.MaxVarintLen64
	if len(q.chunks) == 0 || q.chunks[len(q.chunks)-1] == nil ||
		len(q.chunks[len(q.chunks)-1])+need > cap(q.chunks[len(q.chunks)-1]) {
		var c []byte
		if n := len(q.spare); n > 0 && cap(q.spare[n-1]) >= need {
			c, q.spare = q.spare[n-1], q.spare[:n-1]
		} else {
			c = make([]byte, 0, max(chunkSize, need))
		}
		q.chunks = append(q.chunks, c)
	}
	ci := len(q.chunks) - 1
	c := q.chunks[ci]
	q.offs = append(q.offs, uint64(ci)<<32|uint64(len(c)))
	c = binary.AppendUvarint(c, uint64(len(enc)))
	q.chunks[ci] = append(c, enc...)
}

// pop returns the next encoding, or nil if there is none, and releases
// the chunks before its own.
func (q *encQueue) pop() []byte {
	if q.head == len(q.offs) {
		return nil
	}
	ref := q.offs[q.head]
	q.head++
	if q.head >= 1<<16 && 2*q.head >= len(q.offs) {
		q.offs = q.offs[:copy(q.offs, q.offs[q.head:])]
		q.head = 0
	}
	ci := int(ref >> 32)
	for j := ci - 1; j >= 0 && q.chunks[j] != nil; j-- {
		if cap(q.chunks[j]) == chunkSize {
			q.spare = append(q.spare, q.chunks[j][:0])
		}
		q.chunks[j] = nil
	}
	c := q.chunks[ci]
	off := int(uint32(ref))
	n, k := binary.Uvarint(c[off:])
	return c[off+k : off+k+int(n)]
}
