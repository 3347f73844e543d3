// Parallel breadth-first search: workers expand each level's states together, sharing one visited set.

package explorer

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"mcvm/vm"
)

// A Worker is what SearchParallel gives each of its goroutines: a machine
// of the program and, with a reduction, the reduction's own instance
// (neither is shared between goroutines).
type Worker struct {
	Machine *vm.Machine
	Reducer Reducer // nil: no reduction
}

// reserveBlock is how much room in the shared fingerprint table a worker
// reserves at a time, so that workers seldom touch the shared count.
const reserveBlock = 256

var errParallel = errors.New("--workers needs the exact store or --hash-compact, and no dpor, --max-depth, goal or --proviso other than static")

// SearchParallel explores the state space with workers goroutines, each
// with the Worker newWorker makes, level by level (parallel breadth-first
// search): the states of a level are shared out in chunks, each worker
// expands the states it takes, and a state a worker reaches first goes to
// the next level. Every state is expanded once whatever the order, and
// with a reduction the cycle proviso is the static one (a reduced state
// that takes a backward jump is expanded fully), which depends on the
// state alone: so a complete search stores the same states and explores
// the same transitions with any number of workers, as breadth-first search
// with the static proviso does with one. A level is always finished, and
// of the errors found in it the one at the least fingerprint is reported
// (for a faulting transition, its state's, then by thread and choice), so
// the verdict and the counterexample do not depend on the workers' timing
// either. Chains and sleep sets, which depth-first search's stack makes
// sound, do not apply.
//
// Options takes Continue, MaxStates, TimeLimit, MemoryLimit, Interrupt,
// Storage (exact or hash compaction), Symmetry, Listeners (progress
// only) and Tuning.SkipInvariants; the order is breadth-first whatever
// Order says.
func SearchParallel(opts Options, workers int, newWorker func() (Worker, error)) (*Result, error) {
	if opts.Dynamic != nil || opts.MaxDepth > 0 || opts.Goal != nil || opts.Storage != StorageExact && opts.Storage != StorageHashCompact ||
		opts.Proviso != ProvisoAuto && opts.Proviso != ProvisoStatic {
		return nil, errParallel
	}
	start := time.Now()
	workers = max(workers, 1)
	if opts.Storage == StorageExact && workers > maxSharedWorkers {
		return nil, fmt.Errorf("--workers: at most %d with the exact store", maxSharedWorkers)
	}
	if opts.Order != DFS || opts.MaxStates > 0 {
		return searchLevels(opts, workers, newWorker, start)
	}
	r, err := searchDepthFirst(opts, workers, newWorker, start)
	if r != nil || err != nil {
		return r, err
	}
	// A worker found an error; which one first depends on timing. The
	// search by levels reports the least of the first level with one.
	runtime.GC()
	return searchLevels(opts, workers, newWorker, start)
}

// searchLevels is SearchParallel's search by levels.
func searchLevels(opts Options, workers int, newWorker func() (Worker, error), start time.Time) (*Result, error) {
	p := &parallel{opts: opts, tune: opts.tuning(), start: start, lis: NewListenerSet(opts.Listeners)}
	p.table = newSharedTable(max(p.tune.ParallelSlots, 16), opts.Storage == StorageExact)
	ws := make([]*pworker, workers)
	for i := range ws {
		w, err := newWorker()
		if err != nil {
			return nil, err
		}
		w.Machine.IsolateLines()
		ws[i] = &pworker{p: p, index: int64(i), m: w.Machine, red: w.Reducer, err: noError()}
		p.recs = append(p.recs, &ws[i].rec)
	}
	p.workers = int64(workers)
	// Workers count their new states in the shared count in batches, so
	// that they seldom write the same cache line; one at a time where a
	// bound on the states must hold exactly.
	p.publish = 64
	if opts.MaxStates > 0 {
		p.publish = 1
	}
	p.run(ws)
	r := p.result(ws)
	estimateCoverage(r, &p.opts, ws[0].m, p.table, p.recs)
	return r, nil
}

