// Certifier: follows a search script (Algorithm 3.1) and checks it on the fly.

package scc

import (
	"fmt"
	bits2 "math/bits"
	"slices"
	"sync/atomic"
	"time"

	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/vm"
)

// Options configures a certification. The zero value certifies with a full
// FP map, stopping at the first property violation, without limits.
type Options struct {
	Forget   bool // drop FP entries after their last-use mark (full scripts)
	Continue bool // follow the whole script after a violation and count them all
	// MaxStates, MaxDepth and TimeLimit end certification with
	// VerdictLimit (not a pass) when reached; zero means no limit.
	MaxStates int
	MaxDepth  int
	TimeLimit time.Duration
	// MemoryLimit, in bytes, ends certification with VerdictLimit when the
	// Go runtime has mapped more; zero means no limit.
	MemoryLimit int64
	// Interrupt, if set, ends certification with VerdictLimit (limit
	// "interrupted") once it is true, as explorer.Options.Interrupt ends a
	// search; it is looked at every 1,024 entries.
	Interrupt *atomic.Bool
	// Listeners observe the certification as explorer.Listeners observe
	// a search: every state introduced (StateStored, with its
	// fingerprint), every transition executed (Transition: from and to
	// are script IDs, to -1 when it faulted; method and pc are -1),
	// errors (ErrorFound) and, about every 5 seconds, progress. Tests
	// measure coverage with them.
	Listeners []explorer.Listener
	// Digest is the program digest the script must carry; 0 means the
	// digest of the machine's program. (With extra properties linked in,
	// the machine runs a larger program than the one verified.)
	Digest uint64
	// Extra, if set, is a machine for the same program whose invariants
	// are checked in every state reached in addition to the program's own.
	// Unlike the program's own invariants a violation of them does not cut
	// the state off: the script still describes its transitions.
	Extra *vm.Machine
	// Next are invariants over consecutive states (full scripts only).
	Next []NextInvariant
	// Reducer is the partial-order reduction the script's search applied,
	// and POR its name in the script's header ("none" or empty without a
	// reducer). With it a state need only explore the persistent set the
	// reducer chooses there, unless the stack proviso asks for all its
	// transitions: when one of the set's transitions reaches a state on
	// the search stack, or faults. The machine must have the reduction's
	// vm options (escape analysis), and Extra and Next must be unset: the
	// reduced graph keeps only the properties the reduction was made for.
	Reducer explorer.Reducer
	POR     string
	// Symmetry is thread symmetry reduction, as the script's search
	// applied it (explorer.Options.Symmetry, header symmetry "threads"):
	// the threads are put in canonical order after every transition, and
	// a state's transitions are those the search keeps of them
	// (explorer.DropTwins): a twin thread's are not among them. Only for
	// programs without vm.ThreadIDUse.
	Symmetry bool
	// Chain: the script's search ran chains (explorer.Options.Chain, header
	// flag FlagChains): from the state a transition reaches, the single
	// transition each state's search would explore (the only one enabled,
	// or a singleton persistent set) runs at once as part of it, up to the
	// chain's limits, and only the chain's end is a state of the script.
	// The certifier runs the same chains, checking the invariants of the
	// states within them. Only with Reducer.
	Chain bool
}

// NextInvariant is an invariant over consecutive states: in every
// transition from a state where Pre holds, Post holds in the state
// reached. Pre and Post are machines for the program whose only invariant
// is the method in question.
type NextInvariant struct {
	Name      string
	Pre, Post *vm.Machine
}

// Result is the outcome of a certification: the verdict and figures a
// search would report, plus the script's.
type Result struct {
	explorer.Result
	Entries int64 // entries followed (init path included)
	InitLen int   // tasks: transitions of the init path
	PeakFP  int64 // most FP entries held at once
	FP      *FPMap
}

