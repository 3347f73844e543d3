package vm_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mcvm/asm"
	"mcvm/heap"
	"mcvm/vm"
)

// walkDFS explores m's states depth first as the explorer does (Save on the
// way down, Restore before each transition, a collection in each new
// state) until limit states, encoding every state reached, split if
// split; it returns the number of states.
func walkDFS(m *vm.Machine, limit int, split bool) int {
	return walkDFSWith(m, limit, split, nil)
}

// walkDFSWith is walkDFS calling encoded, if not nil, after every
// encoding with the encoding and (if split) its cuts.
func walkDFSWith(m *vm.Machine, limit int, split bool, encoded func(enc []byte, cuts []int32)) int {
	return walkDFSBy(m, limit, func() string {
		var enc []byte
		var cuts []int32
		if split {
			enc, cuts = m.EncodeSplit(nil, nil)
		} else {
			enc = m.Encode(nil)
		}
		if encoded != nil {
			encoded(enc, cuts)
		}
		return string(enc)
	})
}

// walkDFSBy is walkDFS with states told apart by key, which encodes the
// machine's state.
func walkDFSBy(m *vm.Machine, limit int, key func() string) int {
	type level struct {
		snap *vm.Snapshot
		trs  []vm.Trans
		next int
	}
	encode := key
	seen := map[string]bool{encode(): true}
	root := &level{snap: new(vm.Snapshot)}
	m.Save(root.snap, nil)
	root.trs = m.Enabled(nil)
	stack := []*level{root}
	for len(stack) > 0 && len(seen) < limit {
		top := stack[len(stack)-1]
		if top.next == len(top.trs) {
			stack = stack[:len(stack)-1]
			continue
		}
		m.Restore(top.snap)
		tr := top.trs[top.next]
		top.next++
		if f := m.Step(tr); f != nil {
			continue
		}
		k := encode()
		if seen[k] {
			continue
		}
		seen[k] = true
		m.CollectGarbage()
		l := &level{snap: new(vm.Snapshot)}
		m.Save(l.snap, top.snap)
		l.trs = m.Enabled(nil)
		stack = append(stack, l)
	}
	return len(seen)
}

