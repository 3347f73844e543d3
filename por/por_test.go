package por_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mcvm/asm"
	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/internal/progen"
	"mcvm/por"
	"mcvm/vm"
)

// outcome is what a complete search establishes that every sound reduction
// must preserve: the violations by kind and place (deadlocks by the
// fingerprint of the deadlocked state, which no reduction changes: every
// thread in it waits at a scheduling point), and the end states.
type outcome struct {
	errors map[string]bool
	ends   map[uint64]bool
	limit  bool
	stats  explorer.Stats
}

type config struct {
	mode    por.Mode
	order   explorer.Order
	proviso explorer.Proviso
	storage explorer.Storage
	chain   bool
	sleep   bool
	static  bool // dpor without summaries (the static analysis at every revisit)
	// heur names the heuristic of best-first search and A*
	// (explorer.NewHeuristic; one that needs a target is aimed at the
	// initial state).
	heur string
}

func (c config) String() string {
	s := fmt.Sprintf("por=%s/search=%s/proviso=%s/store=%s/chain=%v/sleep=%v/sii=%v", c.mode, c.order, c.proviso.Resolve(c.order), c.storage, c.chain, c.sleep, !c.static)
	if c.heur != "" {
		s += "/h=" + c.heur
	}
	return s
}

// unreduced is the search every reduction is compared with.
var unreduced = config{por.None, explorer.DFS, explorer.ProvisoAuto, explorer.StorageExact, false, false, false, ""}

// configs are the reduced searches compared with the unreduced one.
var configs = []config{
	{por.Escape, explorer.DFS, explorer.ProvisoAuto, explorer.StorageExact, false, false, false, ""},
	{por.Ample, explorer.DFS, explorer.ProvisoAuto, explorer.StorageExact, false, false, false, ""},
	{por.DPOR, explorer.DFS, explorer.ProvisoAuto, explorer.StorageExact, false, false, false, ""},
	{por.DPOR, explorer.DFS, explorer.ProvisoAuto, explorer.StorageExact, false, false, true, ""},
	{por.DPOR, explorer.DFS, explorer.ProvisoAuto, explorer.StorageExact, false, true, false, ""},
	{por.DPOR, explorer.DFS, explorer.ProvisoAuto, explorer.StorageExact, false, true, true, ""},
	{por.Escape | por.Ample | por.DPOR, explorer.DFS, explorer.ProvisoAuto, explorer.StorageExact, false, true, false, ""},
	{por.Escape | por.Ample | por.DPOR, explorer.DFS, explorer.ProvisoAuto, explorer.StorageExact, false, false, false, ""},
	{por.All, explorer.DFS, explorer.ProvisoAuto, explorer.StorageExact, false, false, false, ""},
	{por.All, explorer.DFS, explorer.ProvisoStatic, explorer.StorageExact, false, false, false, ""},
	{por.All, explorer.DFS, explorer.ProvisoDuplicate, explorer.StorageExact, false, false, false, ""},
	{por.All, explorer.BFS, explorer.ProvisoAuto, explorer.StorageExact, false, false, false, ""},
	{por.All, explorer.BFS, explorer.ProvisoStatic, explorer.StorageExact, false, false, false, ""},
	{por.All, explorer.DFS, explorer.ProvisoAuto, explorer.StorageExact, true, false, false, ""},
	{por.Ample, explorer.DFS, explorer.ProvisoAuto, explorer.StorageExact, true, false, false, ""},
	{por.All, explorer.DFS, explorer.ProvisoAuto, explorer.StorageExact, true, true, false, ""},
	{por.All, explorer.DFS, explorer.ProvisoAuto, explorer.StorageExact, false, true, false, ""},
	{por.Ample, explorer.DFS, explorer.ProvisoAuto, explorer.StorageExact, true, true, false, ""},
	{por.Escape, explorer.DFS, explorer.ProvisoAuto, explorer.StorageCollapse, false, true, false, ""},
	// Directed searches under reduction (the duplicate proviso).
	{por.All, explorer.AStar, explorer.ProvisoAuto, explorer.StorageExact, false, false, false, "fsm"},
	{por.All, explorer.BestFirst, explorer.ProvisoAuto, explorer.StorageExact, false, false, false, "fsm"},
	{por.All, explorer.BestFirst, explorer.ProvisoAuto, explorer.StorageExact, false, false, false, "active"},
	{por.All, explorer.AStar, explorer.ProvisoAuto, explorer.StorageExact, false, false, false, "deadlock"},
	{por.All, explorer.BestFirst, explorer.ProvisoStatic, explorer.StorageExact, false, false, false, "deadlock"},
	{por.All, explorer.AStar, explorer.ProvisoAuto, explorer.StorageExact, false, false, false, "hamming"},
}

