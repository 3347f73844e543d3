package explorer

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestQueue_order checks breadth-first search's frontier: ids and
// encodings come back first in, first out, across the compaction of taken
// ids and the release of chunks, with pushes and pops interleaved.
func TestQueue_order(t *testing.T) {
	for _, withEnc := range []bool{false, true} {
		var q queue
		rng := rand.New(rand.NewPCG(1, 2))
		enc := func(id int32) []byte {
			if !withEnc {
				return nil
			}
			b := make([]byte, int(id)%97)
			for i := range b {
				b[i] = byte(int(id) + i)
			}
			return b
		}
		next, want := int32(0), int32(0)
		for want < 300000 {
			if next < 300000 && (next == want || rng.IntN(3) > 0) {
				q.push(next, enc(next), 0, 0)
				next++
				continue
			}
			id, e, ok := q.pop()
			if !ok || id != want || withEnc && !bytes.Equal(e, enc(want)) {
				t.Fatalf("enc=%v: pop = %d, %v, %v; want %d", withEnc, id, len(e), ok, want)
			}
			want++
		}
		if _, _, ok := q.pop(); ok {
			t.Fatalf("enc=%v: pop of an empty queue succeeded", withEnc)
		}
		if held := len(q.encs.chunks) - countNil(q.encs.chunks); withEnc && held > 1 {
			t.Errorf("an empty queue holds %d chunks", held)
		}
	}
}

func countNil(c [][]byte) int {
	n := 0
	for _, b := range c {
		if b == nil {
			n++
		}
	}
	return n
}

// TestPrioQueue_order checks the directed searches' frontier: A* gives
// states back by f = g + max(h, 1), then h, then first in first out, and
// skips an entry made stale by a shorter path added since; best-first by
// h, then the longer path, then first in first out.
func TestPrioQueue_order(t *testing.T) {
	depth := []int32{3, 1, 2, 2, 5}
	q := &prioQueue{astar: true, depth: &depth}
	q.push(0, nil, 3, 1) // f 4
	q.push(1, nil, 1, 3) // f 4, h 3: after 0
	q.push(2, nil, 2, 0) // f 3: h 0 counts as 1
	q.push(3, nil, 2, 2) // f 4, h 2: between 0 and 1
	q.push(4, nil, 5, 0) // f 6
	depth[4] = 2
	q.push(4, nil, 2, 0) // a shorter path: f 3, after 2; the f 6 entry is stale
	if got := q.least(); got != 3 {
		t.Errorf("least() = %d, want 3", got)
	}
	var got []int32
	for {
		id, _, ok := q.pop()
		if !ok {
			break
		}
		got = append(got, id)
	}
	if want := []int32{2, 4, 0, 3, 1}; !slices.Equal(got, want) {
		t.Errorf("A* order %v, want %v", got, want)
	}
	depth = []int32{2, 1, 3, 0, 3}
	b := &prioQueue{depth: &depth}
	for i, h := range []int32{4, 1, 4, 0, 4} {
		b.push(int32(i), nil, depth[i], h)
	}
	got = got[:0]
	for id, _, ok := b.pop(); ok; id, _, ok = b.pop() {
		got = append(got, id)
	}
	if want := []int32{3, 1, 2, 4, 0}; !slices.Equal(got, want) {
		t.Errorf("best-first order %v, want %v", got, want)
	}
}
