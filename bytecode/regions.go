// Regions: the structural rules of protected regions and handler blocks.

package bytecode

import (
	"cmp"
	"slices"
)

// blockKind says which part of a handler's construct a block is.
type blockKind uint8

const (
	blockTry     blockKind = iota // the protected region
	blockHandler                  // the handler block
	blockFilter                   // a filter's filter block
)

// block is one pc range of a handler's construct.
type block struct {
	start, end int32
	handler    int32
	kind       blockKind
	parent     int32 // innermost strict block enclosing this one, or -1
}

func (b *block) contains(c *block) bool { return b.start <= c.start && c.end <= b.end }
func (b *block) disjoint(c *block) bool { return b.end <= c.start || c.end <= b.start }
func (b *block) has(pc int32) bool      { return pc >= b.start && pc < b.end }

// blocks returns the blocks of handler h: its region, its handler block
// when its extent is known, its filter block.
func blocks(h *Handler, hi int32) []block {
	bs := []block{{start: h.Start, end: h.End, handler: hi, kind: blockTry}}
	if h.HandlerEnd > 0 {
		bs = append(bs, block{start: h.Target, end: h.HandlerEnd, handler: hi, kind: blockHandler})
	}
	if h.Kind == HandlerFilter {
		bs = append(bs, block{start: h.Filter, end: h.Target, handler: hi, kind: blockFilter})
	}
	return bs
}

