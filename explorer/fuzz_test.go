package explorer_test

import (
	"encoding/binary"
	"errors"
	"hash/crc64"
	"testing"
	"time"

	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/vm"
)

// FuzzCheck decodes arbitrary bytes as a .mcb program and, when that
// succeeds, model checks it within small limits: no verified program may
// make the VM or the explorer panic or hang, and every counterexample must
// replay.
func FuzzCheck(f *testing.F) {
	for _, md := range smallModels(f) {
		f.Add(bytecode.Encode(md.prog))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := bytecode.Decode(data)
		if err != nil {
			// Most mutations of a checksummed file stop at its checksum:
			// make it right, so that they reach the verifier and the VM.
			if p, err = bytecode.Decode(resealed(data)); err != nil {
				return
			}
		}
		for _, g := range []vm.Granularity{vm.GranTransition, vm.GranInstruction} {
			m, err := vm.New(p, vm.Options{Granularity: g})
			if errors.Is(err, vm.ErrSetup) {
				return // a setup method that cannot run (the program's fault, said as an error)
			}
			if err != nil {
				t.Fatalf("vm.New rejects a decoded program: %v", err)
			}
			res := explorer.Search(m, explorer.Options{MaxStates: 300, MaxDepth: 100, TimeLimit: 2 * time.Second})
			if res.Fault != nil {
				if _, f, err := explorer.Replay(m, res.Path); err != nil || f == nil || f.Kind != res.Fault.Kind {
					t.Fatalf("counterexample does not replay: %v, %v", f, err)
				}
			}
			// The directed searches, with the heuristics that need no
			// target: their counterexamples replay too.
			for _, name := range []string{"fsm", "active", "deadlock"} {
				h, err := explorer.NewHeuristic(name, m, nil)
				if err != nil {
					t.Fatalf("NewHeuristic(%s): %v", name, err)
				}
				for _, order := range []explorer.Order{explorer.AStar, explorer.BestFirst, explorer.IDA} {
					res := explorer.Search(m, explorer.Options{Order: order, Heuristic: h, MaxStates: 300, MaxDepth: 100, TimeLimit: 2 * time.Second})
					if res.Fault != nil {
						if _, f, err := explorer.Replay(m, res.Path); err != nil || f == nil || f.Kind != res.Fault.Kind {
							t.Fatalf("%s %s: counterexample does not replay: %v, %v", order, name, f, err)
						}
					}
				}
			}
			// Lookahead (hash compaction) must change nothing reported.
			o := explorer.Options{Storage: explorer.StorageHashCompact, MaxStates: 300, TimeLimit: 2 * time.Second}
			with := searchLookahead(t, m, o, true)
			without := searchLookahead(t, m, o, false)
			if with.res.Limit != "time" && without.res.Limit != "time" && !with.equal(without) {
				t.Fatalf("with lookahead %v\nwithout %v", with, without)
			}
		}
	})
}

// resealed is b with its last 8 bytes replaced by the CRC-64 (ECMA) of
// the rest, the checksum that ends a .mcb file of the current version.
func resealed(b []byte) []byte {
	if len(b) < 8 {
		return b
	}
	s := append([]byte(nil), b[:len(b)-8]...)
	return binary.LittleEndian.AppendUint64(s, crc64.Checksum(s, crc64.MakeTable(crc64.ECMA)))
}
