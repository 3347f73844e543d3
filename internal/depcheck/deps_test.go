package depcheck

import (
	"os/exec"
	"strings"
	"testing"
)

// forbidden lists, per package, the mcvm packages it must not depend on.
var forbidden = map[string][]string{
	"mcvm/bytecode": {"mcvm/asm", "mcvm/heap", "mcvm/vm", "mcvm/explorer", "mcvm/por", "mcvm/scc"},
	"mcvm/asm":      {"mcvm/heap", "mcvm/vm", "mcvm/explorer", "mcvm/por", "mcvm/scc"},
	"mcvm/heap":     {"mcvm/asm", "mcvm/vm", "mcvm/explorer", "mcvm/por", "mcvm/scc"},
	"mcvm/vm":       {"mcvm/asm", "mcvm/explorer", "mcvm/por", "mcvm/scc"},
	"mcvm/explorer": {"mcvm/asm", "mcvm/por", "mcvm/scc"},
	"mcvm/scc":      {"mcvm/asm", "mcvm/por"},
	// The product binary does not depend on the directory of models,
	// figures and scripts; its harness is internal/bench. Plotting is
	// mcvm-plot's, so that its library and fonts cost no check start-up.
	"mcvm/cmd/mcvm": {"mcvm/benchmarks", "gonum.org/v1/plot"},
	// The harness drives the checker through mcvm check in child processes.
	"mcvm/internal/bench": {"mcvm/benchmarks", "mcvm/explorer", "mcvm/por", "mcvm/scc"},
	// check --plot's progress document is a leaf.
	"mcvm/internal/progress": {"mcvm/bytecode", "mcvm/asm", "mcvm/heap", "mcvm/vm", "mcvm/explorer", "mcvm/por", "mcvm/scc",
		"mcvm/benchmarks", "mcvm/internal/bench", "gonum.org/v1/plot"},
	// The JPF report parser is a leaf.
	"mcvm/internal/jpfreport": {"mcvm/bytecode", "mcvm/asm", "mcvm/heap", "mcvm/vm", "mcvm/explorer", "mcvm/por", "mcvm/scc",
		"mcvm/benchmarks", "mcvm/internal/bench"},
}

// allowedExternal are the third-party modules mcvm may use (RATIONALE.md).
var allowedExternal = []string{
	"github.com/cespare/xxhash/v2",
	"github.com/spf13/pflag",
	"github.com/dgraph-io/ristretto/v2",
	"github.com/klauspost/compress",
	"gonum.org/v1/gonum", // tests only: the DOT parser of cmd/mcvm's graph test
	// mcvm-plot (bench --plot): gonum's plot and what it draws with.
	"gonum.org/v1/plot",
	"git.sr.ht/~sbinet/gg",
	"github.com/ajstarks/svgo",
	"github.com/golang/freetype",
	"golang.org/x/image",
	"golang.org/x/text",
	"codeberg.org/go-fonts/liberation",
	"codeberg.org/go-latex/latex",
	"codeberg.org/go-pdf/fpdf",
}

func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

func TestDependencies_direction(t *testing.T) {
	for pkg, bad := range forbidden {
		for _, d := range deps(t, pkg) {
			for _, b := range bad {
				if d == b {
					t.Errorf("%s imports %s (directly or not), which docs/design.md forbids", pkg, b)
				}
			}
		}
	}
}

func TestDependencies_external(t *testing.T) {
	for _, d := range deps(t, "mcvm/...") {
		if !strings.Contains(strings.SplitN(d, "/", 2)[0], ".") {
			continue // standard library or mcvm
		}
		ok := false
		for _, a := range allowedExternal {
			if strings.HasPrefix(d, a) {
				ok = true
			}
		}
		if !ok {
			t.Errorf("dependency %s is not among the chosen few; add it to RATIONALE.md and this list with a reason", d)
		}
	}
}
