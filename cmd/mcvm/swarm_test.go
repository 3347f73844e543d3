package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"mcvm/internal/hll"
)

func swarmRun(t *testing.T, args ...string) (int, swarmReport) {
	t.Helper()
	t.Setenv("MCVM_TEST_AS_MAIN", "1") // the jobs run this test binary as mcvm
	code, out, stderr := runMain(append([]string{"swarm", "--json"}, args...)...)
	var rep swarmReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("swarm %v: exit %d, %v; stderr %s", args, code, err, stderr)
	}
	return code, rep
}

// A swarm finds the philosophers' deadlock, names the first job that
// found it, and its trail replays to it.
func TestSwarm_findsDeadlock(t *testing.T) {
	dir := t.TempDir()
	code, rep := swarmRun(t, "--jobs", "3", "--time-limit", "30s", "--dir", dir, "-D", "N=4", philo)
	if code != exitViolation || rep.Verdict != "deadlock" || rep.FirstError == nil || *rep.FirstError != 0 {
		t.Fatalf("swarm = exit %d, verdict %s, first error %v; want 1, deadlock, job 0", code, rep.Verdict, rep.FirstError)
	}
	if rep.Trail != filepath.Join(dir, "job-0.trail") {
		t.Fatalf("trail %q, want job-0.trail in %s", rep.Trail, dir)
	}
	for _, j := range rep.Jobs {
		if j.Verdict != "deadlock" || j.Trail == "" {
			t.Errorf("job %d: verdict %s, trail %q; want deadlock with a trail", j.Index, j.Verdict, j.Trail)
		}
	}
	if code, out, _ := runMain("replay", "-D", "N=4", rep.Trail, philo); code != exitViolation || !strings.Contains(out, "deadlock") {
		t.Errorf("replay of the swarm's trail: exit %d:\n%s", code, out)
	}
}

// On a model without errors every job finishes, and each counts the
// states the same search with the exact store does (the state space is
// far too small for the bitstate array to miss one).
func TestSwarm_ok(t *testing.T) {
	code, rep := swarmRun(t, "--jobs", "4", "--parallel", "2", "--time-limit", "30s", "-D", "N=3", philoOK)
	if code != exitOK || rep.Verdict != "ok" || len(rep.Jobs) != 4 {
		t.Fatalf("swarm = exit %d, verdict %s, %d jobs; want 0, ok, 4", code, rep.Verdict, len(rep.Jobs))
	}
	var sum int64
	for _, j := range rep.Jobs {
		// The same search with the exact store: the job's flags but the
		// bitstate seed, and without sleep sets, which need an exact store
		// and so do not apply to the job's.
		clean := []string{"check", "--json", "--continue", "--sleep=false", "-D", "N=3"}
		for i := 0; i < len(j.Args); i++ {
			if j.Args[i] == "--bitstate-seed" {
				i++
				continue
			}
			clean = append(clean, j.Args[i])
		}
		_, out, _ := runMain(append(clean, philoOK)...)
		var r report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if j.Verdict != "ok" || j.States != r.States || j.Transitions != r.Transitions {
			t.Errorf("job %d (%v): %s, %d states, %d transitions; exact store: %d, %d", j.Index, j.Args, j.Verdict, j.States, j.Transitions, r.States, r.Transitions)
		}
		sum += j.States
	}
	if rep.StatesSum != sum {
		t.Errorf("states_sum %d, want %d", rep.StatesSum, sum)
	}
	// Together the jobs stored the unreduced search's states (job 1's:
	// the reduced jobs' are among them): the sketches' estimate is
	// within four standard errors of their number.
	_, out, _ := runMain("check", "--json", "--continue", "--por", "none", "-D", "N=3", philoOK)
	var all report
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		t.Fatal(err)
	}
	if n := float64(all.States); rep.Sketches != 4 || math.Abs(rep.StatesDistinct-n) > 4*hll.StdError*n {
		t.Errorf("distinct states estimated %.0f from %d sketches; the unreduced search stores %.0f", rep.StatesDistinct, rep.Sketches, n)
	}
}

// check --sketch writes a sketch whose estimate is the number of states
// stored; it is not for --workers, and a file it cannot write is an error.
func TestCheck_sketch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.hll")
	code, out, _ := runMain("check", "--json", "--por", "none", "--sketch", path, "-D", "N=4", philoOK)
	var r report
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitOK {
		t.Fatalf("check --sketch: exit %d, %v", code, err)
	}
	data, err := os.ReadFile(path)
	var sk hll.Sketch
	if err == nil {
		err = sk.UnmarshalBinary(data)
	}
	if n := float64(r.States); err != nil || math.Abs(sk.Estimate()-n) > 4*hll.StdError*n {
		t.Errorf("sketch of %d states: %v, estimate %.0f", r.States, err, sk.Estimate())
	}
	if code, _, stderr := runMain("check", "--workers", "2", "--sketch", path, philoOK); code != exitUsage || !strings.Contains(stderr, "--sketch") {
		t.Errorf("--sketch with --workers: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runMain("check", "--sketch", filepath.Join(path, "no", "such"), philoOK); code == exitOK || !strings.Contains(stderr, "--sketch") {
		t.Errorf("--sketch to a path that cannot be written: exit %d, %s", code, stderr)
	}
}

// The jobs differ from each other, and the same seed gives the same jobs.
func TestSwarmDiversify(t *testing.T) {
	seen := map[string]int{}
	for i := range 16 {
		a := strings.Join(swarmDiversify(i, 7), " ")
		if j, ok := seen[a]; ok {
			t.Errorf("jobs %d and %d are the same search: %s", j, i, a)
		}
		seen[a] = i
		if !reflect.DeepEqual(swarmDiversify(i, 7), swarmDiversify(i, 7)) {
			t.Errorf("job %d: not deterministic", i)
		}
	}
}

func TestSwarm_usage(t *testing.T) {
	for _, args := range [][]string{
		{"swarm", "--jobs", "0", philo},
		{"swarm", "--time-limit", "0s", philo},
		{"swarm", philo, philoOK},
		{"swarm", "--define", "N", philo},
		{"check", "--bitstate-seed", "3", philo},
	} {
		if code, _, stderr := runMain(args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, exitUsage, stderr)
		}
	}
	if _, err := os.Stat(philo); err != nil {
		t.Fatal(err)
	}
}
