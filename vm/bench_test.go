package vm_test

import (
	"os"
	"path/filepath"
	"testing"

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

// BenchmarkDispatch compares the function-table dispatch with a switch.
func BenchmarkDispatch(b *testing.B) {
	path := filepath.Join(b.TempDir(), "loop.mcasm")
	if err := os.WriteFile(path, []byte(loopModel), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"table", "switch"} {
		b.Run("dispatch="+mode, func(b *testing.B) {
			m := load(b, path, nil, vm.GranTransition)
			m.SetTableDispatch(mode == "table")
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
		})
	}
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
