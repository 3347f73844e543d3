// Parallel depth-first search: each worker runs the depth-first search on
// one shared visited set, and gives states to workers that run out.

package explorer

import (
	"math"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
)

// pdfs is a parallel depth-first search's shared state. Each worker runs
// the sequential depth-first search (its own machine, stack, snapshots
// and lookahead) with a pvisits, its view of the shared table, as its
// visited set, so a state is expanded by the worker that stored it first,
// once. A worker whose stack empties waits for work; while one waits
// (hungry), the next new state another worker would push is given to it
// instead (search.enter, give). The search ends when every worker waits
// and none has given a state that is still to take.
//
// The table grows while workers run: the worker that finds no room left
// sets pausing, waits until every other worker waits (at its next
// insert, pvisits.add, or for work), grows it, and lets them go on.
//
// What every insert reads (the table, pausing, hungry) is kept off the
// cache lines of what workers write often (free, states): a write to a
// line takes it from the other cores' caches.
type pdfs struct {
	opts    Options
	table   *sharedTable
	recs    []*records
	ws      []*pvisits
	workers int
	halt    atomic.Bool // stop: the workers' Options.Interrupt
	pausing atomic.Bool // a worker grows the table: the others wait
	hungry  atomic.Bool // a worker waits for work and none is given

	_      [64]byte
	free   atomic.Int64 // room in the table not reserved by a worker
	_      [56]byte
	states atomic.Int64 // states stored, published in batches (progress)
	_      [56]byte

	mu      sync.Mutex
	cond    sync.Cond
	waiting int      // workers waiting on cond: for work, or while the table grows
	exited  int      // workers that stopped
	idle    int      // of them, those waiting for work
	pool    [][]byte // encodings of the states given and not taken
	done    bool     // every worker waits and the pool is empty
	refused bool     // the table could not grow within the memory limit
}

// pdfsWorker is a worker: its search and its view of the table.
type pdfsWorker struct {
	s *search
	v *pvisits
}

// searchDepthFirst runs the parallel depth-first search with workers
// workers made by newWorker. It returns nil if a worker found an error (a
// fault of the program or a machine's limit): which one a worker finds
// first depends on timing, so the caller reports the search by levels
// instead, whose report does not.
func searchDepthFirst(opts Options, workers int, newWorker func() (Worker, error), start time.Time) (*Result, error) {
	p := &pdfs{opts: opts, workers: workers}
	p.cond.L = &p.mu
	tune := opts.tuning()
	p.table = newSharedTable(max(tune.ParallelSlots, 16), opts.Storage == StorageExact)
	p.free.Store(p.table.room(0))
	ws := make([]*pdfsWorker, workers)
	for i := range ws {
		w, err := newWorker()
		if err != nil {
			return nil, err
		}
		w.Machine.IsolateLines()
		o := opts
		// The static proviso depends on the state alone, so any worker
		// may expand any state; chains and sleep sets need one stack.
		o.Reducer, o.Proviso, o.Chain, o.Sleep, o.Continue = w.Reducer, ProvisoStatic, false, false, false
		o.Interrupt, o.Listeners, o.MaxStates, o.Coverage, o.KeepViolations = &p.halt, nil, 0, EstimatorOff, 0
		v := &pvisits{p: p, index: i}
		p.ws, p.recs = append(p.ws, v), append(p.recs, &v.rec)
		var store visitedSet = v
		if p.table.exact {
			store = exactVisits{v}
		}
		s := newSearchIn(w.Machine, o, start, false, store)
		s.share = p
		ws[i] = &pdfsWorker{s: s, v: v}
	}
	stopped := p.run(ws, start)
	for _, w := range ws {
		if w.s.fault != nil {
			return nil, nil
		}
	}
	r := p.result(ws, stopped, start)
	estimateCoverage(r, &opts, ws[0].s.m, p.table, p.recs)
	return r, nil
}

// run runs the workers until they finish or a limit or error stops them;
// it returns the limit that stopped them ("" if none).
func (p *pdfs) run(ws []*pdfsWorker, start time.Time) string {
	lis := NewListenerSet(p.opts.Listeners)
	var wg sync.WaitGroup
	for i, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.work(w, i == 0)
		}()
	}
	finished := make(chan struct{})
	go func() {
		wg.Wait()
		close(finished)
	}()
	limit := ""
	every := max(p.opts.ProgressEvery, 5*time.Second)
	tick := time.NewTicker(min(every, 50*time.Millisecond))
	defer tick.Stop()
	nextProgress := start.Add(every)
	for {
		select {
		case <-finished:
			return limit
		case now := <-tick.C:
			if p.opts.Interrupt != nil && p.opts.Interrupt.Load() && limit == "" {
				limit = "interrupted"
				p.stop()
			}
			if len(lis.Progress) > 0 && now.After(nextProgress) {
				nextProgress = now.Add(every)
				st := Stats{States: p.states.Load(), Elapsed: now.Sub(start), PeakMemory: MemoryInUse()}
				for _, l := range lis.Progress {
					l.Progress(st)
				}
			}
		}
	}
}

