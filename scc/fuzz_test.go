// Fuzzing the readers of untrusted input: scripts (and certifying with them) and FP maps.

package scc_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"mcvm/explorer"
	"mcvm/por"
	"mcvm/scc"
	"mcvm/vm"
)

// FuzzRead reads arbitrary bytes as a script and, when they parse,
// partitions it and certifies a small program with it and its tasks (with
// the reduction its header names, none or all): none may panic, and a pass
// must report the program's true figures. Seeds: real scripts of every
// kind, unreduced and reduced (and testdata/fuzz/FuzzRead).
func FuzzRead(f *testing.F) {
	p := assemble(f, filepath.Join(conformanceDir, "counter_race.mcasm"), nil)
	want, full := verify(f, p, vm.GranTransition, true, false)
	_, trustful := verify(f, p, vm.GranTransition, true, true)
	f.Add(full)
	f.Add(trustful)
	s, _ := scc.Read(full)
	part, err := scc.Split(s, 3)
	if err != nil {
		f.Fatal(err)
	}
	for _, t := range part.Tasks {
		f.Add(scc.Encode(t))
	}
	red := reduction{por.All, "all/stack", false}
	wantR, _, fullR := red.verify(f, p, vm.GranTransition, true, false)
	_, _, trustfulR := red.verify(f, p, vm.GranTransition, true, true)
	f.Add(fullR)
	f.Add(trustfulR)
	redC := reduction{por.All, "all/stack", true}
	wantC, _, fullC := redC.verify(f, p, vm.GranTransition, true, false)
	f.Add(fullC)
	if sc, err := scc.Read(fullC); err == nil {
		if part, err := scc.Split(sc, 3); err == nil {
			for _, t := range part.Tasks {
				f.Add(scc.Encode(t))
			}
		}
	}
	if wantR.Stats.States >= want.Stats.States {
		f.Fatalf("the reduction does not reduce the fuzzed program (%d states, %d unreduced)", wantR.Stats.States, want.Stats.States)
	}
	dm, _ := vm.New(p, vm.Options{Granularity: vm.GranTransition, DeadLocals: true})
	if _, ds, err := scc.Verify(dm, explorer.Options{Continue: true}, false, "none"); err == nil {
		f.Add(scc.Encode(ds)) // a dead-locals header: refused by the certifier below
	}
	sm, _ := vm.New(p, vm.Options{Granularity: vm.GranTransition})
	if _, ss, err := scc.Verify(sm, explorer.Options{Continue: true, Symmetry: true}, false, "none"); err == nil {
		f.Add(scc.Encode(ss)) // a symmetry header: refused by the certifier below
	}
	pm, _ := vm.New(p, vm.Options{Granularity: vm.GranTransition})
	if _, ps, err := scc.Verify(pm, explorer.Options{MaxStates: 5, Coverage: explorer.EstimatorWalk, CoverageSeed: 3}, false, "none"); err == nil && ps.HasCoverage() {
		f.Add(scc.Encode(ps)) // a partial script: the flags limit and coverage, and the estimate
		bad := *ps
		bad.Coverage.Share = math.NaN()
		f.Add(scc.Encode(&bad)) // refused: the share is not a number
	} else {
		f.Fatalf("no partial script with an estimate to seed with (%v)", err)
	}
	f.Add([]byte("MCVMSCC\n"))
	// certify certifies with the reduction the header names.
	certify := func(s *scc.Script, o scc.Options) (*scc.Result, error) {
		if s.POR == red.name {
			r := red
			r.chain = s.Chains()
			m, _ := vm.New(p, r.mode.VMOptions(vm.Options{Granularity: vm.GranTransition}))
			return scc.Certify(m, s, r.options(p, o))
		}
		m, _ := vm.New(p, vm.Options{Granularity: vm.GranTransition})
		return scc.Certify(m, s, o)
	}
	// check tests one input.
	check := func(t *testing.T, data []byte) {
		s, err := scc.Read(data)
		if err != nil {
			var d *scc.Discrepancy
			if !errors.As(err, &d) {
				t.Fatalf("Read: error %v is not a discrepancy", err)
			}
			return
		}
		if !s.IsTask() && s.Complete() {
			// The partitioner reads the script its own way (structure from
			// the tags, tasks from sync points).
			if part, err := scc.Split(s, 3); err == nil {
				for _, task := range part.Tasks {
					certify(task, scc.Options{Continue: true, MaxStates: 10000})
				}
			}
		}
		res, err := certify(s, scc.Options{Continue: true, MaxStates: 10000})
		w := want
		if s.POR == red.name {
			w = wantR
			if s.Chains() {
				w = wantC
			}
		}
		if err == nil && !s.IsTask() && !s.Trustful() && res.Verdict == w.Verdict &&
			(res.Stats.States != w.Stats.States || res.Stats.Transitions != w.Stats.Transitions) {
			t.Fatalf("certified (por %s) with %d states and %d transitions, want %d and %d", s.POR, res.Stats.States, res.Stats.Transitions, w.Stats.States, w.Stats.Transitions)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		check(t, data)
		if sealed := scc.Reseal(data); !bytes.Equal(sealed, data) {
			check(t, sealed) // a header changed, its checksum made right
		}
	})
}

