// Partitions: for k in {1, 2, 10, 50, 100} the tasks together cover every state and transition (Theorems 3.2.1-3.2.2).

package scc_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/por"
	"mcvm/scc"
	"mcvm/vm"
)

type edge struct {
	from uint64
	tr   vm.Trans
	to   uint64
}

// graph is a reachability graph by fingerprints.
type graph struct {
	states map[uint64]bool
	edges  map[edge]bool
	// With hook: the fingerprints of the script's IDs, and the edges to
	// states not yet introduced, by the ID they reach.
	fpOf    map[int32]uint64
	pending map[int32][]edge
}

func newGraph() *graph {
	return &graph{states: map[uint64]bool{}, edges: map[edge]bool{}, fpOf: map[int32]uint64{}, pending: map[int32][]edge{}}
}

// searchGraph explores p completely and returns its graph.
func searchGraph(t testing.TB, p *bytecode.Program, g vm.Granularity) *graph {
	gr := newGraph()
	var fps []uint64
	opts := explorer.Options{Continue: true}
	opts.Listen(explorer.Funcs{
		OnState: func(id int32, fp uint64) { fps = append(fps, fp); gr.states[fp] = true },
		OnTransition: func(from int32, tr vm.Trans, _, _ int32, to int32, _ bool) {
			e := edge{from: fps[from], tr: tr}
			if to >= 0 {
				e.to = fps[to]
			}
			gr.edges[e] = true
		}})
	explorer.Search(machine(t, p, g), opts)
	return gr
}

// hook makes certification options add what they cover to gr. The
// certifier gives states by the script's IDs; a transition reported
// before the state it reaches is introduced waits for it. (The IDs of one
// script, or of its tasks, name the same states: a graph serves one.)
func (gr *graph) hook(o *scc.Options) {
	o.Listeners = append(o.Listeners, explorer.Funcs{
		OnState: func(id int32, fp uint64) {
			gr.states[fp] = true
			gr.fpOf[id] = fp
			for _, e := range gr.pending[id] {
				e.to = fp
				gr.edges[e] = true
			}
			delete(gr.pending, id)
		},
		OnTransition: func(from int32, tr vm.Trans, _, _ int32, to int32, _ bool) {
			e := edge{from: gr.fpOf[from], tr: tr}
			if fp, ok := gr.fpOf[to]; ok || to < 0 {
				e.to = fp
				gr.edges[e] = true
				return
			}
			gr.pending[to] = append(gr.pending[to], e)
		}})
}

// covers reports what of want gr lacks.
func (gr *graph) covers(want *graph) error {
	for s := range want.states {
		if !gr.states[s] {
			return fmt.Errorf("state %016x not covered (%d of %d states)", s, len(gr.states), len(want.states))
		}
	}
	for e := range want.edges {
		if !gr.edges[e] {
			return fmt.Errorf("transition %v not covered (%d of %d transitions)", e, len(gr.edges), len(want.edges))
		}
	}
	return nil
}

// certifyTasks certifies every task of a partition, adding what they cover
// to gr, and merges their FP maps.
func certifyTasks(t testing.TB, p *bytecode.Program, g vm.Granularity, part *scc.Partition, gr *graph) (*scc.MergeResult, error) {
	var maps []*scc.FPMap
	for _, task := range part.Tasks {
		data := scc.Encode(task)
		s, err := scc.Read(data)
		if err != nil {
			return nil, err
		}
		var o scc.Options
		o.Continue = true
		if gr != nil {
			gr.hook(&o)
		}
		res, err := scc.Certify(machine(t, p, g), s, o)
		if err != nil {
			return nil, fmt.Errorf("task %d: %w", task.Task, err)
		}
		fm, err := scc.ReadFPMap(scc.EncodeFPMap(res.FP))
		if err != nil {
			return nil, err
		}
		maps = append(maps, fm)
	}
	return scc.Merge(maps)
}

