// Scripts of reduced searches: verify and certify with the same partial-order reduction agree, tasks cover the reduced graph, tampering is caught.

package scc_test

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"mcvm/asm"
	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/internal/progen"
	"mcvm/por"
	"mcvm/scc"
	"mcvm/vm"
)

// reduction is a partial-order reduction as verify and certify apply it,
// with or without chains.
type reduction struct {
	mode  por.Mode
	name  string // the header's
	chain bool
}

var reductions = []reduction{
	{por.Escape, "escape/stack", false}, {por.Ample, "ample/stack", false}, {por.All, "all/stack", false},
	{por.Escape, "escape/stack", true}, {por.Ample, "ample/stack", true}, {por.All, "all/stack", true},
}

func (r reduction) String() string {
	if r.chain {
		return r.name + "+chain"
	}
	return r.name
}

func (r reduction) machine(t testing.TB, p *bytecode.Program, g vm.Granularity) *vm.Machine {
	t.Helper()
	m, err := vm.New(p, r.mode.VMOptions(vm.Options{Granularity: g}))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// verify runs a reduced verification and returns its result, its graph
// and the encoded script.
func (r reduction) verify(t testing.TB, p *bytecode.Program, g vm.Granularity, cont, trustful bool) (*explorer.Result, *graph, []byte) {
	t.Helper()
	gr := newGraph()
	var fps []uint64
	opts := explorer.Options{Continue: cont, Reducer: por.New(p, r.mode), Proviso: explorer.ProvisoStack, Chain: r.chain}
	opts.Listen(explorer.Funcs{OnState: func(id int32, fp uint64) { fps = append(fps, fp); gr.states[fp] = true }})
	res, s, err := scc.Verify(r.machine(t, p, g), opts, trustful, r.name)
	if err != nil {
		t.Fatal(err)
	}
	return res, gr, scc.Encode(s)
}

// options returns certification options for the reduction.
func (r reduction) options(p *bytecode.Program, o scc.Options) scc.Options {
	o.Reducer, o.POR, o.Chain = por.New(p, r.mode), r.name, r.chain
	return o
}

func (r reduction) certify(t testing.TB, p *bytecode.Program, g vm.Granularity, data []byte, o scc.Options) (*scc.Result, error) {
	t.Helper()
	s, err := scc.Read(data)
	if err != nil {
		return nil, err
	}
	return scc.Certify(r.machine(t, p, g), s, r.options(p, o))
}

// TestRoundTrip_reduced: for every conformance program and small model,
// each reduction's script certifies with the verification's verdict and
// figures, the same as check's for the reduction without chains and sleep
// sets; its tasks (k in {1, 2, 10, 50, 100}) cover together every state and
// transition the whole script covers; and the certifier refuses it without
// the reduction.
func TestRoundTrip_reduced(t *testing.T) {
	progs := scriptPrograms(t)
	reducedSome := 0
	for _, pr := range progs {
		var unreduced *explorer.Result
		if !pr.model {
			unreduced = explorer.Search(machine(t, pr.p, vm.GranTransition), explorer.Options{Continue: true})
		}
		for _, r := range reductions {
			if pr.model && r.mode != por.All {
				continue
			}
			for _, cont := range []bool{false, true} {
				if pr.model && !cont {
					continue
				}
				name := fmt.Sprintf("model=%s/por=%s/continue=%v", pr.name, r, cont)
				v, _, data := r.verify(t, pr.p, vm.GranTransition, cont, false)
				if cont && unreduced != nil {
					if v.Verdict != unreduced.Verdict {
						t.Errorf("%s: verdict %s, unreduced %s", name, v.Verdict, unreduced.Verdict)
					}
					if v.Stats.States < unreduced.Stats.States {
						reducedSome++
					}
				}
				for _, forget := range []bool{false, true} {
					c, err := r.certify(t, pr.p, vm.GranTransition, data, scc.Options{Continue: cont, Forget: forget})
					if err != nil {
						t.Errorf("%s/forget=%v: %v", name, forget, err)
						continue
					}
					checkSame(t, name, v, c, false)
					if !cont && c.Fault != nil {
						replayFault(t, name, r.machine(t, pr.p, vm.GranTransition), c)
					}
				}
				_, _, tdata := r.verify(t, pr.p, vm.GranTransition, cont, true)
				if c, err := r.certify(t, pr.p, vm.GranTransition, tdata, scc.Options{Continue: cont}); err != nil {
					t.Errorf("%s/trustful: %v", name, err)
				} else {
					checkSame(t, name+"/trustful", v, c, true)
					if cont {
						// Trustful tasks add up to the whole trustful script.
						ts, err := scc.Read(tdata)
						if err != nil {
							t.Fatal(err)
						}
						part, err := scc.Split(ts, 10)
						if err != nil {
							t.Fatalf("%s/trustful: Split: %v", name, err)
						}
						m, err := certifyReducedTasks(t, pr.p, r, part, newGraph())
						switch {
						case err != nil:
							t.Errorf("%s/trustful/tasks=10: %v", name, err)
						case m.States != c.Stats.States || m.Transitions != c.Stats.Transitions || m.Errors != c.Stats.Errors:
							t.Errorf("%s/trustful/tasks=10: merged %d states %d transitions %d errors, whole %d %d %d", name, m.States, m.Transitions, m.Errors, c.Stats.States, c.Stats.Transitions, c.Stats.Errors)
						}
					}
				}
				if !cont {
					continue
				}
				// The same as the explorer's search for the reduction.
				ex := explorer.Search(r.machine(t, pr.p, vm.GranTransition), explorer.Options{Continue: true, Reducer: por.New(pr.p, r.mode), Chain: r.chain})
				if ex.Stats.States != v.Stats.States || ex.Stats.Transitions != v.Stats.Transitions {
					t.Errorf("%s: verify %d states %d transitions, search %d %d", name, v.Stats.States, v.Stats.Transitions, ex.Stats.States, ex.Stats.Transitions)
				}
				s, err := scc.Read(data)
				if err != nil {
					t.Fatal(err)
				}
				// The graph the whole script covers, which the tasks must
				// cover together (Theorems 3.2.1-3.2.2).
				whole := newGraph()
				o := scc.Options{Continue: true}
				whole.hook(&o)
				if _, err := r.certify(t, pr.p, vm.GranTransition, data, o); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				ks := []int{1, 2, 10, 50, 100}
				if pr.model {
					ks = []int{2, 10}
				}
				for _, k := range ks {
					part, err := scc.Split(s, k)
					if err != nil {
						t.Errorf("%s: Split(%d): %v", name, k, err)
						continue
					}
					gr := newGraph()
					m, err := certifyReducedTasks(t, pr.p, r, part, gr)
					if err == nil {
						err = gr.covers(whole)
					}
					if err != nil {
						t.Errorf("%s/tasks=%d: %v", name, k, err)
						continue
					}
					if m.States != v.Stats.States || m.Transitions != v.Stats.Transitions {
						t.Errorf("%s/tasks=%d: merged %d states %d transitions, verify %d %d", name, k, m.States, m.Transitions, v.Stats.States, v.Stats.Transitions)
					}
				}
				// Another reduction, or none, is refused up front, and so
				// is the other choice of chains.
				if _, err := certify(t, pr.p, vm.GranTransition, data, scc.Options{Continue: true}); err == nil || !bytes.Contains([]byte(err.Error()), []byte("give --por")) {
					t.Errorf("%s: certified without the reduction: %v", name, err)
				}
				other := r
				other.chain = !r.chain
				if _, err := other.certify(t, pr.p, vm.GranTransition, data, scc.Options{Continue: true}); err == nil || !bytes.Contains([]byte(err.Error()), []byte("--chain=false")) {
					t.Errorf("%s: certified with chain=%v: %v", name, other.chain, err)
				}
			}
		}
	}
	if reducedSome == 0 {
		t.Errorf("no reduction reduced any program")
	}
}

// certifyReducedTasks certifies part's tasks as task files (with gr
// seeing what they cover) and merges their FP maps; it checks that the
// tasks certified as split, with their init paths replayed once
// (Partition.Prepare), give the same FP maps and figures.
func certifyReducedTasks(t testing.TB, p *bytecode.Program, r reduction, part *scc.Partition, gr *graph) (*scc.MergeResult, error) {
	var files []*scc.Result
	m, err := mergeTasks(part, func(task *scc.Script) (*scc.Result, error) {
		o := scc.Options{Continue: true}
		gr.hook(&o)
		res, err := r.certify(t, p, vm.GranTransition, scc.Encode(task), o)
		files = append(files, res)
		return res, err
	})
	if err != nil {
		return nil, err
	}
	if err := part.Prepare(r.machine(t, p, vm.GranTransition), r.options(p, scc.Options{Continue: true})); err != nil {
		return nil, fmt.Errorf("Prepare: %w", err)
	}
	for i, task := range part.Tasks {
		res, err := scc.Certify(r.machine(t, p, vm.GranTransition), task, r.options(p, scc.Options{Continue: true}))
		if err != nil {
			return nil, fmt.Errorf("task %d prepared: %w", task.Task, err)
		}
		f := files[i]
		if string(scc.EncodeFPMap(res.FP)) != string(scc.EncodeFPMap(f.FP)) || res.Entries != f.Entries || res.InitLen != f.InitLen {
			return nil, fmt.Errorf("task %d prepared: FP map of %d IDs, %d entries, init path %d; as a file %d, %d, %d", task.Task, len(res.FP.IDs), res.Entries, res.InitLen, len(f.FP.IDs), f.Entries, f.InitLen)
		}
		if (res.Fault == nil) != (f.Fault == nil) || len(res.Path) != len(f.Path) {
			return nil, fmt.Errorf("task %d prepared: counterexample of %d steps, as a file %d", task.Task, len(res.Path), len(f.Path))
		}
	}
	return m, nil
}

// replayFault checks that certification result c's counterexample replays
// on m to a fault of the same kind.
func replayFault(t testing.TB, name string, m *vm.Machine, c *scc.Result) {
	t.Helper()
	_, f, err := explorer.Replay(m, c.Path)
	if err != nil || f == nil || f.Kind != c.Fault.Kind {
		t.Errorf("%s: the counterexample of %d steps replays to %v (%v), want a %s", name, len(c.Path), f, err, c.Fault.Kind)
	}
}

// scriptProg is a program whose scripts the round-trip tests certify.
type scriptProg struct {
	name  string
	p     *bytecode.Program
	model bool // a benchmark model: the default reduction with --continue only, to keep the tests short
}

// scriptPrograms are the conformance programs and (unless -short) the
// benchmark models' SMALL configurations of at most 200,000 states.
func scriptPrograms(t testing.TB) []scriptProg {
	var progs []scriptProg
	paths, _ := filepath.Glob(filepath.Join(conformanceDir, "*.mcasm"))
	for _, path := range paths {
		progs = append(progs, scriptProg{filepath.Base(path), assemble(t, path, nil), false})
	}
	if !testing.Short() {
		for _, mod := range smallModels(t) {
			if mod.Small.States <= 200000 {
				progs = append(progs, scriptProg{mod.Name, assemble(t, mod.Path, mod.Small.Defines), true})
			}
		}
	}
	return progs
}

// mergeTasks certifies every task of part with certify and merges their
// FP maps.
func mergeTasks(part *scc.Partition, certify func(task *scc.Script) (*scc.Result, error)) (*scc.MergeResult, error) {
	var maps []*scc.FPMap
	for _, task := range part.Tasks {
		res, err := certify(task)
		if err != nil {
			return nil, fmt.Errorf("task %d: %w", task.Task, err)
		}
		maps = append(maps, res.FP)
	}
	return scc.Merge(maps)
}

// TestTamper_reduced: the mutations of TestTamper_mutations applied to
// reduced scripts are rejected, or still give the true verdict having
// covered the whole graph the reduced search explored. (Searches that
// explore less than the reduction asks for, with consistent Subgraphs and
// marks, are TestCertify_reducedChecked's.)
func TestTamper_reduced(t *testing.T) {
	type model struct {
		path string
		defs map[string]int64
		cont bool
	}
	models := []model{
		{filepath.Join(modelsDir, "philo_ok.mcasm"), map[string]int64{"N": 3}, false},
		{filepath.Join(modelsDir, "boundedbuffer.mcasm"), map[string]int64{"SIZE": 1, "PRODUCERS": 2, "CONSUMERS": 1, "ITEMS": 1, "BUG": 0}, false},
		{filepath.Join(conformanceDir, "notify_choice.mcasm"), nil, true},
		{filepath.Join(conformanceDir, "peterson.mcasm"), nil, false},
	}
	for _, r := range []reduction{{por.All, "all/stack", false}, {por.All, "all/stack", true}} {
		for _, mod := range models {
			p := assemble(t, mod.path, mod.defs)
			v, _, data := r.verify(t, p, vm.GranTransition, mod.cont, false)
			// The honest script's graph: what its certification covers.
			want := newGraph()
			o := r.options(p, scc.Options{Continue: mod.cont})
			want.hook(&o)
			s0, err := scc.Read(data)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := scc.Certify(r.machine(t, p, vm.GranTransition), s0, o); err != nil {
				t.Fatal(err)
			}
			entries, err := scc.DecodeEntries(s0.Body, 0, s0.Entries)
			if err != nil {
				t.Fatal(err)
			}
			tc := tamperCase{p: p, g: vm.GranTransition, cont: mod.cont, want: want, verdict: v.Verdict.String(), red: &r}
			counts := tc.mutate(t, s0, entries, len(entries)/150, filepath.Base(mod.path)+"/"+r.String())
			t.Logf("%s/%s: %d states (reduced); per mutation [rejected, still covering everything]: %v", filepath.Base(mod.path), r, v.Stats.States, counts)
		}
	}
}

// firstOnly is a reducer that explores one transition wherever there are
// several: not a persistent set.
type firstOnly struct{}

func (firstOnly) Ample(_ *vm.Machine, trans []vm.Trans) int { return 1 }

// TestCertify_reducedChecked: a script whose search explored less than the
// reduction asks for is rejected: states reduced to a set that is not the
// reducer's, and states the stack proviso must expand fully but a search
// with another proviso did not.
func TestCertify_reducedChecked(t *testing.T) {
	r := reduction{por.All, "all/stack", false}
	// record writes the script of a search with reducer red and proviso pv,
	// labelled as r's.
	record := func(p *bytecode.Program, red explorer.Reducer, pv explorer.Proviso) (*explorer.Result, []byte) {
		rec := scc.NewRecorder(p, false)
		opts := explorer.Options{Continue: true, Reducer: red, Proviso: pv}
		rec.Hook(&opts)
		m := r.machine(t, p, vm.GranTransition)
		res := explorer.Search(m, opts)
		s := rec.Script(bytecode.Digest(p), vm.GranTransition, r.name, true, true, res)
		return res, scc.Encode(s)
	}
	unexplored := func(name string, p *bytecode.Program, data []byte) {
		t.Helper()
		_, err := r.certify(t, p, vm.GranTransition, data, scc.Options{Continue: true})
		var d *scc.Discrepancy
		if !errors.As(err, &d) || d.Kind != scc.Unexplored {
			t.Errorf("%s: certify = %v, want an %q discrepancy", name, err, scc.Unexplored)
		}
	}
	p := assemble(t, filepath.Join(modelsDir, "philo_ok.mcasm"), map[string]int64{"N": 3})
	_, data := record(p, firstOnly{}, explorer.ProvisoStack)
	unexplored("philo_ok/first-only", p, data)

	// Searches with another proviso: where they leave out what the stack
	// proviso adds along the script's own search path, the certifier
	// rejects them; where it accepts, the verdict is the unreduced one.
	rejected := 0
	paths, _ := filepath.Glob(filepath.Join(conformanceDir, "*.mcasm"))
	for _, path := range paths {
		p := assemble(t, path, nil)
		unreduced := explorer.Search(machine(t, p, vm.GranTransition), explorer.Options{Continue: true})
		for _, pv := range []explorer.Proviso{explorer.ProvisoDuplicate, explorer.ProvisoStatic} {
			_, data := record(p, por.New(p, r.mode), pv)
			name := fmt.Sprintf("%s/proviso=%s", filepath.Base(path), pv)
			res, err := r.certify(t, p, vm.GranTransition, data, scc.Options{Continue: true})
			var d *scc.Discrepancy
			switch {
			case errors.As(err, &d):
				if d.Kind != scc.Unexplored {
					t.Errorf("%s: certify = %v, want an %q discrepancy", name, err, scc.Unexplored)
				}
				rejected++
			case err != nil:
				t.Errorf("%s: %v", name, err)
			case res.Verdict != unreduced.Verdict:
				t.Errorf("%s: certified with verdict %s, the unreduced search finds %s", name, res.Verdict, unreduced.Verdict)
			}
		}
	}
	if rejected == 0 {
		t.Errorf("no search with another proviso was rejected: the stack proviso's check is untested")
	}
	t.Logf("%d searches with another proviso rejected", rejected)
}

// TestGenerated_reducedScripts: on generated programs (the generators of
// the reductions' differential tests), each reduction's script, whole, cut
// short at the first error and split into tasks, certifies with the
// verification's figures: the certifier's persistent sets and proviso
// agree with the explorer's everywhere (exception handlers, choices,
// wait/notify, deadlocks and invariant violations included).
// MCVM_GEN_PROGRAMS sets how many programs of each generator (default 20).
func TestGenerated_reducedScripts(t *testing.T) {
	n, err := progen.Count(20)
	if err != nil {
		t.Fatal(err)
	}
	handlers := func(seed uint64) string { return progen.GenerateWith(seed, progen.Options{Handlers: true}) }
	compared := 0
	for gi, gen := range []func(uint64) string{progen.GeneratePOR, progen.Generate, handlers} {
		for seed := uint64(1); seed <= uint64(n); seed++ {
			src := gen(seed)
			p, err := asm.Assemble("gen.mcasm", []byte(src), asm.Options{})
			if err != nil {
				t.Fatalf("generator %d seed %d: %v", gi, seed, err)
			}
			for _, r := range reductions {
				name := fmt.Sprintf("gen=%d/seed=%d/por=%s", gi, seed, r)
				for _, cont := range []bool{true, false} {
					opts := explorer.Options{Continue: cont, Reducer: por.New(p, r.mode), Proviso: explorer.ProvisoStack, MaxStates: 50000, Chain: r.chain}
					v, s, err := scc.Verify(r.machine(t, p, vm.GranTransition), opts, false, r.name)
					if errors.Is(err, scc.ErrIncomplete) {
						break
					}
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					data := scc.Encode(s)
					c, err := r.certify(t, p, vm.GranTransition, data, scc.Options{Continue: cont})
					if err != nil {
						t.Errorf("%s/continue=%v: %v\n%s", name, cont, err, src)
						continue
					}
					checkSame(t, fmt.Sprintf("%s/continue=%v", name, cont), v, c, false)
					if s.Limited() {
						break // the part searched certifies as verified; it is not split
					}
					if !cont {
						if c.Fault != nil {
							replayFault(t, name, r.machine(t, p, vm.GranTransition), c)
						}
						continue
					}
					compared++
					part, err := scc.Split(s, 3)
					if err != nil {
						t.Errorf("%s: Split: %v", name, err)
						continue
					}
					if m, err := certifyReducedTasks(t, p, r, part, newGraph()); err != nil {
						t.Errorf("%s/tasks: %v\n%s", name, err, src)
					} else if m.States != v.Stats.States || m.Transitions != v.Stats.Transitions {
						t.Errorf("%s/tasks: merged %d states %d transitions, verify %d %d", name, m.States, m.Transitions, v.Stats.States, v.Stats.Transitions)
					}
				}
			}
		}
	}
	if compared < n*3*len(reductions)*3/4 {
		t.Errorf("only %d scripts compared", compared)
	}
	t.Logf("%d reduced scripts certified whole, cut short and in tasks", compared)
}

// TestTamper_materialised: the tamper mutations applied at and around the
// entries of materialised states (a chain that faults in a reduced state:
// the fault entry, then the entry introducing the state before the fault)
// are rejected or still cover the whole graph, in scripts of conformance
// and generated programs that have such entries. A mutation that makes
// the second entry no longer introduce the materialised state may also be
// rejected as unexplored (the state the search must explore fully is
// missing).
func TestTamper_materialised(t *testing.T) {
	r := reduction{por.All, "all/stack", true}
	var progs []*bytecode.Program
	paths, _ := filepath.Glob(filepath.Join(conformanceDir, "*.mcasm"))
	for _, path := range paths {
		progs = append(progs, assemble(t, path, nil))
	}
	for seed := uint64(1); seed <= 40; seed++ {
		src := progen.GenerateWith(seed, progen.Options{Handlers: true})
		p, err := asm.Assemble("gen.mcasm", []byte(src), asm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		progs = append(progs, p)
	}
	pairs, scripts := 0, 0
	for pi, p := range progs {
		opts := explorer.Options{Continue: true, Reducer: por.New(p, r.mode), Proviso: explorer.ProvisoStack, Chain: true, MaxStates: 20000}
		v, s, err := scc.Verify(r.machine(t, p, vm.GranTransition), opts, false, r.name)
		if errors.Is(err, scc.ErrIncomplete) || err == nil && s.Limited() {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		s0 := reread(t, s)
		entries, err := scc.DecodeEntries(s0.Body, 0, s0.Entries)
		if err != nil {
			t.Fatal(err)
		}
		var at []int
		for i := 0; i+1 < len(entries); i++ {
			a, b := entries[i], entries[i+1]
			if a.Op == scc.OpFault && (b.Op == scc.OpNew || b.Op == scc.OpOld) && a.Thread == b.Thread && a.Choice == b.Choice && a.Instr == b.Instr {
				at = append(at, i)
			}
		}
		if len(at) == 0 {
			continue
		}
		scripts++
		want := newGraph()
		o := r.options(p, scc.Options{Continue: true})
		want.hook(&o)
		if _, err := scc.Certify(r.machine(t, p, vm.GranTransition), s0, o); err != nil {
			t.Fatalf("program %d: %v", pi, err)
		}
		tc := tamperCase{p: p, g: vm.GranTransition, cont: true, want: want, verdict: v.Verdict.String(), red: &r}
		for _, i := range at[:min(len(at), 5)] {
			pairs++
			for _, mu := range mutations {
				// A changed entry may leave the materialised state
				// unintroduced where the certifier requires it.
				allow := append(slices.Clone(mu.allow), scc.Unexplored)
				for _, j := range []int{i, i + 1} {
					tc.mutateAt(t, s0, entries, mu, j, fmt.Sprintf("program-%d", pi), allow)
				}
			}
		}
	}
	if pairs == 0 {
		t.Fatalf("no script has a materialised state: the test checks nothing")
	}
	t.Logf("%d materialised states in %d scripts mutated", pairs, scripts)
}