// estimateCoverage sets r.Coverage for a search of either parallel kind
// that ended at a limit (opts its options), by random walks
// (EstimateStored) with machine m over the shared table t (all: the
// workers' records).
func estimateCoverage(r *Result, opts *Options, m *vm.Machine, t *sharedTable, all []*records) {
	if r.Limit == "" || opts.Coverage == EstimatorOff {
		return
	}
	var enc []byte
	has := func(m *vm.Machine) bool {
		if t.exact {
			enc = m.Encode(enc[:0])
			return t.has(enc, m.Fingerprint(), all)
		}
		return t.has(nil, m.EncodeFingerprint(), all)
	}
	r.Coverage = EstimateStored(m, opts, EstimatorWalk, r.Stats.States, SampleBudget(r.Stats.Transitions), opts.CoverageSeed, has)
}

// parallel is a parallel search's shared state.
type parallel struct {
	opts     Options
	tune     Tuning
	lis      ListenerSet
	start    time.Time
	table    *sharedTable
	recs     []*records   // each worker's encodings, in the exact store
	free     atomic.Int64 // room in the table not reserved by a worker
	workers  int64
	publish  int64    // a worker adds its new states to states this many at a time
	level    []pentry // the level (or the part of it) being expanded
	err      perror   // the error reported: the least of the first level with one
	next     atomic.Int64
	states   atomic.Int64
	stop     atomic.Bool
	limit    string // why it stopped, set once stop is (under limitMu)
	limMu    sync.Mutex
	depth    int // levels expanded
	maxDepth int // the deepest level with a state
	peak     int64
}

// pentry is a state of a level: its global id, and its encoding in the
// worker's arena that reached it. A global id is the index of the state
// in the parent and via of the worker that stored it, times the number of
// workers, plus that worker's index.
type pentry struct {
	gid int64
	fp  uint64
	enc []byte
}

// pworker is a worker's own state.
type pworker struct {
	p       *parallel
	index   int64
	m       *vm.Machine
	red     Reducer
	trans   []vm.Trans
	chk     []vm.Trans
	snap    vm.Snapshot
	enc     []byte
	base    []byte   // the encoding of the state being expanded, written again
	arena   []byte   // encodings of the states reached for the next level
	spare   []byte   // the arena of the level being expanded (read, not written)
	out     []pentry // the states reached for the next level
	perm    []int32
	steps   int64
	st      Stats
	err     perror // the least error found in the level
	errs    int64
	expands int64
	parent  []int64    // for each state this worker stored, the global id it was reached from
	via     []vm.Trans // and by which transition
	room    int64      // room in the shared table reserved and not used
	rec     records    // the encodings of the states this worker stored (exact store)
	unpub   int64      // states stored and not yet counted in parallel.states
	defer_  []pentry   // states of the level left until the table has grown
}

// perror is an error found in a level, ordered by where: the state's
// fingerprint (for a faulting transition, the state it was taken from),
// thread and choice.
type perror struct {
	f      *vm.Fault
	fp     uint64
	tr     vm.Trans
	gid    int64 // the state's global id (for a transition, the source's)
	byStep bool  // a faulting transition tr from gid
}

func noError() perror { return perror{} }

func (e *perror) less(o *perror) bool {
	switch {
	case e.f == nil:
		return false
	case o.f == nil:
		return true
	case e.fp != o.fp:
		return e.fp < o.fp
	case e.byStep != o.byStep:
		return !e.byStep
	case e.tr.Thread != o.tr.Thread:
		return e.tr.Thread < o.tr.Thread
	}
	return e.tr.Choice < o.tr.Choice
}

// stopWith stops the search for limit (the first reason given stays).
func (p *parallel) stopWith(limit string) {
	p.limMu.Lock()
	if p.limit == "" {
		p.limit = limit
	}
	p.limMu.Unlock()
	p.stop.Store(true)
}

