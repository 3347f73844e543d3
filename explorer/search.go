// Search: the skeleton every search order shares: setting up, visiting and checking states, limits, results.

package explorer

import (
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"mcvm/vm"
)

// Search explores the state space of the machine's program from its
// initial state.
func Search(m *vm.Machine, opts Options) *Result {
	start := time.Now()
	s := newSearch(m, opts, start, false)
	s.explore()
	if s.sl.retaint {
		// Sleep sets without tainting met an invariant violation, which
		// is not expanded: what they left asleep may have needed it.
		// Search again, with tainting (Options.Sleep).
		peak := s.stats.PeakMemory
		s = nil
		runtime.GC()
		debug.FreeOSMemory()
		s = newSearch(m, opts, start, true)
		s.stats.PeakMemory = peak
		s.stats.SleepAgain = true
		s.explore()
	}
	s.estimateCoverage()
	return s.result()
}

// newSearch sets up a search; taint: with sleep sets, Continue and
// invariants, keep threads awake whose transitions' subtrees may hold a
// violation (otherwise such a search stops at the first violation and
// Search starts it again with taint).
func newSearch(m *vm.Machine, opts Options, start time.Time, taint bool) *search {
	return newSearchIn(m, opts, start, taint, nil)
}

// newSearchIn is newSearch with the visited set store (nil: the one
// Options.Storage names).
func newSearchIn(m *vm.Machine, opts Options, start time.Time, taint bool, store visitedSet) *search {
	if opts.Coverage == EstimatorThesis {
		opts.Order = BFS // then depth-first from sampled transitions (thesisSearch)
	}
	s := &search{m: m, opts: opts, tune: opts.tuning(), start: start, loaded: -1, lis: NewListenerSet(opts.Listeners),
		onStack: NewStackSet(math.MaxInt32), expanding: -1}
	if opts.Coverage == EstimatorChao && (opts.Storage == StorageExact || opts.Storage == StorageCollapse) {
		s.hits = make([]uint8, 0, 1024)
	}
	s.store = store
	if store == nil {
		s.store = newVisitedSet(&opts, s.tune)
	}
	s.exact, _ = s.store.(keeper)
	s.collapse, _ = s.store.(*CollapseStore)
	switch c := s.store.(type) {
	case *cacheStore:
		s.cache = c
	case compactCache:
		s.cache = c.c
	}
	s.proviso = opts.Proviso.Resolve(opts.Order)
	if s.proviso == ProvisoStack && opts.Order != DFS && opts.Order != IDA {
		s.proviso = ProvisoDuplicate
	}
	s.tracking = s.cache != nil || (s.proviso == ProvisoStack && opts.Reducer != nil) || opts.Dynamic != nil
	s.chaining = opts.Chain && opts.ChainFits(opts.Reducer != nil) == nil
	if s.chaining {
		s.walk = NewChainWalk(opts.Reducer, opts.Symmetry)
	}
	s.collecting = opts.CollectsGarbage()
	sl, ok := opts.Reducer.(Sleeper)
	if opts.Dynamic != nil {
		sl, ok = opts.Dynamic.(Sleeper)
	}
	if ok && opts.Sleep && opts.SleepFits(true) == nil {
		s.sl.on, s.sl.sleeper = true, sl
		if opts.Continue && len(m.Program().Invariants) > 0 {
			s.sl.tainting, s.sl.optimistic = taint, !taint
		}
	}
	if opts.Order == DFS && (s.collapse != nil || s.tune.WindowExact && s.exact != nil) && opts.Dynamic == nil {
		// (Dynamic reduction compares raw references along the path,
		// which only snapshots keep.)
		s.window = s.tune.SnapWindow
	}
	s.pf = s.lookaheadFor()
	if s.opts.ProgressEvery <= 0 {
		s.opts.ProgressEvery = 5 * time.Second
	}
	s.nextProgress = s.start.Add(s.opts.ProgressEvery)
	return s
}