type frame struct {
	id         int32
	fp         uint64
	start, end int32 // its transitions: c.trans[start:end]
	req        int32 // those to explore: c.trans[start:req] (a persistent set, or all)
	left       int32 // how many of those are unexplored
	snap       bool
	parentSnap int32
	via        vm.Trans
	ce         int32 // with Options.Chain: the transitions chained after via are c.chain[parent's ce:ce]
	transAt    int64 // transition entries followed when it was introduced
	pre        uint64
}

// materialise is a state the script must introduce next (Options.Chain):
// the chain of transition tr from the state at level faulted at its last
// transition, bad, in a reduced state; the search then stores the state
// before the fault, reached by tr and the first n chained transitions
// (c.chain[ce:ce+n] of level's frame), and explores it fully, bad counting
// as explored.
type materialise struct {
	level int
	tr    vm.Trans
	instr bytecode.Instr
	bad   vm.Trans
	n     int32
}

type certifier struct {
	m      *vm.Machine
	s      *Script
	opts   Options
	task   bool
	trust  bool
	stack  []frame
	trans  []vm.Trans
	where  []int32 // per transition: method, pc
	done   []bool
	perm   []int32 // scratch of SortThreads
	twins  []int32 // scratch of explorer.KeptByTwins
	keep   []bool  // scratch of explorer.KeptByTwins
	snaps  []*vm.Snapshot
	loaded int // the stack level whose state the machine holds, or -1
	enc    []byte

	dense    []uint64 // FP map by ID: full scripts without --forget
	tfp      []uint64 // tasks split in this process: FP map by ID below the script's state count
	thave    []uint64 // bitset: which of tfp are set
	tn       int64
	sparse   map[int32]uint64 // the rest of the FP map (--forget, task files)
	defined  map[int32]bool   // tasks: IDs explored here, those not in tdef
	tdef     []uint64         // tasks split in this process: bitset of IDs below the state count explored here
	marked   []uint64         // bitset of IDs whose last-use mark was seen
	nmarked  int64
	highest  int32
	ref0     bool
	initPath []vm.Trans
	onStack  explorer.StackSet // with a reducer: the IDs on the search stack (a task's init path included)

	chain   []vm.Trans           // with Options.Chain: the chained transitions of the frames on the stack, then the current chain
	walk    explorer.ChainWalk   // with Options.Chain: the chain rules, as the search's
	lis     explorer.ListenerSet // Options.Listeners
	seen    []uint64             // a script with a coverage estimate: the fingerprints of the states introduced
	keepFPs bool                 // seen is wanted
	mat     *materialise
	matBuf  materialise
	initPre []byte   // with Options.Chain: the state an init path step starts from, where its caller has not encoded it
	initMat bool     // the last init path step introduced a materialised state,
	initBad vm.Trans // whose chain faulted at this transition
	initRed int64    // the last init path step's chained transitions from reduced states
	trans0  int64    // transition entries followed (Subgraphs counts these; Stats.Transitions counts chained ones too)

	root    int32     // the walk's start state: 0, or a task's root
	rootFP  uint64    // its fingerprint
	rootBad *vm.Trans // a task's root is a materialised state whose chain faulted at this transition
	src     entrySource
	e       *Entry // the entry being followed, the pos'th
	cur     step   // what it has established so far
	taken   bool   // e was read (pos moves on with the next)
	ended   bool   // the script has no entry left
	err     error  // why the walk stopped: a discrepancy, a bad script

	res          Result
	pos          int64
	stopped      bool
	start        time.Time
	lastProgress time.Time
}

