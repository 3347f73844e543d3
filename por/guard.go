// The guarded accesses: fields of the receiver read or written while the
// thread holds the receiver's monitor, found by a static analysis.

package por

import "mcvm/bytecode"

// guardedAccesses marks, for every method, the getfield and putfield
// instructions that access a field of the method's receiver while the
// executing thread is certain to hold the receiver's monitor: inside a
// synchronized method, inside a monitorenter/monitorexit region on the
// receiver, or anywhere in a method every call of which is made on the
// caller's own receiver while the caller holds its monitor (a helper such
// as the nested monitor's ringGet, called only from synchronized methods
// on this). Lock-protected fields (Dwyer et al.) rest on these marks: an
// access that is marked must never run without the monitor.
//
// Per method, an abstract interpretation tracks which operand-stack values
// are the receiver (local 0, never stored to) and a lower bound h on the
// number of times the thread holds the receiver's monitor: 1 at entry for a
// synchronized method or a locked-entry one, +1 at a monitorenter of the
// receiver, -1 at a monitorexit of it. A call to a method that may release
// a monitor it did not take (see exitSafe) sets h to 0. Joins keep the
// smaller h. Locked entry is the greatest fixpoint: every method is assumed
// locked-entry until one of its call sites is not on the caller's receiver
// with h >= 1 (a thread body, a static method, or a method that is never
// called is not). A method with exception handlers, or an instruction the
// analysis does not model, gets no marks (and its calls count as unlocked).
func (r *Reducer) guardedAccesses() [][]bool {
	p := r.prog
	nm := len(p.Methods)
	safe := r.exitSafe()
	locked := make([]bool, nm)
	thread := make([]bool, nm) // a thread's body: entered with no monitor
	for mi := range p.Methods {
		for _, in := range p.Methods[mi].Code {
			if in.Op == bytecode.OpNewthread {
				thread[in.A] = true
			}
		}
	}
	for mi := range locked {
		locked[mi] = !p.Methods[mi].Static() && !thread[mi]
	}
	out := make([][]bool, nm)
	for {
		called := make([]bool, nm) // has a call site
		unheld := make([]bool, nm) // has a call site that does not hold the receiver's monitor
		for mi := range p.Methods {
			out[mi] = r.guardMethod(int32(mi), locked, safe, called, unheld)
		}
		changed := false
		for mi := range locked {
			if locked[mi] && (!called[mi] || unheld[mi]) {
				locked[mi], changed = false, true
			}
		}
		if !changed {
			return out
		}
	}
}

// guardMethod is guardedAccesses' interpretation of method mi under the
// current locked-entry set: it returns the marks and records, for every
// method a call in mi may reach, that it is called and whether the call is
// made without the receiver's monitor (unheld). A method lockFlow cannot
// analyse gets no marks, and its calls count as unheld.
func (r *Reducer) guardMethod(mi int32, locked, safe, called, unheld []bool) []bool {
	p := r.prog
	meth := &p.Methods[mi]
	marks := make([]bool, len(meth.Code))
	calls := func(pc int, held bool) {
		in := meth.Code[pc]
		switch in.Op {
		case bytecode.OpInvokestatic:
			called[in.A] = true
			unheld[in.A] = true
		case bytecode.OpInvokevirtual:
			for _, c := range r.overrides(int32(in.A)) {
				called[c] = true
				if !held {
					unheld[c] = true
				}
			}
		}
	}
	h0 := 0
	if meth.Sync() || locked[mi] {
		h0 = 1
	}
	in, _ := r.lockFlow(meth, h0, safe)
	if in == nil {
		for pc := range meth.Code {
			calls(pc, false)
		}
		return marks
	}
	// The marks and the calls need the fixpoint: read the final in-states.
	for pc, ins := range meth.Code {
		s := in[pc]
		if s == nil {
			continue // unreachable
		}
		st := s.tags
		switch info := ins.Op.Info(); {
		case info.Access == bytecode.AccessField:
			// A field of the receiver (the value of local 0).
			d := int(info.Ref)
			marks[pc] = s.h >= 1 && len(st) >= d && st[len(st)-d] == 0
		case ins.Op == bytecode.OpInvokevirtual:
			n := int(p.Methods[ins.A].Args)
			calls(pc, s.h >= 1 && n >= 1 && len(st) >= n && st[len(st)-n] == 0)
		default:
			calls(pc, false)
		}
	}
	return marks
}

// exitSafe reports, per method, that a call of it never releases a
// monitor the caller holds: every monitorexit in it undoes one of its own
// monitorenters on the same local variable (balancedExits; a synchronized
// method's return releases what its call took), and every method it calls
// is exit-safe too (greatest fixpoint; thread bodies started in it run on
// their own threads and do not count). wait releases the monitor only
// until it takes it back.
func (r *Reducer) exitSafe() []bool {
	p := r.prog
	nm := len(p.Methods)
	own := make([]bool, nm) // the method's own exits are balanced
	for mi := range p.Methods {
		own[mi] = r.balancedExits(&p.Methods[mi])
	}
	safe := append([]bool(nil), own...)
	for changed := true; changed; {
		changed = false
		for mi := range p.Methods {
			if !safe[mi] {
				continue
			}
			for _, in := range p.Methods[mi].Code {
				var callees []int32
				switch in.Op {
				case bytecode.OpInvokestatic:
					callees = []int32{int32(in.A)}
				case bytecode.OpInvokevirtual:
					callees = r.overrides(int32(in.A))
				}
				for _, c := range callees {
					if !safe[c] {
						safe[mi], changed = false, true
					}
				}
			}
		}
	}
	return safe
}