// explore runs the search.
func (s *search) explore() {
	s.m.Init()
	switch s.opts.Order {
	case DFS:
		DepthFirst(s)
	case BFS:
		if s.opts.Coverage == EstimatorThesis {
			s.thesisSearch()
			return
		}
		s.frontier = new(queue)
		s.expandAll()
	case IDA:
		s.idaStar()
	default:
		s.prio = &prioQueue{astar: s.opts.Order == AStar, depth: &s.depth}
		s.frontier = s.prio
		s.expandAll()
	}
}

// result sums up the search.
func (s *search) result() *Result {
	if s.opts.Order != IDA {
		s.stats.States = int64(s.store.size())
	}
	s.stats.Store = s.store.account()
	if s.sl.on {
		s.stats.Store.SleepBytes = int64(cap(s.sl.of)) * 8
		s.stats.Store.Bytes += s.stats.Store.SleepBytes
	}
	s.stats.StoreBytes = s.stats.Store.Bytes
	if s.cache != nil {
		s.stats.Cache = s.cache.stats
	}
	if s.opts.Order == DFS {
		s.stats.StackBytes = s.stackBytes()
	}
	s.stats.Elapsed = time.Since(s.start)
	s.samplePeak()
	if s.opts.Symmetry && s.fault != nil {
		s.path = concretePath(s.m, s.path, s.fault)
	}
	if s.opts.Symmetry {
		for i := range s.viol {
			s.viol[i].Path = concretePath(s.m, s.viol[i].Path, &s.viol[i].Fault)
		}
	}
	s.stats.Levels = levels(s.depth)
	r := &Result{Stats: s.stats, Fault: s.fault, Path: s.path, Limit: s.limit, Violations: s.viol, Coverage: s.coverage}
	switch {
	case s.fault != nil:
		r.Verdict = VerdictOf(s.fault.Kind)
	case s.limit != "":
		r.Verdict = VerdictLimit
	}
	return r
}

// levels returns how many states a frontier search stored at each depth,
// from the depths it keeps (nil for a search that keeps none).
func levels(depth []int32) []int64 {
	var n []int64
	for _, d := range depth {
		for len(n) <= int(d) {
			n = append(n, 0)
		}
		n[d]++
	}
	return n
}

