package explorer_test

import (
	"errors"
	"fmt"
	"testing"

	"mcvm/asm"
	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/internal/progen"
	"mcvm/vm"
)

// graph is a state space explored breadth first with every error: its
// states by store id, the breadth-first tree, the edges, and each state's
// true distance to the nearest error (in transitions; -1: none reachable).
type graph struct {
	parent []int32
	via    []vm.Trans
	fp     []uint64
	pred   [][]int32
	isErr  []bool // a deadlock or invariant violation: never estimated
	toErr  []int32
	toKind map[vm.FaultKind][]int32 // each state's distance to the nearest error of a kind
	path   []vm.Trans               // BFS's counterexample, and whether its last transition faults
	fault  bool
	dfs    []vm.Trans
	dfsEnd bool
}

// exploreGraph explores p breadth first with vm options vo, through the
// search's listeners; nil if it has more than maxStates states.
func exploreGraph(t *testing.T, p *bytecode.Program, vo vm.Options, maxStates int) *graph {
	t.Helper()
	m, err := vm.New(p, vo)
	if err != nil {
		t.Fatal(err)
	}
	g := &graph{}
	byFP := map[uint64]int32{}
	var faulty []int32
	var faultKind []vm.FaultKind
	errKind := map[int32]vm.FaultKind{}
	opts := explorer.Options{Order: explorer.BFS, Continue: true, MaxStates: maxStates,
		Listeners: []explorer.Listener{explorer.Funcs{
			OnState: func(id int32, fp uint64) {
				if int(id) != len(g.fp) {
					t.Fatalf("state id %d after %d states", id, len(g.fp))
				}
				g.fp, g.parent, g.via = append(g.fp, fp), append(g.parent, -1), append(g.via, vm.Trans{})
				g.pred, g.isErr = append(g.pred, nil), append(g.isErr, false)
				byFP[fp] = id
			},
			OnTransition: func(from int32, tr vm.Trans, _, _ int32, to int32, isNew bool) {
				if to < 0 {
					faulty, faultKind = append(faulty, from), append(faultKind, vm.FaultNone)
					return
				}
				if isNew {
					g.parent[to], g.via[to] = from, tr
				}
				g.pred[to] = append(g.pred[to], from)
			},
			OnError: func(f *vm.Fault, fp uint64) {
				if fp == 0 { // a transition's fault, just reported
					faultKind[len(faultKind)-1] = f.Kind
					return
				}
				id, ok := byFP[fp]
				if !ok {
					t.Fatalf("error %v in a state not stored", f)
				}
				g.isErr[id] = true
				errKind[id] = f.Kind
			}}}}
	if res := explorer.Search(m, opts); res.Limit != "" {
		return nil
	}
	var src, init []int32
	for id, e := range g.isErr {
		if e {
			src, init = append(src, int32(id)), append(init, 0)
		}
	}
	for _, id := range faulty {
		src, init = append(src, id), append(init, 1)
	}
	g.toErr = g.distances(src, init)
	g.toKind = map[vm.FaultKind][]int32{}
	for _, k := range []vm.FaultKind{vm.FaultAssertion, vm.FaultException, vm.FaultInvariant, vm.FaultDeadlock} {
		var src, init []int32
		for id, e := range g.isErr {
			if e && errKind[int32(id)] == k {
				src, init = append(src, int32(id)), append(init, 0)
			}
		}
		for i, id := range faulty {
			if faultKind[i] == k {
				src, init = append(src, id), append(init, 1)
			}
		}
		g.toKind[k] = g.distances(src, init)
	}
	first := func(order explorer.Order) ([]vm.Trans, bool) {
		m, _ := vm.New(p, vo)
		res := explorer.Search(m, explorer.Options{Order: order, MaxStates: maxStates})
		if res.Fault == nil {
			return nil, false
		}
		_, f, _ := explorer.Replay(m, res.Path)
		return res.Path, f != nil && f.Kind != vm.FaultDeadlock && f.Kind != vm.FaultInvariant
	}
	g.path, g.fault = first(explorer.BFS)
	g.dfs, g.dfsEnd = first(explorer.DFS)
	return g
}

