package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestParseCacheSize(t *testing.T) {
	for _, tc := range []struct {
		in     string
		space  int64
		states int
		bytes  int64
		ok     bool
	}{
		{"5000", 0, 5000, 0, true},
		{"25%", 1000, 250, 0, true},
		{"64MiB", 0, 0, 64 << 20, true},
		{"1.5KB", 0, 0, 1500, true},
		{"25%", 0, 0, 0, false},
		{"0", 0, 0, 0, false},
		{"-3", 0, 0, 0, false},
		{"150%", 10, 0, 0, false},
		{"lots", 0, 0, 0, false},
	} {
		s, b, err := parseCacheSize(tc.in, tc.space)
		if (err == nil) != tc.ok || s != tc.states || b != tc.bytes {
			t.Errorf("parseCacheSize(%q, %d) = %d, %d, %v; want %d, %d, ok %v", tc.in, tc.space, s, b, err, tc.states, tc.bytes, tc.ok)
		}
	}
}

// TestCheck_cache runs check with a cache smaller than the state space:
// the same verdict as without, with states evicted and explored again.
func TestCheck_cache(t *testing.T) {
	model := "../../benchmarks/models/philo.mcasm"
	for _, args := range [][]string{
		{"--cache", "40%", "--cache-space", "262", "--por", "none"},
		{"--cache", "100", "--cache-policy", "random", "--seed", "5", "--por", "none", "--hash-compact"},
	} {
		var out, errb bytes.Buffer
		code := runCheck(append(append([]string{"-DN=3", "--continue", "--stats"}, args...), model), &out, &errb)
		if code != exitViolation || !strings.Contains(out.String(), "verdict:     deadlock") || !strings.Contains(out.String(), "cache:       held") {
			t.Errorf("check %v: exit %d\n%s%s", args, code, out.String(), errb.String())
		}
	}
	for _, args := range [][]string{
		{"--cache", "10", "--cache-policy", "lru"},
		{"--cache", "10", "--por", "dpor"},
		{"--cache", "10", "--collapse"},
		{"--cache", "10", "--sleep"},
	} {
		var out, errb bytes.Buffer
		if code := runCheck(append(args, model), &out, &errb); code != exitUsage && !strings.Contains(errb.String(), "cache") {
			t.Errorf("check %v: exit %d, stderr %q; want an error about --cache", args, code, errb.String())
		}
	}
}
