package vm_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"mcvm/vm"
)

// TestSortThreads_canonical checks, in states of random walks of every
// model without thread ids, that renaming the threads is undone by
// renaming them back, changes no successor but in name, and that
// SortThreads gives every renaming of a state the same encoding (so far
// as its runs of equal keys fit vm.MaxSymmetryTries, which they do in
// these states) and leaves a sorted state as it is.
func TestSortThreads_canonical(t *testing.T) {
	for _, path := range models(t) {
		m := load(t, path, nil, vm.GranTransition)
		if _, _, found := vm.ThreadIDUse(m.Program()); found {
			continue
		}
		rng := rand.New(rand.NewPCG(3, 4))
		var snap vm.Snapshot
		var base, enc, sorted []byte
		var perm []int32
		for w := 0; w < 5; w++ {
			walk(m, rng, 60, func() {
				n := m.NumThreads()
				m.Save(&snap, nil)
				base = m.Encode(base[:0])
				p := rng.Perm(n)
				fwd := make([]int32, n)
				back := make([]int32, n)
				for i, x := range p {
					fwd[i] = int32(x)
					back[x] = int32(i)
				}
				m.PermuteThreads(fwd)
				m.PermuteThreads(back)
				if enc = m.Encode(enc[:0]); !bytes.Equal(enc, base) {
					t.Fatalf("%s: renaming threads by %v and back changes the state", path, fwd)
				}
				m.Restore(&snap)
				perm, _ = m.SortThreads(perm)
				sorted = m.Encode(sorted[:0])
				if _, moved := m.SortThreads(perm); moved {
					t.Fatalf("%s: a sorted state sorts again differently", path)
				}
				m.Restore(&snap)
				m.PermuteThreads(fwd)
				m.SortThreads(perm)
				if enc = m.Encode(enc[:0]); !bytes.Equal(enc, sorted) {
					t.Fatalf("%s: a renaming of a state sorts to another encoding", path)
				}
				m.Restore(&snap)
			})
		}
	}
}

// TestTwins checks Twins on the bounded buffer with the original's
// endless loops: the two producers, alike when they start, are twins, and
// the consumers too; main, whose frame holds the thread array, is not.
func TestTwins(t *testing.T) {
	m := load(t, "../benchmarks/models/boundedbuffer.mcasm", map[string]int64{"ITEMS": 0, "PRODUCERS": 2, "CONSUMERS": 2, "SIZE": 1}, vm.GranTransition)
	var trs []vm.Trans
	var perm []int32
	// Run main alone until it has started all four threads and ended.
	for m.NumThreads() < 5 || m.S.Threads[0].Status != vm.StatusTerminated {
		trs = m.Enabled(trs[:0])
		if len(trs) == 0 || trs[0].Thread != 0 {
			t.Fatalf("main is not the first thread enabled: %v", trs)
		}
		if f := m.Step(trs[0]); f != nil {
			t.Fatal(f)
		}
	}
	perm, _ = m.SortThreads(perm)
	rep := m.Twins(nil)
	// Sorted: main (terminated) last or first, producers and consumers
	// adjacent in pairs; count the classes.
	classes := map[int32]int{}
	for _, r := range rep {
		classes[r]++
	}
	if len(classes) != 3 {
		t.Errorf("Twins = %v (threads sorted as %v), want three classes: main, producers, consumers", rep, perm)
	}
}

// TestSortThreads_noAllocs checks that sorting a state's threads, once
// its scratch has grown, does not allocate.
func TestSortThreads_noAllocs(t *testing.T) {
	m := load(t, "../benchmarks/models/boundedbuffer.mcasm", map[string]int64{"ITEMS": 0, "PRODUCERS": 3, "CONSUMERS": 3}, vm.GranTransition)
	rng := rand.New(rand.NewPCG(7, 8))
	var trs []vm.Trans
	for i := 0; i < 200; i++ {
		trs = m.Enabled(trs[:0])
		m.Step(trs[rng.IntN(len(trs))])
	}
	var snap vm.Snapshot
	m.Save(&snap, nil)
	perm := make([]int32, 0, 16)
	rep := make([]int32, 0, 16)
	trs = m.Enabled(trs[:0])
	run := func() {
		for _, tr := range trs {
			m.Restore(&snap)
			m.Step(tr)
			perm, _ = m.SortThreads(perm)
			rep = m.Twins(rep)
		}
	}
	run()
	if n := testing.AllocsPerRun(50, run); n != 0 {
		t.Errorf("step+sort+twins allocates %v times per run, want 0", n)
	}
}
