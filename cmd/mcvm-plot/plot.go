// The suite against the published Java PathFinder figures, as a plot.

package main

import (
	"errors"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"mcvm/internal/bench"
)

// ErrNothingToPlot is returned by WritePlot when no row has published
// figures to compare with.
var ErrNothingToPlot = errors.New("no model has published figures to plot")

// WritePlot draws rows against their published figures (Row.Published,
// the first at the same parameters, else the first): states stored and
// time, mcvm's point beside JPF's for each model, on log scales, as SVG.
func WritePlot(w io.Writer, rows []bench.Row) error { return writeRows(w, rows, "svg") }

// writeRows is WritePlot in format (svg or png).
func writeRows(w io.Writer, rows []bench.Row, format string) error {
	var names []string
	var ours, theirs [2]plotter.Values // 0: states, 1: time
	for i := range rows {
		r := &rows[i]
		f := bestFigure(r.Published)
		if f == nil || f.States == nil || f.TimeS == nil {
			continue
		}
		label := r.Model
		if r.POR != "" && r.POR != "all" {
			label += " (" + r.POR + ")"
		}
		names = append(names, label)
		ours[0] = append(ours[0], positive(float64(r.States)))
		theirs[0] = append(theirs[0], positive(*f.States))
		ours[1] = append(ours[1], positive(r.TimeS))
		theirs[1] = append(theirs[1], positive(*f.TimeS))
	}
	if len(names) == 0 {
		return ErrNothingToPlot
	}
	const width, rowHeight = 9 * vg.Inch, 3.6 * vg.Inch
	canvas, err := newCanvas(format, width, 2*rowHeight)
	if err != nil {
		return err
	}
	dc := draw.New(canvas)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadTop: vg.Points(6), PadBottom: vg.Points(6), PadX: vg.Points(6), PadY: vg.Points(14)}
	titles := [2]string{"states stored", "time (s)"}
	for k := range 2 {
		p := plot.New()
		p.Title.Text = "mcvm and Java PathFinder (published): " + titles[k] + ", log scale"
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Legend.Top = true
		p.Legend.Left = true
		// (Points rather than bars: a bar starts at 0, which a log
		// scale cannot draw.)
		for j, series := range [2]plotter.Values{ours[k], theirs[k]} {
			xys := make(plotter.XYs, len(series))
			for i, v := range series {
				xys[i] = plotter.XY{X: float64(i) + 0.12*float64(2*j-1), Y: v}
			}
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return err
			}
			sc.GlyphStyle.Color = plotutil.Color(j)
			sc.GlyphStyle.Shape = [2]draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}}[j]
			sc.GlyphStyle.Radius = vg.Points(4)
			p.Add(sc)
			p.Legend.Add([2]string{"mcvm", "JPF (published)"}[j], sc)
		}
		p.NominalX(names...)
		p.X.Min, p.X.Max = -0.6, float64(len(names))-0.4
		p.Add(plotter.NewGrid())
		if p.Y.Min == p.Y.Max {
			// (gonum would widen a range of one value by 1 each way,
			// below 0, where a log scale panics.)
			p.Y.Min, p.Y.Max = p.Y.Min/10, math.Min(p.Y.Max*10, math.MaxFloat64)
		}
		p.Draw(tiles.At(dc, 0, k))
	}
	_, err = canvas.WriteTo(w)
	return err
}

// bestFigure is the published figure a row is plotted against: the first
// measured at the same parameters, else the first.
func bestFigure(fs []bench.PublishedFigure) *bench.PublishedFigure {
	for i := range fs {
		if fs[i].SameParams {
			return &fs[i]
		}
	}
	if len(fs) > 0 {
		return &fs[0]
	}
	return nil
}

// positive keeps a value drawable on a log scale.
func positive(x float64) float64 {
	if x <= 0 || math.IsNaN(x) {
		return 1e-3
	}
	return x
}
