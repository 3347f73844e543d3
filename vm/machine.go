// Machine: loading, enabledness, transitions, faults and invariant evaluation.

package vm

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unsafe"

	"mcvm/bytecode"
	"mcvm/heap"
)

// Granularity selects how much one transition executes.
type Granularity uint8

// Granularities.
const (
	// GranTransition: a thread runs from a scheduling point through all
	// following thread-local instructions up to the next scheduling point.
	GranTransition Granularity = iota
	// GranInstruction: every instruction is its own transition.
	GranInstruction
)

func (g Granularity) String() string {
	if g == GranInstruction {
		return "instruction"
	}
	return "transition"
}

// Limits of the machine. A transition that runs MaxLocalSteps thread-local
// instructions ends there (so a local infinite loop becomes a cycle in the
// state graph instead of a hang). A call beyond MaxFrames frames or
// MaxThreadSlot values throws StackOverflowError, as in Java. MaxObjects,
// MaxThreads, MaxSlots and MaxInvariantSteps are the defaults of the
// Options that a program reaches with a FaultLimit.
const (
	MaxLocalSteps     = 1 << 16
	MaxFrames         = 1 << 12
	MaxThreadSlot     = 1 << 16 // values (locals and operands) on one thread's stack
	MaxObjects        = 1 << 22
	MaxThreads        = 1 << 12
	MaxSlots          = 1 << 24 // slots (fields and array elements) of all objects together
	MaxInvariantSteps = 1 << 22 // instructions of one invariant's evaluation
)

// The highest values Options may raise the limits to: references, slot
// offsets and thread ids are 32-bit.
const (
	MaxObjectsLimit = 1 << 30
	MaxThreadsLimit = 1 << 20
	MaxSlotsLimit   = 1 << 30
)

// Options configures a Machine. The zero value means transition granularity
// and no output.
type Options struct {
	Granularity Granularity
	// Escape makes field, array and monitor instructions on objects that no
	// other thread can reach thread-local: not scheduling points, so they
	// run inside the current transition (JPF's and MoonWalker's escape
	// analysis). It applies at transition granularity only.
	Escape bool
	// Out receives print and printi output; nil discards it.
	Out io.Writer
	// IgnoreUncaught makes an exception no handler takes end its thread
	// silently instead of being a fault (--uncaught=ignore).
	IgnoreUncaught bool
	// GC is the collector CollectGarbage uses (--gc).
	GC GC
	// DeadLocals zeroes, after every transition, the locals of the
	// threads that ran in it that no path reads again before writing them
	// (dead variable reduction; bytecode.LiveLocals), so that states that
	// differ only in such values are one state (--dead-locals).
	DeadLocals bool
	// MaxThreads, MaxObjects, MaxSlots and MaxInvariantSteps bound what
	// a state may hold and an invariant may run (zero: the package's
	// constants of those names; at most MaxThreadsLimit, MaxObjectsLimit
	// and MaxSlotsLimit). A program that would pass one gets a Fault of
	// kind FaultLimit: a limit of the checker, not a property violation.
	MaxThreads, MaxObjects, MaxSlots int
	MaxInvariantSteps                int64
	// Tuning holds settings for tests only; its zero value is the default.
	Tuning Tuning
}

// FaultKind classifies a property violation or runtime fault.
type FaultKind uint8

// Fault kinds.
const (
	FaultNone      FaultKind = iota
	FaultAssertion           // assert of 0
	FaultException           // an exception no handler caught, or a type error
	FaultInvariant           // an invariant returned 0 (or faulted)
	FaultDeadlock            // reported by the explorer, never by Step
	// FaultLimit: the program reached a limit of the machine (Fault.Limit
	// says which): not a property of the program, and the state space
	// beyond is not explored.
	FaultLimit
	// FaultLivelock: a thread loops forever without reaching a scheduling
	// point: within one transition its state came back to one it was in,
	// with nothing else changed in between (spin.go).
	FaultLivelock
)

var faultNames = [...]string{"ok", "assertion", "exception", "invariant", "deadlock", "limit", "livelock"}

// Limit names the limit of the machine a FaultLimit reached.
type Limit uint8

// Limits a program can reach (Options).
const (
	LimitNone           Limit = iota
	LimitThreads              // Options.MaxThreads
	LimitObjects              // Options.MaxObjects
	LimitSlots                // Options.MaxSlots
	LimitInvariantSteps       // Options.MaxInvariantSteps
)

var limitNames = [...]string{"", "threads", "objects", "heap slots", "invariant steps"}

func (l Limit) String() string {
	if int(l) < len(limitNames) {
		return limitNames[l]
	}
	return "?"
}

func (k FaultKind) String() string {
	if int(k) < len(faultNames) {
		return faultNames[k]
	}
	return "?"
}

// Fault describes a violation found during a transition or an invariant
// check: where it happened and a message for people.
type Fault struct {
	Kind   FaultKind
	Thread int32
	Method int32 // -1 when not at an instruction
	PC     int32
	Class  int32 // the exception's class, or -1
	Limit  Limit // for FaultLimit, the limit reached
	Msg    string
}

// Trans names one transition of a state: a thread and, at a choice point
// (choose, notify), the value taken.
type Trans struct {
	Thread int32
	Choice int32
}

