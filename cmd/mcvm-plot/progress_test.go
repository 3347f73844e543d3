package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"strings"
	"testing"

	"mcvm/internal/progress"
)

// testDoc is a breadth-first search stopped at a states limit, with a
// walk estimate of 23% (interval 20-27%).
func testDoc() *progress.Doc {
	return &progress.Doc{Kind: progress.Kind, Model: "philo_ok.mcasm", Search: "bfs", Verdict: "limit", Limit: "states",
		Samples:  []progress.Sample{{}, {ElapsedS: 0.1, States: 300, Transitions: 900}, {ElapsedS: 0.25, States: 1000, Transitions: 3000}},
		Levels:   []int64{0, 3, 9, 27, 60, 120, 200, 300, 281},
		Coverage: &progress.Coverage{Estimator: "walk", Visited: 1000, Share: 0.23, Low: 0.2, High: 0.27}}
}

// TestWriteProgress: the progress plot is well-formed SVG carrying the
// estimate's caption and the levels' panel, or a PNG; without an
// estimate, no caption.
func TestWriteProgress(t *testing.T) {
	for _, tc := range []struct {
		name       string
		edit       func(d *progress.Doc)
		want, omit []string
	}{
		{"limit", func(*progress.Doc) {}, []string{"estimate (walk): about 23% covered", "4350 states", "interval 20%-27%", "breadth-first level"}, nil},
		{"complete", func(d *progress.Doc) { d.Coverage, d.Verdict, d.Limit, d.Levels = nil, "ok", "", nil }, []string{"states stored", ": ok"}, []string{"estimate", "breadth-first"}},
		{"no-upper-bound", func(d *progress.Doc) { d.Coverage.Low = 0 }, []string{"no upper bound"}, nil},
	} {
		t.Run("doc="+tc.name, func(t *testing.T) {
			d := testDoc()
			tc.edit(d)
			var b bytes.Buffer
			if err := WriteProgress(&b, d, "svg"); err != nil {
				t.Fatalf("WriteProgress = %v", err)
			}
			wellFormed(t, b.Bytes())
			for _, s := range tc.want {
				if !strings.Contains(b.String(), s) {
					t.Errorf("the SVG lacks %q", s)
				}
			}
			for _, s := range tc.omit {
				if strings.Contains(b.String(), s) {
					t.Errorf("the SVG has %q", s)
				}
			}
			b.Reset()
			if err := WriteProgress(&b, d, "png"); err != nil {
				t.Fatalf("WriteProgress png = %v", err)
			}
			if !bytes.HasPrefix(b.Bytes(), []byte("\x89PNG\r\n\x1a\n")) {
				t.Fatalf("WriteProgress png wrote %.8q, want a PNG header", b.Bytes())
			}
			if _, err := png.Decode(&b); err != nil {
				t.Errorf("png.Decode = %v", err)
			}
		})
	}
	if err := WriteProgress(io.Discard, testDoc(), "pdf"); err == nil || !strings.Contains(err.Error(), "svg or png") {
		t.Errorf("WriteProgress pdf = %v, want an error naming svg and png", err)
	}
}

func wellFormed(t *testing.T, svg []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("the plot is not well-formed SVG: %v", err)
		}
	}
}

// TestRun_progress: mcvm-plot tells a progress document from bench's rows
// by its kind, writes the format --format names, and refuses bad
// documents with an error that says what is wrong.
func TestRun_progress(t *testing.T) {
	good, err := json.Marshal(testDoc())
	if err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if code := run([]string{"--format", "png"}, bytes.NewReader(good), &out, &errs); code != 0 || !bytes.HasPrefix(out.Bytes(), []byte("\x89PNG")) {
		t.Fatalf("run --format png = %d, %q, %.8q", code, errs.String(), out.Bytes())
	}
	for _, tc := range []struct{ in, want string }{
		{`{"kind": "progres", "samples": []}`, `unknown kind "progres"`},
		{`{"kind": "progress", "samples": []}`, "no samples"},
		{`{"kind": "progress", "samples": [{"elapsed_s": 1}, {"elapsed_s": 0.5}]}`, "sample 2: elapsed_s 0.5"},
		{`{"kind": "progress", "samples": [{"states": -1}]}`, "negative"},
		{`{"kind": "progress", "samples": [{}], "levels": [1, -2]}`, "level 1"},
		{`{"kind": "progress", "samples": [{}], "coverage": {"estimator": "walk", "visited": 5, "share": 0}}`, "share 0"},
		{`{"kind": "progress", "samples": [{}], "coverage": {"estimator": "walk", "visited": 5, "share": 0.5, "low": 0.6, "high": 0.7}}`, "interval"},
		{`{"kind": "progress", "samples": [{}], "coverage": {"estimator": "walk", "visited": 1, "share": 1e-320, "high": 1e-320}}`, "more states than"},
		{`{"kind": "progress", "samples": [{"elapsed_s": "soon"}]}`, "cannot unmarshal"},
		{`{"kind": 3}`, "cannot unmarshal"},
	} {
		out.Reset()
		errs.Reset()
		if code := run(nil, strings.NewReader(tc.in), &out, &errs); code != 1 || !strings.Contains(errs.String(), tc.want) || out.Len() != 0 {
			t.Errorf("run(%s) = %d, %q, %d bytes out; want 1 and an error with %q", tc.in, code, errs.String(), out.Len(), tc.want)
		}
	}
	if code := run([]string{"--format", "gif"}, strings.NewReader(string(good)), &out, &errs); code != 2 {
		t.Errorf("run --format gif = %d, want 2", code)
	}
}

// FuzzRun: whatever the input, mcvm-plot draws it or says why not, and
// never panics. The seeds run in go test.
func FuzzRun(f *testing.F) {
	good, _ := json.Marshal(testDoc())
	rows, _ := json.Marshal(map[string]any{"rows": testRows()})
	for _, s := range []string{string(good), string(rows), `{"kind":"progress","samples":[{}]}`,
		`{"kind":"progress","samples":[{"elapsed_s":1e308,"states":9223372036854775807}],"levels":[9223372036854775807]}`,
		`{"kind":"progress","samples":[{"states":1}],"coverage":{"estimator":"walk","visited":1,"share":1e-300,"low":0,"high":1}}`,
		`{"kind":"progress","samples":[{}],"levels":[]}`, `{"rows":[]}`, `null`, `[]`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out, errs bytes.Buffer
		code := run(nil, bytes.NewReader(data), &out, &errs)
		if code == 0 && !bytes.Contains(out.Bytes(), []byte("</svg>")) {
			t.Errorf("run = 0 without an SVG")
		}
		if code != 0 && errs.Len() == 0 {
			t.Errorf("run = %d without an error message", code)
		}
		var d progress.Doc
		if json.Unmarshal(data, &d) == nil && d.Kind == progress.Kind {
			if err := d.Validate(); err != nil && !errors.Is(err, progress.ErrInvalid) {
				t.Errorf("Validate = %v, not ErrInvalid", err)
			}
		}
	})
}
