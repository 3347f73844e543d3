package vm_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"mcvm/asm"
	"mcvm/vm"
)

// loopModel runs a thread-local loop of arithmetic and local accesses:
// one transition executes most of it, so the benchmark measures dispatch.
const loopModel = `.class Main
.method static main()
.locals i s
loop:
    load i
    push 20000
    ifge done
    load s
    load i
    push 3
    mul
    add
    push 1000003
    rem
    store s
    inc i 1
    goto loop
done:
    load s
    push -1
    ne
    assert "unreachable"
    return
.end
`

// BenchmarkDispatch measures the interpreter loop: one transition runs
// most of loopModel's instructions.
func BenchmarkDispatch(b *testing.B) {
	path := filepath.Join(b.TempDir(), "loop.mcasm")
	if err := os.WriteFile(path, []byte(loopModel), 0o644); err != nil {
		b.Fatal(err)
	}
	m := load(b, path, nil, vm.GranTransition)
	var snap vm.Snapshot
	m.Save(&snap, nil)
	b.ReportAllocs()
	instrs := 0
	for i := 0; i < b.N; i++ {
		m.Restore(&snap)
		m.Step(vm.Trans{})
		instrs += m.Executed()
	}
	b.ReportMetric(float64(instrs)/b.Elapsed().Seconds(), "instr/s")
}

// BenchmarkStep measures restore, one transition and the canonical encoding
// for every transition of a dining-philosophers state.
func BenchmarkStep(b *testing.B) {
	m := load(b, "../benchmarks/models/philo.mcasm", map[string]int64{"N": 8}, vm.GranTransition)
	var trs []vm.Trans
	for i := 0; i < 60; i++ { // start every philosopher
		trs = m.Enabled(trs[:0])
		m.Step(trs[0])
	}
	var snap vm.Snapshot
	m.Save(&snap, nil)
	trs = m.Enabled(trs[:0])
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m.Restore(&snap)
		m.Step(trs[i%len(trs)])
		buf = m.Encode(buf[:0])
	}
}

// BenchmarkEncode measures the canonical encoding of a dining-philosophers
// state with every philosopher started.
func BenchmarkEncode(b *testing.B) {
	m := load(b, "../benchmarks/models/philo.mcasm", map[string]int64{"N": 8}, vm.GranTransition)
	var trs []vm.Trans
	for i := 0; i < 60; i++ {
		trs = m.Enabled(trs[:0])
		m.Step(trs[0])
	}
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = m.Encode(buf[:0])
	}
	b.ReportMetric(float64(len(buf)), "bytes")
}

// BenchmarkCollectGarbage measures each collector on its own, as MoonWalker
// compared them: the same depth-first-like walk (a snapshot at every
// step, and now and then back to one a few levels up) of a heap-heavy
// model, collecting after every transition without encoding the state, so
// that mark-and-sweep marks by itself. It reports the time per collection
// (ns/collect) and the live objects per state (objects).
func BenchmarkCollectGarbage(b *testing.B) {
	for _, tc := range []struct {
		name, model string
		defines     map[string]int64
	}{
		{"moldyn", "moldyn.mcasm", nil},
		{"raytracer", "raytracer.mcasm", map[string]int64{"GRID": 1, "MAXLEVEL": 0}},
		{"raytracer-default", "raytracer.mcasm", nil},
		{"raytracer-grid4", "raytracer.mcasm", map[string]int64{"GRID": 4, "THREADS": 3}},
	} {
		for _, gc := range []vm.GC{vm.GCMarkSweep, vm.GCMemoised} {
			b.Run("model="+tc.name+"/gc="+gc.String(), func(b *testing.B) {
				p, err := asm.AssembleFile("../benchmarks/models/"+tc.model, asm.Options{Defines: tc.defines})
				if err != nil {
					b.Fatal(err)
				}
				m, err := vm.New(p, vm.Options{GC: gc})
				if err != nil {
					b.Fatal(err)
				}
				var spent time.Duration
				collects, live := 0, 0
				snaps := make([]*vm.Snapshot, 0, 8192)
				var trs []vm.Trans
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					rng := rand.New(rand.NewPCG(11, 12))
					m.Init()
					snaps = snaps[:0]
					for step := 0; step < 6000; step++ {
						t0 := time.Now()
						m.CollectGarbage()
						spent += time.Since(t0)
						collects++
						live += m.LiveObjects()
						if len(snaps) == cap(snaps) {
							break
						}
						snaps = snaps[:len(snaps)+1]
						if snaps[len(snaps)-1] == nil {
							snaps[len(snaps)-1] = new(vm.Snapshot)
						}
						m.Save(snaps[len(snaps)-1], nil)
						if rng.IntN(16) == 0 && len(snaps) > 1 {
							k := len(snaps) - 1 - rng.IntN(min(len(snaps)-1, 4))
							m.Restore(snaps[k-1])
							snaps = snaps[:k]
						}
						trs = m.Enabled(trs[:0])
						if len(trs) == 0 {
							break
						}
						if m.Step(trs[rng.IntN(len(trs))]) != nil {
							break
						}
					}
				}
				b.ReportMetric(float64(spent.Nanoseconds())/float64(collects), "ns/collect")
				b.ReportMetric(float64(live)/float64(collects), "objects")
			})
		}
	}
}
