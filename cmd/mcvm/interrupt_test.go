package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const interruptModel = "testdata/interrupt.mcasm"

// signalled runs mcvm (this test binary acting as it) with args, sends it
// sig once ready processes (it, and the children of bench) catch signals,
// and returns its exit code and output.
func signalled(t *testing.T, sig syscall.Signal, ready int, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	readyFile := filepath.Join(t.TempDir(), "ready")
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "MCVM_TEST_AS_MAIN=1", "MCVM_TEST_READY="+readyFile)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		data, _ := os.ReadFile(readyFile)
		if strings.Count(string(data), "ready\n") >= ready {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("mcvm %s: not ready after a minute\n%s%s", strings.Join(args, " "), o.String(), e.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(time.Minute):
			cmd.Process.Kill() // the interrupt did not stop it
		}
	}()
	cmd.Wait()
	close(done)
	return cmd.ProcessState.ExitCode(), o.String(), e.String()
}

// TestInterrupt_signals sends SIGINT and SIGTERM to check, verify,
// certify and bench in child processes: each stops, reports the part
// explored with the verdict limit ("interrupted"), or the error it found
// first, whose trail it writes; verify writes the script of the part
// searched, which certifies with verdict limit.
func TestInterrupt_signals(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	dir := t.TempDir()
	t.Run("cmd=check", func(t *testing.T) {
		code, out, errs := signalled(t, syscall.SIGINT, 1, "check", "--por", "none", "--continue", "--json", "-D", "N=9", philoOK)
		var r struct {
			Verdict, Limit string
			States         int64
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitLimit || r.Verdict != "limit" || r.Limit != "interrupted" ||
			!strings.Contains(errs, "SIGINT: stopping") {
			t.Errorf("check interrupted: exit %d (want %d), %+v, json error %v\n%s%s", code, exitLimit, r, err, out, errs)
		}
	})
	t.Run("cmd=check/error-first", func(t *testing.T) {
		trail := filepath.Join(dir, "early.trail")
		code, out, errs := signalled(t, syscall.SIGTERM, 1, "check", "--por", "none", "--continue", "--trail", trail, interruptModel)
		if code != exitViolation || !strings.Contains(out, "verdict:     assertion (then an interrupt stopped the search") {
			t.Errorf("check interrupted after an error: exit %d (want %d)\n%s%s", code, exitViolation, out, errs)
		}
		if code, out, _ := runMain("replay", trail, interruptModel); code != exitViolation || !strings.Contains(out, "early") {
			t.Errorf("replay of the trail written when interrupted: exit %d\n%s", code, out)
		}
	})
	t.Run("cmd=verify", func(t *testing.T) {
		script := filepath.Join(dir, "philo.scc")
		code, out, errs := signalled(t, syscall.SIGINT, 1, "verify", "--por", "none", "--script", script, "-D", "N=9", philoOK)
		if code != exitLimit || !strings.Contains(out, "verdict:     limit (interrupted") || !strings.Contains(out, "the part searched before the limit") {
			t.Errorf("verify interrupted: exit %d (want %d)\n%s%s", code, exitLimit, out, errs)
		}
		code, out, errs = runMain("certify", "--por", "none", "--script", script, "-D", "N=9", philoOK)
		if code != exitLimit || !strings.Contains(out, "the part it records was certified") || !strings.Contains(out, "recomputed about") || strings.Contains(out, "warning:") {
			t.Errorf("certify of the interrupted search's script: exit %d (want %d)\n%s%s", code, exitLimit, out, errs)
		}
	})
	t.Run("cmd=certify", func(t *testing.T) {
		// Long enough to be running when interrupts are caught (catchDelay).
		script := filepath.Join(dir, "philo8.scc")
		if code, out, errs := runMain("verify", "--por", "none", "--script", script, "-D", "N=8", philoOK); code != exitOK {
			t.Fatalf("verify: exit %d\n%s%s", code, out, errs)
		}
		for _, extra := range [][]string{nil, {"--tasks", "4", "--jobs", "2"}} {
			args := append([]string{"certify", "--por", "none", "--script", script, "-D", "N=8"}, extra...)
			code, out, errs := signalled(t, syscall.SIGTERM, 1, append(args, philoOK)...)
			if code != exitLimit || !strings.Contains(out, "verdict:     limit (interrupted") {
				t.Errorf("certify %s interrupted: exit %d (want %d)\n%s%s", strings.Join(extra, " "), code, exitLimit, out, errs)
			}
		}
	})
	t.Run("cmd=run", func(t *testing.T) {
		code, out, errs := signalled(t, syscall.SIGINT, 1, "run", "--max-instructions", "0", "--time-limit", "0", spinModel)
		if code != exitLimit || !strings.Contains(errs, "instructions (interrupted)") {
			t.Errorf("run interrupted: exit %d (want %d)\n%s%s", code, exitLimit, out, errs)
		}
	})
	t.Run("cmd=bench", func(t *testing.T) {
		// Only bench is signalled: it passes the signal on to its child.
		code, out, errs := signalled(t, syscall.SIGTERM, 2, "bench", "--dir", "../../benchmarks/models", "--models", "philo_ok",
			"--set", "N=9", "--por", "none,all", "--format", "json")
		var r struct {
			Rows []struct{ Verdict, Limit string }
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitLimit || len(r.Rows) != 1 ||
			r.Rows[0].Verdict != "limit" || r.Rows[0].Limit != "interrupted" || !strings.Contains(errs, "interrupted after 1 of 2 runs") {
			t.Errorf("bench interrupted: exit %d (want %d), rows %+v, json error %v\n%s%s", code, exitLimit, r.Rows, err, out, errs)
		}
	})
	t.Run("cmd=swarm", func(t *testing.T) {
		// Only swarm is signalled: it passes the signal on to its jobs,
		// which report what they explored.
		code, out, errs := signalled(t, syscall.SIGINT, 3, "swarm", "--jobs", "3", "--parallel", "2", "--json", "--dir", dir,
			"-D", "PRODUCERS=3", "-D", "CONSUMERS=3", "../../benchmarks/models/boundedbuffer.mcasm")
		var r swarmReport
		err := json.Unmarshal([]byte(out), &r)
		if err != nil || code != exitLimit || r.Verdict != "limit" || len(r.Jobs) != 3 {
			t.Fatalf("swarm interrupted: exit %d (want %d), verdict %q, json error %v\n%s%s", code, exitLimit, r.Verdict, err, out, errs)
		}
		for _, j := range r.Jobs {
			if j.Verdict != "limit" || j.Limit != "interrupted" {
				t.Errorf("job %d: verdict %s, limit %q; want limit, interrupted", j.Index, j.Verdict, j.Limit)
			}
		}
	})
	if left, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestInterrupt_second checks that a second signal exits at once, with
// 128 plus the signal's number, and that the first only sets the flag.
func TestInterrupt_second(t *testing.T) {
	ch := make(chan os.Signal, 2)
	var stderr bytes.Buffer
	exited := make(chan int, 1)
	it := new(interrupt)
	ch <- syscall.SIGINT
	ch <- syscall.SIGTERM
	it.handle(ch, nil, &stderr, func(code int) { exited <- code })
	select {
	case code := <-exited:
		if code != 128+int(syscall.SIGTERM) || !it.interrupted() {
			t.Errorf("second signal: exit %d (want %d), flag %v", code, 128+int(syscall.SIGTERM), it.interrupted())
		}
	default:
		t.Errorf("second signal: no exit")
	}
	if got := stderr.String(); !strings.Contains(got, "SIGINT: stopping") || !strings.Contains(got, "SIGTERM again: exiting") {
		t.Errorf("messages = %q", got)
	}
}
