package explorer_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"mcvm/asm"
	"mcvm/explorer"
	"mcvm/internal/progen"
	"mcvm/vm"
)

// outcome is what a complete search of a program establishes, independent
// of how transitions are grouped: the property violations (by kind and
// place, deadlocks by state) and the end states.
type outcome struct {
	errors map[string]bool
	ends   map[uint64]bool
	limit  bool
}

func explore(t *testing.T, src string, g vm.Granularity, order explorer.Order) outcome {
	t.Helper()
	p, err := asm.Assemble("gen.mcasm", []byte(src), asm.Options{})
	if err != nil {
		t.Fatalf("generated program does not assemble: %v\n%s", err, src)
	}
	m, err := vm.New(p, vm.Options{Granularity: g})
	if err != nil {
		t.Fatal(err)
	}
	o := outcome{errors: map[string]bool{}, ends: map[uint64]bool{}}
	res := explorer.Search(m, explorer.Options{Order: order, Continue: true, MaxStates: 300000,
		Listeners: []explorer.Listener{o.listener()}})
	o.limit = res.Limit != ""
	return o
}

// listener notes the violations (deadlocks by state) and end states a
// search reports in o.
func (o outcome) listener() explorer.Listener {
	return explorer.Funcs{OnError: func(f *vm.Fault, fp uint64) {
		if f.Kind == vm.FaultDeadlock {
			o.errors[fmt.Sprintf("deadlock %016x", fp)] = true
			return
		}
		o.errors[fmt.Sprintf("%s %d:%d %s", f.Kind, f.Method, f.PC, f.Msg)] = true
	},
		OnEnd: func(fp uint64) { o.ends[fp] = true }}
}

// compareMerging explores generated program src with merged transitions
// and with single instructions, depth first, and, when they agree, with
// merged transitions breadth first: all three must find the same
// violations and end states. It returns the merged search's outcome, and
// false when a search hit its state limit (the program is not compared).
func compareMerging(t *testing.T, seed uint64, src string) (outcome, bool) {
	t.Helper()
	merged := explore(t, src, vm.GranTransition, explorer.DFS)
	fine := explore(t, src, vm.GranInstruction, explorer.DFS)
	if merged.limit || fine.limit {
		return merged, false
	}
	if !maps.Equal(merged.errors, fine.errors) || !maps.Equal(merged.ends, fine.ends) {
		t.Errorf("seed %d: merged transitions find errors %v and %d end states, single instructions %v and %d\n%s",
			seed, slices.Sorted(maps.Keys(merged.errors)), len(merged.ends),
			slices.Sorted(maps.Keys(fine.errors)), len(fine.ends), src)
		return merged, true
	}
	bfs := explore(t, src, vm.GranTransition, explorer.BFS)
	if !maps.Equal(merged.errors, bfs.errors) || !maps.Equal(merged.ends, bfs.ends) {
		t.Errorf("seed %d: DFS and BFS disagree\n%s", seed, src)
	}
	return merged, true
}

// TestGenerated_mergingIsSound checks transition merging against the
// unreduced search on generated programs: merging thread-local
// instructions into transitions must find exactly the same violations
// (assertions and exceptions at the same places, deadlocks in the same
// states) and the same end states as one instruction per transition; and
// depth-first and breadth-first search must agree. MCVM_GEN_PROGRAMS sets
// how many programs (default 150; run more with e.g. MCVM_GEN_PROGRAMS=5000).
func TestGenerated_mergingIsSound(t *testing.T) {
	n, err := progen.Count(150)
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		n = 30
	}
	compared, withErrors := 0, 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		merged, ok := compareMerging(t, seed, progen.Generate(seed))
		if !ok {
			continue
		}
		compared++
		if len(merged.errors) > 0 {
			withErrors++
		}
	}
	if compared < n*3/4 {
		t.Errorf("only %d of %d generated programs were small enough to compare", compared, n)
	}
	if withErrors < compared/10 {
		t.Errorf("only %d of %d generated programs have errors: the generator is too tame to test much", withErrors, compared)
	}
	t.Logf("compared %d programs, %d with errors", compared, withErrors)
}

