package explorer

// SetMaxSnapDepth sets how deep DFS keeps snapshots (0: always decode) and
// returns the previous value, for differential tests of backtracking.
func SetMaxSnapDepth(d int) int {
	old := maxSnapDepth
	maxSnapDepth = d
	return old
}

// SetSnapWindow sets how far below the top DFS levels keep their
// snapshots (0: all keep them) and whether the exact store evicts them
// too, and returns the previous settings.
func SetSnapWindow(w int, exact bool) (int, bool) {
	old, oldExact := snapWindow, windowExact
	snapWindow, windowExact = w, exact
	return old, oldExact
}

// SetCollapseDelta turns delta collapse on or off for the searches'
// collapse stores and returns the previous setting.
func SetCollapseDelta(on bool) bool {
	old := collapseDelta
	collapseDelta = on
	return old
}

// SetDeltaSnapDepth sets the first DFS level whose snapshot is a reverse
// delta and returns the previous value, for differential tests.
func SetDeltaSnapDepth(d int) int {
	old := deltaSnapDepth
	deltaSnapDepth = d
	return old
}

// SetSkipInvariants turns skipping the invariants of states whose
// invariant reads did not change on or off and returns the previous
// setting.
func SetSkipInvariants(on bool) bool {
	old := skipInvariants
	skipInvariants = on
	return old
}

// SetStoreHash sets the hash of the stores made from now on (tests make
// fingerprints collide with a weak one) and returns the previous one.
func SetStoreHash(h func([]byte) uint64) func([]byte) uint64 {
	old := storeHash
	storeHash = h
	return old
}

// SetLookahead turns lookahead (ahead.go) on or off for the searches it
// applies to and returns the previous setting.
func SetLookahead(on bool) bool {
	old := lookaheadOn
	lookaheadOn = on
	return old
}
