// Snapshots: raw copies of the active state for fast backtracking.

package vm

import "mcvm/heap"

// Snapshot is a raw copy of a machine's state. Saving and restoring one is
// a few memory copies, much cheaper than Decode, at the price of more
// memory than an encoding. Restore copies back only the threads that
// changed since the Save (every change to a thread stamps it with the
// machine's clock), so undoing one transition costs about one thread. A
// Snapshot is reused across Saves.
type Snapshot struct {
	clock   uint64
	heap    heap.Heap
	statics []int64
	threads []Thread // headers only: Frames and Stack are nil
	nframes []int32
	frames  []Frame
	stack   []Value
}

// Save copies the machine's state into s.
func (m *Machine) Save(s *Snapshot) {
	m.clock++
	s.clock = m.clock
	st := &m.S
	s.heap.CopyFrom(&st.Heap)
	s.statics = append(s.statics[:0], st.Statics...)
	s.threads = s.threads[:0]
	s.nframes = s.nframes[:0]
	s.frames = s.frames[:0]
	s.stack = s.stack[:0]
	for _, t := range st.Threads {
		h := *t
		h.Frames, h.Stack = nil, nil
		s.threads = append(s.threads, h)
		s.nframes = append(s.nframes, int32(len(t.Frames)), int32(len(t.Stack)))
		s.frames = append(s.frames, t.Frames...)
		s.stack = append(s.stack, t.Stack...)
	}
}

// Restore makes s the machine's state again.
func (m *Machine) Restore(s *Snapshot) {
	st := &m.S
	st.Heap.CopyFrom(&s.heap)
	st.Statics = append(st.Statics[:0], s.statics...)
	live := len(st.Threads)
	for len(m.pool) < len(s.threads) {
		m.pool = append(m.pool, &Thread{})
	}
	m.clock++
	st.Threads = st.Threads[:0]
	var fo, so int32
	for i := range s.threads {
		t := m.pool[i]
		st.Threads = append(st.Threads, t)
		nf, ns := s.nframes[2*i], s.nframes[2*i+1]
		if i >= live || t.stamp >= s.clock {
			frames, stack := t.Frames, t.Stack
			*t = s.threads[i]
			t.Frames = append(frames[:0], s.frames[fo:fo+nf]...)
			t.Stack = append(stack[:0], s.stack[so:so+ns]...)
			t.stamp = m.clock
		}
		fo += nf
		so += ns
	}
}
