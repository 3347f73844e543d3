package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// slurmCluster starts a single-node Slurm cluster for the test with
// benchmarks/slurm-local.sh and stops it when the test ends. Without
// Slurm, munge or root the test is skipped, unless MCVM_SLURM=require
// (which .ci/run sets, having installed them): then it fails.
func slurmCluster(t *testing.T) {
	t.Helper()
	t.Setenv("PATH", os.Getenv("PATH")+":/usr/sbin")
	missing := ""
	for _, p := range []string{"sbatch", "squeue", "slurmctld", "slurmd", "munged"} {
		if _, err := exec.LookPath(p); err != nil {
			missing = p + " not found (apt-get install slurm-wlm munge)"
		}
	}
	if os.Geteuid() != 0 {
		missing = "not root (the daemons run as root)"
	}
	if missing != "" {
		if os.Getenv("MCVM_SLURM") == "require" {
			t.Fatal(missing)
		}
		t.Skip(missing)
	}
	dir := filepath.Join(t.TempDir(), "cluster")
	script := "../../benchmarks/slurm-local.sh"
	if out, err := exec.Command("sh", script, "start", dir).CombinedOutput(); err != nil {
		exec.Command("sh", script, "stop", dir).Run()
		t.Fatalf("starting Slurm: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("sh", script, "stop", dir).Run() })
	t.Setenv("SLURM_CONF", filepath.Join(dir, "slurm.conf"))
}

// waitForText polls until the file at path holds want, for at most two
// minutes.
func waitForText(t *testing.T, path, want string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		data, _ := os.ReadFile(path)
		if strings.Contains(string(data), want) {
			return
		}
		if time.Now().After(deadline) {
			out, _ := exec.Command("squeue").CombinedOutput()
			t.Fatalf("%s: no %q after two minutes; squeue:\n%s", path, want, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestSwarm_slurm submits a swarm to a real Slurm cluster through
// sbatch (its job array and the dependent collection job) and checks that
// its report equals the swarm run on this machine.
func TestSwarm_slurm(t *testing.T) {
	slurmCluster(t)
	t.Setenv("MCVM_TEST_AS_MAIN", "1") // the jobs run this test binary as mcvm
	dir := filepath.Join(t.TempDir(), "swarm")
	flags := []string{"--jobs", "3", "--time-limit", "1m", "--memory-limit", "256MiB", "-D", "N=4", philo}
	if code, _, stderr := runMain(append([]string{"swarm", "--slurm", dir}, flags...)...); code != exitOK {
		t.Fatalf("swarm --slurm: exit %d: %s", code, stderr)
	}
	out, err := exec.Command("sh", filepath.Join(dir, "submit.sh")).CombinedOutput()
	if ids := strings.Fields(string(out)); err != nil || len(ids) != 2 {
		t.Fatalf("submit.sh: %v\n%s", err, out)
	}
	waitForText(t, filepath.Join(dir, "collect.txt"), "verdict:")
	code, got, _ := runMain("swarm", "--collect", "--json", dir)
	var remote swarmReport
	if err := json.Unmarshal([]byte(got), &remote); err != nil || code != exitViolation || remote.Verdict != "deadlock" {
		t.Fatalf("swarm --collect: exit %d, %v:\n%s", code, err, got)
	}
	_, rep := swarmRun(t, append([]string{"--dir", t.TempDir()}, flags...)...)
	if remote.Sketches != 3 || remote.StatesDistinct != rep.StatesDistinct {
		t.Errorf("on Slurm: %d sketches, %.0f distinct states; here: %d, %.0f", remote.Sketches, remote.StatesDistinct, rep.Sketches, rep.StatesDistinct)
	}
	for i, j := range rep.Jobs {
		r := remote.Jobs[i]
		if r.Verdict != j.Verdict || r.States != j.States || r.Transitions != j.Transitions || !reflect.DeepEqual(r.Args, j.Args) {
			t.Errorf("job %d on Slurm: %s %d states %d transitions %v; here: %s %d %d %v", i, r.Verdict, r.States, r.Transitions, r.Args,
				j.Verdict, j.States, j.Transitions, j.Args)
		}
	}
	if code, out, _ := runMain("replay", "-D", "N=4", remote.Trail, philo); code != exitViolation || !strings.Contains(out, "deadlock") {
		t.Errorf("replay of the Slurm swarm's trail: exit %d:\n%s", code, out)
	}
}

// TestCertify_slurm certifies a partitioned script on a real Slurm
// cluster (the job array of certify --task and the dependent merge-fp)
// and checks that its verdict and totals equal those of certify --tasks
// on this machine.
func TestCertify_slurm(t *testing.T) {
	slurmCluster(t)
	t.Setenv("MCVM_TEST_AS_MAIN", "1") // the jobs run this test binary as mcvm
	tmp := t.TempDir()
	script := filepath.Join(tmp, "philo_ok.scc")
	if code, _, stderr := runMain("verify", "--script", script, "-D", "N=4", philoOK); code != exitOK {
		t.Fatalf("verify: exit %d: %s", code, stderr)
	}
	dir := filepath.Join(tmp, "tasks")
	if code, _, stderr := runMain("certify", "--slurm", dir, "--tasks", "3", "--script", script, "-D", "N=4", philoOK); code != exitOK {
		t.Fatalf("certify --slurm: exit %d: %s", code, stderr)
	}
	if out, err := exec.Command("sh", filepath.Join(dir, "submit.sh")).CombinedOutput(); err != nil || len(strings.Fields(string(out))) != 2 {
		t.Fatalf("submit.sh: %v\n%s", err, out)
	}
	waitForText(t, filepath.Join(dir, "verdict.txt"), "verdict:")
	var fps []string
	for i := 1; i <= 3; i++ {
		fps = append(fps, filepath.Join(dir, "task-"+string(rune('0'+i))+".fp"))
	}
	code, got, stderr := runMain(append([]string{"merge-fp", "--json"}, fps...)...)
	var remote, local struct {
		Verdict                    string
		States, Transitions, Tasks int64
	}
	if err := json.Unmarshal([]byte(got), &remote); err != nil || code != exitOK || remote.Verdict != "ok" || remote.Tasks != 3 || remote.States == 0 {
		t.Fatalf("merge-fp of the Slurm tasks: exit %d, %v: %s%s", code, err, got, stderr)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "verdict.txt"))
	if !strings.Contains(string(data), "verdict:     ok") {
		t.Errorf("verdict.txt:\n%s", data)
	}
	code, got, stderr = runMain("certify", "--json", "--tasks", "3", "--script", script, "-D", "N=4", philoOK)
	if err := json.Unmarshal([]byte(got), &local); err != nil || code != exitOK {
		t.Fatalf("certify --tasks: exit %d, %v: %s", code, err, stderr)
	}
	if remote.States != local.States || remote.Transitions != local.Transitions {
		t.Errorf("on Slurm: %d states, %d transitions; here: %d, %d", remote.States, remote.Transitions, local.States, local.Transitions)
	}
}
