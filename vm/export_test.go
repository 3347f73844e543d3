package vm

import (
	"fmt"
	"os"
	"slices"

	"mcvm/heap"
)

// GCCheck checks the memoised collector's memory against the active heap
// just after a collection: every live object's depth is its breadth-first
// distance from the roots (roots 1), every free object's is infinite, and
// each object's predecessor bag holds one edge per reference to it.
func (m *Machine) GCCheck() string {
	g := &m.enc.memo
	h := &m.S.Heap
	if !slices.Equal(g.objs, h.Objs) || !slices.Equal(g.data, h.Data) {
		return "the memo is not the heap"
	}
	n := len(h.Objs)
	want := make([]int32, n)
	for i := range want {
		want[i] = inf
	}
	var queue []int32
	for _, i := range m.enc.roots(nil) {
		if want[i] != 1 {
			want[i] = 1
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		o := &h.Objs[u]
		refsOf(m.refSlots, o, h.Data[o.Off:o.Off+o.Len], func(to int32) {
			if want[to] == inf {
				want[to] = want[u] + 1
				queue = append(queue, to)
			}
		})
	}
	preds := make([]int, n)
	for i := range h.Objs {
		o := &h.Objs[i]
		if o.Kind == heap.KindFree {
			continue
		}
		refsOf(m.refSlots, o, h.Data[o.Off:o.Off+o.Len], func(to int32) { preds[to]++ })
	}
	for i := range h.Objs {
		free := h.Objs[i].Kind == heap.KindFree
		if free && want[i] != inf {
			return fmt.Sprintf("object %d is free but reachable", i+1)
		}
		if !free && want[i] == inf {
			return fmt.Sprintf("object %d is unreachable but not free", i+1)
		}
		if g.depth[i] != want[i] {
			return fmt.Sprintf("object %d: depth %d, want %d", i+1, g.depth[i], want[i])
		}
		k := 0
		for e := g.predHead[i]; e >= 0; e = g.eNext[e] {
			k++
		}
		if k != preds[i] {
			return fmt.Sprintf("object %d: %d predecessor edges, want %d", i+1, k, preds[i])
		}
	}
	return ""
}

// LiveObjects returns the objects of the active heap that are not free.
func (m *Machine) LiveObjects() int {
	n := 0
	for i := range m.S.Heap.Objs {
		if m.S.Heap.Objs[i].Kind != heap.KindFree {
			n++
		}
	}
	return n
}

// SetTuning changes m's Tuning (tests set it on machines made by
// helpers).
func (m *Machine) SetTuning(t Tuning) {
	m.opts.Tuning = t
	m.enc.check = t.CheckEncoding
}

// CheckingEncoding reports whether MCVM_CHECK_ENCODING=1 is set: vm's
// tests then check every encoding of every machine their helpers make
// (Tuning.CheckEncoding), and encodings allocate.
func CheckingEncoding() bool { return os.Getenv("MCVM_CHECK_ENCODING") == "1" }

// IncrementalEncodings returns how many of m's encodings were incremental.
func (m *Machine) IncrementalEncodings() uint64 { return m.enc.inc.hits }

// RolledBack returns how many levels m's incremental encoder rolled its
// base back when backtracking.
func (m *Machine) RolledBack() uint64 { return m.enc.inc.rolls }

// PokeSlot writes slot i of object r without logging the write, as an
// executor that forgot to would (for the test that the check finds it).
func (m *Machine) PokeSlot(r heap.Ref, i int, v int64) { m.S.Heap.Slots(r)[i] = v }

// CopiesHeld returns the memory of the copies of threads m has made for
// snapshots and not got back as spares, and that of the distinct copies
// the thread lists of snaps hold.
func (m *Machine) CopiesHeld(snaps []*Snapshot) (held, listed int64) {
	seen := map[*threadCopy]bool{}
	for _, s := range snaps {
		for _, c := range s.threads {
			if !seen[c] {
				seen[c] = true
				listed += c.bytes()
			}
		}
	}
	held = m.snap.copyBytes
	for _, c := range m.snap.copies {
		held -= c.bytes()
	}
	return held, listed
}

// KeptSteps returns how many fingerprints StepAhead took kept.
func (m *Machine) KeptSteps() uint64 { return m.enc.inc.keptSteps }
