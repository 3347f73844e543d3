// Coverage estimation: how much of the reachable state space a search cut short visited.

package explorer

import (
	"math"
	"math/rand/v2"

	"mcvm/vm"
)

// Estimator selects how a search that ends at a limit estimates the
// share of the reachable states it visited (Options.Coverage).
type Estimator uint8

// Estimators.
const (
	// EstimatorOff estimates nothing.
	EstimatorOff Estimator = iota
	// EstimatorWalk samples states by random walks from the initial
	// state after the search and counts how many the search stored: a
	// capture-recapture estimate, the search's states being the first
	// capture and the walks' the second. It leaves the search as it is.
	EstimatorWalk
	// EstimatorThesis is the two-phase method of Taleghani's thesis
	// (chapter 5): a breadth-first search with part of each limit, then
	// depth-first searches from randomly chosen unexplored
	// transitions of its frontier with the rest, and an extrapolation of
	// the new states each sampled transition found to the productive
	// transitions left unexplored. It changes the search order.
	EstimatorThesis
	// EstimatorChao counts how often the search reached each state and
	// estimates the states not reached by Chao's lower bound from
	// species richness, f1^2 / 2f2, f1 and f2 the states reached once
	// and twice: each transition a draw, each state a species.
	EstimatorChao
	// EstimatorLevels (estimateByLevels) samples the frontier of a search
	// that expands states from one (breadth-first, best-first, A*) twice
	// and sizes the levels beyond it by capture-recapture.
	EstimatorLevels
	// EstimatorAuto is levels for a search from a frontier, walk for
	// the others: the estimator the measurements favour for each.
	EstimatorAuto
)

var estimatorNames = [...]string{"off", "walk", "thesis", "chao", "levels", "auto"}

func (e Estimator) String() string { return estimatorNames[e] }

// ParseEstimator returns the estimator named name.
func ParseEstimator(name string) (Estimator, bool) {
	for i, n := range estimatorNames {
		if n == name {
			return Estimator(i), true
		}
	}
	return 0, false
}

// Coverage is an estimate of the share of the reachable states a search
// visited (Result.Coverage), with a 95% interval.
type Coverage struct {
	Estimator Estimator
	Visited   int64   // the states the search stored
	Total     float64 // the estimated number of reachable states
	Share     float64 // Visited / Total, in [0, 1]
	Low, High float64 // the interval of Share
	Samples   int64   // what it sampled: states met (walk), transitions (the others)
}

// estimateCoverage estimates, for a search that ended at a limit of its
// own, the share of the reachable states it visited.
func (s *search) estimateCoverage() {
	switch s.limit {
	case "states", "depth", "time", "memory", "interrupted":
	default:
		return
	}
	if s.opts.Coverage == EstimatorOff || s.opts.Order == IDA || s.cache != nil {
		return // IDA* stores no states; a cache forgets them
	}
	if s.opts.Coverage == EstimatorThesis && s.thesis != nil && s.thesis.counted {
		s.coverage = s.thesis.estimate(s)
		return
	}
	if s.opts.Coverage == EstimatorChao && s.hits != nil {
		s.coverage = s.estimateChao()
		return
	}
	if (s.opts.Coverage == EstimatorLevels || s.opts.Coverage == EstimatorAuto) && s.frontier != nil && s.limit != "depth" {
		// (At a depth limit the states at the bound are not in the
		// frontier: walks, which pass the bound, estimate.)
		s.coverage = s.estimateByLevels(s.opts.CoverageSeed)
		return
	}
	s.coverage = s.estimateByWalks(s.opts.CoverageSeed)
}

