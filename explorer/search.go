// Search: stateful depth-first and breadth-first exploration with an exact visited set.

package explorer

import (
	"math/bits"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
	"unsafe"

	"mcvm/vm"
)

// Order is the search order.
type Order uint8

// Search orders.
const (
	DFS Order = iota
	BFS
)

func (o Order) String() string {
	if o == BFS {
		return "bfs"
	}
	return "dfs"
}

// Verdict is the outcome of a search.
type Verdict uint8

// Verdicts.
const (
	VerdictOK Verdict = iota
	VerdictDeadlock
	VerdictAssertion
	VerdictInvariant
	VerdictException
	VerdictLimit
)

var verdictNames = [...]string{"ok", "deadlock", "assertion", "invariant", "exception", "limit"}

func (v Verdict) String() string { return verdictNames[v] }

// VerdictOf maps a fault kind to its verdict.
func VerdictOf(k vm.FaultKind) Verdict {
	switch k {
	case vm.FaultAssertion:
		return VerdictAssertion
	case vm.FaultInvariant:
		return VerdictInvariant
	case vm.FaultDeadlock:
		return VerdictDeadlock
	default:
		return VerdictException
	}
}

// Reducer chooses persistent sets for partial-order reduction (package por
// implements it). Ample reorders trans, the enabled transitions of the
// machine's current state, so that a persistent set of transitions
// invisible to the properties comes first, and returns its length;
// len(trans) means the state is fully expanded. The search adds the cycle
// proviso.
type Reducer interface {
	Ample(m *vm.Machine, trans []vm.Trans) int
}

// Dynamic is a dynamic partial-order reduction (por.DPOR) for depth-first
// search: each state starts with a few transitions to explore, and the
// reduction adds more to the states on the stack (through the Scheduler it
// is given at the start) as it discovers races. Levels are DFS stack
// depths, 0 for the initial state.
type Dynamic interface {
	// Start is called once, before the search.
	Start(s Scheduler)
	// Enter is called for each state pushed at level, with its enabled
	// transitions in thread order, the first n of which Reducer chose (n =
	// len(trans) when it did not reduce). It may reorder trans and returns
	// how many of them (a prefix) to explore for now.
	Enter(m *vm.Machine, level int, trans []vm.Trans, n int) int
	// Before is called with the machine in level's state, just before
	// transition tr is taken from it.
	Before(m *vm.Machine, level int, tr vm.Trans)
	// After is called with the machine in the state tr led to (when it
	// did not fault): id is its id in the store (-1 with a lossy store,
	// for a revisit), isNew says it was not stored before, onStack that it
	// is on the DFS stack.
	After(m *vm.Machine, level int, id int32, isNew, onStack bool)
	// Leave is called when the search leaves the state at level, stored
	// as id, for good: all its transitions are explored.
	Leave(level int, id int32)
	// Asleep is called, with sleep sets, for the state just entered at
	// level (the machine holds it) with the threads asleep there: their
	// transitions will not be explored from it.
	Asleep(m *vm.Machine, level int, threads uint64)
}

// Scheduler lets a Dynamic reduction add transitions to the levels of the
// DFS stack. (An alias of an interface literal, so that package por can
// implement Dynamic without importing explorer.)
type Scheduler = interface {
	// Schedule adds thread's enabled transitions at level to those to explore.
	Schedule(level int, thread int32)
	// ScheduleAll makes level explore all its enabled transitions.
	ScheduleAll(level int)
}

// Sleeper decides when a transition stays asleep (Options.Sleep): whether
// the next transitions of two different threads, whose footprints
// (vm.Machine.NextFootprint) are a and b in the same state, may not
// commute. por.Reducer implements it.
type Sleeper interface {
	Dependent(a, b vm.Footprint) bool
}

// Proviso is the cycle condition that keeps partial-order reduction from
// ignoring a transition forever around a cycle (Edelkamp, Lafuente and
// Leue, section 4.1).
type Proviso uint8

// Provisos.
const (
	// ProvisoAuto: ProvisoStack for depth-first search, ProvisoDuplicate
	// otherwise.
	ProvisoAuto Proviso = iota
	// ProvisoStack (C3 stack, depth-first only): a state is fully expanded
	// when one of its reduced transitions leads to a state on the stack.
	ProvisoStack
	// ProvisoDuplicate (C3 duplicate minus, any order): a state is fully
	// expanded when none of its reduced transitions leads to a new state.
	ProvisoDuplicate
	// ProvisoStatic (C3 static, any order): a state is fully expanded when
	// one of its reduced transitions is sticky: it jumps backwards in the
	// code, which every cycle of the state graph does (vm.Machine.BackJump).
	ProvisoStatic
)

var provisoNames = [...]string{"auto", "stack", "duplicate", "static"}

func (p Proviso) String() string { return provisoNames[p] }

// ParseProviso parses a --proviso value.
func ParseProviso(s string) (Proviso, bool) {
	for i, n := range provisoNames {
		if n == s {
			return Proviso(i), true
		}
	}
	return 0, false
}

// Resolve returns the proviso a search in order o uses for p.
func (p Proviso) Resolve(o Order) Proviso {
	if p != ProvisoAuto {
		return p
	}
	if o == DFS {
		return ProvisoStack
	}
	return ProvisoDuplicate
}

