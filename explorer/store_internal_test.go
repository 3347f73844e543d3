package explorer

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// TestStore_layouts checks that the store is an exact set even when
// fingerprints collide (colliding distinct encodings are distinct
// states: the weak hash has 4,096 values for 30,000 encodings, so records
// with equal tags are compared), with both slot layouts (places, and ids
// for collapse's state table), from a table of 13 slots grown by tags
// many times, and with a tag narrowed to 12 bits, so that probes start at
// every 16th slot of the last tables.
func TestStore_layouts(t *testing.T) {
	weak := func(b []byte) uint64 {
		h := xxhash.Sum64(b) % 4096
		return xxhash.Sum64(binary.AppendUvarint(nil, h))
	}
	for _, ids := range []bool{false, true} {
		for _, narrow := range []bool{false, true} {
			t.Run(fmt.Sprintf("ids=%v/narrow=%v", ids, narrow), func(t *testing.T) {
				s := newStore(13)
				if ids {
					s = newIDStore(13)
				}
				s.hash = weak
				if narrow {
					s.low = 52
				}
				grown := 0
				rng := rand.New(rand.NewPCG(7, 8))
				want := map[string]int32{}
				for i := 0; i < 100000; i++ {
					enc := binary.AppendUvarint(nil, uint64(rng.IntN(30000)))
					enc = append(enc, make([]byte, rng.IntN(40))...) // records of several lengths, for Get's walk
					slots := len(s.table)
					id, isNew := s.Add(enc, weak(enc))
					if len(s.table) != slots {
						grown++
					}
					if 16*s.Len() > s.load*len(s.table) {
						t.Fatalf("%d states in %d slots", s.Len(), len(s.table))
					}
					old, seen := want[string(enc)]
					if isNew == seen || seen && id != old {
						t.Fatalf("Add(%v) = %d, %v; want %d, %v", enc, id, isNew, old, !seen)
					}
					if !seen {
						want[string(enc)] = id
					}
				}
				if s.Len() != len(want) {
					t.Errorf("Len() = %d, want %d", s.Len(), len(want))
				}
				for enc, id := range want {
					if string(s.Get(id)) != enc {
						t.Fatalf("Get(%d) = %v, want %v", id, s.Get(id), []byte(enc))
					}
					if id2, isNew := s.Add([]byte(enc), weak([]byte(enc))); isNew || id2 != id {
						t.Fatalf("Add of state %d again = %d, %v", id, id2, isNew)
					}
				}
				if grown < 8 {
					t.Errorf("the table grew %d times", grown)
				}
				// Without ids a record carries its 4-byte id.
				per := int64(4)
				if ids {
					per = 0
				}
				var lens int64
				for enc := range want {
					lens += int64(len(enc)) + 1
				}
				if s.bytes != lens+per*int64(len(want)) {
					t.Errorf("record bytes %d, want %d", s.bytes, lens+per*int64(len(want)))
				}
			})
		}
	}
}
