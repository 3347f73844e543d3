// Scripts of searches with thread symmetry reduction (verify --symmetry).

package scc_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"mcvm/asm"
	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/internal/progen"
	"mcvm/por"
	"mcvm/scc"
	"mcvm/vm"
)

// symCase is a program and a reduction, verified and certified with thread
// symmetry reduction.
type symCase struct {
	name string
	p    *bytecode.Program
	r    reduction
}

func (c symCase) machine(t testing.TB) *vm.Machine { return c.r.machine(t, c.p, vm.GranTransition) }

func (c symCase) explorerOptions(cont bool) explorer.Options {
	o := explorer.Options{Continue: cont, Symmetry: true, MaxStates: 50000}
	if c.r.mode != por.None {
		o.Reducer, o.Proviso, o.Chain = por.New(c.p, c.r.mode), explorer.ProvisoStack, c.r.chain
	}
	return o
}

func (c symCase) options(o scc.Options) scc.Options {
	o.Symmetry = true
	if c.r.mode != por.None {
		o = c.r.options(c.p, o)
	}
	return o
}

func (c symCase) certify(t testing.TB, s *scc.Script, o scc.Options) (*scc.Result, error) {
	return scc.Certify(c.machine(t), reread(t, s), c.options(o))
}

// symPrograms are programs whose threads share code: the bounded buffer
// with the original's endless loops and generated symmetric programs.
func symPrograms(t testing.TB) []symCase {
	var progs []struct {
		name string
		p    *bytecode.Program
	}
	add := func(name string, p *bytecode.Program) {
		progs = append(progs, struct {
			name string
			p    *bytecode.Program
		}{name, p})
	}
	add("boundedbuffer", assemble(t, filepath.Join(modelsDir, "boundedbuffer.mcasm"), map[string]int64{"SIZE": 1, "PRODUCERS": 2, "CONSUMERS": 1, "ITEMS": 0}))
	add("symmetry_notify", assemble(t, "../por/testdata/symmetry_notify.mcasm", nil))
	n, err := progen.Count(20)
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		for gi, o := range []progen.Options{{Symmetric: true}, {Symmetric: true, Handlers: true}} {
			src := progen.GenerateWith(seed, o)
			p, err := asm.Assemble("gen.mcasm", []byte(src), asm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, found := vm.ThreadIDUse(p); !found {
				add(fmt.Sprintf("gen%d-%d", gi, seed), p)
			}
		}
	}
	var cases []symCase
	for _, pr := range progs {
		for _, r := range []reduction{{por.None, "none", false}, {por.All, "all/stack", false}, {por.All, "all/stack", true}} {
			cases = append(cases, symCase{pr.name, pr.p, r})
		}
	}
	return cases
}

