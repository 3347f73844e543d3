// Heuristics: estimates of a state's distance to an error, for directed search.

package explorer

import (
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"mcvm/bytecode"
	"mcvm/vm"
)

// Heuristic estimates, for best-first search and A* (Options.Heuristic),
// how many transitions lead from a state to an error. An admissible one
// never estimates more than the shortest such path, and A* then returns a
// shortest path to an error; best-first search returns a path quickly,
// not necessarily a short one.
type Heuristic interface {
	// Estimate returns the estimate for the state the machine holds,
	// whose enabled transitions are enabled; negative counts as 0.
	Estimate(m *vm.Machine, enabled []vm.Trans) int32
}

// TargetUse says whether a heuristic measures the distance to a target
// state (the last state of a trail, say).
type TargetUse uint8

// Target uses.
const (
	TargetNone     TargetUse = iota // it takes no target
	TargetOptional                  // it uses one if given
	TargetRequired                  // it needs one
)

// HeuristicSpec describes one of the heuristics NewHeuristic makes.
type HeuristicSpec struct {
	Name string
	Doc  string // one line, for --help
	// Admissible: the estimate never exceeds the number of transitions
	// to the target state (with a target, where Target is not
	// TargetNone) or to the nearest error (without one), so that A*
	// returns a shortest path. It holds with every granularity, with
	// escape analysis and dead variable reduction, and for the reduced
	// state graph (whose paths are paths of the full one), not with
	// thread symmetry, whose states rename threads.
	Admissible bool
	Target     TargetUse
}

// Heuristics lists the heuristics NewHeuristic makes. The paper's
// formula-based heuristic is not among them: an invariant is a bytecode
// method, not a formula, and counting its false conjuncts would need its
// branches decompiled and pieces of its code evaluated on a state, which
// the machine does not offer.
var Heuristics = []HeuristicSpec{
	{Name: "hamming", Target: TargetRequired,
		Doc: "bits that differ between the state's encoding and the target's (not admissible)"},
	{Name: "fsm", Target: TargetOptional, Admissible: true,
		Doc: "control-flow distance of the threads to their places in the target (admissible), or of the nearest thread to an assert, throw, invariant write or blocking instruction (without a target: not admissible)"},
	{Name: "active", Target: TargetNone,
		Doc: "threads with an enabled transition, for deadlocks (not admissible)"},
}

// The reasons NewHeuristic fails.
var (
	ErrUnknownHeuristic = errors.New("unknown heuristic")
	ErrNeedsTarget      = errors.New("needs a target state (from a trail)")
	ErrBadTarget        = errors.New("the target is not an encoded state of this program")
)

// NewHeuristic makes heuristic name (see Heuristics) for the program of
// machine m, run with m's options; target is the canonical encoding
// (vm.Machine.Encode, on a machine for the same program) of the target
// state, or nil. The tables it needs
// are computed here, once; the heuristic's Estimate does not allocate.
// A heuristic is not safe for concurrent use.
func NewHeuristic(name string, m *vm.Machine, target []byte) (Heuristic, error) {
	var info *HeuristicSpec
	var names []string
	for i := range Heuristics {
		names = append(names, Heuristics[i].Name)
		if Heuristics[i].Name == name {
			info = &Heuristics[i]
		}
	}
	if info == nil {
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownHeuristic, name, strings.Join(names, ", "))
	}
	if info.Target == TargetRequired && target == nil {
		return nil, fmt.Errorf("heuristic %q %w", name, ErrNeedsTarget)
	}
	switch name {
	case "hamming":
		return &hamming{target: target}, nil
	case "active":
		return active{}, nil
	}
	g := newFlowGraph(m.Program(), m.Options())
	if target == nil {
		return g.errorDistance(m), nil
	}
	return g.targetDistance(m, target)
}