// run explores level by level until a level is empty, an error ends the
// search or a limit stops it.
func (p *parallel) run(ws []*pworker) {
	w0 := ws[0]
	w0.m.Init()
	enc, fp := w0.encode()
	if enc == nil {
		enc = w0.m.Encode(nil)
	}
	gid, _, _ := w0.add(enc, fp, -1, vm.Trans{})
	p.states.Store(1)
	w0.room = 0
	p.free.Store(p.table.room(1))
	var f *vm.Fault
	w0.chk, f, _ = CheckState(w0.m, p.tune.SkipInvariants, w0.chk[:0])
	if f != nil {
		w0.note(f, fp, gid, vm.Trans{}, false)
		p.err = w0.err
		if f.Kind == vm.FaultLimit {
			p.stopWith(f.Limit.String())
		}
	} else {
		p.level = []pentry{{gid: gid, fp: fp, enc: append([]byte(nil), enc...)}}
	}
	nextProgress := p.start.Add(max(p.opts.ProgressEvery, 5*time.Second))
	for len(p.level) > 0 && !p.stop.Load() && (p.err.f == nil || p.opts.Continue) {
		for _, w := range ws {
			// The level being expanded reads the arenas written last.
			w.arena, w.spare = w.spare[:0], w.arena
			w.out, w.err = w.out[:0], noError()
		}
		p.expandLevel(ws)
		p.depth++
		var level []pentry
		least := noError()
		for _, w := range ws {
			level = append(level, w.out...)
			if w.err.less(&least) {
				least = w.err
			}
		}
		if p.err.f == nil {
			p.err = least
		}
		p.level = level
		if len(level) > 0 {
			p.maxDepth = p.depth
		}
		if mem := MemoryInUse(); mem > p.peak {
			p.peak = mem
			if p.opts.MemoryLimit > 0 && mem > p.opts.MemoryLimit {
				p.stopWith("memory")
			}
		}
		if now := time.Now(); len(p.lis.Progress) > 0 && now.After(nextProgress) {
			nextProgress = now.Add(max(p.opts.ProgressEvery, 5*time.Second))
			st := p.sum(ws)
			for _, l := range p.lis.Progress {
				l.Progress(st)
			}
		}
	}
	// (The workers keep their own copies until the next level: drop them.)
	for _, w := range ws {
		w.arena, w.spare, w.out = nil, nil, nil
	}
	p.level = nil
	runtime.GC()
}

// expandLevel expands the level's states with the workers, in passes: a
// state a worker could not reserve room for in the fingerprint table is
// left for the next pass, after the table has grown.
func (p *parallel) expandLevel(ws []*pworker) {
	for len(p.level) > 0 {
		p.next.Store(0)
		var wg sync.WaitGroup
		for _, w := range ws {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w.expandPart()
			}()
		}
		wg.Wait()
		var left []pentry
		for _, w := range ws {
			w.publishStates()
			left = append(left, w.defer_...)
			w.defer_ = w.defer_[:0]
		}
		p.growTable(ws, len(left) > 0)
		if p.stop.Load() {
			return
		}
		p.level = left
	}
}

// growTable, between passes, takes back the room the workers reserved
// and grows the table by half where it is 13/16 full (as compactStore) or
// a state was left for want of room; if memory does not allow that when
// a state was left, the search stops.
func (p *parallel) growTable(ws []*pworker, needed bool) {
	for _, w := range ws {
		p.free.Add(w.room)
		w.room = 0
	}
	t := p.table
	n := p.states.Load()
	if needed || 16*n > compactLoad*int64(len(t.slots)) {
		slots := uint64(len(t.slots) * compactGrow / 4)
		if memoryCheck(p.opts.MemoryLimit, int64(slots)*8) {
			t.grow(slots)
		} else if needed {
			p.stopWith("memory")
		}
	}
	p.free.Store(t.room(n))
}

// reserve reserves room in the shared table for need new states, a
// block at a time; false if there is not that much room left.
func (w *pworker) reserve(need int64) bool {
	if w.room >= need {
		return true
	}
	p := w.p
	for _, take := range [2]int64{max(need-w.room, reserveBlock), need - w.room} {
		if p.free.Add(-take) >= 0 {
			w.room += take
			return true
		}
		p.free.Add(take)
	}
	return false
}

// publishStates adds the states the worker stored since it last did to
// the shared count, and stops the search at Options.MaxStates.
func (w *pworker) publishStates() {
	p := w.p
	n := p.states.Add(w.unpub)
	w.unpub = 0
	if p.opts.MaxStates > 0 && n >= int64(p.opts.MaxStates) {
		p.stopWith("states")
	}
}

