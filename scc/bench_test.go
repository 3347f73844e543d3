// Benchmarks: plain verification, verification writing a script, and
// certification of that script, side by side on the same models (issue 6's
// "certification faster than verification" is their ratio in one run).

package scc_test

import (
	"path/filepath"
	"testing"

	"mcvm/explorer"
	"mcvm/por"
	"mcvm/scc"
	"mcvm/vm"
)

// BenchmarkSCC runs, per model at its SMALL configuration, the search
// without a script (check), with one (verify) and the tamper-proof and
// trustful certifications of the scripts (certify, trustful), all with
// --continue, unreduced, and for two models at the results table's sizes
// with the default reduction and chains:
//
//	go test ./scc -run XXX -bench SCC -count 5
func BenchmarkSCC(b *testing.B) {
	none := reduction{por.None, "none", false}
	for _, c := range []struct {
		model string
		defs  map[string]int64
		red   reduction
	}{
		{"elevator", map[string]int64{"ELEVATORS": 1, "FLOORS": 1, "PEOPLE": 1}, none},
		{"nestedmonitor", map[string]int64{"SIZE": 2, "PRODUCERS": 2, "CONSUMERS": 2, "ITEMS": 2}, none},
		{"raytracer", map[string]int64{"THREADS": 2, "SIZE": 1, "GRID": 1, "LIGHTS": 1, "MAXLEVEL": 0}, none},
		{"philo_ok", map[string]int64{"N": 6}, none},
		// Reduced, with chains (verify's default), at the results table's sizes.
		{"pipeline", nil, reduction{por.All, "all/stack", true}},
		{"raytracer", nil, reduction{por.All, "all/stack", true}},
	} {
		p := assemble(b, filepath.Join(modelsDir, c.model+".mcasm"), c.defs)
		g := vm.GranTransition
		opts := explorer.Options{Continue: true}
		name := "model=" + c.model
		if c.red.mode != por.None {
			opts.Reducer, opts.Proviso, opts.Chain = por.New(p, c.red.mode), explorer.ProvisoStack, c.red.chain
			name += "/por=" + c.red.String()
		}
		mk := func() *vm.Machine { return c.red.machine(b, p, g) }
		co := scc.Options{Continue: true}
		if c.red.mode != por.None {
			co = c.red.options(p, co)
		}
		v, full, err := scc.Verify(mk(), opts, false, c.red.name)
		if err != nil {
			b.Fatal(err)
		}
		_, trust, err := scc.Verify(mk(), opts, true, c.red.name)
		if err != nil {
			b.Fatal(err)
		}
		full, trust = reread(b, full), reread(b, trust)
		b.Run(name+"/check", func(b *testing.B) {
			for b.Loop() {
				explorer.Search(mk(), opts)
			}
		})
		b.Run(name+"/verify", func(b *testing.B) {
			for b.Loop() {
				if _, _, err := scc.Verify(mk(), opts, false, c.red.name); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/certify", func(b *testing.B) {
			for b.Loop() {
				r, err := scc.Certify(mk(), full, co)
				if err != nil || r.Stats.States != v.Stats.States {
					b.Fatalf("certified %d states (%v), verified %d", r.Stats.States, err, v.Stats.States)
				}
			}
		})
		b.Run(name+"/trustful", func(b *testing.B) {
			for b.Loop() {
				r, err := scc.Certify(mk(), trust, co)
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
