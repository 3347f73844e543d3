// Sync points: a damaged sync column is rejected by sequential
// certification, and tasks decoding from it fail or still cover the graph.

package scc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"mcvm/asm"
	"mcvm/explorer"
	"mcvm/vm"
)

func TestSync_tampered(t *testing.T) {
	p, err := asm.AssembleFile("../benchmarks/models/philo_ok.mcasm", asm.Options{Defines: map[string]int64{"N": 6}})
	if err != nil {
		t.Fatal(err)
	}
	newMachine := func() *vm.Machine {
		m, err := vm.New(p, vm.Options{Granularity: vm.GranTransition})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	v, s, err := Verify(newMachine(), explorer.Options{Continue: true}, false, "none")
	if err != nil {
		t.Fatal(err)
	}
	orig, err := Read(Encode(s))
	if err != nil {
		t.Fatal(err)
	}
	points := len(orig.Body[colSync]) / (len(syncCols) + 1)
	if int(orig.Entries) <= 4*syncEvery || points < 4 {
		t.Fatalf("the script has %d entries and a %d-byte sync column: too small for this test", orig.Entries, len(orig.Body[colSync]))
	}
	// Each sync point is len(syncCols)+1 uvarints; change the k-th number.
	for k := range 2 * (len(syncCols) + 1) {
		name := fmt.Sprintf("number=%d", k)
		sc := append([]byte(nil), orig.Body[colSync]...)
		off := 0
		for range k {
			_, n := binary.Uvarint(sc[off:])
			off += n
		}
		x, n := binary.Uvarint(sc[off:])
		y := binary.AppendUvarint(nil, x+1)
		sc = append(append(append([]byte(nil), sc[:off]...), y...), sc[off+n:]...)
		bad := *orig
		bad.Body[colSync] = sc
		data := Encode(&bad)
		s, err := Read(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var d *Discrepancy
		if _, err := Certify(newMachine(), s, Options{}); !errors.As(err, &d) || d.Kind != Corrupt {
			t.Errorf("%s: sequential certification = %v, want a %s discrepancy", name, err, Corrupt)
		}
		s, _ = Read(data)
		part, err := Split(s, 5)
		if err != nil {
			if !errors.As(err, &d) {
				t.Errorf("%s: Split = %v, want a discrepancy", name, err)
			}
			continue
		}
		var maps []*FPMap
		var terr error
		for _, task := range part.Tasks {
			res, err := Certify(newMachine(), task, Options{})
			if err != nil {
				terr = err
				break
			}
			maps = append(maps, res.FP)
		}
		if terr == nil {
			mr, err := Merge(maps)
			if err == nil && (mr.States != v.Stats.States || mr.Transitions != v.Stats.Transitions) {
				t.Errorf("%s: tasks passed with %d states and %d transitions, the graph has %d and %d", name, mr.States, mr.Transitions, v.Stats.States, v.Stats.Transitions)
			}
			terr = err
		}
		// Passing is sound only with the whole graph (checked above).
		if terr != nil && !errors.As(terr, &d) {
			t.Errorf("%s: tasks = %v, want a discrepancy", name, terr)
		}
	}
}