// walkMachine returns a machine for the program at path, initialised,
// with collector gc and dead variable reduction if dead.
func walkMachine(t *testing.T, path string, gc vm.GC, dead bool) *vm.Machine {
	t.Helper()
	p, err := asm.AssembleFile(path, asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := vm.New(p, vm.Options{Granularity: vm.GranTransition, GC: gc, DeadLocals: dead, Tuning: envTuning()})
	if err != nil {
		t.Fatal(err)
	}
	m.Init()
	return m
}

// TestEncode_incremental walks every model and conformance program with
// each collector, plain and split, with dead variable reduction, and
// compares every incremental encoding with a whole one
// (Tuning.CheckEncoding panics at the first difference).
func TestEncode_incremental(t *testing.T) {
	for _, path := range models(t) {
		name := filepath.Base(path)
		for _, c := range []struct {
			gc    vm.GC
			dead  bool
			split bool
		}{{vm.GCMarkSweep, false, false}, {vm.GCMemoised, false, true}, {vm.GCMarkSweep, true, true}} {
			t.Run(fmt.Sprintf("%s/gc=%v/dead=%v/split=%v", name, c.gc, c.dead, c.split), func(t *testing.T) {
				m := walkMachine(t, path, c.gc, c.dead)
				m.SetTuning(vm.Tuning{CheckEncoding: true})
				walkDFS(m, 3000, c.split)
			})
		}
	}
}

// TestEncode_incrementalUsed checks that the walks above do encode
// incrementally: on the philosophers nearly every state one transition
// away from its parent is written so, and backtracking rolls the base
// back rather than encoding the state backtracked to.
func TestEncode_incrementalUsed(t *testing.T) {
	m := load(t, "../benchmarks/models/philo.mcasm", map[string]int64{"N": 4}, vm.GranTransition)
	m.SetTuning(vm.Tuning{CheckEncoding: true})
	m.Init()
	n := walkDFS(m, 1<<20, false)
	if got := m.IncrementalEncodings(); got < uint64(n)/2 {
		t.Errorf("%d of the encodings of %d states were incremental, want at least half", got, n)
	}
	if got := m.RolledBack(); got < uint64(n)/2 {
		t.Errorf("the base was rolled back %d levels in a walk of %d states, want at least half as many", got, n)
	}
}

// TestEncode_incrementalCheckFails checks that the check finds a write the
// write log missed: an encoding that copied the written object's old
// record would differ from the whole one.
func TestEncode_incrementalCheckFails(t *testing.T) {
	m := load(t, "../testdata/conformance/arrays.mcasm", nil, vm.GranInstruction)
	m.SetTuning(vm.Tuning{CheckEncoding: true})
	m.Init()
	// Run until an object other than a Thread object has slots.
	r := heap.Ref(0)
	for step := 0; r == 0; step++ {
		trs := m.Enabled(nil)
		if len(trs) == 0 || step == 1000 {
			t.Fatal("no object with slots to poke")
		}
		if f := m.Step(trs[0]); f != nil {
			t.Fatal(f)
		}
		for id := len(m.S.Threads) + 1; id <= m.S.Heap.Len(); id++ {
			if len(m.S.Heap.Slots(heap.Ref(id))) > 0 {
				r = heap.Ref(id)
				break
			}
		}
	}
	var snap vm.Snapshot
	enc := m.Encode(nil)
	m.Save(&snap, nil)
	enc = m.Encode(enc[:0]) // the base again, incrementally: passes
	if m.IncrementalEncodings() == 0 {
		t.Fatal("the state saved was not encoded incrementally")
	}
	m.PokeSlot(r, 0, 12345)
	defer func() {
		msg, _ := recover().(string)
		if !strings.Contains(msg, "differs from the whole") {
			t.Errorf("an encoding after an unlogged write: got panic %q, want the check's", msg)
		}
	}()
	m.Encode(enc[:0])
}

// TestFingerprint_incremental walks every model and conformance program,
// plain and with the memoised collector and dead variable reduction, with
// the incremental encoder as a search runs it (no whole encoding to check
// against, so that every base, promotion and roll-back is its own), and
// compares the fingerprint of every state encoded, computed from the
// changed components' terms, with the fingerprint computed from scratch
// of its encoding decoded on another machine (a whole encoding); and
// checks that a term depends on the position of equal records.
func TestFingerprint_incremental(t *testing.T) {
	for _, path := range models(t) {
		name := filepath.Base(path)
		for _, c := range []struct {
			gc   vm.GC
			dead bool
		}{{vm.GCMarkSweep, false}, {vm.GCMemoised, true}} {
			t.Run(fmt.Sprintf("%s/gc=%v/dead=%v", name, c.gc, c.dead), func(t *testing.T) {
				m := walkMachine(t, path, c.gc, c.dead)
				fresh := walkMachine(t, path, c.gc, c.dead)
				bad := 0
				var want []uint64
				var encs [][]byte
				walkDFSWith(m, 3000, true, func(enc []byte, cuts []int32) {
					fresh.Decode(enc)
					fp := fresh.EncodeFingerprint()
					want = append(want, fp)
					encs = append(encs, enc)
					if got := m.Fingerprint(); got != fp && bad < 3 {
						bad++
						t.Errorf("fingerprint %016x, from scratch %016x (encoding %x, cuts %v)", got, fp, enc, cuts)
					}
				})
				if m.IncrementalEncodings() == 0 && strings.Contains(name, "philo") {
					t.Error("no encoding was incremental")
				}
				// The same walk with fingerprints only (EncodeFingerprint,
				// as hash compaction and the certifier run it): the same
				// fingerprints in the same order.
				m = walkMachine(t, path, c.gc, c.dead)
				var got []uint64
				walkDFSBy(m, 3000, func() string {
					fp := m.EncodeFingerprint()
					got = append(got, fp)
					return fmt.Sprint(fp)
				})
				if !slices.Equal(got, want) {
					t.Errorf("fingerprints only: %d fingerprints, the first different at %d; with encodings %d",
						len(got), firstDiff(got, want), len(want))
				}
				// Fingerprints only, with some states also encoded after
				// their fingerprint (as a deep DFS level or a trace asks):
				// a base that keeps no bytes, then one that does, and
				// the ways back of both kinds in one search.
				m = walkMachine(t, path, c.gc, c.dead)
				got, bad = got[:0], 0
				walkDFSBy(m, 3000, func() string {
					fp := m.EncodeFingerprint()
					if i := len(got); i%3 == 1 && i < len(encs) {
						if enc := m.Encode(nil); !bytes.Equal(enc, encs[i]) && bad < 3 {
							bad++
							t.Errorf("state %d encoded after its fingerprint: %x, want %x", i, enc, encs[i])
						}
					}
					got = append(got, fp)
					return fmt.Sprint(fp)
				})
				if !slices.Equal(got, want) {
					t.Errorf("fingerprints, some states encoded: %d fingerprints, the first different at %d; with encodings %d",
						len(got), firstDiff(got, want), len(want))
				}
			})
		}
	}
	// Two components swapped: the same multiset of records at other
	// places is another state; and a record one integer longer (a zero)
	// is another record.
	term := func(k int, xs ...uint64) uint64 {
		h := heap.TermStart(k)
		for _, x := range xs {
			h = heap.TermAdd(h, x)
		}
		return heap.Mix(h)
	}
	if a, b := term(1, 1)+term(2, 2), term(1, 2)+term(2, 1); a == b {
		t.Errorf("swapping two records leaves the sum of their terms %016x", a)
	}
	if a, b := term(3, 7), term(3, 7, 0); a == b {
		t.Errorf("a zero more leaves the term %016x", a)
	}
}

// firstDiff returns the first index at which a and b differ.
func firstDiff(a, b []uint64) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}