// Certify follows script s on machine m (Algorithm 3.1; for trustful
// scripts, a perfect search without fingerprints) and checks the program's
// properties in every state. It returns a *Discrepancy when the script does
// not describe the program's reachability graph, an error wrapping
// ErrMismatch when it belongs to another program or options, and otherwise
// the verdict and figures. A VerdictOK result means every state and every
// transition of the reachability graph (for trustful scripts, every state)
// was checked.
func Certify(m *vm.Machine, s *Script, opts Options) (*Result, error) {
	digest := opts.Digest
	if digest == 0 {
		digest = bytecode.Digest(m.Program())
	}
	por := opts.POR
	if por == "" {
		por = "none"
	}
	if (opts.Reducer == nil) != (por == "none") {
		return nil, fmt.Errorf("certification with reduction %q needs its reducer", por)
	}
	if opts.Reducer != nil && (opts.Extra != nil || len(opts.Next) > 0) {
		return nil, fmt.Errorf("extra invariants need a script of the unreduced search (verify and certify with --por none): partial-order reduction keeps only the states the program's own properties need")
	}
	if opts.Symmetry {
		if _, _, found := vm.ThreadIDUse(m.Program()); found {
			return nil, fmt.Errorf("symmetry reduction needs a program that never reads a thread's id")
		}
	}
	if opts.Chain && opts.Reducer == nil {
		return nil, fmt.Errorf("chains need a reduction (a reducer)")
	}
	if err := s.Match(digest, m.Options().Granularity.String(), por, m.Options().DeadLocals, opts.Symmetry, opts.Chain); err != nil {
		return nil, err
	}
	c := &certifier{m: m, s: s, opts: opts, task: s.IsTask(), trust: s.Trustful(), loaded: -1, start: time.Now(),
		onStack: explorer.NewStackSet(1 << 26), walk: explorer.NewChainWalk(opts.Reducer, opts.Symmetry),
		lis: explorer.NewListenerSet(opts.Listeners)}
	c.lastProgress = c.start
	if c.trust && len(opts.Next) > 0 {
		return nil, fmt.Errorf("invariants over consecutive states need a tamper-proof script: a trustful one does not cover every transition")
	}
	if c.task || opts.Forget || c.trust {
		c.sparse = make(map[int32]uint64)
	}
	if c.task {
		c.defined = make(map[int32]bool)
		if v := s.view; v != nil && !c.trust {
			n := len(v.sc.newAt) // the number of states
			c.tfp, c.thave, c.tdef = make([]uint64, n), make([]uint64, n/64+1), make([]uint64, n/64+1)
		}
	} else if !c.trust && !opts.Forget {
		c.dense = make([]uint64, 0, min(s.States, int64(len(s.Body[colTag]))+1))
	}
	c.keepFPs = s.HasCoverage() && !c.task
	err := c.run()
	if err == nil && c.keepFPs {
		c.res.Coverage = c.estimate()
	}
	st := &c.res.Stats
	st.Elapsed = time.Since(c.start)
	if opts.Symmetry && c.res.Fault != nil {
		// The path's thread ids are those of the sorted states: rewrite
		// them into a plain run's, as the search does, so it replays.
		c.res.Path = explorer.ConcretePath(m, c.res.Path, c.res.Fault)
	}
	switch {
	case c.res.Fault != nil:
		c.res.Verdict = explorer.VerdictOf(c.res.Fault.Kind)
	case c.res.Limit != "":
		c.res.Verdict = explorer.VerdictLimit
	}
	if err != nil {
		return &c.res, err
	}
	if c.task {
		c.res.FP = c.fpMap()
	}
	return &c.res, nil
}

func (c *certifier) fpGet(id int32) (uint64, bool) {
	if c.dense != nil {
		if int(id) < len(c.dense) {
			return c.dense[id], true
		}
		return 0, false
	}
	if int(id) < len(c.tfp) {
		if c.thave[id>>6]&(1<<(id&63)) != 0 {
			return c.tfp[id], true
		}
		return 0, false
	}
	fp, ok := c.sparse[id]
	return fp, ok
}

func (c *certifier) fpSet(id int32, fp uint64) {
	switch {
	case c.dense != nil:
		c.dense = append(c.dense, fp) // ids arrive in order
	case int(id) < len(c.tfp):
		if c.thave[id>>6]&(1<<(id&63)) == 0 {
			c.thave[id>>6] |= 1 << (id & 63)
			c.tn++
		}
		c.tfp[id] = fp
	default:
		c.sparse[id] = fp
	}
	if n := c.fpLen(); n > c.res.PeakFP {
		c.res.PeakFP = n
	}
}

