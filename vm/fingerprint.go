// Fingerprints: a state's 64-bit hash, combined from its components' hashes so that it is computed incrementally.

package vm

import "mcvm/heap"

// A state's fingerprint is a function of its canonical encoding alone,
// cut into its components as EncodeSplit cuts it (the statics block, each
// thread's record, each object's record): each component k with record r
// contributes a term, a 64-bit hash of the integers r holds and of its
// position (heap.TermStart, heap.TermAdd, heap.Mix), the terms are added
// (mod 2^64) and the sum is mixed once more:
//
//	fingerprint = Mix(Σ_k term(k, r_k))
//
// So a transition that changes few components changes few terms: the
// incremental encoder (incEnc) keeps its base's terms and their sum and
// computes a successor's fingerprint from the components that changed
// alone, in time that follows the change, not the state (issue 4, item
// 3). A term is computed as its record is written (putStatics,
// putThread, heap.Canon.PutObject) or, where no record is wanted (a
// fingerprint alone, fingerprintDirty), from the values the record would
// hold (staticsTerm, threadTerm, heap.Canon.ObjectTerm) with the
// numbering it would be written with. The two must agree: for the
// statics block and threads one definition of the layout serves both
// (staticsRecord, threadRecord); Tuning.CheckEncoding checks them all on
// every state (checkIncremental).
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

// Fingerprint returns the fingerprint of the state as it was last encoded
// (Encode, EncodeSplit), which must be the current state: the key of the
// visited set and the FP maps of search-carrying code.
func (m *Machine) Fingerprint() uint64 { return heap.Mix(m.enc.inc.lastSum) }
