// mcvm graph: a small model's state graph, or its counterexample, in
// Graphviz DOT.

package main

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/vm"
)

const graphAbout = `Prints the state graph of MODEL in Graphviz DOT (render it with, e.g.,
dot -Tsvg): a node per state, labelled with where each thread is, an edge
per transition, labelled with its thread and first instruction. Error
states are red, and the first counterexample found is drawn in red and
bold. The search is the plain one, without reductions, so that the graph
is the whole state space; it stops at --max-states states (the graph is
then the part explored, and says so). With --counterexample it prints
only the first counterexample found, a node per state and an edge per
step labelled with what the step did, as in check's trace.`

func runGraph(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("graph", "MODEL", graphAbout, stdout)
	var mf modelFlags
	mf.register(fs)
	maxStates := fs.Int("max-states", 1000, "draw at most this many states")
	cex := fs.Bool("counterexample", false, "draw only the first counterexample found, with what each step did")
	if done, code := parse(fs, args, stderr, 1); done {
		return code
	}
	if *maxStates < 1 {
		return fail(stderr, "graph", fmt.Errorf("--max-states: want at least 1, got %d", *maxStates))
	}
	gran, err := mf.gran()
	if err != nil {
		return fail(stderr, "graph", err)
	}
	ignore, err := mf.ignoreUncaught()
	if err != nil {
		return fail(stderr, "graph", err)
	}
	model := fs.Arg(0)
	p, err := mf.load(model)
	if err != nil {
		return fail(stderr, "graph", err)
	}
	vo, err := mf.limits(vm.Options{Granularity: gran, IgnoreUncaught: ignore})
	if err != nil {
		return fail(stderr, "graph", err)
	}
	m, err := vm.New(p, vo)
	if err != nil {
		return fail(stderr, "graph", err)
	}
	g := &stateGraph{p: p, m: m, errState: map[int32]string{}}
	opts := explorer.Options{Order: explorer.DFS, Continue: !*cex, MaxStates: *maxStates}
	if !*cex {
		opts.Listen(g)
	}
	res := explorer.Search(m, opts)
	if *cex {
		if res.Fault == nil {
			return fail(stderr, "graph", fmt.Errorf("no counterexample: verdict %s", res.Verdict))
		}
		tr, err := explorer.Describe(m, res.Path, false)
		if err != nil {
			return fail(stderr, "graph", fmt.Errorf("internal error: counterexample does not replay: %w", err))
		}
		writeTraceDOT(stdout, model, p, tr)
		return exitCode(res.Verdict)
	}
	g.write(stdout, model, res)
	return exitCode(res.Verdict)
}

// stateGraph records the state graph of a search (an explorer.Listener).
type stateGraph struct {
	explorer.NoListener
	p        *bytecode.Program
	m        *vm.Machine
	labels   []string
	fps      map[uint64]int32
	edges    []graphEdge
	errState map[int32]string // error states and the kind of their error
	faults   int
}

type graphEdge struct {
	from, to int32 // to < 0: the transition faulted (fault node -to-1)
	label    string
	kind     string // of a fault
}

func (g *stateGraph) Wants() explorer.Events {
	return explorer.EventState | explorer.EventTransition | explorer.EventError
}

// StateStored labels a new state with where its threads are; the search
// calls it with the machine in that state.
func (g *stateGraph) StateStored(id int32, fp uint64) {
	var b strings.Builder
	for t := 0; t < g.m.NumThreads(); t++ {
		if t > 0 {
			b.WriteString("\n")
		}
		st := g.m.ThreadStatus(int32(t))
		fmt.Fprintf(&b, "t%d ", t)
		meth, pc := g.m.Where(int32(t))
		switch {
		case st == vm.StatusTerminated || meth < 0:
			b.WriteString("ended")
		default:
			pos := g.p.InstrPos(meth, pc)
			fmt.Fprintf(&b, "%s:%d", g.p.MethodName(meth), pos.Line)
			if st != vm.StatusRunnable {
				fmt.Fprintf(&b, " %s", st)
			}
		}
	}
	for int(id) >= len(g.labels) {
		g.labels = append(g.labels, "")
	}
	g.labels[id] = b.String()
	if g.fps == nil {
		g.fps = map[uint64]int32{}
	}
	g.fps[fp] = id
}

func (g *stateGraph) Transition(from int32, tr vm.Trans, method, pc int32, to int32, isNew bool) {
	label := fmt.Sprintf("t%d", tr.Thread)
	if method >= 0 && int(pc) < len(g.p.Methods[method].Code) {
		label += " " + g.p.Methods[method].Code[pc].Op.String()
	}
	if tr.Choice > 0 {
		label += fmt.Sprintf(" [%d]", tr.Choice)
	}
	e := graphEdge{from: from, to: to, label: label}
	if to < 0 {
		e.to = int32(-g.faults - 1)
		g.faults++
	}
	g.edges = append(g.edges, e)
}