// Options configures a search. The zero value is a depth-first search that
// stops at the first error, with no limits.
type Options struct {
	Order    Order
	Continue bool // explore everything and count errors instead of stopping at the first
	// MaxStates, MaxDepth and TimeLimit end the search with VerdictLimit
	// when reached; zero means no limit.
	MaxStates int
	MaxDepth  int
	TimeLimit time.Duration
	// MemoryLimit, in bytes, ends the search with VerdictLimit when the
	// memory the Go runtime has mapped for the process exceeds it, before
	// the system runs out; zero means no limit. It is sampled about every
	// 16,000 transitions.
	MemoryLimit int64
	// Progress, if set, is called about every ProgressEvery (default 5s).
	Progress      func(Stats)
	ProgressEvery time.Duration
	// Shuffle, if not zero, makes depth-first search take each state's
	// transitions in an order shuffled by a generator seeded with it (as
	// JPF's cg.randomize_choices), which often finds errors that need an
	// early preemption much sooner. The state space explored is the same;
	// the same seed gives the same search.
	Shuffle uint64
	// OnState, if set, is called with each new state's id and fingerprint.
	OnState func(id int32, fp uint64)
	// OnError, if set, is called for every error found, with the
	// fingerprint of the state it was found in for deadlocks and invariant
	// violations (0 for faults of a transition, which leave no state).
	OnError func(f *vm.Fault, fp uint64)
	// OnEnd, if set, is called with the fingerprint of every new state in
	// which every started thread has ended.
	OnEnd func(fp uint64)
	// Reducer, if set, applies partial-order reduction, with Proviso as the
	// cycle condition (ProvisoStack requires depth-first search).
	Reducer Reducer
	Proviso Proviso
	// Dynamic, if set (depth-first search only), applies dynamic
	// partial-order reduction on top of Reducer.
	Dynamic Dynamic
	// Chain, with Reducer, depth-first search and the stack proviso (and
	// no Dynamic), does not store a state whose search would explore a
	// single transition (the only one enabled, or a singleton persistent
	// set): that transition runs at once, as part of the one that reached
	// the state. Properties are still checked in every such state. A chain
	// stops at its MaxChainLoops+1-th backward jump (every cycle of the
	// state graph has one, so every cycle keeps a stored state for the
	// proviso) and after MaxChain steps. A chained transition that faults
	// in a reduced state stores that state and explores it fully, as a
	// stored one would be.
	// Counterexamples list every chained transition.
	Chain bool
	// Sleep adds sleep sets (Godefroid) to depth-first search with the
	// stack proviso and no MaxDepth, with an exact store (exact or
	// collapse) and a Reducer, or a Dynamic reduction, that implements
	// Sleeper: after a state's transitions of thread p have been
	// explored, p sleeps in the states its later siblings reach until a
	// transition dependent with p's runs, and a fully expanded state does
	// not explore a sleeping thread's transitions (the states they lead to
	// are reached the other way round). Each stored state keeps the sleep
	// set it was explored with; a revisit with a smaller one explores the
	// transitions that were asleep then and are awake now. Fewer
	// transitions, the same states reached (with a Dynamic reduction,
	// fewer races found and usually fewer states), errors and end states.
	// With Continue on a program
	// with invariants, a state that violates one is not expanded, so what a
	// sleeping transition would reach from it is reached neither way round:
	// the search runs as if that could not happen and stops at the first
	// violation, if there is one, and then searches again, where a
	// transition whose subtree may hold such a state (it reached one, a
	// state whose own subtree did, or a state still on the stack) does not
	// put its thread to sleep (Stats.SleepAgain; the hooks see both
	// searches).
	Sleep bool
	// OnTransition, if set, is called after every transition executed, with
	// the state it left, the transition, the method and pc of the
	// instruction that began it, and the state it reached (-1 when the
	// transition faulted and so reached no state) and whether that state is
	// new. Search-carrying code records its scripts through it. With
	// Chain, the transition is the one that began a chain and the state
	// reached the chain's end; a chain that ends in an invariant violation
	// is reported as a fault, and one whose transition faulted in a reduced
	// state is reported again, reaching the state before the fault, which
	// the search stores and explores fully (materialise).
	OnTransition func(from int32, tr vm.Trans, method, pc int32, to int32, isNew bool)
	// OnBacktrack, if set, is called when depth-first search leaves state
	// id for good, its transitions all explored (or cut off by a limit or a
	// violation).
	OnBacktrack func(id int32)
	// Storage selects the visited set (zero: exact, without collapse
	// compression). With the lossy ones,
	// hash compaction and bitstate hashing, a revisited state's id is not
	// known: OnTransition then gets -1 for it (with isNew false).
	Storage Storage
	// BitstateBits is the log2 of the bitstate array's size in bits, 6 to
	// MaxBitstateBits (zero: 27, 16 MiB); values outside are clamped.
	BitstateBits int
	// Symmetry reduces by thread symmetry: after every transition the
	// threads are renamed into a canonical order (vm.Machine.SortThreads),
	// so states that differ only in which thread is which are stored once.
	// Only sound for a program without vm.ThreadIDUse, and not
	// with Dynamic. The thread ids of OnTransition, OnError and the
	// states' encodings are those of the renamed states; Result.Path is
	// rewritten into the ids of a plain run, so it replays without
	// symmetry.
	Symmetry bool
}

// Stats are a search's figures.
type Stats struct {
	States       int64 // distinct states stored
	Transitions  int64 // transitions executed
	Revisits     int64 // transitions that reached a stored state
	MaxDepth     int
	Errors       int64
	Instructions int64
	StoreBytes   int64
	Elapsed      time.Duration
	// With partial-order reduction: states expanded with a proper subset of
	// their enabled transitions, and those of them the cycle proviso then
	// expanded fully.
	Reduced  int64
	Provisos int64
	// With dynamic partial-order reduction: levels given more transitions
	// to explore because of a race (or a cycle).
	Backtracks int64
	// With Options.Chain: transitions run from states that were not
	// stored (each also counts in Transitions), and how many of them were
	// a singleton persistent set out of several enabled transitions (the
	// others were the only transition enabled).
	Chained        int64
	ChainedReduced int64
	// With Options.Sleep: transitions not explored because their thread
	// was asleep, and revisits that woke transitions asleep when the state
	// was first explored, which were then explored from it.
	Slept int64
	Woken int64
	// With Options.Symmetry: transitions not explored because their thread
	// is a twin of another one whose same transitions were (renaming the
	// two threads leaves the state unchanged).
	Twins int64
	// Freed: objects the garbage collector freed in the active heap
	// (depth-first search without dpor collects each state it expands;
	// vm.Machine.CollectGarbage).
	Freed int64
	// Evicted: with the collapse store, snapshots of depth-first levels
	// given up because they lay too far below the top (the memory of a
	// deep stack is mostly snapshots); Decoded: returns to such levels,
	// which decoded the state from the store.
	Evicted, Decoded int64
	// StackBytes is the memory of the depth-first stack at the end of
	// the search: frames, transition lists, chains, kept encodings and
	// snapshots. The search keeps the memory of the deepest levels it
	// reached to use again, so this is about the stack's peak (0 for
	// breadth-first search).
	StackBytes int64
	// SleepAgain: with Continue on a program with invariants, the search
	// with sleep sets found a violation and was run again with threads
	// kept awake where a violation may lie below (Options.Sleep); the
	// figures are the second search's, Elapsed and PeakMemory both's.
	SleepAgain bool
	// Store is the visited set's memory account and, for the lossy
	// stores, the estimated probability of a missed state. PeakMemory is
	// the most memory the Go runtime had mapped when sampled (about every
	// 16,000 transitions and at the end).
	Store      StoreAccount
	PeakMemory int64
}

// StatesPerSecond is States divided by Elapsed.
func (s Stats) StatesPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.States) / s.Elapsed.Seconds()
}

// Result is the outcome of a search. Path leads from the initial state to
// the first error found (or is empty); Fault describes that error.
type Result struct {
	Verdict Verdict
	Stats   Stats
	Fault   *vm.Fault
	Path    []vm.Trans
	// Limit names the limit that ended the search: "states", "depth",
	// "time" or "memory".
	Limit string
}

