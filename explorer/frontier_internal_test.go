package explorer

import (
	"bytes"
	"math/rand/v2"
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
				q.push(next, enc(next))
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
