// The figures published for Java PathFinder and MoonWalker, matched to rows.

package bench

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Published is the content of benchmarks/jpf-published.json: the tables
// the figures come from, the programs' parameters, and one object per
// published figure.
type Published struct {
	Sources map[string]struct {
		Table    string `json:"table"`
		Tool     string `json:"tool"`
		Hardware string `json:"hardware"`
	} `json:"sources"`
	Programs map[string]struct {
		Parameters string `json:"parameters"`
	} `json:"programs"`
	Figures []map[string]any `json:"figures"`
}

// PublishedFigure is a published JPF (or MoonWalker) result for a model.
type PublishedFigure struct {
	Source        string   `json:"source"`
	Tool          string   `json:"tool"`
	Params        string   `json:"params"`
	Variant       string   `json:"variant,omitempty"`
	States        *float64 `json:"states,omitempty"`
	TransPerState *float64 `json:"transitions_per_state,omitempty"`
	TimeS         *float64 `json:"time_s,omitempty"`
	MemoryMB      *float64 `json:"memory_mb,omitempty"`
	MaxDepth      *float64 `json:"max_depth,omitempty"`
	SameParams    bool     `json:"same_params"`
}

// ParsePublished reads the published figures from data; name is used in
// errors.
func ParsePublished(name string, data []byte) (*Published, error) {
	var p Published
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return &p, nil
}

// comparedSources are the tables whose rows describe whole verification
// runs of JPF on the same programs: the thesis's Table 3.1, and MoonWalker's
// Tables 7 and 8 (JPF beside MoonWalker on MolDyn and RayTracer).
var comparedSources = []string{"taleghani-thesis-t3.1", "nguyen-ruys-moonwalker-t7", "nguyen-ruys-moonwalker-t8"}

// match returns the published figures for row's model from the compared
// tables, noting whether they were measured at the same parameters.
func (p *Published) match(row *Row) []PublishedFigure {
	var out []PublishedFigure
	for _, src := range comparedSources {
		for _, f := range p.Figures {
			if f["program"] != row.Model || f["source"] != src {
				continue
			}
			pf := PublishedFigure{Source: p.Sources[src].Table, Tool: str(f["tool"]), Params: str(f["params"]), Variant: str(f["variant"])}
			pf.States, pf.TransPerState, pf.TimeS = num(f["states"]), num(f["transitions_per_state"]), num(f["time_s"])
			pf.MemoryMB, pf.MaxDepth = num(f["memory_mb"]), num(f["max_depth"])
			pf.SameParams = pf.Params == row.jgfParams() || row.sameThesisParams(pf.Params)
			out = append(out, pf)
		}
	}
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func num(v any) *float64 {
	if f, ok := v.(float64); ok {
		return &f
	}
	return nil
}

// sameThesisParams reports whether published parameters such as "5,4,4"
// are the values of the row's leading parameters.
func (r *Row) sameThesisParams(published string) bool {
	var vals []string
	for _, c := range r.consts {
		v := c.Value
		if x, ok := r.defines[c.Name]; ok {
			v = strconv.FormatInt(x, 10)
		}
		vals = append(vals, v)
		if strings.Join(vals, ",") == published {
			return true
		}
	}
	return false
}

// jgfParams renders THREADS-SIZE as MoonWalker's tables do (e.g. "2-1").
func (r *Row) jgfParams() string {
	get := func(name string) string {
		if x, ok := r.defines[name]; ok {
			return strconv.FormatInt(x, 10)
		}
		for _, c := range r.consts {
			if c.Name == name {
				return c.Value
			}
		}
		return ""
	}
	t, s := get("THREADS"), get("SIZE")
	if t == "" || s == "" {
		return ""
	}
	return t + "-" + s
}
