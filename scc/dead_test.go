// Scripts of searches with dead variable reduction (verify --dead-locals).

package scc_test

import (
	"errors"
	"fmt"
	"testing"

	"mcvm/explorer"
	"mcvm/por"
	"mcvm/scc"
	"mcvm/vm"
)

// TestRoundTrip_deadLocals: a script written with dead variable reduction,
// unreduced or with the default reduction, certifies whole, trustful and
// in ten tasks with the verification's figures, which are those of the
// search without a script; a certifier without the reduction refuses it,
// and one with it refuses a script written without.
func TestRoundTrip_deadLocals(t *testing.T) {
	progs := scriptPrograms(t)
	fewer, searches := 0, 0
	for _, pr := range progs {
		for _, r := range []reduction{{por.None, "none", false}, {por.All, "all/stack", false}, {por.All, "all/stack", true}} {
			if pr.model && r.mode == por.None {
				continue
			}
			searches++
			name := fmt.Sprintf("model=%s/por=%s", pr.name, r)
			mk := func(dead bool) *vm.Machine {
				m, err := vm.New(pr.p, r.mode.VMOptions(vm.Options{Granularity: vm.GranTransition, DeadLocals: dead}))
				if err != nil {
					t.Fatal(err)
				}
				return m
			}
			opts := func() explorer.Options {
				o := explorer.Options{Continue: true}
				if r.mode != por.None {
					o.Reducer, o.Proviso, o.Chain = por.New(pr.p, r.mode), explorer.ProvisoStack, r.chain
				}
				return o
			}
			copts := func() scc.Options {
				o := scc.Options{Continue: true}
				if r.mode != por.None {
					o = r.options(pr.p, o)
				}
				return o
			}
			plain := explorer.Search(mk(false), opts())
			want := explorer.Search(mk(true), opts())
			if want.Stats.States < plain.Stats.States {
				fewer++
			}
			v, s, err := scc.Verify(mk(true), opts(), false, r.name)
			if err != nil {
				t.Fatal(err)
			}
			if v.Stats.States != want.Stats.States || v.Stats.Transitions != want.Stats.Transitions || v.Verdict != want.Verdict {
				t.Errorf("%s: verify %s %d states %d transitions, the search %s %d %d", name, v.Verdict, v.Stats.States, v.Stats.Transitions, want.Verdict, want.Stats.States, want.Stats.Transitions)
			}
			s = reread(t, s)
			if !s.DeadLocals() {
				t.Fatalf("%s: the header does not say dead variable reduction", name)
			}
			c, err := scc.Certify(mk(true), s, copts())
			if err != nil {
				t.Errorf("%s: %v", name, err)
			} else if c.Verdict != v.Verdict || c.Stats.States != v.Stats.States || c.Stats.Transitions != v.Stats.Transitions || c.Stats.Errors != v.Stats.Errors {
				t.Errorf("%s: certify %s %d %d %d, verify %s %d %d %d", name, c.Verdict, c.Stats.States, c.Stats.Transitions, c.Stats.Errors,
					v.Verdict, v.Stats.States, v.Stats.Transitions, v.Stats.Errors)
			}
			if _, err := scc.Certify(mk(false), s, copts()); !errors.Is(err, scc.ErrMismatch) {
				t.Errorf("%s: certified without dead variable reduction: %v", name, err)
			}
			_, ts, err := scc.Verify(mk(true), opts(), true, r.name)
			if err != nil {
				t.Fatal(err)
			}
			if c, err := scc.Certify(mk(true), reread(t, ts), copts()); err != nil || c.Stats.States != v.Stats.States {
				t.Errorf("%s: trustful certification: %v", name, err)
			}
			part, err := scc.Split(s, 10)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			mr, err := mergeTasks(part, func(task *scc.Script) (*scc.Result, error) {
				return scc.Certify(mk(true), reread(t, task), copts())
			})
			if err != nil || mr.States != v.Stats.States || mr.Transitions != v.Stats.Transitions {
				t.Errorf("%s: tasks merged %+v (%v), verify %d states %d transitions", name, mr, err, v.Stats.States, v.Stats.Transitions)
			}
			if pr.model {
				continue
			}
			_, ps, err := scc.Verify(mk(false), opts(), false, r.name)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := scc.Certify(mk(true), reread(t, ps), copts()); !errors.Is(err, scc.ErrMismatch) {
				t.Errorf("%s: a script without dead variable reduction certified with it: %v", name, err)
			}
		}
	}
	// The option changes the state space of some of these programs, so a
	// certifier that ignored it would be caught by its fingerprints.
	if fewer == 0 {
		t.Errorf("dead variable reduction stored fewer states for no program")
	}
	t.Logf("%d of %d searches stored fewer states", fewer, searches)
}
