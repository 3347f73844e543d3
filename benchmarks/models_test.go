package benchmarks_test

import (
	"os"
	"testing"

	"mcvm/asm"
	"mcvm/explorer"
	"mcvm/internal/bench"
	"mcvm/por"
	"mcvm/vm"
)

// TestModels_small checks every benchmark model at its SMALL configuration:
// a complete search gives exactly the recorded states and transitions, and
// a search that stops at the first error gives the recorded verdict (and a
// counterexample that replays).
func TestModels_small(t *testing.T) {
	models, err := bench.LoadModels("models")
	if err != nil {
		t.Fatal(err)
	}
	if len(models) < 3 {
		t.Fatalf("found only %d models", len(models))
	}
	for _, md := range models {
		t.Run("model="+md.Name, func(t *testing.T) {
			p, err := asm.AssembleFile(md.Path, asm.Options{Defines: md.Small.Defines})
			if err != nil {
				t.Fatal(err)
			}
			m, err := vm.New(p, vm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			full := explorer.Search(m, explorer.Options{Continue: true})
			if full.Stats.States != md.Small.States || full.Stats.Transitions != md.Small.Transitions {
				t.Errorf("SMALL: %d states, %d transitions, want %d and %d",
					full.Stats.States, full.Stats.Transitions, md.Small.States, md.Small.Transitions)
			}
			first := explorer.Search(m, explorer.Options{})
			if got := first.Verdict.String(); got != md.Small.Verdict {
				t.Errorf("SMALL: verdict %s, want %s", got, md.Small.Verdict)
			}
			if first.Fault != nil {
				if _, f, err := explorer.Replay(m, first.Path); err != nil || f == nil || f.Kind != first.Fault.Kind {
					t.Errorf("counterexample does not replay: %v %v", f, err)
				}
			}
		})
	}
}

// BenchmarkModels checks each benchmark model completely at its SMALL
// configuration, so that regressions show up in benchstat.
func BenchmarkModels(b *testing.B) {
	models, err := bench.LoadModels("models")
	if err != nil {
		b.Fatal(err)
	}
	for _, md := range models {
		b.Run("model="+md.Name, func(b *testing.B) {
			benchCheck(b, md.Name+".mcasm", md.Small.Defines, md.Small.States, explorer.StorageExact)
		})
	}
}

// TestModels_defaults checks each model's EXPECT verdict at its default
// (thesis) parameters with the default partial-order reduction, for the
// models whose reduced search stops (at its first error, or complete for
// ok) within 500,000 states; the others are logged. A verdict found is
// never allowed to differ from the recorded one.
func TestModels_defaults(t *testing.T) {
	if testing.Short() {
		t.Skip("thesis-sized models")
	}
	models, err := bench.LoadModels("models")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, md := range models {
		p, err := asm.AssembleFile(md.Path, asm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m, err := vm.New(p, por.All.VMOptions(vm.Options{}))
		if err != nil {
			t.Fatal(err)
		}
		res := explorer.Search(m, explorer.Options{MaxStates: 500000, Reducer: por.New(p, por.All)})
		got := res.Verdict.String()
		switch {
		case res.Verdict == explorer.VerdictLimit:
			t.Logf("%s: not decided within 500,000 states (EXPECT %s)", md.Name, md.Expect)
		case md.Expect == "unknown":
			t.Errorf("%s: verdict %s at the defaults, recorded as unknown: record it", md.Name, got)
		case got != md.Expect:
			t.Errorf("%s: verdict %s at the defaults, want %s", md.Name, got, md.Expect)
		default:
			checked++
		}
	}
	if checked < 6 {
		t.Errorf("only %d models decided at their defaults", checked)
	}
}

// TestModels_large checks the LARGE configurations (the results table's)
// exactly: a complete search with the default reduction (--por all with
// chains and sleep sets, as check runs it) gives the recorded
// states, transitions and verdict. Those of up to half a million states
// run in every test run (seconds); MCVM_LARGE=1 runs them all (the
// largest take minutes and gigabytes).
func TestModels_large(t *testing.T) {
	if testing.Short() {
		t.Skip("thesis-sized models")
	}
	models, err := bench.LoadModels("models")
	if err != nil {
		t.Fatal(err)
	}
	all := os.Getenv("MCVM_LARGE") == "1"
	ran := 0
	for _, md := range models {
		if md.Large.States > 500000 && !all {
			t.Logf("%s: LARGE has %d states; MCVM_LARGE=1 checks it", md.Name, md.Large.States)
			continue
		}
		ran++
		t.Run("model="+md.Name, func(t *testing.T) {
			p, err := asm.AssembleFile(md.Path, asm.Options{Defines: md.Large.Defines})
			if err != nil {
				t.Fatal(err)
			}
			m, err := vm.New(p, por.All.VMOptions(vm.Options{}))
			if err != nil {
				t.Fatal(err)
			}
			res := explorer.Search(m, explorer.Options{Continue: true, Reducer: por.New(p, por.All), Chain: true, Sleep: true})
			if res.Stats.States != md.Large.States || res.Stats.Transitions != md.Large.Transitions {
				t.Errorf("LARGE: %d states, %d transitions, want %d and %d",
					res.Stats.States, res.Stats.Transitions, md.Large.States, md.Large.Transitions)
			}
			if got := res.Verdict.String(); got != md.Large.Verdict {
				t.Errorf("LARGE: verdict %s, want %s", got, md.Large.Verdict)
			}
			if len(md.Large.Defines) == 0 && md.Expect != "unknown" && md.Large.Verdict != md.Expect {
				t.Errorf("LARGE is the defaults but its verdict %s is not EXPECT %s", md.Large.Verdict, md.Expect)
			}
		})
	}
	if ran < 5 {
		t.Errorf("only %d LARGE configurations are small enough to check here", ran)
	}
}
