// Transitions kept: the fingerprint of a successor taken from the one
// computed when the same transition was taken from another state, without
// executing it, when it is bound to do what it did then.

package vm

import (
	"fmt"
	"unsafe"

	"mcvm/bytecode"
	"mcvm/heap"
)

// A depth-first search fingerprints every successor of every state it
// expands (explorer's lookahead), and most are states visited before: on
// the philosophers, six transitions of seven. Between a state and its
// child only the thread that moved and the objects it wrote differ, so
// most of the child's transitions are its parent's again: the same
// thread, with the same record, writing objects with the same contents.
// Such a transition does the same again, and the successor's fingerprint
// differs from its state's by the same amount.
//
// StepAhead keeps, per thread, what its transitions did the last few
// times they were executed from a state that was the incremental
// encoder's base: the thread's record then, the objects they wrote as
// they were before, the thread's Thread object's monitor, the components
// they changed with their new terms, and what the fingerprint's sum
// gained. When the machine is at a base again where the thread's record
// is the same (its snapshot's copy of the thread is the one the entry
// names, threadCopy.ver, or else the record compares equal, as a kept
// term's) and the objects and the monitor are as they were, the
// successor's fingerprint is the base's sum plus that gain: the
// transition is not executed, the state not encoded, and since the
// machine still holds the base, the next transition needs no restore.
// On the philosophers N = 7, 91% of the lookaheads are taken so.
//
// That is sound when the transition is bound to do the same:
//   - What it executes reads nothing but its thread's record, the
//     objects it writes and the object its first instruction reads.
//     Every instruction that reads or writes what other threads can
//     change (fields, array elements, statics, monitors, other threads)
//     is a scheduling point, which ends a transition before it unless it
//     is the first; escape analysis can merge one in (a question of
//     reachability), which is not allowed. The first must have
//     bytecode.FlagKeep (no getstatic, start, notify or join), and so
//     must every other one the transition can reach (decode marks the
//     pcs it may begin at, Machine.keepFrom): no call or return; those
//     after the first read only what no transition changes (an object's
//     class, an array's length). Allocation (new, or an exception) makes the encoding
//     whole, and such a transition is not kept, nor one that faulted.
//   - The objects it writes are logged (incEnc.log), and with the object
//     a getfield or arrload reads first (readsFirst) compared in full,
//     header and slots. A Thread object written is not kept (its monitor
//     is in its thread's record, which holds another thread's frames).
//   - Its thread's term reads its Thread object's monitor too, which is
//     compared.
//   - The terms, and the check of the numbering that made the encoding
//     incremental, are functions of the records and of the base's
//     numbering, fixed within a generation (incEnc.gen): an
//     entry serves its generation only, and only a transition whose
//     encoding was incremental with nothing cut short is kept. So the new
//     terms are the same, and so are the base's terms of the components
//     changed (those of the records before): the sum gains the same.
//
// With Tuning.CheckEncoding every fingerprint taken this way is checked
// by executing the transition and encoding the state reached.
type keptTrans struct {
	gen          uint64 // incEnc.gen when kept; 0: nothing kept
	ver          uint64 // a copy of the thread (threadCopy.ver) that holds rec
	owner, count int32  // the Thread object's monitor
	choice       int32
	instr        int32     // the instructions it executed
	nobj, n      int32     // objects written (and read); components changed
	rec          threadRec // the thread's record at the state it was taken from
	refs         [keptObjs]heap.Ref
	objs         [keptObjs]objRec // the objects written (and read), before
	dirty        [stashMax]int32  // the components changed and their new terms
	newTerms     [stashMax]uint64
	// What the fingerprint's sum gains: newTerms less the base's terms of
	// the components, which are those of the records before, which are
	// the same wherever the transition is found kept.
	delta uint64
}

// keptObjs bounds the objects a kept transition writes (the
// philosophers' write one).
const keptObjs = 2

// keptWays is how many transitions are kept per thread: one per place,
// chosen by the top frame's pc and the choice (keptWay).
const keptWays = 4

