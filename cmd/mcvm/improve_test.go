package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestImprove_trails checks mcvm improve end to end on the dining
// philosophers' deadlock, found by depth-first search with and without
// partial-order reduction: A* with fsm (admissible) to the same state and
// to an equivalent one, and BFS, each write a trail no longer than the old
// one that replay accepts and that reaches a deadlock; the admissible
// searches give breadth-first search's length to that goal; --reorder
// keeps a deadlock.
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
			if code, o, e := runMain("replay", "-D", "N=4", "--json", out, philo); code != exitViolation || !strings.Contains(o, `"verdict": "deadlock"`) {
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