// distances returns each state's distance to the nearest of sources
// (source k at distance init[k], 0 or 1), by a backward breadth-first
// search; -1 where none is reachable.
func (g *graph) distances(sources, init []int32) []int32 {
	d := make([]int32, len(g.fp))
	for i := range d {
		d[i] = -1
	}
	var q []int32
	for _, want := range []int32{0, 1} {
		for k, s := range sources {
			if init[k] == want && d[s] < 0 {
				d[s] = want
				q = append(q, s)
			}
		}
	}
	for len(q) > 0 {
		s := q[0]
		q = q[1:]
		for _, u := range g.pred[s] {
			if d[u] < 0 {
				d[u] = d[s] + 1
				q = append(q, u)
			}
		}
	}
	return d
}

// load puts state id into m, by replaying its breadth-first tree path.
func (g *graph) load(t *testing.T, m *vm.Machine, id int32) {
	t.Helper()
	var path []vm.Trans
	for s := id; g.parent[s] >= 0; s = g.parent[s] {
		path = append(path, g.via[s])
	}
	m.Init()
	for i := len(path) - 1; i >= 0; i-- {
		if f := m.Step(path[i]); f != nil {
			t.Fatalf("the path to state %d faults: %v", id, f)
		}
	}
	if fp := m.EncodeFingerprint(); fp != g.fp[id] {
		t.Fatalf("state %d replays to fingerprint %016x, want %016x", id, fp, g.fp[id])
	}
}

// targetOf returns the encoding of the state path leads to (without a
// last transition that faults, which reaches no state), and its id.
func (g *graph) targetOf(t *testing.T, m *vm.Machine, path []vm.Trans, faults bool) ([]byte, int32) {
	t.Helper()
	if faults {
		path = path[:len(path)-1]
	}
	if _, f, err := explorer.Replay(m, path); err != nil || f != nil && f.Kind != vm.FaultDeadlock && f.Kind != vm.FaultInvariant {
		t.Fatalf("the trail replays with %v, %v", f, err)
	}
	enc := m.Encode(nil)
	fp := m.Fingerprint()
	for id, x := range g.fp {
		if x == fp {
			return enc, int32(id)
		}
	}
	t.Fatal("the trail's last state is not in the graph")
	return nil, 0
}

// heurProgram is a program the heuristics' tests run on.
type heurProgram struct {
	name string
	prog *bytecode.Program
}

// heurPrograms returns generated programs (n of each generator), the
// conformance programs, testdata/heuristic and small benchmark models.
func heurPrograms(t *testing.T, n int) []heurProgram {
	t.Helper()
	var out []heurProgram
	handlers := func(seed uint64) string { return progen.GenerateWith(seed, progen.Options{Handlers: true}) }
	for _, gen := range []struct {
		name string
		f    func(uint64) string
	}{{"base", progen.Generate}, {"por", progen.GeneratePOR}, {"handlers", handlers}} {
		for seed := uint64(1); seed <= uint64(n); seed++ {
			p, err := asm.Assemble("gen.mcasm", []byte(gen.f(seed)), asm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, heurProgram{fmt.Sprintf("%s%d", gen.name, seed), p})
		}
	}
	for _, md := range smallModels(t) {
		out = append(out, heurProgram{md.path, md.prog})
	}
	// Threads that compute their paths (the deadlock heuristic runs them
	// ahead), with the figures of its EXPECT line.
	const ahead = "testdata/heuristic/ahead.mcasm"
	want, p := loadExpect(t, ahead)
	m, err := vm.New(p, vm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkFigures(t, ahead, explorer.Search(m, explorer.Options{Continue: true}).Stats, want)
	out = append(out, heurProgram{ahead, p})
	for _, md := range []struct {
		path string
		defs map[string]int64
	}{
		{"../benchmarks/models/diningphil.mcasm", map[string]int64{"N": 3}},
		{"../benchmarks/models/raytracer.mcasm", map[string]int64{"THREADS": 2, "SIZE": 1, "GRID": 1, "LIGHTS": 1, "MAXLEVEL": 0}},
		{"../benchmarks/models/boundedbuffer.mcasm", map[string]int64{"SIZE": 1, "PRODUCERS": 1, "CONSUMERS": 2, "ITEMS": 2}},
		{"../benchmarks/models/nestedmonitor.mcasm", map[string]int64{"SIZE": 1, "PRODUCERS": 1, "CONSUMERS": 2, "ITEMS": 1}},
		{"../benchmarks/models/sleepingbarber.mcasm", map[string]int64{"BARBERS": 1, "CUSTOMERS": 2, "CHAIRS": 1}},
	} {
		p, err := asm.AssembleFile(md.path, asm.Options{Defines: md.defs})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, heurProgram{md.path, p})
	}
	return out
}

