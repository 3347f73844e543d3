package explorer_test

import (
	"path/filepath"
	"slices"
	"testing"

	"mcvm/explorer"
	"mcvm/vm"
)

// TestDFS_snapshotVsDecode checks the two ways DFS backtracks against each
// other: restoring raw snapshots (which copy back only the threads that
// changed) and decoding the stored encoding must visit the same states in
// the same order, on every conformance program and the benchmark models.
func TestDFS_snapshotVsDecode(t *testing.T) {
	for _, md := range smallModels(t) {
		p, path := md.prog, md.path
		for _, g := range []vm.Granularity{vm.GranTransition, vm.GranInstruction} {
			run := func(snapDepth int) ([]uint64, *explorer.Result) {
				old := explorer.SetMaxSnapDepth(snapDepth)
				defer explorer.SetMaxSnapDepth(old)
				m, err := vm.New(p, vm.Options{Granularity: g})
				if err != nil {
					t.Fatal(err)
				}
				var fps []uint64
				res := explorer.Search(m, explorer.Options{Continue: true, MaxStates: 50000,
					OnState: func(id int32, fp uint64) { fps = append(fps, fp) }})
				return fps, res
			}
			a, ra := run(1 << 20)
			b, rb := run(0)
			if !slices.Equal(a, b) || ra.Stats.Transitions != rb.Stats.Transitions || ra.Stats.Errors != rb.Stats.Errors {
				t.Errorf("model=%s/granularity=%s: snapshots give %d states %d transitions %d errors, decoding %d %d %d",
					filepath.Base(path), g, len(a), ra.Stats.Transitions, ra.Stats.Errors, len(b), rb.Stats.Transitions, rb.Stats.Errors)
			}
		}
	}
}
