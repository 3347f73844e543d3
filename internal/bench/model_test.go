package bench

import (
	"reflect"
	"strings"
	"testing"
)

const header = `; A model.
; EXPECT verdict=deadlock
; PARAMS N BUG
; SMALL -D N=3 -D BUG=1 verdict=deadlock states=262 transitions=748
; LARGE verdict=deadlock states=33 transitions=153
.const BUG 1   ; take forks in the wrong order
.const N 5
.const LIMIT 0x10
`

func TestParseModel(t *testing.T) {
	m, err := ParseModel("models/philo.mcasm", []byte(header))
	if err != nil {
		t.Fatal(err)
	}
	want := &Model{
		Name:   "philo",
		Path:   "models/philo.mcasm",
		Expect: "deadlock",
		Small:  Config{Defines: map[string]int64{"N": 3, "BUG": 1}, Verdict: "deadlock", States: 262, Transitions: 748},
		Large:  Config{Defines: map[string]int64{}, Verdict: "deadlock", States: 33, Transitions: 153},
		Consts: []Const{{"N", "5"}, {"BUG", "1"}},
	}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("ParseModel = %+v, want %+v", m, want)
	}
	if got, want := m.Params(map[string]int64{"N": 8}), "N=8 BUG=1"; got != want {
		t.Errorf("Params(N=8) = %q, want %q", got, want)
	}
}

func TestParseModel_noParams(t *testing.T) {
	in := strings.Replace(header, "; PARAMS N BUG\n", "", 1)
	m, err := ParseModel("m.mcasm", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if want := []Const{{"BUG", "1"}, {"N", "5"}, {"LIMIT", "0x10"}}; !reflect.DeepEqual(m.Consts, want) {
		t.Errorf("Consts = %v, want every .const: %v", m.Consts, want)
	}
}

func TestParseModel_errors(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"no EXPECT", "; EXPECT verdict=deadlock\n", "", `m.mcasm: no "; EXPECT verdict=V" line`},
		{"bad EXPECT", "; EXPECT verdict=deadlock", "; EXPECT deadlock", `m.mcasm:2: want "; EXPECT verdict=V"`},
		{"no SMALL", "; SMALL", "; small", `m.mcasm: no "; SMALL`},
		{"no LARGE", "; LARGE", "; large", `m.mcasm: no "; LARGE`},
		{"PARAMS names no const", "; PARAMS N BUG", "; PARAMS N M", "PARAMS names M, which is not a .const"},
		{"-D at the end", "transitions=153", "transitions=153 -D", "m.mcasm:5: -D without NAME=VALUE"},
		{"bad -D", "-D N=3 -D", "-D N=three -D", `m.mcasm:4: bad -D "N=three"`},
		{"bad count", "states=262", "states=many", `m.mcasm:4: bad states="many"`},
		{"unknown key", "states=33", "states=33 depth=4", `m.mcasm:5: unknown key "depth"`},
		{"stray word", "verdict=deadlock states=33", "verdict=deadlock soon states=33", `m.mcasm:5: unexpected "soon"`},
		{"missing count", " transitions=748", "", "m.mcasm:4: want verdict=, states= and transitions="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Replace(header, tc.old, tc.new, 1)
			if in == header {
				t.Fatalf("%q is not in the header", tc.old)
			}
			_, err := ParseModel("m.mcasm", []byte(in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseModel error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestLoadModels reads the repository's models: sorted, each with a
// SMALL and a LARGE configuration.
func TestLoadModels(t *testing.T) {
	ms, err := LoadModels("../../benchmarks/models")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) < 3 {
		t.Fatalf("LoadModels found %d models", len(ms))
	}
	for i, m := range ms {
		if i > 0 && ms[i-1].Name >= m.Name {
			t.Errorf("models not sorted: %s before %s", ms[i-1].Name, m.Name)
		}
		if m.Small.Verdict == "" || m.Large.Verdict == "" || len(m.Consts) == 0 {
			t.Errorf("%s: %+v", m.Name, m)
		}
	}
}

func suite() []*Model {
	return []*Model{
		{Name: "philo", Consts: []Const{{"N", "5"}}},
		{Name: "buffer", Consts: []Const{{"SIZE", "5"}, {"N", "2"}}},
	}
}

func TestSelect(t *testing.T) {
	got, err := Select(suite(), []string{"buffer", "philo"})
	if err != nil || len(got) != 2 || got[0].Name != "buffer" || got[1].Name != "philo" {
		t.Errorf("Select(buffer, philo) = %v, %v", got, err)
	}
	if _, err := Select(suite(), []string{"philo", "nosuch"}); err == nil || err.Error() != `no model "nosuch"` {
		t.Errorf("Select(nosuch) error = %v", err)
	}
}

func TestParseSets(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		want map[string]map[string]int64
		err  string
	}{
		{nil, map[string]map[string]int64{}, ""},
		{[]string{"N=3"}, map[string]map[string]int64{"philo": {"N": 3}, "buffer": {"N": 3}}, ""},
		{[]string{"N=3", "philo.N=0x8"}, map[string]map[string]int64{"philo": {"N": 8}, "buffer": {"N": 3}}, ""},
		{[]string{"SIZE=1"}, map[string]map[string]int64{"buffer": {"SIZE": 1}}, ""},
		{[]string{"philo.SIZE=1"}, nil, `--set "philo.SIZE=1": no selected model has a parameter SIZE`},
		{[]string{"N"}, nil, `--set "N": want NAME=VALUE`},
		{[]string{"N=x"}, nil, `--set "N=x": want NAME=VALUE`},
	} {
		got, err := ParseSets(tc.sets, suite())
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseSets(%q) error = %v, want %q", tc.sets, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseSets(%q) = %v, %v, want %v", tc.sets, got, err, tc.want)
		}
	}
}