// Search explores the state space of the machine's program from its
// initial state.
func Search(m *vm.Machine, opts Options) *Result {
	start := time.Now()
	s := newSearch(m, opts, start, false)
	s.explore()
	if s.retaint {
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
	return s.result()
}

// newSearch sets up a search; taint: with sleep sets, Continue and
// invariants, keep threads awake whose transitions' subtrees may hold a
// violation (otherwise such a search stops at the first violation and
// Search starts it again with taint).
func newSearch(m *vm.Machine, opts Options, start time.Time, taint bool) *search {
	s := &search{m: m, opts: opts, start: start, loaded: -1}
	switch opts.Storage {
	case StorageHashCompact:
		s.store = newCompactStore(opts.MemoryLimit)
	case StorageBitstate:
		bits := opts.BitstateBits
		if bits == 0 {
			bits = 27
		}
		bs, _ := newBitStore(min(max(bits, 6), MaxBitstateBits))
		s.store = bs
	case StorageCollapse:
		c := NewCollapseStore()
		c.SetDelta(collapseDelta)
		c.SetMemoryLimit(opts.MemoryLimit)
		s.exact, s.store, s.collapse = c, c, c
	default:
		st := NewStore()
		st.SetMemoryLimit(opts.MemoryLimit)
		s.exact, s.store = st, st
	}
	s.proviso = opts.Proviso.Resolve(opts.Order)
	if s.proviso == ProvisoStack && opts.Order != DFS {
		s.proviso = ProvisoDuplicate
	}
	dfsStack := opts.Order == DFS && s.proviso == ProvisoStack && opts.MaxDepth == 0
	s.chaining = opts.Chain && opts.Reducer != nil && opts.Dynamic == nil && dfsStack
	// Dynamic reduction compares the references of accesses along the
	// path, which a freed object's reuse would confuse.
	s.collecting = opts.Dynamic == nil
	sl, ok := opts.Reducer.(Sleeper)
	if opts.Dynamic != nil {
		sl, ok = opts.Dynamic.(Sleeper)
	}
	if ok && opts.Sleep && dfsStack && s.exact != nil {
		s.sleeping, s.sleeper = true, sl
		if opts.Continue && len(m.Program().Invariants) > 0 {
			s.tainting, s.optimistic = taint, !taint
		}
	}
	if opts.Order == DFS && (s.collapse != nil || windowExact && s.exact != nil) && opts.Dynamic == nil {
		// (Dynamic reduction compares raw references along the path,
		// which only snapshots keep.)
		s.window = snapWindow
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
	if s.opts.Order == BFS {
		s.bfs()
	} else {
		s.dfs()
	}
}

// stackBytes is Stats.StackBytes.
func (s *search) stackBytes() int64 {
	n := int64(cap(s.stack))*int64(unsafe.Sizeof(frame{})) + int64(cap(s.trans)+cap(s.chain))*int64(unsafe.Sizeof(vm.Trans{})) +
		int64(cap(s.deep)) + int64(cap(s.snaps)+cap(s.spare))*8 + int64(cap(s.sleeps))*int64(unsafe.Sizeof(sleepFrame{}))
	for _, sn := range s.snaps {
		if sn != nil {
			n += sn.Bytes()
		}
	}
	for _, sn := range s.spare {
		n += sn.Bytes()
	}
	return n + s.m.SnapshotBytes()
}

// result sums up the search.
func (s *search) result() *Result {
	s.stats.States = int64(s.store.size())
	s.stats.Store = s.store.account()
	if s.sleeping {
		s.stats.Store.SleepBytes = int64(cap(s.sleepOf)) * 8
		s.stats.Store.Bytes += s.stats.Store.SleepBytes
	}
	s.stats.StoreBytes = s.stats.Store.Bytes
	if s.opts.Order == DFS {
		s.stats.StackBytes = s.stackBytes()
	}
	s.stats.Elapsed = time.Since(s.start)
	s.samplePeak()
	if s.opts.Symmetry && s.fault != nil {
		s.path = concretePath(s.m, s.path, s.fault)
	}
	r := &Result{Stats: s.stats, Fault: s.fault, Path: s.path, Limit: s.limit}
	switch {
	case s.fault != nil:
		r.Verdict = VerdictOf(s.fault.Kind)
	case s.limit != "":
		r.Verdict = VerdictLimit
	}
	return r
}

// keeper is an exact visited set: it keeps every state's encoding, and
// gives a revisited state its id.
type keeper interface {
	visitedSet
	// Get returns state id's encoding, valid until the next call of a
	// method of the store.
	Get(id int32) []byte
}

type search struct {
	m       *vm.Machine
	opts    Options
	store   visitedSet
	bounded bool // the store is full or holds MaxStates states (see visit)
	// pf: the store's prefetcher if the search looks ahead (ahead.go),
	// else nil.
	pf prefetcher
	// stash: the encodings of the last two lookaheads (sx the newer), of
	// the transitions stashTr.
	stash    [2]vm.FPStash
	stashTr  [2]vm.Trans
	sx       int
	exact    keeper           // store, when it is an exact one (it keeps encodings)
	collapse *CollapseStore   // store, when it is the collapse store
	cuts     []int32          // with collapse: where the components of enc end
	queue    fifo             // BFS with a lossy store: encodings of states to expand
	deep     []byte           // DFS with a lossy store: encodings of levels without snapshots
	stackFP  map[uint64]int32 // DFS, lossy store, stack proviso: fingerprints on the stack
	stats    Stats
	start    time.Time

	enc    []byte
	lastFP uint64 // the fingerprint of the state visit stored last
	trans  []vm.Trans
	loaded int32 // the stored state the machine holds unchanged, or -1

	stack  []frame      // DFS
	sleeps []sleepFrame // DFS with sleep sets: one per frame
	rng    *rand.Rand
	snaps  []*vm.Snapshot
	window int            // DFS: levels this far below the top lose their snapshots (0: never; see evict)
	low    int            // DFS with a window: no level below it keeps a snapshot
	spare  []*vm.Snapshot // snapshots evicted, to save into again
	parent []int32        // BFS: state -> parent state
	via    []vm.Trans     // BFS: state -> transition from its parent
	depth  []int32        // BFS: state -> depth
	expand []bool         // BFS: state -> to be expanded
	level  []vm.Trans     // BFS: the transitions of the state being expanded
	bsnap  vm.Snapshot    // BFS: the state being expanded

	fault *vm.Fault
	path  []vm.Trans
	limit string
	stop  bool

	nextProgress time.Time
	checks       int

	stepMethod, stepPC int32 // where the last transition began (for OnTransition)

	// With Options.Symmetry: the renaming of the threads after the last
	// transition (perm[i] is the old index of thread i), if moved.
	perm  []int32
	moved bool
	twins []int32 // scratch of dropTwins
	keep  []bool  // scratch of dropTwins

	proviso Proviso
	// chaining: Options.Chain applies; chain: the chained transitions of
	// the DFS stack's current transitions (see frame.cs).
	chaining bool
	chain    []vm.Trans
	// collecting: depth-first search collects the garbage of each state it
	// expands before its transitions are chosen and its snapshot taken.
	collecting bool
	// sleeping: Options.Sleep applies; sleepOf: each stored state's sleep
	// set (threads, bit i for thread i < 63; threads from 63 on never
	// sleep; bit 63 is taintBit); sleepFP: scratch, the footprints of the
	// candidate sleepers.
	sleeping bool
	tainting bool // sleep sets with Continue and invariants (see Options.Sleep, taintBit)
	// optimistic: sleep sets with Continue and invariants but without
	// tainting, until an invariant violation sets retaint (see Search).
	optimistic, retaint bool
	sleeper             Sleeper
	sleepOf             []uint64
	tmp                 []vm.Trans // scratch
	sleepFP             [64]vm.Footprint
	onStack             []uint64 // DFS with ProvisoStack: states on the stack
	sticky              bool     // BFS with ProvisoStatic: the reduced set took a sticky transition
	faulted             bool     // BFS: a transition of the reduced set faulted
}

// reduce applies the reducer to the transitions of the state just checked,
// s.trans[start:], and returns the end of the persistent set.
func (s *search) reduce(start int) int {
	if s.opts.Reducer == nil || len(s.trans)-start < 2 {
		return len(s.trans)
	}
	n := s.opts.Reducer.Ample(s.m, s.trans[start:])
	if n < len(s.trans)-start {
		s.stats.Reduced++
	}
	return start + n
}

func (s *search) setOnStack(id int32, fp uint64, on bool) {
	if (s.proviso != ProvisoStack || s.opts.Reducer == nil) && s.opts.Dynamic == nil {
		return
	}
	if s.exact == nil {
		// A lossy store does not give a revisited state's id: keep the
		// stack's fingerprints (a state can be on the stack only once).
		if s.stackFP == nil {
			s.stackFP = map[uint64]int32{}
		}
		if on {
			s.stackFP[fp] = id
		} else {
			delete(s.stackFP, fp)
		}
		return
	}
	for int(id)/64 >= len(s.onStack) {
		s.onStack = append(s.onStack, 0)
	}
	if on {
		s.onStack[id/64] |= 1 << (id % 64)
	} else {
		s.onStack[id/64] &^= 1 << (id % 64)
	}
}

func (s *search) isOnStack(id int32) bool {
	if s.exact == nil {
		_, ok := s.stackFP[s.lastFP]
		return ok
	}
	return int(id)/64 < len(s.onStack) && s.onStack[id/64]&(1<<(id%64)) != 0
}

// transition reports a transition to Options.OnTransition.
func (s *search) transition(from int32, tr vm.Trans, to int32, isNew bool) {
	if s.opts.OnTransition != nil {
		s.opts.OnTransition(from, tr, s.stepMethod, s.stepPC, to, isNew)
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
	if isNew && (s.store.full() || s.opts.MaxStates > 0 && s.store.size() >= s.opts.MaxStates) {
		// (Only an addition fills the store or reaches the bound: tick
		// looks at this instead of asking the store at every step.)
		s.bounded = true
	}
	if isNew && s.opts.OnState != nil {
		s.opts.OnState(id, fp)
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
	var p []vm.Trans
	if s.opts.Order == DFS {
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
	if s.optimistic && f.Kind == vm.FaultInvariant {
		s.retaint, s.stop = true, true
		return
	}
	s.stats.Errors++
	if s.opts.OnError != nil {
		var fp uint64
		if last == nil && id >= 0 {
			fp = s.lastFP
		}
		s.opts.OnError(f, fp)
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

// check evaluates the properties of new state id and appends its enabled
// transitions to s.trans; deadlocks and invariant violations are recorded
// as errors, and then the state is not expanded.
func (s *search) check(id int32) (expand bool) {
	if skipInvariants && !s.m.InvariantsChanged() {
		// Reached from a checked state by writes the invariants do not
		// read: they hold here too.
	} else if f := s.m.CheckInvariants(); f != nil {
		s.record(f, id, nil)
		return false
	}
	n := len(s.trans)
	s.trans = s.m.Enabled(s.trans)
	if len(s.trans) == n {
		if s.m.Alive() {
			s.record(deadlock(), id, nil)
			return false
		}
		if s.opts.OnEnd != nil {
			s.opts.OnEnd(s.lastFP)
		}
	}
	return true
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
	if s.opts.Progress != nil && now.After(s.nextProgress) {
		s.nextProgress = now.Add(s.opts.ProgressEvery)
		st := s.stats
		st.States = int64(s.store.size())
		st.Store = s.store.account()
		st.StoreBytes = st.Store.Bytes
		st.Elapsed = now.Sub(s.start)
		s.opts.Progress(st)
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
	if s.opts.OnTransition != nil {
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

// load makes f's state the machine's, unless it is loaded already.
func (s *search) load(f *frame) {
	if s.loaded == f.id {
		return
	}
	switch {
	case f.snap:
		s.m.Restore(s.snaps[len(s.stack)-1])
	case f.deep >= 0:
		s.m.Decode(s.deep[f.deep:])
	default:
		s.m.Decode(s.exact.Get(f.id))
		if s.window > 0 && f.snapped {
			s.stats.Decoded++
			// An evicted level (see evict): every level below it is
			// evicted too, so no delta is kept below it.
			s.m.ForgetShadow()
			if f.next < f.end {
				s.resave(len(s.stack) - 1)
			}
		}
	}
	s.m.MarkInvariantsChecked() // a state on the stack was checked when new
	s.loaded = f.id
}

// checkNew counts the depth of new state nid, reached from the top of the
// DFS stack, and checks it (see check); it returns where its transitions
// start in s.trans and whether to explore them (if not, they are dropped).
func (s *search) checkNew(nid int32) (int32, bool) {
	if depth := len(s.stack); depth > s.stats.MaxDepth {
		s.stats.MaxDepth = depth
	}
	start := int32(len(s.trans))
	if !s.check(nid) {
		s.trans = s.trans[:start]
		return start, false
	}
	return start, true
}

// MaxChain bounds the transitions of one chain (Options.Chain).
const MaxChain = 1 << 16

// MaxChainLoops bounds the backward jumps of one chain (Options.Chain).
// Every cycle of the state graph jumps backwards, so a chain cannot go
// round a cycle more than MaxChainLoops times: every cycle keeps a stored
// state, and the stack proviso sees it closed. Chains used to stop at the
// first backward jump; passing up to 8 stores 1.0x-2.9x fewer states on
// the SMALL suite (benchmarks/RESULTS.md), and the counts stop falling at
// 4-8.
const MaxChainLoops = 8

// errChainInvariant stands for an invariant violation found (and
// recorded) in a state of a chain.
var errChainInvariant = &vm.Fault{}

// runChain runs, from the state a transition just reached, the single
// transition each state's search would explore, appending them to s.chain,
// until a state branches (or has no transition, or a backward jump or
// MaxChain steps end the chain). It checks the invariants in every state
// it does not store. It returns the fault of a chained transition, if one
// faulted, and whether the state it left was reduced (a singleton
// persistent set out of more enabled transitions); an invariant violation
// is returned as errChainInvariant, already recorded. With sleep sets, z
// is the sleep set of the state reached, kept up to date along the chain;
// a state whose single transition is asleep ends the chain with slept set
// (nothing is explored from it, and it is not stored).
func (s *search) runChain(z *uint64) (f *vm.Fault, reduced, slept bool) {
	loops := 0
	for k := 0; k < MaxChain; k++ {
		if s.m.BackJump() {
			if loops == MaxChainLoops {
				return nil, false, false
			}
			loops++
		}
		n0 := len(s.trans)
		s.trans = s.m.Enabled(s.trans)
		cnt := len(s.trans) - n0
		var i, dropped int
		i, dropped, s.twins, s.keep = ChainPick(s.m, s.opts.Reducer, s.opts.Symmetry, s.trans[n0:], s.twins, s.keep)
		s.stats.Twins += int64(dropped)
		if i < 0 {
			s.trans = s.trans[:n0]
			return nil, false, false
		}
		c := s.trans[n0+i]
		s.trans = s.trans[:n0]
		if skipInvariants && !s.m.InvariantsChanged() {
			// (As in check.)
		} else if f := s.m.CheckInvariants(); f != nil {
			s.record(f, -1, nil)
			return errChainInvariant, false, false
		}
		if cnt == 1 && *z&threadBit(c.Thread) != 0 {
			// (Not in a reduced state: see dfs.)
			s.stats.Slept++
			return nil, false, true
		}
		s.chain = append(s.chain, c)
		s.stats.Chained++
		if cnt > 1 {
			s.stats.ChainedReduced++
		}
		if *z == 0 {
			if f := s.run(c); f != nil {
				return f, cnt > 1, false
			}
			continue
		}
		fc, nt := s.m.NextFootprint(c.Thread), s.m.NumThreads()
		if f := s.run(c); f != nil {
			return f, cnt > 1, false
		}
		*z = s.stillAsleep(*z, fc, nt)
	}
	return nil, false, false
}

// dropTwins, with Options.Symmetry, removes from s.trans[start:] the
// transitions of threads that are twins of an earlier thread
// (vm.Machine.Twins: renaming the two leaves the state as it is, so what
// the twin's transitions lead to is a renaming of what the earlier
// thread's same transitions lead to), and the choices of a notify that
// wake a twin of a waiter an earlier choice wakes. The transitions to
// explore, s.trans[start:end], stay first, and one of them is dropped only
// for a twin's among them (a persistent set that held a thread's
// transitions but not its twin's keeps them); it returns the new end.
// Threads from 64 on are never dropped.
func (s *search) dropTwins(start, end int) int {
	s.twins, s.keep = KeptByTwins(s.m, s.trans[start:], end-start, s.twins, s.keep)
	k, newEnd := start, end
	for i := start; i < len(s.trans); i++ {
		if i == end {
			newEnd = k
		}
		if !s.keep[i-start] {
			s.stats.Twins++
			continue
		}
		s.trans[k] = s.trans[i]
		k++
	}
	if end == len(s.trans) {
		newEnd = k
	}
	s.trans = s.trans[:k]
	return newEnd
}

// ChainPick decides whether a chain goes on from m's state
// (Options.Chain): trans are the state's enabled transitions, which red's
// Ample reorders where there are several. It returns the index in trans
// of the single transition the state's search would explore (the only
// one enabled, or a singleton persistent set once symmetry's twins are
// left out, Options.Symmetry with sym), or -1 where the chain ends, and
// how many transitions symmetry left out. Both the search and a certifier
// of its script (package scc) decide by it. twins and keep are scratch,
// returned grown.
func ChainPick(m *vm.Machine, red Reducer, sym bool, trans []vm.Trans, twins []int32, keep []bool) (pick, dropped int, _ []int32, _ []bool) {
	n := len(trans)
	if n <= 1 {
		return n - 1, 0, twins, keep
	}
	n = red.Ample(m, trans)
	if !sym || n <= 1 {
		if n == 1 {
			return 0, 0, twins, keep
		}
		return -1, 0, twins, keep
	}
	twins, keep = KeptByTwins(m, trans, n, twins, keep)
	pick, kept := -1, 0
	for i, k := range keep {
		switch {
		case !k:
			dropped++
		case i < n:
			if kept == 0 {
				pick = i
			}
			kept++
		}
	}
	if kept != 1 {
		pick = -1
	}
	return pick, dropped, twins, keep
}

// KeptByTwins says which of a state's enabled transitions trans, the
// persistent set trans[:end] first, thread symmetry reduction explores
// (Options.Symmetry): keep[i] is false for a transition of a thread whose
// twin (vm.Machine.Twins, the lowest of its class) has transitions too,
// within the persistent set for one in it, and for a notify whose waiter
// is a twin of one an earlier choice of the same thread wakes. Both the
// search and a certifier of its script (package scc) decide by it. twins
// and keep are scratch, returned grown.
func KeptByTwins(m *vm.Machine, trans []vm.Trans, end int, twins []int32, keep []bool) ([]int32, []bool) {
	twins = m.Twins(twins)
	keep = keep[:0]
	var inSet, inAll uint64 // the threads with transitions in trans[:end], trans
	for i, tr := range trans {
		if t := tr.Thread; t < 64 {
			inAll |= 1 << t
			if i < end {
				inSet |= 1 << t
			}
		}
	}
	cur, woken := int32(-1), uint64(0) // the twin classes the current thread's choices wake
	for i, tr := range trans {
		if i == end {
			cur = -1
		}
		have := inAll
		if i < end {
			have = inSet
		}
		if r := twins[tr.Thread]; r != tr.Thread && tr.Thread < 64 && have&(1<<r) != 0 {
			keep = append(keep, false)
			continue
		}
		if tr.Thread != cur {
			cur, woken = tr.Thread, 0
		}
		if w := m.Woken(tr); w >= 0 && twins[w] < 64 {
			// A notify choosing among waiters: waking a twin of a waiter
			// an earlier choice wakes leads to a renaming of its state.
			b := uint64(1) << twins[w]
			if woken&b != 0 {
				keep = append(keep, false)
				continue
			}
			woken |= b
		}
		keep = append(keep, true)
	}
	return twins, keep
}

// threadBit is thread t's bit in a sleep set (none from thread 63 on).
func threadBit(t int32) uint64 {
	if t < 0 || t >= 63 {
		return 0
	}
	return 1 << t
}

// taintBit marks, in a state's stored sleep set, a state whose subtree as
// explored holds a state that was not expanded (it violates an
// invariant, with Options.Continue): a transition that reaches it must
// not put its thread to sleep.
const taintBit = 1 << 63

// sleepers records, for the threads of cand, their next transitions'
// footprints in the machine's state (see stillAsleep).
func (s *search) sleepers(cand uint64) {
	for b := cand; b != 0; b &= b - 1 {
		p := int32(bits.TrailingZeros64(b))
		s.sleepFP[p] = s.m.NextFootprint(p)
	}
}

// stillAsleep returns the threads of z (whose footprints sleepers
// recorded) that stay asleep after a transition with footprint fc, taken
// when the machine had nt threads: those independent of it. A transition
// that created a thread wakes everyone: two creations in either order
// number the new threads differently, and NextFootprint does not show a
// creation (newthread is not a scheduling point).
func (s *search) stillAsleep(z uint64, fc vm.Footprint, nt int) uint64 {
	if s.m.NumThreads() != nt {
		return 0
	}
	for b := z; b != 0; b &= b - 1 {
		p := bits.TrailingZeros64(b)
		if s.sleeper.Dependent(s.sleepFP[p], fc) {
			z &^= 1 << p
		}
	}
	if s.moved && z&^taintBit != 0 {
		// The threads were renamed after the transition (Options.Symmetry).
		var r uint64
		for i, p := range s.perm {
			if z&threadBit(p) != 0 {
				r |= threadBit(int32(i))
			}
		}
		z = r | z&taintBit
	}
	return z
}

// setSleep records new state id's sleep set.
func (s *search) setSleep(id int32, z uint64) {
	for int(id) >= len(s.sleepOf) {
		s.sleepOf = append(s.sleepOf, 0)
	}
	s.sleepOf[id] = z
}

// wake handles a revisit of state id with sleep set z: the transitions of
// the threads asleep when it was stored (or last woken) but awake now were
// not explored from it, so they are explored now, from a frame of their
// own (on top of the state's own frame if it is still on the stack), with
// the threads asleep both times asleep (Godefroid's sleep sets with state
// matching). The machine holds state id.
func (s *search) wake(id int32, z uint64) {
	h := s.sleepOf[id]
	w := h &^ z &^ taintBit
	if w == 0 {
		return
	}
	s.sleepOf[id] = h & (z | taintBit)
	start := len(s.trans)
	s.trans = s.m.Enabled(s.trans)
	k := s.partition(start, w, true)
	if k == start {
		s.trans = s.trans[:start]
		return
	}
	s.stats.Woken++
	if depth := len(s.stack); depth > s.stats.MaxDepth {
		s.stats.MaxDepth = depth
	}
	// The frame explores the woken transitions; the others are there for
	// the cycle proviso and the dynamic reduction to add (they were
	// explored, or left out by the reduction, when the state was first).
	sleep := h & z &^ taintBit
	end := k
	if d := s.opts.Dynamic; d != nil {
		end = max(end, start+d.Enter(s.m, len(s.stack), s.trans[start:], len(s.trans)-start))
		if sleep != 0 {
			d.Asleep(s.m, len(s.stack), sleep)
		}
	}
	again := s.isOnStack(id)
	s.shuffleRange(start, end)
	s.shuffleRange(end, len(s.trans))
	s.loaded = id
	s.stack = append(s.stack, frame{id: id, start: int32(start), end: int32(end), full: int32(len(s.trans)), next: int32(start), deep: -1, fp: s.lastFP, cs: int32(len(s.chain)), again: again})
	if s.sleeping {
		s.sleeps = append(s.sleeps, sleepFrame{sleep: sleep, cur: -1})
	}
	if !again {
		s.setOnStack(id, s.lastFP, true)
	}
	s.snapshot()
}

// materialise handles a chained transition that faulted in a reduced
// state: the other threads' transitions there must not be lost (see the
// fault case of dfs), so the state is stored and explored fully, with the
// faulting transition marked as explored. tr is the top frame's
// transition that began the chain; s.chain ends with the faulting one.
func (s *search) materialise(tr vm.Trans) {
	top := &s.stack[len(s.stack)-1]
	bad := s.chain[len(s.chain)-1]
	s.chain = s.chain[:len(s.chain)-1]
	s.load(top)
	s.loaded = -1
	f := s.advance(tr)
	for i := top.cs; f == nil && int(i) < len(s.chain); i++ {
		f = s.advance(s.chain[i])
	}
	if f != nil {
		panic("explorer: a chain did not replay")
	}
	nid, isNew := s.visit()
	// Reported as tr reaching the state (after its fault was): a search
	// script records the state this way (scc: a materialised state).
	s.transition(top.id, tr, nid, isNew)
	if !isNew {
		// Stored already: explored (or being explored) as a stored state,
		// whose faulting transition expands it fully. With sleep sets,
		// whatever was asleep there is woken.
		if s.sleeping {
			s.wake(nid, 0)
		}
		return
	}
	if s.sleeping {
		s.setSleep(nid, 0)
	}
	start, ok := s.checkNew(nid)
	if !ok {
		return
	}
	s.push(nid, int(start), 0)
	nt := &s.stack[len(s.stack)-1]
	s.expandFully(nt)
	for i := nt.start; i < nt.full; i++ {
		if s.trans[i] == bad {
			s.trans[i], s.trans[nt.next] = s.trans[nt.next], s.trans[i]
			nt.next++
			break
		}
	}
}

// skipInvariants lets the search skip evaluating the invariants in a
// state reached from a checked one by transitions that wrote nothing they
// read (vm.Machine.InvariantsChanged; a variable for differential tests
// and measurements).
var skipInvariants = true

// collapseDelta turns delta collapse on for the collapse store (a
// variable for differential tests and measurements).
var collapseDelta = true

// maxSnapDepth bounds the DFS levels that keep a raw snapshot for
// backtracking; deeper levels decode their stored encoding instead (but
// for a search with a window, see snapWindow).
var maxSnapDepth = 1 << 17

// snapWindow is how far below the top of the DFS stack a level keeps its
// snapshot with the collapse store, which gives the state back (see
// evict); 0: all levels keep theirs. The exact store keeps them all (its
// point is speed, and decoding costs some), unless windowExact is set.
// Variables for differential tests and measurements.
var (
	snapWindow  = 4096
	windowExact = false
)

// DeltaSnapDepth is the first DFS level whose snapshot keeps the heap as a
// reverse delta (vm.Machine.SaveDelta) instead of a copy: a delta is a few
// bytes per changed word instead of the whole heap, but it costs a
// comparison of the heap per save, which a shallow search does not need to
// pay (benchmarks/RESULTS.md, "Tried and left"). Levels from it on are
// all deltas, as SaveDelta requires. The certifier (package scc) keeps its
// stack the same way. 256: since a new state's delta is taken from the write log
// (vm's diffLogged), deltas from 256 instead of 1,024 cost 0.3% more
// instructions on philo N = 8 with --hash-compact and 0.6 MiB less memory
// (benchmarks/RESULTS.md, "What the mechanisms are worth").
const DeltaSnapDepth = 256

// deltaSnapDepth is DeltaSnapDepth, a variable so that tests can move it.
var deltaSnapDepth = DeltaSnapDepth

// frame is a DFS level. (Fields are ordered so that the struct packs into
// 56 bytes: one per level of stacks millions of levels deep; what only
// sleep sets need is in a sleepFrame.)
type frame struct {
	deep int64 // lossy store, no snapshot: the state's encoding is s.deep[deep:], or -1
	// fp is the state's fingerprint, for the stack proviso with a lossy
	// store and dynamic reduction; with lookahead (which neither uses),
	// the fingerprint of the state the transition at next leads to, if
	// ain >= 0.
	fp uint64
	// again: a frame that explores woken transitions of a state whose own
	// frame is below it on the stack (it leaves the state marked as on the
	// stack). With sleep sets, curTaint says the subtree of the transition
	// being explored may hold a state not expanded, and taint says this
	// state's subtree may hold one (see Options.Sleep).
	parentSnap      int32 // the nearest level below whose snapshot is set, or -1
	id              int32
	start, end      int32 // the transitions to explore: s.trans[start:end]
	full            int32 // all its enabled transitions: s.trans[start:full]
	next            int32
	cs              int32 // with Options.Chain: its current transition's chained ones are s.chain[cs:] (up to the next frame's cs)
	snap            bool  // snaps[level] holds this state
	snapped         bool  // it did once (then it was evicted if it no longer does)
	anyNew          bool  // some transition explored so far reached a new state
	curTaint, taint bool
	again           bool
	looked          bool // it looks ahead (see search.lookahead)
	// ain is the instructions of the transition at next, looked ahead at,
	// or -1 (see search.lookahead).
	ain int32
}

// sleepFrame is what a DFS level needs with sleep sets (search.sleeps,
// one per frame): the threads asleep here (not explored); the threads all
// of whose transitions here have been explored (asleep in the states
// their later siblings reach, see stillAsleep); awake, the threads with a
// transition here whose subtree may hold a state not expanded (they never
// sleep); cur, the thread of the transition being explored (-1: none).
type sleepFrame struct {
	sleep, done, awake uint64
	cur                int32
}

// expandFully makes a reduced DFS level explore all its transitions, as
// the cycle proviso demands.
func (s *search) expandFully(f *frame) {
	if f.end < f.full {
		f.end = f.full
		s.stats.Provisos++
	}
}

// shuffleRange permutes s.trans[a:b] when Options.Shuffle asks for it.
func (s *search) shuffleRange(a, b int) {
	if s.rng == nil {
		return
	}
	t := s.trans[a:b]
	s.rng.Shuffle(len(t), func(i, j int) { t[i], t[j] = t[j], t[i] })
}

// push makes the state just checked, whose transitions are s.trans[start:],
// the top of the DFS stack, with sleep set z.
func (s *search) push(id int32, start int, z uint64) {
	if s.collecting {
		s.stats.Freed += int64(s.m.CollectGarbage())
	}
	end := s.reduce(start)
	if s.opts.Symmetry && len(s.trans)-start > 1 {
		end = s.dropTwins(start, end)
	}
	if d := s.opts.Dynamic; d != nil {
		n := end - start
		if z != 0 && n == len(s.trans)-start {
			// A thread that is awake first: the dynamic reduction starts
			// with the first thread's transitions.
			s.partition(start, z, false)
		}
		end = start + d.Enter(s.m, len(s.stack), s.trans[start:], n)
		if n == len(s.trans)-start && end < len(s.trans) {
			s.stats.Reduced++
		}
		if z != 0 {
			d.Asleep(s.m, len(s.stack), z)
		}
	}
	s.shuffleRange(start, end)
	s.shuffleRange(end, len(s.trans))
	s.loaded = id
	s.stack = append(s.stack, frame{id: id, start: int32(start), end: int32(end), full: int32(len(s.trans)), next: int32(start), deep: -1, fp: s.lastFP, cs: int32(len(s.chain))})
	if s.sleeping {
		s.sleeps = append(s.sleeps, sleepFrame{sleep: z, cur: -1})
	}
	s.setOnStack(id, s.lastFP, true)
	s.snapshot()
	if top := &s.stack[len(s.stack)-1]; s.pf != nil {
		// Its first transition's lookahead (see ahead.go).
		top.looked, top.ain = top.snap, -1
		if top.snap && top.start < top.end {
			s.lookahead(top, top.start)
		}
	}
}

// partition reorders s.trans[start:] so that the transitions whose
// thread's bit is in mask (in set) or not in it (in clear) come first,
// each part in its order, and returns where the second part starts.
func (s *search) partition(start int, mask uint64, in bool) int {
	t := s.trans[start:]
	s.tmp = s.tmp[:0]
	k := 0
	for _, tr := range t {
		if (threadBit(tr.Thread)&mask != 0) == in {
			t[k] = tr
			k++
		} else {
			s.tmp = append(s.tmp, tr)
		}
	}
	copy(t[k:], s.tmp)
	return start + k
}

func (s *search) dfs() {
	if s.opts.Shuffle != 0 {
		s.rng = rand.New(rand.NewPCG(s.opts.Shuffle, 0x6d637673))
	}
	if s.opts.Dynamic != nil {
		s.opts.Dynamic.Start(s)
	}
	id, _ := s.visit()
	if s.sleeping {
		s.setSleep(id, 0)
	}
	if !s.check(id) {
		return
	}
	s.push(id, 0, 0)
	for len(s.stack) > 0 {
		if s.tick() {
			return
		}
		top := &s.stack[len(s.stack)-1]
		var sl *sleepFrame // with sleep sets, top's
		if s.sleeping {
			sl = &s.sleeps[len(s.sleeps)-1]
			if sl.cur >= 0 {
				s.settle(top, sl)
			}
		}
		if top.next == top.end && top.end < top.full && s.proviso == ProvisoDuplicate && !top.anyNew {
			s.expandFully(top)
		}
		if top.next == top.end {
			if s.opts.OnBacktrack != nil {
				s.opts.OnBacktrack(top.id)
			}
			if !top.again {
				s.setOnStack(top.id, top.fp, false)
			}
			if s.opts.Dynamic != nil {
				s.opts.Dynamic.Leave(len(s.stack)-1, top.id)
			}
			if top.taint {
				s.sleepOf[top.id] |= taintBit
				if len(s.stack) > 1 {
					s.stack[len(s.stack)-2].curTaint = true
				}
			}
			if top.deep >= 0 {
				s.deep = s.deep[:top.deep]
			}
			s.trans = s.trans[:top.start]
			if l := len(s.stack) - 1; l < len(s.snaps) && s.snaps[l] != nil {
				s.m.Discard(s.snaps[l])
			}
			s.stack = s.stack[:len(s.stack)-1]
			if s.sleeping {
				s.sleeps = s.sleeps[:len(s.sleeps)-1]
			}
			if s.window > 0 {
				s.low = min(s.low, len(s.stack))
				s.unsnap(len(s.stack))
			}
			if s.pf != nil && len(s.stack) > 0 {
				// Back from a subtree: the lookahead's slot again.
				s.prefetchAhead(&s.stack[len(s.stack)-1])
			}
			continue
		}
		tr := s.trans[top.next]
		top.next++
		var z uint64 // with sleep sets, that of the state tr leads to
		var fc vm.Footprint
		nt := 0
		var nid int32
		var isNew bool
		fp, instr := uint64(0), int32(-1)
		if top.looked {
			fp, instr = s.takeAhead(top)
		}
		if instr >= 0 {
			nid, isNew = s.visitAhead(top, tr, fp, instr)
		} else {
			if s.sleeping && sl.sleep&threadBit(tr.Thread) != 0 && top.end == top.full {
				// Only a fully expanded state leaves out sleeping threads: a
				// reduced one explores all it was reduced to, so that a cycle
				// it lies on is seen by the stack proviso (a persistent set all
				// asleep would otherwise hide the cycle, and with it the
				// transitions the proviso must add). The same holds for the
				// dynamic reduction's states (leaving sleepers out of those
				// lost an assertion on a program with exception handlers,
				// por/testdata/gen_handlers_351.mcasm).
				s.stats.Slept++
				continue
			}
			s.load(top)
			s.chain = s.chain[:top.cs]
			if s.opts.Dynamic != nil {
				s.opts.Dynamic.Before(s.m, len(s.stack)-1, tr)
			}
			if s.sleeping {
				sl.cur = tr.Thread
				z = (sl.sleep | sl.done) &^ threadBit(tr.Thread)
				if z != 0 {
					s.sleepers(z)
					fc = s.m.NextFootprint(tr.Thread)
				}
				nt = s.m.NumThreads()
			}
			f := s.step(top.id, tr)
			if z != 0 && f == nil {
				z = s.stillAsleep(z, fc, nt)
			}
			if f != nil {
				s.transition(top.id, tr, -1, false)
				s.record(f, -1, nil)
				if top.end < top.full {
					// The path ends here: the other threads' transitions,
					// independent of this one, would never be taken after it,
					// and a reduced state would lose everything they reach
					// (their own errors, end states) without it. The state is
					// expanded fully (this is also what dynamic reduction
					// needs: the races of the other threads never show).
					s.expandFully(top)
				}
				continue
			}
			if s.chaining {
				f, reduced, slept := s.runChain(&z)
				if slept {
					continue
				}
				if f != nil {
					if f == errChainInvariant {
						// A state of the chain violates an invariant: tr leads
						// to no stored state, as if it faulted.
						s.transition(top.id, tr, -1, false)
						s.taint()
						continue
					}
					s.transition(top.id, tr, -1, false)
					s.record(f, -1, nil)
					if reduced && !s.stop {
						s.taint()
						s.materialise(tr)
					}
					continue
				}
			}
			nid, isNew = s.visit()
		}
		s.transition(top.id, tr, nid, isNew)
		if s.opts.Dynamic != nil {
			s.opts.Dynamic.After(s.m, len(s.stack)-1, nid, isNew, !isNew && s.isOnStack(nid))
		}
		if top.end < top.full {
			switch s.proviso {
			case ProvisoStack:
				if !isNew && s.isOnStack(nid) {
					s.expandFully(top)
				}
			case ProvisoStatic:
				if s.m.BackJump() {
					s.expandFully(top)
				}
			}
		}
		if isNew {
			top.anyNew = true
		}
		if !isNew {
			s.stats.Revisits++
			if s.sleeping {
				if s.sleepOf[nid]&taintBit != 0 || s.isOnStack(nid) {
					// What it leads to may hold a state not expanded (one
					// on the stack: not known yet).
					s.taint()
				}
				s.wake(nid, z)
			}
			continue
		}
		if s.sleeping {
			s.setSleep(nid, taintBit) // an error state is not expanded, now or later
		}
		start, ok := s.checkNew(nid)
		if !ok {
			s.taint()
			continue
		}
		if depth := len(s.stack); s.opts.MaxDepth > 0 && depth >= s.opts.MaxDepth {
			if len(s.trans) > int(start) {
				s.limit = "depth"
			}
			s.trans = s.trans[:start]
			continue
		}
		if s.sleeping {
			s.setSleep(nid, z)
		}
		s.push(nid, int(start), z)
	}
}

// settle notes, with sleep sets, that the transition of thread sl.cur
// has been explored at top (sl is top's sleepFrame), its subtree
// included: the thread sleeps in the states top's later transitions reach
// once none of its transitions remain to explore here, unless one of them
// had a subtree with a state not expanded.
func (s *search) settle(top *frame, sl *sleepFrame) {
	b := threadBit(sl.cur)
	if top.curTaint {
		sl.awake |= b
		top.taint = true
		top.curTaint = false
	}
	for _, u := range s.trans[top.next:top.end] {
		if u.Thread == sl.cur {
			sl.cur = -1
			return
		}
	}
	sl.done |= b &^ sl.awake
	sl.cur = -1
}

// taint notes that the top frame's current transition may lead to a state
// not expanded (with Options.Sleep, Continue and invariants).
func (s *search) taint() {
	if s.tainting {
		s.stack[len(s.stack)-1].curTaint = true
	}
}

// snapshot saves the machine's state for the top DFS level, if it is
// shallow enough and has more than one transition to restore it for, and
// records the nearest snapshot below it in any case.
func (s *search) snapshot() {
	level := len(s.stack) - 1
	top := &s.stack[level]
	// The nearest level below with a snapshot is an ancestor on the current
	// path, whose copies of unchanged threads this snapshot can share.
	top.parentSnap = -1
	if level > 0 {
		below := &s.stack[level-1]
		top.parentSnap = below.parentSnap
		if below.snap {
			top.parentSnap = int32(level - 1)
		}
	}
	if top.full-top.start < 2 && (s.exact != nil || !s.chaining) {
		// Nothing to come back for; but with chains a faulting chain may
		// make materialise load it again, which a lossy store cannot.
		return
	}
	if level >= maxSnapDepth && s.opts.Dynamic == nil && s.window == 0 {
		// (Dynamic reduction compares object references along the path,
		// which only raw snapshots keep: it snapshots every level. A
		// window bounds the snapshots kept already.)
		if s.exact == nil {
			// Decoded from here on backtracking: a lossy store keeps no
			// encodings, so the level keeps its own (the machine holds
			// the state just visited, this one).
			top.deep = int64(len(s.deep))
			s.deep = append(s.deep, s.encoding()...)
		}
		return
	}
	parent := s.snapAt(level)
	if level >= deltaSnapDepth && parent != nil {
		s.m.SaveDelta(s.snaps[level], parent)
	} else {
		s.m.Save(s.snaps[level], parent)
	}
	top.snap, top.snapped = true, true
	if s.window > 0 {
		for ; s.low <= level-s.window; s.low++ {
			s.evict(s.low)
		}
	}
}

// snapAt makes sure snaps[level] is allocated and returns the snapshot
// of level's nearest ancestor that keeps one (nil if none).
func (s *search) snapAt(level int) *vm.Snapshot {
	for len(s.snaps) <= level {
		s.snaps = append(s.snaps, nil)
	}
	if s.snaps[level] == nil {
		if n := len(s.spare); n > 0 {
			s.snaps[level], s.spare = s.spare[n-1], s.spare[:n-1]
		} else {
			s.snaps[level] = new(vm.Snapshot)
		}
	}
	if p := s.stack[level].parentSnap; p >= 0 && s.stack[p].snap {
		return s.snaps[p]
	}
	return nil
}

// evict gives up the snapshot of DFS level e, window levels or more below
// the top: the memory of a deep stack is mostly its snapshots, and the
// search comes back to few levels that deep (on philo N = 9, with a
// window of 4,096, it decodes 2.6% of the states it restores). The
// level's state is decoded from the store when it is loaded again, and
// saved again if it has transitions left (see load). Levels are evicted
// from the bottom up (s.low is the lowest level that may keep a
// snapshot), so every level below an evicted one is evicted too, and a
// level decoded keeps no delta below it. The snapshot's memory is saved
// into again at the next level that needs one (vm.Machine.Release, which
// lets go of its copies of threads, those the nearest snapshot above it
// shares staying that one's, and detaches that one from it).
func (s *search) evict(e int) {
	if !s.stack[e].snap {
		return
	}
	s.stack[e].snap = false
	var child *vm.Snapshot
	for f := e + 1; f < len(s.stack); f++ {
		if s.stack[f].snap {
			child = s.snaps[f]
			break
		}
	}
	s.m.Release(s.snaps[e], child)
	s.unsnap(e)
	s.stats.Evicted++
}

// unsnap puts level's snapshot memory, if it has any, with the spares:
// an evicted level's (released first), and with a window a popped
// level's, which does not keep it for the next level pushed there, or
// the levels the search returned to would each keep one. (No level above
// a popped one shares its copies of threads, and it is not detached: the
// rollback to the level below walks through it.)
func (s *search) unsnap(level int) {
	if level < len(s.snaps) && s.snaps[level] != nil {
		s.spare = append(s.spare, s.snaps[level])
		s.snaps[level] = nil
	}
}

// resave saves level's state (just decoded) again as a full snapshot.
func (s *search) resave(level int) {
	parent := s.snapAt(level)
	s.m.Save(s.snaps[level], parent)
	s.stack[level].snap = true
	s.low = min(s.low, level)
}

func (s *search) bfs() {
	id, _ := s.visit()
	if s.exact == nil {
		s.queue.push(s.encoding())
	}
	s.parent, s.via, s.depth = append(s.parent, -1), append(s.via, vm.Trans{}), append(s.depth, 0)
	s.expand = append(s.expand, s.check(id))
	s.loaded = id
	for cur := int32(0); int(cur) < s.store.size(); cur++ {
		if !s.expand[cur] {
			continue
		}
		if s.loaded != cur {
			if s.exact != nil {
				s.m.Decode(s.exact.Get(cur))
			} else {
				s.m.Decode(s.queue.get(cur))
			}
			s.m.MarkInvariantsChecked() // a state to expand was checked when new
			s.loaded = cur
		}
		s.level = s.m.Enabled(s.level[:0])
		if len(s.level) > 1 {
			s.m.Save(&s.bsnap, nil)
		}
		end := len(s.level)
		s.sticky = false
		s.faulted = false
		if s.opts.Reducer != nil && end > 1 {
			end = s.opts.Reducer.Ample(s.m, s.level)
			if end < len(s.level) {
				s.stats.Reduced++
			}
		}
		anyNew := false
		for i := 0; i < len(s.level); i++ {
			if i == end {
				// The cycle proviso: a reduced state whose persistent set
				// led to no new state (duplicate), or took a sticky
				// transition (static), is expanded fully.
				if !s.faulted && (anyNew && s.proviso != ProvisoStatic || s.proviso == ProvisoStatic && !s.sticky) {
					break
				}
				s.stats.Provisos++
			}
			if s.tick() {
				return
			}
			if s.loaded != cur {
				s.m.Restore(&s.bsnap)
				s.m.MarkInvariantsChecked()
				s.loaded = cur
			}
			tr := s.level[i]
			if f := s.step(cur, tr); f != nil {
				s.transition(cur, tr, -1, false)
				s.record(f, cur, &tr)
				if i < end {
					s.faulted = true // see the depth-first search
				}
				continue
			}
			nid, isNew := s.visit()
			s.transition(cur, tr, nid, isNew)
			if i < end && s.m.BackJump() {
				s.sticky = true
			}
			if !isNew {
				s.stats.Revisits++
				continue
			}
			anyNew = true
			if s.exact == nil {
				s.queue.push(s.encoding())
			}
			d := s.depth[cur] + 1
			s.parent, s.via, s.depth = append(s.parent, cur), append(s.via, tr), append(s.depth, d)
			if int(d) > s.stats.MaxDepth {
				s.stats.MaxDepth = int(d)
			}
			s.trans = s.trans[:0]
			ok := s.check(nid)
			if ok && s.opts.MaxDepth > 0 && int(d) >= s.opts.MaxDepth {
				if len(s.trans) > 0 {
					s.limit = "depth"
				}
				ok = false
			}
			s.expand = append(s.expand, ok)
		}
	}
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

// deadlock returns the fault reported for a state where no thread can run
// while some started thread has not ended.
func deadlock() *vm.Fault {
	return &vm.Fault{Kind: vm.FaultDeadlock, Thread: -1, Method: -1, PC: -1, Class: -1, Msg: "deadlock: no thread can run"}
}

// Schedule implements Scheduler: thread's transitions at level join those
// to explore.
func (s *search) Schedule(level int, thread int32) {
	f := &s.stack[level]
	added := false
	for i := f.end; i < f.full; i++ {
		if s.trans[i].Thread == thread {
			s.trans[i], s.trans[f.end] = s.trans[f.end], s.trans[i]
			f.end++
			added = true
		}
	}
	if added {
		s.stats.Backtracks++
	}
}

// ScheduleAll implements Scheduler: level explores all its transitions.
func (s *search) ScheduleAll(level int) {
	f := &s.stack[level]
	if f.end < f.full {
		f.end = f.full
		s.stats.Backtracks++
	}
}
