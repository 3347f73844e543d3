// Recorder: writes a search script as a listener of a depth-first search.

package scc

import (
	"errors"
	"fmt"

	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/vm"
)

// Recorder builds a search script as an explorer.Listener of the search's
// transitions and backtracks (Hook adds it to the search's options). It keeps its own copy of the DFS stack so
// that states the search did not expand (a property violation, a deadlock)
// get a backtrack too: in the script every state introduced is left by
// exactly one backtrack, unless the search stopped at an error.
type Recorder struct {
	explorer.NoListener
	prog     *bytecode.Program
	trustful bool
	c        coder
	entries  int64
	trans    int64   // transition entries written
	stack    []int32 // state IDs on the search path
	pushAt   []int64 // per level: trans when the state was introduced
	sub      []int64 // per state ID: Subgraphs
	lastOff  []int64 // per state ID: the entry (its tag's offset) of its last occurrence, or -1
	err      bool    // the events did not describe a depth-first search
	cache    *cacheIDs
}

// cacheIDs turns the events of a search with a state cache into those of
// the search without one (the thesis's sections 4.2.5 and 4.3). The
// search's ids are cache slots, and a state evicted and met again is
// stored again, under another slot, and explored again: the script gives
// each state one ID, in the order states are first stored, by
// fingerprint, and records the transition that met an evicted state as a
// revisit, leaving out its exploration, which repeats one recorded
// before, up to the backtrack from it. This is Algorithm 4.2's removal of
// duplicate transitions done as the events come, so no script with
// duplicates is ever written. Without a reduction a state explored again
// reaches only states explored before; with one, the stack proviso may
// choose other transitions the second time, and a state never stored
// before met there makes the recording fail (a larger cache, or no
// reduction, records it).
type cacheIDs struct {
	ids   map[uint64]int32 // fingerprint -> script ID
	fps   []uint64         // per slot: the fingerprint of the state it holds
	canon []int32          // per slot: the script ID of the state it holds
	// skip is the repeated exploration being left out, as the search's
	// stack of it (its first slot the state met again); empty if none.
	skip  []int32
	trans int64 // transitions in the script (also those a trustful one leaves out)
	novel bool  // a state never stored before was met in a repeated exploration
}

// NewCacheRecorder is NewRecorder for a search whose visited set is a
// cache (explorer.Options.Cache, keeping encodings): its script is the
// one the search without a cache records.
func NewCacheRecorder(p *bytecode.Program, trustful bool) *Recorder {
	r := NewRecorder(p, trustful)
	r.cache = &cacheIDs{ids: map[uint64]int32{}}
	return r
}

// StateStored notes the fingerprint of the state a slot holds
// (explorer.Listener; wanted with a cache only). The first state stored
// is the initial state, ID 0; the others get theirs when a transition
// reaches them.
func (r *Recorder) StateStored(slot int32, fp uint64) {
	c := r.cache
	for int(slot) >= len(c.fps) {
		c.fps, c.canon = append(c.fps, 0), append(c.canon, -1)
	}
	c.fps[slot] = fp
	if len(c.ids) == 0 {
		c.ids[fp], c.canon[slot] = 0, 0
	}
}

// leave pops the repeated exploration's stack down to slot, which stays
// on it, and reports whether it was there: a transition from a state
// outside it, or a backtrack from one, means the search has left it (a
// state reached and not expanded, an error state, gets no backtrack).
func (c *cacheIDs) leave(slot int32) bool {
	for i := len(c.skip) - 1; i >= 0; i-- {
		if c.skip[i] == slot {
			c.skip = c.skip[:i+1]
			return true
		}
	}
	c.skip = c.skip[:0]
	return false
}

// mapIDs turns a transition's slots into script IDs; false if the
// transition is part of a repeated exploration, left out.
func (c *cacheIDs) mapIDs(from, to *int32, isNew *bool) bool {
	if len(c.skip) > 0 && c.leave(*from) {
		if *isNew && *to >= 0 {
			id, seen := c.ids[c.fps[*to]]
			c.novel = c.novel || !seen
			c.canon[*to] = id
			c.skip = append(c.skip, *to)
		}
		return false
	}
	c.trans++
	*from = c.canon[*from]
	if *to >= 0 {
		if *isNew {
			fp := c.fps[*to]
			id, seen := c.ids[fp]
			if seen {
				c.skip, *isNew = append(c.skip, *to), false
			} else {
				id = int32(len(c.ids))
				c.ids[fp] = id
			}
			c.canon[*to] = id
		}
		*to = c.canon[*to]
	}
	return true
}

// NewRecorder starts a script for program p; trustful records only
// productive and faulting transitions.
func NewRecorder(p *bytecode.Program, trustful bool) *Recorder {
	return &Recorder{prog: p, trustful: trustful, c: newCoder(0),
		stack: []int32{0}, pushAt: []int64{0}, sub: []int64{0}, lastOff: []int64{-1}}
}

// Hook makes the search opts configures report to r.
func (r *Recorder) Hook(opts *explorer.Options) { opts.Listen(r) }

