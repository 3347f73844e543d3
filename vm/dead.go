// Dead variable reduction: locals no path reads before writing them are zeroed after every transition.

package vm

import "mcvm/bytecode"

// initDead computes, with Options.DeadLocals, the live locals of every
// method at every instruction (bytecode.LiveLocals).
func (m *Machine) initDead() {
	if !m.opts.DeadLocals {
		return
	}
	p := m.prog
	m.liveIn = make([][]uint64, len(p.Methods))
	m.liveOut = make([][]uint64, len(p.Methods))
	for mi := range p.Methods {
		if in, out, ok := bytecode.LiveLocals(&p.Methods[mi]); ok {
			m.liveIn[mi], m.liveOut[mi] = in, out
		}
	}
}

// zeroDead sets the dead locals of t's frames to 0: those of the top
// frame not live before its next instruction, those of a caller not live
// after the invoke it waits at (it goes on from there when the call
// returns or throws). A dead local is never read again before it is
// written, so its value cannot change what the thread or anything else
// does: states that differ only in dead locals are one.
func (m *Machine) zeroDead(t *Thread) {
	top := len(t.Frames) - 1
	for fi := range t.Frames {
		f := &t.Frames[fi]
		in := m.liveIn[f.Method]
		if in == nil || f.PC < 0 || int(f.PC) >= len(in) {
			continue
		}
		live := in[f.PC]
		if fi < top {
			live = m.liveOut[f.Method][f.PC]
		}
		n := m.prog.Methods[f.Method].Locals
		vals := t.Stack[f.Base : f.Base+n]
		for i := range vals {
			if live&(1<<i) == 0 {
				vals[i] = Value{}
			}
		}
	}
}

// ZeroDeadLocals zeroes the dead locals of every thread, as Step does for
// the threads a transition ran when Options.DeadLocals is set (without it,
// it does nothing). A state decoded from a search without dead variable
// reduction becomes the state a search with it stores; the differential
// tests compare deadlocked states that way.
func (m *Machine) ZeroDeadLocals() {
	if m.liveIn == nil {
		return
	}
	m.version++
	m.stampAll()
	for _, t := range m.S.Threads {
		m.zeroDead(t)
	}
}
