package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mcvm/scc"
)

const invOK = "../../testdata/conformance/invariant_ok.mcasm"

func TestVerifyCertify_workflow(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "philo.scc")
	trust := filepath.Join(dir, "philo.tscc")
	code, out, errs := runMain("verify", "-D", "N=3", "--script", script, philoOK)
	if code != exitOK || !strings.Contains(out, "script:") {
		t.Fatalf("verify: exit %d\n%s%s", code, out, errs)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"certify", "-D", "N=3", "--script", script, philoOK}, exitOK, "verdict:     ok"},
		{[]string{"certify", "-D", "N=3", "--forget", "--script", script, philoOK}, exitOK, "fp map:      peak"},
		{[]string{"certify", "-D", "N=3", "--tasks", "4", "--jobs", "2", "--script", script, philoOK}, exitOK, "tasks:       4 in 2 jobs"},
		{[]string{"certify", "-D", "N=4", "--script", script, philoOK}, exitUsage, "another program"},
		{[]string{"certify", "-D", "N=3", "--granularity", "instruction", "--script", script, philoOK}, exitUsage, "--granularity transition"},
		{[]string{"certify", "-D", "N=3", "--trustful", "--script", script, philoOK}, exitUsage, "drop --trustful"},
		{[]string{"certify", "-D", "N=3", philoOK}, exitUsage, "exactly one"},
		{[]string{"verify", "-D", "N=3", "--search", "bfs", "--script", script, philoOK}, exitUsage, "depth-first"},
		{[]string{"verify", "-D", "N=3", "--trustful-script", trust, philoOK}, exitOK, "trustful script"},
		{[]string{"certify", "-D", "N=3", "--trustful", "--script", trust, philoOK}, exitOK, "verdict:     ok"},
		{[]string{"certify", "-D", "N=3", "--script", trust, philoOK}, exitUsage, "with --trustful"},
		{[]string{"verify", "-D", "N=3", "--script", script, philo}, exitViolation, "deadlock"},
		{[]string{"certify", "-D", "N=3", "--script", script, philo}, exitViolation, "deadlock"},
		{[]string{"verify", "--help"}, exitOK, "Usage: mcvm verify"},
		{[]string{"certify", "--help"}, exitOK, "Usage: mcvm certify"},
		{[]string{"partition", "--help"}, exitOK, "Usage: mcvm partition"},
		{[]string{"merge-fp", "--help"}, exitOK, "Usage: mcvm merge-fp"},
	} {
		code, out, errs := runMain(tc.args...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("mcvm %s: exit %d (want %d), output lacks %q:\n%s%s", strings.Join(tc.args, " "), code, tc.code, tc.want, out, errs)
		}
	}
	// A damaged script is a discrepancy.
	data, _ := os.ReadFile(script)
	os.WriteFile(script, data[:len(data)-3], 0o644)
	if code, _, errs := runMain("certify", "-D", "N=3", "--script", script, philoOK); code != exitUsage || !strings.Contains(errs, "certification failed") {
		t.Errorf("certify with a truncated script: exit %d, %s", code, errs)
	}
}

// A script whose header claims another verdict than certification finds
// is reported; changing the header's bytes is a checksum mismatch.
func TestCertify_headerVerdict(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "philo.scc")
	if code, _, errs := runMain("verify", "-D", "N=3", "--script", script, philoOK); code != exitOK {
		t.Fatalf("verify: exit %d: %s", code, errs)
	}
	const warning = "warning:     the script's header claims the verdict deadlock"
	if code, out, _ := runMain("certify", "-D", "N=3", "--script", script, philoOK); code != exitOK || strings.Contains(out, "warning:") {
		t.Errorf("certify: exit %d, a warning:\n%s", code, out)
	}
	data := readFile(t, script)
	at := bytes.Index(data, []byte("\x02ok"))
	if at < 0 {
		t.Fatal("no verdict ok in the header")
	}
	bad := append([]byte(nil), data...)
	copy(bad[at+1:], "no")
	os.WriteFile(script, bad, 0o644)
	if code, _, errs := runMain("certify", "-D", "N=3", "--script", script, philoOK); code != exitUsage || !strings.Contains(errs, "checksum mismatch") {
		t.Errorf("certify with the header's verdict changed: exit %d, stderr %q", code, errs)
	}
	s, err := scc.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	s.Verdict = "deadlock"
	os.WriteFile(script, scc.Encode(s), 0o644)
	for _, extra := range [][]string{nil, {"--tasks", "2"}} {
		args := append([]string{"certify", "-D", "N=3", "--script", script, philoOK}, extra...)
		if code, out, _ := runMain(args...); code != exitOK || !strings.Contains(out, warning) {
			t.Errorf("mcvm %s: exit %d, want %d and %q:\n%s", strings.Join(args, " "), code, exitOK, warning, out)
		}
	}
	var r struct {
		Verdict string
		Script  struct {
			HeaderVerdict string `json:"header_verdict"`
		}
	}
	jsonOf(t, &r, "certify", "-D", "N=3", "--script", script, philoOK)
	if r.Verdict != "ok" || r.Script.HeaderVerdict != "deadlock" {
		t.Errorf("certify --json: verdict %q, header_verdict %q; want ok and deadlock", r.Verdict, r.Script.HeaderVerdict)
	}
}

