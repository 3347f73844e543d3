// Cache policies: which fully explored state a full cache evicts.

package explorer

import (
	"math"
	"math/rand/v2"
)

// policy keeps the cache's ready states (fully explored, off the stack)
// and chooses the one to evict.
type policy interface {
	grow(slots int) // the cache now has this many slots
	ready(s int32)  // s is fully explored
	hit(s int32)    // ready state s was met again
	victim() int32  // removes a ready state and returns it, or -1 if none is
}

func newPolicy(c *cacheStore, p CachePolicy, seed uint64) policy {
	rng := rand.New(rand.NewPCG(seed, 0x63616368))
	switch p {
	case PolicyRandom:
		return &bagPolicy{rng: rng, bags: make([]bag, 1)}
	case PolicyStratified:
		return &bagPolicy{rng: rng, bags: make([]bag, StratifiedLevels), c: c}
	case PolicyTinyLFU:
		return newLFUPolicy(c, rng)
	}
	return &heapPolicy{c: c, kind: p, rng: rng}
}

// tieBits are the low bits of a heap key that break ties at random.
const tieBits = 24

// heapPolicy evicts the ready state of least key: cost (PolicyCost),
// hits (PolicyHits), depth from the deepest (PolicyDepth), or age
// (PolicyAge); ties at random (except age, which has none).
type heapPolicy struct {
	c    *cacheStore
	kind CachePolicy
	rng  *rand.Rand
	h    []hent
	pos  []int32 // slot -> index in h, or -1
}

type hent struct {
	key uint64
	s   int32
}

func (p *heapPolicy) grow(n int) {
	for len(p.pos) < n {
		p.pos = append(p.pos, -1)
	}
}

func (p *heapPolicy) key(s int32) uint64 {
	c := p.c
	var k uint64
	switch p.kind {
	case PolicyAge:
		return uint64(c.age[s])
	case PolicyHits:
		k = uint64(c.hits[s])
	case PolicyDepth:
		k = uint64(math.MaxInt32 - c.depth[s])
	default:
		k = uint64(min(c.cost[s], 1<<(64-tieBits)-1))
	}
	return k<<tieBits | p.rng.Uint64()>>(64-tieBits)
}

func (p *heapPolicy) ready(s int32) {
	p.pos[s] = int32(len(p.h))
	p.h = append(p.h, hent{p.key(s), s})
	p.up(len(p.h) - 1)
}

func (p *heapPolicy) hit(s int32) {
	if p.kind != PolicyHits {
		return
	}
	i := int(p.pos[s])
	if i < 0 {
		return
	}
	p.h[i].key += 1 << tieBits
	p.down(i)
}

func (p *heapPolicy) victim() int32 {
	n := len(p.h)
	if n == 0 {
		return -1
	}
	s := p.h[0].s
	p.swap(0, n-1)
	p.h = p.h[:n-1]
	p.pos[s] = -1
	if n > 1 {
		p.down(0)
	}
	return s
}

func (p *heapPolicy) swap(i, j int) {
	p.h[i], p.h[j] = p.h[j], p.h[i]
	p.pos[p.h[i].s] = int32(i)
	p.pos[p.h[j].s] = int32(j)
}

func (p *heapPolicy) up(i int) {
	for i > 0 {
		par := (i - 1) / 2
		if p.h[par].key <= p.h[i].key {
			return
		}
		p.swap(i, par)
		i = par
	}
}

func (p *heapPolicy) down(i int) {
	n := len(p.h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && p.h[r].key < p.h[l].key {
			m = r
		}
		if p.h[i].key <= p.h[m].key {
			return
		}
		p.swap(i, m)
		i = m
	}
}

// bagPolicy evicts a ready state chosen at random: of all
// (PolicyRandom, one bag), or of the states whose depth is k modulo the
// number of bags, k moving on when that bag is empty (PolicyStratified).
type bagPolicy struct {
	rng  *rand.Rand
	bags []bag
	k    int
	c    *cacheStore // stratified: the cache, whose depths choose the bags
	pos  []int32     // slot -> index in its bag
}

type bag []int32

func (p *bagPolicy) grow(n int) {
	for len(p.pos) < n {
		p.pos = append(p.pos, -1)
	}
}

