// Hash compaction: a table of 64-bit fingerprints.

package explorer

import (
	"math"
	"math/bits"
)

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

// has reports whether the store holds fingerprint fp, without adding it.
func (s *compactStore) has(_ []byte, fp uint64) bool {
	if fp == 0 {
		fp = 1
	}
	n := uint64(len(s.table))
	i, _ := bits.Mul64(fp, n)
	for {
		switch s.table[i] {
		case 0:
			return false
		case fp:
			return true
		}
		if i++; i == n {
			i = 0
		}
	}
}