// op is a decoded instruction: its opcode, operands and flags. It is 32
// bytes (checked below), so that finding a thread's next instruction
// (next, several times a transition) scales the pc by a shift; it held
// the whole bytecode.Instr before, whose operands a and b repeat, and was
// 56 bytes, scaled by a multiplication.
type op struct {
	// atomic: strictly inside an atomic region (bytecode.Method.Atomic),
	// where a transition goes on through scheduling points
	atomic bool
	// into: a transition that starts here may run on inside an atomic
	// region or reach a ghost access, touching more than this
	// instruction (see initAtomic, initGhost)
	into bool
	// hidden: an access to a ghost field or static, or a read of a final
	// field: not a scheduling point (bytecode.Program.Hidden)
	hidden bool
	_      [5]byte // padding: at 32 bytes the pc is scaled by a shift
	a, b   int64
	op     bytecode.Opcode
	sched  bool // a scheduling point whatever the frame
	ret    bool // a return: a scheduling point when it ends the thread
	local  bool // with Options.Escape: not a scheduling point when its object is thread-local
	back   bool // a branch to an earlier or the same pc
	pure   bool // allowed in invariant evaluation
	gate   bool // enabledAt or choicesAt look at it: else always enabled, with one choice
	// choosy: choicesAt looks at it (choose, chooseb, notify): else one
	// choice
	choosy bool
}

var _ [0]struct{} = [unsafe.Sizeof(op{}) - 32]struct{}{}

// Machine runs a program: it holds the active state and executes
// transitions on it. It is not safe for concurrent use.
type Machine struct {
	prog       *bytecode.Program
	layout     *heap.Layout
	opts       Options
	code       [][]op
	keepable   [][]bool    // per method, per pc: a transition from there may be kept (keptahead.go)
	kept       []keptTrans // keptWays per thread (keptahead.go)
	vtab       [][]int32   // per method, per class: target of invokevirtual, -1 if none
	sub        []bool      // sub[c*nclasses+d]: c is d or a subclass of d
	nclasses   int
	staticRef  []bool
	refStatics []int
	syncVirt   []bool    // per method: some override reachable by invokevirtual is synchronized
	syncMethod []bool    // per method: synchronized
	refSlots   [][]int32 // per class: its reference slots
	rethrows   [][]bool  // per method, per handler: a catch or filter handler block holding a rethrow
	// With Options.DeadLocals, per method (nil: every local live), per
	// instruction: the locals live before it and after it (initDead).
	liveIn, liveOut [][]uint64

	S    State
	pool []*Thread
	// clock orders changes to threads and snapshots: a thread whose stamp
	// is at least a snapshot's clock may differ from its copy there.
	clock uint64
	snap  snapshots // the shadow and spares of snapshots (snapshot.go)

	fault    Fault
	faulted  bool
	choice   int32
	scratch  Thread
	evalVal  Value
	evaling  bool
	numBuf   []byte
	executed int // instructions executed by the last Step

	// resume says, after a helper of an executor threw (or faulted), whether
	// the transition goes on: true when a handler caught the exception.
	resume bool

	// enc encodes the state, fingerprints it and collects its garbage.
	enc encoder

	// version changes whenever the active state may have changed: what
	// is computed from a state (escape analysis, the thread keys of
	// symmetry) holds while the version it was computed at is current.
	version uint64
	back    bool   // the last Step jumped backwards (see BackJump)
	esc     escape // escape analysis (escape.go)

	// What the invariants can read (see invReads): the fields by index,
	// the statics, and array elements; invDirty is set by a write to one
	// of them and by a state replaced (Init, Restore, Decode), and
	// cleared when the invariants are checked (see InvariantsChanged).
	invField, invStatic []bool
	invArrays, invDirty bool

	sym symmetry // thread symmetry (symmetry.go)
	// symOrd is encodeWhole's scratch: the threads in a given order.
	symOrd []*Thread
	// spin looks for a thread-local cycle in a long transition (spin.go).
	spin spin
	// initErr is what went wrong running the setup methods (Init).
	initErr error
	// hasEnds: some method has valid end states (Alive looks for them).
	hasEnds bool
	// leaks: a thread may end holding a monitor (the program has a
	// monitorenter; a synchronized method's return releases its own) and
	// that is an error (not Program.AllowLeak): leaked looks.
	leaks bool
}

// New prepares a machine for a verified program p (as returned by
// asm.Assemble or bytecode.Decode) and sets its initial state.
func New(p *bytecode.Program, opts Options) (*Machine, error) {
	if err := bytecode.Verify(p); err != nil {
		return nil, err
	}
	if err := opts.limits(); err != nil {
		return nil, err
	}
	m := &Machine{prog: p, layout: heap.NewLayout(p), opts: opts, nclasses: len(p.Classes)}
	nc := m.nclasses
	m.sub = make([]bool, nc*nc)
	for c := 0; c < nc; c++ {
		for d := 0; d < nc; d++ {
			m.sub[c*nc+d] = p.IsSubclass(int32(c), int32(d))
		}
	}
	m.staticRef = make([]bool, len(p.Statics))
	for i := range p.Statics {
		if p.Statics[i].Kind == bytecode.KindRef {
			m.staticRef[i] = true
			m.refStatics = append(m.refStatics, i)
		}
	}
	m.refSlots = make([][]int32, nc)
	for c := range m.refSlots {
		for j := 0; j < m.layout.Slots(int32(c)); j++ {
			if m.layout.IsRef(int32(c), j) {
				m.refSlots[c] = append(m.refSlots[c], int32(j))
			}
		}
	}
	m.syncMethod = make([]bool, len(p.Methods))
	for mi := range p.Methods {
		m.syncMethod[mi] = p.Methods[mi].Sync()
	}
	m.enc.init(m)
	m.vtab = make([][]int32, len(p.Methods))
	m.syncVirt = make([]bool, len(p.Methods))
	for mi := range p.Methods {
		mm := &p.Methods[mi]
		if mm.Static() {
			continue
		}
		m.vtab[mi] = make([]int32, nc)
		for c := 0; c < nc; c++ {
			m.vtab[mi][c] = -1
			if m.sub[c*nc+int(mm.Class)] {
				t := p.FindMethod(int32(c), mm.Name)
				m.vtab[mi][c] = t
				if t >= 0 && p.Methods[t].Sync() {
					m.syncVirt[mi] = true
				}
			}
		}
	}
	m.rethrows = make([][]bool, len(p.Methods))
	for mi := range p.Methods {
		mm := &p.Methods[mi]
		m.rethrows[mi] = make([]bool, len(mm.Handlers))
		for hi, h := range mm.Handlers {
			for pc := h.Target; h.Takes() && pc < h.HandlerEnd; pc++ {
				if mm.Code[pc].Op == bytecode.OpRethrow {
					m.rethrows[mi][hi] = true
				}
			}
		}
	}
	m.sym = symmetry{layout: m.layout, refStatics: m.refStatics}
	m.esc = escape{refStatics: m.refStatics, refSlots: m.refSlots, slotField: slotFields(p, m.layout, m.sub)}
	m.code = make([][]op, len(p.Methods))
	for mi := range p.Methods {
		m.code[mi] = m.decode(int32(mi))
	}
	m.initAtomic()
	m.initGhost()
	for mi := range p.Methods {
		m.hasEnds = m.hasEnds || len(p.Methods[mi].Ends) > 0
		for _, in := range p.Methods[mi].Code {
			m.leaks = m.leaks || in.Op == bytecode.OpMonitorenter && !p.AllowLeak
		}
	}
	m.keepable = make([][]bool, len(p.Methods))
	for mi := range p.Methods {
		m.keepable[mi] = m.keepFrom(m.code[mi])
	}
	m.invReads()
	m.initDead()
	m.Init()
	if m.initErr != nil {
		return nil, m.initErr
	}
	return m, nil
}

