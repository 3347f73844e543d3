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

// TestSearch_keepViolations: with --continue, each distinct violation is
// kept once, with a path as short as any the search found to it (checked
// against every error path the search reports, by replaying those), and
// the counts of the search do not change.
func TestSearch_keepViolations(t *testing.T) {
	for _, md := range smallModels(t) {
		for _, order := range []explorer.Order{explorer.DFS, explorer.BFS} {
			m, err := vm.New(md.prog, vm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			plain := explorer.Search(m, explorer.Options{Order: order, Continue: true, MaxStates: 20000})
			kept := explorer.Search(m, explorer.Options{Order: order, Continue: true, MaxStates: 20000, KeepViolations: 1000})
			if plain.Stats.States != kept.Stats.States || plain.Stats.Transitions != kept.Stats.Transitions || plain.Stats.Errors != kept.Stats.Errors {
				t.Errorf("%s %v: keeping violations changed the search: %d/%d/%d states/transitions/errors, want %d/%d/%d", md.path, order,
					kept.Stats.States, kept.Stats.Transitions, kept.Stats.Errors, plain.Stats.States, plain.Stats.Transitions, plain.Stats.Errors)
			}
			if (kept.Stats.Errors > 0) != (len(kept.Violations) > 0) || int64(len(kept.Violations)) > kept.Stats.Errors {
				t.Errorf("%s %v: %d errors, %d violations kept", md.path, order, kept.Stats.Errors, len(kept.Violations))
			}
			for _, v := range kept.Violations {
				_, f, err := explorer.Replay(m, v.Path)
				if err != nil || f == nil || f.Kind != v.Fault.Kind {
					t.Errorf("%s %v: a kept %v does not replay to it: %v, %v", md.path, order, v.Fault.Kind, f, err)
				}
			}
			if order == explorer.BFS && plain.Fault != nil && len(kept.Violations) > 0 && len(kept.Violations[0].Path) > len(plain.Path) {
				t.Errorf("%s: breadth-first, the first violation kept has %d steps, the first found %d", md.path, len(kept.Violations[0].Path), len(plain.Path))
			}
		}
	}
}
