// Ghost and final members: the checks that make their accesses
// invisible to other threads, so that they need not be scheduling points.

package bytecode

// memberFlagErrors checks each field's and static's MemberFlag: known
// bits, ghost members are ints, final applies to fields only and not with
// ghost, and the built-in Thread.id is plain.
func (v *verifier) memberFlagErrors() {
	p := v.p
	for i := range p.Fields {
		f := &p.Fields[i]
		switch {
		case f.Flags&^memberFlags != 0:
			v.errorf(-1, -1, "field %q has invalid flags %#x", f.Name, f.Flags)
		case f.Ghost() && f.Final():
			v.errorf(-1, -1, "field %q cannot be both ghost and final", f.Name)
		case f.Ghost() && f.Kind != KindInt:
			v.errorf(-1, -1, "ghost field %q must be an int (a ghost reference would keep objects reachable)", f.Name)
		case i == 0 && f.Flags != 0:
			v.errorf(-1, -1, "built-in field %q cannot be ghost or final", f.Name)
		}
	}
	for i := range p.Statics {
		s := &p.Statics[i]
		switch {
		case s.Flags&^MemberGhost != 0:
			v.errorf(-1, -1, "static %q has invalid flags %#x (only a ghost static can be declared; final applies to fields)", s.Name, s.Flags)
		case s.Ghost() && s.Kind != KindInt:
			v.errorf(-1, -1, "ghost static %q must be an int (a ghost reference would keep objects reachable)", s.Name)
		}
	}
}

// qualified checks the code of a program with ghost or final members:
// ghost values reach nothing but ghost state, assertions and invariants
// (ghostFlow), and final fields are written only as they are allocated
// (finalWrites).
func (v *verifier) qualified() {
	p := v.p
	exempt := v.threadless()
	code := 0
	for i := range p.Methods {
		code += len(p.Methods[i].Code)
	}
	v.budget = 1<<20 + 64*code
	for i := range p.Methods {
		v.ghostFlow(int32(i), exempt[i])
	}
	for i := range p.Methods {
		v.finalWrites(int32(i))
	}
}

// fits reports whether method mi's analysis, keeping cells values per
// instruction, stays within the verifier's budget (a small multiple of the
// program's code, so that verifying untrusted input allocates in
// proportion to it), and reports the method otherwise.
func (v *verifier) fits(mi int32, cells int, what string) bool {
	m := &v.p.Methods[mi]
	if n := len(m.Code); cells > 0 && n > v.budget/cells {
		v.errorf(mi, -1, "method too large for the %s check (%d instructions, %d values each): split it", what, n, cells)
		return false
	}
	return true
}

// threadless returns, per method, whether no thread can run it: it is
// not reachable from the entry method, a setup method or a thread's body
// (through calls, taking every instance method of the same name for an
// invokevirtual). Such a method, an invariant say, runs only to evaluate
// a property, so its result may be computed from ghost values.
func (v *verifier) threadless() []bool {
	p := v.p
	seen := make([]bool, len(p.Methods))
	work := append([]int32{p.Entry}, p.Setup...)
	for i := range p.Methods {
		for _, in := range p.Methods[i].Code {
			if in.Op == OpNewthread {
				work = append(work, int32(in.A))
			}
		}
	}
	for len(work) > 0 {
		mi := work[len(work)-1]
		work = work[:len(work)-1]
		if mi < 0 || int(mi) >= len(p.Methods) || seen[mi] {
			continue
		}
		seen[mi] = true
		for _, in := range p.Methods[mi].Code {
			switch in.Op {
			case OpInvokestatic:
				work = append(work, int32(in.A))
			case OpInvokevirtual:
				name := p.Methods[in.A].Name
				for j := range p.Methods {
					if !p.Methods[j].Static() && p.Methods[j].Name == name {
						work = append(work, int32(j))
					}
				}
			}
		}
	}
	for i := range seen {
		seen[i] = !seen[i]
	}
	return seen
}

