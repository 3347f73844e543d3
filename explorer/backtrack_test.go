package explorer_test

import (
	"maps"
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

// TestDFS_shuffleSameSpace checks that --random-order changes only the
// order: the same states (as a set), transitions and errors, and a
// deterministic search for a given seed.
func TestDFS_shuffleSameSpace(t *testing.T) {
	for _, md := range smallModels(t) {
		run := func(seed uint64) (map[uint64]bool, []uint64, *explorer.Result) {
			m, err := vm.New(md.prog, vm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			set := map[uint64]bool{}
			var seq []uint64
			res := explorer.Search(m, explorer.Options{Continue: true, Shuffle: seed,
				OnState: func(id int32, fp uint64) { set[fp] = true; seq = append(seq, fp) }})
			return set, seq, res
		}
		a, _, ra := run(0)
		b, seqB, rb := run(7)
		_, seqB2, _ := run(7)
		if !maps.Equal(a, b) || ra.Stats.Transitions != rb.Stats.Transitions || ra.Stats.Errors != rb.Stats.Errors {
			t.Errorf("model=%s: shuffled DFS explores %d states %d transitions %d errors, thread order %d %d %d",
				filepath.Base(md.path), len(b), rb.Stats.Transitions, rb.Stats.Errors, len(a), ra.Stats.Transitions, ra.Stats.Errors)
		}
		if !slices.Equal(seqB, seqB2) {
			t.Errorf("model=%s: the same shuffle seed gives two different searches", filepath.Base(md.path))
		}
	}
}
