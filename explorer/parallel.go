// Parallel breadth-first search: workers expand each level's states together, sharing one visited set.

package explorer

import (
	"errors"
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

// shardBits is the log2 of the visited set's shards: a state's shard is
// the top bits of its fingerprint times an odd constant (neither the
// fingerprint's top bits, by which the stores place states, nor its low
// bits, which go with the top ones), and each shard has its own lock, so
// that workers rarely wait for one another.
const shardBits = 8

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
	p := &parallel{opts: opts, tune: opts.tuning(), start: start, lis: NewListenerSet(opts.Listeners)}
	p.shards = make([]shard, 1<<shardBits)
	for i := range p.shards {
		sh := &p.shards[i]
		if opts.Storage == StorageHashCompact {
			sh.set = newCompactStore(opts.MemoryLimit)
		} else {
			st := newStore(1 << 10)
			st.SetMemoryLimit(opts.MemoryLimit)
			sh.set = st
		}
	}
	ws := make([]*pworker, workers)
	for i := range ws {
		w, err := newWorker()
		if err != nil {
			return nil, err
		}
		ws[i] = &pworker{p: p, m: w.Machine, red: w.Reducer, err: noError()}
	}
	p.run(ws)
	return p.result(ws), nil
}

// shard is one lock's part of the shared visited set: its store, and for
// each state it holds (by the store's id) the state it was reached from
// and how (a global id: the store's id times the number of shards, plus
// the shard's index).
type shard struct {
	mu     sync.Mutex
	set    visitedSet
	parent []int64
	via    []vm.Trans
	_      [64]byte // (keeps the locks of neighbouring shards off one cache line)
}

// parallel is a parallel search's shared state.
type parallel struct {
	opts     Options
	tune     Tuning
	lis      ListenerSet
	start    time.Time
	shards   []shard
	level    []pentry // the level being expanded
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
// worker's arena that reached it.
type pentry struct {
	gid int64
	fp  uint64
	enc []byte
}

// pworker is a worker's own state.
type pworker struct {
	p       *parallel
	m       *vm.Machine
	red     Reducer
	trans   []vm.Trans
	chk     []vm.Trans
	snap    vm.Snapshot
	enc     []byte
	arena   []byte   // encodings of the states reached for the next level
	spare   []byte   // the arena of the level being expanded (read, not written)
	out     []pentry // the states reached for the next level
	perm    []int32
	steps   int64
	st      Stats
	err     perror // the least error found in the level
	errs    int64
	expands int64
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
	gid, _ := p.add(enc, fp, -1, vm.Trans{})
	p.states.Store(1)
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
		p.next.Store(0)
		var wg sync.WaitGroup
		for _, w := range ws {
			// The level being expanded reads the arenas written last.
			w.arena, w.spare = w.spare[:0], w.arena
			w.out, w.err = w.out[:0], noError()
			wg.Add(1)
			go func() {
				defer wg.Done()
				w.expandLevel()
			}()
		}
		wg.Wait()
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

// expandLevel takes chunks of the level until none is left, expanding
// each state in it.
func (w *pworker) expandLevel() {
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
	w.expands++
	w.m.Decode(e.enc)
	w.m.MarkInvariantsChecked()
	srcFP := e.fp
	w.trans = w.m.Enabled(w.trans[:0])
	if len(w.trans) > 1 {
		w.m.Save(&w.snap, nil)
	}
	end := len(w.trans)
	if w.red != nil && end > 1 {
		end = w.red.Ample(w.m, w.trans)
		if end < len(w.trans) {
			w.st.Reduced++
		}
	}
	sticky, faulted := false, false
	loaded := true
	for i := 0; i < len(w.trans); i++ {
		if i == end {
			// The static proviso: a reduced state that took a backward
			// jump is expanded fully; so is one whose persistent set
			// faulted (as the other searches do).
			if !sticky && !faulted {
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
		gid, isNew := p.add(enc, fp, e.gid, tr)
		if !isNew {
			w.st.Revisits++
			continue
		}
		if n := p.states.Add(1); p.opts.MaxStates > 0 && n >= int64(p.opts.MaxStates) {
			p.stopWith("states")
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
		if enc == nil {
			enc = w.m.Encode(w.enc[:0])
			w.enc = enc
		}
		off := len(w.arena)
		w.arena = append(w.arena, enc...)
		w.out = append(w.out, pentry{gid: gid, fp: fp, enc: w.arena[off:len(w.arena):len(w.arena)]})
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
// fingerprint fp, reached from global id parent by tr, in its shard;
// it returns its global id (-1 for a state seen before by a lossy store)
// and whether it is new.
func (p *parallel) add(enc []byte, fp uint64, parent int64, tr vm.Trans) (int64, bool) {
	i := (fp * 0x9e3779b97f4a7c15) >> (64 - shardBits)
	sh := &p.shards[i]
	sh.mu.Lock()
	id, isNew := sh.set.add(enc, nil, fp)
	if isNew {
		sh.parent = append(sh.parent, parent)
		sh.via = append(sh.via, tr)
	}
	full := sh.set.full()
	sh.mu.Unlock()
	if full {
		p.stopWith("memory")
	}
	if id < 0 {
		return -1, isNew
	}
	return int64(id)<<shardBits | int64(i), isNew
}

// pathTo returns the transitions from the initial state to global id gid.
func (p *parallel) pathTo(gid int64) []vm.Trans {
	var path []vm.Trans
	for gid >= 0 {
		sh := &p.shards[gid&(1<<shardBits-1)]
		id := gid >> shardBits
		if sh.parent[id] < 0 {
			break
		}
		path = append(path, sh.via[id])
		gid = sh.parent[id]
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
		st.Transitions += w.st.Transitions
		st.Revisits += w.st.Revisits
		st.Instructions += w.st.Instructions
		st.Reduced += w.st.Reduced
		st.Provisos += w.st.Provisos
		st.Errors += w.errs
		st.Expanded += w.expands
	}
	var acc StoreAccount
	for i := range p.shards {
		sh := &p.shards[i]
		st.States += int64(sh.set.size())
		a := sh.set.account()
		acc.Storage = a.Storage
		acc.Bytes += a.Bytes + int64(cap(sh.parent))*8 + int64(cap(sh.via))*int64(unsafe.Sizeof(vm.Trans{}))
		acc.TableSlots += a.TableSlots
		acc.TableBytes += a.TableBytes
		acc.RecordBytes += a.RecordBytes
		acc.IndexBytes += a.IndexBytes
	}
	if p.opts.Storage == StorageHashCompact {
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
		r.Path = p.pathTo(e.gid)
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
