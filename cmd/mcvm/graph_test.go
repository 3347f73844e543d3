package main

import (
	"encoding/json"
	"strings"
	"testing"

	"gonum.org/v1/gonum/graph/formats/dot"
	"gonum.org/v1/gonum/graph/formats/dot/ast"
)

// parseDOT parses out with gonum's DOT parser and counts its node and
// edge statements and the edges drawn bold (the counterexample).
func parseDOT(t *testing.T, args []string, out string) (nodes, edges, bold int) {
	t.Helper()
	f, err := dot.ParseString(out)
	if err != nil {
		t.Fatalf("mcvm %v: DOT does not parse: %v\n%s", args, err, out)
	}
	if len(f.Graphs) != 1 || !f.Graphs[0].Directed {
		t.Fatalf("mcvm %v: want one digraph, got %d graphs", args, len(f.Graphs))
	}
	for _, s := range f.Graphs[0].Stmts {
		switch s := s.(type) {
		case *ast.NodeStmt:
			nodes++
		case *ast.EdgeStmt:
			edges++
			for _, a := range s.Attrs {
				if a.Key == "penwidth" {
					bold++
				}
			}
		}
	}
	return nodes, edges, bold
}

// TestGraph_dot: mcvm graph's DOT parses, has a node per state and an
// edge per transition of the plain search, and draws the counterexample
// (as many bold edges as check --continue --por none's trace has steps:
// the same search); --counterexample draws the path alone.
func TestGraph_dot(t *testing.T) {
	philo := "../../benchmarks/models/philo.mcasm"
	for _, model := range []string{philo, "testdata/trace/handoff.mcasm", "testdata/trace/twoerrors.mcasm", "../../docs/examples/counter.mcasm"} {
		args := []string{"graph", "-D", "N=2", model}
		if model != philo {
			args = []string{"graph", model}
		}
		code, out, errs := runMain(args...)
		if code != exitViolation {
			t.Fatalf("mcvm %v: exit %d\n%s", args, code, errs)
		}
		nodes, edges, bold := parseDOT(t, args, out)
		ck := append([]string{"check", "--json", "--continue", "--por", "none"}, args[1:]...)
		_, jout, _ := runMain(ck...)
		var rep struct {
			States      int `json:"states"`
			Transitions int `json:"transitions"`
			Trace       []traceStep
		}
		if err := json.Unmarshal([]byte(jout), &rep); err != nil {
			t.Fatal(err)
		}
		if nodes < rep.States || edges != rep.Transitions || bold != len(rep.Trace) {
			t.Errorf("mcvm %v: %d nodes, %d edges, %d bold; check finds %d states, %d transitions, a trace of %d",
				args, nodes, edges, bold, rep.States, rep.Transitions, len(rep.Trace))
		}
		cargs := append([]string{"graph", "--counterexample"}, args[1:]...)
		_, cout, _ := runMain(cargs...)
		cn, ce, _ := parseDOT(t, cargs, cout)
		if ce == 0 || cn != ce+1 || !strings.Contains(cout, "t0 ") {
			t.Errorf("mcvm %v: %d nodes and %d edges, want a path", cargs, cn, ce)
		}
	}
}
