// The certifier's driver: the depth-first skeleton walked with the search
// script as the successor source.

package scc

import (
	"errors"
	"fmt"
	"iter"

	"mcvm/explorer"
	"mcvm/vm"
)

// The certifier is an explorer.Walker whose successor source is the
// script: Next reads the script's next entry and checks that it names a
// transition of the top state not explored yet (or, for a backtrack, that
// the state has none left to explore), Forward executes it and checks
// that it reaches the state the entry names, Arrive applies the stack
// proviso, Enter checks a new state and pushes it, Pop leaves it. The
// rules of which transitions a state must explore are the search's
// (explorer's reductions, chains, twins and provisos).

// errLimit says that a limit of the machine ended certification where
// no discrepancy could be found (c.res says which).
var errLimit = errors.New("limit")

// entrySource reads a script's entries in order, one at a time: from the
// body's bytes, or from a task's view of a split script.
type entrySource struct {
	dec  *coder // the body's decoder, or nil
	ent  Entry
	pull func() (*Entry, error, bool) // the view's entries
	stop func()
}

// next returns the entry at position pos, or ok false at the end of the
// script; err says the entry could not be read.
func (s *entrySource) next(pos int64) (e *Entry, ok bool, err error) {
	if s.pull != nil {
		e, err, ok := s.pull()
		if !ok || err != nil {
			return nil, false, err
		}
		return e, true, nil
	}
	if !s.dec.more() {
		return nil, false, nil
	}
	if err := s.dec.decodeEntry(&s.ent); err != nil {
		if err != errEntry {
			return nil, false, discrepancy(Truncated, pos, "the script ends inside an entry")
		}
		return nil, false, corrupt(pos, "bad bytes in entry %d", pos)
	}
	return &s.ent, true, nil
}

// step is what the entry being followed has established for the steps
// after Next: the fingerprint of the state reached, the transition and
// the end of its chain in c.chain, and the materialised state it
// introduces, if it does (Options.Chain).
type step struct {
	fp  uint64
	tr  vm.Trans
	ce  int32
	mat *materialise
}

// run follows the script: a task's init path first, then the walk.
func (c *certifier) run() error {
	if err := c.reachStart(); err == errLimit {
		return nil // (c.res says which limit)
	} else if err != nil {
		return err
	}
	if v := c.s.view; v != nil {
		c.src.pull, c.src.stop = iter.Pull2(v.entries())
		defer c.src.stop()
	} else {
		dec := newCoder(c.root)
		dec.in = c.s.Body
		c.src.dec = &dec
	}
	explorer.DepthFirst(c)
	switch {
	case c.err != nil:
		return c.err
	case c.stopped || c.res.Limit != "":
		return nil
	case !c.ended && c.pull():
		return discrepancy(Extra, c.pos, "a %s entry after the search left its start state", c.e.Op)
	case c.err != nil:
		return c.err
	case c.res.Limit != "":
		return nil
	}
	var dec *coder
	if c.s.view == nil {
		dec = c.src.dec
	}
	return c.end(dec)
}