type search struct {
	coverage *Coverage // Options.Coverage's estimate
	thesis   *thesisRun
	// hits: with EstimatorChao and an exact store, how often each state
	// was reached (the initial state counts once), up to 255.
	hits []uint8
	// expanding: the state a frontier search is expanding, or -1.
	expanding int32
	m         *vm.Machine
	opts      Options
	tune      Tuning
	lis       ListenerSet
	store     visitedSet
	bounded   bool // the store is full or holds MaxStates states (see visit)
	// pf: the store's prefetcher if the search looks ahead (ahead.go),
	// else nil.
	pf prefetcher
	// stash: the encodings of the last two lookaheads (sx the newer), of
	// the transitions stashTr.
	stash    [2]vm.FPStash
	stashTr  [2]vm.Trans
	sx       int
	exact    keeper         // store, when it is an exact one (it keeps encodings)
	collapse *CollapseStore // store, when it is the collapse store
	cache    *cacheStore    // store, when it is a cache (Options.Cache): told of pushes and pops
	// tracking: pushes and pops are told to setOnStack (the stack proviso,
	// dynamic reduction) or to the cache; without either, neither is called.
	tracking bool
	cuts     []int32          // with collapse: where the components of enc end
	frontier frontier         // BFS: the states to expand
	deep     []byte           // DFS with a lossy store: encodings of levels without snapshots
	stackFP  map[uint64]int32 // DFS, lossy store, stack proviso: fingerprints on the stack
	stats    Stats
	start    time.Time

	enc    []byte
	z      uint64 // DFS with sleep sets: the sleep set of the state the transition taken last reached
	lastFP uint64 // the fingerprint of the state visit stored last
	trans  []vm.Trans
	loaded int32 // the stored state the machine holds unchanged, or -1

	stack  []frame // DFS
	top    *frame  // &stack[len(stack)-1], or nil when the stack is empty
	rng    *rand.Rand
	snaps  []*vm.Snapshot
	window int            // DFS: levels this far below the top lose their snapshots (0: never; see evict)
	low    int            // DFS with a window: no level below it keeps a snapshot
	spare  []*vm.Snapshot // snapshots evicted, to save into again
	parent []int32        // BFS: state -> parent state
	via    []vm.Trans     // BFS: state -> transition from its parent
	depth  []int32        // BFS: state -> depth (with AStar, of the shortest path found)
	hval   []int32        // BestFirst, AStar: state -> its heuristic estimate
	prio   *prioQueue     // BestFirst, AStar: the frontier
	goal   int32          // AStar: the length of the path to the error recorded (see keepShorter)
	goalID int32          // AStar: the state whose error it is, or -1 for a transition's
	ida    *idaWalk       // IDA
	level  []vm.Trans     // BFS: the transitions of the state being expanded
	bsnap  vm.Snapshot    // BFS: the state being expanded

	fault *vm.Fault
	path  []vm.Trans
	limit string
	stop  bool
	// viol and violKey hold Options.KeepViolations' violations and
	// their keys (violationKey).
	viol    []Violation
	violKey map[violationKey]int

	nextProgress time.Time
	checks       int

	stepMethod, stepPC int32 // where the last transition began (for Listener.Transition)

	// With Options.Symmetry: the renaming of the threads after the last
	// transition (perm[i] is the old index of thread i), if moved.
	perm  []int32
	moved bool
	twins []int32 // scratch of dropTwins
	keep  []bool  // scratch of dropTwins

	proviso Proviso
	// share: the parallel depth-first search this search is a worker of,
	// to give states to its idle workers (nil: a search of its own).
	share *pdfs
	base  []byte // BFS: the encoding of the state being expanded, written again
	// chaining: Options.Chain applies; chain: the chained transitions of
	// the DFS stack's current transitions (see frame.cs).
	chaining bool
	chain    []vm.Trans
	walk     ChainWalk
	// collecting: depth-first search collects the garbage of each state it
	// expands before its transitions are chosen and its snapshot taken.
	collecting bool
	sl         sleepSets  // DFS with sleep sets (Options.Sleep)
	tmp        []vm.Trans // scratch
	onStack    StackSet   // DFS with ProvisoStack: states on the stack
	sticky     bool       // BFS with ProvisoStatic: the reduced set took a sticky transition
	faulted    bool       // BFS: a transition of the reduced set faulted
}

// transition reports a transition to the listeners.
func (s *search) transition(from int32, tr vm.Trans, to int32, isNew bool) {
	for _, l := range s.lis.Transition {
		l.Transition(from, tr, s.stepMethod, s.stepPC, to, isNew)
	}
}

// visit stores the machine's current state and returns its id and whether
// it is new.
func (s *search) visit() (int32, bool) {
	var fp uint64
	switch {
	case s.collapse != nil:
		s.enc, s.cuts = s.m.EncodeSplit(s.enc[:0], s.cuts[:0])
		fp = s.m.Fingerprint()
	case s.exact != nil:
		s.enc = s.m.Encode(s.enc[:0])
		fp = s.m.Fingerprint()
	default:
		// A lossy store keeps fingerprints only: the encoding is written
		// where a new state needs it (encoding), and a state visited
		// before costs only the records that changed.
		fp = s.m.EncodeFingerprint()
		s.enc = s.enc[:0]
	}
	s.lastFP = fp
	return s.add(fp)
}

// add stores the state visit encoded (s.enc, s.cuts), of fingerprint fp,
// and returns its id and whether it is new.
func (s *search) add(fp uint64) (int32, bool) {
	id, isNew := s.store.add(s.enc, s.cuts, fp)
	if s.hits != nil && id >= 0 {
		if isNew {
			s.hits = append(s.hits, 1)
		} else if s.hits[id] < 255 {
			s.hits[id]++
		}
	}
	if isNew && (s.store.full() || s.opts.MaxStates > 0 && s.store.size() >= s.opts.MaxStates) {
		// (Only an addition fills the store or reaches the bound: tick
		// looks at this instead of asking the store at every step.)
		s.bounded = true
	}
	if isNew {
		for _, l := range s.lis.State {
			l.StateStored(id, fp)
		}
	}
	return id, isNew
}

