// Tuning: the search's internal settings, for differential tests and measurements.

package explorer

// Tuning holds settings of a search that users never set: each turns a
// part of the search on or off, or moves a threshold, so that
// differential tests can compare a search with the part and without it
// and benchmarks can measure what the part gains. Options.Tuning nil
// means DefaultTuning.
type Tuning struct {
	// SkipInvariants: a state reached from a checked one by transitions
	// that wrote nothing the invariants read is not checked again
	// (vm.Machine.InvariantsChanged).
	SkipInvariants bool
	// CollapseDelta: the collapse store compares a successor's components
	// with its parent's first (delta collapse).
	CollapseDelta bool
	// Lookahead: an unreduced depth-first search with a lossy store looks
	// one transition ahead and prefetches the next state's slot (ahead.go).
	Lookahead bool
	// MaxSnapDepth bounds the DFS levels that keep a snapshot for
	// backtracking; deeper levels decode their stored encoding instead
	// (but for a search with a window, see SnapWindow).
	MaxSnapDepth int
	// SnapWindow is how far below the top of the DFS stack a level keeps
	// its snapshot with the collapse store, which gives the state back
	// (see search.evict); 0: all levels keep theirs. The exact store keeps
	// them all (its point is speed, and decoding costs some), unless
	// WindowExact is set.
	SnapWindow  int
	WindowExact bool
	// DeltaSnapDepth is the first DFS level whose snapshot is a reverse
	// delta (see the constant DeltaSnapDepth).
	DeltaSnapDepth int
	// ParallelSlots is the first size of the table a parallel search's
	// workers share (sharedTable): 8 MiB, since every growth stops the
	// workers; tests make it small, so that it grows while they run.
	ParallelSlots int
}

// DefaultTuning returns the settings searches run with.
func DefaultTuning() Tuning {
	return Tuning{SkipInvariants: true, CollapseDelta: true, Lookahead: true,
		MaxSnapDepth: 1 << 17, SnapWindow: 4096, DeltaSnapDepth: DeltaSnapDepth, ParallelSlots: 1 << 20}
}

// tuning returns the settings of the search o configures.
func (o *Options) tuning() Tuning {
	if o.Tuning != nil {
		return *o.Tuning
	}
	return DefaultTuning()
}