// ghostFlow follows, through method mi's operand stack and locals, the
// values read from ghost fields and statics, and reports every use of one
// other than an assert, a store into a ghost field or static or a local,
// pop, dup, swap and arithmetic (whose result is a ghost value again), and,
// in a method no thread runs (an invariant), its result. Such a value then never
// decides what a thread does, what it writes to other state, or whether it
// faults (a division by it could throw), so no thread's behaviour depends
// on ghost state and ghost accesses commute with everything but each other
// and the properties. The stack is followed per instruction; a local that
// ever holds a ghost value counts as one throughout the method.
func (v *verifier) ghostFlow(mi int32, exempt bool) {
	p := v.p
	m := &p.Methods[mi]
	reads := false
	for _, in := range m.Code {
		if (in.Op == OpGetfield || in.Op == OpGetstatic) && p.Ghostly(in) {
			reads = true
			break
		}
	}
	if !reads {
		return
	}
	if !v.fits(mi, int(m.MaxStack)+1, "ghost value") {
		return
	}
	n := int32(len(m.Code))
	ghostLocal := make([]bool, m.Locals)
	errs := map[int32]string{}
	// st[pc]: which values on the stack before pc are ghost values;
	// nil where pc has not been reached.
	st := make([][]bool, n)
	var work []int32
	flow := func(to int32, s []bool) {
		if to < 0 || to >= n {
			return
		}
		if st[to] == nil {
			st[to] = append([]bool{}, s...)
			work = append(work, to)
			return
		}
		changed := false
		for i := range s {
			if i < len(st[to]) && s[i] && !st[to][i] {
				st[to][i], changed = true, true
			}
		}
		if changed {
			work = append(work, to)
		}
	}
	flow(0, []bool{})
	for _, h := range m.Handlers {
		switch h.Kind {
		case HandlerFinally, HandlerFault:
			flow(h.Target, []bool{})
		case HandlerFilter:
			flow(h.Filter, []bool{false})
			flow(h.Target, []bool{false})
		default:
			flow(h.Target, []bool{false})
		}
	}
	for len(work) > 0 {
		pc := work[len(work)-1]
		work = work[:len(work)-1]
		in := m.Code[pc]
		s := st[pc]
		pop, push := StackEffect(p, in)
		if pop > len(s) {
			continue // Verify reports it
		}
		args := s[len(s)-pop:]
		out := append([]bool{}, s[:len(s)-pop]...)
		any := false
		for _, g := range args {
			any = any || g
		}
		bad := func(msg string) {
			if _, ok := errs[pc]; !ok {
				errs[pc] = msg
			}
		}
		used := func() {
			if any {
				bad("ghost value used by " + in.Op.String() + ": a ghost value may only be asserted, stored in a ghost field, ghost static or local, or combined by arithmetic")
			}
		}
		results := false
		switch in.Op {
		case OpGetfield:
			if args[0] {
				bad("ghost value used as a reference by getfield")
			}
			results = p.Fields[in.A].Ghost()
		case OpGetstatic:
			results = p.Statics[in.A].Ghost()
		case OpPutfield:
			if args[0] {
				bad("ghost value used as a reference by putfield")
			} else if args[1] && !p.Fields[in.A].Ghost() {
				bad("ghost value stored in field " + p.FieldName(int32(in.A)) + ", which is not ghost")
			}
		case OpPutstatic:
			if args[0] && !p.Statics[in.A].Ghost() {
				bad("ghost value stored in static " + p.StaticName(int32(in.A)) + ", which is not ghost")
			}
		case OpDup:
			out = append(out, args[0], args[0])
			push = 0
		case OpSwap:
			out = append(out, args[1], args[0])
			push = 0
		case OpLoad:
			results = ghostLocal[in.A]
		case OpStore:
			if args[0] && !ghostLocal[in.A] {
				// Its loads, where reached, push ghost values now.
				ghostLocal[in.A] = true
				for q, qi := range m.Code {
					if qi.Op == OpLoad && qi.A == in.A && st[q] != nil {
						work = append(work, int32(q))
					}
				}
			}
		case OpPop, OpAssert, OpInc, OpNop, OpPush, OpPushNull:
		case OpDiv, OpRem:
			if args[1] {
				bad("division by a ghost value: whether it throws would depend on ghost state")
			}
			results = any
		case OpAdd, OpSub, OpMul, OpNeg, OpAnd, OpOr, OpXor, OpShl, OpShr, OpUshr,
			OpNot, OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
			results = any
		case OpRetval:
			if !exempt {
				used()
			}
		default:
			used()
		}
		for range push {
			out = append(out, results)
		}
		info := in.Op.Info()
		if in.Op == OpLeave {
			flow(int32(in.A), []bool{})
		} else if info.Flags&FlagBranch != 0 {
			flow(int32(in.A), out)
		}
		if info.Flags&FlagNoNext == 0 {
			flow(pc+1, out)
		}
	}
	for pc := int32(0); pc < n; pc++ {
		if msg, ok := errs[pc]; ok {
			v.errorf(mi, pc, "%s", msg)
		}
	}
}

