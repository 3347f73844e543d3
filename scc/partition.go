// Partitioner: splits a script into independent certification tasks (Algorithm 3.2).

package scc

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"iter"
	"math/bits"
	"slices"
	"sort"
)

// MaxTasks is the most tasks Split makes (it keeps the arithmetic of its
// targets within 64 bits).
const MaxTasks = 1 << 20

// Partition describes how a script was split.
type Partition struct {
	Tasks []*Script
	Sizes []int64 // per task: transitions of its region
	Init  []int   // per task: length of its init path
	// Least is, where Split's first plans left a task more than a tenth
	// above 1/k, the least largest task that any k regions of the script
	// can have, by its Subgraphs list (0: not computed).
	Least int64
}

// Split partitions complete script s into at most k tasks (Algorithm 3.2):
// k-1 times it picks the state whose region (Definition 3.2.1), by the
// Subgraphs list, is closest to 1/(k-i) of the transitions not yet
// assigned, cuts that region's entries out of the script, checks that
// their number agrees with the Subgraphs list, and prefixes them with the
// init path from the initial state; what remains is the last task. Where
// that greedy choice leaves a task more than a tenth above 1/k of the
// script (and planning again is not too much work, replanWork), the choice
// is planned again with targets scaled by a few factors (scales), and the
// plan with the smallest largest task and no fewer tasks is cut (the
// first of equals). In a
// full script the transition into a region's root stays with the parent
// region as a transition to a visited state; in a trustful one it is
// dropped. Fewer than k tasks result when no region is left to cut.
//
// The tasks carry global state IDs, so their FP maps merge (Merge). A
// Subgraphs list that is wrong makes Split fail or only makes the tasks'
// sizes less even (Theorem 3.2.4): the regions are cut by the script's own
// structure.
//
// Split makes one pass over the encoded script to find its structure; it
// does not keep the decoded entries. A task is a list of ranges of the
// whole script's entries, which its certifier decodes itself, starting
// from a checkpoint of the decoder (so that the decoding, too, is done in
// parallel when the tasks are).
func Split(s *Script, k int) (*Partition, error) {
	if k < 1 || k > MaxTasks {
		return nil, fmt.Errorf("--tasks must be from 1 to %d, got %d", MaxTasks, k)
	}
	if s.IsTask() {
		return nil, fmt.Errorf("the script is already task %d of %d", s.Task, s.Tasks)
	}
	if s.Limited() {
		return nil, fmt.Errorf("a limit cut the script's search off, so it records part of the state space: certify it whole (its tasks would not cover the regions they are given)")
	}
	if !s.Complete() {
		return nil, fmt.Errorf("the script stops at the verification's first error; only a complete script (verify --continue, or a program without errors) can be partitioned")
	}
	sc, err := scanScript(s)
	if err != nil {
		return nil, err
	}
	trustful := s.Trustful()
	n := len(sc.newAt)
	if len(s.Subgraph) != n {
		return nil, discrepancy(Subgraphs, -1, "the Subgraphs list has %d entries for %d states", len(s.Subgraph), n)
	}
	remaining := sc.transitions(0, sc.n)
	drop := int64(0)
	if trustful {
		drop = 1
	}
	// removed holds the entry ranges cut out so far that no later cut
	// contains; conv the entries that become visited-state entries.
	var removed []span
	var conv []int
	type region struct {
		root int32
		segs []span
	}
	var regions []region
	pl := newPlanner(sc, s.Subgraph, drop)
	plan := pl.plan(k, scales[0])
	limit := (remaining*11 + int64(10*k) - 1) / int64(10*k) // a tenth above 1/k
	if plan.largest > limit && plan.work*int64(len(scales)-1) <= replanWork {
		for _, f := range scales[1:] {
			if p := pl.plan(k, f); p.better(plan) {
				plan = p
			}
		}
	}
	var least int64
	if plan.largest > limit {
		// Still uneven: the greedy choices took a region whose rest could
		// not be evened out. The smallest largest task cut bottom-up may
		// do better.
		if p, ok := pl.minMax(k); ok {
			least = p.largest
			if p.better(plan) {
				plan = p
			}
		}
	}
	cur := pl.cur // the Subgraphs list again after each plan
	for _, r := range plan.roots {
		// The region's entries: those after the one introducing r up to the
		// backtrack from r, less the regions already cut out of it (its
		// descendants' regions; no earlier region contains r).
		whole := span{sc.newAt[r] + 1, sc.btAt[r] + 1}
		var inner, outer []span
		for _, x := range removed {
			if x.lo >= whole.lo && x.hi <= whole.hi {
				inner = append(inner, x)
			} else {
				outer = append(outer, x)
			}
		}
		segs := subtract(whole, inner)
		var count int64
		for _, g := range segs {
			count += sc.transitions(g.lo, g.hi)
		}
		if count != cur[r] {
			return nil, discrepancy(Subgraphs, -1, "the region rooted at state %d has %d transitions, the Subgraphs list says %d", r, count, cur[r])
		}
		cut := whole
		if trustful {
			cut.lo-- // the transition into r goes too
		} else {
			conv = append(conv, sc.newAt[r])
		}
		removed = append(outer, cut)
		for a := sc.parent[r]; a >= 0; a = sc.parent[a] {
			cur[a] -= count + drop
		}
		regions = append(regions, region{root: r, segs: segs})
	}
	sort.Slice(removed, func(i, j int) bool { return removed[i].lo < removed[j].lo })
	regions = append(regions, region{root: 0, segs: subtract(span{0, sc.n}, removed)})
	sort.Ints(conv)
	kind := byte(KindTask)
	if trustful {
		kind = KindTrustfulTask
	}
	roots := make([]int32, len(regions))
	for i, rg := range regions {
		roots[i] = rg.root
	}
	newEntries, err := sc.chains(roots)
	if err != nil {
		return nil, err
	}
	part := &Partition{Least: least}
	for ti, rg := range regions {
		t := &Script{}
		t.Header = s.Header
		t.Kind, t.Task, t.Tasks, t.Root = kind, ti+1, len(regions), rg.root
		v := &taskView{sc: sc, segs: rg.segs, root: rg.root, chains: newEntries}
		depth := v.initLen()
		t.InitEntries = int64(depth)
		t.Entries = 0
		var size int64
		for _, g := range rg.segs {
			t.Entries += int64(g.hi - g.lo)
			size += sc.transitions(g.lo, g.hi)
			for _, j := range conv {
				if j >= g.lo && j < g.hi {
					v.conv = append(v.conv, j)
				}
			}
		}
		t.view = v
		t.Subgraphs = 0
		part.Tasks = append(part.Tasks, t)
		part.Sizes = append(part.Sizes, size)
		part.Init = append(part.Init, depth)
	}
	return part, nil
}

