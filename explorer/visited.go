// The visited set: what a search needs of a store, and the stores' accounts.

package explorer

import (
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

// keeper is an exact visited set: it keeps every state's encoding, and
// gives a revisited state its id.
type keeper interface {
	visitedSet
	// Get returns state id's encoding, valid until the next call of a
	// method of the store.
	Get(id int32) []byte
}

// newVisitedSet makes the store Options.Storage names.
func newVisitedSet(o *Options, tune Tuning) visitedSet {
	if o.Cache != nil {
		c := newCacheStore(*o.Cache, o.Storage == StorageHashCompact, o.MemoryLimit)
		if c.compact {
			return compactCache{c}
		}
		return c
	}
	switch o.Storage {
	case StorageHashCompact:
		return newCompactStore(o.MemoryLimit)
	case StorageBitstate:
		bits := o.BitstateBits
		if bits == 0 {
			bits = 27
		}
		bs, _ := newBitStore(min(max(bits, 6), MaxBitstateBits))
		bs.seed = o.BitstateSeed
		return bs
	case StorageCollapse:
		c := NewCollapseStore()
		c.SetDelta(tune.CollapseDelta)
		c.SetMemoryLimit(o.MemoryLimit)
		return c
	}
	st := NewStore()
	st.SetMemoryLimit(o.MemoryLimit)
	return st
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