// encoding returns the encoding of the state visit visited last, which
// the machine still holds: with a lossy store visit computes its
// fingerprint only.
func (s *search) encoding() []byte {
	if s.exact == nil {
		s.enc = s.m.Encode(s.enc[:0])
	}
	return s.enc
}

// pathTo returns the transitions from the initial state to the current
// one: in DFS the stack's, in BFS state id's ancestry followed by last.
func (s *search) pathTo(id int32, last *vm.Trans) []vm.Trans {
	switch {
	case s.opts.Order == IDA:
		return s.ida.path()
	case s.opts.Order == DFS:
		return s.stackPath(nil)
	case s.thesis != nil && s.thesis.inDFS:
		// (The thesis's depth-first phase: the path to the worklist
		// state, the sampled transition, then the stack.)
		return s.stackPath(s.parentPath(s.thesis.from, &s.thesis.via))
	}
	return s.parentPath(id, last)
}

// stackPath appends to p the depth-first stack's transitions, each
// followed by its chain.
func (s *search) stackPath(p []vm.Trans) []vm.Trans {
	for i := range s.stack {
		p = append(p, s.trans[s.stack[i].next-1])
		end := int32(len(s.chain))
		if i+1 < len(s.stack) {
			end = s.stack[i+1].cs
		}
		p = append(p, s.chain[s.stack[i].cs:end]...)
	}
	return p
}

