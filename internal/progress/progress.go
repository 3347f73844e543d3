// The progress document: its types, Parse and Validate.

package progress

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// Kind is the value of Doc.Kind, which tells a progress document from
// mcvm bench's rows (which have no kind).
const Kind = "progress"

// The bounds Parse enforces. A recorder keeps far fewer samples
// (check thins them past a few thousand).
const (
	MaxBytes   = 16 << 20
	MaxSamples = 100_000
	MaxLevels  = 1 << 20
	maxText    = 256 // bytes of a model's name, a verdict, an estimator
)

// ErrInvalid is wrapped by every error of Parse about a document's
// contents (as against its JSON syntax).
var ErrInvalid = errors.New("invalid progress document")

// Doc is a search's progress.
type Doc struct {
	Kind    string `json:"kind"` // Kind
	Model   string `json:"model,omitempty"`
	Search  string `json:"search,omitempty"`  // dfs, bfs, ...
	Verdict string `json:"verdict,omitempty"` // ok, limit, deadlock, ...
	Limit   string `json:"limit,omitempty"`   // the limit that ended the search, if one did
	// Samples are in order of time; the last is the search's end.
	Samples []Sample `json:"samples"`
	// Levels: breadth-first search's new states per depth (empty for the
	// other orders).
	Levels []int64 `json:"levels,omitempty"`
	// Coverage is set when the search ended at a limit and its share of
	// the reachable states was estimated.
	Coverage *Coverage `json:"coverage,omitempty"`
}

// Sample is the search's figures at one time.
type Sample struct {
	ElapsedS    float64 `json:"elapsed_s"`
	States      int64   `json:"states"`
	Transitions int64   `json:"transitions"`
}

// Coverage is an estimate of the share of the reachable states a search
// visited, as mcvm check reports it.
type Coverage struct {
	Estimator string  `json:"estimator"`
	Visited   int64   `json:"visited"` // the states the search stored
	Share     float64 `json:"share"`   // Visited / the estimated reachable states, in (0, 1]
	Low       float64 `json:"low"`     // the interval of Share: 0 <= Low <= Share <= High <= 1
	High      float64 `json:"high"`
}

// Total is the estimated number of reachable states, Visited/Share.
func (c *Coverage) Total() float64 { return float64(c.Visited) / c.Share }

// Bounds is the interval of Total: Visited/High to Visited/Low, hi being
// +Inf when Low is 0.
func (c *Coverage) Bounds() (lo, hi float64) {
	lo, hi = float64(c.Visited)/c.High, math.Inf(1)
	if c.Low > 0 {
		hi = float64(c.Visited) / c.Low
	}
	return lo, hi
}

// Parse reads a progress document and checks it (Validate).
func Parse(data []byte) (*Doc, error) {
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrInvalid, MaxBytes)
	}
	var d Doc
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, err
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return &d, nil
}

// Validate checks what a plot relies on: the kind, at least one sample
// and at most MaxSamples, in order of time, figures not negative, at most
// MaxLevels levels, a coverage estimate's share and interval in range.
func (d *Doc) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
	}
	switch {
	case d.Kind != Kind:
		return bad("kind %q, want %q", d.Kind, Kind)
	case len(d.Samples) == 0:
		return bad("no samples")
	case len(d.Samples) > MaxSamples:
		return bad("%d samples, more than %d", len(d.Samples), MaxSamples)
	case len(d.Levels) > MaxLevels:
		return bad("%d levels, more than %d", len(d.Levels), MaxLevels)
	}
	for _, s := range []struct{ name, v string }{{"model", d.Model}, {"search", d.Search}, {"verdict", d.Verdict}, {"limit", d.Limit}} {
		if len(s.v) > maxText || !utf8.ValidString(s.v) {
			return bad("%s: want at most %d bytes of UTF-8", s.name, maxText)
		}
	}
	prev := 0.0
	for i, s := range d.Samples {
		switch {
		case !(s.ElapsedS >= prev) || math.IsInf(s.ElapsedS, 0):
			return bad("sample %d: elapsed_s %g, want a finite time not before the sample before", i+1, s.ElapsedS)
		case s.States < 0 || s.Transitions < 0:
			return bad("sample %d: negative figures", i+1)
		}
		prev = s.ElapsedS
	}
	for i, n := range d.Levels {
		if n < 0 {
			return bad("level %d: %d new states, want 0 or more", i, n)
		}
	}
	if c := d.Coverage; c != nil {
		switch {
		case c.Estimator == "" || len(c.Estimator) > maxText || !utf8.ValidString(c.Estimator):
			return bad("coverage: want an estimator's name")
		case c.Visited < 1:
			return bad("coverage: visited %d, want at least 1", c.Visited)
		case !(0 < c.Share && c.Share <= 1):
			return bad("coverage: share %g, want more than 0 and at most 1", c.Share)
		case !(0 <= c.Low && c.Low <= c.Share && c.Share <= c.High && c.High <= 1):
			return bad("coverage: interval %g-%g, want 0 <= low <= share %g <= high <= 1", c.Low, c.High, c.Share)
		case math.IsInf(c.Total(), 0):
			return bad("coverage: share %g of %d states visited: more states than a number holds", c.Share, c.Visited)
		}
	}
	return nil
}