func (g *stateGraph) ErrorFound(f *vm.Fault, fp uint64) {
	if fp != 0 {
		if id, ok := g.fps[fp]; ok {
			g.errState[id] = f.Kind.String()
		}
		return
	}
	// A transition's fault: the last edge, just reported.
	if n := len(g.edges); n > 0 && g.edges[n-1].to < 0 {
		g.edges[n-1].kind = f.Kind.String()
	}
}

// write prints the graph, the first counterexample's path in red.
func (g *stateGraph) write(w io.Writer, model string, res *explorer.Result) {
	onPath := map[[2]int32]bool{}
	if res.Fault != nil {
		// The path's states, by their fingerprints (the store's).
		g.m.Init()
		prev := g.fps[fingerprint(g.m)]
		for i, tr := range res.Path {
			f := g.m.Step(tr)
			if f != nil && i == len(res.Path)-1 {
				for _, e := range g.edges {
					if e.from == prev && e.to < 0 {
						onPath[[2]int32{prev, e.to}] = true
						break
					}
				}
				break
			}
			id := g.fps[fingerprint(g.m)]
			onPath[[2]int32{prev, id}] = true
			prev = id
		}
	}
	fmt.Fprintf(w, "digraph %s {\n", strconv.Quote(model))
	fmt.Fprintf(w, "  label=%s;\n", strconv.Quote(fmt.Sprintf("%s: verdict %s, %d states, %d transitions", model, res.Verdict, res.Stats.States, res.Stats.Transitions)))
	fmt.Fprintln(w, "  node [shape=box, fontname=\"monospace\", fontsize=10];")
	fmt.Fprintln(w, "  edge [fontname=\"monospace\", fontsize=9];")
	for id, l := range g.labels {
		attrs := ""
		if k, ok := g.errState[int32(id)]; ok {
			l += "\n" + k
			attrs = ", color=red, fontcolor=red"
		}
		if id == 0 {
			attrs += ", style=bold"
		}
		fmt.Fprintf(w, "  s%d [label=%s%s];\n", id, strconv.Quote(fmt.Sprintf("%d\n%s", id, l)), attrs)
	}
	for i := 0; i < g.faults; i++ {
		kind := ""
		for _, e := range g.edges {
			if e.to == int32(-i-1) {
				kind = e.kind
			}
		}
		fmt.Fprintf(w, "  f%d [label=%s, shape=octagon, color=red, fontcolor=red];\n", i, strconv.Quote(kind))
	}
	sort.SliceStable(g.edges, func(i, j int) bool { return g.edges[i].from < g.edges[j].from })
	for _, e := range g.edges {
		to := fmt.Sprintf("s%d", e.to)
		if e.to < 0 {
			to = fmt.Sprintf("f%d", -e.to-1)
		}
		attrs := ""
		if onPath[[2]int32{e.from, e.to}] {
			attrs = ", color=red, fontcolor=red, penwidth=2"
		}
		fmt.Fprintf(w, "  s%d -> %s [label=%s%s];\n", e.from, to, strconv.Quote(e.label), attrs)
	}
	fmt.Fprintln(w, "}")
}

// fingerprint is the fingerprint the search's store keys the machine's
// state by.
func fingerprint(m *vm.Machine) uint64 {
	m.Encode(nil)
	return m.Fingerprint()
}

// writeTraceDOT prints a counterexample as DOT: a node per state, an edge
// per step labelled with its thread and what it did.
func writeTraceDOT(w io.Writer, model string, p *bytecode.Program, tr *explorer.Trace) {
	fmt.Fprintf(w, "digraph %s {\n", strconv.Quote(model+" counterexample"))
	fmt.Fprintln(w, "  rankdir=TB;")
	fmt.Fprintln(w, "  node [shape=circle, fontname=\"monospace\", fontsize=10];")
	fmt.Fprintln(w, "  edge [fontname=\"monospace\", fontsize=9];")
	for i := 0; i <= len(tr.Steps); i++ {
		attrs := ""
		if i == len(tr.Steps) && tr.Fault != nil {
			attrs = fmt.Sprintf(", color=red, fontcolor=red, xlabel=%s", strconv.Quote(faultMessage(p, tr.Fault)))
		}
		fmt.Fprintf(w, "  s%d [label=\"%d\"%s];\n", i, i, attrs)
	}
	for i, s := range tr.Steps {
		op := s.Op
		if op == "" {
			op = s.Instr
		}
		fmt.Fprintf(w, "  s%d -> s%d [label=%s];\n", i, i+1, strconv.Quote(fmt.Sprintf("t%d %s: %s", s.Thread, s.Method, op)))
	}
	fmt.Fprintln(w, "}")
}