// work runs worker w (first: from the initial state) until the search
// ends.
func (p *pdfs) work(w *pdfsWorker, first bool) {
	defer func() {
		p.mu.Lock()
		p.exited++
		p.cond.Broadcast()
		p.mu.Unlock()
	}()
	s := w.s
	for {
		if first {
			first = false
			s.m.Init()
			if s.Begin() {
				walkDown(s)
			}
		} else {
			enc, ok := p.take()
			if !ok {
				return
			}
			s.resume(enc, w.v)
			walkDown(s)
		}
		if s.fault != nil || s.limit != "" || s.bounded {
			p.stop()
			return
		}
	}
}

// resume makes the state of encoding enc, stored by another worker and
// given to this one, the bottom of its stack.
func (s *search) resume(enc []byte, v *pvisits) {
	s.m.Decode(enc)
	id := v.adopt(enc)
	s.trans = s.trans[:0]
	if !v.full_ && s.check(id) {
		s.push(id, 0, 0)
	}
}

// stop makes every worker stop.
func (p *pdfs) stop() {
	p.halt.Store(true)
	p.mu.Lock()
	p.cond.Broadcast()
	p.mu.Unlock()
}

// give puts a new state, of encoding enc, in the pool for a waiting
// worker.
func (p *pdfs) give(enc []byte) {
	p.mu.Lock()
	p.pool = append(p.pool, append([]byte(nil), enc...))
	p.hungry.Store(false)
	p.cond.Broadcast()
	p.mu.Unlock()
}

// take waits for a state given by another worker and returns its
// encoding; false when the search is over.
func (p *pdfs) take() ([]byte, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.idle++
	p.waiting++
	defer func() { p.idle--; p.waiting-- }()
	for !p.done && !p.halt.Load() {
		if n := len(p.pool); n > 0 && !p.pausing.Load() {
			enc := p.pool[n-1]
			p.pool = p.pool[:n-1]
			return enc, true
		}
		if p.idle+p.exited == p.workers && len(p.pool) == 0 {
			p.done = true
			p.cond.Broadcast()
			break
		}
		p.hungry.Store(len(p.pool) == 0)
		p.cond.Broadcast() // (a worker growing the table counts those waiting)
		p.cond.Wait()
	}
	return nil, false
}

// park waits while another worker grows the table.
func (p *pdfs) park() {
	p.mu.Lock()
	p.parkLocked()
	p.mu.Unlock()
}

func (p *pdfs) parkLocked() {
	p.waiting++
	p.cond.Broadcast()
	for p.pausing.Load() {
		p.cond.Wait()
	}
	p.waiting--
}

// grow grows the table for worker v, which found no room left, once
// every other worker waits; false if the memory limit does not allow it.
// If another worker grows it already, v waits for that instead.
func (p *pdfs) grow(v *pvisits) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pausing.Load() {
		p.parkLocked()
		return !p.refused
	}
	if p.refused {
		return false
	}
	p.pausing.Store(true)
	for p.waiting+p.exited < p.workers-1 {
		p.cond.Wait()
	}
	var n int64
	for _, w := range p.ws {
		p.free.Add(w.room)
		w.room = 0
		n += w.n
	}
	// Doubled, not grown by half as between levels: every other worker
	// waits while it grows.
	t := p.table
	slots := uint64(len(t.slots) * 2)
	if memoryCheck(p.opts.MemoryLimit, int64(slots)*8) {
		t.grow(slots)
		p.free.Store(t.room(n))
	} else {
		p.refused = true
	}
	p.pausing.Store(false)
	p.cond.Broadcast()
	return !p.refused
}

// pvisits is a worker's view of the shared table, its visited set. Ids
// are the worker's own: the states it stored, then those given to it.
type pvisits struct {
	p      *pdfs
	index  int
	rec    records  // exact: the encodings of the states this worker stored or took
	places []uint64 // exact: id -> place of its encoding in rec
	n      int64    // states stored
	ids    int32    // ids given out
	room   int64    // room in the table reserved and not used
	unpub  int64    // states stored and not yet counted in pdfs.states
	full_  bool     // the table or the records refused a state
}

