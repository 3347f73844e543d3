package explorer_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"mcvm/asm"
	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/internal/progen"
	"mcvm/vm"
)

// TestStorage_lossyVsExact is the differential test of the visited sets:
// on every conformance program and the philosophers, hash compaction and
// bitstate hashing (with an array large enough that no state is lost)
// must visit the same states in the same order as the exact store, with
// the same transitions, errors and verdicts, in both search orders, with
// and without --continue; and with DFS decoding every level (no
// snapshots), the path a lossy store takes through its own copies of the
// encodings. Generated programs join them (MCVM_GEN_PROGRAMS, default 30).
func TestStorage_lossyVsExact(t *testing.T) {
	type run struct {
		fps []uint64
		res *explorer.Result
	}
	search := func(p *bytecode.Program, opts explorer.Options, snapDepth int) run {
		opts.Tuning = tuned(func(tu *explorer.Tuning) { tu.MaxSnapDepth = snapDepth })
		m, err := vm.New(p, vm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var r run
		opts.MaxStates = 50000
		opts.Listen(explorer.Funcs{OnState: func(id int32, fp uint64) {
			if int(id) != len(r.fps) {
				t.Fatalf("OnState id %d, want %d", id, len(r.fps))
			}
			r.fps = append(r.fps, fp)
		}})
		r.res = explorer.Search(m, opts)
		return r
	}
	models := smallModels(t)
	n, err := progen.Count(30)
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		n = 8
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		src := progen.GenerateWith(seed, progen.Options{Handlers: seed%2 == 0})
		p, err := asm.Assemble("gen.mcasm", []byte(src), asm.Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		models = append(models, model{fmt.Sprintf("generated-%d", seed), p})
	}
	for _, md := range models {
		p := md.prog
		for _, order := range []explorer.Order{explorer.DFS, explorer.BFS} {
			for _, cont := range []bool{true, false} {
				base := explorer.Options{Order: order, Continue: cont}
				want := search(p, base, 1<<20)
				for _, st := range []explorer.Storage{explorer.StorageHashCompact, explorer.StorageBitstate} {
					for _, snap := range []int{1 << 20, 0} {
						name := fmt.Sprintf("model=%s/search=%s/continue=%v/store=%s/snapdepth=%d",
							filepath.Base(md.path), order, cont, st, snap)
						opts := base
						opts.Storage, opts.BitstateBits = st, 26
						got := search(p, opts, snap)
						g, w := got.res, want.res
						if !slices.Equal(got.fps, want.fps) || g.Verdict != w.Verdict ||
							g.Stats.Transitions != w.Stats.Transitions || g.Stats.Errors != w.Stats.Errors ||
							g.Stats.Revisits != w.Stats.Revisits || len(g.Path) != len(w.Path) {
							t.Errorf("%s: %s, %d states %d transitions %d errors; exact store: %s, %d %d %d",
								name, g.Verdict, len(got.fps), g.Stats.Transitions, g.Stats.Errors,
								w.Verdict, len(want.fps), w.Stats.Transitions, w.Stats.Errors)
						}
						if a := g.Stats.Store; a.Storage != st.String() || a.MissProbability < 0 || a.MissProbability > 1e-3 || a.Bytes <= 0 {
							t.Errorf("%s: store account %+v", name, a)
						}
					}
				}
			}
		}
	}
}

// TestStorage_account checks the memory account of the three stores on a
// known space: philo N=3, 262 states.
func TestStorage_account(t *testing.T) {
	md := smallModels(t)[0]
	for _, st := range []explorer.Storage{explorer.StorageExact, explorer.StorageHashCompact, explorer.StorageBitstate} {
		m, err := vm.New(md.prog, vm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res := explorer.Search(m, explorer.Options{Continue: true, Storage: st, BitstateBits: 20})
		a := res.Stats.Store
		if res.Stats.States != 262 || res.Stats.StoreBytes != a.Bytes || res.Stats.PeakMemory <= 0 {
			t.Errorf("store=%s: states %d, StoreBytes %d, account %+v, peak %d", st, res.Stats.States, res.Stats.StoreBytes, a, res.Stats.PeakMemory)
		}
		switch st {
		case explorer.StorageExact:
			if a.MissProbability != 0 || a.Bytes != a.TableBytes+a.RecordBytes+a.IndexBytes || a.TableSlots*8 != a.TableBytes || a.IndexBytes != 8*((262+7)/8) {
				t.Errorf("exact account %+v", a)
			}
		case explorer.StorageHashCompact:
			if a.TableSlots != 1<<16 || a.Bytes != 8<<16 || a.MissProbability <= 0 || a.MissProbability > 1e-12 {
				t.Errorf("hash-compact account %+v", a)
			}
		case explorer.StorageBitstate:
			if a.TableSlots != 1<<20 || a.Bytes != 1<<17 || a.MissProbability <= 0 || a.MissProbability > 1e-3 {
				t.Errorf("bitstate account %+v", a)
			}
		}
	}
}

// TestStorage_bitstateSeed checks that Options.BitstateSeed chooses
// another hash function: in a large array every seed stores the whole
// space (philo N=3, 262 states), and in a tiny one (2^8 bits, which some
// states' bits collide in) the seeds miss different numbers of states.
func TestStorage_bitstateSeed(t *testing.T) {
	md := smallModels(t)[0]
	search := func(bits int, seed uint64) int64 {
		m, err := vm.New(md.prog, vm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return explorer.Search(m, explorer.Options{Continue: true, Storage: explorer.StorageBitstate, BitstateBits: bits, BitstateSeed: seed}).Stats.States
	}
	counts := map[int64]bool{}
	for seed := range uint64(8) {
		if n := search(24, seed); n != 262 {
			t.Errorf("2^24 bits, seed %d: %d states, want 262", seed, n)
		}
		counts[search(8, seed)] = true
	}
	if len(counts) < 2 {
		t.Errorf("2^8 bits: every seed stored the same number of states %v: the seed changes nothing", counts)
	}
}
