// Chains: states with a single transition to explore are run through, not stored.

package explorer

import (
	"mcvm/vm"
)

// MaxChain bounds the transitions of one chain (Options.Chain).
const MaxChain = 1 << 16

// MaxChainLoops bounds the backward jumps of one chain (Options.Chain).
// Every cycle of the state graph jumps backwards, so a chain cannot go
// round a cycle more than MaxChainLoops times: every cycle keeps a stored
// state, and the stack proviso sees it closed. Chains used to stop at the
// first backward jump; passing up to 8 stores 1.0x-2.9x fewer states on
// the SMALL suite (benchmarks/RESULTS.md), and the counts stop falling at
// 4-8.
const MaxChainLoops = 8

// errChainInvariant stands for an invariant violation found (and
// recorded) in a state of a chain.
var errChainInvariant = &vm.Fault{}

// runChain runs, from the state a transition just reached, the single
// transition each state's search would explore, appending them to s.chain,
// until a state branches (or has no transition, or a backward jump or
// MaxChain steps end the chain). It checks the invariants in every state
// it does not store. It returns the fault of a chained transition, if one
// faulted, and whether the state it left was reduced (a singleton
// persistent set out of more enabled transitions); an invariant violation
// is returned as errChainInvariant, already recorded. With sleep sets, z
// is the sleep set of the state reached, kept up to date along the chain;
// a state whose single transition is asleep ends the chain with slept set
// (nothing is explored from it, and it is not stored).
func (s *search) runChain(z *uint64) (f *vm.Fault, reduced, slept bool) {
	s.walk.Begin()
	for {
		c, cnt, dropped, ok := s.walk.Next(s.m)
		s.stats.Twins += int64(dropped)
		if !ok {
			return nil, false, false
		}
		if f := Invariants(s.m, s.tune.SkipInvariants); f != nil {
			s.record(f, -1, nil)
			return errChainInvariant, false, false
		}
		if cnt == 1 && *z&threadBit(c.Thread) != 0 {
			// (Not in a reduced state: see dfs.)
			s.stats.Slept++
			return nil, false, true
		}
		s.chain = append(s.chain, c)
		s.stats.Chained++
		if cnt > 1 {
			s.stats.ChainedReduced++
		}
		if *z == 0 {
			if f := s.run(c); f != nil {
				return f, cnt > 1, false
			}
			continue
		}
		fc, nt := s.m.NextFootprint(c.Thread), s.m.NumThreads()
		if f := s.run(c); f != nil {
			return f, cnt > 1, false
		}
		*z = s.stillAsleep(*z, fc, nt)
	}
}

// ChainWalk steps through a chain (Options.Chain): from the state a
// transition just reached, the single transition each state's search
// would explore (ChainPick), until a state has more than one or none, a
// backward jump past MaxChainLoops, or MaxChain steps. Both the search
// and the certifier of its script (package scc) walk chains with it, so
// that they end them at the same states.
type ChainWalk struct {
	red      Reducer
	sym      bool
	k, loops int
	trans    []vm.Trans
	twins    []int32
	keep     []bool
}

// NewChainWalk returns a walk for the reduction red, with thread symmetry
// if sym (Options.Symmetry).
func NewChainWalk(red Reducer, sym bool) ChainWalk { return ChainWalk{red: red, sym: sym} }

// Begin starts a chain.
func (w *ChainWalk) Begin() { w.k, w.loops = 0, 0 }

// Next returns the transition the chain takes from m's state, how many
// transitions were enabled there (more than one: the chain took a
// singleton persistent set) and how many symmetry left out as twins; ok
// is false where the chain ends (dropped is still counted).
func (w *ChainWalk) Next(m *vm.Machine) (tr vm.Trans, enabled, dropped int, ok bool) {
	if w.k == MaxChain {
		return vm.Trans{}, 0, 0, false
	}
	w.k++
	if m.BackJump() {
		if w.loops == MaxChainLoops {
			return vm.Trans{}, 0, 0, false
		}
		w.loops++
	}
	w.trans = m.Enabled(w.trans[:0])
	var i int
	i, dropped, w.twins, w.keep = ChainPick(m, w.red, w.sym, w.trans, w.twins, w.keep)
	if i < 0 {
		return vm.Trans{}, len(w.trans), dropped, false
	}
	return w.trans[i], len(w.trans), dropped, true
}

// ChainPick decides whether a chain goes on from m's state
// (Options.Chain): trans are the state's enabled transitions, which red's
// Ample reorders where there are several. It returns the index in trans
// of the single transition the state's search would explore (the only
// one enabled, or a singleton persistent set once symmetry's twins are
// left out, Options.Symmetry with sym), or -1 where the chain ends, and
// how many transitions symmetry left out. Both the search and a certifier
// of its script (package scc) decide by it. twins and keep are scratch,
// returned grown.
func ChainPick(m *vm.Machine, red Reducer, sym bool, trans []vm.Trans, twins []int32, keep []bool) (pick, dropped int, _ []int32, _ []bool) {
	n := len(trans)
	if n <= 1 {
		return n - 1, 0, twins, keep
	}
	n = red.Ample(m, trans)
	if !sym || n <= 1 {
		if n == 1 {
			return 0, 0, twins, keep
		}
		return -1, 0, twins, keep
	}
	twins, keep = KeptByTwins(m, trans, n, twins, keep)
	pick, kept := -1, 0
	for i, k := range keep {
		switch {
		case !k:
			dropped++
		case i < n:
			if kept == 0 {
				pick = i
			}
			kept++
		}
	}
	if kept != 1 {
		pick = -1
	}
	return pick, dropped, twins, keep
}

// materialise handles a chained transition that faulted in a reduced
// state: the other threads' transitions there must not be lost (see the
// fault case of dfs), so the state is stored and explored fully, with the
// faulting transition marked as explored. tr is the top frame's
// transition that began the chain; s.chain ends with the faulting one.
func (s *search) materialise(tr vm.Trans) {
	top := &s.stack[len(s.stack)-1]
	bad := s.chain[len(s.chain)-1]
	s.chain = s.chain[:len(s.chain)-1]
	s.load(top)
	s.loaded = -1
	f := s.advance(tr)
	for i := top.cs; f == nil && int(i) < len(s.chain); i++ {
		f = s.advance(s.chain[i])
	}
	if f != nil {
		panic("explorer: a chain did not replay")
	}
	nid, isNew := s.visit()
	// Reported as tr reaching the state (after its fault was): a search
	// script records the state this way (scc: a materialised state).
	s.transition(top.id, tr, nid, isNew)
	if !isNew {
		// Stored already: explored (or being explored) as a stored state,
		// whose faulting transition expands it fully. With sleep sets,
		// whatever was asleep there is woken.
		if s.sl.on {
			s.wake(nid, 0)
		}
		return
	}
	if s.sl.on {
		s.setSleep(nid, 0)
	}
	start, ok := s.checkNew(nid)
	if !ok {
		return
	}
	s.push(nid, int(start), 0)
	nt := &s.stack[len(s.stack)-1]
	s.expandFully(nt)
	for i := nt.start; i < nt.full; i++ {
		if s.trans[i] == bad {
			s.trans[i], s.trans[nt.next] = s.trans[nt.next], s.trans[i]
			nt.next++
			break
		}
	}
}
