// Lookahead: the successor a DFS level takes next is fingerprinted one
// transition early, so that the visited set's cache miss overlaps with work.

package explorer

import "mcvm/vm"

// A lookup in a large visited set of fingerprints misses the cache: the
// slot is anywhere in the table (philosophers N = 8: 17% of the time of
// an unreduced search with --hash-compact, for 2% of its instructions;
// N = 10, a table of 100 MB: 28%). Depth-first search looks up one
// successor at a time, right after computing its fingerprint, and waits
// for the miss.
//
// With lookahead a level works one transition ahead. When it takes a
// transition, it first executes and fingerprints the one after (from
// its snapshot, as the search did after every successor visited before)
// and asks the processor to fetch that fingerprint's slot (a prefetch
// instruction, which does not wait), and only then looks up the one
// taken, whose slot was asked for a transition's work earlier (a few
// hundred nanoseconds, more than a miss to memory takes). A successor
// visited before costs what it did, less the wait; a new one is executed
// again, since the machine holds the next one by then: that is the
// price, paid once per new state. When the search comes back to a level
// from a subtree, the slot is asked for again. The states, transitions,
// their order and everything reported are those of the search without
// lookahead (TestDFS_lookahead).
//
// Most lookaheads are not executed at all: vm.Machine.StepAhead takes a
// transition's fingerprint from the one it computed when the same thread,
// with the same record, took it from another state whose objects it
// touches were the same (transitions kept, vm/keptahead.go), and leaves
// the machine holding the level's state, so that the next lookahead needs
// no restore either (91% of them on the philosophers). A kept lookahead is
// short: a slot is then asked for less time before it is read, and the
// visited set's lookup is again a large share of the time (two
// transitions ahead did not help, benchmarks/RESULTS.md, "Tried and
// left").
//
// It applies to the plain depth-first search with a lossy store (hash
// compaction, bitstate) on a processor with a prefetch instruction: no
// reduction, sleep sets, chains, symmetry or transition hook, each of
// which looks at the machine after each transition or changes what the
// next one is.
//
// A frame keeps its lookahead in two fields: fp, which only the stack
// proviso with a lossy store and dynamic reduction use otherwise (neither
// looks ahead), and ain, which fits in the frame's padding. So lookahead
// takes no memory (a stack of every level's lookaheads took 0.9 MiB on
// philosophers N = 8, 2 bytes a state).

// prefetcher is a visited set that lookahead reads the slots of.
type prefetcher interface {
	// prefetch asks for what a lookup of fingerprint fp reads first to
	// be brought into the cache (see prefetchLine).
	prefetch(fp uint64)
}

// lookaheadFor returns the store's prefetcher if search s looks ahead
// (see above), else nil.
func (s *search) lookaheadFor() prefetcher {
	o := &s.opts
	pf, ok := s.store.(prefetcher)
	if !ok || !havePrefetch || !s.tune.Lookahead || o.Order != DFS || s.exact != nil || s.collapse != nil || s.sl.on || s.chaining ||
		o.Reducer != nil || o.Dynamic != nil || o.Symmetry || len(s.lis.Transition) > 0 {
		return nil
	}
	return pf
}

// lookahead executes transition i of top, whose state the machine holds
// or a snapshot keeps, fingerprints the state it leads to, asks for its
// slot in the visited set, and keeps both in top (fp, ain); a transition
// that faults is kept as taken without lookahead (ain -1). The machine is
// left holding the state reached, or top's if the transition was found
// kept (vm.Machine.StepAhead: not executed, and its fingerprint the
// state's plus what it added when it was).
func (s *search) lookahead(top *frame, i int32) {
	s.load(top)
	// What the encoding leaves goes in the older of two stashes, for a
	// second execution (see visitAhead).
	k := s.sx ^ 1
	fp, instr, f, moved := s.m.StepAhead(s.trans[i], &s.stash[k])
	if moved {
		s.loaded = -1
	}
	if f != nil {
		top.ain = -1
		return
	}
	top.fp, top.ain = fp, int32(instr)
	s.pf.prefetch(fp)
	s.sx = k
	s.stashTr[k] = s.trans[i]
}

// takeAhead is called when top takes transition top.next-1: it returns
// that transition's lookahead (fingerprint and instructions, -1: none)
// and looks ahead at the next one.
func (s *search) takeAhead(top *frame) (uint64, int32) {
	fp, instr := top.fp, top.ain
	top.ain = -1
	if top.next < top.end {
		s.lookahead(top, top.next)
	}
	return fp, instr
}

// prefetchAhead asks again for the slot of top's lookahead, when the
// search comes back to top: the subtree it left may have pushed it out of
// the cache.
func (s *search) prefetchAhead(top *frame) {
	if top.looked && top.ain >= 0 {
		s.pf.prefetch(top.fp)
	}
}

// visitAhead stores the successor of top by tr, looked ahead at with
// fingerprint fp and instr instructions, as step and visit would, and
// returns its id and whether it is new. A new one is executed again: the
// machine then holds it as after visit.
func (s *search) visitAhead(top *frame, tr vm.Trans, fp uint64, instr int32) (int32, bool) {
	s.stats.Transitions++
	s.stats.Instructions += int64(instr)
	s.lastFP = fp
	id, isNew := s.add(fp)
	if !isNew {
		return id, false
	}
	s.load(top)
	s.loaded = -1
	if f := s.m.Step(tr); f != nil {
		panic("explorer: a transition looked ahead at faults when executed again")
	}
	// The lookahead's encoding was stashed, unless a subtree came in
	// between: with the same base and transition, the state is the same.
	for k := range s.stash {
		if s.stashTr[k] == tr {
			if got, ok := s.m.UnstashFingerprint(&s.stash[k]); ok {
				if got != fp {
					panic("explorer: a stashed lookahead differs from the transition's")
				}
				return id, true
			}
		}
	}
	if s.m.EncodeFingerprint() != fp {
		panic("explorer: a transition looked ahead at reaches another state when executed again")
	}
	return id, true
}
