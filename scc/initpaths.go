// Init paths replayed once for all the tasks of a partition.

package scc

import (
	"fmt"
	"slices"

	"mcvm/explorer"
	"mcvm/vm"
)

// taskStart is where a task of a prepared partition starts: its root's
// state and the fingerprints of its init path's states, in order (none
// for trustful tasks).
type taskStart struct {
	enc   []byte
	fps   []uint64 // by state ID, shared by the partition's tasks: the init paths' states' and the initial state's
	instr int64    // the instructions the init path executes, counted in the task's figures as if it replayed it
	// With Options.Chain, shared like fps: the transitions chained after
	// the one that introduced state ID, chains[chainAt[ID]:chainAt[ID+1]]
	// (nil without chains).
	chainAt []int32
	chains  []vm.Trans
	// bad: the root is a materialised state (Options.Chain) whose chain
	// faulted at this transition.
	bad *vm.Trans
	red int64 // the chained transitions from reduced states after the transition into the root
}

// chainOf returns the transitions chained after the one that introduced
// init path state id.
func (st *taskStart) chainOf(id int32) []vm.Trans {
	if st.chainAt == nil {
		return nil
	}
	return st.chains[st.chainAt[id]:st.chainAt[id+1]]
}

// Prepare replays the init paths of the tasks of part, which Split made in
// this process, once: they are paths from the initial state and share
// their prefixes, so they are replayed as a tree, each transition once,
// with the checks a task makes (every transition enabled, with the
// script's instruction, and not faulting). Each task then starts at its
// root's state with its init path's fingerprints, instead of replaying
// the path itself: for deep searches, whose tasks' init paths are
// hundreds of thousands of transitions, that is most of the work of
// parallel certification. m must be a machine with the options the tasks
// are certified with, and opts their options (Symmetry sorts the threads
// after every transition, as in a task).
func (part *Partition) Prepare(m *vm.Machine, opts Options) error {
	if len(part.Tasks) == 0 {
		return nil
	}
	if opts.Chain && opts.Reducer == nil {
		return fmt.Errorf("chains need a reduction (a reducer)")
	}
	trust := part.Tasks[0].Trustful()
	c := &certifier{m: m, opts: opts, trust: trust, onStack: explorer.NewStackSet(1 << 26), walk: explorer.NewChainWalk(opts.Reducer, opts.Symmetry)}
	order := make([]int, len(part.Tasks))
	depth := make([]int, len(part.Tasks))
	for i, t := range part.Tasks {
		if t.view == nil {
			return corrupt(-1, "task %d was not made by Split in this process", t.Task)
		}
		order[i], depth[i] = i, t.view.initLen()
	}
	// IDs number the states in the order the search found them, so in the
	// order of their roots' IDs the init paths are in lexicographic order
	// and consecutive ones share the longest prefixes; lcp[k] is the
	// prefix order[k] shares with order[k+1], the depth of the roots'
	// lowest common ancestor.
	slices.SortFunc(order, func(a, b int) int { return int(part.Tasks[a].Root) - int(part.Tasks[b].Root) })
	parent := part.Tasks[0].view.sc.parent
	lcp := make([]int, len(order))
	for k := 0; k+1 < len(order); k++ {
		a, b := part.Tasks[order[k]].Root, part.Tasks[order[k+1]].Root
		da, db := depth[order[k]], depth[order[k+1]]
		for ; da > db; da-- {
			a = parent[a]
		}
		for ; db > da; db-- {
			b = parent[b]
		}
		for a != b {
			a, b, da = parent[a], parent[b], da-1
		}
		lcp[k] = da
	}
	// next[k] is the first k' > k with lcp[k'] < lcp[k] (len(order)-1 if
	// none): the suffix minima of lcp from k are lcp[k], lcp[next[k]], ...
	next := make([]int, len(order))
	var stk []int
	for k := len(order) - 2; k >= 0; k-- {
		for len(stk) > 0 && lcp[stk[len(stk)-1]] >= lcp[k] {
			stk = stk[:len(stk)-1]
		}
		next[k] = len(order) - 1
		if len(stk) > 0 {
			next[k] = stk[len(stk)-1]
		}
		stk = append(stk, k)
	}
	// saved holds the states at the depths later paths branch off from
	// the current one (increasing depths); fps the fingerprints along it.
	type save struct {
		depth int
		enc   []byte
	}
	m.Init()
	saved := []save{{0, m.Encode(nil)}}
	cur := saved[0].enc // the encoding of the machine's state, where at hand
	fps := []uint64{0}
	if !trust {
		fps[0] = c.fingerprint()
	}
	instr := []int64{0} // instructions executed along the current path, by depth
	at := 0             // the depth of the machine's state along the current path
	var byID []uint64   // the init paths' states' fingerprints, by ID
	if !trust {
		byID = make([]uint64, part.Tasks[order[len(order)-1]].Root+1)
		byID[0] = fps[0]
	}
	// With chains, each init path state's chained transitions, by ID
	// and their offsets in one buffer (made at the end).
	var chainLen []int32
	var chainByID [][]vm.Trans
	if opts.Chain {
		n := part.Tasks[order[len(order)-1]].Root + 1
		chainLen = make([]int32, n+1)
		chainByID = make([][]vm.Trans, n)
	}
	var buf []vm.Trans
	for k, ti := range order {
		chain := part.Tasks[ti].view.init()
		if k > 0 {
			// Back to where this path leaves the previous one.
			l := lcp[k-1]
			for len(saved) > 0 && saved[len(saved)-1].depth > l {
				saved = saved[:len(saved)-1]
			}
			top := saved[len(saved)-1]
			m.Decode(top.enc)
			cur = top.enc
			at = top.depth
			fps, instr = fps[:at+1], instr[:at+1]
		}
		// The depths later paths branch off from this one beyond where it
		// starts: the suffix minima of the lcps from here on.
		var branch []int
		for j := k; j < len(order)-1 && lcp[j] > at; j = next[j] {
			branch = append(branch, lcp[j])
		}
		slices.Reverse(branch)
		for ; at < len(chain); at++ {
			if len(branch) > 0 && branch[0] == at {
				saved = append(saved, save{at, m.Encode(nil)})
				cur = saved[len(saved)-1].enc
				branch = branch[1:]
			}
			e := chain[at]
			var err error
			var executed int64
			if buf, executed, err = c.initStep(buf, e, cur, func() (string, string) {
				return fmt.Sprintf("init path entry %d of task %d", at, ti+1), "its state"
			}); err != nil {
				return err
			}
			if chainLen != nil && len(c.chain) > 0 && chainByID[e.ID] == nil {
				chainByID[e.ID] = slices.Clone(c.chain)
			}
			var fp uint64
			cur = nil
			if !trust {
				fp = c.fingerprint()
				byID[e.ID] = fp
				cur = c.enc
			}
			fps = append(fps, fp)
			instr = append(instr, instr[at]+executed)
		}
		if len(branch) > 0 && branch[0] == at {
			saved = append(saved, save{at, m.Encode(nil)})
		}
		st := &taskStart{enc: m.Encode(nil), fps: byID, instr: instr[len(chain)]}
		if len(chain) > 0 && c.initMat {
			bad := c.initBad
			st.bad = &bad
		}
		if len(chain) > 0 {
			st.red = c.initRed
		}
		part.Tasks[ti].view.start = st
	}
	if chainLen != nil {
		// One buffer for all: chainLen becomes the offsets.
		var all []vm.Trans
		for id, ch := range chainByID {
			all = append(all, ch...)
			chainLen[id+1] = int32(len(all))
		}
		for _, t := range part.Tasks {
			t.view.start.chainAt, t.view.start.chains = chainLen, all
		}
	}
	return nil
}
