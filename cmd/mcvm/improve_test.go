package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mcvm/asm"
	"mcvm/explorer"
	"mcvm/vm"
)

// TestImprove_trails checks mcvm improve end to end on the dining
// philosophers' deadlock, found by depth-first search with and without
// partial-order reduction: A* with fsm (admissible) to the same state and
// to an equivalent one, and BFS, each write a trail no longer than the old
// one that replay accepts and that reaches a deadlock; the admissible
// searches give breadth-first search's length to that goal; BFS to any
// state with the same violation (a deadlock) gives one no longer; and
// --reorder keeps a deadlock, no shorter than that.
func TestImprove_trails(t *testing.T) {
	dir := t.TempDir()
	for _, por := range []string{"none", "all"} {
		trail := filepath.Join(dir, "dfs-"+por+".trail")
		if code, _, e := runMain("check", "-D", "N=4", "--por", por, "--trail", trail, philo); code != exitViolation {
			t.Fatalf("check --por %s: exit %d: %s", por, code, e)
		}
		lengths := map[string]int{}
		for _, c := range [][]string{
			{"--search", "astar"},
			{"--search", "bfs"},
			{"--search", "astar", "--equivalent"},
			{"--search", "bfs", "--equivalent"},
			{"--search", "bfs", "--violation"},
			{"--search", "best-first", "--heuristic", "hamming"},
			{"--reorder"},
		} {
			name := "por=" + por + "/" + strings.Join(c, " ")
			out := filepath.Join(dir, "new.trail")
			args := append([]string{"improve", "-D", "N=4", "--json", "--out", out}, c...)
			code, o, e := runMain(append(args, trail, philo)...)
			if code != exitOK {
				t.Errorf("%s: exit %d: %s%s", name, code, o, e)
				continue
			}
			var r improveReport
			if err := json.Unmarshal([]byte(o), &r); err != nil {
				t.Fatalf("%s: %v\n%s", name, err, o)
			}
			if r.NewLength > r.OldLength || r.NewLength == 0 {
				t.Errorf("%s: %d transitions, was %d", name, r.NewLength, r.OldLength)
			}
			if code, o, e := runMain("replay", "-D", "N=4", "--json", out, philo); code != exitViolation || !strings.Contains(o, `"verdict":"deadlock"`) {
				t.Errorf("%s: replay of the new trail: exit %d: %s%s", name, code, o, e)
			}
			lengths[strings.Join(c, " ")] = r.NewLength
			if c[0] == "--search" && c[1] != "best-first" && !r.Shortest {
				t.Errorf("%s: not reported a shortest", name)
			}
		}
		if a, b := lengths["--search astar"], lengths["--search bfs"]; a != b {
			t.Errorf("por=%s: A* to the same state: %d transitions, BFS %d", por, a, b)
		}
		if a, b := lengths["--search astar --equivalent"], lengths["--search bfs --equivalent"]; a != b || a > lengths["--search astar"] {
			t.Errorf("por=%s: A* to an equivalent state: %d transitions, BFS %d, same state %d", por, a, b, lengths["--search astar"])
		}
		if v, e, r := lengths["--search bfs --violation"], lengths["--search bfs --equivalent"], lengths["--reorder"]; v > e || v > r {
			t.Errorf("por=%s: BFS to the same violation: %d transitions, to an equivalent state %d, reordered %d", por, v, e, r)
		}
	}
}

// TestImprove_badInput checks improve's refusals.
func TestImprove_badInput(t *testing.T) {
	dir := t.TempDir()
	trail := filepath.Join(dir, "t.trail")
	if code, _, e := runMain("check", "-D", "N=3", "--trail", trail, philo); code != exitViolation {
		t.Fatalf("check: exit %d: %s", code, e)
	}
	for _, c := range [][]string{
		{"improve", "-D", "N=4", trail, philo},                        // another program
		{"improve", "-D", "N=3", "--search", "dfs", trail, philo},     // not a search it takes
		{"improve", "-D", "N=3", "--heuristic", "nope", trail, philo}, // unknown heuristic
		{"improve", "-D", "N=3", "--reorder", "--equivalent", trail, philo},
		{"improve", "-D", "N=3", "--reorder", "--violation", trail, philo},
		{"improve", "-D", "N=3", "--equivalent", "--violation", trail, philo},
		{"improve", "-D", "N=3", "--por", "dpor", trail, philo},
		{"improve", "-D", "N=3", filepath.Join(dir, "missing.trail"), philo},
	} {
		if code, _, e := runMain(c...); code != exitUsage || e == "" {
			t.Errorf("%v: exit %d, stderr %q; want a usage error", c, code, e)
		}
	}
}

