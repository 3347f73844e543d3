// The levels coverage estimator: the frontier's levels sampled twice, sized by capture-recapture.

package explorer

import (
	"cmp"
	"math"
	"slices"

	"mcvm/heap"
	"mcvm/vm"
)

// The levels estimator's budget of transitions: a share of the search's
// (levelsShare), at least levelsMin, at most levelsMax; and its samples'
// sizes: the first run thins each level to about levelsProbe states, the
// second to what the rest of the budget allows, at most levelsMaxCap.
const (
	levelsShare  = 0.08
	levelsMin    = 4000
	levelsMax    = 1 << 22
	levelsProbe  = 16
	levelsMaxCap = 4096
)

// levelState is a state of a sample: its fingerprint and encoding.
type levelState struct {
	fp  uint64
	enc []byte
}

// levelsRun is one run of the levels estimator: two samples of the
// frontier, each followed level by level beyond the stored states.
type levelsRun struct {
	// Each level's estimated states beyond the stored ones, and the
	// estimate's variance, for the levels the run finished.
	size, variance []float64
	cost           int64 // transitions executed
	complete       bool  // both samples ran out of new states within the budget
}

// estimateByLevels estimates the coverage of a search that expands states
// from a frontier (breadth-first, best-first, A*) by the states beyond
// it: two independent samples of the frontier, chosen by hashing places
// in it with two seeds, are each expanded level by level into the states
// not stored, each level thinned again by an independent hash to a few
// states; each level's size is Lincoln-Petersen's estimate (Chapman's
// form) from how many states the two samples' levels share, which
// corrects for the states many paths reach as a sample's own count
// cannot. A first run with small samples learns how many levels there
// are; a second spends the rest of the budget on larger ones, and where
// it runs out, the first run's estimates of the levels beyond are taken.
// Sampling only the transitions the search takes (the reduction's
// persistent sets, without provisos), it estimates the states the search
// would store.
func (s *search) estimateByLevels(seed uint64) *Coverage {
	front, n := s.sampleFrontier(seed)
	member := s.membership()
	budget := min(max(int64(float64(s.stats.Transitions)*levelsShare), levelsMin), levelsMax)
	visited := int64(s.store.size())
	c := &Coverage{Estimator: EstimatorLevels, Visited: visited}
	first := s.levelsRun(front, n, levelsProbe, seed, seed, budget, member)
	c.Samples = first.cost
	size, variance, complete := first.size, first.variance, first.complete
	if levels := len(first.size); complete && levels > 0 {
		per := float64(first.cost) / float64(2*levelsProbe*levels)
		capacity := int(min(max(float64(budget-first.cost)/(2*max(per, 1)*float64(levels)), levelsProbe), levelsMaxCap))
		if capacity > 2*levelsProbe {
			r := s.levelsRun(front, n, capacity, seed, seed^0x5eed, budget-first.cost, member)
			c.Samples += r.cost
			switch {
			case r.complete:
				size, variance = r.size, r.variance
			case len(r.size) < levels:
				size = append(r.size, first.size[len(r.size):]...)
				variance = append(r.variance, first.variance[len(r.size):]...)
			}
		}
	}
	var unvisited, vsum float64
	for i := range size {
		unvisited, vsum = unvisited+size[i], vsum+variance[i]
	}
	v := float64(visited)
	c.Share = v / (v + unvisited)
	if !complete {
		// The states beyond the levels sampled are unknown: the share is
		// at most what the levels sampled leave.
		c.Low, c.High = 0, c.Share
		c.finish()
		return c
	}
	half := float64(1.96 * math.Sqrt(vsum)) // (float64: no fused multiply-add, the same bits on every machine)
	c.Low = v / (v + unvisited + half)
	c.High = v / (v + max(unvisited-half, 0))
	c.finish()
	return c
}

// frontierState is a state of the frontier kept for the samples: its
// place in the frontier and the state.
type frontierState struct {
	place uint64
	levelState
}

// sampleFrontier empties the frontier of a search that stopped (with the
// state being expanded, if any, first) and returns the n states it held,
// keeping, decoded for their fingerprints, those that either sample with
// seed might take at the largest rate any run uses (levelsMaxCap states):
// a run at a lower rate takes a subset of them, by the same hashes.
func (s *search) sampleFrontier(seed uint64) ([]frontierState, int) {
	n := s.frontier.size()
	if s.expanding >= 0 && s.exact != nil {
		n++
	}
	q := min(1, float64(levelsMaxCap)/float64(max(n, 1)))
	var kept []frontierState
	keep := func(place int, id int32, enc []byte) {
		if !sampled(uint64(place), q, seed) && !sampled(uint64(place), q, seed+1) {
			return
		}
		if enc == nil {
			enc = s.exact.Get(id)
		}
		s.m.Decode(enc)
		kept = append(kept, frontierState{uint64(place), levelState{fp: s.m.EncodeFingerprint(), enc: append([]byte(nil), enc...)}})
	}
	place := 0
	if s.expanding >= 0 && s.exact != nil {
		keep(place, s.expanding, nil)
		place++
	}
	for {
		id, enc, ok := s.frontier.pop()
		if !ok {
			break
		}
		keep(place, id, enc)
		place++
	}
	s.loaded = -1
	return kept, n
}

