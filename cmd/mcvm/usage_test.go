package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestUsage_suggestions: a mistyped command or flag gets a "did you
// mean", one far from any does not.
func TestUsage_suggestions(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"chekc", "x"}, `unknown command "chekc" (did you mean "check"?)`},
		{[]string{"replya"}, `(did you mean "replay"?)`},
		{[]string{"check", "--contineu", "x"}, `unknown flag: --contineu (did you mean "--continue"?)`},
		{[]string{"replay", "--valeus", "a", "b"}, `(did you mean "--values"?)`},
	} {
		code, _, errs := runMain(tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("mcvm %v: exit %d, stderr %q, want exit 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	if _, _, errs := runMain("frobnicate"); strings.Contains(errs, "did you mean") {
		t.Errorf("mcvm frobnicate: a suggestion: %q", errs)
	}
}

// TestUsage_version: --version prints one line naming mcvm and Go.
func TestUsage_version(t *testing.T) {
	code, out, _ := runMain("--version")
	if code != exitOK || !strings.HasPrefix(out, "mcvm ") || !strings.Contains(out, "go") || strings.Count(out, "\n") != 1 {
		t.Errorf("mcvm --version: exit %d, %q", code, out)
	}
}

// TestUsage_jsonErrors: with --json, an error of usage or input is one
// JSON object on stdout, and still a message on stderr.
func TestUsage_jsonErrors(t *testing.T) {
	for _, args := range [][]string{
		{"check", "--json", "nosuch.mcasm"},
		{"check", "--json", "--contineu", "x"},
		{"replay", "--json", "nosuch.trail", "nosuch.mcasm"},
		{"check", "--json", "--max-errors", "0", "../../benchmarks/models/philo.mcasm"},
	} {
		code, out, errs := runMain(args...)
		var obj struct {
			Error    string `json:"error"`
			ExitCode int    `json:"exit_code"`
		}
		if err := json.Unmarshal([]byte(out), &obj); err != nil || code != exitUsage || obj.ExitCode != exitUsage || obj.Error == "" || errs == "" {
			t.Errorf("mcvm %v: exit %d, stdout %q (%v), stderr %q; want exit 2 and one JSON error object", args, code, out, err, errs)
		}
	}
}

// TestUsage_scriptFlags: verify's and certify's help leaves out the
// search order flags, which a script's depth-first search does not take.
func TestUsage_scriptFlags(t *testing.T) {
	for _, cmd := range []string{"verify", "certify"} {
		_, out, _ := runMain(cmd, "--help")
		_, out, _ = strings.Cut(out, "\nFlags")
		for _, f := range []string{"--search ", "--heuristic ", "--target "} {
			if strings.Contains(out, f) {
				t.Errorf("mcvm %s --help lists %s", cmd, f)
			}
		}
		if !strings.Contains(out, "--script") {
			t.Errorf("mcvm %s --help: no --script:\n%s", cmd, out)
		}
	}
	if _, out, _ := runMain("check", "--help"); !strings.Contains(out, "--search ") {
		t.Error("mcvm check --help does not list --search")
	}
}

// TestUsage_flagsDoc checks docs/flags.md, the whole description of every
// command's flags, against the flags (go test ./cmd/mcvm -run
// TestUsage_flagsDoc -update rewrites it), and that --help gives each
// flag one line.
func TestUsage_flagsDoc(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Flags\n\n`mcvm COMMAND --help` gives each flag one line; this page, generated from\nthe same text (`go test ./cmd/mcvm -run TestUsage_flagsDoc -update`), the\nwhole of it.\n")
	for _, c := range commands {
		if c.name == "help" {
			continue
		}
		var sets []*pflag.FlagSet
		helpSink = func(fs *pflag.FlagSet) { sets = append(sets, fs) }
		runMain(c.name, "--help")
		helpSink = nil
		if len(sets) != 1 {
			t.Fatalf("mcvm %s --help: %d flag sets", c.name, len(sets))
		}
		fmt.Fprintf(&b, "\n## mcvm %s\n\n", c.name)
		n := 0
		sets[0].VisitAll(func(f *pflag.Flag) {
			if f.Hidden {
				return
			}
			n++
			name, usage := pflag.UnquoteUsage(f)
			flag := "--" + f.Name
			if f.Shorthand != "" {
				flag = "-" + f.Shorthand + ", " + flag
			}
			if name != "" {
				flag += " " + name
			}
			def := ""
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
				def = fmt.Sprintf(" (default %s)", f.DefValue)
			}
			fmt.Fprintf(&b, "- `%s`%s: %s\n", flag, def, usage)
			if line := helpLine(c.name, f); len(line) > maxHelpLine {
				t.Errorf("mcvm %s --help: --%s takes %d characters, more than %d: %q", c.name, f.Name, len(line), maxHelpLine, line)
			}
		})
		if n == 0 {
			b.WriteString("No flags.\n")
		}
	}
	golden := filepath.Join("..", "..", "docs", "flags.md")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil || string(want) != b.String() {
		t.Errorf("docs/flags.md is out of date (%v): go test ./cmd/mcvm -run TestUsage_flagsDoc -update", err)
	}
}
