// The visited set of a parallel search: one table that workers insert
// into without locks.

package explorer

import (
	"math/bits"
	"sync/atomic"
	"unsafe"
)

// sharedTable is the visited set the workers of a parallel search share:
// one open-addressing table of 64-bit entries (0 marks an empty slot),
// which a worker inserts into with a compare-and-swap on the empty slot
// it probes to, as LTSmin's multi-core table does. A lookup of a state
// seen before is loads only. With hash compaction an entry is the state's
// fingerprint. In the exact store it is the fingerprint's top bits (the
// tag) and where the worker that stored the state keeps its encoding (see
// sharedRef); a state's encoding is written before the slot names it, so
// a worker that reads the slot finds the encoding whole.
//
// Entries are never moved while workers run: the table grows between
// passes over a level, when none does, so it must never fill during a
// pass; workers reserve room before they expand a state
// (pworker.reserve).
type sharedTable struct {
	slots []uint64
	exact bool
}

// newSharedTable returns a table of slots slots, alone on its cache lines
// (workers read its header at every insert).
func newSharedTable(slots int, exact bool) *sharedTable {
	t := &new(struct {
		sharedTable
		_ [128 - unsafe.Sizeof(sharedTable{})]byte
	}).sharedTable
	t.slots, t.exact = make([]uint64, slots), exact
	return t
}

// An exact entry: the tag (tagBits), the worker (workerBits), its record
// chunk and the record's offset in it, plus one (so no entry is 0).
const (
	sharedTagBits    = 24
	sharedWorkerBits = 8
	sharedChunkBits  = 64 - sharedTagBits - sharedWorkerBits - offBits // 10: 1,024 chunks of 4 MiB a worker
	sharedRefBits    = 64 - sharedTagBits
	// maxSharedWorkers bounds the workers of an exact parallel search.
	maxSharedWorkers = 1 << sharedWorkerBits
)

// records are a worker's encodings in an exact parallel search, in chunks
// that never move and whose slice headers are set once, when made, so
// that other workers read them while this one appends.
type records struct {
	chunks [1 << sharedChunkBits][]byte
	n      int   // chunks made
	fill   int   // bytes used in the last chunk
	bytes  int64 // bytes of the chunks
	full   bool  // no chunk left, or the memory limit refused one
}

// put appends enc's record (its length and bytes) and returns its place
// (chunk<<offBits | offset), or false if there is no room.
func (r *records) put(enc []byte, limit int64) (uint64, bool) {
	need := len(enc) + 4
	if r.n == 0 || r.fill+need > len(r.chunks[r.n-1]) {
		size := max(minChunk<<min(r.n, 6), need)
		if r.n == len(r.chunks) || size > chunkSize || !memoryCheck(limit, int64(size)) {
			r.full = true
			return 0, false
		}
		r.chunks[r.n] = make([]byte, size)
		r.n, r.fill = r.n+1, 0
		r.bytes += int64(size)
	}
	c := r.chunks[r.n-1]
	off := r.fill
	if len(enc) >= 1<<31 {
		r.full = true
		return 0, false
	}
	c[off], c[off+1], c[off+2], c[off+3] = byte(len(enc)), byte(len(enc)>>8), byte(len(enc)>>16), byte(len(enc)>>24)
	copy(c[off+4:], enc)
	r.fill += need
	return uint64(r.n-1)<<offBits | uint64(off), true
}

// drop takes back the record put last (one no slot names).
func (r *records) drop(enc []byte) { r.fill -= len(enc) + 4 }

// get returns the encoding at place.
func (r *records) get(place uint64) []byte {
	c := r.chunks[place>>offBits]
	off := int(place & (chunkSize - 1))
	n := int(c[off]) | int(c[off+1])<<8 | int(c[off+2])<<16 | int(c[off+3])<<24
	return c[off+4 : off+4+n]
}

// add inserts the state of fingerprint fp (and, exact, encoding enc,
// whose record worker w keeps in own) and reports whether it was new,
// with an exact table the record of a new state (which never moves, so
// the next level reads it where it is) and its place in own, and whether w's records had no
// room (then nothing was added). Two workers adding the same state at once contend for the same
// empty slot (the first probe position both reach that names neither), so
// exactly one of them wins.
func (t *sharedTable) add(enc []byte, fp uint64, w int, own *records, all []*records, limit int64) (isNew bool, rec []byte, place uint64, full bool) {
	if fp == 0 {
		fp = 1 // (as compactStore)
	}
	key := fp
	if t.exact {
		key = fp >> sharedRefBits << sharedRefBits
	}
	n := uint64(len(t.slots))
	i, _ := bits.Mul64(key, n)
	var mine uint64 // this worker's entry for enc, once its record is written
	for {
		e := atomic.LoadUint64(&t.slots[i])
		if e == 0 {
			if t.exact && mine == 0 {
				var ok bool
				if place, ok = own.put(enc, limit); !ok {
					return false, nil, 0, true
				}
				mine = key | uint64(w)<<(sharedRefBits-sharedWorkerBits) | place + 1
			}
			if !t.exact {
				mine = key
			}
			if atomic.CompareAndSwapUint64(&t.slots[i], 0, mine) {
				if t.exact {
					rec = own.get(place)
				}
				return true, rec, place, false
			}
			e = atomic.LoadUint64(&t.slots[i])
		}
		if t.same(e, key, enc, all) {
			if mine != 0 && t.exact {
				own.drop(enc)
			}
			return false, nil, 0, false
		}
		if i++; i == n {
			i = 0
		}
	}
}

// has reports whether the table holds the state of fingerprint fp (and
// encoding enc); no worker may run.
func (t *sharedTable) has(enc []byte, fp uint64, all []*records) bool {
	if fp == 0 {
		fp = 1
	}
	key := fp
	if t.exact {
		key = fp >> sharedRefBits << sharedRefBits
	}
	n := uint64(len(t.slots))
	i, _ := bits.Mul64(key, n)
	for {
		e := t.slots[i]
		if e == 0 {
			return false
		}
		if t.same(e, key, enc, all) {
			return true
		}
		if i++; i == n {
			i = 0
		}
	}
}

// same reports whether entry e is the state of key (and enc).
func (t *sharedTable) same(e, key uint64, enc []byte, all []*records) bool {
	if !t.exact {
		return e == key
	}
	if e>>sharedRefBits != key>>sharedRefBits {
		return false
	}
	ref := e&(1<<sharedRefBits-1) - 1
	r := all[ref>>(sharedRefBits-sharedWorkerBits)]
	return string(r.get(ref&(1<<(sharedRefBits-sharedWorkerBits)-1))) == string(enc)
}

// room is how many more states the table takes: up to 15/16 full, so
// that a probe always ends near where it starts.
func (t *sharedTable) room(n int64) int64 {
	return int64(len(t.slots))*15/16 - n
}

// grow replaces the table by one of slots slots, moving each entry by its
// key; no worker may run.
func (t *sharedTable) grow(slots uint64) {
	old := int64(len(t.slots)) * 8
	low := uint(0)
	if t.exact {
		low = sharedRefBits
	}
	t.slots = moveSlots(t.slots, slots, low)
	releaseOld(old)
}
