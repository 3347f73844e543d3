// The thesis's coverage estimator: breadth-first, then depth-first from sampled frontier transitions.

package explorer

import (
	"math"
	"math/rand/v2"
	"time"

	"mcvm/vm"
)

// thesisShare is the share of the state budget (Options.MaxStates) the
// breadth-first phase takes; the thesis found 50% best at low coverage,
// 70% at high, and takes 60% for all.
const thesisShare = 0.6

// thesisRun is the state of EstimatorThesis's search (Taleghani, chapter
// 5): a breadth-first search to thesisShare of the budget (its frontier
// is the worklist), then, with the rest, depth-first searches each from
// a transition of the worklist chosen at random among those not chosen
// yet, counting the new states each productive one (one that reaches a
// state not visited) finds. Once the budget is spent, every transition
// of the worklist not chosen is executed, without going further or
// storing what it reaches, to count the productive ones left, d; the
// states not visited are estimated as d times the mean new states per
// sampled productive transition (equation 5.2).
type thesisRun struct {
	work   []int32 // the worklist: states stored, not (all) expanded
	starts []int64 // work[i]'s transitions are numbered starts[i] to starts[i+1]-1
	chosen []uint64
	// The productive transitions sampled, and the sum and sum of squares
	// of the new states each one's search found.
	sampled     int64
	found, sqr  float64
	unsampledOK int64 // productive transitions left (counted at the end)
	counted     bool  // the search ran to the count: estimate applies
	// inDFS: a depth-first search runs from transition via of worklist
	// state from (for the path to an error it finds).
	inDFS bool
	from  int32
	via   vm.Trans
}

// thesisSearch runs the thesis's search (explore, with EstimatorThesis).
// Its breadth-first phase has thesisShare of each limit set (states,
// time, memory: the thesis splits its memory budget so), the
// depth-first phase the rest.
func (s *search) thesisSearch() {
	limits := s.opts
	s.thesis = &thesisRun{}
	if s.opts.MaxStates > 0 {
		s.opts.MaxStates = max(int(float64(s.opts.MaxStates)*thesisShare), 1)
	}
	s.opts.TimeLimit = time.Duration(float64(s.opts.TimeLimit) * thesisShare)
	s.opts.MemoryLimit = int64(float64(s.opts.MemoryLimit) * thesisShare)
	s.frontier = new(queue)
	s.expandAll()
	s.opts.MaxStates, s.opts.TimeLimit, s.opts.MemoryLimit = limits.MaxStates, limits.TimeLimit, limits.MemoryLimit
	switch {
	case s.limit != "states" && s.limit != "time" && s.limit != "memory", s.fault != nil && !s.opts.Continue:
		return // done, or stopped for another reason
	case s.store.full():
		return // the store itself is full: nothing left for a second phase
	}
	s.limit, s.bounded = "", s.opts.MaxStates > 0 && s.store.size() >= s.opts.MaxStates
	q := s.frontier.(*queue)
	t := s.thesis
	if s.expanding >= 0 {
		t.work = append(t.work, s.expanding)
	}
	t.work = append(t.work, q.ids[q.head:]...)
	s.frontier = nil
	// Number the worklist's transitions.
	t.starts = make([]int64, len(t.work)+1)
	for i, id := range t.work {
		s.load1(id)
		t.starts[i+1] = t.starts[i] + int64(len(s.thesisTrans()))
	}
	total := t.starts[len(t.work)]
	t.chosen = make([]uint64, (total+63)/64)
	rng := rand.New(rand.NewPCG(s.opts.CoverageSeed, 0x7468657369730a))
	left := total
	has := s.membership()
	for left > 0 && !s.bounded && s.limit == "" && (s.fault == nil || s.opts.Continue) {
		k := rng.Int64N(total)
		for t.chosen[k>>6]&(1<<(k&63)) != 0 { // the next one not chosen
			if k++; k == total {
				k = 0
			}
		}
		t.chosen[k>>6] |= 1 << (k & 63)
		left--
		if s.tick() {
			break
		}
		i := t.index(k)
		s.load1(t.work[i])
		tr := s.thesisTrans()[k-t.starts[i]]
		if f := s.step(t.work[i], tr); f != nil {
			s.transition(t.work[i], tr, -1, false)
			s.record(f, t.work[i], &tr)
			continue
		}
		if has(s.fingerprintState()) {
			s.transition(t.work[i], tr, -1, false)
			continue // unproductive
		}
		before := s.store.size()
		s.trans = s.trans[:0] // (the depth-first stack starts at 0)
		t.inDFS, t.from, t.via = true, t.work[i], tr
		DepthFirst(s)
		t.inDFS = false
		n := float64(s.store.size() - before)
		t.sampled++
		t.found += n
		t.sqr += float64(n * n) // (float64s here and below: no fused multiply-add, the same bits on every machine)
	}
	if s.limit == "" && left > 0 && s.bounded {
		s.limit = "states"
	}
	if s.limit != "states" && s.limit != "time" && s.limit != "memory" {
		return
	}
	// The productive transitions left, each counted once per state it
	// reaches.
	seen := make(map[uint64]struct{})
	for i, id := range t.work {
		for j := range t.starts[i+1] - t.starts[i] {
			k := t.starts[i] + j
			if t.chosen[k>>6]&(1<<(k&63)) != 0 {
				continue
			}
			s.load1(id)
			tr := s.thesisTrans()[j]
			s.loaded = -1
			if s.advance(tr) != nil {
				continue
			}
			enc, fp := s.fingerprintState()
			if has(enc, fp) {
				continue
			}
			if _, ok := seen[fp]; !ok {
				seen[fp] = struct{}{}
				t.unsampledOK++
			}
		}
	}
	t.counted = true
}