// TestHeuristic_admissible checks each heuristic against true distances:
// on every state of a breadth-first exploration (generated programs, the
// conformance suite, small models; with and without escape analysis and
// dead variable reduction, and at instruction granularity), the estimate
// of one marked admissible is at most the state's distance to the nearest
// error (of its kind, for one that names a kind: the deadlock heuristic's
// to the nearest deadlock; also with uncaught exceptions ignored, which
// end threads instead of paths), or with a target to the target (the last state of BFS's and
// DFS's counterexamples, and other states). Distances come from a
// backward breadth-first search over the explored graph. A heuristic not
// marked admissible must overestimate somewhere, so that the mark is
// honest both ways.
func TestHeuristic_admissible(t *testing.T) {
	n := 12
	if testing.Short() {
		n = 4
	}
	over := map[string]int{}
	checked := map[string]int{}
	sumH, sumD := map[string]int64{}, map[string]int64{}
	for _, pr := range heurPrograms(t, n) {
		for _, vo := range []vm.Options{{}, {Escape: true, DeadLocals: true}, {Granularity: vm.GranInstruction}, {IgnoreUncaught: true}} {
			g := exploreGraph(t, pr.prog, vo, 20000)
			if g == nil {
				continue
			}
			m, err := vm.New(pr.prog, vo)
			if err != nil {
				t.Fatal(err)
			}
			// What to measure against: the nearest error, and targets.
			type check struct {
				name string
				h    explorer.Heuristic
				dist []int32
				adm  bool
			}
			var checks []check
			hs := func(target []byte, dist []int32, what string) {
				for _, info := range explorer.Heuristics {
					if target == nil && info.Target == explorer.TargetRequired || target != nil && info.Target == explorer.TargetNone {
						continue
					}
					h, err := explorer.NewHeuristic(info.Name, m, target)
					if err != nil {
						t.Fatal(err)
					}
					adm := admissible(info, target != nil)
					d := dist
					if target == nil && info.Kind != vm.FaultNone {
						d = g.toKind[info.Kind] // its estimate is of the distance to that kind
					}
					checks = append(checks, check{info.Name + what, h, d, adm})
				}
			}
			hs(nil, g.toErr, "")
			targets := map[int32][]byte{}
			if g.path != nil {
				enc, id := g.targetOf(t, m, g.path, g.fault)
				targets[id] = enc
				enc, id = g.targetOf(t, m, g.dfs, g.dfsEnd)
				targets[id] = enc
			}
			for _, id := range []int32{int32(len(g.fp) - 1), int32(len(g.fp) / 2)} {
				g.load(t, m, id)
				targets[id] = m.Encode(nil)
			}
			for id, enc := range targets {
				hs(enc, g.distances([]int32{id}, []int32{0}), "/target")
			}
			var buf []vm.Trans
			for id := range int32(len(g.fp)) {
				if g.isErr[id] {
					continue
				}
				g.load(t, m, id)
				buf = m.Enabled(buf[:0])
				for _, c := range checks {
					d := c.dist[id]
					if d < 0 {
						continue
					}
					checked[c.name]++
					h := max(c.h.Estimate(m, buf), 0)
					sumH[c.name] += int64(min(h, 1000))
					sumD[c.name] += int64(d)
					if h <= d {
						continue
					}
					if over[c.name] == 0 || c.adm {
						t.Logf("%s, %+v: %s estimates %d for state %d, %d transitions from it", pr.name, vo, c.name, h, id, d)
					}
					over[c.name]++
					if c.adm {
						t.Errorf("%s, %+v: %s, marked admissible, estimates %d for state %d, %d transitions from it", pr.name, vo, c.name, h, id, d)
					}
				}
			}
		}
	}
	for _, info := range explorer.Heuristics {
		for _, name := range []string{info.Name, info.Name + "/target"} {
			adm := admissible(info, name != info.Name)
			if checked[name] == 0 {
				continue
			}
			t.Logf("%s: %d estimates checked, %d over the distance; mean estimate %.2f (capped at 1000), mean distance %.2f",
				name, checked[name], over[name], float64(sumH[name])/float64(checked[name]), float64(sumD[name])/float64(checked[name]))
			if !adm && over[name] == 0 {
				t.Errorf("%s is marked not admissible, but never overestimated in %d states", name, checked[name])
			}
		}
	}
	if checked["fsm/target"] == 0 {
		t.Error("fsm with a target was never checked")
	}
}

