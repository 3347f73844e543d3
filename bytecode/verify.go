// Verify: the structural checks that make any verified program safe to run.

package bytecode

import (
	"errors"
	"fmt"
)

// Limits on programs. They keep verification and execution bounded on
// untrusted input.
const (
	MaxLocals      = 1 << 16
	MaxStack       = 1 << 16
	MaxCode        = 1 << 20
	MaxChoose      = 1 << 16
	MaxClassSlots  = 1 << 16
	MaxHandlers    = 1 << 10 // exception table entries of one method
	maxErrorsShown = 20
)

// ErrInvalid is wrapped by every verification error.
var ErrInvalid = errors.New("invalid program")

// VerifyError is one problem found by Verify. Method and PC are -1 when the
// problem is not in code; Handler is the index of the exception table
// entry of Method the problem is about, or -1.
type VerifyError struct {
	Method  int32
	PC      int32
	Handler int32
	Msg     string
}

func (e *VerifyError) Error() string { return e.Msg }

// VerifyErrors is the list of problems found by Verify.
type VerifyErrors []*VerifyError

func (l VerifyErrors) Error() string {
	if len(l) == 0 {
		return "no errors"
	}
	s := l[0].Error()
	if len(l) > 1 {
		s += fmt.Sprintf(" (and %d more errors)", len(l)-1)
	}
	return s
}

func (l VerifyErrors) Unwrap() error { return ErrInvalid }

type verifier struct {
	p    *Program
	errs VerifyErrors
	// budget bounds the values the ghost and final checks keep (fits).
	budget int
}

func (v *verifier) errorf(m, pc int32, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if m >= 0 {
		where := v.p.MethodName(m)
		if pc >= 0 {
			where += fmt.Sprintf(" pc %d", pc)
		}
		msg = where + ": " + msg
	}
	v.errs = append(v.errs, &VerifyError{Method: m, PC: pc, Handler: -1, Msg: msg})
}

// handlerErrorf records a problem with exception table entry h of method m.
func (v *verifier) handlerErrorf(m, h int32, format string, args ...any) {
	v.errs = append(v.errs, &VerifyError{Method: m, PC: -1, Handler: h,
		Msg: fmt.Sprintf("%s: %s handler %d: ", v.p.MethodName(m), v.p.Methods[m].Handlers[h].Kind, h) + fmt.Sprintf(format, args...)})
}

// Verify checks that p is well formed: built-in classes in place, an acyclic
// class hierarchy, every operand in range, consistent operand-stack depths at
// every join and handler, no fall-through past the end of a method, ghost
// and final members used as their rules say (members.go), and a valid
// entry point and invariants. It links p (field slots) and computes
// each method's MaxStack. A program that verifies can be run by the VM
// without any index going out of range. The returned error, if any, is a
// VerifyErrors.
func Verify(p *Program) error {
	v := &verifier{p: p}
	v.classes()
	if len(v.errs) > 0 {
		return v.errs
	}
	v.link()
	v.members()
	v.memberFlagErrors()
	if len(v.errs) == 0 {
		for i := range p.Methods {
			v.code(int32(i))
		}
	}
	if len(v.errs) == 0 {
		for i := range p.Methods {
			v.regions(int32(i))
		}
	}
	if len(v.errs) == 0 {
		for i := range p.Methods {
			v.model(int32(i))
		}
	}
	if len(v.errs) == 0 && p.Qualified() {
		v.qualified()
	}
	if len(v.errs) == 0 {
		v.entry()
	}
	if len(v.errs) > 0 {
		return v.errs
	}
	return nil
}

