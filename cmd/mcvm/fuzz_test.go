package main

import "testing"

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