// FuzzReadFPMap reads arbitrary bytes as an FP map, as they are and
// sealed (sealFPMap); it must not panic and what it reads must encode
// back to the same bytes.
func FuzzReadFPMap(f *testing.F) {
	for _, b := range taskMaps(f, 2) {
		f.Add(b)
		f.Add(b[:len(b)-8]) // sealed, the map itself
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, sealFPMap(data)} {
			m, err := scc.ReadFPMap(in)
			if err != nil {
				continue
			}
			if got := scc.EncodeFPMap(m); string(got) != string(in) {
				t.Fatalf("FP map does not round-trip")
			}
		}
	})
}

// FuzzMerge reads three inputs as FP maps (as they are, or else sealed)
// and merges those that read: the merge must not panic, and it must
// decide as the merge with a Go map for the table does (Merge takes a
// table indexed by ID for dense IDs). Seeds: the maps of a real
// partition into three tasks, and into two.
func FuzzMerge(f *testing.F) {
	three, two := taskMaps(f, 3), taskMaps(f, 2)
	if len(three) != 3 {
		f.Fatalf("%d tasks, want 3", len(three))
	}
	f.Add(three[0], three[1], three[2])
	f.Add(three[2][:len(three[2])-8], three[0][:len(three[0])-8], three[1])
	f.Add(two[0], two[1], []byte(nil))
	f.Fuzz(func(t *testing.T, a, b, c []byte) {
		var maps []*scc.FPMap
		for _, in := range [][]byte{a, b, c} {
			m, err := scc.ReadFPMap(in)
			if err != nil {
				m, err = scc.ReadFPMap(sealFPMap(in))
			}
			if err == nil {
				maps = append(maps, m)
			}
		}
		res, err := scc.Merge(maps)
		sres, serr := scc.MergeSparse(maps)
		if got, want := fmt.Sprintf("%+v %v", res, err), fmt.Sprintf("%+v %v", sres, serr); got != want {
			t.Fatalf("Merge = %s, with a Go map for the table = %s", got, want)
		}
	})
}

// TestMerge_tampered: a missing task, a changed fingerprint or a task
// claiming another's state make the merge fail.
func TestMerge_tampered(t *testing.T) {
	p := assemble(t, filepath.Join(conformanceDir, "peterson.mcasm"), nil)
	_, full := verify(t, p, vm.GranInstruction, true, false)
	s, _ := scc.Read(full)
	part, err := scc.Split(s, 4)
	if err != nil {
		t.Fatal(err)
	}
	var maps []*scc.FPMap
	for _, task := range part.Tasks {
		res, err := scc.Certify(machine(t, p, vm.GranInstruction), task, scc.Options{Continue: true})
		if err != nil {
			t.Fatal(err)
		}
		maps = append(maps, res.FP)
	}
	if _, err := scc.Merge(maps); err != nil {
		t.Fatalf("Merge = %v", err)
	}
	kind := func(err error) scc.DiscrepancyKind {
		var d *scc.Discrepancy
		if errors.As(err, &d) {
			return d.Kind
		}
		return 0
	}
	if _, err := scc.Merge(maps[1:]); kind(err) != scc.Undefined {
		t.Errorf("Merge without task 1 = %v, want %s", err, scc.Undefined)
	}
	bad := *maps[0]
	bad.FPs = append([]uint64(nil), bad.FPs...)
	for i := range bad.FPs {
		if !bad.Defined[i] {
			bad.FPs[i] ^= 1 // a state of another region
			break
		}
	}
	if _, err := scc.Merge(append([]*scc.FPMap{&bad}, maps[1:]...)); kind(err) != scc.FPMismatch {
		t.Errorf("Merge with a changed fingerprint = %v, want %s", err, scc.FPMismatch)
	}
	bad = *maps[0]
	bad.Defined = make([]bool, len(bad.Defined))
	for i := range bad.Defined {
		bad.Defined[i] = true // claims to explore every state it met
	}
	if _, err := scc.Merge(append([]*scc.FPMap{&bad}, maps[1:]...)); kind(err) != scc.BadID {
		t.Errorf("Merge with a task claiming others' states = %v, want %s", err, scc.BadID)
	}
}
