// Package por implements partial-order reduction for mcvm's explorer:
// persistent (ample) sets built from object escape analysis and from a
// static analysis of what each thread can still access, so that a state
// is expanded with the transitions of one thread only when no other thread
// can ever interfere with them.
//
// The explorer owns the cycle proviso (it depends on the search order); this
// package only answers, for a state, which enabled transitions form a
// persistent set whose transitions are invisible to the program's
// invariants. Escape analysis itself runs in the vm, on the active heap
// (vm.Options.Escape, vm.Machine.NextAccess), because the vm consults it
// inside a transition.
//
// por imports vm and bytecode only; it must not import explorer (it
// implements explorer.Reducer structurally) or scc.
package por
