// State-space caching: a visited set of bounded size that forgets fully explored states.

package explorer

import (
	"errors"
	"math"
)

// Cache configures state-space caching (Options.Cache): the visited set
// holds at most States states (or, with Bytes, about that much memory);
// when it is full, a state that has been fully explored and left the
// depth-first stack is evicted, chosen by Policy, and a state met again
// after its eviction is explored again. States on the stack are never
// evicted (the cache holds more than States while the stack is deeper),
// so the search terminates and reaches every reachable state and
// transition at least once (Taleghani's thesis, chapter 4).
type Cache struct {
	// States bounds the states held (0: no bound by count); Bytes bounds
	// their memory, encodings and per-state overhead (0: none). One of
	// the two must be set.
	States int
	Bytes  int64
	Policy CachePolicy
	// Seed seeds the random choices of the policies (random, and the ties
	// of the others): the same seed gives the same search.
	Seed uint64
}

// CachePolicy chooses the state a full cache evicts.
type CachePolicy uint8

// Cache policies. Each chooses among the fully explored states.
const (
	// PolicyCost evicts the state whose subtree was cheapest to explore
	// (thesis Algorithm 4.1): a state's cost is 1 plus the costs of the
	// states its transitions reached, new ones when they are left, stored
	// ones when they are met; ties are broken at random.
	PolicyCost CachePolicy = iota
	// PolicyRandom evicts a state chosen uniformly at random.
	PolicyRandom
	// PolicyAge evicts the state stored first (Holzmann).
	PolicyAge
	// PolicyHits evicts the state met again the fewest times (Holzmann).
	PolicyHits
	// PolicyStratified evicts states whose depth is k modulo
	// StratifiedLevels, at random, moving to the next k when none is left
	// (Geldenhuys).
	PolicyStratified
	// PolicyDepth evicts the deepest state (Holzmann).
	PolicyDepth
	// PolicyTinyLFU evicts, of a few ready states drawn at random, the one
	// met least often by TinyLFU's estimate, which remembers evicted
	// states (lfuPolicy; ristretto's pairing, written here: RATIONALE.md).
	PolicyTinyLFU
)

var policyNames = [...]string{"cost", "random", "age", "hits", "stratified", "depth", "tinylfu"}

func (p CachePolicy) String() string { return policyNames[p] }

// ParseCachePolicy returns the policy named name (as String gives it).
func ParseCachePolicy(name string) (CachePolicy, bool) {
	for i, n := range policyNames {
		if n == name {
			return CachePolicy(i), true
		}
	}
	return 0, false
}

// CachePolicyNames lists the policies' names.
func CachePolicyNames() []string { return policyNames[:] }

// StratifiedLevels is the number of strata of PolicyStratified.
const StratifiedLevels = 4

// CacheStats are a cached search's figures. Stats.States counts every
// state the search stored, a state explored again once more each time.
type CacheStats struct {
	Capacity  int64 // the bound in states (0: bounded by Bytes)
	Peak      int64 // the most states held at once
	Evictions int64
	// Overflow: states stored past the bound because every state held
	// was on the stack.
	Overflow int64
}

// The reasons a cache does not apply.
var (
	errCacheOrder   = errors.New("--cache needs depth-first search")
	errCacheStorage = errors.New("--cache keeps encodings, or fingerprints with --hash-compact: it excludes --bitstate and --collapse")
	errCacheDynamic = errors.New("--cache does not combine with dpor (its summaries are kept by state id, and a cache gives an evicted state's id to another)")
	errCacheSize    = errors.New("--cache needs a size in states or bytes")
	errCacheGoal    = errors.New("a cache does not combine with a goal")
	errSleepCache   = errors.New("does not combine with --cache (a stored state keeps its sleep set, and a cache evicts states)")
)

// slot states.
const (
	slotFree    = iota
	slotPending // stored, not yet pushed (or never: an error state, MaxDepth)
	slotStack   // on the depth-first stack
	slotReady   // fully explored: may be evicted
)

// cacheEntryBytes is the memory of a slot besides its encoding: the
// table's share (two 4-byte slots), fingerprint, cost, depth, hits, age,
// status, the encoding's slice header and the policy's index.
const cacheEntryBytes = 2*4 + 8 + 8 + 4 + 4 + 8 + 1 + 24 + 8

