package explorer

// SetMaxSnapDepth sets how deep DFS keeps snapshots (0: always decode) and
// returns the previous value, for differential tests of backtracking.
func SetMaxSnapDepth(d int) int {
	old := maxSnapDepth
	maxSnapDepth = d
	return old
}
