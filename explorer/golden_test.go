package explorer_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"

	"mcvm/explorer"
	"mcvm/vm"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestFingerprints_golden pins the fingerprints of whole state spaces: the
// initial state's and a hash of the sorted set of all, per model. They must
// be the same on every run and every machine, so a change here means the
// canonical encoding changed (refresh with -update, and say so in the
// commit) or the encoding depends on something it must not.
func TestFingerprints_golden(t *testing.T) {
	const golden = "testdata/fingerprints.golden"
	var b strings.Builder
	for _, md := range smallModels(t) {
		p, path := md.prog, md.path
		for _, g := range []vm.Granularity{vm.GranTransition, vm.GranInstruction} {
			m, err := vm.New(p, vm.Options{Granularity: g})
			if err != nil {
				t.Fatal(err)
			}
			var fps []uint64
			res := explorer.Search(m, explorer.Options{Continue: true, MaxStates: 100000, Listeners: []explorer.Listener{explorer.Funcs{OnState: func(id int32, fp uint64) { fps = append(fps, fp) }}}})
			first := fps[0]
			slices.Sort(fps)
			h := xxhash.New()
			for _, fp := range fps {
				fmt.Fprintf(h, "%016x\n", fp)
			}
			fmt.Fprintf(&b, "%s %s states=%d initial=%016x all=%016x\n",
				filepath.Base(path), g, res.Stats.States, first, h.Sum64())
		}
	}
	checkGolden(t, golden, b.String())
}

// checkGolden compares got, line by line, with the golden file (written
// anew with -update) and reports each line that differs.
func checkGolden(t *testing.T, golden, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (create it with go test ./explorer -run %s -update)", err, t.Name())
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := range max(len(gl), len(wl)) {
		g, w := "(none)", "(none)"
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Errorf("%s line %d:\ngot  %s\nwant %s", golden, i+1, g, w)
		}
	}
}
