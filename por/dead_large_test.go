package por_test

import (
	"maps"
	"os"
	"slices"
	"testing"

	"mcvm/asm"
	"mcvm/explorer"
	"mcvm/por"
)

// TestDeadLocals_largeModels is TestDeadLocals_sameOutcome on models at
// the results table's sizes (or the largest whose unreduced search
// finishes in a minute), with the default reduction and unreduced; a
// longer run, behind MCVM_DEAD_LONG=1 (about 90 s).
func TestDeadLocals_largeModels(t *testing.T) {
	if os.Getenv("MCVM_DEAD_LONG") == "" {
		t.Skip("set MCVM_DEAD_LONG=1")
	}
	for _, c := range []struct {
		path string
		defs map[string]int64
	}{
		{"../benchmarks/models/raytracer.mcasm", nil},
		{"../benchmarks/models/moldyn.mcasm", nil},
		{"../benchmarks/models/replicatedworkers.mcasm", map[string]int64{"WORKERS": 2}},
		{"../benchmarks/models/boundedbuffer.mcasm", map[string]int64{"PRODUCERS": 2, "CONSUMERS": 2}},
		{"../benchmarks/models/elevator.mcasm", map[string]int64{"ELEVATORS": 2, "FLOORS": 1, "PEOPLE": 1}},
	} {
		p, err := asm.AssembleFile(c.path, asm.Options{Defines: c.defs})
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []por.Mode{por.All, por.None} {
			plain, lim := deadOutcome(t, p, mode, explorer.DFS, false, 3000000)
			if lim {
				t.Logf("%s por=%s: over 3 million states, not compared", c.path, mode)
				continue
			}
			dead, _ := deadOutcome(t, p, mode, explorer.DFS, true, 0)
			same := maps.Equal(plain.errors, dead.errors) && maps.Equal(plain.ends, dead.ends)
			t.Logf("%s por=%s: states %d without dead variable reduction, %d with; %d violations, %d end states; the same: %v",
				c.path, mode, plain.stats.States, dead.stats.States, len(plain.errors), len(plain.ends), same)
			if !same {
				t.Errorf("%s por=%s: violations with dead variable reduction %v, without %v", c.path, mode,
					slices.Sorted(maps.Keys(dead.errors)), slices.Sorted(maps.Keys(plain.errors)))
			}
		}
	}
}
