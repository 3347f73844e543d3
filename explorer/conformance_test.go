// Conformance: every model in testdata/conformance checked against the EXPECT line of its header.

package explorer_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/vm"
)

const conformanceDir = "../testdata/conformance"

// expectation is a model's EXPECT line:
//
//	; EXPECT verdict=V [states=N] [transitions=M] [errors=K]
//
// verdict is what a depth-first search that stops at the first error
// reports; states, transitions and errors are the figures of a search with
// Continue, which are the same in every search order. A count that is not
// given is -1.
type expectation struct {
	verdict                     string
	states, transitions, errors int64
}

// parseExpect finds the one EXPECT line of a model's source.
func parseExpect(src string) (expectation, error) {
	e := expectation{states: -1, transitions: -1, errors: -1}
	var found []string
	for _, ln := range strings.Split(src, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(ln), "; EXPECT"); ok {
			found = append(found, rest)
		}
	}
	switch len(found) {
	case 0:
		return e, fmt.Errorf(`no "; EXPECT verdict=..." line`)
	case 1:
	default:
		return e, fmt.Errorf("%d EXPECT lines, want one", len(found))
	}
	seen := map[string]bool{}
	for _, f := range strings.Fields(found[0]) {
		k, v, ok := strings.Cut(f, "=")
		if !ok || v == "" {
			return e, fmt.Errorf("EXPECT: %q is not KEY=VALUE", f)
		}
		if seen[k] {
			return e, fmt.Errorf("EXPECT: %s given twice", k)
		}
		seen[k] = true
		switch k {
		case "verdict":
			switch v {
			case "ok", "deadlock", "assertion", "invariant", "exception", "livelock":
				e.verdict = v
			default:
				return e, fmt.Errorf("EXPECT: unknown verdict %q (want ok, deadlock, assertion, invariant, exception or livelock)", v)
			}
		case "states", "transitions", "errors":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return e, fmt.Errorf("EXPECT: %s=%q is not a non-negative integer", k, v)
			}
			switch k {
			case "states":
				e.states = n
			case "transitions":
				e.transitions = n
			default:
				e.errors = n
			}
		default:
			return e, fmt.Errorf("EXPECT: unknown key %q (want verdict, states, transitions or errors)", k)
		}
	}
	if e.verdict == "" {
		return e, fmt.Errorf("EXPECT: no verdict")
	}
	return e, nil
}

func TestParseExpect(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want expectation
		err  string
	}{
		{"; EXPECT verdict=ok states=3 transitions=2\n.class A", expectation{"ok", 3, 2, -1}, ""},
		{"; head\n  ; EXPECT verdict=deadlock states=4 transitions=5 errors=1", expectation{"deadlock", 4, 5, 1}, ""},
		{"; EXPECT verdict=invariant", expectation{"invariant", -1, -1, -1}, ""},
		{".class A\n", expectation{}, "no"},
		{"; EXPECT verdict=ok\n; EXPECT verdict=ok", expectation{}, "2 EXPECT lines"},
		{"; EXPECT states=3", expectation{}, "no verdict"},
		{"; EXPECT verdict=limit", expectation{}, "unknown verdict"},
		{"; EXPECT verdict=ok states=-1", expectation{}, "non-negative"},
		{"; EXPECT verdict=ok states=3 states=4", expectation{}, "twice"},
		{"; EXPECT verdict=ok depth=3", expectation{}, "unknown key"},
		{"; EXPECT verdict ok", expectation{}, "KEY=VALUE"},
	} {
		got, err := parseExpect(tc.src)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseExpect(%q) error = %v, want one containing %q", tc.src, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseExpect(%q) = %+v, %v, want %+v", tc.src, got, err, tc.want)
		}
	}
}

// fpSearch runs a search and records the fingerprints of the new states in
// the order the search stores them.
func fpSearch(m *vm.Machine, opts explorer.Options) (*explorer.Result, []uint64) {
	var fps []uint64
	opts.Listen(explorer.Funcs{OnState: func(id int32, fp uint64) { fps = append(fps, fp) }})
	return explorer.Search(m, opts), fps
}

func fpSet(fps []uint64) map[uint64]bool {
	set := make(map[uint64]bool, len(fps))
	for _, fp := range fps {
		set[fp] = true
	}
	return set
}

// TestConformance checks every model of testdata/conformance: the figures
// of exhaustive DFS and BFS against the EXPECT line and against each other
// (the same set of states), the verdict of a search that stops at the
// first error, the counterexample's replay and trail, determinism, and the
// verdict with instruction granularity.
func TestConformance(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(conformanceDir, "*.mcasm"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no models in %s (%v)", conformanceDir, err)
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".mcasm")
		t.Run("model="+name, func(t *testing.T) { testConformanceModel(t, path) })
	}
}