// Program returns the machine's program.
func (m *Machine) Program() *bytecode.Program { return m.prog }

// Options returns the machine's options.
func (m *Machine) Options() Options { return m.opts }

// ErrSetup is wrapped by the errors of New for a program whose setup
// methods (or the threads they start, before their first scheduling
// point) block, choose, loop or fault: there is no initial state.
var ErrSetup = errors.New("vm: the setup methods do not make an initial state")

// Init sets the initial state: statics at their initial values, thread
// 0 about to run the entry method (if the program has one), and then the
// threads the setup methods start (see setup).
func (m *Machine) Init() {
	m.replaced()
	m.clock++
	m.version++
	m.invDirty = true
	p := m.prog
	s := &m.S
	s.Heap.Reset()
	s.Statics = s.Statics[:0]
	for i := range p.Statics {
		s.Statics = append(s.Statics, p.Statics[i].Init)
	}
	s.Threads = s.Threads[:0]
	if p.Entry >= 0 {
		t := m.newThread(p.Entry)
		for i := int32(0); i < p.Methods[p.Entry].Locals; i++ {
			t.push(Value{})
		}
		t.Status = StatusRunnable
		if m.liveIn != nil {
			m.zeroDead(t)
		}
	}
	if len(p.Setup) > 0 {
		m.initErr = m.setup()
	}
}

// setup runs the setup methods, each to its end in a thread of its own
// that is then removed (its Thread object freed, the threads created after
// it renumbered), and runs each thread they started up to its first
// scheduling point: the threads exist and wait at their first shared
// access in the initial state, as Promela's active processes do, and
// neither the setup nor their thread-local beginnings are transitions.
// A setup method may allocate, write and start threads; one that blocks,
// chooses, faults or ends holding a monitor is an error of the program.
func (m *Machine) setup() error {
	p := m.prog
	s := &m.S
	first := int32(len(s.Threads))
	for _, si := range p.Setup {
		k := int32(len(s.Threads))
		t := m.newThread(si)
		for i := int32(0); i < p.Methods[si].Locals; i++ {
			t.push(Value{})
		}
		t.Status = StatusRunnable
		for n := int64(0); t.Status == StatusRunnable; n++ {
			o := m.next(t)
			where := p.PosString(p.InstrPos(t.top().Method, t.top().PC))
			if n == m.opts.MaxInvariantSteps || o.choosy || o.gate && !m.enabledAt(t, o) {
				return fmt.Errorf("%w: %s: setup method %s blocks, chooses or loops here: a setup method must run straight to its end", ErrSetup, where, p.MethodName(si))
			}
			m.faulted = false
			if !m.exec(t, o) && m.faulted {
				return fmt.Errorf("%w: %s: setup method %s: %s", ErrSetup, where, p.MethodName(si), m.fault.Msg)
			}
		}
		if t.Status != StatusTerminated {
			return fmt.Errorf("%w: setup method %s waits: a setup method must run straight to its end", ErrSetup, p.MethodName(si))
		}
		s.Heap.Free(t.Obj)
		n := len(s.Threads)
		copy(s.Threads[k:], s.Threads[k+1:])
		s.Threads = s.Threads[:n-1]
		copy(m.pool[k:n], m.pool[k+1:n])
		m.pool[n-1] = t
		for _, u := range s.Threads[k:] {
			u.ID--
			s.Heap.Slots(u.Obj)[0] = int64(u.ID)
			m.stamp(u)
		}
	}
	for _, t := range s.Threads[first:] {
		for n := 0; t.Status == StatusRunnable && n < MaxLocalSteps; n++ {
			o := m.next(t)
			if m.ends(t, o) || o.gate && !m.enabledAt(t, o) {
				break
			}
			where := p.PosString(p.InstrPos(t.top().Method, t.top().PC))
			m.faulted = false
			if !m.exec(t, o) && m.faulted {
				return fmt.Errorf("%w: %s: thread %d, started by a setup method, faults before its first scheduling point: %s", ErrSetup, where, t.ID, m.fault.Msg)
			}
		}
		if m.liveIn != nil {
			m.zeroDead(t)
		}
	}
	m.faulted = false
	m.replaced()
	m.version++
	return nil
}