// hamming is the paper's Hamming distance: the number of bits in which
// the state's canonical encoding differs from the target's, the bytes of
// the longer beyond the shorter's length counting as 8 each. One
// transition can change many bits (a pc, a value, and everything after a
// length that changes), so it is not admissible: it guides best-first
// search to states whose encoding resembles the target's.
type hamming struct {
	target, buf []byte
}

func (h *hamming) Estimate(m *vm.Machine, _ []vm.Trans) int32 {
	h.buf = m.Encode(h.buf[:0])
	a, b := h.buf, h.target
	if len(a) > len(b) {
		a, b = b, a
	}
	n := 8 * (len(b) - len(a))
	i := 0
	for ; i+8 <= len(a); i += 8 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]))
	}
	for ; i < len(a); i++ {
		n += bits.OnesCount8(a[i] ^ b[i])
	}
	return int32(min(n, unreachable))
}

// active is HSF-SPIN's active-processes heuristic: the number of threads
// with an enabled transition, zero in a deadlock. It is not admissible,
// for deadlocks either: taking a monitor disables every other thread
// about to take it, so one transition can lower it by more than one; and
// it says nothing about how far an assertion is.
type active struct{}

func (active) Estimate(_ *vm.Machine, enabled []vm.Trans) int32 {
	n := int32(0)
	for i, tr := range enabled {
		if i == 0 || enabled[i-1].Thread != tr.Thread { // Enabled lists them by thread
			n++
		}
	}
	return n
}

// unreachable is the estimate of a place that cannot be reached: far
// beyond any path, and small enough that sums of a few do not overflow.
const unreachable = 1 << 28

func add(a, b int32) int32 { return min(a+b, unreachable) }

// flowGraph is the control flow of every method of a program, one node
// per instruction plus one past the last, for the fsm heuristic. A path
// of a thread is a sequence of instructions; cost[i] is 1 if instruction
// i always begins a transition when a thread comes to it (a scheduling
// point that escape analysis cannot make local, in the machine's
// configuration; every instruction at instruction granularity) and 0
// otherwise, so the cost of a path, the transitions that begin on it, is
// a lower bound of the transitions that run it, whatever escape analysis
// merges and wherever a transition is cut for its length.
//
// The graph over-approximates control flow: an instruction's successors,
// every callee of a call (every override), every handler and filter of a
// region from each of its instructions that may throw, and from the
// instructions that continue at a place known at run time (rethrow,
// leave, the handler ends) every handler, filter and leave target of the
// method. A call also goes on to the next instruction at the least cost
// of a callee's run to its return. Shortest distances in it are so lower
// bounds of the threads' real ones.
type flowGraph struct {
	prog  *bytecode.Program
	base  []int32 // per method, its first node
	cost  []int32
	succ  [][]edge // per node
	throw []bool   // per node: the instruction may throw
	// handlers[i]: the handler and filter entries whose region covers
	// node i.
	handlers [][]int32
	// ret[i]: the least cost from i to a return of its method, calls run
	// through; raise[i]: to an instruction that may throw.
	ret, raise []int32
	// retH[i]: the least cost from a handler covering i to a return.
	retH []int32
	// pred[i]: the edges into node i, backwards; calls: each call's
	// node and callees, whose edge to the next node costs callCost.
	pred     [][]edge
	calls    []call
	callCost []int32 // per method: the least cost of a run from its entry through a return
}

type call struct {
	at      int32
	callees []int32
}

type edge struct {
	to, cost int32
}

// mayThrow reports whether an instruction may throw an exception (type
// errors are faults, not exceptions).
func mayThrow(op bytecode.Opcode) bool {
	switch op {
	case bytecode.OpDiv, bytecode.OpRem, bytecode.OpGetfield, bytecode.OpPutfield,
		bytecode.OpCheckcast, bytecode.OpNewarray, bytecode.OpNewrefarray, bytecode.OpArrload,
		bytecode.OpArrstore, bytecode.OpArrlen, bytecode.OpInvokestatic, bytecode.OpInvokevirtual,
		bytecode.OpReturn, bytecode.OpRetval, bytecode.OpNew, bytecode.OpNewthread, bytecode.OpStart,
		bytecode.OpJoin, bytecode.OpMonitorenter, bytecode.OpMonitorexit, bytecode.OpWait,
		bytecode.OpNotify, bytecode.OpNotifyall, bytecode.OpThrow, bytecode.OpRethrow,
		bytecode.OpLeave, bytecode.OpEndfinally, bytecode.OpEndfault, bytecode.OpEndfilter:
		return true
	}
	return false
}

