// Store: the exact visited set, an arena of canonical encodings indexed by fingerprint.

package explorer

import "encoding/binary"

const chunkSize = 4 << 20

// Store is an exact set of canonical state encodings. States get ids 0, 1,
// ... in order of insertion. Two encodings are the same state only if they
// are equal byte for byte; the fingerprint only chooses the bucket.
type Store struct {
	chunks [][]byte
	offs   []uint64 // id -> chunk<<32 | offset of the record
	table  []slot   // open addressing by fingerprint
	bytes  int64    // record bytes
	// limit, if not zero, is the memory limit: the store does not grow its
	// table or add a chunk that would take the process past it, and says
	// so through full (the search then ends with verdict limit).
	limit  int64
	refuse bool
	chunk  int // the size of the next chunk: doubles from minChunk to chunkSize
}

// minChunk is the first chunk's size: small programs' stores (and
// collapse's pools) stay small.
const minChunk = 64 << 10

// slot is a hash table entry: a fingerprint and where its record is
// (chunk<<32 | offset, plus 1; 0 when empty). A record is the state's id
// (4 bytes), the encoding's length (uvarint) and the encoding, so a lookup
// that finds its state touches only the table slot and the record.
type slot struct {
	fp  uint64
	ref uint64
}

// NewStore returns an empty store.
func NewStore() *Store {
	return newStore(1 << 16)
}

// newStore returns an empty store whose table starts with slots slots (a
// power of two).
func newStore(slots int) *Store {
	return &Store{table: make([]slot, slots), chunk: minChunk}
}

// Len returns the number of states stored.
func (s *Store) Len() int { return len(s.offs) }

// Get returns the encoding of state id. The slice aliases the store.
func (s *Store) Get(id int32) []byte {
	_, enc := s.record(s.offs[id])
	return enc
}

// record returns the id and encoding of the record at ref.
func (s *Store) record(ref uint64) (int32, []byte) {
	c := s.chunks[ref>>32]
	off := int(uint32(ref))
	id := int32(binary.LittleEndian.Uint32(c[off:]))
	n, k := binary.Uvarint(c[off+4:])
	return id, c[off+4+k : off+4+k+int(n)]
}

// Add inserts enc with fingerprint fp unless an equal encoding is stored,
// and returns the state's id and whether it was new.
func (s *Store) Add(enc []byte, fp uint64) (int32, bool) {
	mask := uint64(len(s.table) - 1)
	i := fp & mask
	for {
		e := &s.table[i]
		if e.ref == 0 {
			break
		}
		if e.fp == fp {
			if id, old := s.record(e.ref - 1); string(old) == string(enc) {
				return id, false
			}
		}
		i = (i + 1) & mask
	}
	id := int32(len(s.offs))
	ref := s.put(id, enc)
	s.table[i] = slot{fp: fp, ref: ref + 1}
	c := cap(s.offs)
	s.offs = append(s.offs, ref)
	if cap(s.offs) != c {
		releaseOld(int64(c) * 8)
	}
	if 2*len(s.offs) > len(s.table) {
		switch {
		case !s.refuse && memoryCheck(s.limit, int64(len(s.table))*32):
			s.grow()
		case 4*len(s.offs) > 3*len(s.table):
			// Past the limit, but a full table would never end a probe:
			// one state can add many components to collapse's pools
			// before the search sees that the store is full.
			s.refuse = true
			s.grow()
		default:
			// Refusing to grow leaves the table half empty: the search
			// stops at its next step, long before the table fills.
			s.refuse = true
		}
	}
	return id, true
}

func (s *Store) put(id int32, enc []byte) uint64 {
	need := 4 + len(enc) + binary.MaxVarintLen64
	if len(s.chunks) == 0 || len(s.chunks[len(s.chunks)-1])+need > cap(s.chunks[len(s.chunks)-1]) {
		size := max(s.chunk, need)
		s.chunk = min(2*s.chunk, chunkSize)
		if s.limit > 0 && !memoryCheck(s.limit, int64(size)) {
			s.refuse = true
		}
		s.chunks = append(s.chunks, make([]byte, 0, size))
	}
	ci := len(s.chunks) - 1
	c := s.chunks[ci]
	off := len(c)
	c = binary.LittleEndian.AppendUint32(c, uint32(id))
	c = binary.AppendUvarint(c, uint64(len(enc)))
	c = append(c, enc...)
	s.chunks[ci] = c
	s.bytes += int64(len(c) - off)
	return uint64(ci)<<32 | uint64(off)
}

func (s *Store) grow() {
	t := make([]slot, 2*len(s.table))
	mask := uint64(len(t) - 1)
	for _, e := range s.table {
		if e.ref == 0 {
			continue
		}
		i := e.fp & mask
		for t[i].ref != 0 {
			i = (i + 1) & mask
		}
		t[i] = e
	}
	old := int64(len(s.table)) * 16
	s.table = t
	releaseOld(old)
}

// Bytes returns the memory the store uses: encodings, per-state index
// entries and the hash table.
func (s *Store) Bytes() int64 {
	return s.bytes + int64(len(s.offs))*8 + int64(len(s.table))*16
}

// SetMemoryLimit makes the store refuse to grow past limit bytes of
// process memory (0: no limit); Full then reports true.
func (s *Store) SetMemoryLimit(limit int64) { s.limit = limit }

// Full reports that the store refused to grow because of the memory limit.
func (s *Store) Full() bool { return s.refuse }

func (s *Store) add(enc []byte, _ []int32, fp uint64) (int32, bool) { return s.Add(enc, fp) }
func (s *Store) size() int                                          { return s.Len() }
func (s *Store) full() bool                                         { return s.refuse }

func (s *Store) account() StoreAccount {
	return StoreAccount{Storage: StorageExact.String(), Bytes: s.Bytes(), TableSlots: int64(len(s.table)),
		TableBytes: int64(len(s.table)) * 16, RecordBytes: s.bytes, IndexBytes: int64(len(s.offs)) * 8}
}
