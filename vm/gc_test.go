package vm_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"mcvm/asm"
	"mcvm/vm"
)

// TestCollectGarbage_collectorsAgree walks every model and conformance
// program at random with three machines in lockstep: one never collects,
// one collects with mark-and-sweep and one with the memoised collector
// after every transition. Along the walks the machines save snapshots and
// go back to earlier ones, and now and then decode their own encoding, so
// that the memoised collector sees the heap jump as a search makes it.
// The two collectors must free the same objects and leave identical
// heaps, all three must encode identically (collecting never changes a
// canonical state), and the memoised collector's depths and predecessor
// bags must be exact. MCVM_GC_WALKS sets the walks per program and
// granularity (default 6; a longer run: MCVM_GC_WALKS=100). Mark-and-sweep marks on its own or, when the state
// was just encoded, takes the encoding's traversal as its mark.
func TestCollectGarbage_collectorsAgree(t *testing.T) {
	walks := 6
	if s := os.Getenv("MCVM_GC_WALKS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("MCVM_GC_WALKS=%q: want a positive number", s)
		}
		walks = n
	}
	for _, path := range models(t) {
		for _, g := range []vm.Granularity{vm.GranTransition, vm.GranInstruction} {
			checkCollectors(t, path, g, walks, 1500)
		}
	}
}

func checkCollectors(t *testing.T, path string, g vm.Granularity, walks, steps int) {
	t.Helper()
	p, err := asm.AssembleFile(path, asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ms [3]*vm.Machine
	for i, gc := range []vm.GC{vm.GCMarkSweep, vm.GCMarkSweep, vm.GCMemoised} {
		if ms[i], err = vm.New(p, vm.Options{Granularity: g, GC: gc, Tuning: envTuning()}); err != nil {
			t.Fatal(err)
		}
	}
	plain, sweep, memo := ms[0], ms[1], ms[2]
	rng := rand.New(rand.NewPCG(7, uint64(g)))
	var snaps [][3]*vm.Snapshot
	var trs []vm.Trans
	var enc [3][]byte
	freed := 0
	check := func(where string, collected bool) {
		for i, m := range ms {
			enc[i] = m.Encode(enc[i][:0])
		}
		if !bytes.Equal(enc[0], enc[1]) || !bytes.Equal(enc[0], enc[2]) {
			t.Fatalf("%s %s: %s: the machines encode differently", path, g, where)
		}
		a, b := sweep.S.Heap, memo.S.Heap
		if !slices.Equal(a.Objs, b.Objs) || !slices.Equal(a.Data, b.Data) {
			t.Fatalf("%s %s: %s: the collectors leave different heaps", path, g, where)
		}
		if msg := memo.GCCheck(); collected && msg != "" {
			t.Fatalf("%s %s: %s: memoised collector: %s", path, g, where, msg)
		}
	}
	for w := 0; w < walks; w++ {
		for _, m := range ms {
			m.Init()
		}
		snaps = snaps[:0]
		for step := 0; step < steps; step++ {
			if rng.IntN(2) == 0 {
				// Mark-and-sweep then takes the canonical traversal as its
				// mark, otherwise it marks on its own.
				enc[1] = sweep.Encode(enc[1][:0])
			}
			a := sweep.CollectGarbage()
			if b := memo.CollectGarbage(); a != b {
				t.Fatalf("%s %s: walk %d step %d: mark-and-sweep freed %d objects, memoised %d", path, g, w, step, a, b)
			}
			freed += a
			check("after collecting", true)
			switch r := rng.IntN(10); {
			case r < 2:
				var s [3]*vm.Snapshot
				for i, m := range ms {
					s[i] = new(vm.Snapshot)
					m.Save(s[i], nil)
				}
				snaps = append(snaps, s)
			case r < 4 && len(snaps) > 0:
				k := rng.IntN(len(snaps))
				for i, m := range ms {
					m.Restore(snaps[k][i])
				}
				snaps = snaps[:k+1]
				check("after a restore", false)
			case r < 5:
				for i, m := range ms {
					m.Decode(enc[i])
				}
			}
			trs = plain.Enabled(trs[:0])
			if len(trs) == 0 {
				break
			}
			tr := trs[rng.IntN(len(trs))]
			f := plain.Step(tr)
			sweep.Step(tr)
			memo.Step(tr)
			if f != nil {
				break
			}
		}
	}
	t.Logf("%s %s: %d objects freed", path, g, freed)
}

// TestCollectGarbage_noAllocs checks that collecting, with either
// collector, allocates nothing once its tables have grown to the heap.
func TestCollectGarbage_noAllocs(t *testing.T) {
	for _, gc := range []vm.GC{vm.GCMarkSweep, vm.GCMemoised} {
		p, err := asm.AssembleFile("../benchmarks/models/raytracer.mcasm", asm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m, err := vm.New(p, vm.Options{GC: gc, Tuning: envTuning()})
		if err != nil {
			t.Fatal(err)
		}
		var trs []vm.Trans
		for i := 0; i < 400; i++ {
			m.CollectGarbage()
			if trs = m.Enabled(trs[:0]); len(trs) == 0 || m.Step(trs[0]) != nil {
				t.Fatal("the walk ended early")
			}
		}
		var a, b vm.Snapshot
		m.Save(&a, nil)
		trs = m.Enabled(trs[:0])
		m.Step(trs[0])
		m.Save(&b, nil)
		// Alternate between two states: each collection sees a change.
		k := 0
		if n := testing.AllocsPerRun(100, func() {
			if k++; k%2 == 0 {
				m.Restore(&a)
			} else {
				m.Restore(&b)
			}
			m.CollectGarbage()
		}); n != 0 {
			t.Errorf("gc=%s: %.1f allocations per collection", gc, n)
		}
	}
}