// keptWay returns the place among a thread's keptWays of its transition
// with choice from a record whose top frame's pc is pc.
func keptWay(pc, choice int32) int { return wayOf(pc, uint32(choice)*0x85ebca6b) }

// The monitor's owner and count are compared as one word.
var (
	_ [0]struct{} = [unsafe.Offsetof(keptTrans{}.count) - unsafe.Offsetof(keptTrans{}.owner) - 4]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(keptTrans{}.owner) % 8]struct{}{}
)

// readsFirst gives, for the instructions a kept transition may execute
// (bytecode.FlagKeep) that read an object they do not write (as a
// transition's first: each is a scheduling point), where its reference is
// on the operand stack (1: the top); the object is compared as the ones
// written are. writesFirst are those that write an object whenever they
// complete: a transition kept that begins with one must have written one
// (a monitorenter that found the monitor taken writes nothing and reads
// the owner; the search never takes it, and this keeps it from being
// kept if it did). Both are the opcode table's, kept as arrays for
// keepTrans.
var readsFirst, writesFirst = func() (r [bytecode.NumOpcodes]int, w [bytecode.NumOpcodes]bool) {
	for op := range bytecode.NumOpcodes {
		info := bytecode.Opcode(op).Info()
		if info.Flags&bytecode.FlagKeep == 0 || info.Ref == 0 {
			continue
		}
		if info.Flags&bytecode.FlagWrite != 0 {
			w[op] = true
		} else {
			r[op] = int(info.Ref)
		}
	}
	return r, w
}()

// keepFrom returns, per pc of a method decoded as ops, whether a
// transition that begins there executes only instructions of FlagKeep:
// the first, then every one it can reach before one that ends the
// transition (step). That is the largest set closed under: a scheduling
// point ends the transition (unless escape analysis could merge it in:
// then it is not allowed), a return is not allowed (it executes unless
// it ends the thread), and any other instruction must have FlagKeep, with
// each of its successors allowed.
func (m *Machine) keepFrom(ops []op) []bool {
	n := len(ops)
	// ok[p]: the instruction at p is allowed when reached after the first.
	ok := make([]bool, n)
	fixed := make([]bool, n) // ok[p] does not depend on successors
	for p := range ops {
		o := &ops[p]
		switch {
		case o.atomic:
			fixed[p] = true // a transition goes on in the region
		case o.hidden:
			fixed[p] = true // reads or writes what is not logged or compared
		case o.sched:
			ok[p], fixed[p] = !o.local, true
		case o.ret:
			fixed[p] = true
		default:
			ok[p] = o.op.Is(bytecode.FlagKeep)
			fixed[p] = !ok[p]
		}
	}
	succ := func(p int) (int, int) { // up to two successors, -1 none, n: out of the method
		o := &ops[p]
		a, b := -1, -1
		if !o.op.Is(bytecode.FlagNoNext) {
			a = p + 1
		}
		if o.op.Is(bytecode.FlagBranch) {
			b = n
			if o.a >= 0 && o.a < int64(n) {
				b = int(o.a)
			}
		}
		return a, b
	}
	allowed := func(q int) bool { return q < 0 || q < n && ok[q] }
	for changed := true; changed; {
		changed = false
		for p := range ops {
			if fixed[p] || !ok[p] {
				continue
			}
			if a, b := succ(p); !allowed(a) || !allowed(b) {
				ok[p], changed = false, true
			}
		}
	}
	from := make([]bool, n)
	for p := range ops {
		a, b := succ(p)
		from[p] = ops[p].op.Is(bytecode.FlagKeep) && !ops[p].atomic && allowed(a) && allowed(b)
	}
	return from
}