// TestImprove_runTrail checks that a random simulation's trail (run
// --seed --trail) replays and improves to a shortest one.
func TestImprove_runTrail(t *testing.T) {
	dir := t.TempDir()
	trail := filepath.Join(dir, "run.trail")
	if code, _, e := runMain("run", "-D", "N=4", "--seed", "3", "--trail", trail, philo); code != exitViolation || !strings.Contains(e, "trail written") {
		t.Fatalf("run --seed --trail: exit %d: %s", code, e)
	}
	if code, o, e := runMain("replay", "-D", "N=4", trail, philo); code != exitViolation {
		t.Fatalf("replay: exit %d: %s%s", code, o, e)
	}
	out := filepath.Join(dir, "new.trail")
	code, o, e := runMain("improve", "-D", "N=4", "--json", "--out", out, trail, philo)
	var r improveReport
	if code != exitOK || json.Unmarshal([]byte(o), &r) != nil || !r.Shortest || r.NewLength > r.OldLength {
		t.Fatalf("improve: exit %d: %s%s", code, o, e)
	}
}

// wakeSrc: main starts two threads that wait on one monitor and notifies
// one, the second; only the second fails its assertion once woken.
const wakeSrc = `.class M
.static o ref
.method static waiter(k)
    getstatic M.o
    monitorenter
    getstatic M.o
    wait
    getstatic M.o
    monitorexit
    load k
    assert "the second waiter is not woken"
    return
.end
.method static main()
.locals a b
    new Object
    putstatic M.o
    push 1
    newthread M.waiter
    store a
    push 0
    newthread M.waiter
    store b
    load a
    start
    load b
    start
    getstatic M.o
    monitorenter
    getstatic M.o
    notify
    getstatic M.o
    monitorexit
    return
.end
`

