package distsim

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"mcvm/asm"
	"mcvm/explorer"
	"mcvm/por"
	"mcvm/vm"
)

// record assembles path with defs and records its graph with the default
// reduction (or none).
func record(t *testing.T, path string, defs map[string]int64, mode por.Mode) *Graph {
	t.Helper()
	p, err := asm.AssembleFile(path, asm.Options{Defines: defs})
	if err != nil {
		t.Fatal(err)
	}
	m, err := vm.New(p, mode.VMOptions(vm.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	var opts explorer.Options
	if r := por.New(p, mode); r != nil && r.Reduces() {
		opts.Reducer, opts.Proviso = r, explorer.ProvisoStatic
	}
	g, res := Record(m, opts)
	if res.Limit != "" {
		t.Fatalf("%s: limit %s", path, res.Limit)
	}
	return g
}

// TestPartition checks the bookkeeping on a known graph: every state is
// some machine's, one machine sends nothing, and with more machines more
// transitions cross.
func TestPartition(t *testing.T) {
	g := record(t, "../../benchmarks/models/philo_ok.mcasm", map[string]int64{"N": 4}, por.None)
	one := g.Partition(1)
	if one.Messages != 0 || one.MaxStates != float64(len(g.FP)) || one.Barriers != g.Depth {
		t.Errorf("one machine: %+v, want no messages and all %d states", one, len(g.FP))
	}
	l4, l16 := g.Partition(4), g.Partition(16)
	if l4.MeanStates*4 != float64(len(g.FP)) || l4.MaxStates < l4.MeanStates || l16.CrossShare <= l4.CrossShare || l4.CrossShare <= 0 {
		t.Errorf("4 machines %+v, 16 machines %+v", l4, l16)
	}
}

// TestSimulate prints, with MCVM_DISTSIM=1 (MCVM_DISTSIM_CASES=philo,rwvsn
// to choose graphs by their first word), the loads of 16 and 64
// machines for the dining philosophers N = 10 (reduced: the space a
// distributed search with the static proviso stores), the deadlock-free
// ones N = 9, and the suite's largest configuration, rwvsn LARGE
// unreduced (benchmarks/RESULTS.md, "Many machines").
func TestSimulate(t *testing.T) {
	if os.Getenv("MCVM_DISTSIM") != "1" {
		t.Skip("set MCVM_DISTSIM=1: records large state graphs")
	}
	cases := []struct {
		name string
		path string
		defs map[string]int64
		mode por.Mode
	}{
		{"philo N=10, --por all", "../../benchmarks/models/philo.mcasm", map[string]int64{"N": 10}, por.All},
		{"philo_ok N=9, --por none", "../../benchmarks/models/philo_ok.mcasm", map[string]int64{"N": 9}, por.None},
		{"rwvsn LARGE, --por none", "../../benchmarks/models/rwvsn.mcasm", map[string]int64{"READERS": 3, "WRITERS": 2}, por.None},
	}
	if only := os.Getenv("MCVM_DISTSIM_CASES"); only != "" {
		var keep []struct {
			name string
			path string
			defs map[string]int64
			mode por.Mode
		}
		for _, c := range cases {
			if strings.Contains(only, strings.Fields(c.name)[0]) {
				keep = append(keep, c)
			}
		}
		cases = keep
	}
	var b strings.Builder
	fmt.Fprintln(&b, "| graph | states | transitions | machines | states/machine max / mean | sent max | received max | transitions crossing | message MiB | barriers |")
	fmt.Fprintln(&b, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, c := range cases {
		g := record(t, c.path, c.defs, c.mode)
		t.Logf("%s recorded: %d states, %d transitions", c.name, len(g.FP), len(g.Edges))
		for _, k := range []int{16, 64} {
			l := g.Partition(k)
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %.0f / %.0f (%.3f) | %d | %d | %.3f | %.1f | %d |\n", c.name, len(g.FP), len(g.Edges), k,
				l.MaxStates, l.MeanStates, l.MaxStates/l.MeanStates, l.MaxSent, l.MaxReceived, l.CrossShare, l.MessageBytes/(1<<20), l.Barriers)
		}
	}
	t.Log("\n" + b.String())
}