// newThread creates a thread in status new with a frame for static method
// mi whose arguments the caller pushes onto t.Stack.
func (m *Machine) newThread(mi int32) *Thread {
	s := &m.S
	t := m.thread(int32(len(s.Threads)))
	t.Obj = s.Heap.New(m.layout, bytecode.ClassThread)
	m.allocatedInc()
	s.Heap.Slots(t.Obj)[0] = int64(t.ID)
	t.Frames = append(t.Frames, Frame{Method: mi})
	return t
}

// decode turns a method's instructions into executors, once.
func (m *Machine) decode(mi int32) []op {
	p := m.prog
	meth := &p.Methods[mi]
	ops := make([]op, len(meth.Code))
	for pc, in := range meth.Code {
		o := &ops[pc]
		o.op = in.Op
		o.a, o.b = in.A, in.B
		fl := in.Op.Info().Flags
		o.sched = fl&bytecode.FlagSched != 0
		o.pure = fl&bytecode.FlagPure != 0
		o.gate = fl&(bytecode.FlagMayBlock|bytecode.FlagChoice) != 0
		o.choosy = fl&bytecode.FlagChoice != 0
		// An instruction that continues at a place known only at run time
		// may go to an earlier one (for BackJump).
		o.back = fl&bytecode.FlagRuntimeFlow != 0 || fl&bytecode.FlagBranch != 0 && in.A <= int64(pc)
		o.local = fl&bytecode.FlagLocal != 0 && m.opts.Escape && m.opts.Granularity == GranTransition
		o.ret = fl&bytecode.FlagReturn != 0
		// A return at a valid end state is the thread's last step only
		// if taken from a callee: as the thread's last, it stays there.
		o.gate = o.gate || o.ret && meth.IsEnd(int32(pc))
		switch {
		case in.Op == bytecode.OpInvokestatic:
			o.sched = p.Methods[in.A].Sync()
		case in.Op == bytecode.OpInvokevirtual:
			o.sched = m.syncVirt[in.A]
		case o.ret:
			o.sched = meth.Sync()
		case p.Hidden(in):
			o.sched, o.local, o.hidden = false, false, true
		}
		if m.opts.Granularity == GranInstruction {
			o.sched = true
		}
	}
	return ops
}

// next returns the op a thread executes next.
func (m *Machine) next(t *Thread) *op {
	f := t.top()
	return &m.code[f.Method][f.PC]
}

// lockable reports whether thread t could hold r's monitor now: it is free or
// t's already.
func (m *Machine) lockable(t *Thread, r heap.Ref) bool {
	if !m.S.Heap.Valid(r) {
		return true // the instruction will fault
	}
	o := m.S.Heap.Obj(r)
	return o.Owner == 0 || o.Owner == t.ID+1
}

// enabled reports whether thread t can take a transition now.
func (m *Machine) enabled(t *Thread) bool {
	switch t.Status {
	case StatusRunnable:
	case StatusNotified:
		return m.S.Heap.Obj(t.WaitObj).Owner == 0
	default:
		return false
	}
	return m.enabledAt(t, m.next(t))
}

// enabledAt is enabled for a runnable thread t whose next instruction is o.
// An instruction it looks at must be gated (op.gate, set in decode): Enabled
// takes the others as enabled without asking.
func (m *Machine) enabledAt(t *Thread, o *op) bool {
	if o.op == bytecode.OpMonitorenter {
		return m.canEnter(t)
	}
	return m.enabledOther(t, o)
}

// canEnter reports whether thread t, whose next instruction is a
// monitorenter, can take the monitor it names. (Small enough to be
// inlined into Enabled, where enabledAt is too large to be.)
func (m *Machine) canEnter(t *Thread) bool {
	v := t.Stack[len(t.Stack)-1]
	return !v.Ref || m.lockable(t, heap.Ref(v.I))
}

// enabledOther is enabledAt for the instructions other than monitorenter.
func (m *Machine) enabledOther(t *Thread, o *op) bool {
	switch o.op {
	case bytecode.OpReturn, bytecode.OpRetval:
		// (gated: at a valid end state, where a thread's last return is
		// never taken)
		return len(t.Frames) > 1
	case bytecode.OpJoin:
		v := t.Stack[len(t.Stack)-1]
		if u := m.threadOf(v); u != nil {
			return u.Status == StatusNew || u.Status == StatusTerminated
		}
	case bytecode.OpInvokevirtual, bytecode.OpInvokestatic:
		callee := m.callee(t, o)
		if callee >= 0 && m.prog.Methods[callee].Sync() {
			v := t.Stack[len(t.Stack)-int(m.prog.Methods[callee].Args)]
			return !v.Ref || m.lockable(t, heap.Ref(v.I))
		}
	}
	return true
}

// callee resolves the target of an invoke at the top of t, or -1.
func (m *Machine) callee(t *Thread, o *op) int32 {
	if o.op == bytecode.OpInvokestatic {
		return int32(o.a)
	}
	args := int(m.prog.Methods[o.a].Args)
	v := t.Stack[len(t.Stack)-args]
	if !v.Ref || !m.S.Heap.Valid(heap.Ref(v.I)) {
		return -1
	}
	obj := m.S.Heap.Obj(heap.Ref(v.I))
	if obj.Kind != heap.KindObject {
		return -1
	}
	return m.vtab[o.a][obj.Class]
}