// cacheStore is the visited set of a cached search. States get ids that
// are their slots: an evicted state's id goes to a later state (the
// search forgets an id when it leaves its state: onStack, listeners).
// It keeps each state's encoding (compact: only its fingerprint, and a
// revisit gets id -1, as the lossy stores give).
type cacheStore struct {
	cfg     Cache
	compact bool

	fps    []uint64
	encs   [][]byte // not compact: slot -> encoding (its buffer is reused)
	cost   []int64
	depth  []int32
	hits   []int32
	age    []int64
	status []uint8
	free   []int32

	table []int32 // open addressing by fingerprint: slot+1, 0 empty
	shift uint    // 64 - log2(len(table))

	held     int   // states held
	encBytes int64 // bytes of the encodings held
	stored   int64 // states stored, again each time one is explored again
	path     []int32
	pending  int32 // the state stored last, if it is pending, else -1
	pol      policy
	lfu      *lfuPolicy // pol, if it is PolicyTinyLFU: told of every state met
	stats    CacheStats
	refuse   bool
	limit    int64
}

// newCacheStore returns an empty cache.
func newCacheStore(cfg Cache, compact bool, limit int64) *cacheStore {
	c := &cacheStore{cfg: cfg, compact: compact, pending: -1, limit: limit}
	c.table = make([]int32, 1<<10)
	c.shift = 64 - 10
	c.stats.Capacity = int64(cfg.States)
	c.pol = newPolicy(c, cfg.Policy, cfg.Seed)
	c.lfu, _ = c.pol.(*lfuPolicy)
	return c
}

func (c *cacheStore) home(fp uint64) int { return int(fp >> c.shift) }

// lookup returns the slot holding the state of fingerprint fp and
// encoding enc, or -1, and the table index where the probe ended.
func (c *cacheStore) lookup(enc []byte, fp uint64) (int32, int) {
	mask := len(c.table) - 1
	i := c.home(fp)
	for {
		e := c.table[i]
		if e == 0 {
			return -1, i
		}
		if s := e - 1; c.fps[s] == fp && (c.compact || string(c.encs[s]) == string(enc)) {
			return s, i
		}
		i = (i + 1) & mask
	}
}

// add implements visitedSet.
func (c *cacheStore) add(enc []byte, _ []int32, fp uint64) (int32, bool) {
	c.settle()
	if c.lfu != nil {
		c.lfu.met(fp)
	}
	if s, _ := c.lookup(enc, fp); s >= 0 {
		c.hits[s]++
		if n := len(c.path); n > 0 {
			c.cost[c.path[n-1]] += c.cost[s]
		}
		if c.status[s] == slotReady {
			c.pol.hit(s)
		}
		if c.compact {
			return -1, false
		}
		return s, false
	}
	for c.over(len(enc)) {
		v := c.pol.victim()
		if v < 0 {
			c.stats.Overflow++
			break
		}
		c.evict(v)
	}
	s := c.slot()
	c.fps[s] = fp
	if !c.compact {
		c.encs[s] = append(c.encs[s][:0], enc...)
		c.encBytes += int64(len(enc))
	}
	c.cost[s], c.hits[s], c.depth[s], c.age[s] = 1, 0, int32(len(c.path)), c.stored
	c.status[s] = slotPending
	c.pending = s
	c.held++
	c.stored++
	c.stats.Peak = max(c.stats.Peak, int64(c.held))
	if 2*len(c.fps) > len(c.table) {
		c.grow()
	}
	_, i := c.lookup(enc, fp)
	c.table[i] = s + 1
	return s, true
}

// over reports whether storing a state of n encoding bytes would pass
// the bound.
func (c *cacheStore) over(n int) bool {
	return c.cfg.States > 0 && c.held >= c.cfg.States ||
		c.cfg.Bytes > 0 && c.bytesHeld()+int64(n)+cacheEntryBytes > c.cfg.Bytes
}

func (c *cacheStore) bytesHeld() int64 { return c.encBytes + int64(c.held)*cacheEntryBytes }

// slot returns a free slot, growing the arrays if none is.
func (c *cacheStore) slot() int32 {
	if n := len(c.free); n > 0 {
		s := c.free[n-1]
		c.free = c.free[:n-1]
		return s
	}
	s := int32(len(c.fps))
	c.fps = append(c.fps, 0)
	if !c.compact {
		c.encs = append(c.encs, nil)
	}
	c.cost = append(c.cost, 0)
	c.depth = append(c.depth, 0)
	c.hits = append(c.hits, 0)
	c.age = append(c.age, 0)
	c.status = append(c.status, slotFree)
	c.pol.grow(len(c.fps))
	if c.limit > 0 && len(c.fps)&(1<<12-1) == 0 && !memoryCheck(c.limit, 0) {
		c.refuse = true
	}
	return s
}