// reachStart makes the machine's state the walk's start: the initial state
// or, for a task, its root, reached by its init path (productive
// transitions of other tasks' regions, whose states are only compared,
// not explored).
func (c *certifier) reachStart() (err error) {
	m := c.m
	m.Init()
	var fp uint64
	if !c.trust {
		fp = c.fingerprint()
	}
	root := int32(0)
	var rootBad *vm.Trans
	if c.task {
		root = c.s.Root
		var init []Entry
		if c.s.view != nil {
			init = c.s.view.init()
		} else if init, err = DecodeEntries(c.s.Init, 0, c.s.InitEntries); err != nil {
			return err
		}
		if int64(len(init)) != c.s.InitEntries {
			return corrupt(-1, "the init path has %d entries, the header says %d", len(init), c.s.InitEntries)
		}
		if !c.trust {
			c.fpSet(0, fp)
		}
		if root != 0 {
			c.setOnStack(0, true)
		}
		var buf []vm.Trans
		var start *taskStart
		if c.s.view != nil {
			start = c.s.view.start
		}
		for i, e := range init {
			if start != nil {
				// Replayed and checked already (Partition.Prepare).
				c.initPath = append(c.initPath, vm.Trans{Thread: e.Thread, Choice: e.Choice})
				c.initPath = append(c.initPath, start.chainOf(e.ID)...)
				c.setOnStack(e.ID, true)
				if !c.trust {
					if err := c.compare(e.ID, start.fps[e.ID], -1); err != nil {
						return err
					}
				}
				continue
			}
			var instr int64
			var pre []byte
			if !c.trust {
				c.enc = c.m.Encode(c.enc[:0]) // the state's
				pre = c.enc
			}
			if buf, instr, err = c.initStep(buf, e, pre, func() (string, string) {
				return fmt.Sprintf("init path entry %d", i), fmt.Sprintf("state %d", c.prevInit(init, i))
			}); err != nil {
				return err
			}
			c.initPath = append(c.initPath, vm.Trans{Thread: e.Thread, Choice: e.Choice})
			c.initPath = append(c.initPath, c.chain...)
			c.setOnStack(e.ID, true) // on the producer's stack all along
			c.res.Stats.Instructions += instr
			if !c.trust {
				fp = c.fingerprint()
				if err := c.compare(e.ID, fp, -1); err != nil {
					return err
				}
			}
		}
		rootChain, rootRed := int64(len(c.chain)), c.initRed
		if len(init) > 0 && start == nil && c.initMat {
			rootBad = &c.initBad
		}
		if start != nil {
			rootBad = start.bad
			rootChain, rootRed = int64(len(start.chainOf(root))), start.red
			m.Decode(start.enc)
			c.res.Stats.Instructions += start.instr
			if !c.trust {
				if fp = c.fingerprint(); fp != start.fps[root] {
					return fmt.Errorf("internal error: task %d's root state decodes to another fingerprint", c.s.Task)
				}
			}
		}
		c.res.InitLen = len(init)
		c.res.Entries += int64(len(init))
		if n := len(init); (n == 0 && root != 0) || (n > 0 && init[n-1].ID != root) {
			return corrupt(-1, "the init path does not lead to the task's root state %d", root)
		}
		c.define(root)
		c.chain = c.chain[:0]
		if c.trust && root != 0 && rootBad == nil {
			// The transition into the root (and its chain), which the
			// partition moved from the parent task into this task's init
			// path, is counted here, so that the tasks' figures add up to
			// the whole trustful script's. (A materialised root's entry
			// counts nothing: its transition is the fault entry's, which
			// the parent task keeps. A tamper-proof parent keeps the entry
			// as a visited state's.)
			c.res.Stats.Transitions += 1 + rootChain
			c.res.Stats.Chained += rootChain
			c.res.Stats.ChainedReduced += rootRed
		}
	}
	c.highest = root
	if !c.trust {
		c.fpSet(root, fp)
	}
	c.root, c.rootFP, c.rootBad = root, fp, rootBad
	return nil
}

// Begin implements explorer.Walker: it enters the start state.
func (c *certifier) Begin() bool {
	c.res.Stats.States = 1
	c.enter(c.root, c.rootFP, vm.Trans{})
	if c.rootBad != nil && len(c.stack) == 1 {
		c.expandMaterialised(&c.stack[0], *c.rootBad)
	}
	return !c.stopped
}

// pull reads the script's next entry into c.e and counts it; it returns
// false at the end of the script (c.ended), for an entry that cannot be
// read (c.err), and when a limit ends the certification (checked every
// 1024 entries).
func (c *certifier) pull() bool {
	if c.taken {
		c.pos++
		c.taken = false
	}
	e, ok, err := c.src.next(c.pos)
	switch {
	case err != nil:
		c.err = err
		return false
	case !ok:
		c.ended = true
		return false
	}
	c.e, c.taken = e, true
	c.res.Entries++
	return !(c.pos&1023 == 0 && c.limited())
}

