// FP map files: damaged, truncated or old files are refused before a merge.

package scc_test

import (
	"encoding/binary"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"

	"mcvm/scc"
	"mcvm/vm"
)

// taskMaps certifies the k tasks of counter_race's script and returns
// their encoded FP maps.
func taskMaps(t testing.TB, k int) [][]byte {
	t.Helper()
	p := assemble(t, filepath.Join(conformanceDir, "counter_race.mcasm"), nil)
	_, full := verify(t, p, vm.GranTransition, true, false)
	s, err := scc.Read(full)
	if err != nil {
		t.Fatal(err)
	}
	part, err := scc.Split(s, k)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, task := range part.Tasks {
		res, err := scc.Certify(machine(t, p, vm.GranTransition), task, scc.Options{Continue: true})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, scc.EncodeFPMap(res.FP))
	}
	return out
}

// sealFPMap makes b an FP map of the current version with a correct
// checksum: its version replaced and the checksum appended (b unchanged
// if it has no magic and version). Fuzz targets read inputs sealed too,
// so that changes reach the parser behind the checksum.
func sealFPMap(b []byte) []byte {
	const magic = "MCVMFPM\n"
	if len(b) <= len(magic) || string(b[:len(magic)]) != magic {
		return b
	}
	_, n := binary.Uvarint(b[len(magic):])
	if n <= 0 {
		return b
	}
	s := append([]byte(magic), scc.FPMapVersion)
	s = append(s, b[len(magic)+n:]...)
	return binary.LittleEndian.AppendUint64(s, xxhash.Sum64(s))
}

// TestReadFPMap_everyBitFlip flips each bit of an FP map in turn: every
// damaged map is refused as corrupt, never merged.
func TestReadFPMap_everyBitFlip(t *testing.T) {
	maps := taskMaps(t, 2)
	for _, b := range maps {
		if _, err := scc.ReadFPMap(b); err != nil {
			t.Fatalf("ReadFPMap = %v", err)
		}
	}
	b := maps[0]
	for i := range len(b) * 8 {
		b[i/8] ^= 1 << (i % 8)
		m, err := scc.ReadFPMap(b)
		var d *scc.Discrepancy
		if err == nil || m != nil || !errors.As(err, &d) {
			t.Errorf("ReadFPMap with bit %d of byte %d flipped = %v, want a discrepancy", i%8, i/8, err)
		}
		b[i/8] ^= 1 << (i % 8)
	}
	for n := range len(b) {
		if _, err := scc.ReadFPMap(b[:n]); err == nil {
			t.Errorf("ReadFPMap(first %d of %d bytes) succeeded", n, len(b))
		}
	}
}

// TestReadFPMap_oldVersion: a map of the version before checksums is
// refused with what to do.
func TestReadFPMap_oldVersion(t *testing.T) {
	b := taskMaps(t, 2)[0]
	b[8] = scc.FPMapVersion - 1
	_, err := scc.ReadFPMap(b[:len(b)-8])
	if err == nil || !strings.Contains(err.Error(), "FP map version 5") || !strings.Contains(err.Error(), "certify the task again") {
		t.Errorf("ReadFPMap(version 5) = %v, want a refusal naming the version and what to do", err)
	}
}

// TestMerge_taskCount: the number of tasks a map claims is not an
// allocation: a map of task 1 of 2^40-1 is merged to "tasks missing".
func TestMerge_taskCount(t *testing.T) {
	m := &scc.FPMap{Task: 1, Tasks: 1<<40 - 1, Verdict: "ok", IDs: []int32{0}, FPs: []uint64{1}, Defined: []bool{true}}
	m2, err := scc.ReadFPMap(scc.EncodeFPMap(m))
	if err != nil {
		t.Fatal(err)
	}
	_, err = scc.Merge([]*scc.FPMap{m2})
	if err == nil || !strings.Contains(err.Error(), "tasks 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 1099511627764 more of 1099511627775 are missing") {
		t.Errorf("Merge(task 1 of 2^40-1) = %v", err)
	}
}