// Wants implements explorer.Listener: transitions and backtracks, and
// with a cache the states stored.
func (r *Recorder) Wants() explorer.Events {
	if r.cache != nil {
		return explorer.EventTransition | explorer.EventBacktrack | explorer.EventState
	}
	return explorer.EventTransition | explorer.EventBacktrack
}

// unwind backtracks until state id is on top of the stack.
func (r *Recorder) unwind(id int32) {
	for len(r.stack) > 0 && r.stack[len(r.stack)-1] != id {
		r.pop()
	}
	if len(r.stack) == 0 {
		r.err = true
	}
}

func (r *Recorder) pop() {
	n := len(r.stack) - 1
	r.sub[r.stack[n]] = r.trans - r.pushAt[n]
	r.stack, r.pushAt = r.stack[:n], r.pushAt[:n]
	r.c.appendEntry(&Entry{})
	r.entries++
}

// Transition records one transition (explorer.Listener).
func (r *Recorder) Transition(from int32, tr vm.Trans, method, pc int32, to int32, isNew bool) {
	if r.cache != nil && !r.cache.mapIDs(&from, &to, &isNew) {
		return
	}
	r.unwind(from)
	if r.err {
		return
	}
	e := Entry{Thread: tr.Thread, Choice: tr.Choice}
	if method >= 0 && int(method) < len(r.prog.Methods) && pc >= 0 && int(pc) < len(r.prog.Methods[method].Code) {
		e.Instr = r.prog.Methods[method].Code[pc]
	}
	switch {
	case to < 0:
		e.Op = OpFault
	case isNew:
		e.Op, e.ID = OpNew, to
		if int(to) != len(r.sub) {
			r.err = true
			return
		}
	default:
		if r.trustful {
			return
		}
		e.Op, e.ID = OpOld, to
	}
	off := int64(len(r.c.out[colTag]))
	r.c.appendEntry(&e)
	r.entries++
	r.trans++
	switch e.Op {
	case OpNew:
		r.sub = append(r.sub, 0)
		r.lastOff = append(r.lastOff, off)
		r.stack = append(r.stack, to)
		r.pushAt = append(r.pushAt, r.trans)
	case OpOld:
		r.lastOff[to] = off
	}
}

// Backtracked records leaving state id (explorer.Listener).
func (r *Recorder) Backtracked(id int32) {
	if c := r.cache; c != nil {
		if len(c.skip) > 0 && c.leave(id) {
			c.skip = c.skip[:len(c.skip)-1]
			return
		}
		id = c.canon[id]
	}
	r.unwind(id)
	if !r.err {
		r.pop()
	}
}

// Script finishes the script. complete says the search ended by itself
// (then every state still on the stack is backtracked from); res gives the
// verdict and figures for the header. It returns nil if the events did
// not describe a depth-first search.
func (r *Recorder) Script(digest uint64, gran vm.Granularity, por string, complete, cont bool, res *explorer.Result) *Script {
	if r.err || r.cache != nil && r.cache.novel {
		return nil
	}
	if complete {
		for len(r.stack) > 0 {
			r.pop()
		}
	} else {
		for i, id := range r.stack {
			r.sub[id] = r.trans - r.pushAt[i]
		}
	}
	if !r.trustful {
		for _, off := range r.lastOff {
			if off >= 0 {
				r.c.out[colTag][off] |= tagLast
			}
		}
	}
	s := &Script{Body: r.c.out, Subgraph: r.sub}
	s.Kind = KindFull
	if r.trustful {
		s.Kind = KindTrustful
	}
	s.Digest, s.Granularity, s.POR, s.Symmetry = digest, gran.String(), por, "none"
	if complete {
		s.Flags |= FlagComplete
	}
	if cont {
		s.Flags |= FlagContinue
	}
	s.Verdict = res.Verdict.String()
	s.States, s.Transitions, s.Entries = res.Stats.States, res.Stats.Transitions, r.entries
	if c := r.cache; c != nil {
		// The search's figures count what it explored again.
		s.States, s.Transitions = int64(len(c.ids)), c.trans
	}
	s.Subgraphs = int64(len(r.sub))
	return s
}

// ErrIncomplete is returned by Verify when the search hit a limit after
// which no script describes the part it explored: --max-depth, a limit of
// the machine.
var ErrIncomplete = errors.New("the search was cut off by a limit")

// partialLimit reports whether a search that ended at limit explored a
// part of the state space a script can record: one that stopped it at
// once (states, time, memory, an interrupt), not --max-depth, which
// leaves states unexplored and goes on, nor a limit of the machine.
func partialLimit(limit string) bool {
	switch limit {
	case "states", "time", "memory", "interrupted":
		return true
	}
	return false
}

