package scc_test

import (
	"sync/atomic"
	"testing"

	"mcvm/explorer"
	"mcvm/scc"
	"mcvm/vm"
)

// TestInterrupt checks that an interrupt ends verification with a script
// of the part searched, which certifies with verdict limit, and
// certification with verdict limit ("interrupted"), never a pass.
func TestInterrupt(t *testing.T) {
	p := assemble(t, modelsDir+"/philo_ok.mcasm", map[string]int64{"N": 5})
	var stop atomic.Bool
	stop.Store(true)
	res, s, err := scc.Verify(machine(t, p, vm.GranTransition), explorer.Options{Interrupt: &stop}, false, "none")
	if err != nil || res.Limit != "interrupted" || !s.Limited() {
		t.Fatalf("Verify interrupted = limit %q, error %v; want \"interrupted\" and a script of the part searched", res.Limit, err)
	}
	if c, err := scc.Certify(machine(t, p, vm.GranTransition), s, scc.Options{}); err != nil || c.Verdict != explorer.VerdictLimit || c.Stats.States != res.Stats.States {
		t.Errorf("Certify(interrupted search's script) = %v, %v; want verdict limit and %d states", c, err, res.Stats.States)
	}
	_, data := verify(t, p, vm.GranTransition, false, false)
	for _, trustful := range []bool{false, true} {
		if trustful {
			_, data = verify(t, p, vm.GranTransition, false, true)
		}
		c, err := certify(t, p, vm.GranTransition, data, scc.Options{Interrupt: &stop})
		if err != nil {
			t.Fatal(err)
		}
		if c.Verdict != explorer.VerdictLimit || c.Limit != "interrupted" || c.Stats.Transitions > 1024 {
			t.Errorf("trustful=%v: Certify interrupted = verdict %v, limit %q after %d transitions; want limit, \"interrupted\", within 1,024 entries",
				trustful, c.Verdict, c.Limit, c.Stats.Transitions)
		}
	}
}
