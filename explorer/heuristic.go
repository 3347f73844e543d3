// Heuristics: estimates of a state's distance to an error, for directed search.
//
// Best-first search and A* take the frontier's states by an estimate h of
// the transitions to an error (A*: by path length plus h), as in Edelkamp,
// Leue and Lluch-Lafuente's directed model checking. The heuristics, their
// tables computed once per program by NewHeuristic and their estimates
// made without allocating, are:
//
//   - hamming, the paper's: the bits in which the state's encoding differs
//     from a target state's. Not admissible: one transition changes many
//     bits.
//   - fsm, the paper's FSM distance over each method's control flow (calls,
//     returns and exceptions over-approximated, so that paths only get
//     shorter), a path costing the instructions on it that always begin a
//     transition. With a target, the sum over the threads of each one's
//     cost to its target place: admissible, since each transition is one
//     thread's (targetDistance). Without one, the nearest thread's cost
//     to an instruction that may fail: not admissible, since nearly any
//     instruction can (errorDistance).
//   - active, HSF-SPIN's: the threads with an enabled transition. Not
//     admissible: one monitorenter can disable several threads.
//   - deadlock: admissible for the distance to the nearest deadlock, the
//     sum of two bounds of disjoint sets of transitions, each thread run
//     ahead on its own values while its branches depend on them alone
//     (deadlockDistance).
//
// Partial-order reduction keeps admissibility, since a reduced path is a
// path, but not shortest counterexamples (the reduction keeps errors, not
// states); thread symmetry does not keep it, since fsm matches threads by
// index. The paper's formula-based heuristic is left out (see Heuristics).
// TestHeuristic_admissible checks every heuristic marked admissible
// against true distances, computed backwards over explored graphs, and
// every other one for an overestimate somewhere.

package explorer

import (
	pqueue "container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"mcvm/bytecode"
	"mcvm/heap"
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
	// TargetNone) or to the nearest error (without one; of kind Kind if
	// it names one), so that A* returns a shortest path. It holds with every granularity, with
	// escape analysis and dead variable reduction, and for the reduced
	// state graph (whose paths are paths of the full one), not with
	// thread symmetry, whose states rename threads.
	Admissible bool
	Target     TargetUse
	// Kind, if not vm.FaultNone, is the one kind of error the heuristic
	// estimates the distance to without a target: it is then admissible
	// (if Admissible) for the distance to the nearest error of that kind,
	// not to every error, and A* returns a path no longer than a shortest
	// one to such an error (a shortest path if the nearest error is one).
	Kind vm.FaultKind
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
	{Name: "active", Target: TargetNone, Kind: vm.FaultDeadlock,
		Doc: "threads with an enabled transition, for deadlocks (not admissible)"},
	{Name: "deadlock", Target: TargetNone, Kind: vm.FaultDeadlock, Admissible: true,
		Doc: "transitions each thread takes to a place where it can block, plus the free monitors threads wait to take, for deadlocks (admissible for deadlocks)"},
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
	if name == "deadlock" {
		return g.deadlockDistance(), nil
	}
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
	atomic bool // the program has atomic regions
	prog   *bytecode.Program
	opts   vm.Options
	base   []int32 // per method, its first node
	cost   []int32
	succ   [][]edge // per node
	throw  []bool   // per node: the instruction may throw
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
	return newFlowGraphStarts(p, o, 0)
}