// admissible reports whether info's heuristic is admissible with or
// without a target: HeuristicSpec.Admissible holds with a target for a
// heuristic that takes one.
func admissible(info explorer.HeuristicSpec, withTarget bool) bool {
	return info.Admissible && (withTarget || info.Target == explorer.TargetNone)
}

// TestHeuristic_aStarShortest checks that A* with fsm, aimed at the last
// state of BFS's counterexample, returns a counterexample as short as
// BFS's: fsm's estimate is admissible for that state, which is one of the
// nearest errors (or one transition before one).
func TestHeuristic_aStarShortest(t *testing.T) {
	n := 12
	if testing.Short() {
		n = 4
	}
	compared := 0
	for _, pr := range heurPrograms(t, n) {
		for _, vo := range []vm.Options{{}, {Escape: true, DeadLocals: true}} {
			m, err := vm.New(pr.prog, vo)
			if err != nil {
				t.Fatal(err)
			}
			bfs := explorer.Search(m, explorer.Options{Order: explorer.BFS, MaxStates: 100000})
			if bfs.Fault == nil {
				continue
			}
			path := bfs.Path
			if _, f, _ := explorer.Replay(m, path); f != nil && f.Kind != vm.FaultDeadlock && f.Kind != vm.FaultInvariant {
				path = path[:len(path)-1]
			}
			explorer.Replay(m, path)
			h, err := explorer.NewHeuristic("fsm", m, m.Encode(nil))
			if err != nil {
				t.Fatal(err)
			}
			res := explorer.Search(m, explorer.Options{Order: explorer.AStar, Heuristic: h, MaxStates: 100000})
			compared++
			if res.Fault == nil || len(res.Path) != len(bfs.Path) {
				t.Errorf("%s, %+v: A* with fsm finds %v after %d transitions, BFS %v after %d", pr.name, vo,
					res.Fault, len(res.Path), bfs.Fault.Kind, len(bfs.Path))
			}
		}
	}
	if compared == 0 {
		t.Error("no program with an error")
	}
}

