package main

// Soak and fault tests: long, so they run only with MCVM_SOAK=1 (not in
// CI's default run). MCVM_SOAK_ROUNDS sets the number of kills (default
// 24).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func soak(t *testing.T) {
	t.Helper()
	if os.Getenv("MCVM_SOAK") != "1" {
		t.Skip("a soak test: set MCVM_SOAK=1")
	}
}

// mcvmCmd is this test binary acting as mcvm (see TestMain), with extra
// environment variables.
func mcvmCmd(env []string, args ...string) *exec.Cmd {
	c := exec.Command(os.Args[0], args...)
	c.Env = append(append(os.Environ(), "MCVM_TEST_AS_MAIN=1"), env...)
	return c
}

// TestSoak_killedTask kills `certify --task` processes with SIGKILL at
// random points: the FP map's final name never holds a file other than
// the finished one, and after the killed task is run again merge-fp
// gives exactly what an undisturbed run gives.
func TestSoak_killedTask(t *testing.T) {
	soak(t)
	rounds := 24
	if n, err := strconv.Atoi(os.Getenv("MCVM_SOAK_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	const tasks = 4
	model := []string{"--por", "none", "-D", "N=6", philoOK}
	dir := t.TempDir()
	script := filepath.Join(dir, "s")
	if code, _, errs := runMain(append([]string{"verify", "--script", script}, model...)...); code != exitOK {
		t.Fatal(errs)
	}
	taskDir := filepath.Join(dir, "tasks")
	if code, out, errs := runMain("partition", "--tasks", strconv.Itoa(tasks), "--script", script, "-o", taskDir); code != exitOK {
		t.Fatalf("partition: %s%s", out, errs)
	}
	task := func(i int) string { return filepath.Join(taskDir, fmt.Sprintf("task-%d", i)) }

	// The undisturbed run, and how long each task takes.
	ref := make([]string, tasks)
	took := make([]time.Duration, tasks)
	for i := range tasks {
		ref[i] = filepath.Join(dir, fmt.Sprintf("ref-%d.fp", i+1))
		start := time.Now()
		if out, err := mcvmCmd(nil, append([]string{"certify", "--task", task(i + 1), "--fp-out", ref[i]}, model...)...).CombinedOutput(); err != nil {
			t.Fatalf("certify task %d: %v\n%s", i+1, err, out)
		}
		took[i] = time.Since(start)
	}
	code, want, errs := runMain(append([]string{"merge-fp"}, ref...)...)
	if code != exitOK {
		t.Fatalf("merge-fp: exit %d\n%s%s", code, want, errs)
	}

	rng := rand.New(rand.NewPCG(1, 2))
	killed := 0
	for r := range rounds {
		i := r % tasks
		fp := filepath.Join(dir, fmt.Sprintf("kill-%d.fp", r))
		args := append([]string{"certify", "--task", task(i + 1), "--fp-out", fp}, model...)
		c := mcvmCmd(nil, args...)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		// Half the kills fall anywhere, half near the end, where the
		// map is written.
		d := rng.Int64N(int64(took[i]) + 1)
		if r%2 == 1 {
			d = int64(took[i])*8/10 + rng.Int64N(int64(took[i])*3/10+1)
		}
		time.Sleep(time.Duration(d))
		if c.Process.Signal(syscall.SIGKILL) == nil {
			killed++
		}
		_ = c.Wait()
		// Under its final name there is nothing, or the whole map.
		if got, err := os.ReadFile(fp); err == nil {
			if w, _ := os.ReadFile(ref[i]); !bytes.Equal(got, w) {
				t.Fatalf("round %d: killed task %d left a partial FP map at %s (%d bytes, whole is %d)", r, i+1, fp, len(got), len(w))
			}
		}
		// Run it again, and merge it with the others' maps.
		if out, err := mcvmCmd(nil, args...).CombinedOutput(); err != nil {
			t.Fatalf("round %d: certify task %d again: %v\n%s", r, i+1, err, out)
		}
		maps := append([]string(nil), ref...)
		maps[i] = fp
		code, got, errs := runMain(append([]string{"merge-fp"}, maps...)...)
		if code != exitOK || got != want {
			t.Fatalf("round %d: merge-fp after a killed task %d: exit %d\n%s%s\nwant\n%s", r, i+1, code, got, errs, want)
		}
	}
	t.Logf("%d rounds, %d processes killed; tasks took %v", rounds, killed, took)
}

// TestSoak_determinism runs the same searches twice under GOMAXPROCS 1
// and 2: their scripts, trails and reported counts are byte-identical.
func TestSoak_determinism(t *testing.T) {
	soak(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"check-default", []string{"check", "--json", "--continue", "-D", "N=5", philo}},
		{"check-hash-compact", []string{"check", "--json", "--continue", "--por", "none", "--hash-compact", "-D", "N=5", philo}},
		{"check-bfs", []string{"check", "--json", "--search", "bfs", "-D", "N=5", philo}},
		{"check-astar", []string{"check", "--json", "--search", "astar", "--heuristic", "active", "-D", "N=5", philo}},
		{"check-collapse-symmetry", []string{"check", "--json", "--continue", "--collapse", "--symmetry", "-D", "N=5", philoOK}},
		{"check-trail", []string{"check", "--json", "--trail", "@out", "-D", "N=5", philo}},
		{"verify", []string{"verify", "--json", "--script", "@out", "-D", "N=5", philoOK}},
		{"verify-none", []string{"verify", "--json", "--por", "none", "--script", "@out", "-D", "N=4", philoOK}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var first []byte
			for _, procs := range []string{"1", "2", "1", "2"} {
				out := filepath.Join(t.TempDir(), "out")
				args := make([]string, len(tc.args))
				for i, a := range tc.args {
					args[i] = strings.ReplaceAll(a, "@out", out)
				}
				stdout, err := mcvmCmd([]string{"GOMAXPROCS=" + procs}, args...).Output()
				if e, ok := err.(*exec.ExitError); err != nil && !(ok && e.ExitCode() == exitViolation) {
					t.Fatalf("GOMAXPROCS=%s %v: %v", procs, args, err)
				}
				got := stableCounts(t, stdout)
				if b, err := os.ReadFile(out); err == nil {
					got = append(got, b...)
				}
				if first == nil {
					first = got
				} else if !bytes.Equal(got, first) {
					t.Fatalf("GOMAXPROCS=%s: output differs from the first run's", procs)
				}
			}
		})
	}
}

// stableCounts is a --json report without what depends on time, memory
// or paths.
func stableCounts(t *testing.T, report []byte) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(report, &m); err != nil {
		t.Fatalf("report: %v\n%s", err, report)
	}
	var strip func(map[string]any)
	strip = func(m map[string]any) {
		for k, v := range m {
			switch {
			case strings.Contains(k, "elapsed") || strings.Contains(k, "per_s") || strings.Contains(k, "per_state") ||
				strings.HasPrefix(k, "peak_") || k == "script" || k == "trail" || k == "model" || strings.Contains(k, "limit"):
				delete(m, k)
			default:
				if sub, ok := v.(map[string]any); ok {
					strip(sub)
				}
			}
		}
	}
	strip(m)
	b, err := json.Marshal(m) // map keys sorted
	if err != nil {
		t.Fatal(err)
	}
	return b
}
