// Reduction modes, the static future-access analysis and persistent-set selection.

package por

import (
	"fmt"

	"mcvm/bytecode"
	"mcvm/heap"
	"mcvm/vm"
)

// Mode selects the reductions, as a set of flags.
type Mode uint8

// Modes. None explores every enabled transition; Escape makes accesses to
// thread-local objects thread-local instructions and expands a state with
// one thread's transition when it touches only such objects; Ample adds
// persistent sets from the static analysis of what other threads can still
// access (read/write aware, lock aware); DPOR is stateful dynamic
// partial-order reduction (depth-first search only). All is Escape and
// Ample, the strongest sound combination measured (benchmarks/RESULTS.md)
// and the default: DPOR cannot be combined with Escape's merging of
// accesses, which reduces more, so it is not part of it.
const (
	None   Mode = 0
	Escape Mode = 1 << iota
	Ample
	DPOR
	All = Escape | Ample
)

var modeNames = map[Mode]string{None: "none", Escape: "escape", Ample: "ample", DPOR: "dpor", All: "all",
	Escape | DPOR: "escape+dpor", Ample | DPOR: "ample+dpor", Escape | Ample | DPOR: "escape+ample+dpor"}

// ModeNames lists the accepted --por values.
const ModeNames = "none, escape, ample, dpor, all (escape and ample), ample+dpor, escape+dpor, escape+ample+dpor"

// Revision numbers the reduction's definition: a search script records it
// (with the mode and the proviso) because the same mode of another
// revision chooses other persistent sets, so a certifier must refuse the
// script rather than find discrepancies in it. Revision 2 (2026-11-23):
// wait, notify and notifyall of a monitor the thread holds, and join of a
// thread that has ended, are persistent sets on their own, and guarded
// accesses are found across methods and monitorenter regions (guard.go).
// Revision 3 (2026-11-23): a thread's last return is one on its own even
// when other threads may join later, and so are monitorenter and
// synchronized calls of a monitor the thread holds; these rules and
// revision 2's hold with dpor too, whose race check now passes over levels
// explored with a persistent set.
const Revision = 3