// Verify runs a depth-first search of m's program with opts and records
// its search script (trustful: productive transitions only). The script is
// complete when the search ended by itself or went on after errors
// (opts.Continue); when it stopped at its first error it ends there, and a
// certifier reproduces that error. It fails when opts asks for BFS.
//
// A search a limit stops (MaxStates, TimeLimit, MemoryLimit, Interrupt)
// records the part it explored, with header flag FlagLimit, and its
// coverage estimate (opts.Coverage, which must then be an estimator that
// is Stored, or EstimatorOff for none) with FlagCoverage: the certifier
// computes it again from the states it certified. A search cut off by
// MaxDepth or a limit of the machine writes no script (ErrIncomplete), nor
// does a search with opts.Cache unless opts.Coverage is EstimatorOff.
//
// With opts.Reducer the search is reduced: por is the reduction's name for
// the header (Options.POR), and the certifier must apply the same one. A
// script records persistent sets with the stack proviso only, with or
// without chains (header flag FlagChains; the certifier runs the same
// chains) and thread symmetry: sleep sets and dynamic reduction are
// refused (the certifier could not check what they leave out).
//
// With opts.Cache the search's visited set is a cache that keeps
// encodings, and the script is the one the search without the cache
// records (NewCacheRecorder); not with chains, whose steps the header's
// count of transitions includes and a repeated exploration repeats.
func Verify(m *vm.Machine, opts explorer.Options, trustful bool, por string) (*explorer.Result, *Script, error) {
	if opts.Order != explorer.DFS {
		return nil, nil, fmt.Errorf("search scripts record depth-first searches; --search %s cannot write one", opts.Order)
	}
	switch {
	case (opts.Reducer == nil) != (por == "none"):
		return nil, nil, fmt.Errorf("internal error: reduction %q with reducer %v", por, opts.Reducer != nil)
	case opts.Sleep || opts.Dynamic != nil:
		return nil, nil, fmt.Errorf("search scripts do not record sleep sets or dynamic reduction")
	case opts.Chain && opts.Reducer == nil:
		return nil, nil, fmt.Errorf("chains need a reduction")
	case opts.Reducer != nil && (opts.Proviso.Resolve(opts.Order) != explorer.ProvisoStack || opts.MaxDepth > 0):
		return nil, nil, fmt.Errorf("a reduced search script needs the stack proviso and no --max-depth")
	case opts.Cache != nil && opts.Storage != explorer.StorageExact:
		return nil, nil, fmt.Errorf("a script from a cached search needs the cache to keep encodings (no --hash-compact)")
	case opts.Cache != nil && opts.Chain:
		return nil, nil, fmt.Errorf("a script from a cached search needs --chain=false (the script counts a chain's steps, which an exploration repeated after eviction repeats)")
	case opts.Coverage != explorer.EstimatorOff && !opts.Coverage.Stored():
		return nil, nil, fmt.Errorf("--coverage %s: a certifier could not compute its estimate again from the states it certifies (it needs the search itself); give --coverage off or an estimator that needs only the stored states", opts.Coverage)
	}
	rec := NewRecorder(m.Program(), trustful)
	if opts.Cache != nil {
		rec = NewCacheRecorder(m.Program(), trustful)
	}
	rec.Hook(&opts)
	estimator := opts.Coverage
	if opts.Cache != nil {
		// The estimate of a search with a cache would count the states
		// the cache holds at the end, not the script's: no certifier
		// could compute it again.
		opts.Coverage = explorer.EstimatorOff
	}
	res := explorer.Search(m, opts)
	limited := res.Limit != ""
	if limited && !partialLimit(res.Limit) {
		why := "the machine's limit stops the search at a state a certifier would have to stop at too"
		if res.Limit == "depth" {
			why = "the search left states at the depth limit unexplored and went on, which a script cannot record"
		}
		return res, nil, fmt.Errorf("%w (%s limit): no script written: %s", ErrIncomplete, res.Limit, why)
	}
	if limited && opts.Cache != nil && estimator != explorer.EstimatorOff {
		return res, nil, fmt.Errorf("%w (%s limit): no script written: the coverage estimate of a search with a cache would count the states the cache holds, not the script's, so a certifier could not compute it again: give --coverage off to write the script of the part searched", ErrIncomplete, res.Limit)
	}
	complete := !limited && (res.Fault == nil || opts.Continue)
	s := rec.Script(bytecode.Digest(m.Program()), m.Options().Granularity, por, complete, opts.Continue, res)
	if s == nil && rec.cache != nil && rec.cache.novel {
		return res, nil, fmt.Errorf("with the reduction, a state evicted from the cache and explored again reached a state its first exploration did not, so the script would not describe one search: a larger --cache, or --por none, records it")
	}
	if s == nil {
		return res, nil, fmt.Errorf("internal error: the search's events do not describe a depth-first search")
	}
	if m.Options().DeadLocals {
		s.Flags |= FlagDeadLocals
	}
	if opts.Symmetry {
		s.Symmetry = SymmetryThreads
	}
	if opts.Chain {
		s.Flags |= FlagChains
	}
	if limited {
		s.Flags |= FlagLimit
		if c := res.Coverage; c != nil {
			s.Flags |= FlagCoverage
			s.Coverage = Coverage{Estimator: c.Estimator.String(), Seed: opts.CoverageSeed, Budget: explorer.SampleBudget(res.Stats.Transitions),
				Visited: c.Visited, Share: c.Share, Low: c.Low, High: c.High, Total: c.Total}
		}
	}
	return res, s, nil
}
