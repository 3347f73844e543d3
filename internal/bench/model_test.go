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