func (v *verifier) classes() {
	p := v.p
	if len(p.Classes) < int(NumBuiltins) {
		v.errorf(-1, -1, "program lacks the built-in classes")
		return
	}
	for i, b := range Builtins {
		c := &p.Classes[i]
		if c.Name != b.Name || c.Super != b.Super {
			v.errorf(-1, -1, "class %d must be the built-in class %s", i, b.Name)
		}
		// Built-in classes have no fields but Thread's id (the VM relies on
		// Thread objects holding no references).
		want := 0
		if int32(i) == ClassThread {
			want = 1
		}
		if len(c.Fields) != want || (want == 1 && (c.Fields[0] != 0 || len(p.Fields) == 0 ||
			p.Fields[0].Name != ThreadIDField || p.Fields[0].Kind != KindInt)) {
			v.errorf(-1, -1, "built-in class %s has the wrong fields", b.Name)
		}
	}
	names := make(map[string]bool, len(p.Classes))
	for i := range p.Classes {
		c := &p.Classes[i]
		if names[c.Name] {
			v.errorf(-1, -1, "class %q declared twice", c.Name)
		}
		names[c.Name] = true
		if i > 0 && (c.Super < 0 || int(c.Super) >= len(p.Classes)) {
			v.errorf(-1, -1, "class %q has an invalid superclass %d", c.Name, c.Super)
			continue
		}
		// Walk up: an acyclic chain reaches Object within len(Classes) steps.
		s, n := int32(i), 0
		for s > 0 && n <= len(p.Classes) {
			s = p.Classes[s].Super
			n++
			if s < 0 || int(s) >= len(p.Classes) {
				break
			}
		}
		if s != 0 && i > 0 {
			v.errorf(-1, -1, "class %q: cyclic inheritance", c.Name)
		}
		for _, f := range c.Fields {
			if f < 0 || int(f) >= len(p.Fields) || p.Fields[f].Class != int32(i) {
				v.errorf(-1, -1, "class %q lists an invalid field %d", c.Name, f)
			}
		}
	}
	for i := range p.Fields {
		f := &p.Fields[i]
		if f.Class < 0 || int(f.Class) >= len(p.Classes) {
			v.errorf(-1, -1, "field %q has an invalid class", f.Name)
			continue
		}
		n := 0
		for _, g := range p.Classes[f.Class].Fields {
			if g == int32(i) {
				n++
			}
		}
		if n != 1 {
			v.errorf(-1, -1, "field %s must be listed once by its class", p.FieldName(int32(i)))
		}
		if f.Kind > KindRef {
			v.errorf(-1, -1, "field %s has an invalid kind", p.FieldName(int32(i)))
		}
	}
}

// link assigns field slots: inherited slots first, in declaration order.
func (v *verifier) link() {
	p := v.p
	done := make([]bool, len(p.Classes))
	var visit func(c int32)
	visit = func(c int32) {
		if done[c] {
			return
		}
		var base int32
		if s := p.Classes[c].Super; s >= 0 {
			visit(s)
			base = p.Classes[s].Slots
		}
		for _, f := range p.Classes[c].Fields {
			p.Fields[f].Slot = base
			base++
		}
		p.Classes[c].Slots = base
		done[c] = true
	}
	for i := range p.Classes {
		visit(int32(i))
		if p.Classes[i].Slots > MaxClassSlots {
			v.errorf(-1, -1, "class %q has too many fields", p.Classes[i].Name)
		}
	}
}