// scales are the factors (in twentieths) by which Split scales the
// greedy choice's targets when planning again: the plain target first.
var scales = [...]int64{20, 21, 19, 22, 18, 24, 16, 26, 14}

// cutPlan is a greedy choice of the regions to cut: their roots in order,
// and the transitions of the largest task they leave.
type cutPlan struct {
	roots   []int32
	largest int64
	work    int64 // the states looked at to make it
}

// better reports whether p leaves a smaller largest task than q, and no
// fewer tasks.
func (p cutPlan) better(q cutPlan) bool {
	return p.largest < q.largest && len(p.roots) >= len(q.roots)
}

// replanWork bounds the work of planning again (the first plan's work
// times the plans to make): in a deep search, every cut changes the
// regions of thousands of ancestors, which each later cut looks at, and
// the first plan must do then. A bound on counted work, not time, keeps
// the partition the same on every machine.
const replanWork = 100_000_000

// planner makes Algorithm 3.2's greedy choices from a script's Subgraphs
// list without cutting anything. Each choice is the state whose region
// (what is left of it) is closest to a target, the lowest ID of equals.
// Instead of looking at every state for every cut, it keeps the states in
// order of their Subgraphs values and looks on either side of the
// target; the states whose regions earlier cuts made smaller (ancestors of
// cut roots) are out of that order and looked at one by one.
type planner struct {
	sc    *scan
	sub   []int64 // the Subgraphs list
	drop  int64   // what a cut takes from its ancestors beyond the region
	total int64   // the script's transitions
	byVal []int32 // the states with a positive value, by (value, ID)
	// Per plan, reset after it: cur holds what is left of each region
	// (sub where not changed), chg the states whose cur changed,
	// removed the states of regions cut, in the ranges cut.
	cur     []int64
	changed []bool
	chg     []int32
	removed []bool
	cut     []span
}

