package explorer_test

import (
	"path/filepath"
	"testing"
	"time"

	"mcvm/asm"
	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/vm"
)

// FuzzCheck decodes arbitrary bytes as a .mcb program and, when that
// succeeds, model checks it within small limits: no verified program may
// make the VM or the explorer panic or hang, and every counterexample must
// replay.
func FuzzCheck(f *testing.F) {
	paths, _ := filepath.Glob("../testdata/conformance/*.mcasm")
	paths = append(paths, "../benchmarks/models/philo.mcasm")
	for _, path := range paths {
		p, err := asm.AssembleFile(path, asm.Options{})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(bytecode.Encode(p))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := bytecode.Decode(data)
		if err != nil {
			return
		}
		for _, g := range []vm.Granularity{vm.GranTransition, vm.GranInstruction} {
			m, err := vm.New(p, vm.Options{Granularity: g})
			if err != nil {
				t.Fatalf("vm.New rejects a decoded program: %v", err)
			}
			res := explorer.Search(m, explorer.Options{MaxStates: 300, MaxDepth: 100, TimeLimit: 2 * time.Second})
			if res.Fault != nil {
				if _, f, err := explorer.Replay(m, res.Path); err != nil || f == nil || f.Kind != res.Fault.Kind {
					t.Fatalf("counterexample does not replay: %v, %v", f, err)
				}
			}
		}
	})
}
