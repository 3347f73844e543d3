package explorer_test

import (
	"fmt"
	"slices"
	"testing"

	"mcvm/asm"
	"mcvm/explorer"
	"mcvm/internal/progen"
	"mcvm/vm"
)

// lookaheadRun is what a search reports that lookahead must not change.
type lookaheadRun struct {
	fps    []uint64 // new states, in the order stored
	errors []string // the errors, in the order found, with the fingerprints of their states
	res    *explorer.Result
}

func (r lookaheadRun) String() string {
	st := r.res.Stats
	return fmt.Sprintf("verdict %s limit %q: %d states %d transitions %d revisits %d instructions %d errors depth %d, path %v",
		r.res.Verdict, r.res.Limit, len(r.fps), st.Transitions, st.Revisits, st.Instructions, st.Errors, st.MaxDepth, r.res.Path)
}

func (r lookaheadRun) equal(o lookaheadRun) bool {
	a, b := r.res.Stats, o.res.Stats
	return slices.Equal(r.fps, o.fps) && slices.Equal(r.errors, o.errors) && r.res.Verdict == o.res.Verdict &&
		r.res.Limit == o.res.Limit && a.Transitions == b.Transitions && a.Revisits == b.Revisits &&
		a.Instructions == b.Instructions && a.Errors == b.Errors && a.MaxDepth == b.MaxDepth && slices.Equal(r.res.Path, o.res.Path)
}

// searchLookahead searches m's program with lookahead on or off.
func searchLookahead(t *testing.T, p *vm.Machine, opts explorer.Options, on bool) lookaheadRun {
	t.Helper()
	opts.Tuning = tuned(func(tu *explorer.Tuning) { tu.Lookahead = on })
	var r lookaheadRun
	opts.Listen(explorer.Funcs{OnState: func(id int32, fp uint64) { r.fps = append(r.fps, fp) }})
	opts.Listen(explorer.Funcs{OnError: func(f *vm.Fault, fp uint64) {
		r.errors = append(r.errors, fmt.Sprintf("%s %d:%d %016x", f.Kind, f.Method, f.PC, fp))
	}})
	r.res = explorer.Search(p, opts)
	return r
}

// TestDFS_lookahead checks lookahead against the search without it: with
// hash compaction and bitstate hashing, run to the end, stopped at the
// first error and stopped by a state bound, on every conformance program,
// the benchmark models and generated programs, the searches must store
// the same states in the same order and report the same transitions,
// revisits, instructions, errors, depth and path. MCVM_GEN_PROGRAMS sets
// how many generated programs (default 60).
func TestDFS_lookahead(t *testing.T) {
	type prog struct {
		name string
		m    func() *vm.Machine
	}
	machine := func(md model, g vm.Granularity) func() *vm.Machine {
		return func() *vm.Machine {
			m, err := vm.New(md.prog, vm.Options{Granularity: g})
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	var progs []prog
	for _, md := range append(smallModels(t), suiteModels(t, "moldyn", "elevator", "nestedmonitor")...) {
		progs = append(progs, prog{md.path, machine(md, vm.GranTransition)}, prog{md.path + "/instructions", machine(md, vm.GranInstruction)})
	}
	n, err := progen.Count(60)
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		n = 15
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		src := progen.GenerateWith(seed, progen.Options{Handlers: seed%2 == 0})
		p, err := asm.Assemble("gen.mcasm", []byte(src), asm.Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		progs = append(progs, prog{fmt.Sprintf("generated seed %d", seed), machine(model{"gen", p}, vm.GranTransition)})
	}
	looked := 0
	for _, pr := range progs {
		for _, st := range []explorer.Storage{explorer.StorageHashCompact, explorer.StorageBitstate} {
			for _, o := range []explorer.Options{
				{Continue: true, MaxStates: 20000},
				{MaxStates: 20000},
				{Continue: true, MaxStates: 40},
			} {
				o.Storage, o.BitstateBits = st, 20
				with := searchLookahead(t, pr.m(), o, true)
				without := searchLookahead(t, pr.m(), o, false)
				if !with.equal(without) {
					t.Errorf("%s, %s, continue %v, max states %d:\nwith lookahead    %v\nwithout lookahead %v",
						pr.name, st, o.Continue, o.MaxStates, with, without)
				}
				if with.res.Stats.Revisits > 0 {
					looked++
				}
			}
		}
	}
	if looked < len(progs) {
		t.Errorf("only %d of %d searches revisited a state: too little to compare", looked, 6*len(progs))
	}
}