func newPlanner(sc *scan, sub []int64, drop int64) *planner {
	pl := &planner{sc: sc, sub: sub, drop: drop, total: sc.transitions(0, sc.n),
		cur: append([]int64(nil), sub...), changed: make([]bool, len(sub)), removed: make([]bool, len(sub))}
	pl.byVal = sortByValue(sub)
	return pl
}

// sortByValue returns the IDs from 1 on whose value in sub is positive,
// ordered by (value, ID): a radix sort of the IDs by their values' bytes
// (stable, from IDs in order), or a comparison sort for values of 2^32
// and more.
func sortByValue(sub []int64) []int32 {
	var big int64
	n := 0
	for id := 1; id < len(sub); id++ {
		if sub[id] > 0 {
			n++
			big = max(big, sub[id])
		}
	}
	ids := make([]int32, 0, n)
	for id := 1; id < len(sub); id++ {
		if sub[id] > 0 {
			ids = append(ids, int32(id))
		}
	}
	if big >= 1<<32 {
		slices.SortStableFunc(ids, func(a, b int32) int { return cmp.Compare(sub[a], sub[b]) })
		return ids
	}
	tmp := make([]int32, n)
	for shift := 0; shift < 32 && big>>shift > 0; shift += 8 {
		var count [257]int
		for _, id := range ids {
			count[(sub[id]>>shift)&0xff+1]++
		}
		for i := 1; i < 257; i++ {
			count[i] += count[i-1]
		}
		for _, id := range ids {
			d := (sub[id] >> shift) & 0xff
			tmp[count[d]] = id
			count[d]++
		}
		ids, tmp = tmp, ids
	}
	return ids
}

// plan makes the greedy choice of at most k-1 regions, each the one whose
// size is closest to f/20 of the transitions not yet assigned divided by
// the tasks still to make.
func (pl *planner) plan(k int, f int64) cutPlan {
	sub, cur, byVal := pl.sub, pl.cur, pl.byVal
	n := len(sub)
	remaining := pl.total
	var p cutPlan
	for i := 0; i < k-1; i++ {
		left := int64(k-i) * 20
		target := f * remaining
		best, bestD := int32(-1), int64(-1)
		consider := func(id int32) {
			d := cur[id]*left - target
			if d < 0 {
				d = -d
			}
			if best < 0 || d < bestD || d == bestD && id < best {
				best, bestD = id, d
			}
		}
		// The nearest unchanged values at or above the target and below
		// it (the lowest ID of that value: the order is by ID within it).
		at := sort.Search(len(byVal), func(j int) bool { return sub[byVal[j]]*left >= target })
		for j := at; j < len(byVal); j++ {
			if id := byVal[j]; !pl.removed[id] && !pl.changed[id] {
				consider(id)
				break
			}
		}
		v := int64(-1)
		for j := at - 1; j >= 0; j-- {
			id := byVal[j]
			if v >= 0 && sub[id] != v {
				break
			}
			if !pl.removed[id] && !pl.changed[id] {
				v = sub[id]
				consider(id)
			}
		}
		for _, id := range pl.chg {
			if !pl.removed[id] && cur[id] > 0 {
				consider(id)
			}
		}
		p.work += int64(len(pl.chg)) + 1
		if best < 0 {
			break
		}
		r, count := best, cur[best]
		// The states of r's subtree have consecutive IDs from r on.
		end := int(r) + 1 + sort.Search(n-int(r)-1, func(j int) bool { return pl.sc.newAt[int(r)+1+j] > pl.sc.btAt[r] })
		for id := int(r); id < end; id++ {
			pl.removed[id] = true
		}
		pl.cut = append(pl.cut, span{int(r), end})
		for a := pl.sc.parent[r]; a >= 0; a = pl.sc.parent[a] {
			cur[a] -= count + pl.drop
			if a > 0 && !pl.changed[a] { // the initial state is never cut
				pl.changed[a] = true
				pl.chg = append(pl.chg, a)
			}
		}
		remaining -= count + pl.drop
		p.roots = append(p.roots, r)
		p.largest = max(p.largest, count)
	}
	p.largest = max(p.largest, remaining)
	cur[0] = sub[0]
	for _, id := range pl.chg {
		cur[id], pl.changed[id] = sub[id], false
	}
	for _, c := range pl.cut {
		clear(pl.removed[c.lo:c.hi])
	}
	pl.chg, pl.cut = pl.chg[:0], pl.cut[:0]
	return p
}

