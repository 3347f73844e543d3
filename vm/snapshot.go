// Snapshots: raw copies of the active state for fast backtracking.

package vm

import "mcvm/heap"

// Snapshot is a raw copy of a machine's state. Saving and restoring one is
// a few memory copies, much cheaper than Decode, at the price of more
// memory than an encoding. A Snapshot is reused across Saves.
//
// Threads are copied only when they changed. Every change to a thread
// stamps it with the machine's clock, and Save advances the clock, so a
// thread whose stamp is below a snapshot's clock has not changed since
// that snapshot was saved. Save shares such threads with its parent
// snapshot instead of copying them, and Restore copies back only threads
// that changed. Restore gives a restored thread the stamp it had when the
// snapshot was saved, which keeps the rule true for every snapshot still
// in use: the snapshot restored and its ancestors (depth-first search
// discards the snapshots of deeper levels before it restores a shallower
// one).
type Snapshot struct {
	clock   uint64
	heap    heap.Heap
	statics []int64
	threads []*threadCopy // this snapshot's copies or its ancestors'
	owned   []*threadCopy // the copies this snapshot made, reused by its next Save
}

// threadCopy is one thread as it was: its header (with the stamp it had)
// and its frames and values.
type threadCopy struct {
	hdr     Thread
	frames  []Frame
	stack   []Value
	pending []Pending
}

// Save copies the machine's state into s. If parent is not nil, it must be
// a snapshot saved earlier on the current path (an ancestor: not restored
// past since), and s shares parent's copies of the threads that did not
// change since.
func (m *Machine) Save(s, parent *Snapshot) {
	m.clock++
	s.clock = m.clock
	st := &m.S
	s.heap.CopyFrom(&st.Heap)
	s.statics = append(s.statics[:0], st.Statics...)
	s.threads = s.threads[:0]
	n := 0
	for i, t := range st.Threads {
		if parent != nil && i < len(parent.threads) && t.stamp < parent.clock {
			s.threads = append(s.threads, parent.threads[i])
			continue
		}
		if n == len(s.owned) {
			s.owned = append(s.owned, &threadCopy{})
		}
		c := s.owned[n]
		n++
		c.hdr = *t
		c.hdr.Frames, c.hdr.Stack, c.hdr.Pending = nil, nil, nil
		c.frames = append(c.frames[:0], t.Frames...)
		c.stack = append(c.stack[:0], t.Stack...)
		c.pending = append(c.pending[:0], t.Pending...)
		s.threads = append(s.threads, c)
	}
}

// Restore makes s the machine's state again.
func (m *Machine) Restore(s *Snapshot) {
	m.version++
	st := &m.S
	st.Heap.CopyFrom(&s.heap)
	st.Statics = append(st.Statics[:0], s.statics...)
	n := len(s.threads)
	for len(m.pool) < n {
		m.pool = append(m.pool, &Thread{})
	}
	live := len(st.Threads)
	// S.Threads[i] is always m.pool[i] (a thread's id is its index), so the
	// slice changes only with the number of threads.
	if live != n {
		st.Threads = append(st.Threads[:0], m.pool[:n]...)
	}
	for i, t := range st.Threads {
		if i >= live || t.stamp >= s.clock {
			c := s.threads[i]
			frames, stack, pending := t.Frames, t.Stack, t.Pending
			*t = c.hdr
			t.Frames = append(frames[:0], c.frames...)
			t.Stack = append(stack[:0], c.stack...)
			t.Pending = append(pending[:0], c.pending...)
		}
	}
}