// fail ends the walk with err.
func (c *certifier) fail(err error) (vm.Trans, explorer.Move) {
	c.err = err
	return vm.Trans{}, explorer.Halt
}

// Next implements explorer.Walker: the script's next entry, checked
// against the top state's transitions.
func (c *certifier) Next() (vm.Trans, explorer.Move) {
	c.cur.mat = nil
	if len(c.stack) == 0 || c.err != nil || c.stopped || c.res.Limit != "" || !c.pull() {
		return vm.Trans{}, explorer.Halt
	}
	e, pos := c.e, c.pos
	level := len(c.stack) - 1
	top := &c.stack[level]
	if mt := c.mat; mt != nil {
		c.mat = nil
		if e.Op != OpBacktrack && level == mt.level && e.Thread == mt.tr.Thread && e.Choice == mt.tr.Choice && e.Instr == mt.instr && e.Op != OpFault {
			c.cur.mat = mt
			return mt.tr, explorer.Take
		}
		if !c.trust {
			return c.fail(discrepancy(Unexplored, pos, "the chain of %s from state %d faulted in a reduced state, so the search stores the state before the fault and explores it fully, but the script does not introduce it next", c.describe(mt.tr, mt.instr), c.stack[mt.level].id))
		}
		// (A trustful script leaves it out if it was visited before.)
	}
	if e.Op == OpBacktrack {
		if top.left > 0 && !c.trust {
			for i := top.start; i < top.req; i++ {
				if !c.done[i] {
					return c.fail(discrepancy(Unexplored, pos, "backtrack from state %d, which has %d unexplored transitions (e.g. %s)",
						top.id, top.left, c.describe(c.trans[i], c.instrAt(c.where[2*i], c.where[2*i+1]))))
				}
			}
		}
		if !c.task && c.s.Subgraph != nil {
			size := c.trans0 - top.transAt
			if int(top.id) >= len(c.s.Subgraph) || c.s.Subgraph[top.id] != size {
				got := int64(-1)
				if int(top.id) < len(c.s.Subgraph) {
					got = c.s.Subgraph[top.id]
				}
				return c.fail(discrepancy(Subgraphs, pos, "the region rooted at state %d has %d transitions, the Subgraphs list says %d", top.id, size, got))
			}
		}
		return vm.Trans{}, explorer.Leave
	}
	if c.trust && e.Op == OpOld {
		return c.fail(corrupt(pos, "a trustful script has no transitions to visited states"))
	}
	tr := vm.Trans{Thread: e.Thread, Choice: e.Choice}
	j := int32(-1)
	for i := top.start; i < top.end; i++ {
		if c.trans[i] == tr && c.instrAt(c.where[2*i], c.where[2*i+1]) == e.Instr {
			j = i
			break
		}
	}
	if j < 0 {
		why := ""
		if top.end == top.start {
			why = " (it has no transitions: it ends the program or violates a property)"
		}
		return c.fail(discrepancy(NotEnabled, pos, "%s is not a transition of state %d%s", c.describe(tr, e.Instr), top.id, why))
	}
	if c.done[j] {
		return c.fail(discrepancy(Duplicate, pos, "%s from state %d was explored already", c.describe(tr, e.Instr), top.id))
	}
	c.done[j] = true
	if j < top.req {
		top.left--
	}
	return tr, explorer.Take
}

// Pop implements explorer.Walker.
func (c *certifier) Pop() {
	level := len(c.stack) - 1
	top := &c.stack[level]
	c.setOnStack(top.id, false)
	c.trans, c.done, c.where = c.trans[:top.start], c.done[:top.start], c.where[:2*top.start]
	if level < len(c.snaps) {
		c.m.Discard(c.snaps[level])
	}
	c.stack = c.stack[:level]
	if c.loaded >= level {
		c.loaded = -1
	}
}

// halt ends a step with err, if any: the path goes no further.
func (c *certifier) halt(err error) (int32, bool, bool) {
	if err != nil {
		c.err = err
	}
	return 0, false, false
}