func TestSplit_covers(t *testing.T) {
	var paths []string
	for _, name := range []string{"counter_race", "peterson", "prodcons", "notify_choice", "invariant_violated", "deadlock_locks", "join"} {
		paths = append(paths, filepath.Join(conformanceDir, name+".mcasm"))
	}
	type model struct {
		path string
		defs map[string]int64
	}
	var models []model
	for _, p := range paths {
		models = append(models, model{p, nil})
	}
	if !testing.Short() {
		models = append(models, model{filepath.Join(modelsDir, "diningphil.mcasm"), map[string]int64{"N": 2}})
	}
	for _, mod := range models {
		p := assemble(t, mod.path, mod.defs)
		g := vm.GranInstruction
		want := searchGraph(t, p, g)
		for _, trustful := range []bool{false, true} {
			v, data := verify(t, p, g, true, trustful)
			s, err := scc.Read(data)
			if err != nil {
				t.Fatal(err)
			}
			whole, err := certify(t, p, g, data, scc.Options{Continue: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range []int{1, 2, 10, 50, 100} {
				name := fmt.Sprintf("model=%s/trustful=%v/k=%d", filepath.Base(mod.path), trustful, k)
				part, err := scc.Split(s, k)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				var total int64
				for _, n := range part.Sizes {
					total += n
				}
				if part.Least > 0 && slices.Max(part.Sizes) < part.Least {
					t.Errorf("%s: Least %d, but the tasks' largest is %d", name, part.Least, slices.Max(part.Sizes))
				}
				if !trustful && total != v.Stats.Transitions {
					t.Errorf("%s: tasks hold %d transitions, the script %d", name, total, v.Stats.Transitions)
				}
				gr := newGraph()
				mr, err := certifyTasks(t, p, g, part, gr)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if mr.States != v.Stats.States || (!trustful && mr.Transitions != v.Stats.Transitions) || mr.Errors != v.Stats.Errors {
					t.Errorf("%s: merged states=%d transitions=%d errors=%d, verify %d %d %d", name, mr.States, mr.Transitions, mr.Errors, v.Stats.States, v.Stats.Transitions, v.Stats.Errors)
				}
				if trustful && mr.Transitions != whole.Stats.Transitions {
					t.Errorf("%s: merged transitions=%d, the whole trustful script's %d", name, mr.Transitions, whole.Stats.Transitions)
				}
				if trustful {
					if len(gr.states) != len(want.states) {
						t.Errorf("%s: tasks cover %d states, want %d", name, len(gr.states), len(want.states))
					}
					continue
				}
				if err := gr.covers(want); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
		}
	}
}

// TestSplit_viewMatchesFile certifies each task twice, as Split made it
// (entries decoded from ranges of the whole script, starting at its sync
// points) and as written to a file and read back: the FP maps must be
// identical. The script has about 128,000 entries, so seven sync points.
func TestSplit_viewMatchesFile(t *testing.T) {
	p := assemble(t, filepath.Join(modelsDir, "philo_ok.mcasm"), map[string]int64{"N": 6})
	g := vm.GranTransition
	for _, trustful := range []bool{false, true} {
		_, data := verify(t, p, g, true, trustful)
		s, err := scc.Read(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{1, 2, 7, 50} {
			part, err := scc.Split(s, k)
			if err != nil {
				t.Fatal(err)
			}
			files := make([]*scc.Result, len(part.Tasks))
			for i, task := range part.Tasks {
				name := fmt.Sprintf("trustful=%v/k=%d/task=%d", trustful, k, i+1)
				view, err := scc.Certify(machine(t, p, g), task, scc.Options{})
				if err != nil {
					t.Fatalf("%s: view: %v", name, err)
				}
				ts, err := scc.Read(scc.Encode(task))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				file, err := scc.Certify(machine(t, p, g), ts, scc.Options{})
				if err != nil {
					t.Fatalf("%s: file: %v", name, err)
				}
				if a, b := scc.EncodeFPMap(view.FP), scc.EncodeFPMap(file.FP); string(a) != string(b) {
					t.Errorf("%s: FP map of the task as split (%d bytes, %d IDs) differs from the one of the task as written (%d bytes, %d IDs)", name, len(a), len(view.FP.IDs), len(b), len(file.FP.IDs))
				}
				if view.Entries != file.Entries || view.Stats.Transitions != file.Stats.Transitions {
					t.Errorf("%s: entries %d, transitions %d as split; %d, %d as written", name, view.Entries, view.Stats.Transitions, file.Entries, file.Stats.Transitions)
				}
				files[i] = file
			}
			// With the init paths replayed once for all the tasks, each
			// task certifies the same.
			if err := part.Prepare(machine(t, p, g), scc.Options{}); err != nil {
				t.Fatalf("trustful=%v/k=%d: Prepare: %v", trustful, k, err)
			}
			for i, task := range part.Tasks {
				name := fmt.Sprintf("trustful=%v/k=%d/task=%d/prepared", trustful, k, i+1)
				res, err := scc.Certify(machine(t, p, g), task, scc.Options{})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if a, b := scc.EncodeFPMap(res.FP), scc.EncodeFPMap(files[i].FP); string(a) != string(b) {
					t.Errorf("%s: FP map (%d IDs) differs from the one of the task as written (%d IDs)", name, len(res.FP.IDs), len(files[i].FP.IDs))
				}
				if res.Entries != files[i].Entries || res.Stats.Transitions != files[i].Stats.Transitions || res.InitLen != files[i].InitLen {
					t.Errorf("%s: entries %d, transitions %d, init path %d; as written %d, %d, %d", name, res.Entries, res.Stats.Transitions, res.InitLen,
						files[i].Entries, files[i].Stats.Transitions, files[i].InitLen)
				}
			}
		}
	}
}

// TestSplit_least splits the raytracer's reduced script at its thesis
// size, a spine of eleven legs of about 1,306 transitions each, into ten
// tasks: no ten regions can take less than two legs in one, which Split
// says (Partition.Least) and meets.
func TestSplit_least(t *testing.T) {
	if testing.Short() {
		t.Skip("verifies the raytracer at its thesis size")
	}
	p := assemble(t, filepath.Join(modelsDir, "raytracer.mcasm"), nil)
	r := reduction{por.All, "all/stack", true}
	_, _, data := r.verify(t, p, vm.GranTransition, true, false)
	s, part := readSplit(t, data, 10)
	if got := slices.Max(part.Sizes); part.Least != 2612 || got != part.Least {
		t.Errorf("Split(raytracer, 10): largest task %d, Least %d; want both 2612 (two legs)", got, part.Least)
	}
	if part, err := scc.Split(s, 11); err != nil || slices.Max(part.Sizes) > 1400 {
		t.Errorf("Split(raytracer, 11): sizes %v (%v); want every task within one leg and a bit", part.Sizes, err)
	}
}

// readSplit reads an encoded script and splits it into k tasks.
func readSplit(t testing.TB, data []byte, k int) (*scc.Script, *scc.Partition) {
	t.Helper()
	s, err := scc.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	part, err := scc.Split(s, k)
	if err != nil {
		t.Fatal(err)
	}
	return s, part
}
