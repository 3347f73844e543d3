// Lossy visited sets: hash compaction (fingerprints only) and bitstate hashing.

package explorer

import (
	"fmt"
	"math"
	"math/bits"
	"runtime/debug"
)

// Storage selects how the visited set keeps states.
type Storage uint8

// Storages.
const (
	// StorageExact keeps every state's canonical encoding: two states are
	// the same only if their encodings are equal. Nothing is ever missed.
	StorageExact Storage = iota
	// StorageHashCompact keeps only each state's 64-bit fingerprint (SPIN's
	// hash compaction): a new state whose fingerprint equals a stored
	// one's is taken for it and not explored. Stats.MissProbability bounds
	// the chance that this happened.
	StorageHashCompact
	// StorageBitstate sets k = 3 bits per state in an array of
	// 2^Options.BitstateBits bits (Holzmann's bitstate hashing, SPIN's
	// -DBITSTATE): a state whose bits are all set already is taken as
	// visited. Memory is fixed in advance; coverage falls as the array
	// fills (Stats.MissProbability).
	StorageBitstate
	// StorageCollapse is exact like StorageExact, with collapse
	// compression (CollapseStore): each distinct statics block, thread
	// record and object record is stored once, and a state as the vector of
	// its components' indices.
	StorageCollapse
)

var storageNames = [...]string{"exact", "hash-compact", "bitstate", "collapse"}

func (s Storage) String() string { return storageNames[s] }

// visitedSet is what a search needs of its visited set. add returns the
// state's id and whether it is new; stores that do not keep ids (the
// lossy ones) return -1 for a state seen before. cuts are the
// encoding's component boundaries (vm.Machine.EncodeSplit) for the
// collapse store, nil for the others, which ignore them.
type visitedSet interface {
	add(enc []byte, cuts []int32, fp uint64) (int32, bool)
	size() int
	account() StoreAccount
	// full reports that the store refused to grow past the memory limit;
	// the search then ends with verdict limit.
	full() bool
}

// StoreAccount is the visited set's memory, by part.
type StoreAccount struct {
	Storage     string
	Bytes       int64 // everything below
	TableSlots  int64 // hash table slots (bitstate: bits)
	TableBytes  int64
	RecordBytes int64 // exact: the encodings and their headers; collapse: the index vectors and their headers
	IndexBytes  int64 // exact, collapse: id -> record
	SleepBytes  int64 // with sleep sets: each state's sleep set
	// Pools are collapse's component pools, by kind (statics, threads,
	// objects); their bytes are part of Bytes.
	Pools []PoolAccount
	// MissProbability estimates the probability that the search took some
	// new state for a visited one and did not explore it (0 for the exact
	// store). ExpectedMissed is the expected number of such states.
	MissProbability float64
	ExpectedMissed  float64
}

// PoolAccount is one component pool of the collapse store: how many
// distinct components it holds and the bytes it uses (records, index and
// hash table).
type PoolAccount struct {
	Kind       string
	Components int64
	Bytes      int64
}

// memoryCheck reports whether the process may allocate extra more bytes
// under limit (0: no limit).
func memoryCheck(limit, extra int64) bool {
	return limit <= 0 || MemoryInUse()+extra <= limit
}

// releaseBytes is the size of a replaced table from which releaseOld
// returns memory at once.
const releaseBytes = 1 << 20

// releaseOld is called by a store that has just replaced a table (or an
// index) of old bytes with a larger one. Go would collect the old table at its
// next cycle but keep its pages resident for a while, so the next growth
// found the garbage of every earlier one still there: with fingerprints
// only that garbage was a quarter of the peak memory (philosophers N = 9:
// 104 MiB against 81 MiB with this). A
// full collection that returns free pages to the system costs a few
// milliseconds, once per growth of a table of a megabyte or more
// (collapse's state table grows by half: left to the collector, the tables
// it had replaced were a fifth of the peak memory on philosophers N = 8).
func releaseOld(old int64) {
	if old >= releaseBytes {
		debug.FreeOSMemory()
	}
}

// compactStore is hash compaction: an open-addressing table of 64-bit
// fingerprints (0 is mapped to 1, and 0 marks an empty slot). A probe
// starts at the fingerprint scaled to the table's length (fp*len >> 64,
// the multiply-shift of the exact store's tags), so the table can have any
// length: it is kept up to 13/16 full and grown by half, 10 to 15 bytes a
// state where doubling at 3/4 took 11 to 21. A lookup that finds its
// state, the most frequent in a search that revisits, ends after about
// three slots even when the table is full; one for a new state reads a
// few cache lines more than before, one after the other.
type compactStore struct {
	table  []uint64
	n      int
	limit  int64
	refuse bool
}

// compactLoad is the compact table's largest load in sixteenths; it grows
// by compactGrow/4 of its length.
const compactLoad, compactGrow = 13, 6

func newCompactStore(limit int64) *compactStore {
	return &compactStore{table: make([]uint64, 1<<16), limit: limit}
}