// Forward implements explorer.Walker: it executes tr (with its chain)
// from the top state and checks that it does what the entry says: faults,
// or reaches the state the entry names.
func (c *certifier) Forward(tr vm.Trans) (int32, bool, bool) {
	e, pos := c.e, c.pos
	if mt := c.cur.mat; mt != nil {
		return c.forwardMat(e, mt)
	}
	level := len(c.stack) - 1
	top := &c.stack[level]
	if c.loaded != level {
		if !top.snap {
			return c.halt(fmt.Errorf("internal error: state %d is not held and has no snapshot", top.id))
		}
		c.m.Restore(c.snaps[level])
		c.m.MarkInvariantsChecked() // a state on the stack was checked when entered
	}
	c.loaded = -1
	c.chain = c.chain[:top.ce]
	f := c.step(tr)
	c.trans0++
	c.res.Stats.Transitions++
	c.res.Stats.Instructions += int64(c.m.Executed())
	if f == nil && c.opts.Chain {
		cf, reduced, inv, instr := c.runChain(true, 0)
		c.res.Stats.Instructions += instr
		if cf != nil && cf.Kind == vm.FaultLimit {
			c.record(cf, &tr)
			return c.halt(nil)
		}
		if cf != nil {
			if e.Op != OpFault {
				how := "faults"
				if inv {
					how = "reaches a state that violates an invariant"
				}
				return c.halt(discrepancy(FaultMismatch, pos, "the chain of %s from state %d %s (%s), the script says it reaches state %d", c.describe(tr, e.Instr), top.id, how, cf.Msg, e.ID))
			}
			c.transition(top.id, tr, -1, false)
			c.record(cf, &tr)
			if reduced && !inv {
				c.matBuf = materialise{level: level, tr: tr, instr: e.Instr, bad: c.chain[len(c.chain)-1], n: int32(len(c.chain)) - top.ce - 1}
				c.mat = &c.matBuf
			}
			return c.halt(nil)
		}
	}
	if f != nil && f.Kind == vm.FaultLimit {
		c.record(f, &tr)
		return c.halt(nil)
	}
	if f != nil {
		if e.Op != OpFault {
			return c.halt(discrepancy(FaultMismatch, pos, "%s from state %d faults (%s), the script says it reaches state %d", c.describe(tr, e.Instr), top.id, f.Msg, e.ID))
		}
		c.transition(top.id, tr, -1, false)
		if top.req < top.end {
			// The path ends here, and the other threads' transitions
			// would never be taken after it: all are explored.
			c.expandFully(top)
		}
		c.record(f, &tr)
		return c.halt(nil)
	}
	if e.Op == OpFault {
		return c.halt(discrepancy(FaultMismatch, pos, "the script says %s from state %d faults, it does not", c.describe(tr, e.Instr), top.id))
	}
	var fp uint64
	if !c.trust {
		fp = c.fingerprint()
	}
	c.transition(top.id, tr, e.ID, e.Op == OpNew)
	for i, n := range c.opts.Next {
		if top.pre&(1<<i) == 0 {
			continue
		}
		n.Post.Decode(c.enc)
		if pf := n.Post.CheckInvariants(); pf != nil {
			c.record(&vm.Fault{Kind: vm.FaultInvariant, Thread: tr.Thread, Method: -1, PC: -1, Class: -1,
				Msg: fmt.Sprintf("next-invariant %s violated: %s", n.Name, pf.Msg)}, &tr)
			if c.stopped {
				return c.halt(nil)
			}
		}
	}
	return c.reach(e, tr, level, fp, int32(len(c.chain)))
}

