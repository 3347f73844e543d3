// Tampering: systematic mutations of real scripts are rejected with the right discrepancy, or still cover the whole graph.

package scc_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"mcvm/bytecode"
	"mcvm/scc"
	"mcvm/vm"
)

type kinds []scc.DiscrepancyKind

// transitionKinds are what changing which transition an entry names can
// lead to: the certifier then takes a different transition (or none).
var transitionKinds = kinds{scc.NotEnabled, scc.Duplicate, scc.Unexplored, scc.FPMismatch, scc.BadID, scc.Forgotten,
	scc.Marks, scc.Subgraphs, scc.FaultMismatch, scc.Extra, scc.Truncated, scc.BadHeader}

// structureKinds are what deleting, duplicating, reordering or inserting
// entries can lead to.
var structureKinds = append(transitionKinds, scc.Corrupt)

type mutation struct {
	name  string
	allow kinds
	// apply changes entries (or the script) at position i; it returns
	// false when it does not apply there.
	apply func(s *scc.Script, es []scc.Entry, i int) ([]scc.Entry, bool)
}

var mutations = []mutation{
	{"thread", transitionKinds, func(_ *scc.Script, es []scc.Entry, i int) ([]scc.Entry, bool) {
		if es[i].Op == scc.OpBacktrack {
			return es, false
		}
		es[i].Thread ^= 1
		return es, true
	}},
	{"instruction", kinds{scc.NotEnabled}, func(_ *scc.Script, es []scc.Entry, i int) ([]scc.Entry, bool) {
		if es[i].Op == scc.OpBacktrack {
			return es, false
		}
		if es[i].Instr.Op.Info().Operand != bytecode.OperandNone {
			es[i].Instr.A++
		} else {
			es[i].Instr.Op = bytecode.OpInvalid
		}
		return es, true
	}},
	{"choice", transitionKinds, func(_ *scc.Script, es []scc.Entry, i int) ([]scc.Entry, bool) {
		if es[i].Op == scc.OpBacktrack {
			return es, false
		}
		es[i].Choice++
		return es, true
	}},
	{"destination", kinds{scc.FPMismatch, scc.BadID, scc.Forgotten, scc.Marks, scc.Corrupt}, func(_ *scc.Script, es []scc.Entry, i int) ([]scc.Entry, bool) {
		switch es[i].Op {
		case scc.OpOld:
			if es[i].ID == 0 {
				es[i].ID = 1
			} else {
				es[i].ID--
			}
		case scc.OpNew: // claim a new state is one visited before
			es[i].Op, es[i].ID = scc.OpOld, es[i].ID-1
		default:
			return es, false
		}
		return es, true
	}},
	{"old-to-new", append(kinds{scc.Corrupt}, transitionKinds...), func(_ *scc.Script, es []scc.Entry, i int) ([]scc.Entry, bool) {
		if es[i].Op != scc.OpOld {
			return es, false
		}
		es[i].Op = scc.OpNew
		return es, true
	}},
	{"delete", structureKinds, func(_ *scc.Script, es []scc.Entry, i int) ([]scc.Entry, bool) {
		return slices.Delete(es, i, i+1), true
	}},
	{"duplicate", structureKinds, func(_ *scc.Script, es []scc.Entry, i int) ([]scc.Entry, bool) {
		return slices.Insert(es, i, es[i]), true
	}},
	{"reorder", structureKinds, func(_ *scc.Script, es []scc.Entry, i int) ([]scc.Entry, bool) {
		if i+1 >= len(es) || es[i] == es[i+1] {
			return es, false
		}
		es[i], es[i+1] = es[i+1], es[i]
		return es, true
	}},
	{"add-backtrack", structureKinds, func(_ *scc.Script, es []scc.Entry, i int) ([]scc.Entry, bool) {
		return slices.Insert(es, i, scc.Entry{Op: scc.OpBacktrack}), true
	}},
	{"drop-backtrack", structureKinds, func(_ *scc.Script, es []scc.Entry, i int) ([]scc.Entry, bool) {
		if es[i].Op != scc.OpBacktrack {
			return es, false
		}
		return slices.Delete(es, i, i+1), true
	}},
	{"truncate", kinds{scc.Truncated, scc.Marks, scc.Subgraphs, scc.Unexplored}, func(_ *scc.Script, es []scc.Entry, i int) ([]scc.Entry, bool) {
		return es[:i], true
	}},
	{"mark", kinds{scc.Marks, scc.Forgotten}, func(_ *scc.Script, es []scc.Entry, i int) ([]scc.Entry, bool) {
		if es[i].Op != scc.OpNew && es[i].Op != scc.OpOld {
			return es, false
		}
		es[i].Last = !es[i].Last
		return es, true
	}},
	{"subgraphs", kinds{scc.Subgraphs}, func(s *scc.Script, es []scc.Entry, i int) ([]scc.Entry, bool) {
		if i >= len(s.Subgraph) {
			return es, false
		}
		s.Subgraph = slices.Clone(s.Subgraph)
		s.Subgraph[i]++
		return es, true
	}},
	{"subgraphs-drop", kinds{scc.Subgraphs}, func(s *scc.Script, es []scc.Entry, i int) ([]scc.Entry, bool) {
		if i != 0 {
			return es, false
		}
		s.Subgraph = s.Subgraph[:len(s.Subgraph)-1]
		return es, true
	}},
}

