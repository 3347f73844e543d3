// Store: the exact visited set, an arena of canonical encodings indexed by fingerprint.

package explorer

import (
	"encoding/binary"
	"math/bits"

	"github.com/cespare/xxhash/v2"
)

// Records live in chunks of at most chunkSize bytes (a record that does
// not fit in one gets a chunk of its own): a record's place is
// chunk<<offBits | offset, refBits bits in all.
const (
	offBits   = 22
	chunkSize = 1 << offBits
	refBits   = 36
	// maxChunks is the most chunks a place can name (2^14 chunks of 4 MiB:
	// 64 GiB of records, 700 million states of 90 bytes; a table slot
	// keeps the other 28 bits for the tag). The store says it is full a
	// little before.
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
// The fingerprint given with an encoding must be a function of its bytes
// (Key, xxhash64: the state's fingerprint), so that equal encodings meet
// in the table.
type Store struct {
	hash   func([]byte) uint64 // nil: xxhash64 (tests set a weak one)
	chunks [][]byte
	n      int32    // states stored
	offs   []uint64 // id/offEvery -> place of record id
	table  []uint64 // open addressing by fingerprint (see slots below; 0: empty)
	bytes  int64    // record bytes
	// The table grows when more than load/16 of its slots are taken, to
	// grow/4 of its length (see newStore and newIDStore).
	load, grow int
	// ids: the table's slots name records by id, and records do not keep
	// their ids (collapse's state table, whose records are short: see
	// newIDStore). Otherwise slots hold records' places.
	ids bool
	low uint // the slot's bits below the tag: refBits, or idBits with ids
	hdr int  // bytes of a record before its length: 4 (its id), 0 with ids
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

// A table slot is one word: the fingerprint's top bits (the tag) and,
// below them, where the record is plus 1 (0 marks an empty slot): its
// place (refBits bits, a 28-bit tag), or with ids its id (idBits, a 32-bit
// tag). A record is the state's id (4 bytes; none with ids), the
// encoding's length (uvarint) and the encoding, so a lookup that finds its
// state touches only the table slot and the record, and one whose tag
// differs does not read the record.
//
// The slot a probe starts at is the tag scaled to the table's length
// (tag*len >> tag bits, Lemire's multiply-shift), so a table of any length
// grows by moving every slot by its tag alone, without reading a record or
// hashing again. The tag's bits below the slot number are what tells apart
// the fingerprints that start at one slot (at a million slots, half a
// million states, 8 bits: one record in 256 is read for nothing; with ids
// 12). Past 2^28 slots (134 million states) probes start only at every
// second slot, or fewer, and meet records of equal tags more often.
const idBits = 32

// NewStore returns an empty store.
func NewStore() *Store {
	return newStore(1 << 16)
}

// newStore returns an empty store whose table starts with slots slots.
// Its table is at most half full (grown when it would be more, to twice
// its length): a lookup that misses, the most frequent in a search that
// finds new states, ends after few slots.
func newStore(slots int) *Store {
	return &Store{hash: storeHash, table: make([]uint64, slots), load: 8, grow: 8,
		low: refBits, hdr: 4, chunk: minChunk}
}

// newIDStore returns an empty store whose slots hold ids: 4 bytes less per
// record, and a lookup that matches a tag finds the record through the id
// index (a walk over up to offEvery-1 records before it), which costs
// little where records are short. Collapse's state table, whose records
// are vectors of a few dozen bytes, is one. Its table, for memory, is up
// to 13/16 full, and grown by half: 10 to 15 bytes of table per state
// instead of 16 to 32.
func newIDStore(slots int) *Store {
	s := newStore(slots)
	s.ids, s.low, s.hdr = true, idBits, 0
	s.load, s.grow = 13, 6
	return s
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
	ci := ref >> offBits
	c := s.chunks[ci]
	off := int(ref&(chunkSize-1)) + s.hdr
	// Walk to the record: each ends where the next begins, or its chunk
	// ends (a chunk ends where its last record does).
	for k := id & (offEvery - 1); k > 0; k-- {
		n, w := length(c[off:])
		off += w + n + s.hdr
		if off >= len(c)+s.hdr {
			ci++
			c, off = s.chunks[ci], s.hdr
		}
	}
	n, w := length(c[off:])
	return c[off+w : off+w+n]
}

// length decodes the uvarint length at the start of b: the length and the
// bytes it takes (one, for encodings shorter than 128 bytes).
func length(b []byte) (int, int) {
	if b[0] < 0x80 {
		return int(b[0]), 1
	}
	n, w := binary.Uvarint(b)
	return int(n), w
}

// enc returns the encoding of the record at ref.
func (s *Store) enc(ref uint64) []byte {
	c := s.chunks[ref>>offBits]
	off := int(ref&(chunkSize-1)) + s.hdr
	n, w := length(c[off:])
	return c[off+w : off+w+n]
}

// slot returns the id and encoding of the record table slot e names.
func (s *Store) slot(e uint64) (int32, []byte) {
	x := e&(1<<s.low-1) - 1
	if s.ids {
		return int32(x), s.Get(int32(x))
	}
	c := s.chunks[x>>offBits]
	return int32(binary.LittleEndian.Uint32(c[x&(chunkSize-1):])), s.enc(x)
}

// Add inserts enc with fingerprint fp (its key) unless an equal
// encoding is stored, and returns the state's id and whether it was new.
func (s *Store) Add(enc []byte, fp uint64) (int32, bool) {
	n := uint64(len(s.table))
	t := fp >> s.low
	i := t * n >> (64 - s.low)
	for {
		e := s.table[i]
		if e == 0 {
			break
		}
		if e>>s.low == t {
			if id, old := s.slot(e); string(old) == string(enc) {
				return id, false
			}
		}
		if i++; i == n {
			i = 0
		}
	}
	id := s.n
	ref := s.put(id, enc)
	if s.ids {
		s.table[i] = t<<s.low | (uint64(id) + 1)
	} else {
		s.table[i] = t<<s.low | (ref + 1)
	}
	s.n++
	if id&(offEvery-1) == 0 {
		c := cap(s.offs)
		s.offs = append(s.offs, ref)
		if cap(s.offs) != c {
			releaseOld(int64(c) * 8)
		}
	}
	if 16*int(s.n) > s.load*len(s.table) {
		switch {
		case !s.refuse && memoryCheck(s.limit, int64(s.grownLen())*8):
			s.enlarge()
		case 16*int(s.n) > 15*len(s.table):
			// Past the limit, but a full table would never end a probe:
			// one state can add many components to collapse's pools
			// before the search sees that the store is full.
			s.refuse = true
			s.enlarge()
		default:
			// Refusing to grow leaves room in the table: the search stops
			// at its next step, long before the table fills.
			s.refuse = true
		}
	}
	return id, true
}

func (s *Store) put(id int32, enc []byte) uint64 {
	need := s.hdr + len(enc) + binary.MaxVarintLen64
	if last := len(s.chunks) - 1; last < 0 || len(s.chunks[last])+need > cap(s.chunks[last]) || len(s.chunks[last]) >= chunkSize {
		size := max(s.chunk, need)
		s.chunk = min(2*s.chunk, chunkSize)
		if s.limit > 0 && !memoryCheck(s.limit, int64(size)) {
			s.refuse = true
		}
		if len(s.chunks) >= maxChunks-2 {
			// 64 GiB of records: stop the search at its next step (the
			// last chunks take what this step still adds).
			s.refuse = true
			if len(s.chunks) == maxChunks {
				panic("explorer: store holds 64 GiB of records")
			}
		}
		s.chunks = append(s.chunks, make([]byte, 0, size))
	}
	ci := len(s.chunks) - 1
	c := s.chunks[ci]
	off := len(c)
	if !s.ids {
		c = binary.LittleEndian.AppendUint32(c, uint32(id))
	}
	c = binary.AppendUvarint(c, uint64(len(enc)))
	c = append(c, enc...)
	s.chunks[ci] = c
	s.bytes += int64(len(c) - off)
	return uint64(ci)<<offBits | uint64(off)
}

// grownLen is the length the table grows to: s.grow/4 of its length.
func (s *Store) grownLen() int { return len(s.table) * s.grow / 4 }

// moveBlock is how many slots of a table being replaced are moved before
// their pages are dropped (dropPages): 512 KiB.
const moveBlock = 1 << 16

// enlarge grows the table to grownLen, moving each slot by its tag.
func (s *Store) enlarge() {
	t := moveSlots(s.table, uint64(s.grownLen()), s.low)
	old := int64(len(s.table)) * 8
	s.table = t
	releaseOld(old)
}

// moveSlots returns a table of n slots holding the non-empty slots of old,
// each placed by linear probing from its home: its bits above the low ones
// scaled to n (hi(e&^(2^low-1) · n), the multiply-shift of Store's tags
// and, with low 0, of compactStore's fingerprints). old's pages are
// dropped as it is read (dropPages), a block at a time.
func moveSlots(old []uint64, n uint64, low uint) []uint64 {
	t := make([]uint64, n)
	hugePages(t)
	for lo := 0; lo < len(old); lo += moveBlock {
		part := old[lo:min(lo+moveBlock, len(old))]
		for _, e := range part {
			if e == 0 {
				continue
			}
			i, _ := bits.Mul64(e>>low<<low, n)
			for t[i] != 0 {
				if i++; i == n {
					i = 0
				}
			}
			t[i] = e
		}
		dropPages(part)
	}
	return t
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

// has reports whether the store holds enc (of fingerprint fp), without
// adding it.
func (s *Store) has(enc []byte, fp uint64) bool {
	_, ok := s.find(enc, fp)
	return ok
}

// find returns the id of enc (of fingerprint fp) if the store holds it,
// without adding it.
func (s *Store) find(enc []byte, fp uint64) (int32, bool) {
	n := uint64(len(s.table))
	t := fp >> s.low
	for i := t * n >> (64 - s.low); ; {
		e := s.table[i]
		if e == 0 {
			return 0, false
		}
		if e>>s.low == t {
			if id, old := s.slot(e); string(old) == string(enc) {
				return id, true
			}
		}
		if i++; i == n {
			i = 0
		}
	}
}
