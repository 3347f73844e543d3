package benchmarks_test

import (
	"fmt"
	"testing"

	"mcvm/asm"
	"mcvm/explorer"
	"mcvm/vm"
)

// benchCheck model checks a benchmark model completely (--continue) b.N
// times and reports states/s and bytes per stored state.
func benchCheck(b *testing.B, model string, defines map[string]int64, wantStates int64, store explorer.Storage) {
	benchCheckGC(b, model, defines, wantStates, store, vm.GCMarkSweep)
}

// benchCheckGC is benchCheck with garbage collector gc.
func benchCheckGC(b *testing.B, model string, defines map[string]int64, wantStates int64, store explorer.Storage, gc vm.GC) {
	p, err := asm.AssembleFile("models/"+model, asm.Options{Defines: defines})
	if err != nil {
		b.Fatal(err)
	}
	m, err := vm.New(p, vm.Options{GC: gc})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var states, bytes int64
	var secs float64
	for i := 0; i < b.N; i++ {
		r := explorer.Search(m, explorer.Options{Continue: true, Storage: store})
		if wantStates > 0 && r.Stats.States != wantStates {
			b.Fatalf("%s: %d states, want %d", model, r.Stats.States, wantStates)
		}
		states += r.Stats.States
		bytes += r.Stats.StoreBytes
		secs += r.Stats.Elapsed.Seconds()
	}
	b.ReportMetric(float64(states)/secs, "states/s")
	b.ReportMetric(float64(bytes)/float64(states), "bytes/state")
}

// BenchmarkPhilo checks dining philosophers completely (--continue): the
// deadlocking version and the fixed one, for N = 6 and 8. The state counts
// are pinned so that a change in the state space cannot pass for a change
// in speed.
func BenchmarkPhilo(b *testing.B) {
	for _, tc := range []struct {
		model  string
		n      int64
		states int64
	}{
		{"philo.mcasm", 6, 23031},
		{"philo.mcasm", 8, 455897},
		{"philo_ok.mcasm", 6, 20185},
		{"philo_ok.mcasm", 8, 399515},
	} {
		b.Run(fmt.Sprintf("model=%s/N=%d", tc.model, tc.n), func(b *testing.B) {
			benchCheck(b, tc.model, map[string]int64{"N": tc.n}, tc.states, explorer.StorageExact)
		})
	}
	// The same search with fingerprints only (--hash-compact) and with
	// collapse compression (--collapse); the state count must not change.
	for _, tc := range []struct {
		model  string
		n      int64
		states int64
	}{{"philo.mcasm", 8, 455897}} {
		for _, st := range []explorer.Storage{explorer.StorageHashCompact, explorer.StorageCollapse} {
			b.Run(fmt.Sprintf("model=%s/N=%d/store=%s", tc.model, tc.n, st), func(b *testing.B) {
				benchCheck(b, tc.model, map[string]int64{"N": tc.n}, tc.states, st)
			})
		}
	}
}

// BenchmarkGC checks the heap-heavy models completely without reduction
// (every state is expanded, so every state is collected) with each
// garbage collector; the state counts must not change.
func BenchmarkGC(b *testing.B) {
	for _, tc := range []struct {
		model, size string
		defines     map[string]int64
		states      int64
	}{
		{"moldyn.mcasm", "SMALL", map[string]int64{"THREADS": 2, "SIZE": 1}, 147884},
		{"raytracer.mcasm", "SMALL", map[string]int64{"THREADS": 2, "SIZE": 1, "GRID": 1, "LIGHTS": 1, "MAXLEVEL": 0}, 12432},
		{"raytracer.mcasm", "GRID=1,MAXLEVEL=0", map[string]int64{"GRID": 1, "MAXLEVEL": 0}, 12095},
	} {
		for _, gc := range []vm.GC{vm.GCNone, vm.GCMarkSweep, vm.GCMemoised} {
			name := fmt.Sprintf("model=%s/%s/gc=%s", tc.model, tc.size, gc)
			b.Run(name, func(b *testing.B) {
				benchCheckGC(b, tc.model, tc.defines, tc.states, explorer.StorageExact, gc)
			})
		}
	}
}
