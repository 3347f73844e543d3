package vm_test

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"mcvm/asm"
	"mcvm/bytecode"
	"mcvm/heap"
	"mcvm/vm"
)

func load(t testing.TB, path string, defines map[string]int64, g vm.Granularity) *vm.Machine {
	t.Helper()
	p, err := asm.AssembleFile(path, asm.Options{Defines: defines})
	if err != nil {
		t.Fatal(err)
	}
	m, err := vm.New(p, vm.Options{Granularity: g, Tuning: envTuning()})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// models returns the models the tests walk: the benchmark models and the
// conformance suite.
func models(t testing.TB) []string {
	var out []string
	for _, pat := range []string{"../benchmarks/models/*.mcasm", "../testdata/conformance/*.mcasm"} {
		ms, _ := filepath.Glob(pat)
		out = append(out, ms...)
	}
	if len(out) == 0 {
		t.Fatal("no models found")
	}
	return out
}

// walk takes random transitions from the initial state and calls f in
// every state reached, up to n steps per walk.
func walk(m *vm.Machine, rng *rand.Rand, n int, f func()) {
	m.Init()
	var trs []vm.Trans
	for i := 0; i < n; i++ {
		f()
		trs = m.Enabled(trs[:0])
		if len(trs) == 0 {
			return
		}
		if m.Step(trs[rng.IntN(len(trs))]) != nil {
			return
		}
	}
}

// TestMachine_Encode_decodeRoundTrip checks that decoding an encoding and
// encoding again gives the same bytes, in states of random walks.
func TestMachine_Encode_decodeRoundTrip(t *testing.T) {
	for _, path := range models(t) {
		for _, g := range []vm.Granularity{vm.GranTransition, vm.GranInstruction} {
			m := load(t, path, nil, g)
			rng := rand.New(rand.NewPCG(1, 2))
			for w := 0; w < 20; w++ {
				walk(m, rng, 200, func() {
					enc := m.Encode(nil)
					var snap vm.Snapshot
					m.Save(&snap, nil)
					m.Decode(enc)
					if enc2 := m.Encode(nil); !bytes.Equal(enc, enc2) {
						t.Fatalf("%s: Encode(Decode(e)) != e:\n%v\n%v", path, enc, enc2)
					}
					m.Restore(&snap)
					if enc3 := m.Encode(nil); !bytes.Equal(enc, enc3) {
						t.Fatalf("%s: Restore(Save()) changed the state", path)
					}
				})
			}
		}
	}
}

// TestMachine_EncodeSplit checks that EncodeSplit gives Encode's bytes
// and cuts them where the components end: the statics block after the
// thread count, one record per thread, then the objects (each at least
// two bytes: tag and owner), with offsets in the returned slice (after
// what it was given).
func TestMachine_EncodeSplit(t *testing.T) {
	for _, path := range models(t) {
		m := load(t, path, nil, vm.GranTransition)
		rng := rand.New(rand.NewPCG(3, 4))
		for w := 0; w < 10; w++ {
			walk(m, rng, 200, func() {
				want := m.Encode(nil)
				got, cuts := m.EncodeSplit([]byte("pre"), nil)
				if !bytes.Equal(got[3:], want) || string(got[:3]) != "pre" {
					t.Fatalf("%s: EncodeSplit = %v, want %v", path, got[3:], want)
				}
				n := len(m.S.Threads)
				if len(cuts) < 1+n || int(cuts[len(cuts)-1]) != len(got) || cuts[0] < 4 {
					t.Fatalf("%s: %d threads, cuts %v of %d bytes", path, n, cuts, len(got))
				}
				for i := 1; i < len(cuts); i++ {
					if cuts[i]-cuts[i-1] < 2 {
						t.Fatalf("%s: component %d of cuts %v is shorter than 2 bytes", path, i, cuts)
					}
				}
			})
		}
	}
}

// TestMachine_Snapshot_sameSuccessors checks that the successors computed
// after Restore, after Decode and on the live state are the same states.
func TestMachine_Snapshot_sameSuccessors(t *testing.T) {
	for _, path := range models(t) {
		m := load(t, path, nil, vm.GranTransition)
		rng := rand.New(rand.NewPCG(3, 4))
		var snap vm.Snapshot
		for w := 0; w < 10; w++ {
			walk(m, rng, 100, func() {
				enc := m.Encode(nil)
				m.Save(&snap, nil)
				trs := m.Enabled(nil)
				for _, tr := range trs {
					m.Restore(&snap)
					f1 := m.Step(tr)
					a := m.Encode(nil)
					m.Decode(enc)
					f2 := m.Step(tr)
					b := m.Encode(nil)
					if (f1 == nil) != (f2 == nil) || !bytes.Equal(a, b) {
						t.Fatalf("%s: successor by %v differs after Restore and after Decode", path, tr)
					}
				}
				m.Restore(&snap)
			})
		}
	}
}

// TestMachine_hotLoop_noAllocs checks that restoring, stepping and
// encoding do not allocate once buffers have grown.
func TestMachine_hotLoop_noAllocs(t *testing.T) {
	if vm.CheckingEncoding() {
		t.Skip("MCVM_CHECK_ENCODING=1: the check's whole encodings allocate")
	}
	m := load(t, "../benchmarks/models/philo.mcasm", map[string]int64{"N": 4}, vm.GranTransition)
	rng := rand.New(rand.NewPCG(5, 6))
	var trs []vm.Trans
	// Reach a state with all philosophers started.
	for i := 0; i < 40; i++ {
		trs = m.Enabled(trs[:0])
		m.Step(trs[rng.IntN(len(trs))])
	}
	var snap vm.Snapshot
	m.Save(&snap, nil)
	buf := make([]byte, 0, 4096)
	cuts := make([]int32, 0, 256)
	trs = m.Enabled(trs[:0])
	run := func() {
		for _, tr := range trs {
			m.Restore(&snap)
			m.Step(tr)
			buf = m.Encode(buf[:0])
			buf, cuts = m.EncodeSplit(buf[:0], cuts[:0])
		}
	}
	run()
	if n := testing.AllocsPerRun(100, run); n != 0 {
		t.Errorf("restore+step+encode allocates %v times per run, want 0", n)
	}
	// Invariants that hold: evaluating them allocates nothing either.
	b := load(t, "../benchmarks/models/boundedbuffer.mcasm", map[string]int64{"SIZE": 1, "PRODUCERS": 2, "CONSUMERS": 2}, vm.GranTransition)
	if len(b.Program().Invariants) == 0 {
		t.Fatal("the bounded buffer has no invariant")
	}
	for i := 0; i < 20; i++ {
		trs = b.Enabled(trs[:0])
		b.Step(trs[rng.IntN(len(trs))])
	}
	check := func() {
		if f := b.CheckInvariants(); f != nil {
			t.Fatal(f.Msg)
		}
	}
	check()
	if n := testing.AllocsPerRun(100, check); n != 0 {
		t.Errorf("CheckInvariants allocates %v times per run, want 0", n)
	}
}

// TestMachine_Init_deterministic checks that two machines for the same
// program encode the same initial state.
func TestMachine_Init_deterministic(t *testing.T) {
	for _, path := range models(t) {
		a := load(t, path, nil, vm.GranTransition)
		b := load(t, path, nil, vm.GranTransition)
		if !bytes.Equal(a.Encode(nil), b.Encode(nil)) {
			t.Errorf("%s: initial states differ", path)
		}
	}
}

// TestNew_rejectsInvalid checks that New verifies its program.
func TestNew_rejectsInvalid(t *testing.T) {
	p := bytecode.NewProgram()
	if _, err := vm.New(p, vm.Options{}); err == nil {
		t.Error("New accepted a program without an entry method")
	}
}

// TestSnapshot_sharedWithParent simulates depth-first backtracking with
// snapshots that share unchanged threads with their parent: random
// transitions, saves (pushes) and restores (pops), checking after every
// restore that the state is exactly the one saved.
func TestSnapshot_sharedWithParent(t *testing.T) {
	for _, path := range models(t) {
		m := load(t, path, nil, vm.GranTransition)
		rng := rand.New(rand.NewPCG(9, 10))
		type level struct {
			snap *vm.Snapshot
			enc  []byte
		}
		var stack []level
		var trs []vm.Trans
		for i := 0; i < 3000; i++ {
			switch r := rng.IntN(10); {
			case r < 3 || len(stack) == 0: // push
				var parent *vm.Snapshot
				if len(stack) > 0 {
					parent = stack[len(stack)-1].snap
				}
				l := level{snap: new(vm.Snapshot), enc: m.Encode(nil)}
				m.Save(l.snap, parent)
				stack = append(stack, l)
			case r < 5: // pop back to a random level
				k := rng.IntN(len(stack))
				stack = stack[:k+1]
				m.Restore(stack[k].snap)
				if got := m.Encode(nil); !bytes.Equal(got, stack[k].enc) {
					t.Fatalf("%s: step %d: Restore of level %d gives another state", path, i, k)
				}
			default: // a transition
				trs = m.Enabled(trs[:0])
				if len(trs) == 0 {
					continue
				}
				if m.Step(trs[rng.IntN(len(trs))]) != nil {
					m.Restore(stack[len(stack)-1].snap)
				}
			}
		}
	}
}

// rawState is a copy of the active state exactly as the machine holds it
// (object numbering, garbage and all), which is what snapshots must give
// back: dynamic reduction compares object references along a path.
type rawState struct {
	objs    []heap.Object
	data    []int64
	statics []int64
	enc     []byte
}

func rawOf(m *vm.Machine) rawState {
	return rawState{objs: slices.Clone(m.S.Heap.Objs), data: slices.Clone(m.S.Heap.Data),
		statics: slices.Clone(m.S.Statics), enc: m.Encode(nil)}
}

func (r rawState) equal(m *vm.Machine) bool {
	return slices.Equal(r.objs, m.S.Heap.Objs) && slices.Equal(r.data, m.S.Heap.Data) &&
		slices.Equal(r.statics, m.S.Statics) && bytes.Equal(r.enc, m.Encode(nil))
}

// TestSnapshot_reverseDeltas drives snapshots as depth-first search does,
// full copies below a level and reverse deltas from it on: one
// Snapshot object reused per level, levels without a snapshot, a base at a
// level with no snapshot below it (also reusing an object that was a delta
// of an abandoned path), restores of any ancestor, Decode between them,
// and several Restores of a level in a row. Every restore must give back
// the raw state saved, not only the same canonical state.
func TestSnapshot_reverseDeltas(t *testing.T) {
	for _, path := range models(t) {
		m := load(t, path, nil, vm.GranTransition)
		rng := rand.New(rand.NewPCG(11, 12))
		type level struct {
			snap bool
			raw  rawState
		}
		var snaps []*vm.Snapshot
		var stack []level
		// Levels from deltaFrom up save deltas (a suffix of the path, as
		// depth-first search does), the others full copies.
		deltaFrom := 0
		var trs []vm.Trans
		parentOf := func(k int) *vm.Snapshot {
			for j := k - 1; j >= 0; j-- {
				if stack[j].snap {
					return snaps[j]
				}
			}
			return nil
		}
		for i := 0; i < 6000; i++ {
			switch r := rng.IntN(20); {
			case r < 6 || len(stack) == 0: // push, with a snapshot 3 times in 4
				k := len(stack)
				l := level{snap: rng.IntN(4) > 0, raw: rawOf(m)}
				stack = append(stack, l)
				if l.snap {
					for len(snaps) <= k {
						snaps = append(snaps, new(vm.Snapshot))
					}
					if p := parentOf(k); p != nil && k >= deltaFrom {
						m.SaveDelta(snaps[k], p)
					} else {
						m.Save(snaps[k], p)
					}
				}
			case r < 9: // pop back to a random level with a snapshot
				k := rng.IntN(len(stack))
				for k >= 0 && !stack[k].snap {
					k--
				}
				if k < 0 {
					stack = stack[:0]
					m.Init()
					continue
				}
				stack = stack[:k+1]
				for n := rng.IntN(3); n >= 0; n-- {
					m.Restore(snaps[k])
					if !stack[k].raw.equal(m) {
						t.Fatalf("%s: step %d: Restore of level %d gives another raw state", filepath.Base(path), i, k)
					}
					if rng.IntN(3) == 0 {
						trs = m.Enabled(trs[:0])
						if len(trs) > 0 {
							m.Step(trs[rng.IntN(len(trs))])
						}
					}
				}
			case r < 11: // Decode the current state (canonical numbering, garbage dropped)
				m.Decode(m.Encode(nil))
			case r < 12: // abandon the path: a new one reuses the Snapshot objects
				m.Init()
				stack = stack[:0]
				deltaFrom = rng.IntN(4)
			default: // a transition
				trs = m.Enabled(trs[:0])
				if len(trs) == 0 {
					continue
				}
				if m.Step(trs[rng.IntN(len(trs))]) != nil {
					m.Init()
					stack = stack[:0]
				}
			}
		}
	}
}

// TestEnabled_choices checks that Enabled lists one transition per choice
// of the instructions that choose (choose, chooseb, and notify with
// several waiters), and one for those that do not: the state space of
// each conformance program below, searched depth first, must show the
// largest number of transitions of one thread that it names.
func TestEnabled_choices(t *testing.T) {
	for _, c := range []struct {
		file string
		most int // the most transitions one thread has in a state
	}{
		{"notify_choice.mcasm", 2},
		{"chooseb.mcasm", 2},
		{"monitor_nesting.mcasm", 1},
	} {
		m := load(t, filepath.Join("../testdata/conformance", c.file), nil, vm.GranTransition)
		seen := map[string]bool{}
		most := 0
		var visit func(depth int)
		visit = func(depth int) {
			enc := string(m.Encode(nil))
			if seen[enc] || depth > 200 {
				return
			}
			seen[enc] = true
			trs := m.Enabled(nil)
			per := map[int32]int{}
			for _, tr := range trs {
				per[tr.Thread]++
				most = max(most, per[tr.Thread])
			}
			var snap vm.Snapshot
			m.Save(&snap, nil)
			for _, tr := range trs {
				m.Restore(&snap)
				if m.Step(tr) == nil {
					visit(depth + 1)
				}
			}
		}
		visit(0)
		if most != c.most {
			t.Errorf("%s: at most %d transitions of one thread in a state, want %d", c.file, most, c.most)
		}
	}
}

// envTuning is the Tuning of the machines vm's test helpers make:
// MCVM_CHECK_ENCODING=1 checks every encoding (vm.CheckingEncoding).
func envTuning() vm.Tuning { return vm.Tuning{CheckEncoding: vm.CheckingEncoding()} }
