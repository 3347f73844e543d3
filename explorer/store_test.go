package explorer_test

import (
	"encoding/binary"
	"testing"

	"github.com/cespare/xxhash/v2"

	"mcvm/explorer"
)

// TestStore_Get_largeEncoding checks encodings larger than a chunk.
func TestStore_Get_largeEncoding(t *testing.T) {
	s := explorer.NewStore()
	big := make([]byte, 5<<20)
	big[len(big)-1] = 7
	// Records after the large one, in its chunk's spare room and in the
	// next chunks, and ids that Get reaches by walking from the index
	// across the chunk boundaries.
	var ids []int32
	var encs [][]byte
	for i := 0; i < 40; i++ {
		enc := []byte("small")
		if i == 3 {
			enc = big
		} else {
			enc = binary.AppendUvarint(enc, uint64(i))
		}
		id, isNew := s.Add(enc, xxhash.Sum64(enc))
		if !isNew {
			t.Fatalf("record %d not new", i)
		}
		ids, encs = append(ids, id), append(encs, enc)
	}
	for i, id := range ids {
		if got := s.Get(id); string(got) != string(encs[i]) {
			t.Errorf("Get(%d): %d bytes, want %d", id, len(got), len(encs[i]))
		}
		if id2, isNew := s.Add(encs[i], xxhash.Sum64(encs[i])); isNew || id2 != id {
			t.Errorf("Add of record %d again = %d, %v", i, id2, isNew)
		}
	}
}

// TestStore_memoryLimit checks that the store refuses to grow its table
// past the memory limit and says so, instead of allocating.
func TestStore_memoryLimit(t *testing.T) {
	s := explorer.NewStore()
	s.SetMemoryLimit(1) // any growth would pass it
	for i := 0; i < 40000; i++ {
		enc := binary.AppendUvarint(nil, uint64(i))
		s.Add(enc, xxhash.Sum64(enc))
	}
	if !s.Full() || s.Len() != 40000 {
		t.Errorf("Full() = %v, Len() = %d; want true, 40000", s.Full(), s.Len())
	}
	if got := s.Bytes(); got > 2<<20+40000+(1<<16)*8 {
		t.Errorf("Bytes() = %d: the table grew", got)
	}
}