// TestHeuristic_aStarKind checks A* with the heuristics admissible for
// one kind of error (deadlock): aimed at that kind only (Options.Goal) it
// returns a path as short as breadth-first search's to that kind, and
// looking for every error one no longer, with and without escape
// analysis.
func TestHeuristic_aStarKind(t *testing.T) {
	n := 12
	if testing.Short() {
		n = 4
	}
	compared := 0
	for _, pr := range heurPrograms(t, n) {
		for _, vo := range []vm.Options{{}, {Escape: true, DeadLocals: true}} {
			for _, info := range explorer.Heuristics {
				if info.Kind == vm.FaultNone || !info.Admissible {
					continue
				}
				m, err := vm.New(pr.prog, vo)
				if err != nil {
					t.Fatal(err)
				}
				kind := func(f *vm.Fault, _ []byte) bool { return f.Kind == info.Kind }
				bfs := explorer.Search(m, explorer.Options{Order: explorer.BFS, Goal: kind, MaxStates: 100000})
				if bfs.Fault == nil {
					continue
				}
				h, err := explorer.NewHeuristic(info.Name, m, nil)
				if err != nil {
					t.Fatal(err)
				}
				compared++
				res := explorer.Search(m, explorer.Options{Order: explorer.AStar, Heuristic: h, Goal: kind, MaxStates: 100000})
				if res.Fault == nil || len(res.Path) != len(bfs.Path) {
					t.Errorf("%s, %+v: A* with %s to a %s: %v after %d transitions, BFS after %d", pr.name, vo, info.Name, info.Kind,
						res.Fault, len(res.Path), len(bfs.Path))
				}
				any := explorer.Search(m, explorer.Options{Order: explorer.AStar, Heuristic: h, MaxStates: 100000})
				if any.Fault == nil || len(any.Path) > len(bfs.Path) {
					t.Errorf("%s, %+v: A* with %s: %v after %d transitions, more than to the nearest %s (%d)", pr.name, vo, info.Name,
						any.Fault, len(any.Path), info.Kind, len(bfs.Path))
				}
			}
		}
	}
	if compared == 0 {
		t.Error("no program with an error of a heuristic's kind")
	}
	t.Logf("%d searches compared", compared)
}

// TestNewHeuristic_errors checks the errors of NewHeuristic.
func TestNewHeuristic_errors(t *testing.T) {
	m := mustMachine(t, progen.Generate(1))
	for _, c := range []struct {
		name   string
		target []byte
		want   error
	}{
		{"hamm", nil, explorer.ErrUnknownHeuristic},
		{"formula", nil, explorer.ErrUnknownHeuristic},
		{"hamming", nil, explorer.ErrNeedsTarget},
	} {
		if _, err := explorer.NewHeuristic(c.name, m, c.target); !errors.Is(err, c.want) {
			t.Errorf("NewHeuristic(%q, %x) = %v, want %v", c.name, c.target, err, c.want)
		}
	}
	for _, info := range explorer.Heuristics {
		if info.Doc == "" {
			t.Errorf("heuristic %q has no Doc", info.Name)
		}
		if _, err := explorer.NewHeuristic(info.Name, m, m.Encode(nil)); err != nil {
			t.Errorf("NewHeuristic(%q) with a target: %v", info.Name, err)
		}
	}
}

// TestHeuristic_Estimate_noAlloc checks that estimating does not allocate.
func TestHeuristic_Estimate_noAlloc(t *testing.T) {
	m := mustMachine(t, progen.GenerateWith(3, progen.Options{Handlers: true}))
	target := m.Encode(nil)
	tr := m.Enabled(nil)
	m.Step(tr[0])
	enabled := m.Enabled(nil)
	for _, info := range explorer.Heuristics {
		for _, tg := range [][]byte{nil, target} {
			h, err := explorer.NewHeuristic(info.Name, m, tg)
			if err != nil {
				continue
			}
			if a := testing.AllocsPerRun(100, func() { h.Estimate(m, enabled) }); a != 0 {
				t.Errorf("%s (target %v): Estimate allocates %v times", info.Name, tg != nil, a)
			}
		}
	}
}
