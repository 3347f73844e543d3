// Package vm is mcvm's virtual machine: the active state (heap, statics,
// threads with their call stacks), one small executor per opcode decoded
// once per instruction at load time, and transitions in the style of Java
// PathFinder: a thread runs from a scheduling point through the following
// thread-local instructions up to the next instruction whose effect other
// threads can observe (or, with GranInstruction, one instruction). It also
// holds what must look at the active state inside a transition or word by
// word: the canonical encoding and fingerprints, snapshots, garbage
// collection, escape analysis, thread symmetry and dead variable
// reduction. docs/design.md gives the reasons and the soundness arguments.
//
// Where things are:
//
//	machine.go      loading and decoding, Enabled, Step, faults, limits, invariants
//	spin.go         the long transition's search for a cycle: livelocks
//	dispatch.go     the switch from opcode to executor
//	exec_*.go       the executors by family; exec_except.go the two passes of throw
//	state.go        State, Thread, Frame, Pending; Encode, Decode and their grammar;
//	                the thread record's layout, once for writing and hashing
//	encoder.go      encoder, the canonical encoder the machine holds: its
//	                numbering, incremental base and collectors, with a read-only
//	                view of the state and the program's tables
//	fingerprint.go  the fingerprint as a sum of component terms
//	encinc.go       incremental encoding against a base, the write log; EncodeFingerprint
//	records.go      raw records; keptahead.go kept transitions (StepAhead)
//	snapshot.go     Save, SaveDelta, Restore: full and reverse-delta snapshots
//	gc.go           CollectGarbage: mark-and-sweep, the memoised collector
//	escape.go       escape analysis, NextAccess, NextFootprint, Confined
//	symmetry.go     SortThreads, Twins, ThreadIDUse; dead.go dead locals
//	tuning.go       Tuning: checks of the fast paths against the slow ones, for tests
//
// Some parts are values of their own types held by Machine (values, not
// pointers: they are on hot paths), each with a narrow view of the
// machine: its methods take the state they look at (and, where results
// are kept, the version it is at) and read only tables of the program
// fixed by New, so that what a part can touch is in its signatures.
// Machine's exported methods are thin wrappers around them; what also
// runs code, encodes or replaces the machine's state (Restore,
// bestOrder, PermuteThreads) is Machine's and calls them.
//   - snapshots (snapshot.go): the shadow that deltas are taken against
//     and rolled back in, and the spare copies that saves reuse. The clock
//     is Machine's: the encoder stamps threads with it too.
//   - escape (escape.go): which threads reach each object, which hold a
//     monitor, and Confined's reachability, kept per state version.
//   - symmetry (symmetry.go): the thread keys, the refinement's places
//     and ranks, and the renaming of a state's threads.
//
// The state (state.go). A Thread is its id (its index), status, Thread
// object, the object it waits on and the monitor count to restore when
// notified, its frames, its Pending records and one value stack of every
// frame's locals and operands. A frame names the monitor its synchronized
// method holds, so unwinding releases that one even if the receiver local
// was overwritten. A monitor's owner, in the object's header, is the
// owning thread's id + 1. The canonical numbering starts from the Thread
// objects in thread order and the reference statics, then takes thread by
// thread the object waited on, the frames' monitors, the stack's
// references and the pending exceptions. Escape analysis counts an object
// as a thread's if that thread's Thread object, waited object, frames'
// monitors, pending exceptions or stack references reach it; an ended
// thread reaches nothing.
//
// Invariants' reads: New collects the fields, statics and array elements
// an invariant's code, its callees and their overrides read; a transition
// that writes none of them leaves every invariant's value unchanged.
//
// Livelocks (spin.go). A transition past spinAfter (4,096) instructions
// goes on in a second copy of the step loop (stepLong), which compares the
// thread's state at backward jumps with a copy taken on Brent's schedule.
// A loop that writes, allocates or prints, or whose round is longer than
// Brent's search can close within MaxLocalSteps (about 30,000
// instructions), runs to that bound and is a cycle of the state graph. At
// GranInstruction every local loop is such a cycle, and none is reported
// as a livelock (testdata/conformance/livelock.mcasm).
//
// Modelling directives: setup (machine.go) removes the setup methods' own
// threads and renumbers the later ones before anything is encoded;
// initAtomic marks the instructions from which a transition may run into
// an atomic region (op.into) and gives them footprint FootAny, and
// keepFrom keeps no transition that starts at one.
//
// Invariants:
//   - The machine runs only verified programs, so operands are in range
//     and operand stacks never underflow; a fault of the model program
//     (assertion, uncaught exception, type error, livelock) or a limit of
//     the machine it reaches is a Fault returned by Step, never a Go panic
//     or error.
//   - Encode yields the canonical form of a state: equal for states equal
//     up to heap renumbering and garbage, identical on every run and
//     machine; the fingerprint is a function of it alone.
//   - Every change to a thread goes through stamp, which gives it the
//     machine's clock (advanced by every save, restore and encoding): a
//     thread stamped below a snapshot's clock has not changed since that
//     snapshot, and one with the stamp it had in the incremental encoder's
//     base has the base's record.
//   - Every write to an object's slot or monitor calls wrote, every write
//     to a static wroteStatic, every allocation allocatedInc. The
//     incremental encoder, restores by the write log, deltas taken from the
//     log and kept transitions all rely on the log being complete.
//   - Freeing an object changes no reachable object; a freed place reused
//     by an allocation is the allocating thread's for escape analysis.
//
// The incremental encoder's base follows depth-first search. Save makes
// the state it saves the base if that state was encoded last, keeping in
// the snapshot the parent's records (or, for a base kept for its
// fingerprint alone, only their terms) of the components that changed, so
// that Restore of an ancestor rolls the base back level by level instead
// of encoding again. Restoring the base's own snapshot with nothing but
// logged writes since copies back only the logged objects and the listed
// threads (restoreBase). Where the way back is broken (a level written
// whole with a new numbering), the restored state's remaining successors
// follow, and encoding it whole to make it the base pays only if several
// do: the machine counts how many times in a row, on average, a snapshot
// is restored once backtracked to, and at two or more makes the restored
// state the base at once, else only when it is restored a second time.
// Decode, Init and PermuteThreads drop the base.
//
// A numbering cut short: the main thread's return drops objects only it
// referred to, which fails the incremental encoder's check. With the
// records last thread first, main's is the last thread record, followed
// only by objects' records. If it now reaches, in order, a prefix of the
// objects the base numbered from it, no object up to the prefix refers
// past it and none past it changed, then the objects past the prefix are
// unreachable: the numbering is the base's cut short, and the fingerprint
// is the base's sum with the changed terms replaced and the dropped
// objects' terms removed.
//
// Thread symmetry's order: SortThreads orders the threads by a key from
// each one's record (references written as "this thread's object",
// "another thread's object", "static i's object", "the k-th other
// object"), refines ties by walking from the statics and from threads
// already told apart, and orders what is still tied by trying each order
// of a run, up to a bound, keeping the smallest encoding.
//
// Checking: with Options.Tuning.CheckEncoding every incremental encoding
// and fingerprint (kept transitions included) is compared
// with a whole encoding, restores and deltas taken from the write log
// with whole copies, and any difference panics. The vm's tests of the
// encoder and of kept transitions turn the check on themselves, and with
// MCVM_CHECK_ENCODING=1 in the environment every machine vm's test
// helpers make checks (run them as go test -count=1 ./vm).
//
// Structured exception handling, where the CLI leaves room:
//   - An exception no handler takes ends its thread at once, without
//     running finally handlers (MoonWalker, Algorithm 2), releasing its
//     monitors, and is reported at the throw site: the first pass changes
//     no frame, so the top frame's pc is still the throw site after
//     filters ran. With Options.IgnoreUncaught the thread ends silently.
//   - A filter found by the first pass runs in a copy of its method's
//     frame (locals copied, no monitor) pushed above the frames that
//     threw, which stay untouched until it decides; endfilter pops the
//     copy and starts the second pass or resumes the search. An exception
//     that escapes a filter unwinds up to the copy and is discarded: the
//     filter counts as false, as does one that cannot run for lack of
//     stack. Filter blocks hold no regions, so the copy has no handlers.
//   - A thread's Pending records, ordered by frame and block nesting, say
//     where each running handler block goes back to: a finally run by
//     leave, its target; a finally or fault run by the second pass, the
//     exception and the handler it goes to; a filter, the exception and
//     where the search resumes; a catch block that contains rethrow, its
//     exception (one without rethrow keeps no record: its exception would
//     be dead state). Records go when their block is left or their frame
//     popped. A thread with none encodes as if structured exceptions did
//     not exist; bit 0x80 of the status byte marks records.
//   - An exception thrown by a finally, fault or catch handler replaces
//     the one being handled. Unwinding a synchronized method whose monitor
//     the thread no longer owns throws IllegalMonitorStateException there,
//     and the frame stops claiming the monitor, so that cannot loop. leave
//     empties the operand stack.
//   - throw, leave and the handler-ending instructions are not scheduling
//     points: they touch only the thread's own state. A monitor released
//     while unwinding is released inside the transition: while the thread
//     holds it no other thread can do anything with it, so the release
//     commutes with what they do in between.
//   - The verifier checks the region structure; the vm still checks each
//     record it consumes and turns a mismatch into a type-error fault.
//
// vm imports bytecode and heap; it must not import explorer, por, scc or cmd.
package vm
