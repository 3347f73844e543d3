// Package explorer searches the state space of a program run by a
// vm.Machine: stateful depth-first, breadth-first, best-first or A*
// search, or iterative-deepening A*, over canonical states with an exact
// visited set (Store, or CollapseStore with collapse compression) or a
// lossy one (hash compaction, bitstate hashing), detection of deadlocks,
// assertion and invariant violations, uncaught exceptions and livelocks,
// limits on states, depth, time and memory and interrupts, and
// counterexamples as replayable paths (Replay, trail files). Partial-order reduction takes part through the
// interfaces Reducer, Dynamic and Sleeper, directed search through
// Heuristic, search-carrying code and every other observer through
// Listener. docs/design.md, "The search", gives the reasons.
//
// Files: options.go and validate.go (Options, Stats, Result; which options
// combine), search.go (the skeleton the orders share: visit, check,
// record, limits), dfs.go (DepthFirst, the Walker it drives, and the
// search as one), bfs.go (the searches that expand states from a
// frontier: breadth-first, best-first, A*), frontier.go (their queue and
// priority queue), ida.go (IDA*, another Walker), heuristic.go (the
// heuristics), stack.go (the depth-first stack's snapshots), ahead.go
// (lookahead), proviso.go, chain.go, sleep.go, twins.go and reduction.go
// (the reductions' parts, PersistentSet and DropTwins shared with the
// certifier), stackset.go (the states on the stack, shared with the
// certifier), listener.go, tuning.go, visited.go (what a search needs of
// a store), store.go, collapse.go, compact.go and bitstate.go (the four
// stores), cache.go and policy.go (state-space caching: a store of
// bounded size and its replacement policies), trace.go (Replay, trails,
// counterexamples under symmetry), describe.go (Describe: what each step
// of a counterexample did, for people, computed by replaying it after the
// search), pdfs.go, parallel.go and ptable.go (SearchParallel: the
// depth-first search and the search by levels with several workers, and
// the lock-free table they share), coverage.go and thesis.go (the
// coverage estimate of a search a limit ends), and pages_*.go and prefetch*.go
// (memory advice, prefetch instructions).
// It must not import por or scc.
//
// The depth-first stack. A level keeps a vm.Snapshot when it has two
// transitions or more (with chains and a lossy store also with one: a
// chain that faults in a reduced state makes the search restore it). The
// first DeltaSnapDepth levels copy the heap whole; deeper ones keep
// reverse deltas (vm.Machine.SaveDelta), which must be a suffix of the
// path. Levels from 2^17 on keep no snapshot and decode their state from
// the exact store, or from their own encoding, kept on a byte stack, with
// a lossy store. With the collapse store only the top Tuning.SnapWindow (4,096)
// levels keep snapshots; a level further below gives its snapshot up and,
// when the search comes back to it with transitions left, decodes its
// state from the store and saves it again. Three rules keep that sound:
// levels are evicted from the bottom up, so a decoded level has no delta
// below it and the machine forgets its shadow (ForgetShadow) and saves it
// whole; an evicted snapshot's memory is saved into again at other
// levels, so vm.Machine.Release drops its copies of threads and detaches
// the snapshot above it; a popped level's snapshot goes with the spares
// too. The exact store, whose point is speed, keeps every snapshot to
// 2^17. With Dynamic every level keeps a snapshot and there is no window:
// dynamic reduction compares raw references along the path, which only
// raw snapshots preserve; for the same reason it collects no garbage.
//
// Stores. The exact store appends records (id, length, encoding) to arena
// chunks and finds them through an open-addressing table of one-word
// slots: the fingerprint's top 28 bits as a tag and the record's 36-bit
// place. The tag spares reading records that cannot match, and a probe
// starts at the tag scaled to the table's length (tag*len >> 28), so slots
// are in tag order and the table grows by moving each slot by its tag,
// without reading or hashing records; at most half full, a miss ends
// within a few slots. Hash compaction's table holds bare fingerprints (0
// marks an empty slot, a fingerprint 0 is stored as 1), probed from the
// scaled fingerprint. Collapse keeps one pool per kind of component
// (statics, threads, objects), so that indices stay small.
//
// The parallel searches (pdfs.go, parallel.go, ptable.go). A worker reserves room in
// the shared table reserveBlock states at a time, and counts its new
// states in the shared count 64 at a time, so that workers seldom write
// one cache line. An exact entry is a 24-bit tag, the worker (8 bits),
// and its record's chunk and offset; a worker's chunks never move and
// their slice headers are set once, so other workers read them while it
// appends; the record is written before the entry that names it, so a
// reader finds it whole. A lookup that finds its state is loads only. The
// table never moves while workers run. By levels, it grows between passes
// over a level: a worker reserves room for a state's successors before it
// expands the state, and a state it finds no room for is left to the next
// pass; workers keep the parent links of the states they store.
// Depth-first, the worker that finds no room sets pdfs.pausing and grows
// the table once every other worker waits on pdfs.cond (each looks at
// pausing before an insert; one waiting for work counts too). A worker's
// ids are its own (the states it stored, then those given to it), so its
// search keeps its stack, snapshots and deep levels as alone; with the
// exact store it keeps a copy of each encoding given to it, for Get.
//
// State-space caching (cache.go, policy.go). The search tells the cache
// of each push and pop (one branch per state, none per transition);
// CacheStats.Overflow counts the states stored past the bound because
// every state held was on the stack. Ids are the cache's slots, so a
// listener may hear StateStored twice with one id. Policies: cost (the
// thesis's Algorithm 4.1: a new state costs 1, a state met in the cache
// adds its cost to the top of the stack and a state left to its parent;
// costs in a strongly connected component are under-counted, as the
// thesis accepts), random, age, hits (met again fewest times), depth
// (deepest first), stratified (depths k mod StratifiedLevels, k moving
// on when none is ready) and tinylfu (a count-min sketch of how often
// each fingerprint was met, and of lfuSample ready states drawn at
// random the one met least). Ties and draws come from a PCG seeded by
// Cache.Seed, so a seed gives the same counts on every run.
//
// Coverage estimation (coverage.go, thesis.go, levels.go). walk: random
// walks from the initial state over the transitions the search takes
// (persistent sets without provisos, chains, symmetry's renaming), at
// most walkLen steps each, within a budget of walkShare of the search's
// transitions; the share of the states they meet that are stored is the
// estimate, and the interval treats walks as the independent samples.
// levels: the frontier's states are kept in one pass where either sample
// may take them (the place in the frontier hashed with two seeds, at the
// rate of the largest sample); a probe run with samples of levelsProbe
// states a level counts the levels, a second run spends the rest of a
// budget of levelsShare of the search's transitions, and where it runs
// out the probe's deeper levels are taken; if the probe itself runs out,
// the levels it sized give only an upper bound (the interval reaches 0). Each level's size
// is Chapman's form of Lincoln-Petersen, its variance Seber's. thesis:
// breadth-first on thesisShare of each limit, then depth-first searches
// from random unexplored transitions of the worklist, then every
// unsampled worklist transition executed once to count the productive
// ones left (equation 5.2). chao: how often each state was reached, and
// Chao's bound f1^2/2f2. At a depth limit levels gives way to walk: the
// states at the bound are not in the frontier. Products are converted to
// float64 before they are added, so that no fused multiply-add changes
// the bits from one machine to another.
//
// Trails (trace.go) hold the program's digest, the granularity, whether
// escape analysis and dead variable reduction were on, and a line per
// transition; mcvm adds the verdict and the length as comments, so that a
// trail cut short is reported as incomplete instead of replaying to ok.
//
// Memory. Growing a table is one allocation as large as all before it,
// which the sampled limit check could see too late, so a store first asks
// whether the process would pass Options.MemoryLimit; if so it does not
// grow, reports full, and the search ends at its next step with verdict
// limit ("memory"), the table still having room (the exact store is at
// most half full, hash compaction 13/16). Collapse's pools and state table
// grow anyway at 15/16, since one state can bring many components before
// the search looks. A replaced table or index of 1 MiB or more is given
// back at once (debug.FreeOSMemory), and on Linux the old table's pages
// are dropped as its slots move (MADV_DONTNEED), so two tables are never
// both resident at the peak; tables of 64 MiB or more ask for transparent
// huge pages (MADV_HUGEPAGE), which Go's heap does not. The bitstate array
// is allocated once, at its full size.
//
// Invariants: with an exact store two states are the same only if their
// canonical encodings are equal byte for byte; fingerprints
// (vm.Machine.Fingerprint) only choose hash buckets, are all a lossy store
// keeps, and identify states in reports, identical on every run, search
// order and machine. Lookahead, garbage collection, snapshot windows and
// the choice among exact stores change no state, transition, error or
// path a search reports, only its cost; differential tests hold them to
// that (TestDFS_lookahead, TestCollapse_vsExact, TestStorage_lossyVsExact).
//
// explorer imports vm, heap and bytecode; it must not import por, scc or
// cmd: it declares what it consumes and cmd/mcvm wires implementations in.
package explorer