// newFlowGraphStarts is newFlowGraph with a cost of start added to the
// edge from each start to the next instruction, the way a start that
// does not throw goes on (deadlockDistance).
func newFlowGraphStarts(p *bytecode.Program, o vm.Options, start int32) *flowGraph {
	g := &flowGraph{prog: p, opts: o, base: make([]int32, len(p.Methods)+1)}
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
			// (A ghost access or a final read is never a scheduling point.)
			sched := fl&bytecode.FlagSched != 0 && !(merges && fl&bytecode.FlagLocal != 0) && !p.Hidden(in)
			switch {
			case fl&bytecode.FlagCall != 0:
				sched = false
				for _, c := range callees(p, in) {
					sched = sched || p.Methods[c].Sync()
				}
			case fl&bytecode.FlagReturn != 0:
				sched = mm.Sync() // and a thread's last return, which Estimate counts
			}
			if (sched || o.Granularity == vm.GranInstruction) && !mm.InAtomic(int32(pc)) {
				// (Inside an atomic region a transition goes on through
				// scheduling points: 0 keeps the cost a lower bound.)
				g.cost[i] = 1
			}
			g.atomic = g.atomic || len(mm.Atomic) > 0
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
			if in.Op == bytecode.OpStart {
				g.succ[i] = append(g.succ[i], edge{i + 1, add(g.cost[i+1], start)})
			} else if fl&bytecode.FlagNoNext == 0 && fl&bytecode.FlagCall == 0 {
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
			pqueue.Push(q, distItem{s, d})
		}
	}
	relax := func(v, d int32) {
		if d < dist[v] {
			dist[v] = d
			pqueue.Push(q, distItem{v, d})
		}
	}
	for q.Len() > 0 {
		it := pqueue.Pop(q).(distItem)
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
	// with a transition of its own; such an exception is an error unless
	// the machine ignores them, and an error ends every path through it.
	if g.atomic {
		// A thread's last return inside an atomic region is no
		// transition of its own.
		return best, g.ending(normal, thrown)
	}
	return best, add(g.ending(normal, thrown), 1)
}

