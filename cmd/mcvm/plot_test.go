package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"mcvm/explorer"
	"mcvm/internal/progress"
)

// buildPlotter builds mcvm-plot into a new directory and returns it.
func buildPlotter(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	build := exec.Command(goTool(t), "build", "-o", filepath.Join(dir, "mcvm-plot"), "mcvm/cmd/mcvm-plot")
	if msg, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build mcvm-plot: %v\n%s", err, msg)
	}
	return dir
}

// TestCheck_plot: check --plot refuses, before searching, a file that is
// neither .svg nor .png and a missing mcvm-plot; it draws the progress of
// a search a limit ended, with the estimate's caption and the levels of
// breadth-first search, of a complete search, as PNG, and of one that
// found an error, and leaves no temporary file behind.
func TestCheck_plot(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	for _, tc := range []struct{ file, want string }{
		{"p.pdf", "want a file ending in .svg or .png"},
		{"p", "want a file ending in .svg or .png"},
		{"p.svg", "go build -o DIR/mcvm-plot"},
	} {
		code, _, stderr := runMain("check", "-D", "N=3", "--plot", filepath.Join(dir, tc.file), philoOK)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("check --plot %s: exit %d, stderr %q; want %d and %q", tc.file, code, stderr, exitUsage, tc.want)
		}
	}
	t.Setenv("PATH", buildPlotter(t))
	for _, tc := range []struct {
		name, file string
		args       []string
		code       int
		want, omit []string
	}{
		{"limit", "limit.svg", []string{"-D", "N=4", "--por", "none", "--search", "bfs", "--max-states", "300", philoOK}, exitLimit,
			[]string{"</svg>", "estimate (levels): about", "states limit", "new states per breadth-first level"}, nil},
		{"complete", "ok.svg", []string{"-D", "N=3", philoOK}, exitOK, []string{"</svg>", ": ok"}, []string{"estimate", "breadth-first"}},
		{"png", "ok.PNG", []string{"-D", "N=3", philoOK}, exitOK, []string{"\x89PNG\r\n\x1a\n"}, nil},
		{"error", "deadlock.svg", []string{"-D", "N=3", philo}, exitViolation, []string{"</svg>", ": deadlock"}, nil},
	} {
		t.Run("search="+tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.file)
			code, _, stderr := runMain(append([]string{"check", "--plot", out}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tc.code, stderr)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.want {
				if !bytes.Contains(b, []byte(s)) {
					t.Errorf("the plot lacks %q", s)
				}
			}
			for _, s := range tc.omit {
				if bytes.Contains(b, []byte(s)) {
					t.Errorf("the plot has %q", s)
				}
			}
		})
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// TestProgressPlot_add: the recorder keeps its samples in order of time,
// at most maxPlotSamples of them, from the start to the latest report.
func TestProgressPlot_add(t *testing.T) {
	pp := &progressPlot{samples: make([]progress.Sample, 1)}
	const n = 5 * maxPlotSamples
	for i := 1; i <= n; i++ {
		pp.add(explorer.Stats{Elapsed: time.Duration(i) * plotEvery, States: int64(i)})
	}
	s := pp.samples
	if len(s) > maxPlotSamples || len(s) < maxPlotSamples/4 || s[0].States != 0 {
		t.Fatalf("%d samples from %d, the first %+v", len(s), n, s[0])
	}
	for i := 1; i < len(s); i++ {
		if s[i].ElapsedS <= s[i-1].ElapsedS || s[i].States <= s[i-1].States {
			t.Fatalf("samples %d and %d out of order: %+v, %+v", i-1, i, s[i-1], s[i])
		}
	}
	if last := s[len(s)-1].States; last < n-n/maxPlotSamples*8 {
		t.Errorf("the last sample is of %d states, want about %d", last, n)
	}
}

// TestProgressFunc_throttle: with --progress, a line is printed about
// every printEvery however often the search reports (check --plot has it
// report every plotEvery).
func TestProgressFunc_throttle(t *testing.T) {
	var b bytes.Buffer
	yes, no := true, false
	sf := searchFlags{progress: &yes, noProgress: &no}
	f := sf.progressFunc(&b)
	for ms := 100; ms <= 12_000; ms += 100 {
		f(explorer.Stats{Elapsed: time.Duration(ms) * time.Millisecond})
	}
	if n := strings.Count(b.String(), "\n"); n != 2 {
		t.Errorf("%d progress lines in 12 s of reports, want 2 (at 5 s and 10 s):\n%s", n, b.String())
	}
}

// TestInterrupt_plot: an interrupted check --plot writes its plot of the
// part explored, whole, with the coverage estimate of an interrupted
// search.
func TestInterrupt_plot(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	t.Setenv("PATH", buildPlotter(t))
	dir := t.TempDir()
	out := filepath.Join(dir, "p.svg")
	code, _, errs := signalled(t, syscall.SIGINT, 1, "check", "--plot", out, "--por", "none", "-D", "N=9", philoOK)
	b, err := os.ReadFile(out)
	if code != exitLimit || err != nil || !bytes.Contains(b, []byte("(interrupted limit)")) || !bytes.Contains(b, []byte("estimate (walk)")) {
		t.Errorf("check --plot interrupted: exit %d (want %d), plot %v, %d bytes\n%s", code, exitLimit, err, len(b), errs)
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}