// threadOf returns the thread whose Thread object v is, or nil.
func (m *Machine) threadOf(v Value) *Thread {
	r := heap.Ref(v.I)
	if !v.Ref || !m.S.Heap.Valid(r) {
		return nil
	}
	o := m.S.Heap.Obj(r)
	if o.Kind != heap.KindObject || o.Class != bytecode.ClassThread {
		return nil
	}
	id := m.S.Heap.Slots(r)[0]
	if id < 0 || id >= int64(len(m.S.Threads)) {
		return nil
	}
	return m.S.Threads[id]
}

// choicesAt returns how many transitions runnable thread t, whose next
// instruction is o, has.
// An instruction with more than one choice must be choosy (op.choosy, set
// in decode): Enabled takes the others as having one without asking.
func (m *Machine) choicesAt(t *Thread, o *op) int32 {
	switch o.op {
	case bytecode.OpChoose:
		return int32(o.a)
	case bytecode.OpChooseb:
		return 2
	case bytecode.OpNotify:
		r, ok := m.heldBy(t, t.Stack[len(t.Stack)-1])
		if !ok {
			return 1
		}
		if n := m.waiters(r); n > 1 {
			return n
		}
	}
	return 1
}

// waiters counts the threads waiting on r.
func (m *Machine) waiters(r heap.Ref) int32 {
	var n int32
	for _, u := range m.S.Threads {
		if u.Status == StatusWaiting && u.WaitObj == r {
			n++
		}
	}
	return n
}

// Enabled appends the transitions of the current state to buf: for each
// enabled thread in id order, one per choice value.
func (m *Machine) Enabled(buf []Trans) []Trans {
	for _, t := range m.S.Threads {
		switch t.Status {
		case StatusRunnable:
			// (enabled and choices, looking up the next instruction once)
			o := m.next(t)
			if !o.gate {
				// (Its own append: one test on this, the most frequent
				// way; merged with the one below, 0.2% more instructions.)
				buf = append(buf, Trans{Thread: t.ID})
				continue
			}
			if o.op == bytecode.OpMonitorenter {
				// (enabledAt's most frequent case, without its call.)
				if !m.canEnter(t) {
					continue
				}
			} else if !m.enabledOther(t, o) {
				continue
			}
			if !o.choosy {
				buf = append(buf, Trans{Thread: t.ID})
				continue
			}
			n := m.choicesAt(t, o)
			for c := int32(0); c < n; c++ {
				buf = append(buf, Trans{Thread: t.ID, Choice: c})
			}
		case StatusNotified:
			if m.enabled(t) {
				buf = append(buf, Trans{Thread: t.ID})
			}
		}
	}
	return buf
}

// Alive reports whether some started thread has not ended; with no
// transition enabled that is a deadlock.
// A thread at a valid end state (bytecode.Method.Ends) does not count:
// it may stay there forever, as at a SPIN end label.
func (m *Machine) Alive() bool {
	for _, t := range m.S.Threads {
		if t.Status != StatusNew && t.Status != StatusTerminated && !m.atEnd(t) {
			return true
		}
	}
	return false
}

// atEnd reports whether thread t is at a valid end state: its next
// instruction, or for a thread in wait its wait instruction, is one.
func (m *Machine) atEnd(t *Thread) bool {
	if !m.hasEnds || len(t.Frames) == 0 {
		return false
	}
	f := t.top()
	pc := f.PC
	if t.Status == StatusWaiting || t.Status == StatusNotified {
		pc--
	}
	return m.prog.Methods[f.Method].IsEnd(pc)
}

// leaked checks, as thread t ends (already terminated, its stack
// empty), that it holds no monitor of an object still shared: reachable
// from a static or from another thread that has not ended, so that some
// thread could still want it. One it holds is a fault (unless the
// program allows it, Program.AllowLeak) naming the class of the
// monitor's object (not the object: its number depends on the
// collector). A
// monitor of an object nothing else reaches cannot block anyone: it is
// not a leak (and the canonical state does not hold unreachable objects,
// so a check that counted it would depend on when garbage is collected).
func (m *Machine) leaked(t *Thread) {
	if !m.leaks || m.evaling || t.ID < 0 {
		return
	}
	h := &m.S.Heap
	held := false
	for i := range h.Objs {
		if o := &h.Objs[i]; o.Owner == t.ID+1 && o.Kind != heap.KindFree {
			held = true
			break
		}
	}
	if !held {
		return
	}
	m.version++ // t has ended: the owners below leave it out
	m.esc.owners(&m.S, m.version)
	for r := heap.Ref(1); int(r) <= h.Len() && int(r) <= len(m.esc.owner); r++ {
		if o := h.Obj(r); o.Kind != heap.KindFree && o.Owner == t.ID+1 && m.esc.owner[r-1] != 0 {
			m.setFault(t, FaultException, bytecode.ClassIllegalMonitorState,
				"thread "+itoa(int64(t.ID))+" ended holding the monitor of a "+m.objName(r)+" that other threads can reach; declare .allowleak if that is meant")
			return
		}
	}
}

// Where returns the method and pc thread tid executes next (-1, -1 if it
// has no frame).
func (m *Machine) Where(tid int32) (method, pc int32) {
	if tid < 0 || int(tid) >= len(m.S.Threads) {
		return -1, -1
	}
	t := m.S.Threads[tid]
	if len(t.Frames) == 0 {
		return -1, -1
	}
	f := t.top()
	return f.Method, f.PC
}

// Executed returns the number of instructions the last Step executed.
func (m *Machine) Executed() int { return m.executed }

// Step executes transition tr, which must be one Enabled returned for the
// current state. It returns the fault the transition ran into, or nil.
func (m *Machine) Step(tr Trans) *Fault {
	if m.liveIn == nil {
		return m.step(tr)
	}
	n := len(m.S.Threads)
	f := m.step(tr)
	// Only the thread that ran, and threads it created, changed.
	m.zeroDead(m.S.Threads[tr.Thread])
	for _, t := range m.S.Threads[n:] {
		m.zeroDead(t)
	}
	return f
}