func testConformanceModel(t *testing.T, path string) {
	want, p := loadExpect(t, path)
	newMachine := func(t *testing.T, g vm.Granularity) *vm.Machine {
		t.Helper()
		m, err := vm.New(p, vm.Options{Granularity: g})
		if err != nil {
			t.Fatalf("vm.New(%s, %s): %v", path, g, err)
		}
		return m
	}

	// Exhaustive searches in both orders: the EXPECT figures, and the same
	// set of states.
	results := map[explorer.Order]*explorer.Result{}
	fps := map[explorer.Order][]uint64{}
	for _, order := range []explorer.Order{explorer.DFS, explorer.BFS} {
		t.Run("search="+order.String(), func(t *testing.T) {
			res, got := fpSearch(newMachine(t, vm.GranTransition), explorer.Options{Order: order, Continue: true})
			results[order], fps[order] = res, got
			checkFigures(t, fmt.Sprintf("Search(%s, continue)", order), res.Stats, want)
			if ok := want.verdict == "ok"; ok != (res.Verdict == explorer.VerdictOK) {
				t.Errorf("Search(%s, continue) verdict = %s, want ok iff EXPECT verdict (%s) is ok", order, res.Verdict, want.verdict)
			}
			if int64(len(got)) != res.Stats.States {
				t.Errorf("Search(%s, continue): OnState called %d times for %d states", order, len(got), res.Stats.States)
			}
		})
	}
	if d, b := results[explorer.DFS], results[explorer.BFS]; d != nil && b != nil {
		if d.Stats.States != b.Stats.States || d.Stats.Transitions != b.Stats.Transitions || d.Stats.Errors != b.Stats.Errors {
			t.Errorf("DFS states/transitions/errors = %d/%d/%d, BFS = %d/%d/%d, want equal",
				d.Stats.States, d.Stats.Transitions, d.Stats.Errors, b.Stats.States, b.Stats.Transitions, b.Stats.Errors)
		}
		ds, bs := fpSet(fps[explorer.DFS]), fpSet(fps[explorer.BFS])
		for fp := range ds {
			if !bs[fp] {
				t.Errorf("state %016x found by DFS, not by BFS", fp)
			}
		}
		for fp := range bs {
			if !ds[fp] {
				t.Errorf("state %016x found by BFS, not by DFS", fp)
			}
		}
		if fps[explorer.DFS][0] != fps[explorer.BFS][0] {
			t.Errorf("initial state: DFS %016x, BFS %016x", fps[explorer.DFS][0], fps[explorer.BFS][0])
		}
	}

	// The search that stops at the first error: its verdict, and its
	// counterexample replayed directly and through a trail file.
	t.Run("stop=first", func(t *testing.T) {
		checkVerdict(t, p, newMachine(t, vm.GranTransition), vm.GranTransition, want.verdict)
	})

	// Determinism: the same search stores the same states in the same
	// order, also on a machine that has run other searches before.
	t.Run("determinism", func(t *testing.T) {
		m := newMachine(t, vm.GranTransition)
		explorer.Search(m, explorer.Options{Order: explorer.BFS})
		r1, fp1 := fpSearch(m, explorer.Options{Continue: true})
		_, fp2 := fpSearch(newMachine(t, vm.GranTransition), explorer.Options{Continue: true})
		if !slices.Equal(fp1, fp2) {
			i := 0
			for i < len(fp1) && i < len(fp2) && fp1[i] == fp2[i] {
				i++
			}
			t.Errorf("two DFS runs store different sequences of states: %d and %d states, first difference at state %d", len(fp1), len(fp2), i)
		}
		if d := results[explorer.DFS]; d != nil && (r1.Stats.States != d.Stats.States || r1.Stats.Transitions != d.Stats.Transitions) {
			t.Errorf("a reused machine gives %d states, %d transitions; a fresh one %d, %d",
				r1.Stats.States, r1.Stats.Transitions, d.Stats.States, d.Stats.Transitions)
		}
	})

	// Instruction granularity splits transitions into single instructions:
	// more states, but the same verdict, and errors exactly when the
	// default granularity has them. (But a livelock, found within one
	// transition, is a cycle of states when every instruction is a
	// transition: the models with one have no other error.)
	t.Run("granularity=instruction", func(t *testing.T) {
		m := newMachine(t, vm.GranInstruction)
		verdict := want.verdict
		if verdict == "livelock" {
			verdict = "ok"
		}
		checkVerdict(t, p, m, vm.GranInstruction, verdict)
		res := explorer.Search(m, explorer.Options{Continue: true})
		d := results[explorer.DFS]
		if d == nil || want.verdict == "livelock" {
			return
		}
		if (res.Stats.Errors == 0) != (d.Stats.Errors == 0) {
			t.Errorf("Search(continue) errors = %d with instruction granularity, %d with transition granularity: want both zero or both non-zero",
				res.Stats.Errors, d.Stats.Errors)
		}
		if res.Stats.States < d.Stats.States {
			t.Errorf("instruction granularity: %d states, fewer than transition granularity's %d", res.Stats.States, d.Stats.States)
		}
	})
}