// faultKey is how the differential tests name a violation other than a
// deadlock: its kind, place and message.
func faultKey(f *vm.Fault) string {
	return fmt.Sprintf("%s %d:%d %s", f.Kind, f.Method, f.PC, f.Msg)
}

func explore(t testing.TB, p *bytecode.Program, c config, maxStates int) outcome {
	t.Helper()
	m, err := vm.New(p, c.mode.VMOptions(vm.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	o := outcome{errors: map[string]bool{}, ends: map[uint64]bool{}}
	opts := explorer.Options{Order: c.order, Continue: true, MaxStates: maxStates, Proviso: c.proviso, Chain: c.chain, Sleep: c.sleep,
		Storage: c.storage, BitstateBits: 26,
		Listeners: []explorer.Listener{explorer.Funcs{OnError: func(f *vm.Fault, fp uint64) {
			if f.Kind == vm.FaultDeadlock {
				o.errors[fmt.Sprintf("deadlock %016x", fp)] = true
				return
			}
			o.errors[faultKey(f)] = true
		},
			OnEnd: func(fp uint64) { o.ends[fp] = true }}},
	}
	if c.heur != "" {
		var target []byte
		if c.heur == "hamming" {
			im, err := vm.New(p, c.mode.VMOptions(vm.Options{}))
			if err != nil {
				t.Fatal(err)
			}
			target = im.Encode(nil) // the initial state
		}
		h, err := explorer.NewHeuristic(c.heur, m, target)
		if err != nil {
			t.Fatal(err)
		}
		opts.Heuristic = h
	}
	if r := por.New(p, c.mode); r != nil {
		if r.Reduces() {
			opts.Reducer = r
		}
		if c.mode&por.DPOR != 0 && c.order == explorer.DFS {
			d := por.NewDynamic(r)
			d.SII = !c.static
			opts.Dynamic = d
		}
	}
	if err := opts.Validate(); err != nil {
		t.Fatalf("%s: %v", c, err)
	}
	res := explorer.Search(m, opts)
	o.limit = res.Limit != ""
	o.stats = res.Stats
	return o
}

func genCount(t *testing.T, def int) int {
	n, err := progen.Count(def)
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		n = min(n, 40)
	}
	return n
}

// TestGenerated_reductionIsSound is the differential test of every
// reduction against the unreduced search on generated programs (the POR
// generator, the base one, the base one with exception handlers, the
// model one with setup methods, atomic regions, valid end states and
// monitor leaks, and the ghost one with ghost and final members and
// threads that stay at their end): each must find exactly the same
// violations, deadlocked states and end states. MCVM_GEN_PROGRAMS sets how many programs of each
// generator (default 60; a longer run: MCVM_GEN_PROGRAMS=5000).
func TestGenerated_reductionIsSound(t *testing.T) {
	// 40 seeds a generator keep the package well inside go test's
	// timeout on two cores; MCVM_GEN_PROGRAMS runs more (RESULTS.md,
	// "Soundness runs").
	n := genCount(t, 40)
	type gen struct {
		name string
		f    func(uint64) string
	}
	var statesNone, statesAll int64
	handlers := func(seed uint64) string { return progen.GenerateWith(seed, progen.Options{Handlers: true}) }
	for _, g := range []gen{{"por", progen.GeneratePOR}, {"base", progen.Generate}, {"handlers", handlers}, {"model", progen.GenerateModel}, {"ghost", progen.GenerateGhost}} {
		compared, withErrors, reduced := 0, 0, 0
		n := n
		switch g.name {
		case "model":
			n = min(n, 6) // (their atomic regions leave little to reduce: fewer, to keep the package's time)
		case "ghost":
			n = min(n, 8) // (the package is near go test's default timeout)
		}
		for seed := uint64(1); seed <= uint64(n); seed++ {
			src := g.f(seed)
			p, err := asm.Assemble("gen.mcasm", []byte(src), asm.Options{})
			if err != nil {
				t.Fatalf("%s seed %d does not assemble: %v\n%s", g.name, seed, err, src)
			}
			full := explore(t, p, unreduced, 200000)
			if full.limit {
				continue
			}
			compared++
			if len(full.errors) > 0 {
				withErrors++
			}
			for _, c := range configs {
				red := explore(t, p, c, 0)
				if c.mode == por.All && c.order == explorer.DFS && c.proviso == explorer.ProvisoAuto && !c.chain && !c.sleep {
					statesNone += full.stats.States
					statesAll += red.stats.States
					if red.stats.States < full.stats.States {
						reduced++
					}
				}
				if !maps.Equal(full.errors, red.errors) || !maps.Equal(full.ends, red.ends) {
					t.Errorf("%s seed %d, %s: finds errors %v and %d end states; unreduced: %v and %d\n%s",
						g.name, seed, c, slices.Sorted(maps.Keys(red.errors)), len(red.ends),
						slices.Sorted(maps.Keys(full.errors)), len(full.ends), src)
				}
				if red.stats.States > full.stats.States && c.mode != por.Escape {
					// Not unsound, but a reduction that grows the space is a bug.
					t.Logf("%s seed %d, %s: %d states, unreduced %d", g.name, seed, c, red.stats.States, full.stats.States)
				}
			}
		}
		if compared < n*3/4 {
			t.Errorf("%s: only %d of %d programs were small enough to compare", g.name, compared, n)
		}
		if withErrors < compared/10 {
			t.Errorf("%s: only %d of %d programs have errors: too tame to test much", g.name, withErrors, compared)
		}
		t.Logf("%s: compared %d programs (%d with errors); --por=all reduced %d of them", g.name, compared, withErrors, reduced)
	}
	if statesAll >= statesNone {
		t.Errorf("--por=all explored %d states in all, the unreduced search %d: no reduction", statesAll, statesNone)
	}
	t.Logf("states: unreduced %d, --por=all %d (%.2fx)", statesNone, statesAll, float64(statesNone)/float64(max(statesAll, 1)))
}

// TestGeneratePOR_deterministic checks that a seed always gives the same program.
func TestGeneratePOR_deterministic(t *testing.T) {
	if progen.GeneratePOR(7) != progen.GeneratePOR(7) || progen.GeneratePOR(7) == progen.GeneratePOR(8) {
		t.Error("GeneratePOR is not a function of its seed")
	}
}

// TestModels_sameVerdicts (MCVM_POR_LONG=1 for dynamic reduction on the
// models above 100,000 states too) runs the reduction's regression programs
// (testdata: each a way a too-eager reduction would miss its error), every
// conformance program and the benchmark models at their small sizes with
// every mode: the same verdict and the
// same violations as the unreduced search.
func TestModels_sameVerdicts(t *testing.T) {
	for _, pr := range programs(t) {
		path, p := pr.path, pr.prog
		full := explore(t, p, unreduced, 600000)
		if full.limit {
			t.Errorf("%s: too large to compare", path)
			continue
		}
		for _, c := range configs {
			if full.stats.States > 100000 && c.mode&por.DPOR != 0 && os.Getenv("MCVM_POR_LONG") == "" {
				// Dynamic reduction is several times slower per state: on
				// the big models only in the long run (MCVM_POR_LONG=1).
				continue
			}
			red := explore(t, p, c, 0)
			if !maps.Equal(full.errors, red.errors) || !maps.Equal(full.ends, red.ends) {
				t.Errorf("%s, %s: errors %v, %d end states; unreduced %v, %d", filepath.Base(path), c,
					slices.Sorted(maps.Keys(red.errors)), len(red.ends), slices.Sorted(maps.Keys(full.errors)), len(full.ends))
			}
			if c.mode != por.All || c.proviso != explorer.ProvisoAuto || c.sleep || c.heur != "" {
				continue // (directed searches need an exact store)
			}
			// The lossy stores under reduction (the stack proviso finds
			// states on the stack by fingerprint there): the same search.
			for _, st := range []explorer.Storage{explorer.StorageHashCompact, explorer.StorageBitstate} {
				lc := c
				lc.storage = st
				lossy := explore(t, p, lc, 0)
				if !maps.Equal(lossy.errors, red.errors) || !maps.Equal(lossy.ends, red.ends) ||
					lossy.stats.States != red.stats.States || lossy.stats.Transitions != red.stats.Transitions ||
					lossy.stats.Provisos != red.stats.Provisos {
					t.Errorf("%s, %s: %d states %d transitions %d provisos; exact store %d %d %d", filepath.Base(path), lc,
						lossy.stats.States, lossy.stats.Transitions, lossy.stats.Provisos,
						red.stats.States, red.stats.Transitions, red.stats.Provisos)
				}
			}
		}
	}
}

// program is one of the programs the tests run on.
type program struct {
	path  string
	prog  *bytecode.Program
	model bool // a benchmark model, at its SMALL configuration
}

// programs assembles the regression programs (testdata), the conformance
// suite, the benchmark models and the SPIN twins (benchmarks/peers) at
// their SMALL configurations (a model without one is left out), in that
// order.
func programs(t *testing.T) []program {
	t.Helper()
	conf, _ := filepath.Glob("../testdata/conformance/*.mcasm")
	regress, _ := filepath.Glob("testdata/*.mcasm")
	models, _ := filepath.Glob("../benchmarks/models/*.mcasm")
	peers, _ := filepath.Glob("../benchmarks/peers/*.mcasm") // the SPIN twins
	models = append(models, peers...)
	if len(conf) == 0 || len(models) == 0 || len(regress) == 0 {
		t.Fatal("no programs found")
	}
	var out []program
	for _, path := range append(append(regress, conf...), models...) {
		defs := map[string]int64{}
		model := strings.Contains(path, "benchmarks")
		if model {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if defs = smallDefines(t, string(src)); defs == nil {
				continue
			}
		}
		p, err := asm.AssembleFile(path, asm.Options{Defines: defs})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, program{path, p, model})
	}
	return out
}

