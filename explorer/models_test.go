package explorer_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mcvm/asm"
	"mcvm/bytecode"
	"mcvm/explorer"
)

// model is an assembled test model.
type model struct {
	path string
	prog *bytecode.Program
}

// smallModels returns the benchmark models at N = 3 followed by the
// conformance programs, assembled: the models the whole-state-space tests
// run on.
func smallModels(t testing.TB) []model {
	t.Helper()
	paths := []string{"../benchmarks/models/philo.mcasm", "../benchmarks/models/philo_ok.mcasm"}
	conf, _ := filepath.Glob(conformanceDir + "/*.mcasm")
	if len(conf) == 0 {
		t.Fatal("no conformance programs found")
	}
	var out []model
	for _, path := range append(paths, conf...) {
		var defs map[string]int64
		if strings.Contains(path, "philo") {
			defs = map[string]int64{"N": 3}
		}
		p, err := asm.AssembleFile(path, asm.Options{Defines: defs})
		if err != nil {
			t.Fatalf("AssembleFile(%q): %v", path, err)
		}
		out = append(out, model{path, p})
	}
	return out
}

// loadExpect reads a model's EXPECT line and assembles it.
func loadExpect(t *testing.T, path string) (expectation, *bytecode.Program) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := parseExpect(string(src))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	p, err := asm.AssembleFile(path, asm.Options{})
	if err != nil {
		t.Fatalf("AssembleFile(%q): %v", path, err)
	}
	return want, p
}

// tuned returns DefaultTuning changed by f, for Options.Tuning.
func tuned(f func(*explorer.Tuning)) *explorer.Tuning {
	tu := explorer.DefaultTuning()
	f(&tu)
	return &tu
}
