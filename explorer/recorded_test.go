package explorer_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"

	"mcvm/asm"
	"mcvm/explorer"
	"mcvm/internal/progen"
	"mcvm/por"
	"mcvm/vm"
)

// TestEngine_recorded pins what searches do on generated programs, under
// every store, reduction and search order: verdict, states, transitions,
// revisits, errors, depth, instructions, the fingerprints of the states
// stored in the order they were stored, the transitions reported to
// listeners, and the counterexample. A change to the engine (a new
// skeleton, a store, a faster path) must leave every line as it is; one
// that means to change behaviour refreshes the file with -update and says
// why in its commit. benchmarks/engine-diff.py does the same for whole
// builds on the conformance programs and the models.
func TestEngine_recorded(t *testing.T) {
	const golden = "testdata/engine.golden"
	type gen struct {
		name string
		src  func(uint64) string
	}
	gens := []gen{
		{"plain", progen.Generate},
		{"por", progen.GeneratePOR},
		{"handlers", func(s uint64) string { return progen.GenerateWith(s, progen.Options{Handlers: true}) }},
		{"symmetric", func(s uint64) string { return progen.GenerateWith(s, progen.Options{Symmetric: true}) }},
	}
	type config struct {
		name     string
		mode     por.Mode
		opts     explorer.Options
		symmetry bool
	}
	configs := []config{
		{"dfs", por.None, explorer.Options{}, false},
		{"bfs", por.None, explorer.Options{Order: explorer.BFS}, false},
		{"hash-compact", por.None, explorer.Options{Storage: explorer.StorageHashCompact}, false},
		// No listener of transitions: the lookahead applies.
		{"hash-compact-ahead", por.None, explorer.Options{Storage: explorer.StorageHashCompact}, false},
		{"bitstate-ahead", por.None, explorer.Options{Storage: explorer.StorageBitstate, BitstateBits: 22}, false},
		{"bitstate", por.None, explorer.Options{Storage: explorer.StorageBitstate, BitstateBits: 20}, false},
		{"collapse", por.None, explorer.Options{Storage: explorer.StorageCollapse}, false},
		{"all", por.All, explorer.Options{Chain: true, Sleep: true}, false},
		{"all-nochain", por.All, explorer.Options{}, false},
		{"all-collapse", por.All, explorer.Options{Chain: true, Sleep: true, Storage: explorer.StorageCollapse}, false},
		{"all-hash-compact", por.All, explorer.Options{Chain: true, Storage: explorer.StorageHashCompact}, false},
		{"ample-static", por.Ample, explorer.Options{Proviso: explorer.ProvisoStatic}, false},
		{"all-bfs", por.All, explorer.Options{Order: explorer.BFS}, false},
		{"dpor", por.DPOR, explorer.Options{}, false},
		{"ample+dpor-sleep", por.Ample | por.DPOR, explorer.Options{Sleep: true}, false},
		{"all-symmetry", por.All, explorer.Options{Chain: true, Sleep: true, Symmetry: true}, true},
		{"shuffle", por.None, explorer.Options{Shuffle: 7}, false},
		{"max-depth", por.None, explorer.Options{MaxDepth: 12}, false},
	}
	n, err := progen.Count(3)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, g := range gens {
		for seed := uint64(1); seed <= uint64(n); seed++ {
			src := g.src(seed)
			p, err := asm.Assemble("gen.mcasm", []byte(src), asm.Options{})
			if err != nil {
				t.Fatalf("%s %d: %v", g.name, seed, err)
			}
			_, _, readsTID := vm.ThreadIDUse(p)
			for _, c := range configs {
				if c.symmetry && readsTID {
					continue
				}
				m, err := vm.New(p, c.mode.VMOptions(vm.Options{}))
				if err != nil {
					t.Fatal(err)
				}
				opts := c.opts
				opts.Continue, opts.MaxStates = true, 20000
				if r := por.New(p, c.mode); r != nil {
					if r.Reduces() {
						opts.Reducer = r
					}
					if c.mode&por.DPOR != 0 {
						opts.Dynamic = por.NewDynamic(r)
					}
				}
				states, trans := xxhash.New(), xxhash.New()
				opts.Listen(explorer.Funcs{OnState: func(id int32, fp uint64) { fmt.Fprintf(states, "%d %x\n", id, fp) }})
				if !strings.HasSuffix(c.name, "-ahead") {
					opts.Listen(explorer.Funcs{OnTransition: func(from int32, tr vm.Trans, method, pc, to int32, isNew bool) {
						fmt.Fprintf(trans, "%d %v %d %d %d %v\n", from, tr, method, pc, to, isNew)
					}})
				}
				res := explorer.Search(m, opts)
				st := res.Stats
				fmt.Fprintf(&b, "%s/%d/%s %s%s states=%d transitions=%d revisits=%d errors=%d depth=%d instructions=%d reduced=%d chained=%d slept=%d twins=%d fps=%016x trans=%016x path=%016x\n",
					g.name, seed, c.name, res.Verdict, limitOf(res), st.States, st.Transitions, st.Revisits, st.Errors,
					st.MaxDepth, st.Instructions, st.Reduced, st.Chained, st.Slept, st.Twins,
					states.Sum64(), trans.Sum64(), xxhash.Sum64String(fmt.Sprint(res.Path)))
			}
		}
	}
	if n != 3 {
		t.Skipf("MCVM_GEN_PROGRAMS=%d: the recorded figures are for 3 programs of each generator", n)
	}
	checkGolden(t, golden, b.String())
}

// limitOf names the limit that ended a search, if one did.
func limitOf(r *explorer.Result) string {
	if r.Limit == "" {
		return ""
	}
	return "(" + r.Limit + ")"
}