// grow doubles the table.
func (c *cacheStore) grow() {
	old := c.table
	c.table = make([]int32, 2*len(old))
	c.shift--
	mask := len(c.table) - 1
	for _, e := range old {
		if e == 0 {
			continue
		}
		i := c.home(c.fps[e-1])
		for c.table[i] != 0 {
			i = (i + 1) & mask
		}
		c.table[i] = e
	}
}

// evict forgets state s, which is ready: it leaves the table (backward
// shift deletion keeps every probe unbroken) and its slot is free.
func (c *cacheStore) evict(s int32) {
	_, i := c.lookupSlot(s)
	mask := len(c.table) - 1
	j := i
	for {
		j = (j + 1) & mask
		e := c.table[j]
		if e == 0 {
			break
		}
		// The entry at j stays if its home lies cyclically in (i, j].
		k := c.home(c.fps[e-1])
		if i <= j && i < k && k <= j || i > j && (i < k || k <= j) {
			continue
		}
		c.table[i] = e
		i = j
	}
	c.table[i] = 0
	if !c.compact {
		c.encBytes -= int64(len(c.encs[s]))
	}
	c.status[s] = slotFree
	c.free = append(c.free, s)
	c.held--
	c.stats.Evictions++
}

// lookupSlot returns the table index of slot s.
func (c *cacheStore) lookupSlot(s int32) (int32, int) {
	mask := len(c.table) - 1
	i := c.home(c.fps[s])
	for c.table[i] != s+1 {
		i = (i + 1) & mask
	}
	return s, i
}

// settle makes the state stored last ready if it was not pushed: the
// search did not expand it (an error state, or one at MaxDepth).
func (c *cacheStore) settle() {
	if s := c.pending; s >= 0 {
		c.pending = -1
		c.leave(s)
	}
}

// pushed is told that state id is pushed on the depth-first stack.
func (c *cacheStore) pushed(id int32) {
	if id == c.pending {
		c.pending = -1
	} else {
		c.settle()
	}
	c.status[id] = slotStack
	c.path = append(c.path, id)
}

// popped is told that state id, the top of the stack, is left for good.
func (c *cacheStore) popped(id int32) {
	c.settle()
	if n := len(c.path); n > 0 && c.path[n-1] == id {
		c.path = c.path[:n-1]
	}
	c.leave(id)
}

// leave makes s, fully explored, ready for eviction: its cost joins its
// parent's (the top of the stack).
func (c *cacheStore) leave(s int32) {
	if n := len(c.path); n > 0 {
		c.cost[c.path[n-1]] += c.cost[s]
	}
	c.status[s] = slotReady
	c.pol.ready(s)
}

// Get implements keeper (the exact cache only: see compactCache).
func (c *cacheStore) Get(id int32) []byte { return c.encs[id] }

func (c *cacheStore) size() int  { return int(c.stored) }
func (c *cacheStore) full() bool { return c.refuse }

func (c *cacheStore) account() StoreAccount {
	name := "cache"
	if c.compact {
		name = "cache-compact"
	}
	t := int64(len(c.table)) * 4
	slots := int64(len(c.fps))
	rec := c.encBytes + slots*(cacheEntryBytes-8)
	a := StoreAccount{Storage: name, Bytes: t + rec, TableSlots: int64(len(c.table)), TableBytes: t, RecordBytes: rec}
	if c.compact {
		// As hash compaction's (compactStore.account), over every state
		// stored: a state explored again is compared again.
		n := float64(c.stored)
		a.ExpectedMissed = n * (n - 1) / 2 / math.Exp2(64)
		a.MissProbability = -math.Expm1(-a.ExpectedMissed)
	}
	return a
}

// compactCache is the cache of fingerprints: the same store without Get,
// so that the search treats it as a lossy one (it keeps the stack's
// encodings itself).
type compactCache struct{ c *cacheStore }

func (k compactCache) add(enc []byte, cuts []int32, fp uint64) (int32, bool) {
	return k.c.add(enc, cuts, fp)
}
func (k compactCache) size() int             { return k.c.size() }
func (k compactCache) full() bool            { return k.c.full() }
func (k compactCache) account() StoreAccount { return k.c.account() }

// validateCache says why o.Cache cannot be used, or returns nil.
func (o *Options) validateCache() error {
	cc := o.Cache
	switch {
	case cc == nil:
		return nil
	case o.Order != DFS:
		return errCacheOrder
	case o.Storage != StorageExact && o.Storage != StorageHashCompact:
		return errCacheStorage
	case o.Dynamic != nil:
		return errCacheDynamic
	case o.Goal != nil:
		return errCacheGoal
	case cc.States <= 0 && cc.Bytes <= 0, int(cc.Policy) >= len(policyNames):
		return errCacheSize
	}
	return nil
}
