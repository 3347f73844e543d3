package explorer_test

import (
	"testing"

	"mcvm/explorer"
	"mcvm/vm"
)

// TestDescribe_matchesReplay: on the counterexample of every small model
// that has one (and with --continue, every distinct violation), Describe
// reaches the fault Replay reaches, step for step, and names every step's
// operation; twice over, it says the same (no map order, no addresses).
func TestDescribe_matchesReplay(t *testing.T) {
	described := 0
	for _, md := range smallModels(t) {
		m, err := vm.New(md.prog, vm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res := explorer.Search(m, explorer.Options{Continue: true, KeepViolations: 5, MaxStates: 20000})
		paths := [][]vm.Trans{}
		for _, v := range res.Violations {
			paths = append(paths, v.Path)
		}
		for _, path := range paths {
			steps, f, err := explorer.Replay(m, path)
			if err != nil {
				t.Fatalf("%s: Replay: %v", md.path, err)
			}
			tr, err := explorer.Describe(m, path, true)
			if err != nil {
				t.Fatalf("%s: Describe: %v", md.path, err)
			}
			again, _ := explorer.Describe(m, path, true)
			if (f == nil) != (tr.Fault == nil) || f != nil && (f.Kind != tr.Fault.Kind || f.PC != tr.Fault.PC) {
				t.Errorf("%s: Describe's fault %v, Replay's %v", md.path, tr.Fault, f)
			}
			if len(tr.Steps) != len(steps) || len(tr.States) != len(steps) {
				t.Fatalf("%s: Describe gives %d steps and %d states, Replay %d steps", md.path, len(tr.Steps), len(tr.States), len(steps))
			}
			for i, s := range tr.Steps {
				if s.Thread != steps[i].Thread || s.Instr != steps[i].Instr || s.Op == "" {
					t.Errorf("%s: step %d: Describe %d %q %q, Replay %d %q", md.path, i+1, s.Thread, s.Instr, s.Op, steps[i].Thread, steps[i].Instr)
				}
				if a := again.Steps[i]; a.Op != s.Op || len(a.Changes) != len(s.Changes) {
					t.Errorf("%s: step %d described twice: %q then %q", md.path, i+1, s.Op, a.Op)
				}
			}
			if tr.Fault != nil && len(tr.Involved) == 0 && tr.Fault.Kind != vm.FaultDeadlock {
				t.Errorf("%s: no thread involved in %v", md.path, tr.Fault)
			}
			described++
		}
	}
	if described == 0 {
		t.Error("no counterexample described")
	}
}