func (p *bagPolicy) bagOf(s int32) *bag {
	if len(p.bags) == 1 {
		return &p.bags[0]
	}
	return &p.bags[int(p.c.depth[s])%len(p.bags)]
}

func (p *bagPolicy) ready(s int32) {
	b := p.bagOf(s)
	p.pos[s] = int32(len(*b))
	*b = append(*b, s)
}

func (p *bagPolicy) hit(int32) {}

func (p *bagPolicy) victim() int32 {
	for range p.bags {
		b := &p.bags[p.k]
		if n := len(*b); n > 0 {
			i := p.rng.IntN(n)
			s := (*b)[i]
			last := (*b)[n-1]
			(*b)[i] = last
			p.pos[last] = int32(i)
			*b = (*b)[:n-1]
			p.pos[s] = -1
			return s
		}
		p.k = (p.k + 1) % len(p.bags)
	}
	return -1
}

// lfuPolicy is TinyLFU's frequency estimate (Einziger, Friedman and
// Manes) with sampled eviction, as ristretto pairs them: a count-min
// sketch of 4-bit counters counts how often each fingerprint is met,
// evicted states included, and is halved every lfuReset·width additions
// so that old counts fade; a full cache evicts, of lfuSample ready states
// drawn at random, the one met least often. There is no admission test: a
// new state goes on the stack, which the cache must hold.
type lfuPolicy struct {
	c     *cacheStore
	rng   *rand.Rand
	cands bag // the ready states
	pos   []int32
	rows  [lfuRows][]uint8
	mask  uint64
	adds  int
}

const (
	lfuRows   = 4
	lfuSample = 5
	lfuReset  = 10
	lfuMax    = 15
)

// lfuSeeds make the sketch's rows independent hashes of a fingerprint.
var lfuSeeds = [lfuRows]uint64{0x9e3779b97f4a7c15, 0xc2b2ae3d27d4eb4f, 0x165667b19e3779f9, 0xd6e8feb86659fd93}

func newLFUPolicy(c *cacheStore, rng *rand.Rand) *lfuPolicy {
	w := 1 << 10
	for c.cfg.States > 0 && w < 4*c.cfg.States && w < 1<<26 {
		w <<= 1
	}
	p := &lfuPolicy{c: c, rng: rng, mask: uint64(w - 1)}
	for i := range p.rows {
		p.rows[i] = make([]uint8, w)
	}
	return p
}

func (p *lfuPolicy) index(fp uint64, row int) uint64 {
	return (fp * lfuSeeds[row]) >> 32 & p.mask
}

// met counts fingerprint fp once more.
func (p *lfuPolicy) met(fp uint64) {
	for r := range p.rows {
		if i := p.index(fp, r); p.rows[r][i] < lfuMax {
			p.rows[r][i]++
		}
	}
	if p.adds++; p.adds >= lfuReset*len(p.rows[0]) {
		p.adds = 0
		for r := range p.rows {
			for i := range p.rows[r] {
				p.rows[r][i] >>= 1
			}
		}
	}
}

// estimate returns how often fp was met, about.
func (p *lfuPolicy) estimate(fp uint64) uint8 {
	e := uint8(lfuMax)
	for r := range p.rows {
		e = min(e, p.rows[r][p.index(fp, r)])
	}
	return e
}

func (p *lfuPolicy) grow(n int) {
	for len(p.pos) < n {
		p.pos = append(p.pos, -1)
	}
}

func (p *lfuPolicy) ready(s int32) {
	p.pos[s] = int32(len(p.cands))
	p.cands = append(p.cands, s)
}

func (p *lfuPolicy) hit(int32) {}

func (p *lfuPolicy) victim() int32 {
	n := len(p.cands)
	if n == 0 {
		return -1
	}
	best, bestEst := -1, uint8(0)
	for range min(lfuSample, n) {
		i := p.rng.IntN(n)
		if e := p.estimate(p.c.fps[p.cands[i]]); best < 0 || e < bestEst {
			best, bestEst = i, e
		}
	}
	s := p.cands[best]
	last := p.cands[n-1]
	p.cands[best] = last
	p.pos[last] = int32(best)
	p.cands = p.cands[:n-1]
	p.pos[s] = -1
	return s
}
