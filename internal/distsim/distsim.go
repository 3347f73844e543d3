// Package distsim simulates an exhaustive search distributed over
// machines, from a state graph recorded by a real search: what each
// machine would store and the messages it would send if the visited set
// were partitioned by fingerprint across machines, as DiVinE's and
// LTSmin's distributed searches partition it.
//
// Each state belongs to the machine its fingerprint names (fingerprint
// mod the number of machines); a machine expands its own states, and
// each transition to a state another machine owns is a message to it
// carrying the state (its canonical encoding). A level-synchronous
// distributed breadth-first search waits at a barrier once per level.
//
// The search this models: a level ends when every machine has sent and
// received everything (a barrier and an all-reduce of the level's size),
// the search when a level is empty everywhere. With the static proviso,
// which depends on the state alone, the states and transitions are those
// of one machine. Parent links stay with each state's owner, and a
// counterexample is followed back by asking the owners. With states
// spread uniformly, (M-1)/M of the transitions cross machines, so the
// network carries about one encoding per transition and a level waits for
// the slowest machine; batching each level's messages per destination,
// and 8-byte fingerprints where a lossy search will do, keep that within
// a network's bandwidth.
package distsim

import (
	"mcvm/explorer"
	"mcvm/vm"
)

// Graph is a recorded state graph: each stored state's fingerprint by
// id, and each transition between stored states.
type Graph struct {
	FP    []uint64
	Edges [][2]int32
	Depth int     // the breadth-first search's depth: the barriers of a level-synchronous search
	Bytes float64 // the mean encoding's size (a message carries one)
}

// Record searches m breadth-first with opts (Continue set) and records
// its state graph.
func Record(m *vm.Machine, opts explorer.Options) (*Graph, *explorer.Result) {
	g := new(Graph)
	opts.Order, opts.Continue = explorer.BFS, true
	opts.Listen(explorer.Funcs{
		OnState: func(id int32, fp uint64) {
			for int(id) >= len(g.FP) {
				g.FP = append(g.FP, 0)
			}
			g.FP[id] = fp
		},
		OnTransition: func(from int32, _ vm.Trans, _, _, to int32, _ bool) {
			if from >= 0 && to >= 0 {
				g.Edges = append(g.Edges, [2]int32{from, to})
			}
		},
	})
	res := explorer.Search(m, opts)
	g.Depth = res.Stats.MaxDepth
	if n := len(g.FP); n > 0 {
		g.Bytes = float64(res.Stats.Store.RecordBytes) / float64(n)
	}
	return g, res
}

// Load is what machines of a partition would carry.
type Load struct {
	Machines int
	// States: the most any machine stores, and the mean.
	MaxStates, MeanStates float64
	// Messages: transitions whose target another machine owns, in all,
	// and the most any machine sends and receives; MessageBytes, the
	// encodings they carry (of the mean size).
	Messages             int64
	MaxSent, MaxReceived int64
	MessageBytes         float64
	CrossShare           float64 // Messages over all transitions
	Barriers             int
}

// Partition computes the load of machines machines.
func (g *Graph) Partition(machines int) Load {
	states := make([]int64, machines)
	sent := make([]int64, machines)
	recv := make([]int64, machines)
	owner := func(id int32) int { return int(g.FP[id] % uint64(machines)) }
	for id := range g.FP {
		states[owner(int32(id))]++
	}
	l := Load{Machines: machines, Barriers: g.Depth}
	for _, e := range g.Edges {
		a, b := owner(e[0]), owner(e[1])
		if a != b {
			l.Messages++
			sent[a]++
			recv[b]++
		}
	}
	for i := range machines {
		l.MaxStates = max(l.MaxStates, float64(states[i]))
		l.MaxSent = max(l.MaxSent, sent[i])
		l.MaxReceived = max(l.MaxReceived, recv[i])
		l.MeanStates += float64(states[i]) / float64(machines)
	}
	l.MessageBytes = float64(l.Messages) * g.Bytes
	if len(g.Edges) > 0 {
		l.CrossShare = float64(l.Messages) / float64(len(g.Edges))
	}
	return l
}