// parentPath returns the path to state id by the parent links of a
// search that expands states from a frontier, then last if not nil.
func (s *search) parentPath(id int32, last *vm.Trans) []vm.Trans {
	var p []vm.Trans
	if last != nil {
		p = append(p, *last)
	}
	for ; id > 0; id = s.parent[id] {
		p = append(p, s.via[id])
	}
	for i, j := 0, len(p)-1; i < j; i, j = i+1, j-1 {
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// record notes an error found at the end of the path to state id (then
// transition last, if not nil).
func (s *search) record(f *vm.Fault, id int32, last *vm.Trans) {
	if f.Kind == vm.FaultLimit {
		// A limit of the machine, not an error of the program: the search
		// cannot go on past it, and reports where it was reached.
		s.limit, s.stop = f.Limit.String(), true
		if s.fault == nil {
			c := *f
			s.fault = &c
			s.path = s.pathTo(id, last)
		}
		return
	}
	if s.sl.optimistic && f.Kind == vm.FaultInvariant {
		s.sl.retaint, s.stop = true, true
		return
	}
	if s.opts.Goal != nil {
		state := s.enc // the error state's, just visited
		if last != nil {
			state = s.exact.Get(id)
		}
		if !s.opts.Goal(f, state) {
			return
		}
	}
	s.stats.Errors++
	if len(s.lis.Error) > 0 {
		var fp uint64
		if last == nil && id >= 0 {
			fp = s.lastFP
		}
		for _, l := range s.lis.Error {
			l.ErrorFound(f, fp)
		}
	}
	if s.opts.KeepViolations > 0 && s.opts.Continue {
		s.keepViolation(f, id, last)
	}
	if s.opts.Order == AStar {
		// A* keeps the shortest path to an error: it stops once no
		// state in the frontier can lead to a shorter one (expandAll).
		s.keepShorter(f, id, last)
		return
	}
	if s.fault == nil {
		c := *f
		s.fault = &c
		s.path = s.pathTo(id, last)
	}
	if !s.opts.Continue {
		s.stop = true
	}
}

// keepViolation keeps error f, found at the end of the path to state id
// (then transition last), if it is a violation not seen before or a
// shorter path to one seen.
func (s *search) keepViolation(f *vm.Fault, id int32, last *vm.Trans) {
	key := s.violationKeyOf(f)
	i, seen := s.violKey[key]
	if !seen && len(s.viol) >= s.opts.KeepViolations {
		return
	}
	if seen && s.pathLen(id, last) >= len(s.viol[i].Path) {
		return // (the common case, without building the path)
	}
	path := s.pathTo(id, last)
	switch {
	case !seen:
		if s.violKey == nil {
			s.violKey = map[violationKey]int{}
		}
		s.violKey[key] = len(s.viol)
		s.viol = append(s.viol, Violation{Fault: *f, Path: path})
	case len(path) < len(s.viol[i].Path):
		s.viol[i] = Violation{Fault: *f, Path: path}
	}
}

// pathLen is len(s.pathTo(id, last)), without building the path where
// the search can tell it at once.
func (s *search) pathLen(id int32, last *vm.Trans) int {
	n := 0
	if last != nil {
		n = 1
	}
	switch {
	case s.opts.Order == DFS && len(s.stack) > 0:
		return len(s.stack) + len(s.chain) - int(s.stack[0].cs)
	case (s.opts.Order == BFS || s.opts.Order == BestFirst || s.opts.Order == AStar) && id >= 0 && int(id) < len(s.depth):
		return int(s.depth[id]) + n
	}
	return len(s.pathTo(id, last))
}

// violationKey names the kind and place of a fault: the instruction of a
// transition's fault, the invariant of a violation, and for a deadlock a
// hash of where each thread of the state is (two deadlocks whose places
// collide in 64 bits are listed as one: a report's grouping, never a
// verdict). A comparable struct, so that an error costs no formatting.
type violationKey struct {
	kind        vm.FaultKind
	noThread    bool
	method, pc  int32
	msg         string
	placesOfAll uint64
}

func (s *search) violationKeyOf(f *vm.Fault) violationKey {
	k := violationKey{kind: f.Kind, noThread: f.Thread < 0, method: f.Method, pc: f.PC, msg: f.Msg}
	if f.Kind == vm.FaultDeadlock {
		k = violationKey{kind: f.Kind, placesOfAll: 0x9e3779b97f4a7c15}
		for t := range s.m.NumThreads() {
			meth, pc := s.m.Where(int32(t))
			x := uint64(s.m.ThreadStatus(int32(t)))<<56 ^ uint64(uint32(meth))<<28 ^ uint64(uint32(pc))
			k.placesOfAll = (k.placesOfAll^x)*0xbf58476d1ce4e5b9 + uint64(t)
		}
	}
	return k
}

// check evaluates the properties of new state id and appends its enabled
// transitions to s.trans; deadlocks and invariant violations are recorded
// as errors, and then the state is not expanded.
func (s *search) check(id int32) (expand bool) {
	var f *vm.Fault
	var end bool
	if s.trans, f, end = CheckState(s.m, s.tune.SkipInvariants, s.trans); f != nil {
		s.record(f, id, nil)
		return false
	}
	if end {
		for _, l := range s.lis.End {
			l.EndState(s.lastFP)
		}
	}
	return true
}

// Invariants evaluates the invariants in the state m holds and returns
// the violation, if one is violated; with skip, not where the transitions
// since the last check wrote nothing they read
// (vm.Machine.InvariantsChanged): they hold there too.
func Invariants(m *vm.Machine, skip bool) *vm.Fault {
	if skip && !m.InvariantsChanged() {
		return nil
	}
	return m.CheckInvariants()
}

// CheckState checks the state m holds, just reached: its invariants
// (Invariants, with skip), and,
// appending its enabled transitions to trans, whether it is a deadlock
// (none enabled while a started thread lives: DeadlockFault) or an end
// state (no thread lives). It returns trans and the fault found (then
// trans is as it was for an invariant violation). Both the search and
// the certifier of its script (package scc) check states with it.
func CheckState(m *vm.Machine, skip bool, trans []vm.Trans) (_ []vm.Trans, f *vm.Fault, end bool) {
	if f := Invariants(m, skip); f != nil {
		return trans, f, false
	}
	n := len(trans)
	trans = m.Enabled(trans)
	if len(trans) == n {
		if m.Alive() {
			return trans, DeadlockFault(), false
		}
		return trans, nil, true
	}
	return trans, nil, false
}

// tick handles limits and progress; it returns true when the search must
// stop. It counts the step and leaves the rest to tickLimits, which the
// common step (not stopped, not bounded, not the 1,024th) does not call:
// small enough to be inlined into the search loops (a call of it was 1%
// of the instructions of the unreduced philosophers).
func (s *search) tick() bool {
	s.checks++
	return (s.checks&1023 == 0 || s.stop || s.bounded) && s.tickLimits()
}

// tickLimits is tick's test of the limits and progress report.
func (s *search) tickLimits() bool {
	if s.stop {
		return true
	}
	if s.bounded {
		if s.store.full() {
			s.limit = "memory"
			return true
		}
		if s.opts.MaxStates > 0 && s.store.size() >= s.opts.MaxStates {
			s.limit = "states"
			return true
		}
	}
	if s.checks&1023 != 0 {
		return false
	}
	if s.opts.Interrupt != nil && s.opts.Interrupt.Load() {
		s.limit = "interrupted"
		return true
	}
	now := time.Now()
	if s.opts.TimeLimit > 0 && now.Sub(s.start) >= s.opts.TimeLimit {
		s.limit = "time"
		return true
	}
	if s.checks&(1<<14-1) == 0 {
		if mem := s.samplePeak(); s.opts.MemoryLimit > 0 && mem > s.opts.MemoryLimit {
			s.limit = "memory"
			return true
		}
	}
	if len(s.lis.Progress) > 0 && now.After(s.nextProgress) {
		s.nextProgress = now.Add(s.opts.ProgressEvery)
		st := s.stats
		st.States = int64(s.store.size())
		st.Store = s.store.account()
		st.StoreBytes = st.Store.Bytes
		st.Elapsed = now.Sub(s.start)
		for _, l := range s.lis.Progress {
			l.Progress(st)
		}
	}
	return false
}

// samplePeak samples the memory the Go runtime has mapped, updates the
// peak, and returns the sample.
func (s *search) samplePeak() int64 {
	mem := MemoryInUse()
	if mem > s.stats.PeakMemory {
		s.stats.PeakMemory = mem
	}
	return mem
}

// step executes one transition from state id, which the machine holds
// (s.loaded == id), and counts it.
func (s *search) step(id int32, tr vm.Trans) *vm.Fault {
	s.loaded = -1
	if s.collapse != nil {
		s.collapse.SetParent(id) // delta collapse: the successor is compared with id
	}
	if len(s.lis.Transition) > 0 {
		s.stepMethod, s.stepPC = s.m.Where(tr.Thread)
	}
	return s.run(tr)
}

// run executes tr and counts it.
func (s *search) run(tr vm.Trans) *vm.Fault {
	f := s.advance(tr)
	s.stats.Transitions++
	s.stats.Instructions += int64(s.m.Executed())
	return f
}

// advance executes tr and, with Options.Symmetry, puts the threads of the
// state reached in canonical order.
func (s *search) advance(tr vm.Trans) *vm.Fault {
	f := s.m.Step(tr)
	if f == nil && s.opts.Symmetry {
		s.perm, s.moved = s.m.SortThreads(s.perm)
	}
	return f
}

// shuffleRange permutes s.trans[a:b] when Options.Shuffle asks for it.
func (s *search) shuffleRange(a, b int) {
	if s.rng == nil {
		return
	}
	t := s.trans[a:b]
	s.rng.Shuffle(len(t), func(i, j int) { t[i], t[j] = t[j], t[i] })
}

// MemoryInUse returns the memory the Go runtime has mapped, in bytes: what
// --memory-limit is compared with. Safe for concurrent use (parallel
// certification calls it from several goroutines).
func MemoryInUse() int64 {
	sample := [1]metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(sample[:])
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(sample[0].Value.Uint64())
}