// smallDefines reads a model's "; SMALL -D K=V ..." line (nil if none).
func smallDefines(t *testing.T, src string) map[string]int64 {
	for _, line := range strings.Split(src, "\n") {
		if !strings.HasPrefix(line, "; SMALL ") {
			continue
		}
		defs := map[string]int64{}
		f := strings.Fields(strings.TrimPrefix(line, "; SMALL "))
		for i := 0; i+1 < len(f); i++ {
			if f[i] != "-D" {
				continue
			}
			k, v, _ := strings.Cut(f[i+1], "=")
			x, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("SMALL line %q: %v", line, err)
			}
			defs[k] = x
		}
		return defs
	}
	return nil
}

// TestChain_counterexamplesReplay checks that a counterexample found with
// chaining (Options.Chain: states with a single transition to explore are
// not stored) lists every transition, chained ones included: it replays to
// the same kind of violation, on generated programs of the three
// generators; with and without sleep sets (whose revisits push a second
// frame for a state).
func TestChain_counterexamplesReplay(t *testing.T) {
	n := genCount(t, 60)
	handlers := func(seed uint64) string { return progen.GenerateWith(seed, progen.Options{Handlers: true}) }
	replayed := 0
	for _, g := range []func(uint64) string{progen.GeneratePOR, progen.Generate, handlers} {
		for seed := uint64(1); seed <= uint64(n); seed++ {
			p, err := asm.Assemble("gen.mcasm", []byte(g(seed)), asm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			m, err := vm.New(p, por.All.VMOptions(vm.Options{}))
			if err != nil {
				t.Fatal(err)
			}
			for _, sleep := range []bool{false, true} {
				res := explorer.Search(m, explorer.Options{Reducer: por.New(p, por.All), Chain: true, Sleep: sleep, MaxStates: 200000})
				if res.Fault == nil {
					continue
				}
				_, f, err := explorer.Replay(m, res.Path)
				if err != nil || f == nil || f.Kind != res.Fault.Kind {
					t.Errorf("seed %d, sleep %v: the counterexample (%d transitions) of a %s does not replay: %v %v", seed, sleep, len(res.Path), res.Fault.Kind, f, err)
				}
				replayed++
			}
		}
	}
	if replayed < n {
		t.Errorf("only %d counterexamples replayed", replayed)
	}
	t.Logf("%d counterexamples replayed", replayed)
}

// withoutInvariants returns p without its invariants.
func withoutInvariants(p *bytecode.Program) *bytecode.Program {
	q := *p
	q.Invariants = nil
	return &q
}

// noReduction is a Reducer that never reduces but tells dependency as
// por.Reducer does: with it, sleep sets are the only reduction.
type noReduction struct{ *por.Reducer }

func (noReduction) Ample(m *vm.Machine, trans []vm.Trans) int { return len(trans) }

// TestSleep_visitsEveryState checks sleep sets on their own, on generated
// programs of the three generators, the reduction's regression programs
// and the conformance programs, each with and without its invariants:
// they may leave out transitions but never a state, so the search with
// them must store exactly the states of the unreduced search and find the
// same errors (invariant violations and deadlocks by the fingerprint of
// their state), in fewer transitions. With invariants this checks that a
// transition whose subtree holds a violating state, which is not
// expanded, keeps its thread awake (Options.Sleep). Revisits that wake
// sleeping transitions must happen. With the default reduction and
// chains, a search that stops at the first error must find one exactly
// when the unreduced search does.
func TestSleep_visitsEveryState(t *testing.T) {
	n := genCount(t, 60)
	handlers := func(seed uint64) string { return progen.GenerateWith(seed, progen.Options{Handlers: true}) }
	var srcs []string
	for _, g := range []func(uint64) string{progen.GeneratePOR, progen.Generate, handlers} {
		for seed := uint64(1); seed <= uint64(n); seed++ {
			srcs = append(srcs, g(seed))
		}
	}
	conf, _ := filepath.Glob("../testdata/conformance/*.mcasm")
	regress, _ := filepath.Glob("testdata/*.mcasm")
	for _, path := range append(regress, conf...) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, string(b))
	}
	var slept, woken, transFull, transSleep int64
	compared, withInvariants := 0, 0
	for i, src := range srcs {
		withInv, err := asm.Assemble("gen.mcasm", []byte(src), asm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		run := func(p *bytecode.Program, sleep bool) (map[uint64]bool, map[string]bool, *explorer.Result) {
			m, err := vm.New(p, vm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			states, errs := map[uint64]bool{}, map[string]bool{}
			opts := explorer.Options{Continue: true, MaxStates: 200000,
				Listeners: []explorer.Listener{explorer.Funcs{OnState: func(_ int32, fp uint64) { states[fp] = true },
					OnError: func(f *vm.Fault, fp uint64) {
						errs[fmt.Sprintf("%s %d:%d %s %x", f.Kind, f.Method, f.PC, f.Msg, fp)] = true
					}}},
			}
			if sleep {
				opts.Reducer, opts.Sleep = noReduction{por.New(p, por.Ample)}, true
			}
			return states, errs, explorer.Search(m, opts)
		}
		progs := []*bytecode.Program{withoutInvariants(withInv)}
		if len(withInv.Invariants) > 0 {
			progs = append(progs, withInv)
		}
		for _, p := range progs {
			full, fullErrs, fr := run(p, false)
			if fr.Limit != "" {
				continue
			}
			compared++
			if len(p.Invariants) > 0 {
				withInvariants++
			}
			got, gotErrs, sr := run(p, true)
			if !maps.Equal(full, got) || !maps.Equal(fullErrs, gotErrs) {
				t.Errorf("program %d (%d invariants): with sleep sets %d states and errors %v; without %d and %v\n%s", i, len(p.Invariants), len(got),
					slices.Sorted(maps.Keys(gotErrs)), len(full), slices.Sorted(maps.Keys(fullErrs)), src)
			}
			slept += sr.Stats.Slept
			woken += sr.Stats.Woken
			transFull += fr.Stats.Transitions
			transSleep += sr.Stats.Transitions
		}
		first := func(sleep bool) bool {
			m, err := vm.New(withInv, por.All.VMOptions(vm.Options{}))
			if err != nil {
				t.Fatal(err)
			}
			opts := explorer.Options{Reducer: por.New(withInv, por.All), Chain: true, Sleep: sleep, MaxStates: 200000}
			return explorer.Search(m, opts).Fault != nil
		}
		if a, b := first(false), first(true); a != b {
			t.Errorf("program %d: stopping at the first error, found one without sleep sets: %v, with: %v\n%s", i, a, b, src)
		}
	}
	if compared < len(srcs)*3/4 || withInvariants < len(srcs)/8 {
		t.Errorf("only %d searches of %d programs were small enough to compare (%d with invariants)", compared, len(srcs), withInvariants)
	}
	if slept == 0 || woken == 0 || transSleep >= transFull {
		t.Errorf("sleep sets did not work: %d transitions asleep, %d revisits woke some, %d transitions against %d", slept, woken, transSleep, transFull)
	}
	t.Logf("%d searches (%d with invariants): %d transitions with sleep sets, %d without (%.2fx); %d left asleep, %d revisits woke transitions",
		compared, withInvariants, transSleep, transFull, float64(transFull)/float64(max(transSleep, 1)), slept, woken)
}