// checkFigures compares a search's figures with the expected ones; errors
// not given must be 0 for verdict ok and positive otherwise.
func checkFigures(t *testing.T, what string, st explorer.Stats, want expectation) {
	t.Helper()
	if want.states >= 0 && st.States != want.states {
		t.Errorf("%s states = %d, want %d", what, st.States, want.states)
	}
	if want.transitions >= 0 && st.Transitions != want.transitions {
		t.Errorf("%s transitions = %d, want %d", what, st.Transitions, want.transitions)
	}
	switch {
	case want.errors >= 0:
		if st.Errors != want.errors {
			t.Errorf("%s errors = %d, want %d", what, st.Errors, want.errors)
		}
	case want.verdict == "ok":
		if st.Errors != 0 {
			t.Errorf("%s errors = %d, want 0 (verdict ok)", what, st.Errors)
		}
	default:
		if st.Errors == 0 {
			t.Errorf("%s errors = 0, want at least 1 (verdict %s)", what, want.verdict)
		}
	}
}

// checkVerdict runs a DFS that stops at the first error and checks its
// verdict; for an error, the path must replay to the same fault, directly
// and after a round trip through the trail format.
func checkVerdict(t *testing.T, p *bytecode.Program, m *vm.Machine, g vm.Granularity, want string) {
	t.Helper()
	res := explorer.Search(m, explorer.Options{})
	if got := res.Verdict.String(); got != want {
		msg := ""
		if res.Fault != nil {
			msg = " (" + res.Fault.Msg + ")"
		}
		t.Fatalf("Search(dfs) verdict = %s%s, want %s", got, msg, want)
	}
	if res.Verdict == explorer.VerdictOK {
		if res.Fault != nil || len(res.Path) != 0 {
			t.Errorf("Search(dfs) verdict ok with fault %+v and a path of %d steps", res.Fault, len(res.Path))
		}
		return
	}
	if res.Fault == nil {
		t.Fatalf("Search(dfs) verdict %s without a fault", res.Verdict)
	}
	replay := func(path []vm.Trans, how string) {
		t.Helper()
		_, f, err := explorer.Replay(m, path)
		if err != nil {
			t.Fatalf("Replay(%s): %v", how, err)
		}
		if f == nil {
			t.Fatalf("Replay(%s) of %d steps ends without a fault, want %s", how, len(path), res.Fault.Kind)
		}
		if f.Kind != res.Fault.Kind || f.Thread != res.Fault.Thread || f.Method != res.Fault.Method ||
			f.PC != res.Fault.PC || f.Class != res.Fault.Class {
			t.Errorf("Replay(%s) fault = %+v, want %+v", how, *f, *res.Fault)
		}
		if explorer.VerdictOf(f.Kind) != res.Verdict {
			t.Errorf("Replay(%s) fault kind %s, want one giving verdict %s", how, f.Kind, res.Verdict)
		}
	}
	replay(res.Path, "path")

	var b bytes.Buffer
	tr := &explorer.Trail{Digest: bytecode.Digest(p), Granularity: g, Path: res.Path}
	if err := explorer.WriteTrail(&b, tr); err != nil {
		t.Fatalf("WriteTrail: %v", err)
	}
	back, err := explorer.ReadTrail("conformance.trail", b.Bytes())
	if err != nil {
		t.Fatalf("ReadTrail(WriteTrail(...)): %v\n%s", err, b.String())
	}
	if back.Digest != tr.Digest || back.Granularity != g || !slices.Equal(back.Path, res.Path) {
		t.Fatalf("ReadTrail(WriteTrail(%+v)) = %+v", tr, back)
	}
	replay(back.Path, "trail")
}

// TestModels_verdict checks the EXPECT verdicts of the documentation's
// examples. (The benchmark models are checked by the benchmarks package at
// their SMALL configurations.)
func TestModels_verdict(t *testing.T) {
	paths, _ := filepath.Glob("../docs/examples/*.mcasm")
	if len(paths) < 1 {
		t.Fatalf("found only %d models", len(paths))
	}
	for _, path := range paths {
		want, p := loadExpect(t, path)
		m, err := vm.New(p, vm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res := explorer.Search(m, explorer.Options{})
		if got := res.Verdict.String(); got != want.verdict {
			t.Errorf("%s: verdict %s, want %s", path, got, want.verdict)
		}
	}
}
