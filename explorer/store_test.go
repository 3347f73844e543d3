package explorer_test

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"mcvm/explorer"
)

// TestStore_Add_exact checks that the store is an exact set even when
// fingerprints collide: colliding distinct encodings are distinct states.
func TestStore_Add_exact(t *testing.T) {
	s := explorer.NewStore()
	rng := rand.New(rand.NewPCG(7, 8))
	want := map[string]int32{}
	fps := map[string]uint64{}
	for i := 0; i < 20000; i++ {
		enc := binary.AppendUvarint(nil, uint64(rng.IntN(3000)))
		fp := uint64(rng.IntN(64)) // few fingerprints: many collisions
		if old, ok := fps[string(enc)]; ok {
			fp = old
		}
		fps[string(enc)] = fp
		id, isNew := s.Add(enc, fp)
		old, seen := want[string(enc)]
		if isNew == seen {
			t.Fatalf("Add(%v) isNew = %v, want %v", enc, isNew, !seen)
		}
		if seen && id != old {
			t.Fatalf("Add(%v) = %d, want %d", enc, id, old)
		}
		if !seen {
			want[string(enc)] = id
		}
		if string(s.Get(id)) != string(enc) {
			t.Fatalf("Get(%d) = %v, want %v", id, s.Get(id), enc)
		}
	}
	if s.Len() != len(want) {
		t.Errorf("Len() = %d, want %d", s.Len(), len(want))
	}
}

// TestStore_Get_largeEncoding checks encodings larger than a chunk.
func TestStore_Get_largeEncoding(t *testing.T) {
	s := explorer.NewStore()
	big := make([]byte, 5<<20)
	big[len(big)-1] = 7
	id, _ := s.Add([]byte("small"), 1)
	id2, _ := s.Add(big, 2)
	if string(s.Get(id)) != "small" || len(s.Get(id2)) != len(big) || s.Get(id2)[len(big)-1] != 7 {
		t.Error("large encoding not stored intact")
	}
}

// TestStore_memoryLimit checks that the store refuses to grow its table
// past the memory limit and says so, instead of allocating.
func TestStore_memoryLimit(t *testing.T) {
	s := explorer.NewStore()
	s.SetMemoryLimit(1) // any growth would pass it
	for i := 0; i < 40000; i++ {
		s.Add(binary.AppendUvarint(nil, uint64(i)), uint64(i)*0x9e3779b97f4a7c15)
	}
	if !s.Full() || s.Len() != 40000 {
		t.Errorf("Full() = %v, Len() = %d; want true, 40000", s.Full(), s.Len())
	}
	if got := s.Bytes(); got > 2<<20+40000*8+(1<<16)*16 {
		t.Errorf("Bytes() = %d: the table grew", got)
	}
}
