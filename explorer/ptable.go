// The visited set of a parallel search with hash compaction: one table of
// fingerprints that workers insert into without locks.

package explorer

import (
	"math/bits"
	"sync/atomic"
)

// sharedFingerprints is hash compaction's visited set shared by the
// workers of a parallel search: one open-addressing table of 64-bit
// fingerprints (0 marks an empty slot), which a worker inserts into with a
// compare-and-swap on the empty slot it probes to, as LTSmin's multi-core
// table does. A lookup of a state seen before is loads only. Entries are
// never moved while workers run: the table grows between passes over a
// level, when none does, so it must never fill during a pass; workers
// reserve room before they expand a state (parallel.reserve).
type sharedFingerprints struct {
	slots []uint64
}

// add inserts fp (0 is taken as 1, as compactStore does) and reports
// whether it was new. Two workers adding the same fingerprint at once
// contend for the same empty slot (the first probe position both reach
// that holds neither), so exactly one of them wins.
func (t *sharedFingerprints) add(fp uint64) bool {
	if fp == 0 {
		fp = 1
	}
	n := uint64(len(t.slots))
	i, _ := bits.Mul64(fp, n)
	for {
		e := atomic.LoadUint64(&t.slots[i])
		if e == 0 {
			if atomic.CompareAndSwapUint64(&t.slots[i], 0, fp) {
				return true
			}
			e = atomic.LoadUint64(&t.slots[i])
		}
		if e == fp {
			return false
		}
		if i++; i == n {
			i = 0
		}
	}
}

// room is how many more fingerprints the table takes: up to 15/16 full,
// so that a probe always ends near where it starts.
func (t *sharedFingerprints) room(n int64) int64 {
	return int64(len(t.slots))*15/16 - n
}

// grow replaces the table by one of slots slots; no worker may run.
func (t *sharedFingerprints) grow(slots uint64) {
	old := int64(len(t.slots)) * 8
	t.slots = moveSlots(t.slots, slots, 0)
	releaseOld(old)
}