// regions checks the structure of method mi's exception table and how its
// code enters and leaves handler constructs, as the CLI requires:
//
//   - a handler's blocks do not overlap its region, and any two blocks of
//     different handlers are disjoint or nested; a construct nested in a
//     block of another lies wholly inside that block and is listed first;
//     only catch and filter handlers share a region; filter blocks hold no
//     regions;
//   - control (branches and falling through) does not enter a handler or
//     filter block, nor a region of a finally or fault handler other than
//     at its first instruction, and does not leave any of them: leave and
//     the handler-ending instructions do that;
//   - leave does not leave a finally, fault or filter block (it may leave
//     catch handler blocks and regions) and does not enter a block except a
//     region at its start;
//   - return and retval are not inside a region with a finally or fault
//     handler, nor inside a finally, fault or filter block;
//   - rethrow is inside a catch or filter handler block (innermost, not
//     counting regions), endfinally inside a finally handler, endfault
//     inside a fault handler, endfilter inside a filter block.
//
// Catch handlers without a handler end (format version 1) keep the
// unrestricted older form: only their region is a block, and it is not
// strict.
func (v *verifier) regions(mi int32) {
	m := &v.p.Methods[mi]
	nerr := len(v.errs)
	var all []block
	for hi := range m.Handlers {
		h := &m.Handlers[hi]
		bs := blocks(h, int32(hi))
		for i := 1; i < len(bs); i++ {
			if !bs[0].disjoint(&bs[i]) {
				v.handlerErrorf(mi, int32(hi), "its handler or filter block overlaps its protected region")
			}
		}
		all = append(all, bs...)
	}
	if len(v.errs) > nerr {
		return
	}
	for i := range all {
		a := &all[i]
		for j := range all {
			b := &all[j]
			if a.handler == b.handler {
				continue
			}
			ha, hb := &m.Handlers[a.handler], &m.Handlers[b.handler]
			switch {
			case a.disjoint(b):
			case a.start == b.start && a.end == b.end:
				if a.kind != blockTry || b.kind != blockTry {
					v.handlerErrorf(mi, a.handler, "a block coincides with a block of handler %d", b.handler)
				} else if !ha.Takes() || !hb.Takes() {
					v.handlerErrorf(mi, max(a.handler, b.handler), "a finally or fault handler needs a protected region of its own (handlers %d and %d share one)", min(a.handler, b.handler), max(a.handler, b.handler))
				}
			case b.contains(a):
				for _, c := range blocks(ha, a.handler) {
					if !b.contains(&c) {
						v.handlerErrorf(mi, a.handler, "improperly nested: its blocks are not all inside the block of handler %d that holds one of them", b.handler)
						break
					}
				}
				if a.handler > b.handler {
					v.handlerErrorf(mi, a.handler, "listed after handler %d, whose construct encloses it: list inner handlers first", b.handler)
				}
				if b.kind == blockFilter && a.kind == blockTry {
					v.handlerErrorf(mi, a.handler, "a filter block (of handler %d) cannot hold a protected region", b.handler)
				}
			case a.contains(b):
			default:
				if a.handler < b.handler {
					v.handlerErrorf(mi, a.handler, "overlaps handler %d: regions and handler blocks must be disjoint or nested", b.handler)
				}
			}
		}
	}
	if len(v.errs) > nerr {
		return
	}

	// The strict blocks, and the innermost one at each pc.
	var strict []block
	for _, b := range all {
		k := m.Handlers[b.handler].Kind
		if b.kind != blockTry || k == HandlerFinally || k == HandlerFault {
			strict = append(strict, b)
		}
	}
	slices.SortStableFunc(strict, func(a, b block) int {
		if c := cmp.Compare(a.start, b.start); c != 0 {
			return c
		}
		return cmp.Compare(b.end, a.end)
	})
	n := int32(len(m.Code))
	inner := make([]int32, n)
	var stack []int32
	next := 0
	for pc := int32(0); pc < n; pc++ {
		for len(stack) > 0 && strict[stack[len(stack)-1]].end <= pc {
			stack = stack[:len(stack)-1]
		}
		for next < len(strict) && strict[next].start == pc {
			strict[next].parent = -1
			if len(stack) > 0 {
				strict[next].parent = stack[len(stack)-1]
			}
			stack = append(stack, int32(next))
			next++
		}
		inner[pc] = -1
		if len(stack) > 0 {
			inner[pc] = stack[len(stack)-1]
		}
	}
	// enclosing reports whether block a is b or encloses it.
	enclosing := func(a, b int32) bool {
		for ; b >= 0; b = strict[b].parent {
			if a == b {
				return true
			}
		}
		return a < 0
	}
	// entered returns the innermost block at dst, from pc, not counting
	// regions that start at dst and do not hold pc (control may enter a
	// region at its start).
	entered := func(pc, dst int32) int32 {
		b := inner[dst]
		for b >= 0 && strict[b].kind == blockTry && strict[b].start == dst && !strict[b].has(pc) {
			b = strict[b].parent
		}
		return b
	}
	name := func(b int32) string {
		s := &strict[b]
		k := m.Handlers[s.handler].Kind
		switch s.kind {
		case blockTry:
			return "the protected region of a " + k.String() + " handler"
		case blockFilter:
			return "a filter block"
		}
		return "a " + k.String() + " handler block"
	}
	// handlerBlock returns the innermost block at pc that is not a region.
	handlerBlock := func(pc int32) int32 {
		b := inner[pc]
		for b >= 0 && strict[b].kind == blockTry {
			b = strict[b].parent
		}
		return b
	}
	flow := func(pc, dst int32) {
		if dst < 0 || dst >= n {
			return // reported by code
		}
		src, in := inner[pc], entered(pc, dst)
		if !enclosing(in, src) {
			v.errorf(mi, pc, "control enters %s other than by an exception (or, for a region, at its start)", name(in))
		} else if in != src {
			v.errorf(mi, pc, "control leaves %s without leave", name(src))
		}
	}
	for pc := int32(0); pc < n; pc++ {
		in := m.Code[pc]
		info := in.Op.Info()
		switch in.Op {
		case OpLeave:
			dst := int32(in.A)
			to := entered(pc, dst)
			if !enclosing(to, inner[pc]) {
				v.errorf(mi, pc, "leave enters %s", name(to))
				continue
			}
			for b := inner[pc]; b != to && b >= 0; b = strict[b].parent {
				s := &strict[b]
				if k := m.Handlers[s.handler].Kind; s.kind == blockFilter || (s.kind == blockHandler && !m.Handlers[s.handler].Takes()) {
					v.errorf(mi, pc, "leave cannot leave %s (end it with %s)", name(b), ender(k, s.kind))
					break
				}
			}
			continue
		case OpReturn, OpRetval:
			for b := inner[pc]; b >= 0; b = strict[b].parent {
				if s := &strict[b]; s.kind != blockHandler || !m.Handlers[s.handler].Takes() {
					v.errorf(mi, pc, "%s inside %s: leave it first", in.Op, name(b))
					break
				}
			}
		case OpRethrow, OpEndfinally, OpEndfault, OpEndfilter:
			b := handlerBlock(pc)
			ok := b >= 0
			if ok {
				s := &strict[b]
				k := m.Handlers[s.handler].Kind
				switch in.Op {
				case OpRethrow:
					ok = s.kind == blockHandler && (k == HandlerCatch || k == HandlerFilter)
				case OpEndfinally:
					ok = s.kind == blockHandler && k == HandlerFinally
				case OpEndfault:
					ok = s.kind == blockHandler && k == HandlerFault
				default:
					ok = s.kind == blockFilter
				}
			}
			if !ok {
				where := map[Opcode]string{OpRethrow: "a catch handler block", OpEndfinally: "a finally handler block",
					OpEndfault: "a fault handler block", OpEndfilter: "a filter block"}[in.Op]
				v.errorf(mi, pc, "%s outside %s", in.Op, where)
			}
		}
		if info.Flags&FlagBranch != 0 {
			flow(pc, int32(in.A))
		}
		if info.Flags&FlagNoNext == 0 {
			flow(pc, pc+1)
		}
	}
}

// ender names the instruction that ends a block of kind k.
func ender(k HandlerKind, b blockKind) string {
	switch {
	case b == blockFilter:
		return "endfilter"
	case k == HandlerFinally:
		return "endfinally"
	case k == HandlerFault:
		return "endfault"
	}
	return "leave"
}
