package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mcvm/internal/bench"
)

// TestWritePlot: the plot is well-formed SVG naming the models that have
// published figures with states and time, the same bytes every time; a
// suite with none is ErrNothingToPlot.
func TestWritePlot(t *testing.T) {
	rows := testRows()
	var a, b bytes.Buffer
	if err := WritePlot(&a, rows); err != nil {
		t.Fatalf("WritePlot = %v", err)
	}
	WritePlot(&b, rows)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("WritePlot writes different bytes for the same rows")
	}
	d := xml.NewDecoder(bytes.NewReader(a.Bytes()))
	for {
		_, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the plot is not well-formed SVG: %v", err)
		}
	}
	svg := a.String()
	if !strings.Contains(svg, "<svg") || !strings.Contains(svg, "philo") || strings.Contains(svg, "nothing") {
		t.Errorf("the plot names the wrong models:\n%.400s", svg)
	}
	if err := WritePlot(io.Discard, rows[2:]); !errors.Is(err, ErrNothingToPlot) {
		t.Errorf("WritePlot of rows without figures = %v, want ErrNothingToPlot", err)
	}
}

// testRows: philo has a figure with states and time, moldyn one without
// time, nothing none.
func testRows() []bench.Row {
	f := func(x float64) *float64 { return &x }
	return []bench.Row{
		{Model: "philo", Params: "N=5", POR: "all", Verdict: "deadlock", States: 100, TimeS: 2,
			Published: []bench.PublishedFigure{{Source: "a", States: f(300), TimeS: f(4)}, {Source: "b", States: f(200), TimeS: f(3), SameParams: true}}},
		{Model: "moldyn", Params: "THREADS=2", POR: "none", Verdict: "ok", States: 10, TimeS: 1,
			Published: []bench.PublishedFigure{{Source: "a", States: f(50)}}},
		{Model: "nothing", POR: "none", Verdict: "ok"},
	}
}

// TestRun: mcvm-plot reads bench's JSON from a file or standard input and
// writes the SVG to standard output; bad JSON is an error naming the file.
func TestRun(t *testing.T) {
	data, err := json.Marshal(map[string]any{"rows": testRows()})
	if err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if code := run(nil, bytes.NewReader(data), &out, &errs); code != 0 || !strings.HasPrefix(out.String(), "<?xml") && !strings.Contains(out.String(), "<svg") {
		t.Fatalf("run from stdin = %d, %q, %.100q", code, errs.String(), out.String())
	}
	path := filepath.Join(t.TempDir(), "rows.json")
	os.WriteFile(path, []byte(`{"rows": [`), 0o644)
	out.Reset()
	errs.Reset()
	if code := run([]string{path}, nil, &out, &errs); code != 1 || !strings.Contains(errs.String(), "rows.json") || out.Len() != 0 {
		t.Errorf("run of truncated JSON = %d, %q, %d bytes out", code, errs.String(), out.Len())
	}
	if code := run([]string{"a", "b"}, nil, &out, &errs); code != 2 {
		t.Errorf("run with two files = %d, want 2", code)
	}
}