// TestScripts_symmetry: a script written with thread symmetry reduction,
// unreduced or with the default reduction, certifies with the
// verification's figures, whole, stopped at the first error, trustful and
// in tasks; the certifier requires what the search explored (a twin's
// transitions left out, the rest not), refuses the script without
// --symmetry and a script without symmetry with it.
func TestScripts_symmetry(t *testing.T) {
	twins, compared := 0, 0
	for _, c := range symPrograms(t) {
		for _, cont := range []bool{true, false} {
			name := fmt.Sprintf("%s/por=%s/continue=%v", c.name, c.r, cont)
			v, s, err := scc.Verify(c.machine(t), c.explorerOptions(cont), false, c.r.name)
			if errors.Is(err, scc.ErrIncomplete) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if s.Symmetry != scc.SymmetryThreads {
				t.Fatalf("%s: header symmetry %q", name, s.Symmetry)
			}
			res, err := c.certify(t, s, scc.Options{Continue: cont})
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			checkSame(t, name, v, res, false)
			if s.Limited() {
				break // the part searched certifies as verified; it is not split
			}
			if res.Fault != nil {
				// The counterexample replays without symmetry.
				_, f, err := explorer.Replay(c.machine(t), res.Path)
				if err != nil || f == nil || f.Kind != res.Fault.Kind {
					t.Errorf("%s: the certifier's counterexample does not replay to a %v: %v, %v", name, res.Fault.Kind, f, err)
				}
			}
			if !cont {
				continue
			}
			compared++
			if v.Stats.Twins > 0 {
				twins++
			}
			_, ts, err := scc.Verify(c.machine(t), c.explorerOptions(true), true, c.r.name)
			if err != nil {
				t.Fatal(err)
			}
			if res, err := c.certify(t, ts, scc.Options{Continue: true}); err != nil || res.Stats.States != v.Stats.States {
				t.Errorf("%s: trustful certification: %v", name, err)
			}
			part, err := scc.Split(s, 3)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			mr, err := mergeTasks(part, func(task *scc.Script) (*scc.Result, error) {
				return c.certify(t, task, scc.Options{Continue: true})
			})
			if err != nil || mr.States != v.Stats.States || mr.Transitions != v.Stats.Transitions {
				t.Errorf("%s: tasks merged %+v (%v), verify %d states %d transitions", name, mr, err, v.Stats.States, v.Stats.Transitions)
			}
			// The same with the init paths replayed once (sorted threads
			// and all) for all the tasks, as split in this process.
			if err := part.Prepare(c.machine(t), c.options(scc.Options{Continue: true})); err != nil {
				t.Fatalf("%s: Prepare: %v", name, err)
			}
			mr, err = mergeTasks(part, func(task *scc.Script) (*scc.Result, error) {
				return scc.Certify(c.machine(t), task, c.options(scc.Options{Continue: true}))
			})
			if err != nil || mr.States != v.Stats.States || mr.Transitions != v.Stats.Transitions {
				t.Errorf("%s: prepared tasks merged %+v (%v), verify %d states %d transitions", name, mr, err, v.Stats.States, v.Stats.Transitions)
			}
			o := c.options(scc.Options{Continue: true})
			o.Symmetry = false
			if _, err := scc.Certify(c.machine(t), reread(t, s), o); !errors.Is(err, scc.ErrMismatch) {
				t.Errorf("%s: certified without symmetry: %v", name, err)
			}
			po := c.explorerOptions(true)
			po.Symmetry = false
			if _, ps, err := scc.Verify(c.machine(t), po, false, c.r.name); err == nil {
				if _, err := c.certify(t, ps, scc.Options{Continue: true}); !errors.Is(err, scc.ErrMismatch) {
					t.Errorf("%s: a script without symmetry certified with it: %v", name, err)
				}
			}
		}
	}
	// Twins were left out somewhere, so a certifier requiring every
	// transition (or none of a twin's) would have failed.
	if twins == 0 || compared < 20 {
		t.Errorf("%d scripts compared, %d with twin transitions left out", compared, twins)
	}
	t.Logf("%d scripts compared, %d with twin transitions left out", compared, twins)
}

// TestTamper_symmetry: the tamper mutations applied to scripts of
// symmetric searches are rejected or still cover the whole graph the
// search explored.
func TestTamper_symmetry(t *testing.T) {
	for _, c := range symPrograms(t)[:6] { // the bounded buffer and symmetry_notify: unreduced, reduced, reduced with chains
		v, s, err := scc.Verify(c.machine(t), c.explorerOptions(true), false, c.r.name)
		if err != nil {
			t.Fatal(err)
		}
		s0 := reread(t, s)
		want := newGraph()
		o := c.options(scc.Options{Continue: true})
		want.hook(&o)
		if _, err := scc.Certify(c.machine(t), s0, o); err != nil {
			t.Fatal(err)
		}
		entries, err := scc.DecodeEntries(s0.Body, 0, s0.Entries)
		if err != nil {
			t.Fatal(err)
		}
		tc := tamperCase{p: c.p, g: vm.GranTransition, cont: true, want: want, verdict: v.Verdict.String(), sym: true}
		if c.r.mode != por.None {
			tc.red = &c.r
		}
		counts := tc.mutate(t, s0, entries, len(entries)/40, c.name+"/"+c.r.String())
		t.Logf("%s por=%s: %d states, %d twin transitions left out; per mutation [rejected, still covering everything]: %v",
			c.name, c.r, v.Stats.States, v.Stats.Twins, counts)
	}
}