func (c *certifier) fpLen() int64 {
	if c.dense != nil {
		return int64(len(c.dense))
	}
	return int64(len(c.sparse)) + c.tn
}

// fpIDs returns the IDs in the FP map, ascending.
func (c *certifier) fpIDs() []int32 {
	ids := make([]int32, 0, c.fpLen())
	for w, bits := range c.thave {
		for ; bits != 0; bits &= bits - 1 {
			ids = append(ids, int32(w<<6+bits2.TrailingZeros64(bits)))
		}
	}
	for id := range c.sparse {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// define notes that the task explores state id.
func (c *certifier) define(id int32) {
	if int(id) < len(c.tfp) {
		c.tdef[id>>6] |= 1 << (id & 63)
		return
	}
	c.defined[id] = true
}

// isDefined reports whether the task explores state id.
func (c *certifier) isDefined(id int32) bool {
	if int(id) < len(c.tfp) {
		return c.tdef[id>>6]&(1<<(id&63)) != 0
	}
	return c.defined[id]
}

// mark notes the last-use mark of id; it reports false if id had one.
func (c *certifier) mark(id int32) bool {
	w := int(id >> 6)
	for len(c.marked) <= w {
		c.marked = append(c.marked, 0)
	}
	if c.marked[w]&(1<<(id&63)) != 0 {
		return false
	}
	c.marked[w] |= 1 << (id & 63)
	c.nmarked++
	return true
}

func (c *certifier) isMarked(id int32) bool {
	w := int(id >> 6)
	return w < len(c.marked) && c.marked[w]&(1<<(id&63)) != 0
}

// fingerprint returns the fingerprint of the machine's state, and encodes
// the state into c.enc if extra properties will read it; otherwise c.enc
// is left as it was (vm.Machine.EncodeFingerprint: a state visited before
// costs only the records that changed).
func (c *certifier) fingerprint() uint64 {
	if c.opts.Extra == nil && len(c.opts.Next) == 0 {
		return c.m.EncodeFingerprint()
	}
	c.enc = c.m.Encode(c.enc[:0])
	return c.m.Fingerprint()
}

// record notes a property violation; path is the way to it.
func (c *certifier) record(f *vm.Fault, last *vm.Trans) {
	if f.Kind == vm.FaultLimit {
		// A limit of the machine (one lower than verify's): certification
		// cannot follow the script past it, and ends with verdict limit.
		c.res.Limit, c.stopped = f.Limit.String(), true
	} else {
		c.res.Stats.Errors++
	}
	if len(c.lis.Error) > 0 && f.Kind != vm.FaultLimit {
		var fp uint64 // the state's, for an error of a state (as the search gives it)
		if last == nil && len(c.stack) > 0 {
			fp = c.stack[len(c.stack)-1].fp
		}
		for _, l := range c.lis.Error {
			l.ErrorFound(f, fp)
		}
	}
	if c.res.Fault == nil {
		cp := *f
		c.res.Fault = &cp
		p := append([]vm.Trans(nil), c.initPath...)
		for i := 1; i < len(c.stack); i++ {
			p = append(p, c.stack[i].via)
			p = append(p, c.chain[c.stack[i-1].ce:c.stack[i].ce]...)
		}
		if last != nil {
			// A transition of the top state and its chain so far.
			p = append(p, *last)
			if n := len(c.stack); n > 0 && int(c.stack[n-1].ce) <= len(c.chain) {
				p = append(p, c.chain[c.stack[n-1].ce:]...)
			}
		}
		c.res.Path = p
	}
	if !c.opts.Continue {
		c.stopped = true
	}
}

// enter checks the properties of the state the machine holds, just
// reached (by via, unless it is the start), and pushes it.
func (c *certifier) enter(id int32, fp uint64, via vm.Trans) {
	c.enterChained(id, fp, via, int32(len(c.chain)))
}

// enterChained is enter for a state reached by via and the chained
// transitions after it, c.chain from the top frame's ce to ce (a frame's
// chain starts where its parent's ends: follow cuts c.chain back to the
// top frame's ce before each transition).
func (c *certifier) enterChained(id int32, fp uint64, via vm.Trans, ce int32) {
	if c.trust && (len(c.lis.State) > 0 || c.keepFPs) {
		fp = c.fingerprint() // fingerprints only for the observer and the estimate
	}
	for _, l := range c.lis.State {
		l.StateStored(id, fp)
	}
	if c.keepFPs {
		c.seen = append(c.seen, fp)
	}
	level := len(c.stack)
	start := int32(len(c.trans))
	f := frame{id: id, fp: fp, start: start, end: start, via: via, ce: ce, transAt: c.trans0, parentSnap: -1}
	c.stack = append(c.stack, f)
	if level > c.res.Stats.MaxDepth {
		c.res.Stats.MaxDepth = level
	}
	top := &c.stack[level]
	if c.opts.Extra != nil || len(c.opts.Next) > 0 {
		if c.trust { // no fingerprint was computed
			c.enc = c.m.Encode(c.enc[:0])
		}
		enc := c.enc
		if c.opts.Extra != nil {
			c.opts.Extra.Decode(enc)
			if fault := c.opts.Extra.CheckInvariants(); fault != nil {
				c.record(fault, nil)
			}
		}
		for i, n := range c.opts.Next {
			n.Pre.Decode(enc)
			if n.Pre.CheckInvariants() == nil {
				top.pre |= 1 << i
			}
		}
	}
	var fault *vm.Fault
	c.trans, fault, _ = explorer.CheckState(c.m, true, c.trans)
	top.end = int32(len(c.trans))
	if fault != nil {
		c.record(fault, nil)
		return
	}
	// As the search does when it pushes a state: free the objects no root
	// reaches, so that this state's snapshot and everything run from it
	// carry only the live heap (the encoding, fingerprints and analyses
	// are unchanged by it). The fingerprint just computed was the mark.
	// A trustful certifier computes none, and a mark of its own cost it
	// 17-33% of its time: it does not collect.
	if !c.trust {
		c.res.Stats.Freed += int64(c.m.CollectGarbage())
	}
	top.req = top.end
	if !c.trust {
		// The transitions to explore, decided as the search decides.
		top.req = start + int32(explorer.PersistentSet(c.opts.Reducer, c.m, c.trans[start:top.end]))
		if top.req < top.end {
			c.res.Stats.Reduced++
		}
		if c.opts.Symmetry && top.end-start >= 2 {
			var n, req int
			n, req, c.twins, c.keep = explorer.DropTwins(c.m, c.trans[start:top.end], int(top.req-start), c.twins, c.keep)
			top.end, top.req = start+int32(n), start+int32(req)
			c.trans = c.trans[:top.end]
		}
	}
	c.setOnStack(id, true)
	for i := start; i < top.end; i++ {
		meth, pc := c.m.Where(c.trans[i].Thread)
		c.where = append(c.where, meth, pc)
		c.done = append(c.done, false)
	}
	top.left = top.req - start
	c.loaded = level
	if level > 0 {
		below := &c.stack[level-1]
		top.parentSnap = below.parentSnap
		if below.snap {
			top.parentSnap = int32(level - 1)
		}
	}
	if top.end-start >= 2 || (c.opts.Chain && top.end > start) {
		// (A reduced state may yet have to explore all; with chains, a
		// state may have to be loaded again for a materialised state.)
		for len(c.snaps) <= level {
			c.snaps = append(c.snaps, new(vm.Snapshot))
		}
		var parent *vm.Snapshot
		if top.parentSnap >= 0 {
			parent = c.snaps[top.parentSnap]
		}
		if level >= explorer.DeltaSnapDepth && parent != nil {
			// As the explorer does: deep paths of heap-heavy programs cost
			// a few words per level instead of a copy of the heap.
			c.m.SaveDelta(c.snaps[level], parent)
		} else {
			c.m.Save(c.snaps[level], parent)
		}
		top.snap = true
	}
}

// setOnStack notes that state id is on the search stack or has left it
// (with a reducer only: the stack proviso asks).
func (c *certifier) setOnStack(id int32, on bool) {
	if c.opts.Reducer != nil {
		c.onStack.Set(id, on)
	}
}

// expandFully makes the reduced state on top of the stack explore all its
// transitions, as the stack proviso asks.
func (c *certifier) expandFully(top *frame) {
	for i := top.req; i < top.end; i++ {
		if !c.done[i] {
			top.left++
		}
	}
	top.req = top.end
	c.res.Stats.Provisos++
}

// initStep takes init path entry e from the machine's state: e must
// introduce a state by a transition enabled there, with the script's
// instruction, that does not fault (with Options.Chain: nor its chain,
// unless the state is a materialised one). where names the entry and the
// state for messages (called only for one). pre is the encoding of the
// machine's state if the caller has it (with Options.Chain a
// materialised state is rebuilt from it; nil: initStep encodes the state
// itself). buf is scratch, returned grown. It returns the instructions
// executed; with Options.Chain the transitions chained after e's are
// c.chain.
func (c *certifier) initStep(buf []vm.Trans, e Entry, pre []byte, where func() (entry, state string)) ([]vm.Trans, int64, error) {
	tr := vm.Trans{Thread: e.Thread, Choice: e.Choice}
	if e.Op != OpNew {
		at, _ := where()
		return buf, 0, corrupt(-1, "%s is a %s entry", at, e.Op)
	}
	buf = c.m.Enabled(buf[:0])
	ok := false
	for _, t := range buf {
		if t == tr {
			ok = c.instrAt(c.m.Where(tr.Thread)) == e.Instr
		}
	}
	if !ok {
		at, state := where()
		return buf, 0, discrepancy(NotEnabled, -1, "%s: %s is not a transition of %s", at, c.describe(tr, e.Instr), state)
	}
	c.chain = c.chain[:0]
	c.initMat, c.initRed = false, 0
	if c.opts.Chain && pre == nil {
		c.initPre = c.m.Encode(c.initPre[:0])
		pre = c.initPre
	}
	f := c.step(tr)
	instr := int64(c.m.Executed())
	if f == nil && c.opts.Chain {
		var reduced bool
		f, reduced, _, instr = c.runChain(false, instr)
		if f != nil && reduced {
			// A materialised state: the one before the fault.
			n := len(c.chain) - 1
			c.m.Decode(pre)
			f = c.step(tr)
			for _, t := range c.chain[:n] {
				if f == nil {
					f = c.step(t)
				}
			}
			if f != nil {
				return buf, 0, fmt.Errorf("internal error: a chain did not replay")
			}
			c.initMat, c.initBad = true, c.chain[n]
			c.chain = c.chain[:n]
		}
	}
	if f != nil && f.Kind == vm.FaultLimit {
		c.record(f, &tr)
		return buf, instr, errLimit
	}
	if f != nil {
		at, _ := where()
		how := "faults"
		if len(c.chain) > 0 {
			how = "faults in its chain"
		}
		return buf, 0, discrepancy(FaultMismatch, -1, "%s: %s %s (%s)", at, c.describe(tr, e.Instr), how, f.Msg)
	}
	return buf, instr, nil
}

// runChain runs, from the state a transition just reached, the single
// transition each state's search would explore, as the search did
// (explorer.Options.Chain, without sleep sets), appending them to c.chain:
// until a state has no transition or more than one to explore, its
// backward jump past explorer.MaxChainLoops, or explorer.MaxChain steps.
// It checks the invariants of every state it leaves. It returns the fault
// of a chained transition, or an invariant violation (inv), whether that
// transition was a singleton persistent set out of more (reduced), and
// instr plus the instructions executed. count says whether the chained
// transitions count in the figures (not in an init path).
func (c *certifier) runChain(count bool, instr int64) (f *vm.Fault, reduced, inv bool, _ int64) {
	c.walk.Begin()
	for {
		t, cnt, _, ok := c.walk.Next(c.m)
		if !ok {
			return nil, false, false, instr
		}
		if f := explorer.Invariants(c.m, true); f != nil {
			return f, false, true, instr
		}
		c.chain = append(c.chain, t)
		f := c.step(t)
		instr += int64(c.m.Executed())
		if count {
			c.res.Stats.Chained++
			if cnt > 1 {
				c.res.Stats.ChainedReduced++
			}
			c.res.Stats.Transitions++
		} else if cnt > 1 {
			c.initRed++
		}
		if f != nil {
			return f, cnt > 1, false, instr
		}
	}
}

// step executes tr and, with Options.Symmetry, puts the threads of the
// state reached in canonical order, as the script's search did.
func (c *certifier) step(tr vm.Trans) *vm.Fault {
	f := c.m.Step(tr)
	if f == nil && c.opts.Symmetry {
		c.perm, _ = c.m.SortThreads(c.perm)
	}
	return f
}

// describe formats a transition for messages.
func (c *certifier) describe(tr vm.Trans, in bytecode.Instr) string {
	s := fmt.Sprintf("thread %d %s", tr.Thread, bytecode.FormatInstr(c.m.Program(), in))
	if in.Op == bytecode.OpInvalid {
		s = fmt.Sprintf("thread %d (no instruction)", tr.Thread)
	}
	if tr.Choice != 0 {
		s += fmt.Sprintf(" choice %d", tr.Choice)
	}
	return s
}

func (c *certifier) instrAt(meth, pc int32) bytecode.Instr {
	p := c.m.Program()
	if meth < 0 || int(meth) >= len(p.Methods) || pc < 0 || int(pc) >= len(p.Methods[meth].Code) {
		return bytecode.Instr{}
	}
	return p.Methods[meth].Code[pc]
}

// end checks the state of things when the script has been followed to its
// end.
func (c *certifier) end(dec *coder) error {
	if c.pos != c.s.Entries {
		return corrupt(-1, "the body has %d entries, the header says %d", c.pos, c.s.Entries)
	}
	if dec != nil {
		if err := dec.leftover(); err != nil {
			return err
		}
	}
	if c.s.Limited() {
		// The part of the search the script records was certified, and
		// no more: certification ends at the script's limit.
		c.res.Limit = LimitScript
	}
	if len(c.stack) > 0 && !c.s.Limited() {
		if !c.s.Complete() && c.res.Stats.Errors > 0 {
			return nil // the verification stopped at an error, and the certifier found one too
		}
		return discrepancy(Truncated, c.pos, "the script ends with %d states on the stack, state %d not fully explored", len(c.stack), c.stack[len(c.stack)-1].id)
	}
	if c.task || c.trust {
		return nil
	}
	states := int64(c.highest) + 1
	if int64(len(c.s.Subgraph)) != states {
		return discrepancy(Subgraphs, -1, "the Subgraphs list has %d entries for %d states", len(c.s.Subgraph), states)
	}
	if want := states - 1; c.ref0 {
		want++
		if c.nmarked != want {
			return discrepancy(Marks, -1, "%d of %d state IDs have a last-use mark", c.nmarked, want)
		}
	} else if c.nmarked != want {
		return discrepancy(Marks, -1, "%d of %d state IDs have a last-use mark", c.nmarked, want)
	}
	if (c.s.Complete() || c.s.Limited()) && c.res.Stats.Errors == 0 && (c.s.States != states || c.s.Transitions != c.res.Stats.Transitions) {
		return discrepancy(BadHeader, -1, "the header claims %d states and %d transitions, the script has %d and %d", c.s.States, c.s.Transitions, states, c.res.Stats.Transitions)
	}
	return nil
}

// LimitScript is Result.Limit for a script whose search a limit cut off
// (Header.Limited): certification checked the part it records and ends
// with VerdictLimit there, never a pass.
const LimitScript = "script"

// estimate computes the coverage estimate of the script's header again
// (explorer.EstimateStored) from the states this certification checked,
// with the header's estimator, seed and sample budget: the same figures
// when they are the states the verification stored. It is nil when this
// mcvm's estimator of that name needs more than the stored states.
func (c *certifier) estimate() *explorer.Coverage {
	h := &c.s.Coverage
	e, ok := explorer.ParseEstimator(h.Estimator)
	if !ok || !e.Stored() {
		return nil
	}
	// The search the script records, as far as the estimator asks.
	o := explorer.Options{Order: explorer.DFS, Proviso: explorer.ProvisoStack, Reducer: c.opts.Reducer, Chain: c.opts.Chain, Symmetry: c.opts.Symmetry}
	// A sorted slice: 8 bytes a state, a fifth of a Go map's. (Distinct
	// fingerprints are the states visited, whatever IDs a script gives.)
	slices.Sort(c.seen)
	c.seen = slices.Compact(c.seen)
	has := func(m *vm.Machine) bool {
		_, ok := slices.BinarySearch(c.seen, m.EncodeFingerprint())
		return ok
	}
	return explorer.EstimateStored(c.m, &o, e, int64(len(c.seen)), h.Budget, h.Seed, has)
}

func (c *certifier) prevInit(init []Entry, i int) int32 {
	if i == 0 {
		return 0
	}
	return init[i-1].ID
}

// limited checks the limits (every 1024 entries); it returns true when
// certification must stop.
func (c *certifier) limited() bool {
	o := &c.opts
	if len(c.lis.Progress) > 0 && time.Since(c.lastProgress) >= 5*time.Second {
		c.lastProgress = time.Now()
		st := c.res.Stats
		st.Elapsed = time.Since(c.start)
		for _, l := range c.lis.Progress {
			l.Progress(st)
		}
	}
	switch {
	case o.Interrupt != nil && o.Interrupt.Load():
		c.res.Limit = "interrupted"
	case o.MemoryLimit > 0 && c.pos&(1<<14-1) == 0 && explorer.MemoryInUse() > o.MemoryLimit:
		c.res.Limit = "memory"
	case o.MaxStates > 0 && c.res.Stats.States >= int64(o.MaxStates):
		c.res.Limit = "states"
	case o.TimeLimit > 0 && time.Since(c.start) >= o.TimeLimit:
		c.res.Limit = "time"
	case o.MaxDepth > 0 && c.res.Stats.MaxDepth > o.MaxDepth:
		c.res.Limit = "depth"
	}
	return c.res.Limit != ""
}

// compare checks that id maps to fp, adding it if it is not mapped yet
// (tasks: a state of another task's region).
func (c *certifier) compare(id int32, fp uint64, pos int64) error {
	old, ok := c.fpGet(id)
	if !ok {
		if !c.task {
			return discrepancy(BadID, pos, "state %d is not in the FP map", id)
		}
		c.fpSet(id, fp)
		return nil
	}
	if old != fp {
		return discrepancy(FPMismatch, pos, "state %d has fingerprint %016x here and %016x where it was introduced", id, fp, old)
	}
	return nil
}

// expandMaterialised makes materialised state nt explore all its
// transitions, bad, which faults in its chain, counting as explored.
func (c *certifier) expandMaterialised(nt *frame, bad vm.Trans) {
	if nt.req < nt.end {
		c.expandFully(nt)
	}
	for i := nt.start; i < nt.end; i++ {
		if c.trans[i] == bad {
			if !c.done[i] {
				c.done[i] = true
				if i < nt.req {
					nt.left--
				}
			}
			break
		}
	}
}

// transition reports a transition from state from to state to (-1: it
// faulted) to the listeners.
func (c *certifier) transition(from int32, tr vm.Trans, to int32, isNew bool) {
	for _, l := range c.lis.Transition {
		l.Transition(from, tr, -1, -1, to, isNew)
	}
}
