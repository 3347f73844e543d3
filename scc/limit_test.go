package scc_test

import (
	"errors"
	"testing"

	"mcvm/explorer"
	"mcvm/scc"
	"mcvm/vm"
)

// TestLimit_machine: a limit of the machine is a limit in search scripts
// too: verification that reaches one writes no script, and certification
// with a lower limit than verification's ends with verdict limit, not a
// discrepancy or a pass.
func TestLimit_machine(t *testing.T) {
	p := assemble(t, modelsDir+"/philo_ok.mcasm", map[string]int64{"N": 3})
	low := vm.Options{MaxThreads: 2}
	m, err := vm.New(p, low)
	if err != nil {
		t.Fatal(err)
	}
	res, s, err := scc.Verify(m, explorer.Options{}, false, "none")
	if !errors.Is(err, scc.ErrIncomplete) || s != nil || res.Verdict != explorer.VerdictLimit || res.Limit != "threads" {
		t.Errorf("Verify with MaxThreads 2 = verdict %v, limit %q, error %v; want limit, threads, ErrIncomplete", res.Verdict, res.Limit, err)
	}
	for _, trustful := range []bool{false, true} {
		_, data := verify(t, p, vm.GranTransition, false, trustful)
		s, err := scc.Read(data)
		if err != nil {
			t.Fatal(err)
		}
		m, err := vm.New(p, low)
		if err != nil {
			t.Fatal(err)
		}
		c, err := scc.Certify(m, s, scc.Options{})
		if err != nil || c.Verdict != explorer.VerdictLimit || c.Limit != "threads" || c.Fault == nil || c.Fault.Kind != vm.FaultLimit {
			t.Errorf("trustful=%v: Certify with MaxThreads 2 = verdict %v, limit %q, fault %v, error %v; want limit, threads",
				trustful, c.Verdict, c.Limit, c.Fault, err)
		}
		// Tasks reach it in their init paths, or in their regions.
		part, err := scc.Split(s, 3)
		if err != nil {
			t.Fatal(err)
		}
		for i, task := range part.Tasks {
			c, err := scc.Certify(m, task, scc.Options{})
			if err != nil || c.Verdict != explorer.VerdictLimit || c.Limit != "threads" {
				t.Errorf("trustful=%v: task %d with MaxThreads 2 = verdict %v, limit %q, error %v; want limit, threads", trustful, i+1, c.Verdict, c.Limit, err)
			}
		}
	}
}