// expandPart takes chunks of the level until none is left, expanding
// each state in it.
func (w *pworker) expandPart() {
	p := w.p
	const chunk = 32
	for !p.stop.Load() {
		i := int(p.next.Add(chunk)) - chunk
		if i >= len(p.level) {
			return
		}
		for _, e := range p.level[i:min(i+chunk, len(p.level))] {
			if !w.expand(e) {
				return
			}
		}
	}
}

// expand executes the transitions of level state e that its reduction
// and the static proviso ask for; it returns false when the search must
// stop.
func (w *pworker) expand(e pentry) bool {
	p := w.p
	w.m.Decode(e.enc)
	w.base = w.m.Encode(w.base[:0]) // (see search.expandState)
	w.m.MarkInvariantsChecked()
	srcFP := e.fp
	w.trans = w.m.Enabled(w.trans[:0])
	if !w.reserve(int64(len(w.trans))) {
		w.defer_ = append(w.defer_, e)
		return true
	}
	w.expands++
	if len(w.trans) > 1 {
		w.m.Save(&w.snap, nil)
	}
	end := PersistentSet(w.red, w.m, w.trans)
	if end < len(w.trans) {
		w.st.Reduced++
	}
	sticky, faulted := false, false
	loaded := true
	for i := 0; i < len(w.trans); i++ {
		if i == end {
			if !expandsRest(ProvisoStatic, faulted, sticky, false) {
				break
			}
			w.st.Provisos++
		}
		if w.steps++; w.steps&1023 == 0 && !w.tick() {
			return false
		}
		if !loaded {
			w.m.Restore(&w.snap)
			w.m.MarkInvariantsChecked()
		}
		loaded = false
		tr := w.trans[i]
		f := w.m.Step(tr)
		if f == nil && p.opts.Symmetry {
			w.perm, _ = w.m.SortThreads(w.perm)
		}
		w.st.Transitions++
		w.st.Instructions += int64(w.m.Executed())
		if f != nil {
			if i < end {
				faulted = true
			}
			if f.Kind == vm.FaultLimit {
				w.note(f, srcFP, e.gid, tr, true)
				p.stopWith(f.Limit.String())
				return false
			}
			w.note(f, srcFP, e.gid, tr, true)
			continue
		}
		if i < end && w.m.BackJump() {
			sticky = true
		}
		enc, fp := w.encode()
		gid, rec, isNew := w.add(enc, fp, e.gid, tr)
		if !isNew {
			w.st.Revisits++
			continue
		}
		if w.unpub++; w.unpub >= p.publish {
			w.publishStates()
		}
		var cf *vm.Fault
		w.chk, cf, _ = CheckState(w.m, p.tune.SkipInvariants, w.chk[:0])
		if cf != nil {
			if cf.Kind == vm.FaultLimit {
				w.note(cf, fp, gid, vm.Trans{}, false)
				p.stopWith(cf.Limit.String())
				return false
			}
			w.note(cf, fp, gid, vm.Trans{}, false)
			continue
		}
		if rec == nil {
			// Hash compaction keeps no encoding: the next level's is
			// written to the worker's arena.
			off := len(w.arena)
			w.arena = w.m.Encode(w.arena)
			rec = w.arena[off:len(w.arena):len(w.arena)]
		}
		w.out = append(w.out, pentry{gid: gid, fp: fp, enc: rec})
	}
	return true
}

// encode returns the encoding of the state the machine holds, where the
// store keeps encodings (nil otherwise), and its fingerprint.
func (w *pworker) encode() ([]byte, uint64) {
	if w.p.opts.Storage == StorageExact {
		w.enc = w.m.Encode(w.enc[:0])
		return w.enc, w.m.Fingerprint()
	}
	return nil, w.m.EncodeFingerprint()
}