// step is Step without dead variable reduction.
func (m *Machine) step(tr Trans) *Fault {
	t := m.S.Threads[tr.Thread]
	m.stamp(t)
	m.version++
	m.back = false
	m.faulted = false
	m.choice = tr.Choice
	m.executed = 0
	if t.Status == StatusNotified {
		o := m.S.Heap.Obj(t.WaitObj)
		o.Owner, o.Count = t.ID+1, t.WaitCount
		m.wrote(t.WaitObj)
		t.Status, t.WaitObj, t.WaitCount = StatusRunnable, 0, 0
		if m.opts.Granularity == GranInstruction {
			return nil
		}
	} else {
		o := m.next(t)
		m.executed++
		m.back = o.back
		if !m.exec(t, o) {
			return m.result()
		}
	}
	n := 1
	for ; n < spinAfter; n++ {
		if t.Status != StatusRunnable {
			break
		}
		o := m.next(t)
		if m.ends(t, o) {
			break
		}
		m.executed++
		if o.back {
			m.back = true
		}
		if !m.exec(t, o) {
			break
		}
	}
	if n == spinAfter {
		// A long transition (the loop above ran to its end): it goes on
		// looking for a cycle (spin.go).
		return m.stepLong(t)
	}
	return m.result()
}

// ends reports whether o, thread t's next instruction, ends the
// transition: a scheduling point (or the thread's last return) that
// escape analysis does not make local.
func (m *Machine) ends(t *Thread, o *op) bool {
	return (o.sched || (o.ret && len(t.Frames) == 1)) && (!o.local || !m.localOp(t, o))
}

// initAtomic marks the instructions strictly inside atomic regions
// (op.atomic) and makes them not end a transition, except where the
// thread blocks in the region (it loses atomicity until it runs again, as
// in SPIN: a gated instruction is made local, which localOp grants while
// it is enabled) and at a choice point (a transition takes one choice, at
// its first instruction); a thread's last return inside a region ends it
// within the transition. It also marks the instructions whose transitions may run on into one (op.into):
// every instruction of a method with a region or of a method such a
// method may call, the returns and calls of every method (a return may
// go back into a region), and all of them when an exception handler
// starts in a region. Their footprints are FootAny, so that the
// reductions take the whole transition as dependent on everything.
func (m *Machine) initAtomic() {
	p := m.prog
	into := make([]bool, len(p.Methods))
	var work []int32
	all := false
	for mi := range p.Methods {
		mm := &p.Methods[mi]
		if len(mm.Atomic) == 0 {
			continue
		}
		into[mi] = true
		work = append(work, int32(mi))
		for _, h := range mm.Handlers {
			for _, r := range mm.Atomic {
				all = all || h.Target >= r.Start && h.Target < r.End
			}
		}
	}
	if len(work) == 0 {
		return
	}
	for len(work) > 0 {
		mi := work[len(work)-1]
		work = work[:len(work)-1]
		for _, in := range p.Methods[mi].Code {
			var callees []int32
			switch in.Op {
			case bytecode.OpInvokestatic:
				callees = []int32{int32(in.A)}
			case bytecode.OpInvokevirtual:
				callees = append([]int32{int32(in.A)}, m.vtab[in.A]...)
			}
			for _, c := range callees {
				if c >= 0 && !into[c] {
					into[c] = true
					work = append(work, c)
				}
			}
		}
	}
	for mi := range p.Methods {
		mm := &p.Methods[mi]
		for pc := range m.code[mi] {
			o := &m.code[mi][pc]
			o.atomic = mm.InAtomic(int32(pc))
			o.into = all || into[mi] || o.ret || o.op == bytecode.OpInvokestatic || o.op == bytecode.OpInvokevirtual
			switch {
			case !o.atomic || o.choosy:
			case o.gate:
				o.local = true
			default:
				o.sched, o.ret, o.local = false, false, false
			}
		}
	}
}