// TestReorderTrail_wakes checks that --reorder names the thread a notify
// wakes by who it is, not by its place among the waiters: in a trail
// where both threads wait and main wakes the second (choice 1), the
// first thread's steps are not needed, and without them the second is
// the only waiter (choice 0).
func TestReorderTrail_wakes(t *testing.T) {
	p, err := asm.Assemble("wake.mcasm", []byte(wakeSrc), asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := vm.New(p, vm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m.Init()
	var path []vm.Trans
	var f *vm.Fault
	step := func(tr vm.Trans) {
		path = append(path, tr)
		if f = m.Step(tr); f != nil && f.Kind != vm.FaultAssertion {
			t.Fatalf("step %d: %v", len(path), f)
		}
	}
	status := func(tid int32) vm.Status {
		if int(tid) >= m.NumThreads() {
			return vm.StatusNew
		}
		return m.ThreadStatus(tid)
	}
	for status(1) == vm.StatusNew || status(2) == vm.StatusNew {
		step(vm.Trans{Thread: 0})
	}
	for _, tid := range []int32{1, 2} {
		for status(tid) != vm.StatusWaiting {
			step(vm.Trans{Thread: tid})
		}
	}
	for !notifies(m, 0) {
		step(vm.Trans{Thread: 0})
	}
	step(vm.Trans{Thread: 0, Choice: 1}) // wakes thread 2
	for status(0) != vm.StatusTerminated {
		step(vm.Trans{Thread: 0})
	}
	for f == nil {
		step(vm.Trans{Thread: 2})
	}
	if _, g, err := explorer.Replay(m, path); err != nil || g == nil || !sameViolation(f, g) {
		t.Fatalf("the trail %v replays to %v, %v; want %v", path, g, err, f)
	}
	got, _ := reorderTrail(m, path, f)
	for _, tr := range got {
		if tr.Thread == 1 {
			t.Fatalf("reordered %v (was %v): thread 1's steps kept", got, path)
		}
	}
	if _, g, err := explorer.Replay(m, got); err != nil || g == nil || !sameViolation(f, g) {
		t.Errorf("the reordered trail %v replays to %v, %v; want %v", got, g, err, f)
	}
}

// TestReorder_models checks --reorder on benchmark models with waits and
// notifications, with and without partial-order reduction: the new trail
// replays to the same violation, and is no longer than the old one nor
// shorter than BFS's to the same violation.
func TestReorder_models(t *testing.T) {
	dir := t.TempDir()
	for _, md := range []struct {
		path string
		defs []string
	}{
		{"../../benchmarks/models/boundedbuffer.mcasm", []string{"-D", "SIZE=1", "-D", "PRODUCERS=2", "-D", "CONSUMERS=2", "-D", "ITEMS=2"}},
		{"../../benchmarks/models/sleepingbarber.mcasm", []string{"-D", "BARBERS=1", "-D", "CUSTOMERS=2", "-D", "CHAIRS=1"}},
	} {
		for _, por := range []string{"none", "all"} {
			name := filepath.Base(md.path) + "/por=" + por
			trail, out := filepath.Join(dir, "t.trail"), filepath.Join(dir, "n.trail")
			if code, _, e := runMain(append(append([]string{"check", "--por", por, "--trail", trail}, md.defs...), md.path)...); code != exitViolation {
				t.Fatalf("%s: check: exit %d: %s", name, code, e)
			}
			lengths := map[string]int{}
			for _, mode := range [][]string{{"--reorder"}, {"--search", "bfs", "--violation"}} {
				args := append(append(append([]string{"improve", "--json", "--out", out}, mode...), md.defs...), trail, md.path)
				code, o, e := runMain(args...)
				var r improveReport
				if code != exitOK || json.Unmarshal([]byte(o), &r) != nil {
					t.Fatalf("%s %v: exit %d: %s%s", name, mode, code, o, e)
				}
				lengths[mode[0]] = r.NewLength
				if mode[0] == "--reorder" {
					if r.NewLength > r.OldLength {
						t.Errorf("%s: reordered to %d transitions, was %d", name, r.NewLength, r.OldLength)
					}
					if code, o, e := runMain(append(append([]string{"replay", "--json"}, md.defs...), out, md.path)...); code != exitViolation || !strings.Contains(o, `"verdict":"deadlock"`) {
						t.Errorf("%s: replay of the reordered trail: exit %d: %s%s", name, code, o, e)
					}
				}
			}
			if lengths["--reorder"] < lengths["--search"] {
				t.Errorf("%s: reordered to %d transitions, shorter than BFS's %d to the same violation", name, lengths["--reorder"], lengths["--search"])
			}
		}
	}
}

// TestReorder_subsequences measures how far dropping transitions can go:
// for the depth-first trails the benchmarks reorder under reduction
// (benchmarks/RESULTS.md, "Directed search"), it finds, by breadth-first
// search over the pairs of a state and a place in the trail, the
// shortest subsequence of the trail that reaches the same violation, and
// logs it with what --reorder finds. It takes some seconds a model, so it
// runs only with MCVM_SUBSEQUENCES=1.
func TestReorder_subsequences(t *testing.T) {
	if os.Getenv("MCVM_SUBSEQUENCES") == "" {
		t.Skip("set MCVM_SUBSEQUENCES=1 to run")
	}
	dir := t.TempDir()
	for _, md := range []struct {
		name string
		defs []string
	}{
		{"boundedbuffer", []string{"SIZE=1", "PRODUCERS=2", "CONSUMERS=2", "ITEMS=2"}},
		{"nestedmonitor", []string{"SIZE=2", "PRODUCERS=2", "CONSUMERS=2", "ITEMS=2"}},
		{"sleepingbarber", []string{"BARBERS=2", "CUSTOMERS=4", "CHAIRS=3"}},
		{"raytracer", []string{"THREADS=2", "SIZE=1", "GRID=1", "LIGHTS=1", "MAXLEVEL=0"}},
	} {
		model := "../../benchmarks/models/" + md.name + ".mcasm"
		var defs []string
		for _, d := range md.defs {
			defs = append(defs, "-D", d)
		}
		trail := filepath.Join(dir, md.name+".trail")
		if code, _, e := runMain(append(append([]string{"check", "--por", "all", "--trail", trail}, defs...), model)...); code != exitViolation {
			t.Fatalf("%s: check: exit %d: %s", md.name, code, e)
		}
		mf := modelFlags{defines: md.defs}
		tr, _, m, err := loadTrail(&mf, trail, model)
		if err != nil {
			t.Fatal(err)
		}
		f, _, err := errorState(m, tr.Path)
		if err != nil {
			t.Fatal(err)
		}
		reordered, _ := reorderTrail(m, tr.Path, f)
		n, states := shortestSubsequence(m, tr.Path, f)
		t.Logf("%s: trail %d, reordered %d, shortest subsequence %d (%d pairs of a state and a place)", md.name, len(tr.Path), len(reordered), n, states)
		if n > len(reordered) {
			t.Errorf("%s: the shortest subsequence (%d) is longer than the reordered trail (%d)", md.name, n, len(reordered))
		}
	}
}

// shortestSubsequence returns the length of the shortest subsequence of
// path that reaches violation f (sameViolation; a deadlock: any), and
// the pairs of a state and a place in path it visited.
func shortestSubsequence(m *vm.Machine, path []vm.Trans, f *vm.Fault) (int, int) {
	type node struct {
		enc  []byte
		next int // the first step of path still to take
	}
	m.Init()
	layer := []node{{m.Encode(nil), 0}}
	seen := map[string]bool{}
	var buf []vm.Trans
	for depth := 1; len(layer) > 0; depth++ {
		var next []node
		for _, nd := range layer {
			for j := nd.next; j < len(path); j++ {
				m.Decode(nd.enc)
				if buf = m.Enabled(buf[:0]); !slices.Contains(buf, path[j]) {
					continue
				}
				if g := m.Step(path[j]); g != nil {
					if sameViolation(f, g) {
						return depth, len(seen)
					}
					continue
				}
				if g := m.CheckInvariants(); g != nil {
					if sameViolation(f, g) {
						return depth, len(seen)
					}
					continue
				}
				if f.Kind == vm.FaultDeadlock && len(m.Enabled(buf[:0])) == 0 && m.Alive() {
					return depth, len(seen)
				}
				enc := m.Encode(nil)
				key := fmt.Sprintf("%d:%s", j+1, enc)
				if !seen[key] {
					seen[key] = true
					next = append(next, node{enc, j + 1})
				}
			}
		}
		layer = next
	}
	return -1, len(seen)
}
