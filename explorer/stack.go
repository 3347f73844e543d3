// The depth-first stack's memory: snapshots to backtrack to, deltas, eviction and decoding.

package explorer

import (
	"unsafe"

	"mcvm/vm"
)

// stackBytes is Stats.StackBytes.
func (s *search) stackBytes() int64 {
	n := int64(cap(s.stack))*int64(unsafe.Sizeof(frame{})) + int64(cap(s.trans)+cap(s.chain))*int64(unsafe.Sizeof(vm.Trans{})) +
		int64(cap(s.deep)) + int64(cap(s.snaps)+cap(s.spare))*8 + int64(cap(s.sl.frames))*int64(unsafe.Sizeof(sleepFrame{}))
	for _, sn := range s.snaps {
		if sn != nil {
			n += sn.Bytes()
		}
	}
	for _, sn := range s.spare {
		n += sn.Bytes()
	}
	return n + s.m.SnapshotBytes()
}

// DeltaSnapDepth is the first DFS level whose snapshot keeps the heap as a
// reverse delta (vm.Machine.SaveDelta) instead of a copy: a delta is a few
// bytes per changed word instead of the whole heap, but it costs a
// comparison of the heap per save, which a shallow search does not need to
// pay. Levels from it on are all deltas, as SaveDelta requires. The
// certifier (package scc) keeps its stack the same way.
const DeltaSnapDepth = 256

// snapshot saves the machine's state for the top DFS level, if it is
// shallow enough and has more than one transition to restore it for, and
// records the nearest snapshot below it in any case.
func (s *search) snapshot() {
	level := len(s.stack) - 1
	top := &s.stack[level]
	// The nearest level below with a snapshot is an ancestor on the current
	// path, whose copies of unchanged threads this snapshot can share.
	top.parentSnap = -1
	if level > 0 {
		below := &s.stack[level-1]
		top.parentSnap = below.parentSnap
		if below.snap {
			top.parentSnap = int32(level - 1)
		}
	}
	if top.full-top.start < 2 && (s.exact != nil || !s.chaining) {
		// Nothing to come back for; but with chains a faulting chain may
		// make materialise load it again, which a lossy store cannot.
		return
	}
	if level >= s.tune.MaxSnapDepth && s.opts.Dynamic == nil && s.window == 0 {
		// (Dynamic reduction compares object references along the path,
		// which only raw snapshots keep: it snapshots every level. A
		// window bounds the snapshots kept already.)
		if s.exact == nil {
			// Decoded from here on backtracking: a lossy store keeps no
			// encodings, so the level keeps its own (the machine holds
			// the state just visited, this one).
			top.deep = int64(len(s.deep))
			s.deep = append(s.deep, s.encoding()...)
		}
		return
	}
	parent := s.snapAt(level)
	if level >= s.tune.DeltaSnapDepth && parent != nil {
		s.m.SaveDelta(s.snaps[level], parent)
	} else {
		s.m.Save(s.snaps[level], parent)
	}
	top.snap, top.snapped = true, true
	if s.window > 0 {
		for ; s.low <= level-s.window; s.low++ {
			s.evict(s.low)
		}
	}
}

// snapAt makes sure snaps[level] is allocated and returns the snapshot
// of level's nearest ancestor that keeps one (nil if none).
func (s *search) snapAt(level int) *vm.Snapshot {
	for len(s.snaps) <= level {
		s.snaps = append(s.snaps, nil)
	}
	if s.snaps[level] == nil {
		if n := len(s.spare); n > 0 {
			s.snaps[level], s.spare = s.spare[n-1], s.spare[:n-1]
		} else {
			s.snaps[level] = new(vm.Snapshot)
		}
	}
	if p := s.stack[level].parentSnap; p >= 0 && s.stack[p].snap {
		return s.snaps[p]
	}
	return nil
}

// evict gives up the snapshot of DFS level e, window levels or more below
// the top: the memory of a deep stack is mostly its snapshots, and the
// search comes back to few levels that deep (on philo N = 9, with a
// window of 4,096, it decodes 2.6% of the states it restores). The
// level's state is decoded from the store when it is loaded again, and
// saved again if it has transitions left (see load). Levels are evicted
// from the bottom up (s.low is the lowest level that may keep a
// snapshot), so every level below an evicted one is evicted too, and a
// level decoded keeps no delta below it. The snapshot's memory is saved
// into again at the next level that needs one (vm.Machine.Release, which
// lets go of its copies of threads, those the nearest snapshot above it
// shares staying that one's, and detaches that one from it).
func (s *search) evict(e int) {
	if !s.stack[e].snap {
		return
	}
	s.stack[e].snap = false
	var child *vm.Snapshot
	for f := e + 1; f < len(s.stack); f++ {
		if s.stack[f].snap {
			child = s.snaps[f]
			break
		}
	}
	s.m.Release(s.snaps[e], child)
	s.unsnap(e)
	s.stats.Evicted++
}

// unsnap puts level's snapshot memory, if it has any, with the spares:
// an evicted level's (released first), and with a window a popped
// level's, which does not keep it for the next level pushed there, or
// the levels the search returned to would each keep one. (No level above
// a popped one shares its copies of threads, and it is not detached: the
// rollback to the level below walks through it.)
func (s *search) unsnap(level int) {
	if level < len(s.snaps) && s.snaps[level] != nil {
		s.spare = append(s.spare, s.snaps[level])
		s.snaps[level] = nil
	}
}

// resave saves level's state (just decoded) again as a full snapshot.
func (s *search) resave(level int) {
	parent := s.snapAt(level)
	s.m.Save(s.snaps[level], parent)
	s.stack[level].snap = true
	s.low = min(s.low, level)
}