func (s *compactStore) add(_ []byte, _ []int32, fp uint64) (int32, bool) {
	if fp == 0 {
		fp = 1
	}
	n := uint64(len(s.table))
	i, _ := bits.Mul64(fp, n)
	for {
		e := s.table[i]
		if e == 0 {
			break
		}
		if e == fp {
			return -1, false
		}
		if i++; i == n {
			i = 0
		}
	}
	s.table[i] = fp
	s.n++
	if 16*s.n > compactLoad*len(s.table) && !s.refuse {
		s.grow()
	}
	return int32(s.n - 1), true
}

// prefetch implements prefetcher: the slot a lookup of fp starts at.
func (s *compactStore) prefetch(fp uint64) {
	if fp == 0 {
		fp = 1 // (as add)
	}
	i, _ := bits.Mul64(fp, uint64(len(s.table)))
	prefetchLine(&s.table[i])
}

func (s *compactStore) grow() {
	n := uint64(len(s.table) * compactGrow / 4)
	if !memoryCheck(s.limit, int64(n)*8) {
		// Refuse: the table still has 3/16 free, and the search stops at
		// its next step.
		s.refuse = true
		return
	}
	t := moveSlots(s.table, n, 0)
	old := int64(len(s.table)) * 8
	s.table = t
	releaseOld(old)
}

func (s *compactStore) size() int  { return s.n }
func (s *compactStore) full() bool { return s.refuse }

func (s *compactStore) account() StoreAccount {
	n := float64(s.n)
	// A new state is missed when its fingerprint equals one stored
	// before: expected n(n-1)/2 / 2^64 such pairs (the birthday bound),
	// assuming fingerprints spread states uniformly (vm/fingerprint.go).
	exp := n * (n - 1) / 2 / math.Exp2(64)
	b := int64(len(s.table)) * 8
	return StoreAccount{Storage: StorageHashCompact.String(), Bytes: b, TableSlots: int64(len(s.table)), TableBytes: b,
		ExpectedMissed: exp, MissProbability: -math.Expm1(-exp)}
}

// bitstateK is the number of bits set per state (SPIN's default -k3).
const bitstateK = 3

// bitStore is bitstate hashing: bitstateK bits per state, at positions
// derived from the 64-bit fingerprint by double hashing.
type bitStore struct {
	bits []uint64
	mask uint64
	n    int
}

// MaxBitstateBits bounds --bitstate (2^40 bits is 128 GiB).
const MaxBitstateBits = 40

func newBitStore(logBits int) (*bitStore, error) {
	if logBits < 6 || logBits > MaxBitstateBits {
		return nil, fmt.Errorf("bitstate: %d bits: want 6 to %d (2^BITS bits)", logBits, MaxBitstateBits)
	}
	return &bitStore{bits: make([]uint64, 1<<(logBits-6)), mask: 1<<logBits - 1}, nil
}

func (s *bitStore) add(_ []byte, _ []int32, fp uint64) (int32, bool) {
	// Double hashing: h1 + i*h2 with h2 odd, from a remix of fp so the bit
	// positions are not the low bits of one value.
	h1 := fp
	h2 := (fp^fp>>31)*0x9e3779b97f4a7c15 | 1
	seen := true
	for i := uint64(0); i < bitstateK; i++ {
		b := (h1 + i*h2) & s.mask
		w, m := b>>6, uint64(1)<<(b&63)
		if s.bits[w]&m == 0 {
			seen = false
			s.bits[w] |= m
		}
	}
	if seen {
		return -1, false
	}
	s.n++
	return int32(s.n - 1), true
}

// prefetch implements prefetcher: the words of fp's first two bits (see
// add).
func (s *bitStore) prefetch(fp uint64) {
	h2 := (fp^fp>>31)*0x9e3779b97f4a7c15 | 1
	prefetchLine(&s.bits[(fp&s.mask)>>6])
	prefetchLine(&s.bits[((fp+h2)&s.mask)>>6])
}

func (s *bitStore) size() int  { return s.n }
func (s *bitStore) full() bool { return false }

func (s *bitStore) account() StoreAccount {
	m := float64(s.mask + 1)
	// The i-th state stored found bits set by the i before it with
	// probability about (1 - e^(-k i/m))^k; summing over i (by the
	// integral, exact enough for large n) gives the expected number of
	// states taken for visited ones among those the search reached.
	n := float64(s.n)
	exp := 0.0
	const steps = 256
	for j := 0; j < steps; j++ {
		i := n * (float64(j) + 0.5) / steps
		exp += math.Pow(-math.Expm1(-bitstateK*i/m), bitstateK) * n / steps
	}
	b := int64(len(s.bits)) * 8
	return StoreAccount{Storage: StorageBitstate.String(), Bytes: b, TableSlots: int64(m), TableBytes: b,
		ExpectedMissed: exp, MissProbability: -math.Expm1(-exp)}
}
