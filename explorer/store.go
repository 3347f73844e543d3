// Store: the exact visited set, an arena of canonical encodings indexed by fingerprint.

package explorer

import (
	"encoding/binary"

	"github.com/cespare/xxhash/v2"
)

// Records live in chunks of at most chunkSize bytes (a record that does
// not fit in one gets a chunk of its own): a record's place is
// chunk<<offBits | offset, 40 bits in all.
const (
	offBits   = 22
	chunkSize = 1 << offBits
	refBits   = 40
	// maxChunks is the most chunks a place can name (2^18 chunks of 4 MiB:
	// 1 TiB of records). The store says it is full a little before.
	maxChunks = 1 << (refBits - offBits)
)

// offEvery is the spacing of the id index: it holds the place of every
// offEvery-th record, and Get walks forward from there (records are
// appended in id order).
const (
	offShift = 3
	offEvery = 1 << offShift
)

// Store is an exact set of canonical state encodings. States get ids 0, 1,
// ... in order of insertion. Two encodings are the same state only if they
// are equal byte for byte; the fingerprint only chooses the bucket.
//
// The fingerprint given with an encoding must be its key (Key, xxhash64:
// the state's fingerprint): growing the table hashes the records again
// rather than keep every fingerprint.
type Store struct {
	hash   func([]byte) uint64 // nil: xxhash64 (tests set a weak one)
	chunks [][]byte
	n      int32    // states stored
	offs   []uint64 // id/offEvery -> place of record id
	table  []uint64 // open addressing by fingerprint: tag<<refBits | place+1 (0: empty)
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

// A table slot is one word: the top 24 bits of the fingerprint (the tag)
// and where the record is, plus 1 (0 marks an empty slot). A record is the
// state's id (4 bytes), the encoding's length (uvarint) and the encoding,
// so a lookup that finds its state touches only the table slot and the
// record, and one whose tag differs does not read the record. The low
// bits of the fingerprint choose the slot, so the tag is bits the slot
// number does not already say (tables up to 2^40 slots).
const placeMask = 1<<refBits - 1

func tag(fp uint64) uint64 { return fp >> refBits << refBits }

// NewStore returns an empty store.
func NewStore() *Store {
	return newStore(1 << 16)
}

// newStore returns an empty store whose table starts with slots slots (a
// power of two).
func newStore(slots int) *Store {
	return &Store{hash: storeHash, table: make([]uint64, slots), chunk: minChunk}
}

// storeHash is the hash of the stores made from now on: nil (xxhash64),
// except in tests that make fingerprints collide.
var storeHash func([]byte) uint64

// Key returns the key of record b, the fingerprint Add takes with it.
func (s *Store) Key(b []byte) uint64 {
	if s.hash == nil {
		return xxhash.Sum64(b)
	}
	return s.hash(b)
}

// Len returns the number of states stored.
func (s *Store) Len() int { return int(s.n) }

// Get returns the encoding of state id. The slice aliases the store.
func (s *Store) Get(id int32) []byte {
	ref := s.offs[id>>offShift]
	for k := id & (offEvery - 1); k > 0; k-- {
		ref = s.next(ref)
	}
	_, enc := s.record(ref)
	return enc
}

// next returns the place of the record after the one at ref: right after
// it in its chunk, or at the start of the next chunk if it is the chunk's
// last (a chunk ends where its last record does).
func (s *Store) next(ref uint64) uint64 {
	ci := ref >> offBits
	c := s.chunks[ci]
	off := int(ref & (chunkSize - 1))
	n, k := binary.Uvarint(c[off+4:])
	if end := off + 4 + k + int(n); end < len(c) {
		return ci<<offBits | uint64(end)
	}
	return (ci + 1) << offBits
}

// record returns the id and encoding of the record at ref.
func (s *Store) record(ref uint64) (int32, []byte) {
	c := s.chunks[ref>>offBits]
	off := int(ref & (chunkSize - 1))
	id := int32(binary.LittleEndian.Uint32(c[off:]))
	n, k := binary.Uvarint(c[off+4:])
	return id, c[off+4+k : off+4+k+int(n)]
}

// Add inserts enc with fingerprint fp (its key) unless an equal
// encoding is stored, and returns the state's id and whether it was new.
func (s *Store) Add(enc []byte, fp uint64) (int32, bool) {
	mask := uint64(len(s.table) - 1)
	t := tag(fp)
	i := fp & mask
	for {
		e := s.table[i]
		if e == 0 {
			break
		}
		if e&^placeMask == t {
			if id, old := s.record(e&placeMask - 1); string(old) == string(enc) {
				return id, false
			}
		}
		i = (i + 1) & mask
	}
	id := s.n
	ref := s.put(id, enc)
	s.table[i] = t | (ref + 1)
	s.n++
	if id&(offEvery-1) == 0 {
		c := cap(s.offs)
		s.offs = append(s.offs, ref)
		if cap(s.offs) != c {
			releaseOld(int64(c) * 8)
		}
	}
	if 2*int(s.n) > len(s.table) {
		switch {
		case !s.refuse && memoryCheck(s.limit, int64(len(s.table))*16):
			s.grow()
		case 4*int(s.n) > 3*len(s.table):
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
	if last := len(s.chunks) - 1; last < 0 || len(s.chunks[last])+need > cap(s.chunks[last]) || len(s.chunks[last]) >= chunkSize {
		size := max(s.chunk, need)
		s.chunk = min(2*s.chunk, chunkSize)
		if s.limit > 0 && !memoryCheck(s.limit, int64(size)) {
			s.refuse = true
		}
		if len(s.chunks) >= maxChunks-2 {
			// 1 TiB of records: stop the search at its next step (the
			// last chunks take what this step still adds).
			s.refuse = true
			if len(s.chunks) == maxChunks {
				panic("explorer: store holds 1 TiB of records")
			}
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
	return uint64(ci)<<offBits | uint64(off)
}

// grow doubles the table. Slots keep only a tag of each fingerprint, so
// the records are hashed again, read in the order they were stored.
func (s *Store) grow() {
	t := make([]uint64, 2*len(s.table))
	mask := uint64(len(t) - 1)
	for ci, c := range s.chunks {
		for off := 0; off < len(c); {
			n, k := binary.Uvarint(c[off+4:])
			fp := s.Key(c[off+4+k : off+4+k+int(n)])
			i := fp & mask
			for t[i] != 0 {
				i = (i + 1) & mask
			}
			t[i] = tag(fp) | (uint64(ci)<<offBits | uint64(off)) + 1
			off += 4 + k + int(n)
		}
	}
	old := int64(len(s.table)) * 8
	s.table = t
	releaseOld(old)
}

// Bytes returns the memory the store uses: encodings, per-state index
// entries and the hash table.
func (s *Store) Bytes() int64 {
	return s.bytes + s.indexBytes() + s.tableBytes()
}

func (s *Store) indexBytes() int64 { return int64(len(s.offs)) * 8 }
func (s *Store) tableBytes() int64 { return int64(len(s.table)) * 8 }

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
		TableBytes: s.tableBytes(), RecordBytes: s.bytes, IndexBytes: s.indexBytes()}
}
