package bench

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestWritePlot: the plot is well-formed SVG naming the models that have
// published figures with states and time, the same bytes every time; a
// suite with none is ErrNothingToPlot.
func TestWritePlot(t *testing.T) {
	rows := testRows(t)
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
