package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/trace")

// stable drops the lines of a text report that measure the run (time,
// memory) rather than the model.
func stable(out string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(out, "\n") {
		if strings.HasPrefix(l, "time:") || strings.HasPrefix(l, "trail written to") {
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}

// golden compares got with testdata/trace/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "trace", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it with go test ./cmd/mcvm -run %s -update)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test ./cmd/mcvm -run %s -update to accept):\ngot:\n%s\nwant:\n%s", path, t.Name(), got, want)
	}
}

// TestTrace_golden checks the text trace of check and replay against
// golden files: the shared operation of each step with its values, the
// source lines, --values, --continue's list of distinct violations, the
// ghost writes of a step.
func TestTrace_golden(t *testing.T) {
	philo := "../../benchmarks/models/philo.mcasm"
	handoff := "testdata/trace/handoff.mcasm"
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"philo.golden", []string{"check", "-D", "N=3", philo}, exitViolation},
		{"philo_values.golden", []string{"check", "-D", "N=3", "--values", philo}, exitViolation},
		{"handoff.golden", []string{"check", "--values", handoff}, exitViolation},
		{"twoerrors.golden", []string{"check", "--continue", "testdata/trace/twoerrors.mcasm"}, exitViolation},
		{"quiet.golden", []string{"check", "--quiet", handoff}, exitViolation},
		{"ghost.golden", []string{"check", "--values", "../../testdata/conformance/ghost_race.mcasm"}, exitViolation},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runMain(tc.args...)
			if code != tc.code {
				t.Fatalf("mcvm %v: exit %d, want %d\n%s%s", tc.args, code, tc.code, out, errs)
			}
			golden(t, tc.name, stable(out))
		})
	}
}

// TestReplay_sameTrace: replay prints the trace check printed, step for
// step, with the same values.
func TestReplay_sameTrace(t *testing.T) {
	handoff := "testdata/trace/handoff.mcasm"
	trail := filepath.Join(t.TempDir(), "h.trail")
	_, out, _ := runMain("check", "--values", "--trail", trail, handoff)
	code, rout, errs := runMain("replay", "--values", trail, handoff)
	if code != exitViolation {
		t.Fatalf("replay: exit %d\n%s%s", code, rout, errs)
	}
	section := func(s string) string {
		i, j := strings.Index(s, "trace ("), strings.Index(s, "states:")
		if i < 0 {
			return ""
		}
		if j < i {
			j = len(s)
		}
		return s[i:j]
	}
	if got, want := section(rout), section(out); got != want || got == "" {
		t.Errorf("replay's trace differs from check's:\nreplay:\n%s\ncheck:\n%s", got, want)
	}
}

// TestTrace_json checks the trace of check --json against a golden file
// (the fields docs/json.md describes), and --continue's violations.
func TestTrace_json(t *testing.T) {
	code, out, _ := runMain("check", "--json", "testdata/trace/handoff.mcasm")
	if code != exitViolation {
		t.Fatalf("check --json: exit %d", code)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	part := map[string]any{"verdict": rep["verdict"], "message": rep["message"], "trace": rep["trace"],
		"threads_at_end": rep["threads_at_end"], "threads_involved": rep["threads_involved"]}
	b, err := json.MarshalIndent(part, "", "  ") // (indented, for a readable golden file)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "handoff.json", string(b)+"\n")

	for _, tc := range []struct {
		max    string
		listed int
	}{{"1", 0}, {"2", 2}, {"10", 2}} {
		code, out, _ = runMain("check", "--json", "--continue", "--max-errors", tc.max, "testdata/trace/twoerrors.mcasm")
		if code != exitViolation {
			t.Fatalf("check --json --continue: exit %d", code)
		}
		var cont struct {
			Errors     int64       `json:"errors"`
			Trace      []traceStep `json:"trace"`
			Violations []violation `json:"violations"`
		}
		if err := json.Unmarshal([]byte(out), &cont); err != nil {
			t.Fatal(err)
		}
		if cont.Errors < 2 || len(cont.Violations) != tc.listed || len(cont.Trace) == 0 {
			t.Errorf("--continue --max-errors %s: %d errors, %d violations listed, want several errors and %d listed", tc.max, cont.Errors, len(cont.Violations), tc.listed)
		}
		for _, v := range cont.Violations {
			if len(v.Trace) == 0 || v.Kind != "assertion" {
				t.Errorf("--continue --max-errors %s: violation %q of kind %q with %d steps", tc.max, v.Message, v.Kind, len(v.Trace))
			}
		}
	}
}
