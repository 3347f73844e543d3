// Package por implements partial-order reduction for mcvm's explorer.
//
// Reducer chooses persistent (ample) sets: a state is expanded with one
// thread's transitions when object escape analysis, or a static analysis
// of what every other thread can still access (read/write and lock aware),
// shows that nothing another thread can do before them depends on them,
// and the invariants cannot see them. Dynamic is stateful dynamic
// partial-order reduction (Flanagan and Godefroid's races on the DFS stack,
// with the static analysis standing in for interleaving information at
// revisited states).
//
// The explorer owns the cycle proviso (it depends on the search order);
// this package only answers, for a state, which enabled transitions to
// explore. Escape analysis itself runs in the vm, on the active heap
// (vm.Options.Escape, vm.Machine.NextAccess, vm.Machine.Confined), because
// the vm consults it inside a transition; footprints for the dynamic
// reduction come from vm.Machine.NextFootprint.
//
// por imports vm and bytecode only; it must not import explorer (Reducer
// and Dynamic implement explorer.Reducer and explorer.Dynamic
// structurally) or scc.
package por