func (v *pvisits) add(enc []byte, _ []int32, fp uint64) (int32, bool) {
	p := v.p
	if p.pausing.Load() {
		p.park()
	}
	if v.room == 0 && !v.reserve() {
		v.refuse()
		return -1, false
	}
	v.room--
	if !p.table.exact {
		enc = nil
	}
	isNew, _, place, full := p.table.add(enc, fp, v.index, &v.rec, p.recs, p.opts.MemoryLimit)
	if full {
		v.refuse()
		return -1, false
	}
	if !isNew {
		return -1, false
	}
	v.n++
	if v.unpub++; v.unpub == 64 {
		p.states.Add(v.unpub)
		v.unpub = 0
	}
	return v.id(place), true
}

// refuse notes that the table or the records refused a state, which is
// then not explored: every worker stops, and the search ends at its
// memory limit.
func (v *pvisits) refuse() {
	v.full_ = true
	v.p.stop()
}

// id gives out the next id, for a state whose encoding is at place in
// rec (exact).
func (v *pvisits) id(place uint64) int32 {
	if v.p.table.exact {
		v.places = append(v.places, place)
	}
	v.ids++
	return v.ids - 1
}

// adopt gives an id to the state of encoding enc, which another worker
// stored and gave to this one.
func (v *pvisits) adopt(enc []byte) int32 {
	var place uint64
	if v.p.table.exact {
		var ok bool
		if place, ok = v.rec.put(enc, v.p.opts.MemoryLimit); !ok {
			v.refuse()
		}
	}
	return v.id(place)
}

// reserve reserves a block of room in the table, growing it if there is
// none left; false if it cannot grow.
func (v *pvisits) reserve() bool {
	p := v.p
	for {
		if p.free.Add(-reserveBlock) >= 0 {
			v.room += reserveBlock
			return true
		}
		p.free.Add(reserveBlock)
		if !p.grow(v) {
			return false
		}
	}
}

func (v *pvisits) size() int { return int(v.n) }

func (v *pvisits) full() bool { return v.full_ }

// account is the worker's part of the store: its records and ids (the
// table is counted once, in the result).
func (v *pvisits) account() StoreAccount {
	return StoreAccount{RecordBytes: v.rec.bytes, IndexBytes: int64(cap(v.places)) * 8}
}

// prefetch implements prefetcher: the slot a lookup of fp probes first.
func (v *pvisits) prefetch(fp uint64) {
	t := v.p.table
	if fp == 0 {
		fp = 1
	}
	i, _ := bits.Mul64(fp, uint64(len(t.slots)))
	prefetchLine(&t.slots[i])
}

// exactVisits is pvisits as a keeper, for the exact store (the search
// then encodes every state and decodes deep levels from Get).
type exactVisits struct{ *pvisits }

// Get returns the encoding of state id.
func (v exactVisits) Get(id int32) []byte { return v.rec.get(v.places[id]) }

// result sums up a search that no error stopped.
func (p *pdfs) result(ws []*pdfsWorker, limit string, start time.Time) *Result {
	var st Stats
	acc := StoreAccount{Storage: p.opts.Storage.String()}
	for _, w := range ws {
		st.addWork(&w.s.stats)
		st.StackBytes += w.s.stackBytes()
		st.States += w.v.n
		a := w.v.account()
		acc.RecordBytes += a.RecordBytes
		acc.IndexBytes += a.IndexBytes
		if w.s.limit != "" && w.s.limit != "interrupted" && limit == "" {
			limit = w.s.limit
		}
		if w.v.full_ && limit == "" {
			limit = "memory"
		}
	}
	if p.refused && limit == "" {
		limit = "memory"
	}
	acc.TableSlots, acc.TableBytes = int64(len(p.table.slots)), int64(len(p.table.slots))*8
	acc.Bytes = acc.TableBytes + acc.RecordBytes + acc.IndexBytes
	if !p.table.exact {
		n := float64(st.States)
		acc.ExpectedMissed = n * (n - 1) / 2 / math.Exp2(64) // (as compactStore.account)
		acc.MissProbability = -math.Expm1(-acc.ExpectedMissed)
	}
	st.Store, st.StoreBytes = acc, acc.Bytes
	st.Elapsed = time.Since(start)
	st.PeakMemory = MemoryInUse()
	for _, w := range ws {
		st.PeakMemory = max(st.PeakMemory, w.s.stats.PeakMemory)
	}
	r := &Result{Stats: st, Limit: limit}
	if limit != "" {
		r.Verdict = VerdictLimit
	}
	return r
}
