// Benchmarks: plain verification, verification writing a script, and
// certification of that script, side by side on the same models (issue 6's
// "certification faster than verification" is their ratio in one run).

package scc_test

import (
	"path/filepath"
	"testing"

	"mcvm/explorer"
	"mcvm/scc"
	"mcvm/vm"
)

// BenchmarkSCC runs, per model at its SMALL configuration, the search
// without a script (check), with one (verify) and the tamper-proof and
// trustful certifications of the scripts (certify, trustful), all
// unreduced with --continue:
//
//	go test ./scc -run XXX -bench SCC -count 5
func BenchmarkSCC(b *testing.B) {
	for _, c := range []struct {
		model string
		defs  map[string]int64
	}{
		{"elevator", map[string]int64{"ELEVATORS": 1, "FLOORS": 1, "PEOPLE": 1}},
		{"nestedmonitor", map[string]int64{"SIZE": 2, "PRODUCERS": 2, "CONSUMERS": 2, "ITEMS": 2}},
		{"raytracer", map[string]int64{"THREADS": 2, "SIZE": 1, "GRID": 1, "LIGHTS": 1, "MAXLEVEL": 0}},
		{"philo_ok", map[string]int64{"N": 6}},
	} {
		p := assemble(b, filepath.Join(modelsDir, c.model+".mcasm"), c.defs)
		g := vm.GranTransition
		opts := explorer.Options{Continue: true}
		v, full, err := scc.Verify(machine(b, p, g), opts, false, "none")
		if err != nil {
			b.Fatal(err)
		}
		_, trust, err := scc.Verify(machine(b, p, g), opts, true, "none")
		if err != nil {
			b.Fatal(err)
		}
		full, trust = reread(b, full), reread(b, trust)
		b.Run("model="+c.model+"/check", func(b *testing.B) {
			for b.Loop() {
				explorer.Search(machine(b, p, g), opts)
			}
		})
		b.Run("model="+c.model+"/verify", func(b *testing.B) {
			for b.Loop() {
				if _, _, err := scc.Verify(machine(b, p, g), opts, false, "none"); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("model="+c.model+"/certify", func(b *testing.B) {
			for b.Loop() {
				r, err := scc.Certify(machine(b, p, g), full, scc.Options{Continue: true})
				if err != nil || r.Stats.States != v.Stats.States {
					b.Fatalf("certified %d states (%v), verified %d", r.Stats.States, err, v.Stats.States)
				}
			}
		})
		b.Run("model="+c.model+"/trustful", func(b *testing.B) {
			for b.Loop() {
				r, err := scc.Certify(machine(b, p, g), trust, scc.Options{Continue: true})
				if err != nil || r.Stats.States != v.Stats.States {
					b.Fatalf("certified %d states (%v), verified %d", r.Stats.States, err, v.Stats.States)
				}
			}
		})
	}
}

// reread encodes s and reads it back, as certify gets a script from a file.
func reread(b testing.TB, s *scc.Script) *scc.Script {
	r, err := scc.Read(scc.Encode(s))
	if err != nil {
		b.Fatal(err)
	}
	return r
}
