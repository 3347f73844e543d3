// Which options combine: the one place that decides it.

package explorer

import "errors"

// The reasons a part of a search does not apply. The messages name the
// options as mcvm's command line spells them, since that is where users
// set them.
var (
	errNeedsDFSStack  = errors.New("needs depth-first search with the stack proviso")
	errMaxDepth       = errors.New("does not combine with --max-depth")
	errChainDynamic   = errors.New("does not combine with dpor")
	errSleepLossy     = errors.New("needs an exact store (not --hash-compact or --bitstate): a stored state keeps its sleep set")
	errStackBFS       = errors.New("--proviso=stack needs depth-first search (use duplicate or static with --search=bfs)")
	errDynamicBFS     = errors.New("--por=dpor needs depth-first search")
	errSymmetryDPOR   = errors.New("--symmetry does not combine with dpor (its races follow threads along the search stack)")
	errNeedsReduction = errors.New("needs a reduction (--por other than none)")
	errGoal           = errors.New("a goal (mcvm improve) needs --search=bfs, best-first or astar with an exact store")
	errIDAContinue    = errors.New("--search=ida stops at the first error (it explores states once per path to them)")
	errIDADuplicate   = errors.New("--search=ida applies --proviso=stack (on its path) or static, not duplicate")
	errThesis         = errors.New("--coverage=thesis needs a limit (--max-states, --time-limit or --memory-limit: its phases share it), the exact store, and the default or breadth-first search without dpor or --proviso=stack")
	errChao           = errors.New("--coverage=chao counts how often each state is reached: it needs the exact or collapse store, without --cache")
	errDirectedLossy  = errors.New("--search=astar and --search=best-first need an exact store (not --hash-compact or --bitstate): they keep each state's path length and estimate by its id")
)

// Validate reports a combination of options that no search can run: the
// stack proviso or dynamic reduction with a search other than depth-first,
// symmetry with dynamic reduction, a directed search with a lossy store. Options that merely do not apply (Chain and
// Sleep where ChainFits or SleepFits says why not) are left out by the
// search, not refused.
func (o *Options) Validate() error {
	switch {
	case o.Coverage == EstimatorThesis && (o.MaxStates <= 0 && o.TimeLimit <= 0 && o.MemoryLimit <= 0 || o.Storage != StorageExact || o.Order != DFS && o.Order != BFS ||
		o.Dynamic != nil || o.Proviso == ProvisoStack || o.Goal != nil || o.Cache != nil):
		return errThesis
	case o.Coverage == EstimatorChao && (o.Storage != StorageExact && o.Storage != StorageCollapse || o.Cache != nil):
		return errChao
	case o.Proviso == ProvisoStack && o.Order != DFS && o.Order != IDA:
		return errStackBFS
	case o.Dynamic != nil && o.Order != DFS:
		return errDynamicBFS
	case o.Symmetry && o.Dynamic != nil:
		return errSymmetryDPOR
	case o.Goal != nil && (o.Order == DFS || o.Order == IDA || o.Storage != StorageExact && o.Storage != StorageCollapse):
		return errGoal
	case o.Order == IDA && o.Continue:
		return errIDAContinue
	case o.Order == IDA && o.Proviso == ProvisoDuplicate:
		return errIDADuplicate
	case (o.Order == AStar || o.Order == BestFirst) && o.Storage != StorageExact && o.Storage != StorageCollapse:
		return errDirectedLossy
	}
	return o.validateCache()
}

// dfsStack reports whether o is a depth-first search with the stack
// proviso, where chains and sleep sets apply.
func (o *Options) dfsStack() bool {
	return o.Order == DFS && o.Proviso.Resolve(o.Order) == ProvisoStack
}

// ChainFits says why Options.Chain does not apply to the search o
// configures (the search then stores every state), or returns nil.
// reduces says a reduction is set (the Reducer, or one that the caller is
// about to set).
func (o *Options) ChainFits(reduces bool) error {
	switch {
	case !o.dfsStack():
		return errNeedsDFSStack
	case o.Dynamic != nil:
		return errChainDynamic
	case o.MaxDepth > 0:
		return errMaxDepth
	case !reduces:
		return errNeedsReduction
	}
	return nil
}

// SleepFits says why Options.Sleep does not apply to the search o
// configures, or returns nil; reduces as for ChainFits.
func (o *Options) SleepFits(reduces bool) error {
	switch {
	case !o.dfsStack():
		return errNeedsDFSStack
	case o.MaxDepth > 0:
		return errMaxDepth
	case !reduces:
		return errNeedsReduction
	case o.Cache != nil:
		return errSleepCache
	}
	if o.Storage != StorageExact && o.Storage != StorageCollapse {
		return errSleepLossy
	}
	return nil
}

// CollectsGarbage reports whether the search o configures frees
// unreachable objects of the states it expands: depth-first search
// without dynamic reduction (which compares object references along the
// search stack, which reusing a freed object's place would confuse).
func (o *Options) CollectsGarbage() bool { return o.Order == DFS && o.Dynamic == nil }