// note records error f (at the state of fingerprint fp and global id
// gid, or for byStep the transition tr from it): counted, and kept if it
// is the least found so far.
func (w *pworker) note(f *vm.Fault, fp uint64, gid int64, tr vm.Trans, byStep bool) {
	if f.Kind != vm.FaultLimit {
		w.errs++
	}
	c := *f
	e := perror{f: &c, fp: fp, tr: tr, gid: gid, byStep: byStep}
	if e.less(&w.err) {
		w.err = e
	}
}

// tick looks at the time limit and the interrupt every 1,024 steps; it
// returns false when the search must stop.
func (w *pworker) tick() bool {
	p := w.p
	if p.stop.Load() {
		return false
	}
	if p.opts.Interrupt != nil && p.opts.Interrupt.Load() {
		p.stopWith("interrupted")
		return false
	}
	if p.opts.TimeLimit > 0 && time.Since(p.start) >= p.opts.TimeLimit {
		p.stopWith("time")
		return false
	}
	return true
}

// add stores the state of encoding enc (nil for hash compaction) and
// fingerprint fp, reached from global id parent by tr; it returns whether
// it is new and, if it is, its global id and, in the exact store, its
// stored encoding.
func (w *pworker) add(enc []byte, fp uint64, parent int64, tr vm.Trans) (int64, []byte, bool) {
	p := w.p
	isNew, rec, _, full := p.table.add(enc, fp, int(w.index), &w.rec, p.recs, p.opts.MemoryLimit)
	if full {
		p.stopWith("memory")
	}
	w.room--
	if !isNew {
		return -1, nil, false
	}
	gid := int64(len(w.parent))*p.workers + w.index
	w.parent, w.via = append(w.parent, parent), append(w.via, tr)
	return gid, rec, true
}

// pathTo returns the transitions from the initial state to global id gid.
func (p *parallel) pathTo(ws []*pworker, gid int64) []vm.Trans {
	var path []vm.Trans
	for gid >= 0 {
		w, id := ws[gid%p.workers], gid/p.workers
		if w.parent[id] < 0 {
			break
		}
		path = append(path, w.via[id])
		gid = w.parent[id]
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}

// sum adds up the workers' figures.
func (p *parallel) sum(ws []*pworker) Stats {
	var st Stats
	for _, w := range ws {
		st.addWork(&w.st)
		st.Errors += w.errs
		st.Expanded += w.expands
	}
	st.States = p.states.Load()
	var acc StoreAccount
	for _, w := range ws {
		acc.Bytes += int64(cap(w.parent))*8 + int64(cap(w.via))*int64(unsafe.Sizeof(vm.Trans{}))
	}
	acc.Storage = p.opts.Storage.String()
	acc.TableSlots, acc.TableBytes = int64(len(p.table.slots)), int64(len(p.table.slots))*8
	for _, r := range p.recs {
		acc.RecordBytes += r.bytes
	}
	acc.Bytes += acc.TableBytes + acc.RecordBytes
	if !p.table.exact {
		n := float64(st.States)
		acc.ExpectedMissed = n * (n - 1) / 2 / math.Exp2(64) // (as compactStore.account)
		acc.MissProbability = -math.Expm1(-acc.ExpectedMissed)
	}
	st.Store, st.StoreBytes = acc, acc.Bytes
	st.MaxDepth = p.maxDepth
	st.Elapsed = time.Since(p.start)
	st.PeakMemory = max(p.peak, MemoryInUse())
	return st
}

// result sums up the search.
func (p *parallel) result(ws []*pworker) *Result {
	st := p.sum(ws)
	e := p.err
	r := &Result{Stats: st, Limit: p.limit}
	if e.f != nil {
		r.Fault = e.f
		r.Path = p.pathTo(ws, e.gid)
		if e.byStep {
			r.Path = append(r.Path, e.tr)
		}
		if p.opts.Symmetry {
			r.Path = concretePath(ws[0].m, r.Path, r.Fault)
		}
	}
	switch {
	case e.f != nil && e.f.Kind != vm.FaultLimit:
		r.Verdict = VerdictOf(e.f.Kind)
	case p.limit != "":
		r.Verdict = VerdictLimit
		if e.f == nil || e.f.Kind != vm.FaultLimit {
			r.Fault, r.Path = nil, nil
		}
	}
	return r
}
