package progress

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestParse: a document Parse accepts, and those it refuses, each with
// an error wrapping ErrInvalid that says what is wrong (JSON syntax
// errors are encoding/json's).
func TestParse(t *testing.T) {
	d, err := Parse([]byte(`{"kind": "progress", "search": "bfs", "verdict": "limit", "limit": "states",
		"samples": [{}, {"elapsed_s": 0.5, "states": 100, "transitions": 300}], "levels": [0, 4, 96],
		"coverage": {"estimator": "walk", "visited": 100, "share": 0.25, "low": 0.2, "high": 0.5}}`))
	if err != nil {
		t.Fatalf("Parse = %v", err)
	}
	if c := d.Coverage; c.Total() != 400 {
		t.Errorf("Total = %g, want 400", c.Total())
	}
	if lo, hi := d.Coverage.Bounds(); lo != 200 || hi != 500 {
		t.Errorf("Bounds = %g, %g, want 200, 500", lo, hi)
	}
	d.Coverage.Low = 0
	if _, hi := d.Coverage.Bounds(); !math.IsInf(hi, 1) {
		t.Errorf("Bounds with low 0: upper %g, want +Inf", hi)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"samples": [{}]}`, `kind ""`},
		{`{"kind": "progress"}`, "no samples"},
		{`{"kind": "progress", "samples": [{"elapsed_s": -1}]}`, "sample 1: elapsed_s -1"},
		{`{"kind": "progress", "samples": [{}, {"transitions": -1}]}`, "sample 2: negative"},
		{`{"kind": "progress", "samples": [{}], "levels": [-1]}`, "level 0"},
		{`{"kind": "progress", "samples": [{}], "model": "` + strings.Repeat("m", 300) + `"}`, "model: want at most"},
		{`{"kind": "progress", "samples": [{}], "coverage": {"visited": 1, "share": 1, "high": 1}}`, "estimator"},
		{`{"kind": "progress", "samples": [{}], "coverage": {"estimator": "walk", "share": 1, "high": 1}}`, "visited 0"},
		{`{"kind": "progress", "samples": [{}], "coverage": {"estimator": "walk", "visited": 1, "share": 1.5, "high": 1}}`, "share 1.5"},
		{`{"kind": "progress", "samples": [{}], "coverage": {"estimator": "walk", "visited": 1, "share": 0.5, "high": 0.4}}`, "interval"},
	} {
		_, err := Parse([]byte(tc.in))
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%.80s) = %v, want ErrInvalid with %q", tc.in, err, tc.want)
		}
	}
	if _, err := Parse(make([]byte, MaxBytes+1)); !errors.Is(err, ErrInvalid) {
		t.Errorf("Parse of %d bytes = %v, want ErrInvalid", MaxBytes+1, err)
	}
	if _, err := Parse([]byte(`{"kind": "progress", "samples": [`)); err == nil || errors.Is(err, ErrInvalid) {
		t.Errorf("Parse of truncated JSON = %v, want a syntax error", err)
	}
}

// FuzzParse: Parse never panics, and what it accepts validates and has a
// finite estimate. The seeds run in go test.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"kind":"progress","samples":[{},{"elapsed_s":0.5,"states":100,"transitions":300}],"levels":[0,4,96],"coverage":{"estimator":"walk","visited":100,"share":0.25,"low":0.2,"high":0.5}}`,
		`{"kind":"progress","samples":[{}]}`,
		`{"kind":"progress","samples":[{"states":1}],"coverage":{"estimator":"walk","visited":1,"share":1e-320,"low":0,"high":1e-320}}`,
		`{"kind":"progress","samples":[{"elapsed_s":1e308}],"model":"\u00ff"}`,
		`{"rows":[]}`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(data)
		if err != nil {
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("Parse accepted what Validate refuses: %v", err)
		}
		if c := d.Coverage; c != nil {
			if lo, _ := c.Bounds(); math.IsInf(c.Total(), 0) || math.IsInf(lo, 0) || math.IsNaN(lo) {
				t.Fatalf("estimate %g, lower bound %g", c.Total(), lo)
			}
		}
	})
}
