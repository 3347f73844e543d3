package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseTrail reads arbitrary bytes as a trail file: no panic, and a
// trail that records its verdict holds the steps it records.
func FuzzParseTrail(f *testing.F) {
	head := "mcvm-trail 1\n# verdict deadlock\n# steps 2\nprogram 00000000000000ff\ngranularity transition\nescape on\n"
	f.Add([]byte(head + "0 0\n1 0\n"))
	f.Add([]byte(head + "0 0\n"))
	f.Add([]byte(head + "0 0\n1 0\n2 0\n"))
	f.Add([]byte("mcvm-trail 1\nprogram ff\ngranularity instruction\n# steps 1\n0 3\n"))
	f.Add([]byte("# verdict assertion\n# steps 0\nmcvm-trail 1\nprogram ff\ngranularity transition\n"))
	f.Add([]byte("mcvm-trail 1\n# verdict ok\n# steps x\nprogram ff\ngranularity transition\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := parseTrail("f", data)
		if err != nil {
			if tr != nil {
				t.Fatalf("parseTrail returned a trail and the error %v", err)
			}
			return
		}
		verdict, steps, err := trailRecord("f", data)
		if err != nil || verdict != tr.Verdict || (verdict != "" && (steps != len(tr.Path) || !isViolation(verdict))) {
			t.Fatalf("trail of %d steps, verdict %q accepted; its record: %q, %d steps, %v", len(tr.Path), tr.Verdict, verdict, steps, err)
		}
	})
}

// FuzzReplayImprove runs replay, improve and improve --reorder on
// arbitrary trails of one small model: no panic or hang, only the
// documented exit codes, and a trail improve writes replays to a
// violation of the same kind as the trail it shortened.
func FuzzReplayImprove(f *testing.F) {
	dir := f.TempDir()
	model := filepath.Join(dir, "philo.mcasm")
	src, err := os.ReadFile(philo)
	if err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(model, src, 0o644); err != nil {
		f.Fatal(err)
	}
	for _, args := range [][]string{{"--por", "none"}, {}, {"--search", "bfs"}} {
		trail := filepath.Join(dir, "seed.trail")
		if code, _, errs := runMain(append(append([]string{"check", "--trail", trail, "-D", "N=3"}, args...), model)...); code != exitViolation {
			f.Fatalf("check: exit %d: %s", code, errs)
		}
		b, err := os.ReadFile(trail)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		if i := bytes.LastIndexByte(b[:len(b)-1], '\n'); i > 0 {
			f.Add(b[:i+1]) // one step short
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := t.TempDir()
		trail := filepath.Join(d, "t.trail")
		if err := os.WriteFile(trail, data, 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, _ := runMain("replay", "-D", "N=3", trail, model)
		if code != exitOK && code != exitViolation && code != exitUsage {
			t.Fatalf("replay: exit %d", code)
		}
		for _, mode := range [][]string{{"--max-states", "3000", "--time-limit", "2s"}, {"--reorder"}} {
			out := filepath.Join(d, "out.trail")
			args := append(append([]string{"improve", "-D", "N=3", "--out", out, "--json"}, mode...), trail, model)
			c, stdout, stderr := runMain(args...)
			switch c {
			case exitOK:
				var before, after struct {
					Verdict string `json:"verdict"`
				}
				_, b1, _ := runMain("replay", "--json", "-D", "N=3", trail, model)
				_, b2, _ := runMain("replay", "--json", "-D", "N=3", out, model)
				if json.Unmarshal([]byte(b1), &before) != nil || json.Unmarshal([]byte(b2), &after) != nil || before.Verdict != after.Verdict {
					t.Fatalf("%v: the improved trail replays to %q, the trail to %q\n%s%s", mode, after.Verdict, before.Verdict, stdout, stderr)
				}
			case exitUsage, exitLimit:
			default:
				t.Fatalf("%v: exit %d\n%s%s", mode, c, stdout, stderr)
			}
		}
	})
}
