// A search's progress (mcvm check --plot), as a plot.

package main

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"mcvm/internal/progress"
)

// newCanvas is a canvas of w by h that writes itself in format.
func newCanvas(format string, w, h vg.Length) (vg.CanvasWriterTo, error) {
	switch format {
	case "svg":
		return vgsvg.New(w, h), nil
	case "png":
		return vgimg.PngCanvas{Canvas: vgimg.New(w, h)}, nil
	}
	return nil, fmt.Errorf("--format: want svg or png, got %q", format)
}

// bandCap bounds how far above the estimate the shaded interval is
// drawn: an interval with no upper bound (a share's lower bound of 0)
// or a very wide one would squash the curve it is there to explain.
const bandCap = 4

// WriteProgress draws d in format (svg or png): the states stored over
// time, with, when the search ended at a limit with an estimate, the
// estimated number of reachable states as a dashed line and its interval
// shaded; and, when d has breadth-first levels, their new states in a
// second panel.
func WriteProgress(w io.Writer, d *progress.Doc, format string) error {
	if err := d.Validate(); err != nil {
		return err
	}
	const width, panelHeight = 8 * vg.Inch, 4 * vg.Inch
	panels := 1
	if len(d.Levels) > 0 {
		panels = 2
	}
	canvas, err := newCanvas(format, width, vg.Length(panels)*panelHeight)
	if err != nil {
		return err
	}
	dc := draw.New(canvas)
	tiles := draw.Tiles{Rows: panels, Cols: 1, PadTop: vg.Points(6), PadBottom: vg.Points(6), PadX: vg.Points(6), PadY: vg.Points(14)}
	p, err := statesOverTime(d)
	if err != nil {
		return err
	}
	p.Draw(tiles.At(dc, 0, 0))
	if panels == 2 {
		p, err := statesPerLevel(d)
		if err != nil {
			return err
		}
		p.Draw(tiles.At(dc, 0, 1))
	}
	_, err = canvas.WriteTo(w)
	return err
}

// statesOverTime is the first panel: states stored against seconds.
func statesOverTime(d *progress.Doc) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title(d)
	p.X.Label.Text = "time (s)"
	p.Y.Label.Text = "states stored"
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	xys := make(plotter.XYs, len(d.Samples))
	last := d.Samples[len(d.Samples)-1]
	xMax, yMax := math.Max(last.ElapsedS, 1e-3), 1.0
	for i, s := range d.Samples {
		xys[i] = plotter.XY{X: s.ElapsedS, Y: float64(s.States)}
		yMax = math.Max(yMax, float64(s.States))
	}
	if c := d.Coverage; c != nil {
		total := c.Total()
		lo, hi := c.Bounds()
		hi = math.Min(hi, bandCap*total)
		band, err := plotter.NewPolygon(plotter.XYs{{X: 0, Y: lo}, {X: xMax, Y: lo}, {X: xMax, Y: hi}, {X: 0, Y: hi}})
		if err != nil {
			return nil, err
		}
		band.Color = color.NRGBA{R: 230, G: 120, B: 30, A: 50}
		band.LineStyle.Width = 0
		p.Add(band)
		line, err := plotter.NewLine(plotter.XYs{{X: 0, Y: total}, {X: xMax, Y: total}})
		if err != nil {
			return nil, err
		}
		line.Color = color.NRGBA{R: 200, G: 90, B: 0, A: 255}
		line.Width = vg.Points(1.5)
		line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		p.Add(line)
		p.Legend.Add(estimateLabel(c), line)
		p.Legend.Add(intervalLabel(c), band)
		yMax = math.Max(yMax, hi) * 1.15 // (room for the legend above the band)
	}
	line, err := plotter.NewLine(xys)
	if err != nil {
		return nil, err
	}
	line.Color = plotutil.Color(0)
	line.Width = vg.Points(1.5)
	p.Add(line)
	p.Legend.Add("states stored", line)
	p.X.Min, p.X.Max = 0, xMax
	p.Y.Min, p.Y.Max = 0, yMax*1.05
	p.Y.Tick.Marker = countTicks{}
	return p, nil
}

// statesPerLevel is the second panel: breadth-first search's new states
// per depth.
func statesPerLevel(d *progress.Doc) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "new states per breadth-first level"
	p.X.Label.Text = "depth"
	p.Y.Label.Text = "new states"
	h := &plotter.Histogram{Bins: make([]plotter.HistogramBin, len(d.Levels)), FillColor: plotutil.Color(0), LineStyle: plotter.DefaultLineStyle}
	h.LineStyle.Width = 0
	yMax := 1.0
	for i, n := range d.Levels {
		h.Bins[i] = plotter.HistogramBin{Min: float64(i) - 0.4, Max: float64(i) + 0.4, Weight: float64(n)}
		yMax = math.Max(yMax, float64(n))
	}
	p.Add(plotter.NewGrid(), h)
	p.X.Min, p.X.Max = -0.6, float64(len(d.Levels))-0.4
	p.Y.Min, p.Y.Max = 0, yMax*1.05
	p.X.Tick.Marker, p.Y.Tick.Marker = countTicks{}, countTicks{}
	return p, nil
}

// countTicks are plot.DefaultTicks labelled without trailing zeros
// ("5000", not "5000.00"), as counts of states are.
type countTicks struct{}

// Ticks implements plot.Ticker.
func (countTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', -1, 64)
		}
	}
	return ts
}

// title says what was searched and how it ended.
func title(d *progress.Doc) string {
	t := "mcvm check"
	if d.Model != "" {
		t += " " + shorten(d.Model, 60)
	}
	if d.Search != "" {
		t += " (" + d.Search + ")"
	}
	if d.Verdict != "" {
		t += ": " + d.Verdict
		if d.Limit != "" {
			t += " (" + d.Limit + " limit)"
		}
	}
	return t
}

// estimateLabel is the estimate line's legend entry, as check's report
// words it: "estimate (walk): about 23% covered, 4350 states".
func estimateLabel(c *progress.Coverage) string {
	return fmt.Sprintf("estimate (%s): about %s covered, %s states", shorten(c.Estimator, 20), progress.Percent(c.Share), progress.RoundStates(c.Total()))
}

// intervalLabel is the shaded interval's legend entry.
func intervalLabel(c *progress.Coverage) string {
	lo, hi := c.Bounds()
	up := "no upper bound"
	if !math.IsInf(hi, 1) {
		up = progress.RoundStates(hi)
	}
	return fmt.Sprintf("interval %s-%s covered: %s to %s states", progress.Percent(c.Low), progress.Percent(c.High), progress.RoundStates(lo), up)
}

// shorten cuts s to n runes, marking the cut.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