// estimateChao is Chao's bias-corrected estimate of the number of
// states, with its log-normal 95% interval (Chao 1987).
func (s *search) estimateChao() *Coverage {
	var f1, f2 float64
	for _, h := range s.hits {
		switch h {
		case 1:
			f1++
		case 2:
			f2++
		}
	}
	v := float64(len(s.hits))
	c := &Coverage{Estimator: EstimatorChao, Visited: int64(len(s.hits)), Samples: s.stats.Transitions}
	// (float64s: no fused multiply-add, the same bits on every machine.)
	unseen := f1 * (f1 - 1) / (2 * (f2 + 1))
	c.Share = v / (v + unseen)
	c.Low, c.High = c.Share, 1
	if unseen > 0 {
		var variance float64
		if f2 > 0 {
			r := f1 / f2
			variance = f2 * (float64(r*r*r*r/4) + float64(r*r*r) + float64(r*r/2))
		} else {
			variance = float64(f1*(f1-1)/2) + float64(f1*(2*f1-1)*(2*f1-1)/4) - f1*f1*f1*f1/float64(4*unseen+1e-9)
		}
		k := math.Exp(1.96 * math.Sqrt(math.Log(1+max(variance, 0)/(unseen*unseen))))
		c.Low, c.High = v/(v+float64(unseen*k)), v/(v+unseen/k)
	}
	c.finish()
	return c
}

// walkBudget bounds the random walks' transitions: a share of the
// search's own (walkShare), at least walkMin, at most walkMax.
const (
	walkShare = 0.04
	walkMin   = 4000
	walkMax   = 2000000
	// walkLen bounds one walk: a walk ends in a state without
	// transitions, at a fault, or after walkLen transitions.
	walkLen = 1 << 12
)

// estimateByWalks estimates the search's coverage by EstimateStored.
func (s *search) estimateByWalks(seed uint64) *Coverage {
	member := s.membership()
	has := func(*vm.Machine) bool { return member(s.fingerprintState()) }
	return EstimateStored(s.m, &s.opts, EstimatorWalk, int64(s.store.size()), SampleBudget(s.stats.Transitions), seed, has)
}

// SampleBudget is the number of transitions a post-hoc estimator
// samples after a search that took transitions: a share of them
// (walkShare), at least walkMin, at most walkMax.
func SampleBudget(transitions int64) int64 {
	return min(max(int64(float64(transitions)*walkShare), walkMin), walkMax)
}

// Stored reports whether e estimates from a search's stored states
// alone, after the search: then a certifier, which stores the same
// states, recomputes the same estimate with EstimateStored.
func (e Estimator) Stored() bool { return e == EstimatorWalk }

// For returns the estimator e stands for in a search of order o: auto's
// choice, e itself otherwise.
func (e Estimator) For(o Order) Estimator {
	switch {
	case e != EstimatorAuto:
		return e
	case o == BFS || o == BestFirst || o == AStar:
		return EstimatorLevels
	}
	return EstimatorWalk
}

// EstimatorNames lists the estimators by name, off first.
func EstimatorNames() []string { return estimatorNames[:] }

// EstimateStored estimates the coverage of a search with opts that
// stored visited states, has telling whether it stored the state m
// holds, by estimator e (one that is Stored), sampling at most budget
// transitions with random choices from seed. It leaves m in some state.
func EstimateStored(m *vm.Machine, opts *Options, e Estimator, visited, budget int64, seed uint64, has func(*vm.Machine) bool) *Coverage {
	switch e {
	case EstimatorWalk:
		return EstimateByWalks(m, opts, visited, budget, seed, has)
	}
	panic("explorer: EstimateStored with an estimator that needs the search: " + e.String())
}