// ending is the least cost of a thread's end from the costs normal, to
// its last return, and thrown, to an exception no handler takes.
func (g *flowGraph) ending(normal, thrown int32) int32 {
	if g.opts.IgnoreUncaught {
		return min(normal, thrown)
	}
	return normal
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

// deadlockDistance makes the deadlock heuristic, admissible for the
// distance to the nearest deadlock (a state where no thread is enabled
// and a started one lives). In a deadlock every thread is disabled:
// ended, new, waiting, or at a monitorenter, a synchronized call or a
// join that cannot go on (a place to block). The estimate is the sum of
// two lower bounds of disjoint sets of the transitions on any path to a
// deadlock:
//
//   - per runnable thread, the transitions it takes before it first is
//     at a place to block, or has executed a wait, or has ended (ahead);
//     a thread at a place to block that is enabled and can never be
//     disabled there (its own monitor, a thread that has ended, a null
//     or no reference) must move: at least 1. Each transition is one
//     thread's, so the sum bounds these transitions;
//   - one per free monitor that a thread waits to take: an enabled
//     thread at a monitorenter or a synchronized call, one that surely
//     comes to one (ahead), or a notified thread. In a deadlock each such
//     thread is there, the monitor held by another thread, or has moved
//     on, taking it; either way some transition takes the monitor first.
//     That transition begins with taking it (a transition runs on only
//     through monitors of its own thread, or that no other thread can
//     reach), so it is none of the first kind, which come before their
//     thread is at a place to block, and each takes one monitor.
//
// If no thread can be disabled holding a monitor (holdsWhileDisabled),
// no thread in a deadlock is at a monitorenter, a synchronized call or
// notified, since the monitor would be held by a disabled thread: the
// places to block are then the joins only, and a notified thread must
// take its monitor (1).
//
// A start that does not throw makes a new thread runnable at its
// method's entry, and that thread then takes transitions of its own
// before it can block: the least such number over the methods threads
// run is added to the cost of going on after a start (in a graph built
// again with it, a few times, since threads start threads; each round's
// figure is a lower bound, the first being 0). A thread created and not
// started yet counts 0 until then.
func (g *flowGraph) deadlockDistance() Heuristic {
	var h *deadlock
	start := int32(0)
	for range 4 {
		h = g.deadlockTable()
		h.start = start
		next := int32(unreachable)
		for _, mi := range threadMethods(g.prog) {
			i := g.base[mi]
			if h.at[i] != blockNot {
				next = 0
				continue
			}
			end := add(g.ending(g.ret[i], g.raise[i]), 1) // (walk, one frame)
			next = min(next, max(min(h.pl.to[i], end), 1))
		}
		if next == unreachable || next <= start {
			break
		}
		start = next
		g = newFlowGraphStarts(g.prog, g.opts, start)
	}
	return h
}

// threadMethods returns the methods newthread instructions run.
func threadMethods(p *bytecode.Program) []int32 {
	var out []int32
	for mi := range p.Methods {
		for _, in := range p.Methods[mi].Code {
			if in.Op == bytecode.OpNewthread && !slices.Contains(out, int32(in.A)) {
				out = append(out, int32(in.A))
			}
		}
	}
	return out
}

// deadlockTable makes the deadlock heuristic's table on graph g.
func (g *flowGraph) deadlockTable() *deadlock {
	p := g.prog
	var sources, init []int32
	h := &deadlock{g: g, at: make([]int8, len(g.cost)), virt: map[int32][]int32{}, monitors: holdsWhileDisabled(p)}
	for mi := range p.Methods {
		for pc, in := range p.Methods[mi].Code {
			i := g.base[mi] + int32(pc)
			if !h.monitors && in.Op != bytecode.OpJoin && in.Op != bytecode.OpWait {
				continue
			}
			switch in.Op {
			case bytecode.OpMonitorenter, bytecode.OpJoin:
				h.at[i] = blockAt
			case bytecode.OpWait:
				sources, init = append(sources, i), append(init, 1)
				continue
			case bytecode.OpInvokestatic, bytecode.OpInvokevirtual:
				cs := callees(p, in)
				sync := 0
				for _, c := range cs {
					if p.Methods[c].Sync() {
						sync++
					}
				}
				switch {
				case sync == 0:
					continue
				case sync == len(cs):
					h.at[i] = blockAt
				default:
					// Dispatch decides: the callee by the receiver's class.
					h.at[i] = blockMaybe
					byClass := make([]int32, len(p.Classes))
					for c := range p.Classes {
						byClass[c] = p.FindMethod(int32(c), p.Methods[in.A].Name)
					}
					h.virt[i] = byClass
				}
			default:
				continue
			}
			sources, init = append(sources, i), append(init, 0)
		}
	}
	h.direct = make([][]int32, len(p.Methods))
	for mi := range p.Methods {
		h.direct[mi] = make([]int32, len(p.Methods[mi].Code))
		for pc, in := range p.Methods[mi].Code {
			h.direct[mi][pc] = -1
			if in.Op.Info().Flags&bytecode.FlagCall == 0 {
				continue
			}
			if cs := callees(p, in); len(cs) == 1 {
				h.direct[mi][pc] = cs[0]
			} else if i := g.base[mi] + int32(pc); h.virt[i] == nil {
				byClass := make([]int32, len(p.Classes))
				for c := range p.Classes {
					byClass[c] = p.FindMethod(int32(c), p.Methods[in.A].Name)
				}
				h.virt[i] = byClass
			}
		}
	}
	to := g.shortest(sources, init)
	h.pl = &place{to, g.viaHandler(to)}
	return h
}

// Places where a thread can block (deadlock.at).
const (
	blockNot   = iota // not a place to block
	blockAt           // a monitorenter, join or call of a synchronized method
	blockMaybe        // a virtual call some of whose callees are synchronized
)

// holdsWhileDisabled reports whether a thread of program p may hold a
// monitor while it is disabled: at a monitorenter, a join or a call of a
// synchronized method holding one, in a wait holding one besides the one
// it waits on (two, counted with their reentries), or ended holding one
// (an end does not release the monitors monitorenter took). If none can,
// no thread is ever disabled at a monitorenter, a synchronized call or
// for a notified thread's monitor in a deadlock, which needs the monitor
// held by another thread that is disabled: every thread is then new,
// ended, waiting or at a join.
//
// What a thread holds at an instruction is bounded by a dataflow
// analysis, saturating at 2: the monitorenters without monitorexit on a
// path from its method's entry (a monitorexit lets go of one, or of none
// of this frame's), plus 1 in a synchronized method, plus the most a
// call of the method may be made holding.
func holdsWhileDisabled(p *bytecode.Program) bool {
	depth := make([][]int8, len(p.Methods)) // per method and pc: monitorenters held
	for mi := range p.Methods {
		depth[mi] = localHolds(&p.Methods[mi])
	}
	sync := func(mi int) int8 {
		if p.Methods[mi].Sync() {
			return 1
		}
		return 0
	}
	entry := make([]int8, len(p.Methods)) // the most a call may be made holding
	for changed := true; changed; {
		changed = false
		for mi := range p.Methods {
			for pc, in := range p.Methods[mi].Code {
				if in.Op.Info().Flags&bytecode.FlagCall == 0 || depth[mi][pc] < 0 {
					continue
				}
				held := min(2, entry[mi]+sync(mi)+depth[mi][pc])
				for _, c := range callees(p, in) {
					if held > entry[c] {
						entry[c], changed = held, true
					}
				}
			}
		}
	}
	for mi := range p.Methods {
		for pc, in := range p.Methods[mi].Code {
			d := depth[mi][pc]
			if d < 0 {
				continue // unreachable
			}
			held := min(2, entry[mi]+sync(mi)+d)
			switch {
			case in.Op == bytecode.OpMonitorenter || in.Op == bytecode.OpJoin:
				if held >= 1 {
					return true
				}
			case in.Op.Info().Flags&bytecode.FlagCall != 0:
				for _, c := range callees(p, in) {
					if p.Methods[c].Sync() && held >= 1 {
						return true
					}
				}
			case in.Op == bytecode.OpWait:
				if held >= 2 {
					return true
				}
			}
			// An end: the last return, or an exception no handler takes
			// (which, unless ignored, is an error: but an error ends the
			// path, not the deadlock of others it may leave behind).
			if (in.Op.Info().Flags&bytecode.FlagReturn != 0 || mayThrow(in.Op)) && entry[mi]+d >= 1 {
				return true
			}
		}
	}
	return false
}

// localHolds returns, for each instruction of method mm, the most
// monitors a path from the method's entry to it has taken with
// monitorenter and not let go of with monitorexit, at most 2 (-1: no path
// reaches it). A handler is reached holding what the instruction that
// threw held; a monitorexit lets go of one at most.
func localHolds(mm *bytecode.Method) []int8 {
	n := int32(len(mm.Code))
	d := make([]int8, n)
	for i := range d {
		d[i] = -1
	}
	var resume []int32
	for _, h := range mm.Handlers {
		resume = append(resume, h.Target)
		if h.Kind == bytecode.HandlerFilter {
			resume = append(resume, h.Filter)
		}
	}
	for _, in := range mm.Code {
		if in.Op == bytecode.OpLeave {
			resume = append(resume, int32(in.A))
		}
	}
	flow := func(j int32, v int8) bool {
		if j < 0 || j >= n || v <= d[j] {
			return false
		}
		d[j] = v
		return true
	}
	if n > 0 {
		d[0] = 0
	}
	for changed := n > 0; changed; {
		changed = false
		for pc := range n {
			v := d[pc]
			if v < 0 {
				continue
			}
			in := mm.Code[pc]
			fl := in.Op.Info().Flags
			next := v
			switch in.Op {
			case bytecode.OpMonitorenter:
				next = min(v+1, 2)
			case bytecode.OpMonitorexit:
				next = max(v-1, 0)
			}
			if fl&bytecode.FlagNoNext == 0 {
				changed = flow(pc+1, next) || changed
			}
			if fl&bytecode.FlagBranch != 0 {
				changed = flow(int32(in.A), next) || changed
			}
			if fl&bytecode.FlagRuntimeFlow != 0 {
				for _, j := range resume {
					changed = flow(j, v) || changed
				}
			}
			if mayThrow(in.Op) {
				for _, h := range mm.Handlers {
					if h.Covers(pc) {
						changed = flow(h.Target, v) || changed
						if h.Kind == bytecode.HandlerFilter {
							changed = flow(h.Filter, v) || changed
						}
					}
				}
			}
		}
	}
	return d
}

// deadlock is the deadlock heuristic (see deadlockDistance).
type deadlock struct {
	// monitors: a thread may be disabled holding a monitor
	// (holdsWhileDisabled); if not, only joins are places to block.
	monitors bool
	g        *flowGraph
	start    int32 // the least a thread started takes (deadlockDistance)
	pl       *place
	at       []int8            // per node: blockNot, blockAt or blockMaybe
	virt     map[int32][]int32 // virtual calls of several callees: the callee by receiver class
	// direct: per method and pc, the one method a call runs, or -1
	direct [][]int32
	want   []heap.Ref // scratch: the free monitors waited for
	// Scratch of ahead: the thread's values and frames, and the heap.
	vals   []simVal
	frames []simFrame
	heap   *heap.Heap
}

func (h *deadlock) Estimate(m *vm.Machine, enabled []vm.Trans) int32 {
	sum := int32(0)
	h.want = h.want[:0]
	h.heap = &m.S.Heap
	e := 0
	for tid, t := range m.S.Threads {
		for e < len(enabled) && int(enabled[e].Thread) < tid {
			e++
		}
		on := e < len(enabled) && int(enabled[e].Thread) == tid
		switch t.Status {
		case vm.StatusRunnable:
			sum = add(sum, h.ahead(m, t, on))
		case vm.StatusNotified:
			if !h.monitors {
				sum = add(sum, 1) // it cannot stay disabled: it takes its monitor
			} else if on {
				h.wants(t.WaitObj)
			}
		}
	}
	return add(sum, int32(len(h.want)))
}

// aheadSteps bounds the instructions deadlock.ahead runs a thread ahead.
const aheadSteps = 1024

// simVal is a value of a thread run ahead (deadlock.ahead): known, or
// read from what other threads may change.
type simVal struct {
	i          int64
	ref, known bool
}

// simFrame is a frame of a thread run ahead.
type simFrame struct{ meth, pc, base int32 }

// ahead returns a lower bound of the transitions runnable thread t (on:
// enabled) takes before it is at a place where it can stay disabled in a
// deadlock (a monitorenter, a synchronized call, a join, or one
// transition beyond a wait or its last return), and notes the free
// monitor it will then wait to take (wants), if it surely will.
//
// It runs the thread ahead on a copy of its frames: its own values
// (locals and operands, and what it computes from them) are known, and
// what it reads of the heap and statics is not, since other threads may
// change that first. While the branches it comes to depend on known
// values only, its path is the one it will take, and the cost of the
// path (the instructions that begin a transition, as in the flow graph)
// is exact; where a branch depends on an unknown value, or after
// aheadSteps instructions, or at an instruction it does not run ahead
// (the exception instructions), the rest is the flow graph's distance
// from there (flowGraph.walk). An instruction that may throw may take
// the thread to a handler instead: the cost so far plus the distance
// from there is a bound of that way, and the least of all is the bound.
// Loops over a thread's own counters, which the flow graph takes as
// running any number of times, so count exactly.
func (h *deadlock) ahead(m *vm.Machine, t *vm.Thread, on bool) int32 {
	l := h.runAhead(m, t, on)
	if top := t.Frames[len(t.Frames)-1]; h.at[h.g.base[top.Method]+top.PC] == blockNot {
		l = max(l, 1) // it is not at such a place: one transition at least
	}
	return l
}

// runAhead is ahead, but for a thread not at a place to block it may
// return 0.
func (h *deadlock) runAhead(m *vm.Machine, t *vm.Thread, on bool) int32 {
	g, p := h.g, h.g.prog
	h.vals = h.vals[:0]
	for _, v := range t.Stack {
		h.vals = append(h.vals, simVal{v.I, v.Ref, true})
	}
	h.frames = h.frames[:0]
	for _, f := range t.Frames {
		h.frames = append(h.frames, simFrame{f.Method, f.PC, f.Base})
	}
	cost, best := int32(0), int32(unreachable)
	sure := true // no exception can take the thread elsewhere
	for step := 0; ; step++ {
		fr := &h.frames[len(h.frames)-1]
		node := g.base[fr.meth] + fr.pc
		code := p.Methods[fr.meth].Code
		if int(fr.pc) >= len(code) {
			return min(best, add(cost, h.rest(node)))
		}
		in := code[fr.pc]
		switch {
		case in.Op == bytecode.OpWait:
			return min(best, add(cost, 1))
		case h.at[node] != blockNot:
			return min(best, add(cost, h.blockAt(m, t, in, node, step == 0, on, sure && cost < best)))
		case cost >= best:
			return best
		case step == aheadSteps:
			return min(best, add(cost, h.rest(node)))
		}
		if mayThrow(in.Op) {
			if alt := h.rest2(node, g.pl2(h.pl, node)); alt < unreachable {
				best, sure = min(best, add(cost, alt)), false
			}
		}
		c, ok, ended := h.exec(t, in)
		if ended {
			return min(best, add(cost, 1))
		}
		if !ok {
			return min(best, add(cost, h.rest(node)))
		}
		cost = add(cost, c)
	}
}

// pl2 returns the top frame's figures for a thread at node that throws
// there: to the place and to a return from a handler covering it, and 0
// to an exception leaving the frame.
func (g *flowGraph) pl2(pl *place, node int32) [3]int32 {
	return [3]int32{pl.toH[node], g.retH[node], 0}
}

// rest returns the flow graph's bound for the thread run ahead, at node
// in its top frame: to the place, or to its end.
func (h *deadlock) rest(node int32) int32 {
	return h.rest2(node, [3]int32{h.pl.to[node], h.g.ret[node], h.g.raise[node]})
}

// rest2 is rest with the top frame's figures given (best, normal,
// thrown: as in flowGraph.walk).
func (h *deadlock) rest2(node int32, top [3]int32) int32 {
	g, pl := h.g, h.pl
	best, normal, thrown := top[0], top[1], top[2]
	for k := len(h.frames) - 2; k >= 0; k-- {
		c := g.base[h.frames[k].meth] + h.frames[k].pc
		next := add(normal, g.cost[c+1])
		best = min(best, add(next, pl.to[c+1]), add(thrown, pl.toH[c]))
		normal, thrown = min(add(next, g.ret[c+1]), add(thrown, g.retH[c])), min(thrown, add(next, g.raise[c+1]))
	}
	return min(best, add(g.ending(normal, thrown), 1))
}

// exec runs instruction in of the thread run ahead: it returns the cost
// of the node it goes to, or ok false where it cannot go on (an unknown
// branch, an instruction it does not run ahead), or ended where the
// thread's last frame returns. It changes nothing when it cannot go on.
func (h *deadlock) exec(t *vm.Thread, in bytecode.Instr) (cost int32, ok, ended bool) {
	g, p := h.g, h.g.prog
	fr := &h.frames[len(h.frames)-1]
	mm := &p.Methods[fr.meth]
	sp := int32(len(h.vals))
	need := func(n int32) bool { return sp-fr.base-mm.Locals >= n } // operands of this frame
	if !need(int32(in.Op.Info().Pop)) {
		return 0, false, false
	}
	pop := func() simVal {
		v := h.vals[len(h.vals)-1]
		h.vals = h.vals[:len(h.vals)-1]
		return v
	}
	push := func(v simVal) { h.vals = append(h.vals, v) }
	unknown := simVal{}
	next := fr.pc + 1
	switch op := in.Op; op {
	case bytecode.OpNop, bytecode.OpYield, bytecode.OpPrint:
	case bytecode.OpPush:
		push(simVal{i: in.A, known: true})
	case bytecode.OpPushNull:
		push(simVal{ref: true, known: true})
	case bytecode.OpPop, bytecode.OpPrinti, bytecode.OpPutstatic,
		bytecode.OpMonitorenter, bytecode.OpMonitorexit, bytecode.OpNotify, bytecode.OpNotifyall:
		pop()
	case bytecode.OpStart:
		pop()
		fr.pc = next
		return add(g.cost[g.base[fr.meth]+next], h.start), true, false // (the thread it starts)
	case bytecode.OpAssert:
		if v := h.vals[sp-1]; v.known && (v.ref || v.i == 0) {
			return 0, false, false // it fails (or is a type error): an error
		}
		pop()
	case bytecode.OpDup:
		push(h.vals[sp-1])
	case bytecode.OpSwap:
		h.vals[sp-1], h.vals[sp-2] = h.vals[sp-2], h.vals[sp-1]
	case bytecode.OpLoad:
		push(h.vals[fr.base+int32(in.A)])
	case bytecode.OpStore:
		h.vals[fr.base+int32(in.A)] = pop()
	case bytecode.OpInc:
		v := &h.vals[fr.base+int32(in.A)]
		if v.known && v.ref {
			return 0, false, false
		}
		v.i += in.B
	case bytecode.OpAdd, bytecode.OpSub, bytecode.OpMul, bytecode.OpAnd, bytecode.OpOr, bytecode.OpXor,
		bytecode.OpLt, bytecode.OpLe, bytecode.OpGt, bytecode.OpGe:
		a, b := h.vals[sp-2], h.vals[sp-1]
		if a.known && a.ref || b.known && b.ref {
			return 0, false, false // a type error
		}
		pop()
		pop()
		if !a.known || !b.known {
			push(unknown)
			break
		}
		push(simVal{i: arith(op, a.i, b.i), known: true})
	case bytecode.OpDiv, bytecode.OpRem, bytecode.OpShl, bytecode.OpShr, bytecode.OpUshr:
		pop()
		pop()
		push(unknown)
	case bytecode.OpNeg, bytecode.OpNot:
		a := pop()
		if a.known && a.ref {
			return 0, false, false
		}
		switch {
		case !a.known:
			push(unknown)
		case op == bytecode.OpNeg:
			push(simVal{i: -a.i, known: true})
		default:
			push(simVal{i: b2i(a.i == 0), known: true})
		}
	case bytecode.OpEq, bytecode.OpNe:
		a, b := h.vals[sp-2], h.vals[sp-1]
		if a.known && b.known && a.ref != b.ref {
			return 0, false, false
		}
		pop()
		pop()
		if !a.known || !b.known {
			push(unknown)
			break
		}
		push(simVal{i: b2i((a.i == b.i) == (op == bytecode.OpEq)), known: true})
	case bytecode.OpGoto:
		next = int32(in.A)
	case bytecode.OpIfz, bytecode.OpIfnz, bytecode.OpIfnull, bytecode.OpIfnonnull:
		a := h.vals[sp-1]
		if !a.known || a.ref != (op == bytecode.OpIfnull || op == bytecode.OpIfnonnull) {
			return 0, false, false
		}
		pop()
		if (a.i == 0) == (op == bytecode.OpIfz || op == bytecode.OpIfnull) {
			next = int32(in.A)
		}
	case bytecode.OpIfeq, bytecode.OpIfne, bytecode.OpIflt, bytecode.OpIfle, bytecode.OpIfgt, bytecode.OpIfge:
		a, b := h.vals[sp-2], h.vals[sp-1]
		if !a.known || !b.known || a.ref || b.ref {
			return 0, false, false
		}
		pop()
		pop()
		if branches(op, a.i, b.i) {
			next = int32(in.A)
		}
	case bytecode.OpTid:
		push(simVal{i: int64(t.ID), known: true})
	case bytecode.OpNew, bytecode.OpGetstatic, bytecode.OpChoose, bytecode.OpChooseb:
		push(unknown)
	case bytecode.OpGetfield, bytecode.OpNewarray, bytecode.OpNewrefarray, bytecode.OpArrlen, bytecode.OpInstanceof:
		pop()
		push(unknown)
	case bytecode.OpCheckcast:
	case bytecode.OpPutfield, bytecode.OpArrload:
		pop()
		pop()
		if op == bytecode.OpArrload {
			push(unknown)
		}
	case bytecode.OpArrstore:
		pop()
		pop()
		pop()
	case bytecode.OpNewthread:
		n := p.Methods[in.A].Args
		if !need(n) {
			return 0, false, false
		}
		h.vals = h.vals[:sp-n]
		push(unknown)
	case bytecode.OpInvokestatic, bytecode.OpInvokevirtual:
		callee := h.direct[fr.meth][fr.pc]
		n := p.Methods[in.A].Args
		if !need(n) {
			return 0, false, false
		}
		if callee < 0 { // resolved by the receiver's class
			v := h.vals[sp-n]
			byClass := h.virt[g.base[fr.meth]+fr.pc]
			if !v.known || !v.ref || v.i == 0 || byClass == nil {
				return 0, false, false
			}
			callee = -1
			if c := h.classOf(v.i); c >= 0 {
				callee = byClass[c]
			}
			if callee < 0 {
				return 0, false, false
			}
		}
		cm := &p.Methods[callee]
		h.frames = append(h.frames, simFrame{callee, 0, sp - n})
		for range cm.Locals - cm.Args {
			push(simVal{known: true})
		}
		return g.cost[g.base[callee]], true, false
	case bytecode.OpReturn, bytecode.OpRetval:
		if len(h.frames) == 1 {
			return 0, true, true
		}
		var v simVal
		if op == bytecode.OpRetval {
			v = h.vals[sp-1]
		}
		h.vals = h.vals[:fr.base]
		h.frames = h.frames[:len(h.frames)-1]
		caller := &h.frames[len(h.frames)-1]
		caller.pc++
		if op == bytecode.OpRetval {
			push(v)
		}
		return g.cost[g.base[caller.meth]+caller.pc], true, false
	default: // the exception instructions, and what else it does not run ahead
		return 0, false, false
	}
	fr.pc = next
	return g.cost[g.base[fr.meth]+next], true, false
}

// classOf returns the class of the object r refers to in the state
// Estimate estimates, or -1.
func (h *deadlock) classOf(r int64) int32 {
	hp := h.heap
	if hp == nil || !hp.Valid(heap.Ref(r)) {
		return -1
	}
	o := hp.Obj(heap.Ref(r))
	if o.Kind != heap.KindObject {
		return -1
	}
	return o.Class
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// arith computes a binary arithmetic or comparison instruction on
// integers, as the machine does.
func arith(op bytecode.Opcode, a, b int64) int64 {
	switch op {
	case bytecode.OpAdd:
		return a + b
	case bytecode.OpSub:
		return a - b
	case bytecode.OpMul:
		return a * b
	case bytecode.OpAnd:
		return a & b
	case bytecode.OpOr:
		return a | b
	case bytecode.OpXor:
		return a ^ b
	case bytecode.OpLt:
		return b2i(a < b)
	case bytecode.OpLe:
		return b2i(a <= b)
	case bytecode.OpGt:
		return b2i(a > b)
	}
	return b2i(a >= b) // OpGe
}

// branches reports whether a two-operand conditional branch is taken.
func branches(op bytecode.Opcode, a, b int64) bool {
	switch op {
	case bytecode.OpIfeq:
		return a == b
	case bytecode.OpIfne:
		return a != b
	case bytecode.OpIflt:
		return a < b
	case bytecode.OpIfle:
		return a <= b
	case bytecode.OpIfgt:
		return a > b
	}
	return a >= b // OpIfge
}

// blockAt returns the least number of transitions thread t takes at
// instruction in (node), a monitorenter, synchronized call or join where
// it may stay disabled, which it is at (now; on: enabled) or will come
// to, with the values run ahead; and notes the free monitor it waits to
// take there if sure (it surely comes there, the monitor is free now:
// some transition, this thread's or another's, takes it first).
func (h *deadlock) blockAt(m *vm.Machine, t *vm.Thread, in bytecode.Instr, node int32, now, on, sure bool) int32 {
	if now && !on {
		return 0 // disabled here
	}
	p := h.g.prog
	sp := len(h.vals)
	var v simVal
	switch in.Op {
	case bytecode.OpJoin:
		v = h.vals[sp-1]
		if !v.known {
			return 0
		}
		r := heap.Ref(v.i)
		if v.ref && m.S.Heap.Valid(r) {
			if o := m.S.Heap.Obj(r); o.Kind == heap.KindObject && o.Class == bytecode.ClassThread {
				if id := m.S.Heap.Slots(r)[0]; id >= 0 && id < int64(len(m.S.Threads)) {
					if m.S.Threads[id].Status == vm.StatusTerminated {
						return 1 // it has ended: the join goes on
					}
					return 0
				}
			}
		}
		return 1 // the join throws
	case bytecode.OpMonitorenter:
		v = h.vals[sp-1]
	default: // a call
		n := int(p.Methods[in.A].Args)
		v = h.vals[sp-n]
		if h.at[node] == blockMaybe {
			if !v.known {
				return 0
			}
			c := int32(-1)
			if cl := h.classOf(v.i); cl >= 0 && v.ref {
				c = h.virt[node][cl]
			}
			if c < 0 || !p.Methods[c].Sync() {
				return 1 // it throws, or an unsynchronized callee: it goes on
			}
		}
	}
	if !v.known {
		return 0
	}
	r := heap.Ref(v.i)
	if !v.ref || !m.S.Heap.Valid(r) {
		return 1 // no monitor: it throws, or (a static call) takes none
	}
	switch owner := m.S.Heap.Obj(r).Owner; {
	case owner == 0:
		if sure {
			h.wants(r)
		}
	case owner == t.ID+1 && now:
		return 1 // its own, and it is enabled: it can never block here
	}
	return 0
}

// wants notes free monitor r as waited for, once.
func (h *deadlock) wants(r heap.Ref) {
	if !slices.Contains(h.want, r) {
		h.want = append(h.want, r)
	}
}