func TestTamper_mutations(t *testing.T) {
	type model struct {
		path string
		defs map[string]int64
		g    vm.Granularity
		cont bool // verify and certify with --continue (the program has errors)
	}
	models := []model{
		{filepath.Join(modelsDir, "philo_ok.mcasm"), map[string]int64{"N": 3}, vm.GranTransition, false},
		{filepath.Join(conformanceDir, "peterson.mcasm"), nil, vm.GranInstruction, false},
		{filepath.Join(conformanceDir, "notify_choice.mcasm"), nil, vm.GranTransition, true},
		{filepath.Join(conformanceDir, "choose.mcasm"), nil, vm.GranInstruction, false},
	}
	for _, mod := range models {
		p := assemble(t, mod.path, mod.defs)
		want := searchGraph(t, p, mod.g)
		v, data := verify(t, p, mod.g, mod.cont, false)
		tc := tamperCase{p: p, g: mod.g, cont: mod.cont, want: want, verdict: v.Verdict.String()}
		orig, err := scc.Read(data)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := scc.DecodeEntries(orig.Body, 0, orig.Entries)
		if err != nil {
			t.Fatal(err)
		}
		counts := tc.mutate(t, orig, entries, len(entries)/100, filepath.Base(mod.path))
		t.Logf("%s: per mutation [rejected, still covering everything]: %v", filepath.Base(mod.path), counts)
		// Byte-level damage: truncation and flipped bits anywhere.
		for i := 0; i < len(data); i += max(1, len(data)/200) {
			tc.check(t, fmt.Sprintf("model=%s/truncate-file=%d", filepath.Base(mod.path), i), data[:i], kinds{scc.Truncated, scc.Corrupt})
			bad := slices.Clone(data)
			bad[i] ^= 0x10
			tc.check(t, fmt.Sprintf("model=%s/flip=%d", filepath.Base(mod.path), i), bad, append(kinds{scc.Truncated, scc.Corrupt}, transitionKinds...))
		}
	}
}

// tamperCase is a program and what its certification must report.
type tamperCase struct {
	p       *bytecode.Program
	g       vm.Granularity
	cont    bool
	want    *graph
	verdict string
	red     *reduction // the script's reduction, if any
	sym     bool       // the script's search applied thread symmetry reduction
}

// mutate applies every mutation at every step-th entry of the script
// orig, whose body is entries, and checks each; it returns per mutation
// how many were rejected and how many still covered everything.
func (tc *tamperCase) mutate(t *testing.T, orig *scc.Script, entries []scc.Entry, step int, model string) map[string][2]int {
	counts := map[string][2]int{}
	for _, mu := range mutations {
		for i := 0; i < len(entries); i += max(1, step) {
			rejected, ok := tc.mutateAt(t, orig, entries, mu, i, model, mu.allow)
			if !ok {
				continue
			}
			c := counts[mu.name]
			if rejected {
				c[0]++
			} else {
				c[1]++
			}
			counts[mu.name] = c
		}
	}
	return counts
}

// mutateAt applies mutation mu at entry i of the script orig, whose body
// is entries, and checks the result with the discrepancy kinds allow; ok
// is false where mu does not apply.
func (tc *tamperCase) mutateAt(t *testing.T, orig *scc.Script, entries []scc.Entry, mu mutation, i int, model string, allow kinds) (rejected, ok bool) {
	s := *orig
	es, ok := mu.apply(&s, slices.Clone(entries), i)
	if !ok {
		return false, false
	}
	s.Body = scc.EncodeEntries(es, 0)
	s.Entries = int64(len(es))
	name := fmt.Sprintf("model=%s/mutation=%s/entry=%d", model, mu.name, i)
	return tc.check(t, name, scc.Encode(&s), allow), true
}

// check certifies data and fails the test unless certification is
// rejected with a discrepancy of an allowed kind (or a mismatch of the
// header), or ends with the program's true verdict having covered every
// state and transition of the graph. It reports whether it was rejected.
func (tc *tamperCase) check(t *testing.T, name string, data []byte, allow kinds) bool {
	t.Helper()
	gr := newGraph()
	var o scc.Options
	o.Forget, o.Continue = true, tc.cont
	gr.hook(&o)
	m := machine(t, tc.p, tc.g)
	if tc.red != nil {
		o, m = tc.red.options(tc.p, o), tc.red.machine(t, tc.p, tc.g)
	}
	o.Symmetry = tc.sym
	s, err := scc.Read(data)
	var res *scc.Result
	if err == nil {
		res, err = scc.Certify(m, s, o)
	}
	var d *scc.Discrepancy
	switch {
	case errors.As(err, &d):
		if !slices.Contains(allow, d.Kind) {
			t.Errorf("%s: rejected as %q, want one of %v: %v", name, d.Kind, allow, err)
		}
		return true
	case errors.Is(err, scc.ErrMismatch):
		return true
	case err != nil:
		t.Errorf("%s: error that is not a discrepancy: %v", name, err)
		return true
	}
	if res.Verdict.String() != tc.verdict {
		t.Errorf("%s: certified with verdict %s, want %s", name, res.Verdict, tc.verdict)
	}
	if err := gr.covers(tc.want); err != nil {
		t.Errorf("%s: certification PASSED covering less: %v", name, err)
	}
	return false
}

func (k kinds) String() string {
	s := ""
	for i, x := range k {
		if i > 0 {
			s += ", "
		}
		s += x.String()
	}
	return s
}