// forwardMat follows entry e, which introduces (or revisits) the
// materialised state mt: it loads mt's state and replays mt.tr and the
// chained transitions before the fault (not counted again, as in the
// search) and checks e's ID against the state reached. Entered, it
// explores all its transitions, the faulting one counting as explored.
func (c *certifier) forwardMat(e *Entry, mt *materialise) (int32, bool, bool) {
	top := &c.stack[mt.level]
	if !top.snap {
		return c.halt(fmt.Errorf("internal error: state %d is not held and has no snapshot", top.id))
	}
	c.m.Restore(c.snaps[mt.level])
	c.m.MarkInvariantsChecked()
	c.loaded = -1
	c.trans0++
	end := top.ce + mt.n
	if int(end) > len(c.chain) {
		return c.halt(fmt.Errorf("internal error: the chain to replay is gone"))
	}
	f := c.step(mt.tr)
	for i := top.ce; f == nil && i < end; i++ {
		f = c.step(c.chain[i])
	}
	if f != nil {
		return c.halt(fmt.Errorf("internal error: a chain did not replay"))
	}
	c.chain = c.chain[:end]
	var fp uint64
	if !c.trust {
		fp = c.fingerprint()
	}
	return c.reach(e, mt.tr, mt.level, fp, end)
}

// reach checks the state that entry e's transition tr from the state at
// level reached, with fingerprint fp (by c.chain[top's ce:ce] after tr),
// against the ID e gives it: a visited state's must be the one
// introduced with fp, a new state's the next ID. It notes what Enter
// needs in c.cur.
func (c *certifier) reach(e *Entry, tr vm.Trans, level int, fp uint64, ce int32) (int32, bool, bool) {
	top, pos := &c.stack[level], c.pos
	c.cur.fp, c.cur.tr, c.cur.ce = fp, tr, ce
	if e.Op == OpOld {
		if !c.task && e.ID > c.highest {
			return c.halt(discrepancy(BadID, pos, "%s from state %d: the script says it reaches state %d, which it has not introduced (highest is %d)", c.describe(tr, e.Instr), top.id, e.ID, c.highest))
		}
		if !c.task && c.isMarked(e.ID) {
			return c.halt(discrepancy(Forgotten, pos, "state %d is referred to after its last-use mark", e.ID))
		}
		if err := c.compare(e.ID, fp, pos); err != nil {
			return c.halt(err)
		}
		return e.ID, false, true
	}
	if !c.task && e.ID != c.highest+1 {
		return c.halt(discrepancy(BadID, pos, "a new state must have ID %d, the script gives %d", c.highest+1, e.ID))
	}
	if !c.trust {
		if c.task {
			if c.isDefined(e.ID) {
				return c.halt(discrepancy(BadID, pos, "state %d is introduced twice", e.ID))
			}
			c.define(e.ID)
			if err := c.compare(e.ID, fp, pos); err != nil {
				return c.halt(err)
			}
		} else if !(c.opts.Forget && e.Last) {
			c.fpSet(e.ID, fp)
		}
		if e.Last && !c.task {
			c.mark(e.ID)
		}
	}
	return e.ID, true, true
}

// Arrive implements explorer.Walker: the stack proviso (not for a
// materialised state).
func (c *certifier) Arrive(to int32, isNew bool) {
	if top := &c.stack[len(c.stack)-1]; !isNew && c.cur.mat == nil && top.req < top.end && c.onStack.Has(to) {
		c.expandFully(top) // a cycle closed
	}
}

// Revisit implements explorer.Walker: it notes the last use of a visited
// state's ID.
func (c *certifier) Revisit(to int32) {
	if to == 0 {
		c.ref0 = true
	}
	if c.e.Last && !c.task {
		c.mark(to)
		if c.opts.Forget {
			delete(c.sparse, to)
		}
	}
	if c.cur.mat == nil {
		c.res.Stats.Revisits++ // (the search counts a materialised state's revisit as none)
	}
}

// Enter implements explorer.Walker: it checks new state to and pushes it.
func (c *certifier) Enter(to int32) {
	c.highest = to
	c.res.Stats.States++
	c.enterChained(to, c.cur.fp, c.cur.tr, c.cur.ce)
	if mt := c.cur.mat; mt != nil {
		c.expandMaterialised(&c.stack[len(c.stack)-1], mt.bad)
	}
}