// finalWrites checks method mi's writes of final fields: each writes an
// object the method allocated (new) and holds only in its own locals and
// operand stack, and each final field of it at most once. An object is
// published, and its final fields closed, once its reference is used
// other than by load, store, dup, swap, pop, a comparison, instanceof,
// checkcast, or as the object of getfield or putfield: stored anywhere,
// passed to a method or thread, returned, thrown, locked. Until then no
// other thread can reach it; after, nobody writes its final fields, so a
// read of one commutes with everything and is not a scheduling point.
// Methods with finally, fault or filter handlers, whose continuations
// the control flow does not show, may not write final fields.
func (v *verifier) finalWrites(mi int32) {
	p := v.p
	m := &p.Methods[mi]
	writes := false
	for _, in := range m.Code {
		if in.Op == OpPutfield && p.Fields[in.A].Final() {
			writes = true
			break
		}
	}
	if !writes {
		return
	}
	for _, h := range m.Handlers {
		if h.Kind != HandlerCatch {
			for pc, in := range m.Code {
				if in.Op == OpPutfield && p.Fields[in.A].Final() {
					v.errorf(mi, int32(pc), "final field %s written in a method with finally, fault or filter handlers", p.FieldName(int32(in.A)))
					return
				}
			}
		}
	}
	n := int32(len(m.Code))
	// Allocation sites: site[pc] numbers the new instructions; final
	// fields: fin[f] numbers them, -1 for the others.
	site := make([]int32, n)
	nsites := int32(0)
	for pc, in := range m.Code {
		site[pc] = -1
		if in.Op == OpNew {
			site[pc] = nsites
			nsites++
		}
	}
	fin := make([]int32, len(p.Fields))
	nfin := int32(0)
	for i := range p.Fields {
		fin[i] = -1
		if p.Fields[i].Final() {
			fin[i] = nfin
			nfin++
		}
	}
	if int64(nsites)*int64(nfin+1) > int64(v.budget) ||
		!v.fits(mi, int(m.MaxStack)+int(m.Locals)+int(nsites*(nfin+1))+1, "final field") {
		if int64(nsites)*int64(nfin+1) > int64(v.budget) {
			v.errorf(mi, -1, "method too large for the final field check (%d allocations, %d final fields): split it", nsites, nfin)
		}
		return
	}
	// abs is the abstract state before an instruction: for each stack
	// slot and local, the allocation site of the unpublished object it
	// holds (-1: anything else); per site, whether its object may be
	// published and which final fields may have been written.
	type abs struct {
		stack, locals []int32
		pub           []bool
		wrote         []bool // site*nfin + fin
	}
	clone := func(a *abs) *abs {
		return &abs{append([]int32{}, a.stack...), append([]int32{}, a.locals...),
			append([]bool{}, a.pub...), append([]bool{}, a.wrote...)}
	}
	st := make([]*abs, n)
	var work []int32
	join := func(to int32, a *abs) {
		if to < 0 || to >= n {
			return
		}
		b := st[to]
		if b == nil {
			st[to] = clone(a)
			work = append(work, to)
			return
		}
		changed := false
		merge := func(x, y []int32) {
			for i := range x {
				if i < len(y) && x[i] != y[i] && x[i] != -1 {
					x[i], changed = -1, true
				}
			}
		}
		merge(b.stack, a.stack)
		merge(b.locals, a.locals)
		for _, pair := range [][2][]bool{{b.pub, a.pub}, {b.wrote, a.wrote}} {
			for i, x := range pair[1] {
				if x && !pair[0][i] {
					pair[0][i], changed = true, true
				}
			}
		}
		if changed {
			work = append(work, to)
		}
	}
	blank := func(depth int) *abs {
		a := &abs{make([]int32, depth), make([]int32, m.Locals), make([]bool, nsites), make([]bool, nsites*nfin)}
		for i := range a.stack {
			a.stack[i] = -1
		}
		for i := range a.locals {
			a.locals[i] = -1
		}
		return a
	}
	join(0, blank(0))
	errs := map[int32]string{}
	bad := func(pc int32, msg string) {
		if _, ok := errs[pc]; !ok {
			errs[pc] = msg
		}
	}
	for len(work) > 0 {
		pc := work[len(work)-1]
		work = work[:len(work)-1]
		in := m.Code[pc]
		a := clone(st[pc])
		pop, push := StackEffect(p, in)
		if pop > len(a.stack) {
			continue // Verify reports it
		}
		args := append([]int32{}, a.stack[len(a.stack)-pop:]...)
		a.stack = a.stack[:len(a.stack)-pop]
		publish := func(x int32) {
			if x >= 0 {
				a.pub[x] = true
			}
		}
		var results []int32
		switch in.Op {
		case OpNew:
			s := site[pc]
			for i, x := range a.stack {
				if x == s {
					a.stack[i] = -1
				}
			}
			for i, x := range a.locals {
				if x == s {
					a.locals[i] = -1
				}
			}
			a.pub[s] = false
			for f := int32(0); f < nfin; f++ {
				a.wrote[s*nfin+f] = false
			}
			results = []int32{s}
		case OpLoad:
			results = []int32{a.locals[in.A]}
		case OpStore:
			a.locals[in.A] = args[0]
		case OpDup:
			results = []int32{args[0], args[0]}
		case OpSwap:
			results = []int32{args[1], args[0]}
		case OpCheckcast:
			results = []int32{args[0]}
		case OpPop, OpEq, OpNe, OpIfeq, OpIfne, OpIfnull, OpIfnonnull, OpInstanceof, OpGetfield:
		case OpPutfield:
			// (The value is published after the check: an object's final
			// field may refer to the object itself.)
			if f := fin[in.A]; f >= 0 {
				name := p.FieldName(int32(in.A))
				switch s := args[0]; {
				case s < 0:
					bad(pc, "final field "+name+" written outside the method that allocates its object (or through a reference not followed from its new)")
				case a.pub[s]:
					bad(pc, "final field "+name+" written after its object may have been published (stored, passed, returned, thrown or locked)")
				case a.wrote[s*nfin+f]:
					bad(pc, "final field "+name+" may be written twice")
				default:
					a.wrote[s*nfin+f] = true
				}
			}
			publish(args[1])
		default:
			for _, x := range args {
				publish(x)
			}
		}
		if results == nil {
			results = make([]int32, push)
			for i := range results {
				results[i] = -1
			}
		}
		a.stack = append(a.stack, results...)
		// A handler starts with the locals and publications of the
		// instructions it covers, before and after them.
		for _, h := range m.Handlers {
			if h.Covers(pc) {
				for _, b := range []*abs{st[pc], a} {
					c := clone(b)
					c.stack = []int32{-1}
					join(h.Target, c)
				}
			}
		}
		info := in.Op.Info()
		if info.Flags&FlagBranch != 0 {
			join(int32(in.A), a)
		}
		if info.Flags&FlagNoNext == 0 {
			join(pc+1, a)
		}
	}
	for pc := int32(0); pc < n; pc++ {
		if msg, ok := errs[pc]; ok {
			v.errorf(mi, pc, "%s", msg)
		}
	}
}
