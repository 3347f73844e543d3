// Store: the exact visited set, an arena of canonical encodings indexed by fingerprint.

package explorer

import "encoding/binary"

const chunkSize = 4 << 20

// Store is an exact set of canonical state encodings. States get ids 0, 1,
// ... in order of insertion. Two encodings are the same state only if they
// are equal byte for byte; the fingerprint only chooses the bucket.
type Store struct {
	chunks [][]byte
	offs   []uint64 // id -> chunk<<32 | offset of the length-prefixed encoding
	fps    []uint64 // id -> fingerprint
	table  []int32  // open addressing: id+1, 0 when empty
	bytes  int64    // encoding bytes including length prefixes
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{table: make([]int32, 1<<16)}
}

// Len returns the number of states stored.
func (s *Store) Len() int { return len(s.offs) }

// Fingerprint returns the fingerprint of state id.
func (s *Store) Fingerprint(id int32) uint64 { return s.fps[id] }

// Get returns the encoding of state id. The slice aliases the store.
func (s *Store) Get(id int32) []byte {
	o := s.offs[id]
	c := s.chunks[o>>32]
	off := int(uint32(o))
	n, k := binary.Uvarint(c[off:])
	return c[off+k : off+k+int(n)]
}

// Add inserts enc with fingerprint fp unless an equal encoding is stored,
// and returns the state's id and whether it was new.
func (s *Store) Add(enc []byte, fp uint64) (int32, bool) {
	mask := uint64(len(s.table) - 1)
	i := fp & mask
	for {
		e := s.table[i]
		if e == 0 {
			break
		}
		id := e - 1
		if s.fps[id] == fp && string(s.Get(id)) == string(enc) {
			return id, false
		}
		i = (i + 1) & mask
	}
	id := int32(len(s.offs))
	s.table[i] = id + 1
	s.offs = append(s.offs, s.put(enc))
	s.fps = append(s.fps, fp)
	if 2*len(s.offs) > len(s.table) {
		s.grow()
	}
	return id, true
}

func (s *Store) put(enc []byte) uint64 {
	need := len(enc) + binary.MaxVarintLen64
	if len(s.chunks) == 0 || len(s.chunks[len(s.chunks)-1])+need > cap(s.chunks[len(s.chunks)-1]) {
		size := chunkSize
		if need > size {
			size = need
		}
		s.chunks = append(s.chunks, make([]byte, 0, size))
	}
	ci := len(s.chunks) - 1
	c := s.chunks[ci]
	off := len(c)
	c = binary.AppendUvarint(c, uint64(len(enc)))
	c = append(c, enc...)
	s.chunks[ci] = c
	s.bytes += int64(len(c) - off)
	return uint64(ci)<<32 | uint64(off)
}

func (s *Store) grow() {
	t := make([]int32, 2*len(s.table))
	mask := uint64(len(t) - 1)
	for id, fp := range s.fps {
		i := fp & mask
		for t[i] != 0 {
			i = (i + 1) & mask
		}
		t[i] = int32(id) + 1
	}
	s.table = t
}

// Bytes returns the memory the store uses: encodings, per-state index
// entries and the hash table.
func (s *Store) Bytes() int64 {
	return s.bytes + int64(len(s.offs))*16 + int64(len(s.table))*4
}
