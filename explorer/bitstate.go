// Bitstate hashing: a fixed array of bits, three per state.

package explorer

import (
	"fmt"
	"math"
)

// bitstateK is the number of bits set per state (SPIN's default -k3).
const bitstateK = 3

// bitStore is bitstate hashing: bitstateK bits per state, at positions
// derived from the 64-bit fingerprint by double hashing.
type bitStore struct {
	bits []uint64
	mask uint64
	n    int
	seed uint64 // Options.BitstateSeed
}

// positions returns the double hashing's start and step for fingerprint
// fp (see add), from a remix of fp so that the bit positions are not the
// low bits of one value; a seed remixes fp first.
func (s *bitStore) positions(fp uint64) (h1, h2 uint64) {
	if s.seed != 0 {
		fp = mix(fp ^ s.seed)
	}
	return fp, (fp^fp>>31)*0x9e3779b97f4a7c15 | 1
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
	// Double hashing: h1 + i*h2 with h2 odd.
	h1, h2 := s.positions(fp)
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
	h1, h2 := s.positions(fp)
	prefetchLine(&s.bits[(h1&s.mask)>>6])
	prefetchLine(&s.bits[((h1+h2)&s.mask)>>6])
}

// mix is a 64-bit finaliser (Stafford's variant 13 of MurmurHash3's).
func mix(x uint64) uint64 {
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
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

// has reports whether all of fp's bits are set (see add), without
// setting them.
func (s *bitStore) has(_ []byte, fp uint64) bool {
	h2 := (fp^fp>>31)*0x9e3779b97f4a7c15 | 1
	for i := uint64(0); i < bitstateK; i++ {
		b := (fp + i*h2) & s.mask
		if s.bits[b>>6]&(1<<(b&63)) == 0 {
			return false
		}
	}
	return true
}
