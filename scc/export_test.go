package scc

// MergeSparse is Merge with a Go map for its table, whatever the IDs.
func MergeSparse(maps []*FPMap) (*MergeResult, error) {
	if err := checkTasks(maps); err != nil {
		return nil, err
	}
	return merge(maps, mapTable{})
}
