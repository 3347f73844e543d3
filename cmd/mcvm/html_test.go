package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// chromium returns the path of a headless-capable Chromium, or skips the
// test when there is none, unless MCVM_REQUIRE_CHROMIUM is set (.ci/run
// installs Chromium and sets it, so that CI runs the test).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("MCVM_REQUIRE_CHROMIUM") != "" {
		t.Fatal("no chromium, and MCVM_REQUIRE_CHROMIUM is set")
	}
	t.Skip("no chromium installed (.ci/run installs it)")
	return ""
}

// runChromium runs headless Chromium with args on the file page and
// returns its stdout.
func runChromium(t *testing.T, bin, page string, args ...string) []byte {
	t.Helper()
	// Chromium itself sometimes crashes on a loaded machine (a signal,
	// not an answer): up to three tries.
	for try := 1; ; try++ {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
			"--user-data-dir=" + filepath.Join(t.TempDir(), "profile")}, args...)
		cmd := exec.CommandContext(ctx, bin, append(all, "file://"+page)...)
		var out, errs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errs
		err := cmd.Run()
		cancel()
		var exit *exec.ExitError
		if err == nil {
			return out.Bytes()
		}
		if errors.As(err, &exit) && ctx.Err() == nil && try < 3 {
			if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				t.Logf("%s %v: %v; again", bin, args, err)
				continue
			}
		}
		t.Fatalf("%s %v: %v\n%s", bin, args, err, errs.String())
	}
}

// TestReport_html checks the HTML report without a browser: one
// self-contained file (no external scripts, styles or fonts) with a lane
// per thread, a box per step and a state panel per step.
func TestReport_html(t *testing.T) {
	page := filepath.Join(t.TempDir(), "philo.html")
	code, _, errs := runMain("check", "-q", "-D", "N=3", "--report", page, "../../benchmarks/models/philo.mcasm")
	if code != exitViolation {
		t.Fatalf("check --report: exit %d: %s", code, errs)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if n := strings.Count(s, `<g class="lane"`); n != 4 {
		t.Errorf("%d lanes, want 4 (threads 0 to 3)", n)
	}
	if n := strings.Count(s, `<g class="step`); n != 11 {
		t.Errorf("%d steps, want 11", n)
	}
	if n := strings.Count(s, `class="link waitfor"`); n != 3 {
		t.Errorf("%d wait-for edges, want the cycle's 3", n)
	}
	if n := strings.Count(s, `class="state"`); n != 11 {
		t.Errorf("%d state panels, want 11", n)
	}
	if regexp.MustCompile(`(src|href)="(https?:)?//`).MatchString(s) {
		t.Error("the report loads something from the network")
	}
	again := filepath.Join(t.TempDir(), "again.html")
	runMain("check", "-q", "-D", "N=3", "--report", again, "../../benchmarks/models/philo.mcasm")
	if b, _ := os.ReadFile(again); stripTimes(string(b)) != stripTimes(s) {
		t.Error("two reports of the same check differ")
	}
	// replay --report draws the same trace.
	trail := filepath.Join(t.TempDir(), "h.trail")
	runMain("check", "-q", "--trail", trail, "testdata/trace/handoff.mcasm")
	rpage := filepath.Join(t.TempDir(), "replay.html")
	if code, _, errs := runMain("replay", "-q", "--report", rpage, trail, "testdata/trace/handoff.mcasm"); code != exitViolation {
		t.Fatalf("replay --report: exit %d: %s", code, errs)
	}
	r, _ := os.ReadFile(rpage)
	for _, want := range []string{`class="link notify"`, `class="link start"`, `class="link join"`, `class="link value"`, `notify Box#1: wakes thread 1`} {
		if !strings.Contains(string(r), want) {
			t.Errorf("replay's report of handoff lacks %s", want)
		}
	}
}

// stripTimes drops the seconds a report gives, which differ between runs.
func stripTimes(s string) string {
	return regexp.MustCompile(`; [0-9.]+ s</p>`).ReplaceAllString(s, "")
}

// TestReport_browser opens a report in headless Chromium: its DOM after
// the script ran (--dump-dom) has the lanes and steps drawn and the last
// step selected with its state shown, and a screenshot is taken.
func TestReport_browser(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "philo.html")
	if code, _, errs := runMain("check", "-q", "-D", "N=3", "--report", page, "../../benchmarks/models/philo.mcasm"); code != exitViolation {
		t.Fatalf("check --report: exit %d: %s", code, errs)
	}
	dom := string(runChromium(t, bin, page, "--dump-dom"))
	if n := strings.Count(dom, `<g class="lane"`); n != 4 {
		t.Errorf("DOM: %d lanes, want 4", n)
	}
	if n := strings.Count(dom, `<g class="step`); n != 11 {
		t.Errorf("DOM: %d steps, want 11", n)
	}
	if !strings.Contains(dom, `class="step last selected"`) {
		t.Error("DOM: the script did not select the last step")
	}
	if n := strings.Count(dom, `<div class="state" id="state-11">`); n != 1 {
		t.Error("DOM: the error state's panel is not shown")
	}
	shot := filepath.Join(dir, "shot.png")
	runChromium(t, bin, page, "--screenshot="+shot, "--window-size=1400,700", "--hide-scrollbars")
	png, err := os.ReadFile(shot)
	if err != nil || len(png) < 1000 || string(png[1:4]) != "PNG" {
		t.Errorf("screenshot: %d bytes, %v", len(png), err)
	}
	if dst := os.Getenv("MCVM_REPORT_SCREENSHOT"); dst != "" {
		os.WriteFile(dst, png, 0o644)
	}
}