func (m Mode) String() string {
	if s, ok := modeNames[m]; ok {
		return s
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// ParseMode parses a --por value.
func ParseMode(s string) (Mode, error) {
	for _, m := range []Mode{None, Escape, Ample, DPOR, All, Escape | DPOR, Ample | DPOR, Escape | Ample | DPOR} {
		if modeNames[m] == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown partial-order reduction %q (want one of %s)", s, ModeNames)
}

// VMOptions returns o with the vm's part of mode m set: escape analysis
// inside transitions (at transition granularity), unless m includes DPOR.
func (m Mode) VMOptions(o vm.Options) vm.Options {
	// Dynamic reduction needs every shared access at the start of a
	// transition (see vm.Footprint), so with DPOR escape analysis only
	// chooses persistent sets and does not merge accesses.
	o.Escape = m&Escape != 0 && m&DPOR == 0
	return o
}

// Reducer selects persistent sets for one program. It is not safe for
// concurrent use. It implements explorer.Reducer.
type Reducer struct {
	mode  Mode
	prog  *bytecode.Program
	words int
	// Entity bits: read of entity e is bit e, write is bit nent+e; the
	// same for guarded accesses (a field of the receiver, whose monitor the
	// accessing thread holds: guardedAccesses) at 2*nent and
	// 3*nent; then the join and start bits. Entities are the fields, then
	// the statics, then "an array element".
	nent     int
	joinBit  int
	startBit int
	monBit   int // any monitor operation (for DPOR's summaries)
	// guarded[m][pc]: instruction pc of method m is a getfield or putfield
	// on its receiver while the thread holds the receiver's monitor
	// (guardedAccesses).
	guarded [][]bool
	cross   []bool // scratch for Machine.Confined
	// reach[m][pc] is what a thread at pc of method m can still do in that
	// frame, its callees and the threads it creates.
	reach [][][]uint64
	// invRead: what the invariants read; a write to it is visible.
	invRead []uint64

	fut, others []uint64 // scratch: per-thread futures, and their union
	futOK       []bool
	tmp         []vm.Trans
}

// New analyses p for mode m. With mode None it returns nil.
func New(p *bytecode.Program, m Mode) *Reducer {
	if m == None {
		return nil
	}
	r := &Reducer{mode: m, prog: p}
	r.nent = len(p.Fields) + len(p.Statics) + 1
	r.joinBit = 4 * r.nent
	r.startBit = r.joinBit + 1
	r.monBit = r.joinBit + 2
	r.words = (r.monBit + 64) / 64
	if m&(Ample|DPOR) != 0 {
		r.analyse()
	}
	return r
}

// Mode returns the reducer's mode.
func (r *Reducer) Mode() Mode { return r.mode }

func (r *Reducer) fieldBit(f int64, write bool) int {
	b := int(f)
	if write {
		b += r.nent
	}
	return b
}

func (r *Reducer) staticBit(s int64, write bool) int {
	return r.fieldBit(int64(len(r.prog.Fields))+s, write)
}

func (r *Reducer) arrayBit(write bool) int { return r.fieldBit(int64(r.nent-1), write) }

func set(b []uint64, i int)      { b[i/64] |= 1 << (i % 64) }
func has(b []uint64, i int) bool { return b[i/64]&(1<<(i%64)) != 0 }
func or(dst, src []uint64) (ch bool) {
	for i, w := range src {
		if n := dst[i] | w; n != dst[i] {
			dst[i], ch = n, true
		}
	}
	return ch
}

// knownFlow reports whether succ understands op's control flow; any other
// opcode is assumed to be able to continue anywhere in its method: an
// invalid one, and those that continue at places known only at run time
// (bytecode.FlagRuntimeFlow: the structured-exception instructions).
func knownFlow(op bytecode.Opcode) bool {
	return op.Valid() && !op.Is(bytecode.FlagRuntimeFlow)
}

// analyse computes reach: own accesses per instruction, method summaries
// over the call graph (calls, virtual dispatch to every override, threads
// created), then a backward fixpoint over each method's control flow,
// where an instruction inside a handler's range may continue at the
// handler.
func (r *Reducer) analyse() {
	p := r.prog
	nm := len(p.Methods)
	r.guarded = r.guardedAccesses()
	r.cross = make([]bool, len(p.Fields))
	own := make([][][]uint64, nm)
	calls := make([][]int32, nm) // callees (and thread bodies) per method
	for mi := range p.Methods {
		code := p.Methods[mi].Code
		own[mi] = make([][]uint64, len(code))
		for pc, in := range code {
			b := make([]uint64, r.words)
			own[mi][pc] = b
			info := in.Op.Info()
			write := info.Flags&bytecode.FlagWrite != 0
			switch info.Access {
			case bytecode.AccessField:
				g := 0
				if r.guarded[mi][pc] {
					g = 2 * r.nent
				}
				set(b, g+r.fieldBit(in.A, write))
			case bytecode.AccessStatic:
				set(b, r.staticBit(in.A, write))
			case bytecode.AccessElem:
				set(b, r.arrayBit(write))
			case bytecode.AccessMonitor:
				set(b, r.monBit)
			case bytecode.AccessThread:
				if write {
					set(b, r.startBit)
				} else {
					set(b, r.joinBit)
				}
			}
			if info.Flags&bytecode.FlagReturn != 0 && p.Methods[mi].Sync() {
				set(b, r.monBit)
			}
			switch in.Op {
			case bytecode.OpInvokestatic, bytecode.OpNewthread:
				calls[mi] = append(calls[mi], int32(in.A))
			case bytecode.OpInvokevirtual:
				calls[mi] = append(calls[mi], r.overrides(int32(in.A))...)
			}
			if !in.Op.Valid() {
				// An instruction this analysis does not know may do
				// anything: every bit.
				for i := range b {
					b[i] = ^uint64(0)
				}
			}
		}
	}
	// Method summaries: everything a call of the method can do.
	sum := make([][]uint64, nm)
	for mi := range sum {
		sum[mi] = make([]uint64, r.words)
		if p.Methods[mi].Sync() {
			set(sum[mi], r.monBit) // the call takes the monitor
		}
		for _, b := range own[mi] {
			or(sum[mi], b)
		}
	}
	for changed := true; changed; {
		changed = false
		for mi := range sum {
			for _, c := range calls[mi] {
				if or(sum[mi], sum[c]) {
					changed = true
				}
			}
		}
	}
	// Per pc: own, callees', and the successors'.
	r.reach = make([][][]uint64, nm)
	for mi := range p.Methods {
		meth := &p.Methods[mi]
		code := meth.Code
		rc := make([][]uint64, len(code))
		for pc, in := range code {
			b := append([]uint64(nil), own[mi][pc]...)
			switch in.Op {
			case bytecode.OpInvokestatic, bytecode.OpNewthread:
				or(b, sum[in.A])
			case bytecode.OpInvokevirtual:
				for _, c := range r.overrides(int32(in.A)) {
					or(b, sum[c])
				}
			}
			rc[pc] = b
		}
		for changed := true; changed; {
			changed = false
			for pc := len(code) - 1; pc >= 0; pc-- {
				for _, s := range r.succ(meth, pc) {
					if or(rc[pc], rc[s]) {
						changed = true
					}
				}
			}
		}
		r.reach[mi] = rc
	}
	r.invRead = make([]uint64, r.words)
	for _, mi := range p.Invariants {
		or(r.invRead, sum[mi])
	}
	r.fut = make([]uint64, 0)
}

// overrides returns the methods invokevirtual of method mi can reach: mi
// and every method of the same name in a subclass of its class.
func (r *Reducer) overrides(mi int32) []int32 {
	p := r.prog
	mm := &p.Methods[mi]
	var out []int32
	for c := range p.Classes {
		if !p.IsSubclass(int32(c), mm.Class) {
			continue
		}
		if t := p.FindMethod(int32(c), mm.Name); t >= 0 {
			dup := false
			for _, x := range out {
				dup = dup || x == t
			}
			if !dup {
				out = append(out, t)
			}
		}
	}
	return out
}

// succ returns the instructions that may follow pc in meth.
func (r *Reducer) succ(meth *bytecode.Method, pc int) []int {
	in := meth.Code[pc]
	var out []int
	if !knownFlow(in.Op) {
		for i := range meth.Code {
			out = append(out, i)
		}
		return out
	}
	info := in.Op.Info()
	if info.Flags&bytecode.FlagNoNext == 0 && pc+1 < len(meth.Code) {
		out = append(out, pc+1)
	}
	if info.Flags&bytecode.FlagBranch != 0 {
		out = append(out, int(in.A))
	}
	for _, h := range meth.Handlers {
		if int32(pc) >= h.Start && int32(pc) < h.End {
			out = append(out, int(h.Target))
			if h.Kind == bytecode.HandlerFilter {
				out = append(out, int(h.Filter))
			}
		}
	}
	return out
}

// future computes into dst what thread u of the machine's state can still
// do: the union over its frames of what each can do from its pc (a frame
// below the top is at its call, so that includes the rest of the call and
// the handlers around it).
func (r *Reducer) future(m *vm.Machine, u int32, dst []uint64) {
	clear(dst)
	switch m.ThreadStatus(u) {
	case vm.StatusTerminated:
		return
	}
	for i := m.NumFrames(u) - 1; i >= 0; i-- {
		mi, pc := m.FrameAt(u, i)
		or(dst, r.reach[mi][pc])
	}
}

// Reduces reports whether the reducer chooses persistent sets (Escape or
// Ample); a reducer for DPOR alone only provides the static analysis.
func (r *Reducer) Reduces() bool { return r != nil && r.mode&(Escape|Ample) != 0 }

// Ample reorders trans, the enabled transitions of the machine's current
// state in thread order, so that a persistent set comes first, and returns
// its length (len(trans) when the state must be fully expanded). The set
// is all the transitions of one thread whose next transition is
// independent of everything the other threads can do before it, and
// invisible to the invariants: it touches nothing shared, or only an object
// of its own (Escape), or (Ample) a field, static or array element, a
// monitor release, or a thread start or end, that no other thread can
// still access in a conflicting way (two reads do not conflict), or (but
// with DPOR) a wait, notify or notifyall of a monitor it holds or a join
// of a thread that has ended.
func (r *Reducer) Ample(m *vm.Machine, trans []vm.Trans) int {
	if !r.Reduces() || len(trans) < 2 {
		return len(trans)
	}
	r.prepare(m)
	for i := 0; i < len(trans); {
		t := trans[i].Thread
		j := i
		for j < len(trans) && trans[j].Thread == t {
			j++
		}
		if j-i < len(trans) && r.independent(m, t) {
			if i > 0 {
				// Move thread t's transitions to the front, keeping the
				// others' order.
				r.tmp = append(r.tmp[:0], trans[i:j]...)
				copy(trans[j-i:j], trans[:i])
				copy(trans, r.tmp)
			}
			return j - i
		}
		i = j
	}
	return len(trans)
}

// prepare resets the per-state futures.
func (r *Reducer) prepare(m *vm.Machine) {
	n := m.NumThreads()
	if r.mode&Ample == 0 {
		return
	}
	if cap(r.fut) < n*r.words {
		r.fut = make([]uint64, n*r.words)
		r.futOK = make([]bool, n)
		r.others = make([]uint64, r.words)
	}
	r.fut = r.fut[:n*r.words]
	r.futOK = r.futOK[:n]
	clear(r.futOK)
}

// futureOf returns thread u's future in the current state (computed once
// per state, see prepare).
func (r *Reducer) futureOf(m *vm.Machine, u int32) []uint64 {
	f := r.fut[int(u)*r.words : int(u+1)*r.words]
	if !r.futOK[u] {
		r.future(m, u, f)
		r.futOK[u] = true
	}
	return f
}

// othersFuture returns the union of the futures of every thread but t.
func (r *Reducer) othersFuture(m *vm.Machine, t int32) []uint64 {
	clear(r.others)
	for u := int32(0); int(u) < m.NumThreads(); u++ {
		if u != t {
			or(r.others, r.futureOf(m, u))
		}
	}
	return r.others
}

// othersHave reports whether the future of a thread other than t has one
// of the bits b (b[i] < 0: none): what has(othersFuture(m, t), b[i]) asks,
// without making the union, for the few bits independent looks at.
func (r *Reducer) othersHave(m *vm.Machine, t int32, b [4]int) bool {
	for u := int32(0); int(u) < m.NumThreads(); u++ {
		if u == t {
			continue
		}
		f := r.futureOf(m, u)
		for _, x := range b {
			if x >= 0 && has(f, x) {
				return true
			}
		}
	}
	return false
}

// independent reports whether thread t's next transition can form a
// persistent set on its own.
func (r *Reducer) independent(m *vm.Machine, t int32) bool {
	a := m.NextAccess(t)
	if a.Kind == vm.FootNone {
		return true
	}
	if a.Local && r.mode&Escape != 0 {
		return true
	}
	if r.mode&Ample == 0 {
		return false
	}
	if a.Kind == vm.FootField && a.Held && r.heldIndependent(m, t, a) {
		return true
	}
	if (a.Kind == vm.FootField || a.Kind == vm.FootElem) && a.Obj != 0 && r.confined(m, t, a.Obj) {
		return true
	}
	var bit int
	switch a.Kind {
	case vm.FootMonitor:
		// monitorenter, a synchronized call, wait, notify, notifyall or a
		// release of a monitor t holds: nobody else can take, wait on or
		// notify it until t releases it (wait does).
		return true
	case vm.FootThread:
		if !a.Write || a.Index == int64(t) {
			// join of a thread that has ended: nothing changes that. t's
			// end: it enables the joins of t, which are disabled until
			// then, so none of them can run before it in a path of other
			// threads' transitions, and nothing else sees it.
			return true
		}
		return !r.othersHave(m, t, [4]int{r.joinBit, r.startBit, -1, -1}) // a start
	case vm.FootField:
		bit = int(a.Index)
	case vm.FootStatic:
		bit = len(r.prog.Fields) + int(a.Index)
	case vm.FootElem:
		bit = r.nent - 1
	default:
		return false
	}
	g := 2 * r.nent
	if !a.Write {
		return !r.othersHave(m, t, [4]int{bit + r.nent, g + bit + r.nent, -1, -1}) // unless another thread may write it
	}
	if has(r.invRead, bit) || has(r.invRead, g+bit) {
		return false // an invariant may read it
	}
	return !r.othersHave(m, t, [4]int{bit + r.nent, g + bit + r.nent, bit, g + bit}) // unless another thread may access it
}

// visibleWrite reports whether fp writes something an invariant reads
// (without the static analysis, as in mode escape alone, every write is
// taken to be one when the program has invariants).
func (r *Reducer) visibleWrite(fp vm.Footprint) bool {
	if !fp.Write || len(r.prog.Invariants) == 0 {
		return false
	}
	if r.invRead == nil {
		return true
	}
	switch fp.Kind {
	case vm.FootField:
		return has(r.invRead, int(fp.Index)) || has(r.invRead, 2*r.nent+int(fp.Index))
	case vm.FootStatic:
		return has(r.invRead, len(r.prog.Fields)+int(fp.Index))
	case vm.FootElem:
		return has(r.invRead, r.nent-1)
	}
	return false
}

// Dependent implements explorer.Sleeper: whether the next transitions of
// two different threads, with footprints a and b (vm.Machine.NextFootprint
// in the same state), may fail to commute. They do when they touch the
// same location and one writes, operate on the same monitor or thread
// status, when one's footprint is unknown, and when both write what the
// invariants read (so that sleep sets do not hide an order the invariants
// could tell apart: the same relation as dynamic reduction's).
func (r *Reducer) Dependent(a, b vm.Footprint) bool {
	return dependent(a, r.visibleWrite(a), b, r.visibleWrite(b))
}

// heldIndependent: thread t accesses field f of an object whose monitor it
// holds. Other threads' guarded accesses to f need the monitor of the
// object they touch, so they cannot touch this one before t releases it;
// only their unguarded accesses (and the invariants' reads, for a write)
// can conflict (Dwyer, Hatcliff, Robby and Ranganath's lock-protected
// fields, made sound by the static guarded/unguarded split).
func (r *Reducer) heldIndependent(m *vm.Machine, t int32, a vm.Access) bool {
	bit := int(a.Index)
	if !a.Write {
		return !r.othersHave(m, t, [4]int{bit + r.nent, -1, -1, -1})
	}
	if has(r.invRead, bit) || has(r.invRead, 2*r.nent+bit) {
		return false
	}
	return !r.othersHave(m, t, [4]int{bit + r.nent, bit, -1, -1})
}

// confined: no other thread (nor an invariant) can reach the object t
// touches except through a field of an object whose monitor t holds and
// that they access only while holding its monitor (Machine.Confined).
func (r *Reducer) confined(m *vm.Machine, t int32, obj heap.Ref) bool {
	if !m.HoldsMonitor(t) {
		return false // then Confined is escape analysis, already asked
	}
	o := r.othersFuture(m, t)
	for f := range r.cross {
		r.cross[f] = has(o, f) || has(o, r.nent+f) || has(r.invRead, f) || has(r.invRead, 2*r.nent+f)
	}
	return m.Confined(t, obj, r.cross)
}