// TestGenerated_handlers is TestGenerated_mergingIsSound on programs with
// structured exception handling (finally and catch handlers doing shared
// accesses, throws depending on shared state): merging must find the same
// violations and end states as single instructions, and DFS as BFS.
func TestGenerated_handlers(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 10
	}
	compared, withHandlers := 0, 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		src := progen.GenerateWith(seed, progen.Options{Handlers: true})
		if strings.Contains(src, ".finally") || strings.Contains(src, ".catch") {
			withHandlers++
		}
		if _, ok := compareMerging(t, seed, src); ok {
			compared++
		}
	}
	if compared < n/2 || withHandlers < n/2 {
		t.Errorf("compared %d of %d programs, %d with handlers: too few", compared, n, withHandlers)
	}
	t.Logf("compared %d programs, %d with handlers", compared, withHandlers)
}

// TestGenerated_model is TestGenerated_mergingIsSound on programs written
// as ported Promela models are (progen.GenerateModel): setup methods,
// atomic regions, valid end states and monitor leaks must give the same
// violations and end states merged as with single instructions, and DFS
// as BFS.
func TestGenerated_model(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 10
	}
	compared, withErrors := 0, 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		merged, ok := compareMerging(t, seed, progen.GenerateModel(seed))
		if !ok {
			continue
		}
		compared++
		if len(merged.errors) > 0 {
			withErrors++
		}
	}
	if compared < n*3/4 || withErrors < compared/10 {
		t.Errorf("compared %d of %d programs, %d with errors: too few", compared, n, withErrors)
	}
	t.Logf("compared %d programs, %d with errors", compared, withErrors)
}

// TestGenerate_deterministic checks that a seed always gives the same program.
func TestGenerate_deterministic(t *testing.T) {
	if progen.Generate(7) != progen.Generate(7) || progen.Generate(7) == progen.Generate(8) {
		t.Error("Generate is not a function of its seed")
	}
	for seed := uint64(1); seed <= 20; seed++ {
		if progen.GenerateWith(seed, progen.Options{}) != progen.Generate(seed) {
			t.Errorf("GenerateWith(%d, zero Options) differs from Generate(%d)", seed, seed)
		}
	}
}

// TestGenerated_ghost checks depth-first against breadth-first search on
// programs with ghost state, final fields and threads that stay at their
// end (progen.GenerateGhost): the same violations and end states. (Single
// instructions are not compared: at instruction granularity each ghost
// access is a step, so properties over ghost state may see it half
// updated; the reductions are compared with the unreduced search in
// package por.)
func TestGenerated_ghost(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 10
	}
	compared, withErrors := 0, 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		src := progen.GenerateGhost(seed)
		dfs := explore(t, src, vm.GranTransition, explorer.DFS)
		bfs := explore(t, src, vm.GranTransition, explorer.BFS)
		if dfs.limit || bfs.limit {
			continue
		}
		compared++
		if len(dfs.errors) > 0 {
			withErrors++
		}
		if !maps.Equal(dfs.errors, bfs.errors) || !maps.Equal(dfs.ends, bfs.ends) {
			t.Errorf("seed %d: DFS finds errors %v and %d end states, BFS %v and %d\n%s", seed,
				slices.Sorted(maps.Keys(dfs.errors)), len(dfs.ends), slices.Sorted(maps.Keys(bfs.errors)), len(bfs.ends), src)
		}
	}
	if compared < n*3/4 || withErrors < compared/10 {
		t.Errorf("compared %d of %d programs, %d with errors: too few", compared, n, withErrors)
	}
	t.Logf("compared %d programs, %d with errors", compared, withErrors)
}
