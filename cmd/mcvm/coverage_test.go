package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCheck_coverage: a search a limit ends reports its estimated
// coverage in the text and JSON reports, with the estimator asked for;
// a complete search and --coverage=off report none; the estimators'
// requirements are refused with a reason.
func TestCheck_coverage(t *testing.T) {
	model := "../../benchmarks/models/philo_ok.mcasm"
	base := []string{"check", "--por", "none", "-D", "N=3", "--continue"}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--max-states", "100"}, exitLimit, "coverage:    about "},
		{[]string{"--max-states", "100"}, exitLimit, "; walk estimate: about "},
		{[]string{"--max-states", "100", "--search", "bfs"}, exitLimit, "; levels estimate: about "},
		{[]string{"--max-states", "100", "--search", "bfs", "--coverage", "walk"}, exitLimit, "; walk estimate: about "},
		{[]string{"--max-states", "100", "--coverage", "chao"}, exitLimit, "; chao estimate: about "},
		{[]string{"--max-states", "100", "--coverage", "thesis"}, exitLimit, "; thesis estimate: about "},
		{[]string{"--max-states", "100", "--coverage", "walk", "--workers", "2"}, exitLimit, "; walk estimate: about "},
		{[]string{"--max-states", "100", "--coverage", "bogus"}, exitUsage, "--coverage: want one of off, walk, thesis, chao, levels, auto"},
		{[]string{"--max-states", "100", "--coverage", "chao", "--hash-compact"}, exitUsage, "--coverage=chao counts how often"},
		{[]string{"--memory-limit", "0", "--coverage", "thesis"}, exitUsage, "--coverage=thesis needs a limit"},
	} {
		args := append(append(append([]string{}, base...), tc.args...), model)
		code, out, errs := runMain(args...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("mcvm %s: exit %d (want %d), output lacks %q:\n%s%s", strings.Join(args, " "), code, tc.code, tc.want, out, errs)
		}
	}
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--max-states", "100"}, true},
		{[]string{"--max-states", "100", "--coverage", "off"}, false},
		{nil, false},
	} {
		args := append(append(append([]string{}, base...), tc.args...), "--json", model)
		_, out, errs := runMain(args...)
		var r map[string]any
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("mcvm %s: %v\n%s", strings.Join(args, " "), err, errs)
		}
		_, got := r["coverage_estimate"]
		if got != tc.want {
			t.Errorf("mcvm %s: coverage_estimate present %v, want %v", strings.Join(args, " "), got, tc.want)
			continue
		}
		if !got {
			continue
		}
		est, lo, hi := r["coverage_estimate"].(float64), r["coverage_low"].(float64), r["coverage_high"].(float64)
		if !(0 < lo && lo <= est && est <= hi && hi <= 1) || r["estimator"] != "walk" || r["estimated_states"].(float64) < 100 {
			t.Errorf("mcvm %s: estimate %v (%v-%v) by %v, %v states", strings.Join(args, " "), est, lo, hi, r["estimator"], r["estimated_states"])
		}
	}
}
