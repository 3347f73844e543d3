// Plots: bench --plot's and check --plot's, which mcvm-plot draws.

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"mcvm/explorer"
	"mcvm/internal/progress"
)

// findPlotter returns the path of mcvm-plot, which draws the plots (the
// plotting library is kept out of this binary): beside this executable,
// else on PATH.
func findPlotter() (string, error) {
	if self, err := os.Executable(); err == nil {
		if p, err := exec.LookPath(filepath.Join(filepath.Dir(self), "mcvm-plot")); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath("mcvm-plot")
	if err != nil {
		return "", fmt.Errorf("--plot draws with mcvm-plot, found neither beside mcvm nor on PATH (go build -o DIR/mcvm-plot ./cmd/mcvm-plot, DIR beside mcvm)")
	}
	return p, nil
}

// drawPlot runs plotter with args on doc, as JSON, and writes what it
// draws to path (replaceFile: whole or not at all).
func drawPlot(plotter string, args []string, doc any, path string) error {
	in, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("--plot: %w", err)
	}
	var out, errs bytes.Buffer
	cmd := exec.Command(plotter, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &out, &errs
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("--plot: %s: %v: %s", plotter, err, strings.TrimSpace(errs.String()))
	}
	if err := replaceFile(path, out.Bytes()); err != nil {
		return fmt.Errorf("--plot: %w", err)
	}
	return nil
}

// plotFormat is the format check --plot writes to path, by its extension.
func plotFormat(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".svg", ".png":
		return ext[1:], nil
	}
	return "", fmt.Errorf("--plot %q: want a file ending in .svg or .png (the formats mcvm-plot writes)", path)
}

// Sampling of check --plot: the search reports its progress every
// plotEvery (progress lines are still printed every printEvery), and
// the recorder keeps at most maxPlotSamples, thinning them as it goes.
const (
	plotEvery      = 100 * time.Millisecond
	printEvery     = 5 * time.Second
	maxPlotSamples = 2048
)

// progressPlot records a search's progress for check --plot from the
// search's progress reports (a listener): the search's loop is unchanged,
// it looks at the clock every 1,024 steps anyway and only reports more
// often. When it holds maxPlotSamples samples it drops every other
// one and keeps later samples twice as far apart as before.
type progressPlot struct {
	path, format, plotter string
	samples               []progress.Sample
	gap                   float64 // seconds: the least time between samples kept (0: every report)
}

// newProgressPlot checks check --plot's path and finds mcvm-plot before
// the search, so that a long search does not end in a usage error.
func newProgressPlot(path string) (*progressPlot, error) {
	format, err := plotFormat(path)
	if err != nil {
		return nil, err
	}
	plotter, err := findPlotter()
	if err != nil {
		return nil, err
	}
	return &progressPlot{path: path, format: format, plotter: plotter, samples: []progress.Sample{{}}}, nil
}

// listen makes the search opts configures report its progress to pp
// every plotEvery.
func (pp *progressPlot) listen(opts *explorer.Options) {
	opts.ProgressEvery = plotEvery
	opts.Listen(explorer.Funcs{OnProgress: pp.add})
}

// add records a progress report.
func (pp *progressPlot) add(st explorer.Stats) {
	t := st.Elapsed.Seconds()
	if last := pp.samples[len(pp.samples)-1]; t < last.ElapsedS+pp.gap {
		return
	}
	pp.samples = append(pp.samples, progress.Sample{ElapsedS: t, States: st.States, Transitions: st.Transitions})
	if len(pp.samples) >= maxPlotSamples {
		kept := pp.samples[:1]
		for i := 2; i < len(pp.samples); i += 2 {
			kept = append(kept, pp.samples[i])
		}
		pp.samples = kept
		pp.gap = 2 * max(pp.gap, plotEvery.Seconds())
	}
}

// write draws the search's progress, ended with res, to the file: the
// samples and the end, breadth-first search's levels, and the coverage
// estimate if the search ended at a limit and made one.
func (pp *progressPlot) write(model string, order explorer.Order, res *explorer.Result) error {
	st := res.Stats
	end := progress.Sample{ElapsedS: max(st.Elapsed.Seconds(), pp.samples[len(pp.samples)-1].ElapsedS), States: st.States, Transitions: st.Transitions}
	d := &progress.Doc{Kind: progress.Kind, Model: filepath.Base(model), Search: order.String(), Verdict: res.Verdict.String(), Limit: res.Limit,
		Samples: append(pp.samples, end), Levels: st.Levels}
	if c := res.Coverage; c != nil {
		d.Coverage = &progress.Coverage{Estimator: c.Estimator.String(), Visited: c.Visited, Share: c.Share, Low: c.Low, High: c.High}
		if d.Validate() != nil {
			d.Coverage = nil // (an estimate the plot cannot draw; the report gives it)
		}
	}
	if err := d.Validate(); err != nil {
		return fmt.Errorf("--plot: internal error: %w", err)
	}
	return drawPlot(pp.plotter, []string{"--format", pp.format}, d, pp.path)
}
