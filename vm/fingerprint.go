// Fingerprints: a state's 64-bit hash, combined from its components' hashes so that it is computed incrementally.

package vm

import "encoding/binary"

// A state's fingerprint is a function of its canonical encoding alone,
// cut into its components as EncodeSplit cuts it (the statics block, each
// thread's record, each object's record): each component k with record r
// contributes term(k, r), a 64-bit hash of its bytes and its position, the
// terms are added (mod 2^64) and the sum is mixed once more:
//
//	fingerprint = mix(Σ_k term(k, r_k))
//
// So a transition that changes few components changes few terms: the
// incremental encoder (incEnc) keeps its base's terms and their sum and
// computes a successor's fingerprint from the records it writes again
// alone, in time that follows the change, not the state (issue 4, item 3).
// Nothing in it depends on how or in which order the states were found
// (pool indices, state ids, the search), so fingerprints are the same in
// every run, search order and store, and on every machine.
//
// A sum of independent uniform terms is uniform, and two different
// encodings give different sums unless their differing terms happen to
// cancel, which for 64-bit hashes is as likely as any other collision
// (about 2^-64 per pair): hash compaction's and bitstate hashing's
// reckoning of a missed state holds as for a hash of the whole encoding.
// Position enters every term, so equal records at different places
// (two idle threads, two equal objects) neither cancel nor commute.

// phi is 2^64 divided by the golden ratio, odd: the step between the
// positions' offsets.
const phi = 0x9e3779b97f4a7c15

// mix is the finaliser of SplitMix64: a bijection of 64-bit words whose
// every output bit depends on every input bit.
func mix(x uint64) uint64 {
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// term is the contribution of component k with record rec: its position
// and length, then each 8-byte word of the record, the last read as two
// overlapping halves (or, under four bytes, its first, middle and last
// byte: the length says which), each folded in by a multiplication, and
// mix over all. Records are short (a thread's is about ten bytes, an
// object's a few per slot), and a call of xxhash64 per record cost more
// than the hash of the whole encoding it replaces.
func term(k int, rec []byte) uint64 {
	const m1, m2 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db
	n := len(rec)
	h := uint64(k+1)*phi ^ uint64(n)*m2
	for len(rec) > 8 {
		h = (h ^ binary.LittleEndian.Uint64(rec)) * m1
		h ^= h >> 29
		rec = rec[8:]
	}
	var w uint64
	switch r := len(rec); {
	case r >= 4:
		w = uint64(binary.LittleEndian.Uint32(rec)) | uint64(binary.LittleEndian.Uint32(rec[r-4:]))<<32
	case r > 0:
		w = uint64(rec[0]) | uint64(rec[r/2])<<8 | uint64(rec[r-1])<<16
	}
	return mix(h ^ w)
}

// Fingerprint returns the fingerprint of encoding enc whose components end
// at cuts (as EncodeSplit gives them). It is what Machine.Fingerprint
// returns after the encoding, computed from scratch.
func Fingerprint(enc []byte, cuts []int32) uint64 {
	_, sum := sumTerms(enc, 0, cuts, nil)
	return mix(sum)
}

// Fingerprint returns the fingerprint of the state as it was last encoded
// (Encode, EncodeSplit), which must be the current state: the key of the
// visited set and the FP maps of search-carrying code.
func (m *Machine) Fingerprint() uint64 { return mix(m.inc.lastSum) }

// sumTerms returns the terms of the components of enc, the first
// starting at from and each ending at its entry of ends, in terms, and
// their sum.
func sumTerms(enc []byte, from int32, ends []int32, terms []uint64) ([]uint64, uint64) {
	terms = terms[:0]
	var sum uint64
	for k, end := range ends {
		t := term(k, enc[from:end])
		terms = append(terms, t)
		sum += t
		from = end
	}
	return terms, sum
}