// initGhost marks (op.into) the instructions from which a transition
// may read or write a ghost field or static before it ends: those
// accesses are not scheduling points, so they run inside transitions
// that begin elsewhere, and a transition that touches ghost state
// depends on other threads' accesses to it (two writes of one ghost, or
// a write and an assertion reading it, in either order reach different
// states or verdicts) and may change what an invariant reads. With
// footprint FootAny the reductions take such a transition as dependent
// on everything, as they do for atomic regions. An instruction is marked
// when it touches a ghost or some instruction a transition may go on to
// from it does: its successors that do not end a transition, the entry
// of the methods it calls, for a return every instruction after a call,
// and for every instruction every exception handler (it may throw).
// With Options.Escape, such an instruction is not merged into the
// transition before it (op.local is cleared): a transition's boundaries
// are where other threads may observe its ghost accesses in between, and
// those must not move with the reduction chosen.
func (m *Machine) initGhost() {
	p := m.prog
	touches := false
	for mi := range p.Methods {
		for _, in := range p.Methods[mi].Code {
			touches = touches || p.Ghostly(in)
		}
	}
	if !touches {
		return
	}
	body := make([][]bool, len(p.Methods))
	for mi := range p.Methods {
		body[mi] = make([]bool, len(p.Methods[mi].Code))
	}
	// cont: a transition that reaches pc of mi after its first
	// instruction may run it and touch a ghost from there.
	cont := func(mi int32, pc int64) bool {
		if pc < 0 || pc >= int64(len(body[mi])) {
			return false
		}
		o := &m.code[mi][pc]
		return body[mi][pc] && (!o.sched || o.local)
	}
	for changed := true; changed; {
		changed = false
		ret, exc := false, false
		for mi := range p.Methods {
			mm := &p.Methods[mi]
			for pc, in := range mm.Code {
				if in.Op.Is(bytecode.FlagCall) && cont(int32(mi), int64(pc)+1) {
					ret = true
				}
			}
			for _, h := range mm.Handlers {
				exc = exc || cont(int32(mi), int64(h.Target)) || h.Kind == bytecode.HandlerFilter && cont(int32(mi), int64(h.Filter))
			}
		}
		for mi := range p.Methods {
			mm := &p.Methods[mi]
			for pc := len(mm.Code) - 1; pc >= 0; pc-- {
				if body[mi][pc] {
					continue
				}
				in := mm.Code[pc]
				fl := in.Op.Info().Flags
				b := p.Ghostly(in) || exc || fl&bytecode.FlagRuntimeFlow != 0 ||
					fl&bytecode.FlagReturn != 0 && ret ||
					fl&bytecode.FlagNoNext == 0 && cont(int32(mi), int64(pc)+1) ||
					fl&bytecode.FlagBranch != 0 && cont(int32(mi), in.A)
				switch in.Op {
				case bytecode.OpInvokestatic:
					b = b || cont(int32(in.A), 0)
				case bytecode.OpInvokevirtual:
					b = b || cont(int32(in.A), 0)
					for _, c := range m.vtab[in.A] {
						b = b || c >= 0 && cont(c, 0)
					}
				}
				if b {
					body[mi][pc], changed = true, true
				}
			}
		}
	}
	for mi := range p.Methods {
		for pc := range m.code[mi] {
			o := &m.code[mi][pc]
			o.into = o.into || body[mi][pc]
			if o.local && !o.atomic && body[mi][pc] {
				// Escape analysis would join this access, and the ghost
				// accesses after it, to the transition before it, whose
				// own ghost accesses other threads' could come between.
				o.local = false
			}
		}
	}
}

// exec runs one instruction: the one place executors are called from.
func (m *Machine) exec(t *Thread, o *op) bool {
	return execSwitch(m, t, o)
}

func (m *Machine) result() *Fault {
	if m.faulted {
		return &m.fault
	}
	return nil
}

// setFault records a fault at thread t's current instruction.
func (m *Machine) setFault(t *Thread, kind FaultKind, class int32, msg string) {
	meth, pc := int32(-1), int32(-1)
	if len(t.Frames) > 0 {
		f := t.top()
		meth, pc = f.Method, f.PC
	}
	m.fault = Fault{Kind: kind, Thread: t.ID, Method: meth, PC: pc, Class: class, Msg: msg}
	m.faulted = true
	m.resume = false
}

// limits puts the defaults in place of the limits left zero and checks
// the others.
func (o *Options) limits() error {
	for _, l := range []struct {
		v        *int
		def, max int
		name     string
	}{{&o.MaxThreads, MaxThreads, MaxThreadsLimit, "MaxThreads"}, {&o.MaxObjects, MaxObjects, MaxObjectsLimit, "MaxObjects"},
		{&o.MaxSlots, MaxSlots, MaxSlotsLimit, "MaxSlots"}} {
		if *l.v == 0 {
			*l.v = l.def
		}
		if *l.v < 1 || *l.v > l.max {
			return fmt.Errorf("vm: %s %d out of range 1 to %d", l.name, *l.v, l.max)
		}
	}
	if o.MaxInvariantSteps == 0 {
		o.MaxInvariantSteps = MaxInvariantSteps
	}
	if o.MaxInvariantSteps < 1 {
		return fmt.Errorf("vm: MaxInvariantSteps %d must be positive", o.MaxInvariantSteps)
	}
	return nil
}

// limitFault records that thread t reached limit l: a fault of kind
// FaultLimit, not of the program.
func (m *Machine) limitFault(t *Thread, l Limit, format string, args ...any) bool {
	m.setFault(t, FaultLimit, -1, fmt.Sprintf(format, args...))
	m.fault.Limit = l
	return false
}

// typeError records a fault for a value of the wrong kind: the program is
// ill-typed there (the assembler does not check value kinds).
func (m *Machine) typeError(t *Thread, format string, args ...any) bool {
	m.setFault(t, FaultException, -1, "type error: "+fmt.Sprintf(format, args...))
	return false
}

// CheckInvariants evaluates every invariant on the current state and
// returns the first violation, or nil. Evaluation does not change the
// state: invariant methods may only read.
func (m *Machine) CheckInvariants() *Fault {
	m.invDirty = false
	for _, inv := range m.prog.Invariants {
		if f := m.evalInvariant(inv); f != nil {
			return f
		}
	}
	return nil
}

// InvariantsChanged reports whether the invariants may evaluate otherwise
// than when CheckInvariants last ran (or MarkInvariantsChecked was
// called): a transition since wrote a field, static or array element an
// invariant may read, or the state was replaced. A search can skip the
// check of a state reached from a checked one when it is false.
func (m *Machine) InvariantsChanged() bool { return m.invDirty }

// MarkInvariantsChecked tells the machine that its current state (just
// restored or decoded, say) is one whose invariants were checked.
func (m *Machine) MarkInvariantsChecked() { m.invDirty = false }

// InvariantReads returns what the invariants can read (see invReads):
// by index, the fields and statics, and whether array elements. The
// slices are the machine's: read them only.
func (m *Machine) InvariantReads() (field, static []bool, elems bool) {
	return m.invField, m.invStatic, m.invArrays
}