func (v *verifier) members() {
	p := v.p
	for i := range p.Statics {
		s := &p.Statics[i]
		if s.Class < 0 || int(s.Class) >= len(p.Classes) {
			v.errorf(-1, -1, "static %q has an invalid class", s.Name)
		}
		if s.Kind > KindRef || (s.Kind == KindRef && s.Init != 0) {
			v.errorf(-1, -1, "static %q has an invalid kind or initial value", s.Name)
		}
	}
	for i := range p.Methods {
		m := &p.Methods[i]
		mi := int32(i)
		if m.Class < 0 || int(m.Class) >= len(p.Classes) {
			v.errorf(-1, -1, "method %q has an invalid class", m.Name)
			continue
		}
		if m.Flags&^(MethodStatic|MethodSync|MethodReturns) != 0 {
			v.errorf(mi, -1, "invalid method flags %#x", m.Flags)
		}
		minArgs := int32(0)
		if !m.Static() {
			minArgs = 1
		}
		if m.Static() && m.Sync() {
			v.errorf(mi, -1, "static synchronized methods are not supported: synchronize on an object held in a static field")
		}
		if m.Args < minArgs || m.Locals < m.Args || m.Locals > MaxLocals {
			v.errorf(mi, -1, "invalid argument or local count (args=%d locals=%d)", m.Args, m.Locals)
		}
		if len(m.Code) == 0 || len(m.Code) > MaxCode {
			v.errorf(mi, -1, "method has no code or too much code")
		}
		if len(m.Lines) != 0 && len(m.Lines) != len(m.Code) {
			v.errorf(mi, -1, "line table length %d differs from code length %d", len(m.Lines), len(m.Code))
		}
		if !m.Static() {
			for c := p.Classes[m.Class].Super; c >= 0; c = p.Classes[c].Super {
				if o := p.FindMethod(c, m.Name); o >= 0 {
					om := &p.Methods[o]
					if om.Static() || om.Args != m.Args || om.Returns() != m.Returns() {
						v.errorf(mi, -1, "overrides %s with a different signature", p.MethodName(o))
					}
					break
				}
			}
		}
		if len(m.Handlers) > MaxHandlers {
			v.errorf(mi, -1, "more than %d exception handlers", MaxHandlers)
			continue
		}
		n := int32(len(m.Code))
		for hi := range m.Handlers {
			h := &m.Handlers[hi]
			ok := h.Kind < numHandlerKinds && h.Start >= 0 && h.End > h.Start && h.End <= n &&
				h.Target >= 0 && h.Target < n
			switch {
			case !ok:
			case h.Kind == HandlerCatch:
				ok = h.Class >= -1 && int(h.Class) < len(p.Classes) && h.Filter == 0 &&
					(h.HandlerEnd == 0 || (h.HandlerEnd > h.Target && h.HandlerEnd <= n))
			default:
				ok = h.Class == -1 && h.HandlerEnd > h.Target && h.HandlerEnd <= n
				if h.Kind == HandlerFilter {
					ok = ok && h.Filter >= 0 && h.Filter < h.Target
				} else {
					ok = ok && h.Filter == 0
				}
			}
			if !ok {
				v.errorf(mi, -1, "invalid exception handler %+v", *h)
			}
		}
	}
}

// code checks operands and computes stack depths by a worklist over the
// control-flow graph.
func (v *verifier) code(mi int32) {
	p := v.p
	m := &p.Methods[mi]
	n := int32(len(m.Code))
	nerr := len(v.errs)
	for pc := int32(0); pc < n; pc++ {
		v.operand(mi, pc)
	}
	if len(v.errs) > nerr {
		return
	}
	depth := make([]int32, n)
	for i := range depth {
		depth[i] = -1
	}
	work := []int32{0}
	depth[0] = 0
	set := func(from, to, d int32) {
		if to < 0 || to >= n {
			v.errorf(mi, from, "control falls off the end of the method")
			return
		}
		if depth[to] < 0 {
			depth[to] = d
			work = append(work, to)
		} else if depth[to] != d {
			v.errorf(mi, to, "inconsistent stack depth at join: %d and %d", depth[to], d)
		}
	}
	entry := func(pc, want int32, what string) {
		if depth[pc] < 0 {
			depth[pc] = want
			work = append(work, pc)
		} else if depth[pc] != want {
			v.errorf(mi, pc, "%s reached with stack depth %d, want %d", what, depth[pc], want)
		}
	}
	for _, h := range m.Handlers {
		switch h.Kind {
		case HandlerFinally, HandlerFault:
			entry(h.Target, 0, "handler target")
		case HandlerFilter:
			entry(h.Filter, 1, "filter")
			entry(h.Target, 1, "handler target")
		default:
			entry(h.Target, 1, "handler target")
		}
	}
	var max int32
	for len(work) > 0 && len(v.errs) == nerr {
		pc := work[len(work)-1]
		work = work[:len(work)-1]
		in := m.Code[pc]
		a, b := StackEffect(p, in)
		pop, push := int32(a), int32(b)
		d := depth[pc]
		if d < pop {
			v.errorf(mi, pc, "%s needs %d stack values, has %d", in.Op, pop, d)
			return
		}
		d = d - pop + push
		if d > MaxStack {
			v.errorf(mi, pc, "operand stack too deep")
			return
		}
		if d > max {
			max = d
		}
		if depth[pc] > max {
			max = depth[pc]
		}
		info := in.Op.Info()
		if in.Op == OpLeave {
			set(pc, int32(in.A), 0) // leave empties the operand stack
		} else if info.Flags&FlagBranch != 0 {
			set(pc, int32(in.A), d)
		}
		if info.Flags&FlagNoNext == 0 {
			set(pc, pc+1, d)
		}
	}
	m.MaxStack = max
}

