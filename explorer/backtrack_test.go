package explorer_test

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"mcvm/asm"
	"mcvm/explorer"
	benchmarks "mcvm/internal/bench"
	"mcvm/internal/progen"
	"mcvm/por"
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
				m, err := vm.New(p, vm.Options{Granularity: g})
				if err != nil {
					t.Fatal(err)
				}
				var fps []uint64
				res := explorer.Search(m, explorer.Options{Continue: true, MaxStates: 50000,
					Tuning:    tuned(func(tu *explorer.Tuning) { tu.MaxSnapDepth = snapDepth }),
					Listeners: []explorer.Listener{explorer.Funcs{OnState: func(id int32, fp uint64) { fps = append(fps, fp) }}}})
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

// suiteModels assembles the benchmark models named at their SMALL
// configurations.
func suiteModels(t *testing.T, names ...string) []model {
	t.Helper()
	suite, err := benchmarks.LoadModels("../benchmarks/models")
	if err != nil {
		t.Fatal(err)
	}
	var out []model
	for _, bm := range suite {
		if slices.Contains(names, bm.Name) {
			p, err := asm.AssembleFile(bm.Path, asm.Options{Defines: bm.Small.Defines})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, model{bm.Path, p})
		}
	}
	return out
}

// TestDFS_deltaSnapshots checks the two kinds of snapshot against each
// other: full copies of the heap at every level, and reverse deltas from
// the first level on, must visit the same states in the same order, with
// the same transitions and errors, on every conformance program and the
// benchmark models; with dynamic reduction too, which compares object
// references along the path and so needs the raw heap back exactly.
func TestDFS_deltaSnapshots(t *testing.T) {
	// The heap-heavy models at their SMALL configurations, cut off below.
	progs := append(smallModels(t), suiteModels(t, "moldyn", "raytracer", "elevator", "replicatedworkers")...)
	for _, md := range progs {
		for _, dyn := range []bool{false, true} {
			run := func(from int) ([]uint64, *explorer.Result) {
				mode := por.None
				if dyn {
					mode = por.DPOR
				}
				m, err := vm.New(md.prog, mode.VMOptions(vm.Options{}))
				if err != nil {
					t.Fatal(err)
				}
				opts := explorer.Options{Continue: true, MaxStates: 10000,
					Tuning: tuned(func(tu *explorer.Tuning) { tu.DeltaSnapDepth = from })}
				if dyn {
					opts.Dynamic = por.NewDynamic(por.New(md.prog, mode))
				}
				var fps []uint64
				opts.Listen(explorer.Funcs{OnState: func(id int32, fp uint64) { fps = append(fps, fp) }})
				return fps, explorer.Search(m, opts)
			}
			a, ra := run(1 << 30)
			b, rb := run(0)
			if !slices.Equal(a, b) || ra.Stats.Transitions != rb.Stats.Transitions || ra.Stats.Errors != rb.Stats.Errors {
				t.Errorf("model=%s/dpor=%v: full snapshots give %d states %d transitions %d errors, deltas %d %d %d",
					filepath.Base(md.path), dyn, len(a), ra.Stats.Transitions, ra.Stats.Errors, len(b), rb.Stats.Transitions, rb.Stats.Errors)
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
			res := explorer.Search(m, explorer.Options{Continue: true, Shuffle: seed, Listeners: []explorer.Listener{explorer.Funcs{OnState: func(id int32, fp uint64) { set[fp] = true; seq = append(seq, fp) }}}})
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

// TestDFS_snapWindow checks forgetting the snapshots of levels far below
// the top (decoding them from the store when the search returns to them,
// see explorer's evict) against keeping them all: the same states must be
// visited in the same order, with the same transitions and errors, on
// every conformance program and the benchmark models, with full copies
// and with deltas, with the exact and collapse stores, and with the
// default reduction (chains and sleep sets) as well as without; and on
// generated programs (MCVM_GEN_PROGRAMS of each generator, default 20).
func TestDFS_snapWindow(t *testing.T) {
	var evicted, decoded, stackAll, stackWindow int64
	progs := append(smallModels(t), suiteModels(t, "moldyn", "elevator", "boundedbuffer")...)
	n, err := progen.Count(20)
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		for _, o := range []progen.Options{{}, {Handlers: true}} {
			p, err := asm.Assemble("gen.mcasm", []byte(progen.GenerateWith(seed, o)), asm.Options{})
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			progs = append(progs, model{fmt.Sprintf("gen-%d-handlers=%v", seed, o.Handlers), p})
		}
	}
	for _, md := range progs {
		p, path := md.prog, md.path
		for _, cfg := range []struct {
			delta     int
			store     explorer.Storage
			por       bool
			snapDepth int // Tuning.MaxSnapDepth, if not 0 (a window lifts it)
		}{{0, explorer.StorageExact, false, 0}, {1 << 20, explorer.StorageExact, false, 0}, {0, explorer.StorageCollapse, false, 0},
			{0, explorer.StorageExact, true, 0}, {0, explorer.StorageCollapse, false, 2}} {
			run := func(window int) ([]uint64, *explorer.Result) {
				tune := tuned(func(tu *explorer.Tuning) {
					tu.SnapWindow, tu.WindowExact, tu.DeltaSnapDepth = window, true, cfg.delta
					if cfg.snapDepth > 0 {
						tu.MaxSnapDepth = cfg.snapDepth
					}
				})
				m, err := vm.New(p, vm.Options{})
				if err != nil {
					t.Fatal(err)
				}
				var fps []uint64
				opts := explorer.Options{Continue: true, MaxStates: 5000, Storage: cfg.store, Tuning: tune,
					Listeners: []explorer.Listener{explorer.Funcs{OnState: func(id int32, fp uint64) { fps = append(fps, fp) }}}}
				if cfg.por {
					opts.Reducer, opts.Chain, opts.Sleep = por.New(p, por.All), true, true
				}
				res := explorer.Search(m, opts)
				return fps, res
			}
			a, ra := run(0)
			for _, w := range []int{1, 3} {
				b, rb := run(w)
				evicted, decoded = evicted+rb.Stats.Evicted, decoded+rb.Stats.Decoded
				if w == 1 {
					stackAll, stackWindow = stackAll+ra.Stats.StackBytes, stackWindow+rb.Stats.StackBytes
				}
				if !slices.Equal(a, b) || ra.Stats.Transitions != rb.Stats.Transitions || ra.Stats.Errors != rb.Stats.Errors {
					t.Errorf("model=%s/%+v/window=%d: all snapshots give %d states %d transitions %d errors, the window %d %d %d",
						filepath.Base(path), cfg, w, len(a), ra.Stats.Transitions, ra.Stats.Errors, len(b), rb.Stats.Transitions, rb.Stats.Errors)
				}
			}
		}
	}
	t.Logf("%d snapshots evicted, %d levels decoded; stack memory %d bytes with all snapshots, %d with a window of one level", evicted, decoded, stackAll, stackWindow)
	if stackWindow <= 0 || stackWindow >= stackAll/2 {
		t.Errorf("the stacks' memory (Stats.StackBytes) is %d bytes with all snapshots and %d with a window of one level", stackAll, stackWindow)
	}
	if evicted == 0 || decoded == 0 {
		t.Errorf("%d snapshots evicted, %d levels decoded: the window was not tested", evicted, decoded)
	}
}
