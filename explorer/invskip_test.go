package explorer_test

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"mcvm/asm"
	"mcvm/explorer"
	"mcvm/internal/progen"
	"mcvm/por"
	"mcvm/vm"
)

// TestInvariants_skipMatchesFullCheck checks that skipping the
// invariants where no write they read happened since the last check
// (vm.Machine.InvariantsChanged) changes nothing: on generated programs
// of the three generators, with invariants over statics, fields and
// arrays, the unreduced search and the default reduction (chains and
// sleep sets) find the same violations, each in the same state, and the
// same numbers of states and transitions, as when every state's
// invariants are evaluated. MCVM_GEN_PROGRAMS sets the number of programs
// per generator (default 60).
func TestInvariants_skipMatchesFullCheck(t *testing.T) {
	n, err := progen.Count(60)
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		n = 15
	}
	handlers := func(seed uint64) string { return progen.GenerateWith(seed, progen.Options{Handlers: true}) }
	var srcs []string
	for _, g := range []func(uint64) string{progen.GeneratePOR, progen.Generate, handlers} {
		for seed := uint64(1); seed <= uint64(n); seed++ {
			srcs = append(srcs, g(seed))
		}
	}
	// Invariants that read fields and array elements (the generated ones
	// read statics): a regression program and the bounded buffer.
	for _, path := range []string{"testdata/invariant_reads.mcasm", "../benchmarks/models/boundedbuffer.mcasm"} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// (The bounded buffer at its SMALL size.)
		src := strings.NewReplacer(".const SIZE 5", ".const SIZE 1", ".const PRODUCERS 4", ".const PRODUCERS 2",
			".const CONSUMERS 4", ".const CONSUMERS 2", ".const ITEMS 3", ".const ITEMS 2").Replace(string(b))
		srcs = append(srcs, src)
	}
	withInv, violations := 0, 0
	for seed, src := range srcs {
		p, err := asm.Assemble("gen.mcasm", []byte(src), asm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Invariants) == 0 {
			continue
		}
		withInv++
		for _, mode := range []por.Mode{por.None, por.All} {
			run := func(skip bool) (map[string]bool, explorer.Stats) {
				m, err := vm.New(p, mode.VMOptions(vm.Options{}))
				if err != nil {
					t.Fatal(err)
				}
				errs := map[string]bool{}
				opts := explorer.Options{Continue: true, MaxStates: 200000, Chain: true, Sleep: true,
					Tuning: tuned(func(tu *explorer.Tuning) { tu.SkipInvariants = skip }),
					Listeners: []explorer.Listener{explorer.Funcs{OnError: func(f *vm.Fault, fp uint64) {
						errs[fmt.Sprintf("%s %d:%d %s %x", f.Kind, f.Method, f.PC, f.Msg, fp)] = true
					}}}}
				if r := por.New(p, mode); r != nil {
					opts.Reducer = r
				}
				return errs, explorer.Search(m, opts).Stats
			}
			full, fst := run(false)
			skip, sst := run(true)
			for e := range full {
				if strings.HasPrefix(e, "invariant") {
					violations++
					break
				}
			}
			if !maps.Equal(full, skip) || fst.States != sst.States || fst.Transitions != sst.Transitions {
				t.Errorf("program %d --por=%s: skipping finds %v in %d states, %d transitions; checking every state %v in %d, %d\n%s",
					seed, mode, slices.Sorted(maps.Keys(skip)), sst.States, sst.Transitions,
					slices.Sorted(maps.Keys(full)), fst.States, fst.Transitions, src)
			}
		}
	}
	if withInv < n/2 || violations < n/4 {
		t.Errorf("only %d programs with invariants, %d searches with violations: too few to test", withInv, violations)
	}
	t.Logf("%d programs with invariants, %d searches with violations", withInv, violations)
}
