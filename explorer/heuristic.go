// Heuristics: estimates of a state's distance to an error, for directed search.

package explorer

import "mcvm/vm"

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
