// Thread-local livelocks: a long transition that comes back to a state it was in loops forever.

package vm

import (
	"fmt"
	"slices"

	"mcvm/bytecode"
)

// spinAfter is how many instructions a transition runs before it looks
// for a cycle (stepLong): far more than a transition of any model that
// does real work between its scheduling points runs, so that the search
// of such models never pays for the looking.
const spinAfter = 1 << 12

// spin is the cycle detection of one long transition: Brent's algorithm
// over the states of the running thread at its backward jumps (every
// cycle of a program's states passes one). A copy of the thread's state
// (the tortoise) is compared with its state at each backward jump; it is
// taken again at the jumps numbered 2^k - 1, so a cycle of λ jumps
// entered after μ is found within about 2·max(μ, λ) + λ jumps, with about
// log2 of that many copies. Only instructions that change nothing
// but the thread's frames may run in between (spinQuiet): with them, the
// thread's frames, operand stack and pending exception handling, the
// heap's size and free objects (allocation changes one of them; nothing
// is freed within a transition) and the instruction are all the machine
// state the next instructions depend on or change, so that state equal
// to the copy's repeats forever.
type spin struct {
	frames     []Frame
	stack      []Value
	pending    []Pending
	objs, free int
	held       bool // the copy is valid: taken with only quiet instructions since
	power, lam int  // Brent's: jumps until the next copy, jumps since the last
	steps      int  // instructions since the copy (the cycle's length, when found)
}

// spinQuiet reports whether o changes nothing but its thread's frames,
// operand stack and pending exception handling, or the heap by allocating:
// the pure instructions (bytecode.FlagPure: read only) but those that
// print.
func spinQuiet(o *op) bool {
	return o.pure && o.op != bytecode.OpPrint && o.op != bytecode.OpPrinti
}

// stepLong goes on with the transition of thread t, which has run
// spinAfter instructions: as step does, up to MaxLocalSteps, and looking
// for a cycle at each backward jump. A thread whose state repeats has a
// FaultLivelock.
func (m *Machine) stepLong(t *Thread) *Fault {
	sp := &m.spin
	sp.held, sp.power, sp.lam = false, 1, 0
	for n := spinAfter; n < MaxLocalSteps; n++ {
		if t.Status != StatusRunnable {
			break
		}
		o := m.next(t)
		if m.ends(t, o) {
			break
		}
		sp.steps++
		switch {
		case !spinQuiet(o):
			sp.held = false
		case o.back && m.spinAt(t):
			every := "every instruction"
			if sp.steps > 1 {
				every = fmt.Sprintf("every %d instructions", sp.steps)
			}
			m.setFault(t, FaultLivelock, -1, fmt.Sprintf("livelock: the thread loops forever without reaching a scheduling point, its state repeating %s", every))
			return &m.fault
		}
		m.executed++
		if o.back {
			m.back = true
		}
		if !m.exec(t, o) {
			break
		}
	}
	return m.result()
}

// spinAt is a backward jump of thread t in a long transition: it reports
// whether t's state is the copy's, and takes the copy where Brent's
// algorithm does.
func (m *Machine) spinAt(t *Thread) bool {
	sp := &m.spin
	h := &m.S.Heap
	if sp.held && len(t.Stack) == len(sp.stack) && len(t.Frames) == len(sp.frames) && *t.top() == sp.frames[len(sp.frames)-1] &&
		h.Len() == sp.objs && h.FreeObjects() == sp.free &&
		slices.Equal(t.Stack, sp.stack) && slices.Equal(t.Frames, sp.frames) && slices.Equal(t.Pending, sp.pending) {
		return true
	}
	// (A copy made invalid by an instruction that is not quiet is taken
	// again on the same schedule, so that a loop that is no cycle costs
	// as few copies as one that is.)
	sp.lam++
	if sp.lam >= sp.power {
		sp.frames = append(sp.frames[:0], t.Frames...)
		sp.stack = append(sp.stack[:0], t.Stack...)
		sp.pending = append(sp.pending[:0], t.Pending...)
		sp.objs, sp.free = h.Len(), h.FreeObjects()
		sp.held, sp.power, sp.lam, sp.steps = true, sp.power*2, 0, 0
	}
	return false
}