// levelsRun follows two samples of the frontier's n states (front holds
// those either may take; frontSeed chose them), each level thinned to
// about capacity states by hashes from seed, until neither reaches a
// state not stored and not met by the same sample before, or budget
// transitions are spent.
func (s *search) levelsRun(front []frontierState, n, capacity int, frontSeed, seed uint64, budget int64, member func([]byte, uint64) bool) levelsRun {
	var r levelsRun
	var cur [2][]levelState
	q := min(1, float64(capacity)/float64(max(n, 1)))
	for k := range cur {
		for _, f := range front {
			if sampled(f.place, q, frontSeed+uint64(k)) {
				cur[k] = append(cur[k], f.levelState)
			}
		}
	}
	seen := [2]map[uint64]bool{{}, {}}
	var ar arena
	var snap vm.Snapshot
	var trans []vm.Trans
	for len(cur[0])+len(cur[1]) > 0 {
		var next [2]map[uint64][]byte
		for k := range cur {
			next[k] = map[uint64][]byte{}
			for _, st := range cur[k] {
				s.m.Decode(st.enc)
				s.m.MarkInvariantsChecked()
				trans = s.m.Enabled(trans[:0])
				if len(trans) > 1 {
					s.m.Save(&snap, nil) // (as breadth-first search: before the reduction looks)
				}
				end := PersistentSet(s.opts.Reducer, s.m, trans)
				for i := range end {
					if r.cost++; r.cost > budget {
						s.loaded = -1
						return r
					}
					if i > 0 {
						s.m.Restore(&snap)
					}
					if s.advance(trans[i]) != nil {
						continue
					}
					enc, fp := s.fingerprintState()
					if seen[k][fp] || member(enc, fp) {
						continue
					}
					seen[k][fp] = true
					if enc == nil {
						s.enc = s.m.Encode(s.enc[:0])
						enc = s.enc
					}
					next[k][fp] = ar.keep(enc)
				}
			}
		}
		n1, n2 := float64(len(next[0])), float64(len(next[1]))
		var m float64
		for fp := range next[0] {
			if next[1][fp] != nil {
				m++
			}
		}
		// Chapman's estimate and its variance (Seber 1970).
		r.size = append(r.size, (n1+1)*(n2+1)/(m+1)-1)
		r.variance = append(r.variance, (n1+1)*(n2+1)*(n1-m)*(n2-m)/((m+1)*(m+1)*(m+2)))
		for k := range cur {
			q := min(1, float64(capacity)/float64(max(len(next[k]), 1)))
			all := make([]levelState, 0, len(next[k]))
			for fp, enc := range next[k] {
				all = append(all, levelState{fp, enc})
			}
			slices.SortFunc(all, func(a, b levelState) int { return cmp.Compare(a.fp, b.fp) }) // (the same order in every run)
			cur[k] = thin(all, q, seed+uint64(2*len(r.size)+k+2))
		}
	}
	s.loaded = -1
	r.complete = true
	return r
}

// thin returns the states of states whose fingerprint is sampled with
// share q and seed.
func thin(states []levelState, q float64, seed uint64) []levelState {
	var out []levelState
	for _, st := range states {
		if sampled(st.fp, q, seed) {
			out = append(out, st)
		}
	}
	return out
}

// sampled reports whether key, hashed with seed, falls in the lowest
// share q of the range: each key with probability q, independently of
// another seed's choice, the same in every run.
func sampled(key uint64, q float64, seed uint64) bool {
	return q >= 1 || float64(heap.Mix(key^seed*0x9e3779b97f4a7c15)) < q*(1<<63)*2
}

// arena keeps copies of encodings in large chunks: one allocation for
// many states.
type arena struct{ chunk []byte }

// keep returns a copy of enc that stays valid.
func (a *arena) keep(enc []byte) []byte {
	if len(a.chunk)+len(enc) > cap(a.chunk) {
		a.chunk = make([]byte, 0, max(64<<10, len(enc)))
	}
	n := len(a.chunk)
	a.chunk = append(a.chunk, enc...)
	return a.chunk[n:len(a.chunk):len(a.chunk)]
}
