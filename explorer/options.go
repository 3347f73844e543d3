// Options of a search, its outcome and its figures.

package explorer

import (
	"sync/atomic"
	"time"

	"mcvm/vm"
)

// Order is the search order.
type Order uint8

// Search orders. BFS, BestFirst and AStar expand states in the order a
// frontier gives them back: a queue (BFS), or a priority queue ordered by
// Options.Heuristic (BestFirst: the least estimate first; AStar: the
// least path length plus estimate first). IDA is iterative-deepening A*:
// depth-first iterations bounded by path length plus estimate, storing
// only the current path.
const (
	DFS Order = iota
	BFS
	BestFirst
	AStar
	IDA
)

var orderNames = [...]string{"dfs", "bfs", "best-first", "astar", "ida"}

func (o Order) String() string { return orderNames[o] }

// ParseOrder returns the order named name (as Order.String gives it).
func ParseOrder(name string) (Order, bool) {
	for i, n := range orderNames {
		if n == name {
			return Order(i), true
		}
	}
	return 0, false
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
	VerdictLivelock // a thread loops forever without a scheduling point (vm.FaultLivelock)
)

var verdictNames = [...]string{"ok", "deadlock", "assertion", "invariant", "exception", "limit", "livelock"}

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
	case vm.FaultLimit:
		return VerdictLimit
	case vm.FaultLivelock:
		return VerdictLivelock
	default:
		return VerdictException
	}
}

// Options configures a search. The zero value is a depth-first search that
// stops at the first error, with no limits.
type Options struct {
	Order    Order
	Continue bool // explore everything and count errors instead of stopping at the first
	// KeepViolations, with Continue, keeps up to this many distinct
	// violations (Result.Violations): kind and place, each with the
	// shortest path found to it. Zero keeps none; it costs nothing then.
	KeepViolations int
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
	// Interrupt, if set, ends the search with VerdictLimit (limit
	// "interrupted") once it is true: a signal handler sets it. It is
	// looked at where the time limit is, every 1,024 steps.
	Interrupt *atomic.Bool
	// Listeners observe the search (see Listener); ProgressEvery is how
	// often they are given its progress (default 5s).
	Listeners     []Listener
	ProgressEvery time.Duration
	// Shuffle, if not zero, makes depth-first search take each state's
	// transitions in an order shuffled by a generator seeded with it (as
	// JPF's cg.randomize_choices), which often finds errors that need an
	// early preemption much sooner. The state space explored is the same;
	// the same seed gives the same search.
	Shuffle uint64
	// Coverage, if not EstimatorOff, makes a search that ends at a limit
	// of its own (states, depth, time, memory, interrupted) estimate the
	// share of the reachable states it visited (Result.Coverage), with
	// random choices seeded by CoverageSeed. EstimatorThesis also changes
	// the search (see there) and needs MaxStates.
	Coverage     Estimator
	CoverageSeed uint64
	// Heuristic estimates a state's distance to an error for BestFirst,
	// AStar and IDA (unused by the others). Nil estimates 0 everywhere:
	// A* is then a uniform-cost search, IDA* an iterative deepening.
	Heuristic Heuristic
	// Goal, if set, says which errors a search that expands states from a
	// frontier (BFS, BestFirst, AStar) looks for: error f, found in the
	// state whose canonical encoding is state (for a fault of a
	// transition, the state it was taken from). Other errors end their
	// paths, as every error does, but are not reported or counted. Trail
	// improvement (mcvm improve) looks for one error state, or one like
	// it. It needs an exact store.
	Goal func(f *vm.Fault, state []byte) bool
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
	// Storage selects the visited set (zero: exact, without collapse
	// compression). With the lossy ones,
	// hash compaction and bitstate hashing, a revisited state's id is not
	// known: Listener.Transition then gets -1 for it (with isNew false).
	Storage Storage
	// BitstateBits is the log2 of the bitstate array's size in bits, 6 to
	// MaxBitstateBits (zero: 27, 16 MiB); values outside are clamped.
	BitstateBits int
	// BitstateSeed, if not zero, chooses another hash function for the
	// bitstate array's bit positions (the fingerprint remixed with it):
	// searches with different seeds miss different states, which swarm
	// verification relies on.
	BitstateSeed uint64
	// Symmetry reduces by thread symmetry: after every transition the
	// threads are renamed into a canonical order (vm.Machine.SortThreads),
	// so states that differ only in which thread is which are stored once.
	// Only sound for a program without vm.ThreadIDUse, and not
	// with Dynamic. The thread ids the listeners are given and the
	// states' encodings are those of the renamed states; Result.Path is
	// rewritten into the ids of a plain run, so it replays without
	// symmetry.
	Symmetry bool
	// Cache, if set, makes the visited set a cache of bounded size
	// (depth-first search, with Storage exact or, for a cache of
	// fingerprints, hash-compact; not with Dynamic): see Cache. Sleep sets
	// are left out with it (SleepFits).
	Cache *Cache
	// Tuning, if set, replaces DefaultTuning: settings for differential
	// tests and measurements only.
	Tuning *Tuning
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
	// Expanded: states whose transitions were executed, by a search
	// that expands states from a frontier (a state A* reopens counts
	// again); Reopened: states A* reached by a shorter path than the one
	// it stored them with, which it then expanded again.
	Expanded, Reopened int64
	// Iterations: IDA's depth-first iterations. (IDA stores no states:
	// its States is the most it held at once, those of its path.)
	Iterations int64
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
	// Cache: with Options.Cache, the cache's figures (States then counts
	// a state again each time it is explored again).
	Cache CacheStats
	// Levels: a search from a frontier's states by depth (level 0: the
	// initial state).
	Levels []int64
}

// addWork adds o's counts of the work done (transitions, revisits,
// instructions, reductions, expansions, collections, snapshots given up
// and decoded) to s: the figures of one worker of a parallel search.
func (s *Stats) addWork(o *Stats) {
	s.Transitions += o.Transitions
	s.Revisits += o.Revisits
	s.Instructions += o.Instructions
	s.Reduced += o.Reduced
	s.Provisos += o.Provisos
	s.Backtracks += o.Backtracks
	s.Expanded += o.Expanded
	s.Twins += o.Twins
	s.Freed += o.Freed
	s.Evicted += o.Evicted
	s.Decoded += o.Decoded
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
	// "time", "memory", "interrupted" (Options.Interrupt), or a limit of
	// the machine (vm.Limit: "threads", "objects", "heap slots",
	// "invariant steps"), which a transition or invariant reached. Fault
	// and Path then say where, unless an error found before is the
	// verdict.
	Limit string
	// Violations are the distinct violations Options.KeepViolations
	// asked for, in the order found.
	Violations []Violation
	// Coverage estimates the share of the reachable states visited, for
	// a search that ended at a limit with Options.Coverage set; else nil.
	Coverage *Coverage
}

// Violation is one distinct violation: its fault and the shortest path
// to it the search found.
type Violation struct {
	Fault vm.Fault
	Path  []vm.Trans
}