// StackEffect returns how many values in pops and pushes in program p: the
// opcode table's, and for a call or newthread its callee's arguments and
// result. The instruction's operands must be valid.
func StackEffect(p *Program, in Instr) (pop, push int) {
	info := in.Op.Info()
	pop, push = int(info.Pop), int(info.Push)
	if info.Flags&FlagVarStack != 0 {
		callee := &p.Methods[in.A]
		switch in.Op {
		case OpInvokestatic, OpInvokevirtual:
			pop = int(callee.Args)
			if callee.Returns() {
				push = 1
			}
		case OpNewthread:
			pop = int(callee.Args)
		}
	}
	return pop, push
}

func (v *verifier) operand(mi, pc int32) {
	p := v.p
	m := &p.Methods[mi]
	in := m.Code[pc]
	if !in.Op.Valid() {
		v.errorf(mi, pc, "invalid opcode %d", in.Op)
		return
	}
	info := in.Op.Info()
	inRange := func(x int64, n int) bool { return x >= 0 && x < int64(n) }
	if info.Operand != OperandLocInt && in.B != 0 {
		v.errorf(mi, pc, "%s: unused operand B is %d", in.Op, in.B)
	}
	switch info.Operand {
	case OperandNone:
		if in.A != 0 {
			v.errorf(mi, pc, "%s takes no operand", in.Op)
		}
	case OperandInt:
	case OperandLocal, OperandLocInt:
		if !inRange(in.A, int(m.Locals)) {
			v.errorf(mi, pc, "local %d out of range (method has %d locals)", in.A, m.Locals)
		}
	case OperandLabel:
		if !inRange(in.A, len(m.Code)) {
			v.errorf(mi, pc, "branch target %d out of range", in.A)
		}
	case OperandClass:
		if !inRange(in.A, len(p.Classes)) {
			v.errorf(mi, pc, "class %d out of range", in.A)
		} else if in.Op == OpNew && int32(in.A) == ClassThread {
			v.errorf(mi, pc, "new Thread is not allowed: use newthread")
		}
	case OperandField:
		if !inRange(in.A, len(p.Fields)) {
			v.errorf(mi, pc, "field %d out of range", in.A)
		}
	case OperandStatic:
		if !inRange(in.A, len(p.Statics)) {
			v.errorf(mi, pc, "static %d out of range", in.A)
		}
	case OperandMethod:
		if !inRange(in.A, len(p.Methods)) {
			v.errorf(mi, pc, "method %d out of range", in.A)
			return
		}
		callee := &p.Methods[in.A]
		switch {
		case in.Op == OpInvokevirtual && callee.Static():
			v.errorf(mi, pc, "invokevirtual of static method %s", p.MethodName(int32(in.A)))
		case in.Op != OpInvokevirtual && !callee.Static():
			v.errorf(mi, pc, "%s of instance method %s", in.Op, p.MethodName(int32(in.A)))
		}
	case OperandString:
		if !inRange(in.A, len(p.Strings)) {
			v.errorf(mi, pc, "string %d out of range", in.A)
		}
	case OperandCount:
		if in.A < 1 || in.A > MaxChoose {
			v.errorf(mi, pc, "%s count %d out of range 1..%d", in.Op, in.A, MaxChoose)
		}
	}
	switch in.Op {
	case OpReturn:
		if m.Returns() {
			v.errorf(mi, pc, "return in a method that returns a value (use retval)")
		}
	case OpRetval:
		if !m.Returns() {
			v.errorf(mi, pc, "retval in a void method (use return)")
		}
	}
}