func TestCertify_json(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s")
	if code, _, errs := runMain("verify", "--por", "none", "-D", "N=3", "--script", script, philoOK); code != exitOK {
		t.Fatal(errs)
	}
	code, out, _ := runMain("certify", "--por", "none", "--json", "--forget", "-D", "N=3", "--script", script, philoOK)
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var r struct {
		Verdict     string         `json:"verdict"`
		States      int64          `json:"states"`
		Transitions int64          `json:"transitions"`
		Script      map[string]any `json:"script"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Verdict != "ok" || r.States != 232 || r.Transitions != 651 {
		t.Errorf("certify --json = %+v, want ok 232 651", r)
	}
	for _, k := range []string{"entries", "bytes", "compression_ratio", "bytes_per_transition", "peak_fp_entries"} {
		if _, ok := r.Script[k]; !ok {
			t.Errorf("JSON script object lacks %q", k)
		}
	}
}

// TestCertify_gc: certify collects garbage in the states it enters, with
// the collector --gc names, as the search does: as many objects freed as
// verify reports.
func TestCertify_gc(t *testing.T) {
	const model = "../../testdata/conformance/arrays.mcasm"
	script := filepath.Join(t.TempDir(), "s")
	freed := func(args ...string) int64 {
		t.Helper()
		var r struct {
			Freed int64 `json:"freed_objects"`
		}
		jsonOf(t, &r, append(args, "--continue", "--script", script, model)...)
		return r.Freed
	}
	want := freed("verify")
	if want == 0 {
		t.Fatal("verify freed no objects: the model no longer makes garbage")
	}
	for _, gc := range []string{"mark-sweep", "memoised"} {
		if got := freed("certify", "--gc", gc); got != want {
			t.Errorf("certify --gc %s freed %d objects, verify %d", gc, got, want)
		}
	}
	if got := freed("certify", "--tasks", "3", "--jobs", "2"); got == 0 {
		t.Errorf("certify --tasks 3 freed no objects (verify: %d)", want)
	}
	if got := freed("certify", "--gc", "none"); got != 0 {
		t.Errorf("certify --gc none freed %d objects", got)
	}
	// A trustful certifier computes no fingerprints to mark with, and does
	// not collect.
	trustful := filepath.Join(t.TempDir(), "t")
	if code, _, errs := runMain("verify", "--continue", "--trustful-script", trustful, model); code != exitOK && code != exitViolation {
		t.Fatal(errs)
	}
	code, out, errs := runMain("certify", "--trustful", "--continue", "--script", trustful, model)
	if code != exitOK && code != exitViolation || strings.Contains(out, "gc:") {
		t.Errorf("certify --trustful: exit %d, %s\n%s", code, out, errs)
	}
	if code, _, errs := runMain("certify", "--gc", "sometimes", "--script", script, model); code != exitUsage || !strings.Contains(errs, "--gc") {
		t.Errorf("certify --gc sometimes: exit %d, %q", code, errs)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// jsonOf runs mcvm with args and --json, which must end with no error or a
// property violated, and decodes the report into v.
func jsonOf(t *testing.T, v any, args ...string) {
	t.Helper()
	code, out, errs := runMain(append(args, "--json")...)
	if code != exitOK && code != exitViolation {
		t.Fatalf("mcvm %s: exit %d\n%s", strings.Join(args, " "), code, errs)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatal(err)
	}
}

// figuresOf runs mcvm with args and --json and returns the states and
// transitions it reports.
func figuresOf(t *testing.T, args ...string) (states, transitions int64) {
	t.Helper()
	var r struct {
		States      int64 `json:"states"`
		Transitions int64 `json:"transitions"`
	}
	jsonOf(t, &r, args...)
	return r.States, r.Transitions
}

func TestPartition_processes(t *testing.T) {
	for _, tc := range []struct{ por, figures string }{{"none", "232, 651 transitions"}, {"all", ""}} {
		dir := t.TempDir()
		script := filepath.Join(dir, "s")
		if code, _, errs := runMain("verify", "--por", tc.por, "-D", "N=3", "--script", script, philoOK); code != exitOK {
			t.Fatal(errs)
		}
		want := tc.figures
		if want == "" {
			st, tr := figuresOf(t, "check", "--por", tc.por, "--sleep=false", "-D", "N=3", philoOK)
			want = fmt.Sprintf("%d, %d transitions", st, tr)
		}
		tasks := filepath.Join(dir, "tasks")
		if code, out, errs := runMain("partition", "--tasks", "3", "--script", script, "-o", tasks); code != exitOK {
			t.Fatalf("partition: %s%s", out, errs)
		}
		var fps []string
		for i := 1; i <= 3; i++ {
			task := filepath.Join(tasks, "task-"+string(rune('0'+i)))
			if code, out, errs := runMain("certify", "--por", tc.por, "-D", "N=3", "--task", task, philoOK); code != exitOK {
				t.Fatalf("certify --task %s: %s%s", task, out, errs)
			}
			fps = append(fps, task+".fp")
		}
		code, out, errs := runMain(append([]string{"merge-fp"}, fps...)...)
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("por=%s: merge-fp: exit %d, want %q\n%s%s", tc.por, code, want, out, errs)
		}
		if code, _, errs := runMain("merge-fp", fps[0], fps[2]); code != exitUsage || !strings.Contains(errs, "missing") {
			t.Errorf("por=%s: merge-fp without task 2: exit %d %s", tc.por, code, errs)
		}
	}
}

// TestVerifyCertify_reduced: verify and certify with partial-order
// reduction (--por, all by default) give check's figures for the same
// reduction without sleep sets, with chains (the default) and without, and
// refuse what a reduced script cannot carry.
func TestVerifyCertify_reduced(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s")
	bb := []string{"-D", "SIZE=1", "-D", "PRODUCERS=2", "-D", "CONSUMERS=2", "-D", "ITEMS=1", "-D", "BUG=0", "../../benchmarks/models/boundedbuffer.mcasm"}
	for _, mode := range []string{"escape", "ample", "all"} {
		for _, chain := range []string{"--chain=true", "--chain=false"} {
			cs, ct := figuresOf(t, append([]string{"check", "--continue", "--por", mode, chain, "--sleep=false"}, bb...)...)
			vs, vt := figuresOf(t, append([]string{"verify", "--continue", "--por", mode, chain, "--script", script}, bb...)...)
			if vs != cs || vt != ct {
				t.Errorf("por=%s %s: verify %d states %d transitions, check %d %d", mode, chain, vs, vt, cs, ct)
			}
			for _, extra := range [][]string{nil, {"--tasks", "5", "--jobs", "2"}} {
				args := append(append([]string{"certify", "--continue", "--por", mode, chain, "--script", script}, extra...), bb...)
				if s, tr := figuresOf(t, args...); s != cs || tr != ct {
					t.Errorf("mcvm %s: %d states %d transitions, check %d %d", strings.Join(args, " "), s, tr, cs, ct)
				}
			}
			other := "--chain=false"
			if chain == other {
				other = "--chain=true"
			}
			wantUsage(t, append([]string{"certify", "--continue", "--por", mode, other, "--script", script}, bb...), "--chain=false")
		}
		cs, _ := figuresOf(t, append([]string{"check", "--continue", "--por", mode, "--sleep=false"}, bb...)...)
		if mode == "all" && cs == func() int64 {
			s, _ := figuresOf(t, append([]string{"check", "--continue", "--por", "none"}, bb...)...)
			return s
		}() {
			t.Errorf("por=all reduces nothing here: the test needs a model it reduces")
		}
	}
	// The collapse store and every collector write the same script.
	figuresOf(t, append([]string{"verify", "--continue", "--script", script}, bb...)...)
	for _, flags := range [][]string{{"--collapse"}, {"--gc", "memoised"}, {"--gc", "none"}} {
		again := filepath.Join(dir, "again")
		figuresOf(t, append(append([]string{"verify", "--continue", "--script", again}, flags...), bb...)...)
		if a, b := readFile(t, script), readFile(t, again); !bytes.Equal(a, b) {
			t.Errorf("verify %v wrote a different script (%d bytes, %d without)", flags, len(b), len(a))
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"certify", "--por", "none", "--script", script}, "give --por all"},
		{[]string{"certify", "--script", script, "--invariant", "Main.countInBounds"}, "verify and certify with --por none"},
		{[]string{"verify", "--por", "dpor", "--script", script}, "not dynamic reduction"},
		{[]string{"verify", "--max-depth", "10", "--script", script}, "--max-depth needs --por none"},
		{[]string{"verify", "--por", "none", "--chain", "--script", script}, "--chain needs a reduction"},
	} {
		wantUsage(t, append(tc.args, bb...), tc.want)
	}
}

// verifyCertifyWith checks that verify FLAG writes a script that certify
// FLAG follows with check FLAG's figures (without sleep sets),
// whole, in tasks and trustful, unreduced and with the default reduction;
// that FLAG changes the figures of model; and that certify without FLAG
// refuses the script, saying "give FLAG". It returns the script's path.
func verifyCertifyWith(t *testing.T, flag string, model []string) string {
	t.Helper()
	dir := t.TempDir()
	script, trust := filepath.Join(dir, "s"), filepath.Join(dir, "t")
	for _, mode := range []string{"none", "all"} {
		cs, ct := figuresOf(t, append([]string{"check", "--continue", flag, "--por", mode, "--sleep=false"}, model...)...)
		if ps, _ := figuresOf(t, append([]string{"check", "--continue", "--por", mode, "--sleep=false"}, model...)...); ps == cs {
			t.Errorf("por=%s: %s changes nothing here: the test needs a model it reduces", mode, flag)
		}
		figuresOf(t, append([]string{"verify", "--continue", flag, "--por", mode, "--script", script}, model...)...)
		figuresOf(t, append([]string{"verify", "--continue", flag, "--por", mode, "--trustful-script", trust}, model...)...)
		for _, extra := range [][]string{{"--script", script}, {"--script", script, "--tasks", "5", "--jobs", "2"}, {"--trustful", "--script", trust}} {
			args := append(append([]string{"certify", "--continue", flag, "--por", mode}, extra...), model...)
			s, tr := figuresOf(t, args...)
			if s != cs || (tr != ct && extra[0] != "--trustful") {
				t.Errorf("mcvm %s: %d states %d transitions, check %d %d", strings.Join(args, " "), s, tr, cs, ct)
			}
		}
		wantUsage(t, append([]string{"certify", "--continue", "--por", mode, "--script", script}, model...), "give "+flag)
	}
	return script
}

// wantUsage runs mcvm with args and requires a usage error saying want.
func wantUsage(t *testing.T, args []string, want string) {
	t.Helper()
	if code, out, errs := runMain(args...); code != exitUsage || !strings.Contains(out+errs, want) {
		t.Errorf("mcvm %s: exit %d, want %d and %q:\n%s%s", strings.Join(args, " "), code, exitUsage, want, out, errs)
	}
}

// TestVerifyCertify_deadLocals: verifyCertifyWith --dead-locals; and a
// script written without it is refused by certify --dead-locals.
func TestVerifyCertify_deadLocals(t *testing.T) {
	bb := []string{"-D", "SIZE=1", "-D", "PRODUCERS=2", "-D", "CONSUMERS=2", "-D", "ITEMS=2", "-D", "BUG=0", "../../benchmarks/models/boundedbuffer.mcasm"}
	script := verifyCertifyWith(t, "--dead-locals", bb)
	figuresOf(t, append([]string{"verify", "--continue", "--script", script}, bb...)...)
	wantUsage(t, append([]string{"certify", "--continue", "--dead-locals", "--script", script}, bb...), "drop --dead-locals")
}

// TestVerifyCertify_symmetry: verifyCertifyWith --symmetry; and verify
// refuses --symmetry for a program that reads a thread's id.
func TestVerifyCertify_symmetry(t *testing.T) {
	bb := []string{"-D", "SIZE=1", "-D", "PRODUCERS=2", "-D", "CONSUMERS=1", "-D", "ITEMS=0", "../../benchmarks/models/boundedbuffer.mcasm"}
	script := verifyCertifyWith(t, "--symmetry", bb)
	wantUsage(t, []string{"verify", "--symmetry", "--script", script, "../../testdata/conformance/notify_choice.mcasm"}, "reads a thread's id")
}

func TestCertify_extraProperties(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s")
	if code, _, errs := runMain("verify", "--por", "none", "--script", script, invOK); code != exitOK {
		t.Fatal(errs)
	}
	props := "testdata/props.mcasm"
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--properties", props}, exitOK, "verdict:     ok"},
		{[]string{"--properties", props, "--invariant", "P.atMostOne"}, exitViolation, "invariant P.atMostOne violated"},
		{[]string{"--invariant", "I.atMostTwo"}, exitOK, "verdict:     ok"},
		{[]string{"--invariant", "P.atMostOne"}, exitUsage, "no method"},
		{[]string{"--properties", props, "--next-invariant", "P.positive:P.positive"}, exitOK, "verdict:     ok"},
		{[]string{"--properties", props, "--next-invariant", "P.isZero:P.isZero"}, exitViolation, "next-invariant P.isZero:P.isZero violated"},
	} {
		args := append(append([]string{"certify", "--por", "none", "--script", script}, tc.args...), invOK)
		code, out, errs := runMain(args...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("mcvm %s: exit %d (want %d), output lacks %q:\n%s%s", strings.Join(args, " "), code, tc.code, tc.want, out, errs)
		}
	}
}

// TestPartition_uneven checks that partition and certify --tasks say when
// no split into K regions can be even: philo_ok N = 3's reduced script
// has 13 transitions, and no region smaller than 3 holds its largest part.
func TestPartition_uneven(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "p.scc")
	if code, out, errs := runMain("verify", "--continue", "--script", script, "-D", "N=3", philoOK); code != exitOK {
		t.Fatalf("verify: %s%s", out, errs)
	}
	code, out, errs := runMain("partition", "--tasks", "8", "--script", script, "-o", filepath.Join(dir, "tasks"))
	if code != exitOK || !strings.Contains(out, "uneven: no split into at most 8 regions has a largest task under 3 transitions") {
		t.Errorf("partition --tasks 8: exit %d, want a line saying no split is under 3 transitions:\n%s%s", code, out, errs)
	}
	code, out, errs = runMain("certify", "--json", "--tasks", "8", "--continue", "--script", script, "-D", "N=3", philoOK)
	if code != exitOK || !strings.Contains(out, `"least_largest_task_transitions":3`) {
		t.Errorf("certify --tasks 8 --json: exit %d, want least_largest_task_transitions 3:\n%s%s", code, out, errs)
	}
	code, out, _ = runMain("partition", "--tasks", "2", "--script", script, "-o", filepath.Join(dir, "tasks2"))
	if code != exitOK || strings.Contains(out, "uneven: no split") {
		t.Errorf("partition --tasks 2: exit %d, want no uneven line:\n%s", code, out)
	}
}

// TestCertify_limitedTasks: a task cut off by a limit covers part of its
// region only, so certification in parallel and merge-fp end with verdict
// limit (exit 3), not with a discrepancy about states no task explored.
func TestCertify_limitedTasks(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s")
	if code, _, errs := runMain("verify", "--por", "none", "-D", "N=5", "--script", script, philoOK); code != exitOK {
		t.Fatal(errs)
	}
	code, out, errs := runMain("certify", "--por", "none", "-D", "N=5", "--tasks", "3", "--time-limit", "1ns", "--script", script, philoOK)
	if code != exitLimit || !strings.Contains(out, "verdict:     limit (time limit reached") {
		t.Errorf("certify --tasks 3 --time-limit 1ns: exit %d (want %d)\n%s%s", code, exitLimit, out, errs)
	}
	tasks := filepath.Join(dir, "tasks")
	if code, out, errs := runMain("partition", "--tasks", "3", "--script", script, "-o", tasks); code != exitOK {
		t.Fatalf("partition: %s%s", out, errs)
	}
	var fps []string
	for i := 1; i <= 3; i++ {
		task := filepath.Join(tasks, fmt.Sprintf("task-%d", i))
		args := []string{"certify", "--por", "none", "-D", "N=5", "--task", task, philoOK}
		want := exitOK
		if i == 2 {
			args, want = append([]string{"certify", "--time-limit", "1ns"}, args[1:]...), exitLimit
		}
		if code, out, errs := runMain(args...); code != want {
			t.Fatalf("mcvm %s: exit %d (want %d)\n%s%s", strings.Join(args, " "), code, want, out, errs)
		}
		fps = append(fps, task+".fp")
	}
	code, out, errs = runMain(append([]string{"merge-fp"}, fps...)...)
	if code != exitLimit || !strings.Contains(out, "verdict:     limit") || !strings.Contains(errs, "task-2.fp: its task was cut off by a limit") {
		t.Errorf("merge-fp with a task cut off: exit %d (want %d)\n%s%s", code, exitLimit, out, errs)
	}
}

// TestVerifyCertify_ghost: verify writes, and certify follows with
// check's figures, whole, in tasks and trustful, the scripts of programs
// with ghost state, final fields and threads that stay at their end,
// assembled and as .mcb files (format version 6), unreduced and reduced.
func TestVerifyCertify_ghost(t *testing.T) {
	dir := t.TempDir()
	mcb := filepath.Join(dir, "exclusive.mcb")
	if code, _, errs := runMain("asm", "-o", mcb, "../../docs/examples/ghost/exclusive.mcasm"); code != exitOK {
		t.Fatalf("asm: exit %d: %s", code, errs)
	}
	script, trust := filepath.Join(dir, "s"), filepath.Join(dir, "t")
	for _, model := range []string{"../../docs/examples/ghost/exclusive.mcasm", mcb, "../../testdata/conformance/ghost_last.mcasm"} {
		for _, mode := range []string{"none", "all"} {
			cs, ct := figuresOf(t, "check", "--continue", "--por", mode, "--sleep=false", model)
			vs, vt := figuresOf(t, "verify", "--continue", "--por", mode, "--script", script, model)
			figuresOf(t, "verify", "--continue", "--por", mode, "--trustful-script", trust, model)
			if vs != cs || vt != ct {
				t.Errorf("%s por=%s: verify %d states %d transitions, check %d %d", model, mode, vs, vt, cs, ct)
			}
			for _, extra := range [][]string{{"--script", script}, {"--script", script, "--tasks", "3", "--jobs", "2"}, {"--trustful", "--script", trust}} {
				args := append(append([]string{"certify", "--continue", "--por", mode}, extra...), model)
				s, tr := figuresOf(t, args...)
				if s != cs || (tr != ct && extra[0] != "--trustful") {
					t.Errorf("mcvm %s: %d states %d transitions, check %d %d", strings.Join(args, " "), s, tr, cs, ct)
				}
			}
		}
	}
}

// coverageJSON is the coverage part of check's, verify's and certify's
// --json.
type coverageJSON struct {
	Verdict          string           `json:"verdict"`
	Limit            string           `json:"limit"`
	States           int64            `json:"states"`
	CoverageEstimate *float64         `json:"coverage_estimate"`
	CoverageLow      *float64         `json:"coverage_low"`
	CoverageHigh     *float64         `json:"coverage_high"`
	EstimatedStates  *float64         `json:"estimated_states"`
	Estimator        string           `json:"estimator"`
	CoverageClaimed  *claimedCoverage `json:"coverage_claimed"`
	CoverageMismatch bool             `json:"coverage_mismatch"`
}

// recomputed returns the estimate certify computed again as the header
// records one.
func (c *coverageJSON) recomputed() claimedCoverage {
	if c.CoverageEstimate == nil {
		return claimedCoverage{}
	}
	return claimedCoverage{Estimator: c.Estimator, Share: *c.CoverageEstimate, Low: *c.CoverageLow, High: *c.CoverageHigh, Total: *c.EstimatedStates}
}

// TestVerifyCertify_partial: verify of a search a limit cuts off writes the
// script of the part searched with its coverage estimate; certify checks
// that part, ends with verdict limit, and computes the estimate again to
// the same figures; scripts without an estimate, refusals and a header
// that lies about the estimate.
func TestVerifyCertify_partial(t *testing.T) {
	dir := t.TempDir()
	script, off, trust, lie := filepath.Join(dir, "s"), filepath.Join(dir, "off"), filepath.Join(dir, "t"), filepath.Join(dir, "lie")
	base := []string{"--por", "none", "-D", "N=4"}
	run := func(args ...string) (int, string, string) {
		return runMain(append(append(args[:1:1], base...), append(args[1:], philoOK)...)...)
	}
	code, out, errs := run("verify", "--max-states", "300", "--seed", "5", "--json", "--script", script)
	var v coverageJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil || code != exitLimit || v.Limit != "states" || v.CoverageEstimate == nil {
		t.Fatalf("verify --max-states 300: exit %d, %+v, %v\n%s%s", code, v, err, out, errs)
	}
	if code, out, errs := run("verify", "--max-states", "300", "--coverage", "off", "--script", off); code != exitLimit || strings.Contains(out, "coverage:") {
		t.Fatalf("verify --coverage off: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := run("verify", "--max-states", "300", "--seed", "5", "--trustful-script", trust); code != exitLimit {
		t.Fatalf("verify --trustful-script: exit %d\n%s%s", code, out, errs)
	}
	s, err := scc.Read(readFile(t, script))
	if err != nil {
		t.Fatal(err)
	}
	s.Coverage.Share, s.Coverage.Total = 0.5, float64(2*s.Coverage.Visited)
	os.WriteFile(lie, scc.Encode(s), 0o644)

	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		want     []string
		mismatch bool
	}{
		{"certify", []string{"certify", "--script", script}, exitLimit, []string{"the part it records was certified", "coverage:    claimed about", "recomputed about"}, false},
		{"trustful", []string{"certify", "--trustful", "--script", trust}, exitLimit, []string{"claimed about", "recomputed about"}, false},
		{"coverage=off", []string{"certify", "--script", off}, exitLimit, []string{"the part it records was certified"}, false},
		{"lie", []string{"certify", "--script", lie}, exitLimit, []string{"claimed about 50%", "warning:     the script's header claims another coverage estimate"}, true},
		{"tasks", []string{"certify", "--tasks", "2", "--script", script}, exitUsage, []string{"certify it whole"}, false},
		{"seed", []string{"certify", "--seed", "5", "--script", script}, exitUsage, []string{"--coverage and --seed apply to verify"}, false},
		{"chao", []string{"verify", "--max-states", "300", "--coverage", "chao", "--script", off}, exitUsage, []string{"--coverage chao: a certifier could not compute"}, false},
		{"depth", []string{"verify", "--max-depth", "5", "--script", filepath.Join(dir, "d")}, exitLimit, []string{"no script written: the search left states at the depth limit"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := run(tc.args...)
			for _, w := range tc.want {
				if code != tc.code || !strings.Contains(out+errs, w) {
					t.Errorf("mcvm %s: exit %d (want %d), output lacks %q:\n%s%s", strings.Join(tc.args, " "), code, tc.code, w, out, errs)
				}
			}
			if tc.name == "coverage=off" && strings.Contains(out, "coverage:") {
				t.Errorf("certify of a script without an estimate printed one:\n%s", out)
			}
			if tc.code != exitLimit || tc.name == "coverage=off" || tc.name == "depth" {
				return
			}
			code, out, _ = run(append(tc.args, "--json")...)
			var c coverageJSON
			if err := json.Unmarshal([]byte(out), &c); err != nil || code != exitLimit || c.Verdict != "limit" || c.Limit != scc.LimitScript || c.CoverageClaimed == nil {
				t.Fatalf("mcvm %s --json: exit %d, %+v, %v\n%s", strings.Join(tc.args, " "), code, c, err, out)
			}
			got, want := c.recomputed(), v.recomputed()
			if got != want || c.States != v.States {
				t.Errorf("recomputed %+v of %d states, want verify's %+v of %d", got, c.States, want, v.States)
			}
			claim := *c.CoverageClaimed
			if claim.Seed != 5 || claim.Budget <= 0 || claim.Visited != v.States {
				t.Errorf("claimed %+v, want seed 5, a budget and %d states", claim, v.States)
			}
			claim.Seed, claim.Budget, claim.Visited = 0, 0, 0
			if (claim != want) != tc.mismatch || c.CoverageMismatch != tc.mismatch {
				t.Errorf("claimed %+v, recomputed %+v, coverage_mismatch %v; want a mismatch %v", claim, got, c.CoverageMismatch, tc.mismatch)
			}
		})
	}
	if code, out, errs := runMain("partition", "--tasks", "2", "--script", script, "-o", filepath.Join(dir, "tasks")); code != exitUsage || !strings.Contains(errs, "certify it whole") {
		t.Errorf("partition of a partial script: exit %d\n%s%s", code, out, errs)
	}
}