// atBase reports whether the machine's state is the base's and its
// snapshot's (nothing written or stamped since), with nt threads. (It is
// loggedSince(in.snap) with nothing logged, spelt out: written with
// loggedSince, philo N = 7 took 0.4% more instructions.)
func (in *incEnc) atBase(nt int) bool {
	s := in.snap
	return in.ok && s != nil && in.snapClock == s.clock && len(in.log) == 0 && in.nTouch == 0 &&
		!in.all && !in.whole && !in.freed && !in.statics && len(s.threads) == nt && len(in.stamps) == nt
}

// StepAhead is Step, then EncodeFingerprint and StashFingerprint(st), for
// explorer's lookahead: it returns the fingerprint of the state tr leads
// to, the instructions tr executes, and Step's fault. If the machine is at
// the incremental encoder's base and tr is bound to do what it did when
// it was kept (see keptTrans), it returns them without executing tr: then
// moved is false, and the machine holds the state it held. st is left as
// StashFingerprint would leave it after executing tr.
func (m *Machine) StepAhead(tr Trans, st *FPStash) (fp uint64, instr int, f *Fault, moved bool) {
	in := &m.enc.inc
	var c *threadCopy // the base's copy of tr's thread, if tr may be kept
	// (A record too large to be kept is not looked for: tested first, it
	// saves MolDyn's searches the rest.)
	if nt := len(m.S.Threads); !m.opts.Tuning.NoKeptTransitions && uint(tr.Thread) < uint(nt) {
		if t := m.S.Threads[tr.Thread]; t.small() && in.atBase(nt) {
			c = in.snap.threads[tr.Thread]
			if e := m.keptFor(tr, t, c); e != nil {
				// The base's sum plus what the transition adds; st as
				// StashFingerprint would leave it.
				sum := in.sum + e.delta
				st.ok, st.n, st.gen, st.snapClock, st.sum = true, e.n, in.gen, in.snapClock, sum
				st.snap = in.snap
				st.dirty, st.newTerms = e.dirty, e.newTerms
				in.keptSteps++
				if m.opts.Tuning.CheckEncoding {
					m.checkKept(tr, heap.Mix(sum), int(e.instr))
				}
				return heap.Mix(sum), int(e.instr), nil, false
			}
		}
	}
	if f := m.Step(tr); f != nil {
		return 0, 0, f, true
	}
	fp = m.EncodeFingerprint()
	m.StashFingerprint(st)
	if c != nil && st.ok {
		m.keepTrans(tr, c, st)
	}
	return fp, m.executed, nil, true
}

// keptFor returns the transition kept for tr from the base, whose copy of
// tr's thread t is c, if there is one and it holds (nil if not).
func (m *Machine) keptFor(tr Trans, t *Thread, c *threadCopy) *keptTrans {
	in := &m.enc.inc
	i := int(tr.Thread) * keptWays
	if n := len(t.Frames); n > 0 {
		i += keptWay(t.Frames[n-1].PC, tr.Choice)
	}
	if i >= len(m.kept) { // (room is made by keepTrans)
		return nil
	}
	e := &m.kept[i]
	if e.gen != in.gen || e.choice != tr.Choice {
		return nil
	}
	if e.ver != c.ver {
		// Another copy: the thread's record may still be the same.
		if !e.rec.same(t) {
			return nil
		}
		e.ver = c.ver
	}
	// The Thread object's monitor, then the objects written.
	h := &m.S.Heap
	if *(*uint64)(unsafe.Pointer(&e.owner)) != *(*uint64)(unsafe.Pointer(&h.Objs[t.Obj-1].Owner)) {
		return nil
	}
	for j := range e.nobj {
		if r := e.refs[j]; int(r) > len(h.Objs) || !e.objs[j].same(&h.Objs[r-1], h) {
			return nil
		}
	}
	return e
}

