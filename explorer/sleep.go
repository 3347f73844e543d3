// Sleep sets (Godefroid): transitions whose results the search reaches the other way round.

package explorer

import (
	"math/bits"

	"mcvm/vm"
)

// sleepSets is what depth-first search keeps for sleep sets: each
// stored state's sleep set, a sleep frame per level of the stack, and the
// state of the search's handling of invariant violations (Options.Sleep).
type sleepSets struct {
	on      bool    // Options.Sleep applies
	sleeper Sleeper // the reduction's dependence
	// of: each stored state's sleep set (threads, bit i for thread i <
	// 63; threads from 63 on never sleep; bit 63 is taintBit).
	of []uint64
	// frames: one per level of the DFS stack.
	frames []sleepFrame
	// fp: scratch, the footprints of the candidate sleepers (sleepers).
	fp [64]vm.Footprint
	// tainting: with Continue and invariants, threads whose transitions'
	// subtrees may hold a violation stay awake (taintBit). optimistic:
	// with Continue and invariants but without tainting, until an
	// invariant violation sets retaint (see Search).
	tainting, optimistic, retaint bool
}

// threadBit is thread t's bit in a sleep set (none from thread 63 on).
func threadBit(t int32) uint64 {
	if t < 0 || t >= 63 {
		return 0
	}
	return 1 << t
}

// taintBit marks, in a state's stored sleep set, a state whose subtree as
// explored holds a state that was not expanded (it violates an
// invariant, with Options.Continue): a transition that reaches it must
// not put its thread to sleep.
const taintBit = 1 << 63

// sleepers records, for the threads of cand, their next transitions'
// footprints in the machine's state (see stillAsleep).
func (s *search) sleepers(cand uint64) {
	for b := cand; b != 0; b &= b - 1 {
		p := int32(bits.TrailingZeros64(b))
		s.sl.fp[p] = s.m.NextFootprint(p)
	}
}

// stillAsleep returns the threads of z (whose footprints sleepers
// recorded) that stay asleep after a transition with footprint fc, taken
// when the machine had nt threads: those independent of it. A transition
// that created a thread wakes everyone: two creations in either order
// number the new threads differently, and NextFootprint does not show a
// creation (newthread is not a scheduling point).
func (s *search) stillAsleep(z uint64, fc vm.Footprint, nt int) uint64 {
	if s.m.NumThreads() != nt {
		return 0
	}
	for b := z; b != 0; b &= b - 1 {
		p := bits.TrailingZeros64(b)
		if s.sl.sleeper.Dependent(s.sl.fp[p], fc) {
			z &^= 1 << p
		}
	}
	if s.moved && z&^taintBit != 0 {
		// The threads were renamed after the transition (Options.Symmetry).
		var r uint64
		for i, p := range s.perm {
			if z&threadBit(p) != 0 {
				r |= threadBit(int32(i))
			}
		}
		z = r | z&taintBit
	}
	return z
}

// setSleep records new state id's sleep set.
func (s *search) setSleep(id int32, z uint64) {
	for int(id) >= len(s.sl.of) {
		s.sl.of = append(s.sl.of, 0)
	}
	s.sl.of[id] = z
}

// wake handles a revisit of state id with sleep set z: the transitions of
// the threads asleep when it was stored (or last woken) but awake now were
// not explored from it, so they are explored now, from a frame of their
// own (on top of the state's own frame if it is still on the stack), with
// the threads asleep both times asleep (Godefroid's sleep sets with state
// matching). The machine holds state id.
func (s *search) wake(id int32, z uint64) {
	h := s.sl.of[id]
	w := h &^ z &^ taintBit
	if w == 0 {
		return
	}
	s.sl.of[id] = h & (z | taintBit)
	start := len(s.trans)
	s.trans = s.m.Enabled(s.trans)
	k := s.partition(start, w, true)
	if k == start {
		s.trans = s.trans[:start]
		return
	}
	s.stats.Woken++
	if depth := len(s.stack); depth > s.stats.MaxDepth {
		s.stats.MaxDepth = depth
	}
	// The frame explores the woken transitions; the others are there for
	// the cycle proviso and the dynamic reduction to add (they were
	// explored, or left out by the reduction, when the state was first).
	sleep := h & z &^ taintBit
	end := k
	if d := s.opts.Dynamic; d != nil {
		end = max(end, start+d.Enter(s.m, len(s.stack), s.trans[start:], len(s.trans)-start))
		if sleep != 0 {
			d.Asleep(s.m, len(s.stack), sleep)
		}
	}
	again := s.isOnStack(id)
	s.shuffleRange(start, end)
	s.shuffleRange(end, len(s.trans))
	s.loaded = id
	s.stack = append(s.stack, frame{id: id, start: int32(start), end: int32(end), full: int32(len(s.trans)), next: int32(start), deep: -1, fp: s.lastFP, cs: int32(len(s.chain)), again: again})
	s.top = &s.stack[len(s.stack)-1]
	if s.sl.on {
		s.sl.frames = append(s.sl.frames, sleepFrame{sleep: sleep, cur: -1})
	}
	if !again {
		s.setOnStack(id, s.lastFP, true)
	}
	s.snapshot()
}

// sleepFrame is what a DFS level needs with sleep sets (search.sleeps,
// one per frame): the threads asleep here (not explored); the threads all
// of whose transitions here have been explored (asleep in the states
// their later siblings reach, see stillAsleep); awake, the threads with a
// transition here whose subtree may hold a state not expanded (they never
// sleep); cur, the thread of the transition being explored (-1: none).
type sleepFrame struct {
	sleep, done, awake uint64
	cur                int32
}

// partition reorders s.trans[start:] so that the transitions whose
// thread's bit is in mask (in set) or not in it (in clear) come first,
// each part in its order, and returns where the second part starts.
func (s *search) partition(start int, mask uint64, in bool) int {
	t := s.trans[start:]
	s.tmp = s.tmp[:0]
	k := 0
	for _, tr := range t {
		if (threadBit(tr.Thread)&mask != 0) == in {
			t[k] = tr
			k++
		} else {
			s.tmp = append(s.tmp, tr)
		}
	}
	copy(t[k:], s.tmp)
	return start + k
}

// settle notes, with sleep sets, that the transition of thread sl.cur
// has been explored at top (sl is top's sleepFrame), its subtree
// included: the thread sleeps in the states top's later transitions reach
// once none of its transitions remain to explore here, unless one of them
// had a subtree with a state not expanded.
func (s *search) settle(top *frame, sl *sleepFrame) {
	b := threadBit(sl.cur)
	if top.curTaint {
		sl.awake |= b
		top.taint = true
		top.curTaint = false
	}
	for _, u := range s.trans[top.next:top.end] {
		if u.Thread == sl.cur {
			sl.cur = -1
			return
		}
	}
	sl.done |= b &^ sl.awake
	sl.cur = -1
}

// taint notes that the top frame's current transition may lead to a state
// not expanded (with Options.Sleep, Continue and invariants).
func (s *search) taint() {
	if s.sl.tainting {
		s.stack[len(s.stack)-1].curTaint = true
	}
}