// invReads finds what the invariants can read: the fields, statics and
// array elements of the getfield, getstatic and arrload instructions of
// every method they can call (every override an invokevirtual may reach).
// Invariants execute only pure instructions (see evalInvariant), so
// nothing else in the state bears on their value.
func (m *Machine) invReads() {
	p := m.prog
	m.invField = make([]bool, len(p.Fields))
	m.invStatic = make([]bool, len(p.Statics))
	seen := make([]bool, len(p.Methods))
	work := append([]int32(nil), p.Invariants...)
	for len(work) > 0 {
		mi := work[len(work)-1]
		work = work[:len(work)-1]
		if mi < 0 || int(mi) >= len(p.Methods) || seen[mi] {
			continue
		}
		seen[mi] = true
		for _, in := range p.Methods[mi].Code {
			if info := in.Op.Info(); info.Flags&bytecode.FlagWrite == 0 {
				switch info.Access {
				case bytecode.AccessField:
					m.invField[in.A] = true
				case bytecode.AccessStatic:
					m.invStatic[in.A] = true
				case bytecode.AccessElem:
					m.invArrays = true
				}
			}
			switch in.Op {
			case bytecode.OpInvokestatic:
				work = append(work, int32(in.A))
			case bytecode.OpInvokevirtual:
				work = append(work, int32(in.A))
				for _, t := range m.vtab[in.A] {
					if t >= 0 {
						work = append(work, t)
					}
				}
			}
		}
	}
}

func (m *Machine) evalInvariant(mi int32) *Fault {
	t := &m.scratch
	t.ID, t.Status = -1, StatusRunnable
	t.Frames = append(t.Frames[:0], Frame{Method: mi})
	t.Stack = t.Stack[:0]
	for i := int32(0); i < m.prog.Methods[mi].Locals; i++ {
		t.push(Value{})
	}
	m.faulted = false
	m.evaling = true
	defer func() { m.evaling = false }()
	name := func() string { return m.prog.MethodName(mi) } // for messages only: it allocates
	for n := int64(0); ; n++ {
		if n == m.opts.MaxInvariantSteps {
			m.limitFault(t, LimitInvariantSteps, "invariant %s did not return within %d instructions", name(), n)
			return &m.fault
		}
		o := m.next(t)
		if !o.pure {
			m.setFault(t, FaultInvariant, -1, fmt.Sprintf("invariant %s executes %s, which is not allowed in an invariant (it must not change the state, block or choose)", name(), o.op))
			break
		}
		ok := m.exec(t, o)
		if t.Status == StatusTerminated && !m.faulted {
			if m.evalVal.Ref || m.evalVal.I == 0 {
				m.setFault(t, FaultInvariant, -1, "invariant "+name()+" violated")
				m.fault.Method, m.fault.PC = mi, -1
			}
			break
		}
		if !ok {
			break
		}
	}
	if !m.faulted {
		return nil
	}
	if m.fault.Kind == FaultLimit {
		m.fault.Msg = "invariant " + name() + ": " + m.fault.Msg
		return &m.fault
	}
	if !strings.HasPrefix(m.fault.Msg, "invariant ") {
		m.fault.Msg = "invariant " + name() + " failed: " + m.fault.Msg
	}
	m.fault.Kind = FaultInvariant
	return &m.fault
}

// Blocker describes why a thread cannot run: "" when it can run or has
// ended, otherwise e.g. "monitor held by thread 2", "joining thread 3" or
// "in wait on a Buffer, until notified".
func (m *Machine) Blocker(tid int32) string {
	t := m.S.Threads[tid]
	if t.Status == StatusWaiting {
		return "in wait on a " + m.objName(t.WaitObj) + ", until notified"
	}
	if (t.Status != StatusRunnable && t.Status != StatusNotified) || m.enabled(t) {
		return ""
	}
	var r heap.Ref
	if t.Status == StatusNotified {
		r = t.WaitObj
	} else {
		o := m.next(t)
		if o.ret {
			return "at its end (a valid end state)"
		}
		v := t.Stack[len(t.Stack)-1]
		switch o.op {
		case bytecode.OpJoin:
			if u := m.threadOf(v); u != nil {
				return "joining thread " + itoa(int64(u.ID))
			}
		case bytecode.OpInvokestatic, bytecode.OpInvokevirtual:
			callee := m.callee(t, o)
			v = t.Stack[len(t.Stack)-int(m.prog.Methods[callee].Args)]
		}
		r = heap.Ref(v.I)
	}
	if m.S.Heap.Valid(r) {
		if owner := m.S.Heap.Obj(r).Owner; owner > 0 {
			return "monitor held by thread " + itoa(int64(owner-1))
		}
	}
	return "blocked"
}

func itoa(x int64) string { return strconv.FormatInt(x, 10) }

// objName names the class of object r for people ("array" for arrays).
func (m *Machine) objName(r heap.Ref) string {
	if !m.S.Heap.Valid(r) {
		return "?"
	}
	return m.className(m.S.Heap.Obj(r).Class)
}

// WaitPC returns, for a thread in wait (waiting or notified), the pc of the
// wait instruction in its top frame, and -1 otherwise.
func (m *Machine) WaitPC(tid int32) int32 {
	t := m.S.Threads[tid]
	if (t.Status != StatusWaiting && t.Status != StatusNotified) || len(t.Frames) == 0 {
		return -1
	}
	return t.top().PC - 1
}

// joins reports whether program p has a join instruction. A program that
// joins threads typically has its main thread wait for the others while
// it keeps the objects they share; one that does not typically has it
// start them and return. The canonical encoding takes the threads'
// records in the order that keeps the numbering stable in each case (see
// incEnc.lastFirst).
func joins(p *bytecode.Program) bool {
	for mi := range p.Methods {
		for _, in := range p.Methods[mi].Code {
			if in.Op == bytecode.OpJoin {
				return true
			}
		}
	}
	return false
}