// keepTrans keeps what transition tr, just executed from the base whose
// copy of its thread is c and encoded incrementally into st, did, if it
// is bound to do it again from an equal state (see keptTrans).
func (m *Machine) keepTrans(tr Trans, c *threadCopy, st *FPStash) {
	in := &m.enc.inc
	nf, ns := int(c.nFrames), int(c.nStack)
	if c.Status != StatusRunnable || nf == 0 || len(c.vals) != nf+ns || nf+ns > memoVals || in.all || in.statics || in.whole || in.freed ||
		in.nTouch != 1 || in.touched[0] != tr.Thread || len(in.log) > 2*keptObjs {
		return
	}
	top := valueFrames(c.vals[:nf])[nf-1]
	if int(top.Method) >= len(m.keepable) || int(top.PC) >= len(m.keepable[top.Method]) || !m.keepable[top.Method][top.PC] {
		return
	}
	s := in.snap
	src := s.keep
	if s.undo.delta {
		if m.snap.shadowAt != s {
			return
		}
		src = &m.snap.shadow
	}
	if src == nil {
		return
	}
	h, sh := &m.S.Heap, &src.heap
	nt := len(m.S.Threads)
	if len(m.kept) < nt*keptWays {
		m.kept = append(m.kept, make([]keptTrans, nt*keptWays-len(m.kept))...)
	}
	// (Placed by the record before, which is c's: its top frame is.)
	e := &m.kept[int(tr.Thread)*keptWays+keptWay(top.PC, tr.Choice)]
	e.gen = 0
	n := int32(0)
next:
	for _, r := range in.log {
		for _, q := range e.refs[:n] {
			if q == r {
				continue next
			}
		}
		if n == keptObjs || r < 1 || int(r) > len(sh.Objs) || int(r) > len(h.Objs) {
			return
		}
		if id := m.enc.canon.ID(r); id >= 1 && int(id) <= nt {
			return // a Thread object
		}
		if !e.keepObj(n, r, sh) {
			return
		}
		n++
	}
	op := m.code[top.Method][top.PC].op
	if d := readsFirst[op]; d > 0 && d <= ns {
		// The object it read, from its thread's values before (a null
		// reference throws, which allocates: not kept).
		v := c.vals[nf:][ns-d]
		r := heap.Ref(v.I)
		if !v.Ref || r < 1 || int(r) > len(sh.Objs) || n != 0 || !e.keepObj(n, r, sh) { // (it wrote nothing: n is 0)
			return
		}
		n++
	}
	if n == 0 && (writesFirst[op] || readsFirst[op] > 0) {
		return
	}
	t := m.S.Threads[tr.Thread]
	if int(t.Obj) < 1 || int(t.Obj) > len(h.Objs) {
		return
	}
	tobj := &h.Objs[t.Obj-1]
	e.owner, e.count = tobj.Owner, tobj.Count
	e.ver, e.choice, e.instr = c.ver, tr.Choice, int32(m.executed)
	e.rec.setCopy(c)
	e.nobj, e.n, e.dirty, e.newTerms = n, st.n, st.dirty, st.newTerms
	e.delta = st.sum - in.sum
	e.gen = in.gen
}

// keepObj keeps object r of heap sh (the base's), as e's n-th object; it
// reports false if r has too many slots to be kept.
func (e *keptTrans) keepObj(n int32, r heap.Ref, sh *heap.Heap) bool {
	o := &sh.Objs[r-1]
	if o.Len > memoVals {
		return false
	}
	e.refs[n] = r
	e.objs[n].set(o, sh)
	return true
}

// checkKept checks a fingerprint StepAhead took kept for transition tr
// (see Tuning.CheckEncoding): it executes tr, encodes the state reached and compares,
// then restores the base.
func (m *Machine) checkKept(tr Trans, fp uint64, instr int) {
	s, inv := m.enc.inc.snap, m.invDirty
	if f := m.Step(tr); f != nil {
		panic(fmt.Sprintf("vm: a transition kept faults when executed: %v", f.Msg))
	}
	if got := m.EncodeFingerprint(); got != fp || m.executed != instr {
		panic(fmt.Sprintf("vm: a transition kept reaches %016x in %d instructions, not %016x in %d", got, m.executed, fp, instr))
	}
	m.Restore(s)
	m.invDirty = inv
}