// minMax plans the cuts with the smallest largest task, by the Subgraphs
// list: a binary search for the least bound B for which cutting bottom-up
// leaves at most k tasks. Bottom-up, a state's region is what is left of
// it after the cuts below it; where that is more than B, the state's
// children whose regions are left largest are cut first until it is not
// (Kundu and Misra's rule, which leaves the fewest parts of at most B in a
// tree). The roots come descendants first (decreasing IDs), as Split cuts
// them. It reports false when the work would pass replanWork or no bound
// works (a Subgraphs list that does not add up).
func (pl *planner) minMax(k int) (cutPlan, bool) {
	sc, sub, drop := pl.sc, pl.sub, pl.drop
	n := len(sub)
	if n < 2 || k < 2 || int64(n)*64 > replanWork {
		return cutPlan{}, false
	}
	// The children of each state, in CSR form, by ID.
	first := make([]int32, n+1)
	for v := 1; v < n; v++ {
		first[sc.parent[v]+1]++
	}
	for v := 0; v < n; v++ {
		first[v+1] += first[v]
	}
	kids := make([]int32, n-1)
	fill := append([]int32(nil), first[:n]...)
	for v := 1; v < n; v++ {
		p := sc.parent[v]
		kids[fill[p]] = int32(v)
		fill[p]++
	}
	// The least bound: each state's own transitions (its region with every
	// child cut). (An even share of the script is not one: in a trustful
	// script a cut drops the transition into its root.)
	lo, hi := int64(0), int64(0)
	for v := 0; v < n; v++ {
		own := sub[v]
		for _, c := range kids[first[v]:first[v+1]] {
			own -= sub[c] + drop
		}
		lo = max(lo, own)
		hi = max(hi, sub[v])
	}
	acc := make([]int64, n)
	rem := make([]int64, n)
	cutAt := make([]bool, n)
	var order []int32
	// cuts returns the parts that cutting bottom-up with bound b leaves
	// (k+1 as soon as it passes k), and the largest.
	cuts := func(b int64) (int, int64) {
		clear(rem)
		clear(cutAt)
		parts, largest := 1, int64(0)
		for v := n - 1; v >= 0; v-- {
			acc[v] = sub[v] - rem[v]
			if acc[v] > b {
				order = append(order[:0], kids[first[v]:first[v+1]]...)
				slices.SortFunc(order, func(x, y int32) int {
					if c := cmp.Compare(acc[y], acc[x]); c != 0 {
						return c
					}
					return cmp.Compare(x, y)
				})
				for _, c := range order {
					if acc[v] <= b {
						break
					}
					cutAt[c] = true
					largest = max(largest, acc[c])
					acc[v] -= acc[c] + drop
					rem[v] += acc[c] + drop
					if parts++; parts > k {
						return parts, largest
					}
				}
				if acc[v] > b {
					return k + 1, largest
				}
			}
			if v > 0 {
				rem[sc.parent[v]] += rem[v]
			}
		}
		return parts, max(largest, acc[0])
	}
	if parts, _ := cuts(hi); parts > k {
		return cutPlan{}, false
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		if parts, _ := cuts(mid); parts <= k {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	_, largest := cuts(hi)
	p := cutPlan{largest: largest}
	for v := n - 1; v > 0; v-- {
		if cutAt[v] {
			p.roots = append(p.roots, int32(v))
		}
	}
	return p, true
}

// span is a range [lo, hi) of a script's entries.
type span struct{ lo, hi int }

// subtract returns w less the disjoint spans holes (sorted by lo or not),
// which lie inside it.
func subtract(w span, holes []span) []span {
	hs := append([]span(nil), holes...)
	sort.Slice(hs, func(i, j int) bool { return hs[i].lo < hs[j].lo })
	var out []span
	at := w.lo
	for _, h := range hs {
		if h.lo > at {
			out = append(out, span{at, h.lo})
		}
		at = h.hi
	}
	if at < w.hi {
		out = append(out, span{at, w.hi})
	}
	return out
}

// scan is the structure of a whole script, found from its tag and
// new-state columns, with checkpoints of the decoder (the start and each
// sync point) from which any entry can be decoded again.
type scan struct {
	s      *Script
	n      int      // entries
	bt     []uint64 // bitset: which entries are backtracks
	newAt  []int    // per state: the entry that introduces it (-1 for state 0)
	btAt   []int    // per state: the backtrack from it
	parent []int32  // per state: the state it was reached from (-1 for state 0)
	cps    []checkpoint
}

// checkpoint is the decoder's context before an entry (a sync point's).
type checkpoint struct {
	entry int
	c     coder
}

// scanScript finds a whole script's structure from its tag and new-state
// columns alone, and its checkpoints from the sync column; the other
// columns are decoded (and checked) by the tasks, each its own ranges.
func scanScript(s *Script) (*scan, error) {
	tags := s.Body[colTag]
	if int64(len(tags)) != s.Entries {
		return nil, corrupt(-1, "the body has %d entries, the header says %d", len(tags), s.Entries)
	}
	// The Subgraphs list has an entry per state (Split checks it), and
	// the header's counts are bounded by the payload (Read checks it).
	ns := len(s.Subgraph) + 1
	sc := &scan{s: s, n: len(tags), newAt: make([]int, 1, ns), btAt: make([]int, 1, ns), parent: make([]int32, 1, ns),
		bt: make([]uint64, len(tags)/64+1)}
	sc.newAt[0], sc.btAt[0], sc.parent[0] = -1, -1, -1
	// Checkpoints: the start and each sync point.
	c := newCoder(0)
	c.in = s.Body
	sc.cps = append(sc.cps, checkpoint{0, c.clone()})
	for at := syncEvery; at < len(tags); at += syncEvery {
		c.n, c.nextSync = at, at
		if err := c.readSync(); err != nil {
			return nil, corrupt(int64(at), "bad sync point before entry %d", at)
		}
		cp := coder{lastNew: c.syncNew, in: s.Body, n: at, nextSync: at + syncEvery, syncAt: c.syncAt, syncNew: c.syncNew}
		cp.off = c.syncAt
		cp.off[colTag], cp.off[colSync] = at, c.off[colSync]
		sc.cps = append(sc.cps, checkpoint{at, cp})
	}
	if c.off[colSync] != len(s.Body[colSync]) {
		return nil, corrupt(-1, "%d bytes left over in the sync column", len(s.Body[colSync])-c.off[colSync])
	}
	stack := []int32{0}
	news := s.Body[colNew]
	for i, tag := range tags {
		op := Op(tag & 3)
		if (op == OpBacktrack && tag != 0) || tag&tagUnused != 0 {
			return nil, corrupt(int64(i), "bad bytes in entry %d", i)
		}
		if len(stack) == 0 {
			return nil, discrepancy(Extra, int64(i), "a %s entry after the search left its start state", op)
		}
		switch op {
		case OpBacktrack:
			sc.bt[i>>6] |= 1 << (i & 63)
			sc.btAt[stack[len(stack)-1]] = i
			stack = stack[:len(stack)-1]
		case OpNew:
			// In a whole script every new state's ID is the next.
			x, n := binary.Uvarint(news)
			if n <= 0 {
				return nil, corrupt(int64(i), "bad bytes in entry %d", i)
			}
			news = news[n:]
			if x != 0 {
				return nil, discrepancy(BadID, int64(i), "a new state must have ID %d, the script gives %d", len(sc.newAt), uint64(len(sc.newAt))+x)
			}
			id := int32(len(sc.newAt))
			sc.newAt, sc.btAt = append(sc.newAt, i), append(sc.btAt, -1)
			sc.parent = append(sc.parent, stack[len(stack)-1])
			stack = append(stack, id)
		case OpOld:
			if s.Trustful() {
				return nil, corrupt(int64(i), "a trustful script has no transitions to visited states")
			}
		}
	}
	if len(news) != 0 {
		return nil, corrupt(-1, "%d bytes left over in the new-state column", len(news))
	}
	if len(stack) > 0 {
		return nil, discrepancy(Truncated, int64(len(tags)), "the script ends with %d states on the stack", len(stack))
	}
	return sc, nil
}

// transitions counts the transition entries (all but backtracks) in [lo, hi).
func (sc *scan) transitions(lo, hi int) int64 {
	bts := 0
	for i := lo; i < hi; {
		w := sc.bt[i>>6] >> (i & 63)
		if k := 64 - i&63; hi-i < k {
			w &= 1<<(hi-i) - 1
			i = hi
		} else {
			i += k
		}
		bts += bits.OnesCount64(w)
	}
	return int64(hi-lo) - int64(bts)
}

// decode decodes the entries in spans (ascending, disjoint) in one pass,
// resuming from the last checkpoint before a span where that skips
// entries; f sees each with its index.
func (sc *scan) decode(spans []span, f func(i int, e *Entry) bool) error {
	var c coder
	var e Entry
	at := -1 // the entry c decodes next
	for _, g := range spans {
		k := sort.Search(len(sc.cps), func(j int) bool { return sc.cps[j].entry > g.lo }) - 1
		if cp := &sc.cps[k]; at < 0 || at > g.lo || cp.entry > at {
			c, at = cp.c.clone(), cp.entry
		}
		for ; at < g.hi; at++ {
			if err := c.decodeEntry(&e); err != nil {
				return corrupt(int64(at), "bad bytes in entry %d", at)
			}
			if at >= g.lo && !f(at, &e) {
				return nil
			}
		}
		if at == sc.n {
			// The task that decodes the last entry checks that the columns
			// end there.
			if err := c.leftover(); err != nil {
				return err
			}
		}
	}
	return nil
}

// chains decodes the entries that introduce the states of the init paths
// to roots, in one pass over the script.
func (sc *scan) chains(roots []int32) (*chainEntries, error) {
	n := len(sc.newAt)
	ce := &chainEntries{pos: make([]int32, n)}
	for i := range ce.pos {
		ce.pos[i] = -1
	}
	// Mark the ancestors (pos 0 for now), then number them in ID order.
	for _, r := range roots {
		for a := r; a > 0 && ce.pos[a] < 0; a = sc.parent[a] {
			ce.pos[a] = 0
		}
	}
	var spans []span
	for id := 1; id < n; id++ {
		if ce.pos[id] == 0 {
			ce.pos[id] = int32(len(spans))
			spans = append(spans, span{sc.newAt[id], sc.newAt[id] + 1})
		}
	}
	ce.entries = make([]Entry, len(spans))
	got := make([]bool, len(spans))
	k := 0 // spans are decoded in order, one entry each
	err := sc.decode(spans, func(i int, e *Entry) bool {
		for k < len(spans) && spans[k].lo < i {
			k++
		}
		if k < len(spans) && spans[k].lo == i && e.Op == OpNew {
			x := *e
			x.Last = false
			ce.entries[k], got[k] = x, true
		}
		return true
	})
	for id := 1; id < n && err == nil; id++ {
		if j := ce.pos[id]; j >= 0 && (!got[j] || ce.entries[j].ID != int32(id)) {
			err = corrupt(int64(sc.newAt[id]), "the entry introducing state %d does not decode again", id)
		}
	}
	return ce, err
}

// chainEntries are the entries introducing the ancestors of some states:
// the entry introducing state id is entries[pos[id]] (pos[id] is -1 for
// the others).
type chainEntries struct {
	pos     []int32
	entries []Entry
}

// taskView is a task's entries: ranges of the whole script's, of which
// those in conv become visited-state entries.
type taskView struct {
	sc     *scan
	segs   []span
	conv   []int // sorted
	root   int32
	chains *chainEntries // the entries introducing the ancestors of every task's root, shared
	start  *taskStart    // set by Partition.Prepare: start at the root, the init path replayed already
}

// initLen is the length of the task's init path: the depth of its root.
func (v *taskView) initLen() int {
	n := 0
	for a := v.root; a > 0; a = v.sc.parent[a] {
		n++
	}
	return n
}

// init returns the task's init path, from the initial state to its root.
// The tasks share the entries; each makes its path when it needs it, since
// the paths of a deep search's tasks together can be far larger than the
// script.
func (v *taskView) init() []Entry {
	n := v.initLen()
	out := make([]Entry, n)
	for a := v.root; a > 0; a = v.sc.parent[a] {
		n--
		out[n] = v.chains.entries[v.chains.pos[a]]
	}
	return out
}

// entries decodes the task's body entries in order; the error, if any, is
// the last value yielded.
func (v *taskView) entries() iter.Seq2[*Entry, error] {
	return func(yield func(*Entry, error) bool) {
		ci := 0
		stopped := false
		err := v.sc.decode(v.segs, func(i int, e *Entry) bool {
			e.Last = false
			if ci < len(v.conv) && v.conv[ci] == i {
				e.Op = OpOld
				ci++
			}
			stopped = !yield(e, nil)
			return !stopped
		})
		if err != nil && !stopped {
			yield(nil, err)
		}
	}
}