// index returns the worklist index of transition number k.
func (t *thesisRun) index(k int64) int {
	lo, hi := 0, len(t.work)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if t.starts[mid] <= k {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// estimate is the thesis's estimate (equations 5.2 and 5.3), with an
// interval from the spread of the sampled transitions' counts.
func (t *thesisRun) estimate(s *search) *Coverage {
	c := &Coverage{Estimator: EstimatorThesis, Visited: int64(s.store.size()), Samples: t.sampled}
	if t.sampled == 0 {
		// Nothing sampled: no figure for the states behind the
		// productive transitions left; each reaches one at least.
		c.Share = float64(c.Visited) / float64(c.Visited+t.unsampledOK)
		c.Low, c.High = 0, c.Share
		c.finish()
		return c
	}
	b := float64(t.sampled)
	mean := t.found / b
	unvisited := float64(mean * float64(t.unsampledOK))
	half := 0.0
	if t.sampled > 1 {
		sd := math.Sqrt(float64(max(t.sqr/b-float64(mean*mean), 0)*b) / (b - 1))
		half = float64(float64(1.96*sd) / math.Sqrt(b) * float64(t.unsampledOK))
	}
	v := float64(c.Visited)
	c.Share = v / (v + unvisited)
	c.Low = v / (v + unvisited + half)
	c.High = v / (v + max(unvisited-half, 0))
	c.finish()
	return c
}

// load1 makes stored state id the machine's (the thesis's worklist
// states, decoded from the exact store).
func (s *search) load1(id int32) {
	if s.loaded == id {
		return
	}
	s.m.Decode(s.exact.Get(id))
	s.m.MarkInvariantsChecked()
	s.loaded = id
}

// thesisTrans returns the transitions of the worklist state the machine
// holds (in s.level, valid until the next call): all of them, also under
// a reduction, since the state's expansion was cut short before its
// cycle proviso could be decided.
func (s *search) thesisTrans() []vm.Trans {
	s.level = s.m.Enabled(s.level[:0])
	return s.level
}
