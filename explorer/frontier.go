// Frontiers: the states a state-expanding search has stored and not yet expanded.

package explorer

import "encoding/binary"

// frontier holds the states a state-expanding search (breadth-first
// today; best-first and A* would put a priority queue in its place) has
// stored and not yet expanded, and gives them back in its order. Where
// the store keeps no encodings (hash compaction, bitstate hashing), the
// frontier keeps each state's encoding until it is taken.
type frontier interface {
	// push adds state id; enc is its encoding where the store keeps none
	// (nil otherwise), copied.
	push(id int32, enc []byte)
	// pop takes the next state, with its encoding if push was given one
	// (valid until the next call); ok is false when the frontier is empty.
	pop() (id int32, enc []byte, ok bool)
}

// queue is breadth-first search's frontier: first in, first out, so that
// states are expanded by depth and the first path to an error is a
// shortest one.
type queue struct {
	ids  []int32
	head int
	encs encQueue
}

func (q *queue) push(id int32, enc []byte) {
	q.ids = append(q.ids, id)
	if enc != nil {
		q.encs.push(enc)
	}
}

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

// encQueue holds encodings first in, first out, in chunks of chunkSize
// bytes, each released once every encoding in it has been taken.
type encQueue struct {
	chunks [][]byte
	offs   []uint64 // chunk<<32 | offset of each encoding not yet taken, from head
	head   int
}

func (q *encQueue) push(enc []byte) {
	need := len(enc) + binary.MaxVarintLen64
	if len(q.chunks) == 0 || q.chunks[len(q.chunks)-1] == nil ||
		len(q.chunks[len(q.chunks)-1])+need > cap(q.chunks[len(q.chunks)-1]) {
		q.chunks = append(q.chunks, make([]byte, 0, max(chunkSize, need)))
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
		q.chunks[j] = nil
	}
	c := q.chunks[ci]
	off := int(uint32(ref))
	n, k := binary.Uvarint(c[off:])
	return c[off+k : off+k+int(n)]
}
