package benchmarks_test

import (
	"fmt"
	"testing"

	"mcvm/asm"
	"mcvm/explorer"
	"mcvm/vm"
)

// spinFigures are SPIN 6.5.2's counts for the Promela twins in peers/
// (spin -D... -a X.pml && gcc -O2 -DNOREDUCE -o pan pan.c && ./pan
// -m100000 -c0; see RESULTS.md): states stored, transitions, and errors,
// which are the invalid end states (deadlocks) found. pan counts one
// transition more than mcvm, the step into its initial state.
var spinFigures = []struct {
	model   string
	defines map[string]int64
	states  int64
	trans   int64
	errors  int64
}{
	{"philo_meals", map[string]int64{"N": 3, "MEALS": 2}, 352, 721, 8},
	{"philo_meals", map[string]int64{"N": 4, "MEALS": 2}, 2560, 7041, 16},
	{"philo_meals", map[string]int64{"N": 5, "MEALS": 2}, 18304, 63041, 32},
	{"philo_meals", map[string]int64{"N": 3, "MEALS": 3}, 1188, 2431, 27},
	{"buffer_monitor", map[string]int64{"P": 1, "C": 1, "SIZE": 1}, 8, 13, 0},
	{"buffer_monitor", map[string]int64{"P": 2, "C": 2, "SIZE": 2}, 79, 269, 0},
	{"buffer_monitor", map[string]int64{"P": 3, "C": 2, "SIZE": 3}, 230, 995, 0},
	// The tutorial's model, with one client: with more, SPIN's clients,
	// which end, die only in the reverse order of their creation, and
	// mcvm's threads end in any order (docs/asm.md).
	{"server", map[string]int64{"C": 1}, 10, 14, 0},
	// The twins of the benchmark suite's kinds (RESULTS.md, "Equal
	// counts"), three sizes each; every thread loops forever.
	{"philo_ok", map[string]int64{"N": 3, "MEALS": 2}, 264, 489, 0},
	{"philo_ok", map[string]int64{"N": 4, "MEALS": 2}, 1872, 4737, 0},
	{"philo_ok", map[string]int64{"N": 5, "MEALS": 2}, 13344, 42977, 0},
	{"readers_writers", map[string]int64{"R": 2, "W": 1}, 31, 83, 0},
	{"readers_writers", map[string]int64{"R": 3, "W": 2}, 364, 1491, 0},
	{"readers_writers", map[string]int64{"R": 5, "W": 4}, 43846, 301843, 0},
	{"pipeline", map[string]int64{"S": 1, "K": 2}, 132, 297, 0},
	{"pipeline", map[string]int64{"S": 2, "K": 3}, 1544, 4629, 0},
	{"pipeline", map[string]int64{"S": 3, "K": 2}, 8208, 30769, 0},
	{"sleeping_barber", map[string]int64{"B": 1, "C": 2, "CHAIRS": 1}, 25, 62, 0},
	{"sleeping_barber", map[string]int64{"B": 2, "C": 3, "CHAIRS": 2}, 314, 1305, 0},
	{"sleeping_barber", map[string]int64{"B": 2, "C": 7, "CHAIRS": 3}, 10396, 80707, 0},
	{"nested_monitor", map[string]int64{"SIZE": 1, "P": 1, "C": 1, "WORK": 2}, 56, 85, 4},
	{"nested_monitor", map[string]int64{"SIZE": 2, "P": 2, "C": 2, "WORK": 2}, 2432, 6401, 32},
	{"nested_monitor", map[string]int64{"SIZE": 3, "P": 3, "C": 2, "WORK": 3}, 81648, 259201, 405},
	{"workers", map[string]int64{"W": 2, "D": 1}, 26, 49, 0},
	{"workers", map[string]int64{"W": 3, "D": 2}, 261, 718, 0},
	{"workers", map[string]int64{"W": 5, "D": 3}, 17022, 79161, 0},
}

// TestSPIN_equalCounts checks that the mcvm twins of peers/*.pml, written
// with .setup, .atomic and one step per Promela statement, store exactly
// as many states as SPIN without reduction (check --por=none --continue),
// with as many deadlocked states.
func TestSPIN_equalCounts(t *testing.T) {
	for _, c := range spinFigures {
		t.Run(fmt.Sprintf("model=%s/%v", c.model, c.defines), func(t *testing.T) {
			p, err := asm.AssembleFile("peers/"+c.model+".mcasm", asm.Options{Defines: c.defines})
			if err != nil {
				t.Fatal(err)
			}
			m, err := vm.New(p, vm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res := explorer.Search(m, explorer.Options{Continue: true})
			st := res.Stats
			if st.States != c.states || st.Transitions != c.trans-1 || st.Errors != c.errors {
				t.Errorf("states %d, transitions %d, errors %d; SPIN: %d, %d (one more), %d", st.States, st.Transitions, st.Errors, c.states, c.trans, c.errors)
			}
			want := explorer.VerdictOK
			if c.errors > 0 {
				want = explorer.VerdictDeadlock
			}
			if res.Verdict != want {
				t.Errorf("verdict %v, want %v", res.Verdict, want)
			}
		})
	}
}
