// Package por implements partial-order reduction for mcvm's explorer.
// docs/design.md, "Reductions", states the rules and why each is sound;
// this comment says how the package computes what they need.
//
// Reducer chooses persistent (ample) sets: a state is expanded with one
// thread's transitions when object escape analysis, or a static analysis
// of what every other thread can still access (read/write and lock
// aware), shows that nothing another thread can do before them depends on
// them, and the invariants cannot see them. It also implements
// explorer.Sleeper (Dependent, on vm.Footprint) for sleep sets. Dynamic is
// stateful dynamic partial-order reduction (Flanagan and Godefroid's races
// on the DFS stack, with summarised interleaving information, or the
// static analysis, standing in for the subtrees of revisited states).
//
// The static analysis (por.go). Each instruction's own accesses are bits
// per entity (each field, each static, "an array element"), read and
// write, guarded and unguarded, plus start, join and monitor bits; method
// summaries are a fixpoint over the call graph (every override an
// invokevirtual may reach, the bodies of threads created), and a backward
// fixpoint over each method's control flow gives, per pc, what a thread
// there can still do. Instructions in a protected region may continue at
// its handlers and filters; the structured-exception instructions, whose
// targets are known only at run time, may continue anywhere in their
// method. A thread's future is the union over its frames; it is computed
// at most once per state and thread.
//
// Guarded accesses (guard.go). An abstract interpretation of each method
// tracks which operand-stack values are the receiver (local 0, never
// stored to) and a lower bound h on how often the thread holds the
// receiver's monitor: 1 on entry to a synchronized or locked-entry method,
// +1 at a monitorenter of the receiver, -1 at a monitorexit of it; joins
// keep the smaller bound. A call of a method that is not exit-safe (one
// whose monitorexits do not all undo its own monitorenters on the same
// variable, or that calls such a method; a greatest fixpoint) may release
// any monitor, and sets h to 0. A method is locked-entry (the greatest
// fixpoint) when every call that may reach it is made on the caller's
// receiver while the caller holds its monitor, as for a helper called only
// from synchronized methods on this. A getfield or putfield on the
// receiver with h >= 1 is guarded; every other access is unguarded. A
// method with exception handlers, or an instruction the interpretation
// does not model, gets no marks, and its calls count as unheld: a guarded
// mark must never be wrong, a missing one only costs reduction. The
// regression programs in testdata (guarded_callee_release,
// guarded_local_release, guarded_helper_unheld) each catch one way of
// getting this wrong.
//
// The dynamic reduction (dpor.go) never scans the stack. The path is
// indexed, every link undone when its level is popped: per location (an
// open-addressing table keyed by kind, object and index) the last level
// that touched it, chained to the earlier ones; likewise the levels of
// unknown footprint, the writes the invariants read, the monitor
// operations, the thread-status accesses, the levels per static-analysis
// entity, and per thread its last level or the start that made it
// runnable. A race check walks only the chains of its footprint's
// location (and the unknown and visible ones); a vector clock joins only
// the last write on its location (each monitor operation counting as a
// write), the last unknown footprint and the last visible write, which is
// the join over all dependent transitions. A level remembers which threads
// it already got, so many races against one level cost one scheduling.
// Summaries are per field entity rather than per object, so a revisit
// from another path can use them without relating object identities;
// each distinct summary is kept once in a pool. TestDynamic_indexesMatchScan
// keeps a scanning implementation as a reference and requires identical
// decisions.
//
// Two dependent transitions are taken to be co-enabled unless one is a
// monitor's release and the other another thread's acquire of it, or one
// is a thread's end and the other a join of that thread.
//
// Revision numbers the reduction's definition: a search script records it
// with the mode and the proviso, because another revision of the same
// mode chooses other persistent sets.
//
// The explorer owns the cycle proviso (it depends on the search order);
// this package only answers, for a state, which enabled transitions to
// explore. Escape analysis itself runs in the vm, on the active heap
// (vm.Options.Escape, vm.Machine.NextAccess, vm.Machine.Confined), because
// the vm consults it inside a transition; footprints for the dynamic
// reduction and sleep sets come from vm.Machine.NextFootprint.
//
// por imports vm, heap and bytecode; it must not import explorer (Reducer
// and Dynamic implement explorer.Reducer, explorer.Sleeper and
// explorer.Dynamic structurally) or scc.
package por
