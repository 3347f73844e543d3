package main

import (
	"encoding/json"
	"testing"
)

// check --workers N explores what breadth-first search with the static
// proviso explores, depth-first (reporting no depth) and by levels (the
// same depth), and refuses what it cannot combine with.
func TestCheck_workers(t *testing.T) {
	counts := func(args ...string) (int, report) {
		t.Helper()
		code, out, stderr := runMain(append([]string{"check", "--json", "--continue"}, args...)...)
		var r report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("check %v: exit %d, %v: %s", args, code, err, stderr)
		}
		return code, r
	}
	for _, por := range []string{"none", "all"} {
		_, want := counts("--search", "bfs", "--proviso", "static", "--por", por, "-D", "N=4", philoOK)
		for _, w := range []string{"2", "3"} {
			for _, order := range []string{"dfs", "bfs"} {
				code, got := counts("--workers", w, "--search", order, "--por", por, "-D", "N=4", philoOK)
				depth := want.MaxDepth
				if order == "dfs" {
					depth = 0
				}
				if code != exitOK || got.States != want.States || got.Transitions != want.Transitions || got.MaxDepth != depth {
					t.Errorf("--workers %s --search %s --por %s: exit %d, %d states, %d transitions, depth %d; bfs: %d, %d, %d", w, order, por, code,
						got.States, got.Transitions, got.MaxDepth, want.States, want.Transitions, depth)
				}
			}
		}
	}
	code, got := counts("--workers", "2", "-D", "N=3", philo)
	if code != exitViolation || got.Verdict != "deadlock" || len(got.Trace) == 0 {
		t.Errorf("--workers 2 on the philosophers: exit %d, verdict %s, %d steps", code, got.Verdict, len(got.Trace))
	}
	for _, args := range [][]string{
		{"--workers", "0"},
		{"--workers", "2", "--search", "astar", "--heuristic", "deadlock"},
		{"--workers", "2", "--proviso", "stack"},
		{"--workers", "2", "--collapse"},
		{"--workers", "2", "--bitstate", "20"},
		{"--workers", "2", "--chain"},
		{"--workers", "2", "--max-depth", "5"},
		{"--workers", "2", "--cache", "100"},
	} {
		if code, _, stderr := runMain(append(append([]string{"check"}, args...), "-D", "N=3", philo)...); code != exitUsage {
			t.Errorf("check %v: exit %d, want %d (%s)", args, code, exitUsage, stderr)
		}
	}
}