// callees returns the methods a call instruction may run.
func callees(p *bytecode.Program, in bytecode.Instr) []int32 {
	if in.Op == bytecode.OpInvokestatic {
		return []int32{int32(in.A)}
	}
	mm := &p.Methods[in.A]
	var out []int32
	for c := range p.Classes {
		if !p.IsSubclass(int32(c), mm.Class) {
			continue
		}
		if t := p.FindMethod(int32(c), mm.Name); t >= 0 && !containsID(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func containsID(s []int32, x int32) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

func newFlowGraph(p *bytecode.Program, o vm.Options) *flowGraph {
	g := &flowGraph{prog: p, base: make([]int32, len(p.Methods)+1)}
	for mi := range p.Methods {
		g.base[mi+1] = g.base[mi] + int32(len(p.Methods[mi].Code)) + 1
	}
	n := g.base[len(p.Methods)]
	g.cost = make([]int32, n)
	g.succ = make([][]edge, n)
	g.throw = make([]bool, n)
	g.handlers = make([][]int32, n)
	merges := o.Escape && o.Granularity == vm.GranTransition
	for mi := range p.Methods {
		mm := &p.Methods[mi]
		b := g.base[mi]
		for pc, in := range mm.Code {
			i := b + int32(pc)
			fl := in.Op.Info().Flags
			sched := fl&bytecode.FlagSched != 0 && !(merges && fl&bytecode.FlagLocal != 0)
			switch {
			case fl&bytecode.FlagCall != 0:
				sched = false
				for _, c := range callees(p, in) {
					sched = sched || p.Methods[c].Sync()
				}
			case fl&bytecode.FlagReturn != 0:
				sched = mm.Sync() // and a thread's last return, which Estimate counts
			}
			if sched || o.Granularity == vm.GranInstruction {
				g.cost[i] = 1
			}
			g.throw[i] = mayThrow(in.Op)
			for _, h := range mm.Handlers {
				if h.Covers(int32(pc)) {
					g.handlers[i] = append(g.handlers[i], b+h.Target)
					if h.Kind == bytecode.HandlerFilter {
						g.handlers[i] = append(g.handlers[i], b+h.Filter)
					}
				}
			}
		}
		g.cost[b+int32(len(mm.Code))] = 0 // the node past the end: nothing reaches it
	}
	// Edges, with the cost of the instruction they come to; a call's
	// edge to the next instruction is added by the ret fixpoint below.
	for mi := range p.Methods {
		mm := &p.Methods[mi]
		b := g.base[mi]
		var resume []int32 // where code resumes at a place known at run time
		for _, h := range mm.Handlers {
			resume = append(resume, b+h.Target)
			if h.Kind == bytecode.HandlerFilter {
				resume = append(resume, b+h.Filter)
			}
		}
		for _, in := range mm.Code {
			if in.Op == bytecode.OpLeave {
				resume = append(resume, b+int32(in.A))
			}
		}
		for pc, in := range mm.Code {
			i := b + int32(pc)
			fl := in.Op.Info().Flags
			if fl&bytecode.FlagCall != 0 {
				g.calls = append(g.calls, call{i, callees(p, in)})
			}
			to := func(j int32) { g.succ[i] = append(g.succ[i], edge{j, g.cost[j]}) }
			if fl&bytecode.FlagNoNext == 0 && fl&bytecode.FlagCall == 0 {
				to(i + 1)
			}
			if fl&bytecode.FlagBranch != 0 {
				to(b + int32(in.A))
			}
			if fl&bytecode.FlagCall != 0 {
				for _, c := range callees(p, in) {
					to(g.base[c])
				}
			}
			if fl&bytecode.FlagRuntimeFlow != 0 {
				for _, j := range resume {
					to(j)
				}
			}
			if g.throw[i] {
				for _, j := range g.handlers[i] {
					to(j)
				}
			}
		}
	}
	g.pred = make([][]edge, n)
	for i, es := range g.succ {
		for _, e := range es {
			g.pred[e.to] = append(g.pred[e.to], edge{int32(i), e.cost})
		}
	}
	// ret and the calls' edges to the next instruction: a fixpoint, since
	// a call's cost is its callees' cost to return (recursion).
	callCost := make([]int32, len(p.Methods))
	for i := range callCost {
		callCost[i] = unreachable
	}
	for {
		var sources []int32
		for mi := range p.Methods {
			for pc, in := range p.Methods[mi].Code {
				if in.Op.Info().Flags&bytecode.FlagReturn != 0 {
					sources = append(sources, g.base[mi]+int32(pc))
				}
			}
		}
		g.callCost = callCost
		g.ret = g.shortest(sources, nil)
		changed := false
		for mi := range p.Methods {
			c := add(g.cost[g.base[mi]], g.ret[g.base[mi]])
			if c < callCost[mi] {
				callCost[mi], changed = c, true
			}
		}
		if !changed {
			break
		}
	}
	var sources []int32
	for i := range g.throw {
		if g.throw[i] {
			sources = append(sources, int32(i))
		}
	}
	g.raise = g.shortest(sources, nil)
	g.retH = g.viaHandler(g.ret)
	return g
}

// shortest returns, for every node, the least cost of a path from it to
// one of sources (source k starting at init[k], or 0 if init is nil), in
// the thread's own frame or deeper: Dijkstra's algorithm backwards.
func (g *flowGraph) shortest(sources, init []int32) []int32 {
	dist := make([]int32, len(g.cost))
	for i := range dist {
		dist[i] = unreachable
	}
	// The calls' edges to the next instruction, backwards.
	back := make(map[int32][]edge)
	for _, c := range g.calls {
		cc := int32(unreachable)
		for _, m := range c.callees {
			cc = min(cc, g.callCost[m])
		}
		back[c.at+1] = append(back[c.at+1], edge{c.at, add(cc, g.cost[c.at+1])})
	}
	q := &distQueue{}
	for k, s := range sources {
		d := int32(0)
		if init != nil {
			d = init[k]
		}
		if d < dist[s] {
			dist[s] = d
			heap.Push(q, distItem{s, d})
		}
	}
	relax := func(v, d int32) {
		if d < dist[v] {
			dist[v] = d
			heap.Push(q, distItem{v, d})
		}
	}
	for q.Len() > 0 {
		it := heap.Pop(q).(distItem)
		if it.d > dist[it.node] {
			continue
		}
		for _, e := range g.pred[it.node] {
			relax(e.to, add(it.d, e.cost))
		}
		for _, e := range back[it.node] {
			relax(e.to, add(it.d, e.cost))
		}
	}
	return dist
}

type distItem struct{ node, d int32 }

type distQueue []distItem

func (q distQueue) Len() int           { return len(q) }
func (q distQueue) Less(i, j int) bool { return q[i].d < q[j].d }
func (q distQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *distQueue) Push(x any)        { *q = append(*q, x.(distItem)) }
func (q *distQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// viaHandler returns, for every node, the least cost of entering a
// handler or filter covering it and going on from there by d.
func (g *flowGraph) viaHandler(d []int32) []int32 {
	out := make([]int32, len(d))
	for i, hs := range g.handlers {
		out[i] = unreachable
		for _, h := range hs {
			out[i] = min(out[i], add(g.cost[h], d[h]))
		}
	}
	return out
}

// place is a thread's distance table: to[i], the least cost from node i
// to the place, in the thread's frame or deeper; toH[i], from a handler
// covering i.
type place struct {
	to, toH []int32
}

// walk returns a lower bound of the transitions thread tid of m takes to
// come to place pl (the place's own instruction counted if it begins a
// transition: the thread is at it, or has executed it, as pl's table
// says), and of those it takes to end. It follows the thread's frames
// down: from each, to a return (then the caller goes on after its call)
// or to an instruction that may throw (then a handler of the caller, or
// of a frame further down, goes on).
func (g *flowGraph) walk(m *vm.Machine, tid int32, pl *place) (to, end int32) {
	n := m.NumFrames(tid)
	if n == 0 {
		return unreachable, unreachable
	}
	meth, pc := m.FrameAt(tid, n-1)
	i := g.base[meth] + pc
	best := pl.to[i]
	normal, thrown := g.ret[i], g.raise[i]
	for k := n - 2; k >= 0; k-- {
		meth, pc = m.FrameAt(tid, k)
		c := g.base[meth] + pc // the call (or, under a filter's frame, the throw)
		next := add(normal, g.cost[c+1])
		best = min(best, add(next, pl.to[c+1]), add(thrown, pl.toH[c]))
		normal, thrown = min(add(next, g.ret[c+1]), add(thrown, g.retH[c])), min(thrown, add(next, g.raise[c+1]))
	}
	// A thread's last return, or an exception no handler takes, ends it
	// with a transition of its own.
	return best, add(min(normal, thrown), 1)
}

// errorDistance makes the fsm heuristic without a target: the least, over
// the threads, of a lower bound of the transitions the thread takes to
// execute an assert, a throw or rethrow, or a write of what an invariant
// reads, or (for deadlocks) to come to a monitorenter, join or
// synchronized call or to execute a wait, itself or through a thread it
// creates. It is not admissible: an
// instruction that throws a runtime exception no handler takes, or a type
// error, fails too, and nearly every instruction can; and a deadlock
// needs every thread blocked, not the nearest one.
func (g *flowGraph) errorDistance(m *vm.Machine) Heuristic {
	p := m.Program()
	field, static, elems := m.InvariantReads()
	var sources, init []int32
	for mi := range p.Methods {
		for pc, in := range p.Methods[mi].Code {
			d := int32(-1)
			switch in.Op {
			case bytecode.OpAssert, bytecode.OpThrow, bytecode.OpRethrow, bytecode.OpWait:
				d = 1
			case bytecode.OpPutfield:
				if field[in.A] {
					d = 1
				}
			case bytecode.OpPutstatic:
				if static[in.A] {
					d = 1
				}
			case bytecode.OpArrstore:
				if elems {
					d = 1
				}
			case bytecode.OpMonitorenter, bytecode.OpJoin:
				d = 0
			case bytecode.OpInvokestatic, bytecode.OpInvokevirtual:
				if g.cost[g.base[mi]+int32(pc)] == 1 {
					d = 0 // a synchronized call
				}
			}
			if d >= 0 {
				sources, init = append(sources, g.base[mi]+int32(pc)), append(init, d)
			}
		}
	}
	// A thread that creates a thread may fail through it: a newthread is
	// a source too, as far from an error as the new thread's entry (a
	// fixpoint, for threads that create threads).
	to := g.shortest(sources, init)
	for range p.Methods {
		s, in := sources, init
		for mi := range p.Methods {
			for pc, ins := range p.Methods[mi].Code {
				if ins.Op == bytecode.OpNewthread {
					s, in = append(s, g.base[mi]+int32(pc)), append(in, to[g.base[ins.A]])
				}
			}
		}
		next := g.shortest(s, in)
		if slices.Equal(next, to) {
			break
		}
		to = next
	}
	return &fsm{g: g, err: &place{to, g.viaHandler(to)}}
}

// targetDistance makes the fsm heuristic with a target: the sum, over the
// threads (matched by index), of a lower bound of the transitions the
// thread takes from its place to its place in the target. Each
// transition is one thread's, so the sum is a lower bound of the
// transitions to the target (the paper's FSM distance): admissible, to
// the target and to any state with its threads at the same places.
func (g *flowGraph) targetDistance(m *vm.Machine, target []byte) (Heuristic, error) {
	tm, err := vm.New(m.Program(), m.Options())
	if err != nil {
		return nil, err
	}
	if err := decodeTarget(tm, target); err != nil {
		return nil, err
	}
	h := &fsm{g: g}
	nowhere := make([]int32, len(g.cost))
	for i := range nowhere {
		nowhere[i] = unreachable
	}
	for tid := range int32(tm.NumThreads()) {
		tt := targetThread{status: tm.ThreadStatus(tid), place: -1, pl: &place{nowhere, nowhere}}
		if n := tm.NumFrames(tid); n > 0 && tt.status != vm.StatusTerminated {
			meth, pc := tm.FrameAt(tid, n-1)
			if int(meth) >= len(m.Program().Methods) || int(pc) >= len(m.Program().Methods[meth].Code) {
				return nil, ErrBadTarget
			}
			tt.place = g.base[meth] + pc
			to := g.shortest([]int32{tt.place}, nil)
			tt.pl = &place{to, g.viaHandler(to)}
			// A thread the state does not have yet: created, then run
			// from its method's entry.
			entry, _ := tm.FrameAt(tid, 0)
			tt.fresh = to[g.base[entry]]
		}
		switch tt.status {
		case vm.StatusNew:
			tt.fresh = 0
		case vm.StatusTerminated:
			tt.fresh = 1
		}
		h.target = append(h.target, tt)
	}
	return h, nil
}

// decodeTarget decodes target into tm. vm.Machine.Decode trusts its
// input, so the target must come from Encode on a machine for the same
// program (a trail replayed, say); a panic, or an encoding that does not
// come back the same, is ErrBadTarget.
func decodeTarget(tm *vm.Machine, target []byte) (err error) {
	defer func() {
		if recover() != nil {
			err = ErrBadTarget
		}
	}()
	tm.Decode(target)
	if string(tm.Encode(nil)) != string(target) {
		return ErrBadTarget
	}
	return nil
}

// targetThread is a thread of the target state: its status, the node of
// its top frame's instruction and its distance table, and its cost if
// the state does not have the thread yet.
type targetThread struct {
	status vm.Status
	place  int32
	pl     *place
	fresh  int32
}

// fsm is the FSM distance heuristic (see targetDistance and
// errorDistance).
type fsm struct {
	g      *flowGraph
	target []targetThread // nil: the distance to an error
	err    *place
}

func (h *fsm) Estimate(m *vm.Machine, _ []vm.Trans) int32 {
	n := int32(m.NumThreads())
	if h.target == nil {
		best := int32(unreachable)
		for tid := range n {
			if m.ThreadStatus(tid) != vm.StatusTerminated {
				d, _ := h.g.walk(m, tid, h.err)
				best = min(best, d)
			}
		}
		return best
	}
	if n > int32(len(h.target)) {
		return unreachable // threads are never removed
	}
	sum := int32(0)
	for tid := range int32(len(h.target)) {
		tt := &h.target[tid]
		if tid >= n {
			sum = add(sum, tt.fresh)
			continue
		}
		st := m.ThreadStatus(tid)
		switch {
		case st == vm.StatusTerminated:
			if tt.status != vm.StatusTerminated {
				return unreachable
			}
		case tt.status == vm.StatusNew:
			if st != vm.StatusNew {
				return unreachable
			}
		case tt.status == vm.StatusTerminated:
			_, end := h.g.walk(m, tid, tt.pl)
			sum = add(sum, end)
		default:
			to, _ := h.g.walk(m, tid, tt.pl)
			sum = add(sum, to)
		}
	}
	return sum
}
