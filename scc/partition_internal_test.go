// Planning the cuts again: Split's tasks are never more uneven than the
// plain greedy choice's, and more even where that choice was uneven.

package scc

import (
	"fmt"
	"testing"

	"mcvm/asm"
	"mcvm/explorer"
	"mcvm/vm"
)

func TestSplit_replanEvens(t *testing.T) {
	cases := []struct {
		model string
		defs  map[string]int64
	}{
		{"philo", map[string]int64{"N": 3}},
		{"philo_ok", map[string]int64{"N": 4}},
		{"sleepingbarber", map[string]int64{"CUSTOMERS": 2, "CHAIRS": 1}},
		{"diningphil", map[string]int64{"N": 3}},
	}
	improved := 0
	for _, c := range cases {
		p, err := asm.AssembleFile("../benchmarks/models/"+c.model+".mcasm", asm.Options{Defines: c.defs})
		if err != nil {
			t.Fatal(err)
		}
		for _, trustful := range []bool{false, true} {
			m, err := vm.New(p, vm.Options{Granularity: vm.GranTransition})
			if err != nil {
				t.Fatal(err)
			}
			_, s, err := Verify(m, explorer.Options{Continue: true}, trustful, "none")
			if err != nil {
				t.Fatal(err)
			}
			s, err = Read(Encode(s))
			if err != nil {
				t.Fatal(err)
			}
			sc, err := scanScript(s)
			if err != nil {
				t.Fatal(err)
			}
			drop := int64(0)
			if trustful {
				drop = 1
			}
			for _, k := range []int{2, 3, 5, 10, 20, 50} {
				name := fmt.Sprintf("%s/trustful=%v/k=%d", c.model, trustful, k)
				part, err := Split(s, k)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				var largest int64
				for _, n := range part.Sizes {
					largest = max(largest, n)
				}
				plain := sc.plan(s.Subgraph, k, drop, scales[0])
				if largest > plain.largest {
					t.Errorf("%s: largest task %d transitions, the plain greedy choice's %d", name, largest, plain.largest)
				}
				if largest < plain.largest {
					improved++
				}
				if len(part.Tasks) != len(plain.roots)+1 {
					t.Errorf("%s: %d tasks, the plain greedy choice makes %d", name, len(part.Tasks), len(plain.roots)+1)
				}
			}
		}
	}
	// The plain greedy choice is uneven on some of these small scripts.
	if improved == 0 {
		t.Errorf("planning again evened out no partition")
	}
	t.Logf("%d partitions more even than the plain greedy choice's", improved)
}

func TestSplit_taskBounds(t *testing.T) {
	p, err := asm.AssembleFile("../benchmarks/models/philo.mcasm", asm.Options{Defines: map[string]int64{"N": 3}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := vm.New(p, vm.Options{Granularity: vm.GranTransition})
	if err != nil {
		t.Fatal(err)
	}
	_, s, err := Verify(m, explorer.Options{Continue: true}, false, "none")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{0, -1, MaxTasks + 1} {
		if _, err := Split(s, k); err == nil {
			t.Errorf("Split with k=%d: no error", k)
		}
	}
	// More tasks than states: one region per state at most.
	part, err := Split(s, MaxTasks)
	if err != nil {
		t.Fatal(err)
	}
	if len(part.Tasks) > len(s.Subgraph) {
		t.Errorf("%d tasks for %d states", len(part.Tasks), len(s.Subgraph))
	}
}