// model checks a method's atomic regions and valid end states: in range,
// regions disjoint, and every region left by some path from each of its
// instructions (a region that never ends would be one endless transition).
func (v *verifier) model(mi int32) {
	m := &v.p.Methods[mi]
	n := int32(len(m.Code))
	for _, e := range m.Ends {
		if e < 0 || e >= n {
			v.errorf(mi, -1, "valid end state at pc %d out of range 0..%d", e, n-1)
		}
	}
	for i, r := range m.Atomic {
		if r.Start < 0 || r.Start >= r.End || r.End > n {
			v.errorf(mi, -1, "atomic region [%d, %d) out of range or empty", r.Start, r.End)
			return
		}
		for _, q := range m.Atomic[:i] {
			if r.Start < q.End && q.Start < r.End {
				v.errorf(mi, r.Start, "atomic regions [%d, %d) and [%d, %d) overlap", q.Start, q.End, r.Start, r.End)
				return
			}
		}
	}
	for _, r := range m.Atomic {
		// exits[pc-r.Start]: some path from pc leaves the region.
		exits := make([]bool, r.End-r.Start)
		for changed := true; changed; {
			changed = false
			for pc := r.End - 1; pc >= r.Start; pc-- {
				if exits[pc-r.Start] {
					continue
				}
				for _, s := range flowSucc(m, pc) {
					if s < 0 || s < r.Start || s >= r.End || exits[s-r.Start] {
						exits[pc-r.Start] = true
						changed = true
						break
					}
				}
			}
		}
		for pc := r.Start; pc < r.End; pc++ {
			if !exits[pc-r.Start] {
				v.errorf(mi, pc, "atomic region never ends: no path from here leaves it (an atomic block must end)")
				break
			}
		}
	}
}

// flowSucc returns the instructions that may follow pc in m; -1 stands
// for leaving the method (a return, a throw, an instruction continuing at
// a place known only at run time).
func flowSucc(m *Method, pc int32) []int32 {
	in := m.Code[pc]
	info := in.Op.Info()
	var out []int32
	if info.Flags&(FlagReturn|FlagRuntimeFlow) != 0 || in.Op == OpThrow {
		out = append(out, -1)
	}
	if info.Flags&FlagNoNext == 0 {
		out = append(out, pc+1)
	}
	if info.Flags&FlagBranch != 0 {
		out = append(out, int32(in.A))
	}
	for _, h := range m.Handlers {
		if h.Covers(pc) {
			out = append(out, h.Target)
		}
	}
	return out
}

func (v *verifier) entry() {
	p := v.p
	for _, s := range p.Setup {
		if s < 0 || int(s) >= len(p.Methods) {
			v.errorf(-1, -1, "setup method %d out of range", s)
		} else if m := &p.Methods[s]; !m.Static() || m.Args != 0 || m.Returns() {
			v.errorf(-1, -1, "setup method %s must be static, take no arguments and return no value", p.MethodName(s))
		}
	}
	if p.Entry == -1 && len(p.Setup) > 0 {
		// No main thread: the setup methods start the threads.
	} else if p.Entry < 0 || int(p.Entry) >= len(p.Methods) {
		v.errorf(-1, -1, "no entry method (declare a static method main with no arguments)")
	} else if m := &p.Methods[p.Entry]; !m.Static() || m.Args != 0 {
		v.errorf(-1, -1, "entry method %s must be static with no arguments", p.MethodName(p.Entry))
	}
	for _, inv := range p.Invariants {
		if inv < 0 || int(inv) >= len(p.Methods) {
			v.errorf(-1, -1, "invariant method %d out of range", inv)
			continue
		}
		if m := &p.Methods[inv]; !m.Static() || m.Args != 0 || !m.Returns() {
			v.errorf(-1, -1, "invariant %s must be static, take no arguments and return a value", p.MethodName(inv))
		}
	}
}