// EstimateByWalks runs random walks from m's initial state over the
// transitions a search with opts would take (the reduction's persistent
// sets without provisos; through chains as the search runs them),
// taking at most budget transitions, and counts the states on them that
// has says a search stored; visited is the number it stored. The share
// of stored ones estimates the coverage; the interval treats walks as
// the independent samples (the states of one walk are not). The same
// seed gives the same estimate. It leaves m in some state of the walks.
func EstimateByWalks(m *vm.Machine, opts *Options, visited, budget int64, seed uint64, has func(*vm.Machine) bool) *Coverage {
	rng := rand.New(rand.NewPCG(seed, 0x636f766572616765))
	chaining := opts.Chain && opts.ChainFits(opts.Reducer != nil) == nil
	var init vm.Snapshot
	m.Init()
	m.Save(&init, nil)
	var samples, hits, steps int64
	var sum, sumSq float64 // per-walk shares
	walks := 0
	var trans, tmp []vm.Trans
	var perm, twins []int32
	var keep []bool
	for steps < budget {
		m.Restore(&init)
		var n, in int64
		for l := 0; l < walkLen && steps < budget; l++ {
			trans = m.Enabled(trans[:0])
			if len(trans) == 0 {
				break
			}
			tr := trans[rng.IntN(PersistentSet(opts.Reducer, m, trans))]
			steps++
			if m.Step(tr) != nil {
				break
			}
			if opts.Symmetry {
				perm, _ = m.SortThreads(perm)
			}
			if chaining {
				// A state the search runs through, not stores (the chain
				// rule the search and the certifier share).
				var pick int
				tmp = m.Enabled(tmp[:0])
				if pick, _, twins, keep = ChainPick(m, opts.Reducer, opts.Symmetry, tmp, twins, keep); pick >= 0 {
					continue
				}
			}
			n++
			if has(m) {
				in++
			}
		}
		if n == 0 {
			continue
		}
		walks++
		samples += n
		hits += in
		r := float64(in) / float64(n)
		sum += r
		sumSq += float64(r * r) // (float64: no fused multiply-add, the same bits on every machine)
	}
	c := &Coverage{Estimator: EstimatorWalk, Visited: visited, Samples: samples}
	if samples == 0 {
		c.Share, c.Low, c.High, c.Total = 1, 1, 1, float64(visited)
		return c
	}
	c.Share = float64(hits) / float64(samples)
	half := 1.0
	if walks > 1 {
		mean := sum / float64(walks)
		sd := math.Sqrt(float64(max(sumSq/float64(walks)-float64(mean*mean), 0)*float64(walks)) / float64(walks-1))
		half = float64(1.96*sd) / math.Sqrt(float64(walks))
	}
	c.Low, c.High = max(c.Share-half, 0), min(c.Share+half, 1)
	c.finish()
	return c
}

// finish derives Total from Share, keeping Share within what the
// visited states allow (a share of 0 would make the total infinite).
func (c *Coverage) finish() {
	floor := 1 / float64(c.Visited+1)
	c.Share = max(c.Share, floor)
	c.Low = max(c.Low, floor)
	c.High = max(c.High, c.Share)
	c.Total = float64(c.Visited) / c.Share
}

// fingerprintState encodes the state the machine holds as visit does,
// into s.enc where the store keeps encodings, and returns its
// fingerprint.
func (s *search) fingerprintState() ([]byte, uint64) {
	switch {
	case s.collapse != nil:
		s.enc, s.cuts = s.m.EncodeSplit(s.enc[:0], s.cuts[:0]) // (membership reads s.cuts)
		return s.enc, s.m.Fingerprint()
	case s.exact != nil:
		s.enc = s.m.Encode(s.enc[:0])
		return s.enc, s.m.Fingerprint()
	default:
		s.enc = s.enc[:0]
		return nil, s.m.EncodeFingerprint()
	}
}

// membership returns a test of whether the search stored a state, given
// its encoding (nil for a lossy store) and fingerprint.
func (s *search) membership() func([]byte, uint64) bool {
	switch st := s.store.(type) {
	case *Store:
		return st.has
	case *compactStore:
		return st.has
	case *bitStore:
		return st.has
	case *CollapseStore:
		// (fingerprintState left the encoding's cuts in s.cuts.)
		return func(enc []byte, fp uint64) bool { return st.has(enc, s.cuts, fp) }
	}
	panic("explorer: membership of a store without a lookup")
}