// balancedExits reports that every monitorexit of meth undoes a
// monitorenter of the same method on the same local variable (the
// receiver or another), on every path (trivially so for a method without
// monitorexit).
func (r *Reducer) balancedExits(meth *bytecode.Method) bool {
	has := false
	for _, in := range meth.Code {
		if in.Op == bytecode.OpMonitorexit {
			has = true
		}
		if !in.Op.Valid() {
			return false
		}
	}
	if !has {
		return true
	}
	if len(meth.Handlers) > 0 {
		return false
	}
	in, balanced := r.lockFlow(meth, 0, nil)
	return in != nil && balanced
}

// lockState is what lockFlow knows before an instruction.
type lockState struct {
	tags []int32 // per operand-stack slot: the local variable it was loaded from, or -1
	own  []int32 // per local variable: the method's own monitorenters on it not yet undone, at least
	h    int     // the times the thread holds the receiver's monitor, at least (non-static methods)
}

// lockFlow is the abstract interpretation of guardedAccesses and
// balancedExits over meth, entered holding its receiver's monitor h0
// times: the state before every instruction (nil where unreachable; nil
// altogether if meth has handlers, stores to its receiver's variable or
// has an instruction the analysis does not model), and whether every
// monitorexit undid one of the method's own monitorenters on the same
// local variable. A monitorexit that does not is taken to release any
// monitor (h and every count drop to 0), and so is a call of a method
// that is not exit-safe (safe; nil: calls are not looked at). A store to
// a variable forgets its count. Joins keep the smaller numbers and a tag
// only where every path has it.
func (r *Reducer) lockFlow(meth *bytecode.Method, h0 int, safe []bool) ([]*lockState, bool) {
	p := r.prog
	if len(meth.Handlers) > 0 {
		return nil, false
	}
	for _, in := range meth.Code {
		if in.Op == bytecode.OpStore && in.A == 0 && !meth.Static() || !knownFlow(in.Op) {
			return nil, false
		}
	}
	if meth.Static() {
		h0 = 0
	}
	nl := int(meth.Args) + int(meth.Locals)
	balanced := true
	in := make([]*lockState, len(meth.Code))
	in[0] = &lockState{tags: []int32{}, own: make([]int32, nl), h: h0}
	work := []int{0}
	for len(work) > 0 {
		pc := work[len(work)-1]
		work = work[:len(work)-1]
		st := append([]int32(nil), in[pc].tags...)
		own := append([]int32(nil), in[pc].own...)
		h := in[pc].h
		ins := meth.Code[pc]
		top := int32(-1)
		if len(st) >= 1 {
			top = st[len(st)-1]
		}
		releaseAll := func() {
			h = 0
			clear(own)
		}
		switch ins.Op {
		case bytecode.OpMonitorenter:
			if top >= 0 && int(top) < len(own) {
				own[top]++
				if top == 0 && !meth.Static() {
					h++
				}
			}
		case bytecode.OpMonitorexit:
			if top >= 0 && int(top) < len(own) && own[top] >= 1 {
				own[top]--
				if top == 0 && !meth.Static() {
					h--
				}
			} else {
				balanced = false
				releaseAll()
			}
		case bytecode.OpStore:
			if int(ins.A) < len(own) {
				own[ins.A] = 0
			}
		case bytecode.OpInvokestatic, bytecode.OpInvokevirtual:
			if safe != nil && !safe[ins.A] {
				releaseAll()
			}
		}
		pop, push := bytecode.StackEffect(p, ins)
		if pop > len(st) {
			return nil, false // cannot happen in verified code
		}
		switch ins.Op {
		case bytecode.OpDup:
			st = append(st, st[len(st)-1])
		case bytecode.OpSwap:
			st[len(st)-1], st[len(st)-2] = st[len(st)-2], st[len(st)-1]
		case bytecode.OpLoad:
			st = append(st, int32(ins.A))
		default:
			st = st[:len(st)-pop]
			for i := 0; i < push; i++ {
				st = append(st, -1)
			}
		}
		for _, s := range r.succ(meth, pc) {
			t := in[s]
			if t == nil {
				in[s] = &lockState{tags: append([]int32{}, st...), own: append([]int32{}, own...), h: h}
				work = append(work, s)
				continue
			}
			changed := false
			for i := range t.tags {
				if i < len(st) && t.tags[i] >= 0 && t.tags[i] != st[i] {
					t.tags[i], changed = -1, true
				}
			}
			for i := range t.own {
				if own[i] < t.own[i] {
					t.own[i], changed = own[i], true
				}
			}
			if h < t.h {
				t.h, changed = h, true
			}
			if changed {
				work = append(work, s)
			}
		}
	}
	return in, balanced
}
