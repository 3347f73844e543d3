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
