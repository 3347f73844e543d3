// The benchmark models and their header annotations.

package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Model is a benchmark model file with what its header says about it:
//
//	; EXPECT verdict=V                 the verdict at the default parameters (or "unknown")
//	; PARAMS NAME ...                  which constants are the model's parameters, in order
//	; SMALL -D K=V ... verdict=V states=N transitions=M
//	                                   a configuration that checks completely in seconds
//	; LARGE [-D K=V ...] verdict=V states=N transitions=M
//	                                   the suite's configuration for the results table: the
//	                                   defaults (no -D) when they check completely within 10
//	                                   minutes on 2 cores with the default reduction (--por
//	                                   all, with chains), else the largest probed that does; its
//	                                   figures are those of that complete (--continue) reduced check
//	.const NAME VALUE                  the constants and their defaults
type Model struct {
	Name   string // the file name without .mcasm
	Path   string
	Expect string // verdict at the defaults, "unknown" when not decided
	Small  Config
	Large  Config
	Consts []Const // the parameters (all constants when there is no PARAMS line)
}

// Config is a set of -D overrides with the figures of a complete check.
type Config struct {
	Defines     map[string]int64
	Verdict     string
	States      int64
	Transitions int64
}

// Const is a parameter of a model and its default value as written.
type Const struct {
	Name, Value string
}

// Params formats the model's parameters with overrides applied, e.g. "N=8 BUG=1".
func (m *Model) Params(set map[string]int64) string {
	var parts []string
	for _, c := range m.Consts {
		v := c.Value
		if x, ok := set[c.Name]; ok {
			v = strconv.FormatInt(x, 10)
		}
		parts = append(parts, c.Name+"="+v)
	}
	return strings.Join(parts, " ")
}

// LoadModels reads every *.mcasm model of dir, sorted by name.
func LoadModels(dir string) ([]*Model, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.mcasm"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []*Model
	for _, p := range paths {
		m, err := LoadModel(p)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// LoadModel reads one model's header.
func LoadModel(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseModel(path, data)
}

// ParseModel reads the header of a model whose source is data; path names
// it in the Model and in errors.
func ParseModel(path string, data []byte) (*Model, error) {
	m := &Model{Name: strings.TrimSuffix(filepath.Base(path), ".mcasm"), Path: path}
	var params []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		fail := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", path, n, fmt.Sprintf(format, args...))
		}
		switch {
		case strings.HasPrefix(line, "; EXPECT "):
			v, ok := strings.CutPrefix(strings.TrimPrefix(line, "; EXPECT "), "verdict=")
			if !ok {
				return nil, fail("want \"; EXPECT verdict=V\"")
			}
			m.Expect = strings.Fields(v)[0]
		case strings.HasPrefix(line, "; SMALL "):
			c, err := parseConfig(strings.TrimPrefix(line, "; SMALL "))
			if err != nil {
				return nil, fail("%v", err)
			}
			m.Small = c
		case strings.HasPrefix(line, "; LARGE "):
			c, err := parseConfig(strings.TrimPrefix(line, "; LARGE "))
			if err != nil {
				return nil, fail("%v", err)
			}
			m.Large = c
		case strings.HasPrefix(line, "; PARAMS "):
			params = strings.Fields(strings.TrimPrefix(line, "; PARAMS "))
		case strings.HasPrefix(line, ".const "):
			f := strings.Fields(strings.SplitN(line, ";", 2)[0])
			if len(f) >= 3 {
				m.Consts = append(m.Consts, Const{f[1], strings.Join(f[2:], " ")})
			}
		}
	}
	if m.Expect == "" {
		return nil, fmt.Errorf("%s: no \"; EXPECT verdict=V\" line", path)
	}
	if params != nil {
		all := m.Consts
		m.Consts = nil
		for _, name := range params {
			found := false
			for _, c := range all {
				if c.Name == name {
					m.Consts = append(m.Consts, c)
					found = true
				}
			}
			if !found {
				return nil, fmt.Errorf("%s: PARAMS names %s, which is not a .const", path, name)
			}
		}
	}
	if m.Small.Verdict == "" {
		return nil, fmt.Errorf("%s: no \"; SMALL ... verdict=V states=N transitions=M\" line", path)
	}
	if m.Large.Verdict == "" {
		return nil, fmt.Errorf("%s: no \"; LARGE [-D K=V ...] verdict=V states=N transitions=M\" line", path)
	}
	return m, nil
}

// parseConfig parses "-D K=V ... verdict=V states=N transitions=M".
func parseConfig(s string) (Config, error) {
	c := Config{Defines: map[string]int64{}, States: -1, Transitions: -1}
	f := strings.Fields(s)
	for i := 0; i < len(f); i++ {
		if f[i] == "-D" {
			if i+1 == len(f) {
				return c, fmt.Errorf("-D without NAME=VALUE")
			}
			i++
			k, v, ok := strings.Cut(f[i], "=")
			x, err := strconv.ParseInt(v, 0, 64)
			if !ok || err != nil {
				return c, fmt.Errorf("bad -D %q", f[i])
			}
			c.Defines[k] = x
			continue
		}
		k, v, ok := strings.Cut(f[i], "=")
		if !ok {
			return c, fmt.Errorf("unexpected %q", f[i])
		}
		switch k {
		case "verdict":
			c.Verdict = v
		case "states", "transitions":
			x, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return c, fmt.Errorf("bad %s=%q", k, v)
			}
			if k == "states" {
				c.States = x
			} else {
				c.Transitions = x
			}
		default:
			return c, fmt.Errorf("unknown key %q", k)
		}
	}
	if c.Verdict == "" || c.States < 0 || c.Transitions < 0 {
		return c, fmt.Errorf("want verdict=, states= and transitions=")
	}
	return c, nil
}

// Select returns the models of suite with the given names, in the order
// of names.
func Select(suite []*Model, names []string) ([]*Model, error) {
	byName := map[string]*Model{}
	for _, m := range suite {
		byName[m.Name] = m
	}
	var out []*Model
	for _, name := range names {
		m, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("no model %q", name)
		}
		out = append(out, m)
	}
	return out, nil
}

// ParseSets reads parameter settings (mcvm bench --set) into overrides per
// model name: NAME=VALUE sets the parameter of every model of suite that
// has it, MODEL.NAME=VALUE only MODEL's. A setting that no model of suite
// takes is an error.
func ParseSets(sets []string, suite []*Model) (map[string]map[string]int64, error) {
	out := map[string]map[string]int64{}
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		x, err := strconv.ParseInt(strings.TrimSpace(v), 0, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("--set %q: want NAME=VALUE or MODEL.NAME=VALUE with an integer value", s)
		}
		model, name, scoped := strings.Cut(k, ".")
		if !scoped {
			model, name = "", k
		}
		used := false
		for _, m := range suite {
			if scoped && m.Name != model {
				continue
			}
			for _, c := range m.Consts {
				if c.Name == name {
					if out[m.Name] == nil {
						out[m.Name] = map[string]int64{}
					}
					out[m.Name][name] = x
					used = true
				}
			}
		}
		if !used {
			return nil, fmt.Errorf("--set %q: no selected model has a parameter %s", s, name)
		}
	}
	return out, nil
}
