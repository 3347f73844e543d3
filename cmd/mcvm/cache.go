// The flags of state-space caching (check --cache).

package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"mcvm/explorer"
)

// cacheFlags are check's flags of state-space caching.
type cacheFlags struct {
	size   *string
	space  *int64
	policy *string
}

func (f *cacheFlags) register(fs *pflag.FlagSet) {
	f.size = fs.String("cache", "", "make the visited set a cache of this `SIZE` (states, e.g. 50000; a percentage of --cache-space, e.g. 25%; or memory, e.g. 64MiB) that evicts fully explored states and explores them again when met (depth-first only)")
	f.space = fs.Int64("cache-space", 0, "the `STATES` of the whole state space (e.g. from an earlier run), of which --cache takes a percentage")
	f.policy = fs.String("cache-policy", "cost", "what a full --cache evicts: "+strings.Join(explorer.CachePolicyNames(), ", ")+" (cost: the cheapest subtree to explore again)")
}

// options returns the cache the flags ask for, or nil; seed seeds its
// random policies (--seed).
func (f *cacheFlags) options(fs *pflag.FlagSet, seed uint64) (*explorer.Cache, error) {
	if *f.size == "" {
		for _, name := range []string{"cache-space", "cache-policy"} {
			if fs.Changed(name) {
				return nil, fmt.Errorf("--%s is for --cache", name)
			}
		}
		return nil, nil
	}
	pol, ok := explorer.ParseCachePolicy(*f.policy)
	if !ok {
		return nil, fmt.Errorf("--cache-policy: want one of %s, got %q", strings.Join(explorer.CachePolicyNames(), ", "), *f.policy)
	}
	c := &explorer.Cache{Policy: pol, Seed: seed}
	states, bytes, err := parseCacheSize(*f.size, *f.space)
	if err != nil {
		return nil, err
	}
	c.States, c.Bytes = states, bytes
	return c, nil
}

// parseCacheSize parses --cache: a number of states, a percentage of
// space states, or a memory size with a unit.
func parseCacheSize(s string, space int64) (int, int64, error) {
	s = strings.TrimSpace(s)
	bad := fmt.Errorf("--cache: want a number of states (50000), a percentage of --cache-space (25%%) or a memory size (64MiB), got %q", s)
	if p, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		switch {
		case err != nil || v <= 0 || v > 100:
			return 0, 0, bad
		case space <= 0:
			return 0, 0, fmt.Errorf("--cache %s: a percentage needs --cache-space, the states of the whole state space", s)
		}
		return max(1, int(v*float64(space)/100)), 0, nil
	}
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	for _, u := range units {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
			if err != nil || v <= 0 || v*float64(u.mult) > 1<<62 {
				return 0, 0, bad
			}
			return 0, int64(v * float64(u.mult)), nil
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || n > 1<<31-1 {
		return 0, 0, bad
	}
	return n, 0, nil
}

// cacheFigures are the report's figures of a cached search.
type cacheFigures struct {
	Capacity  int64 `json:"capacity"` // the bound in states (0: bounded by memory)
	Peak      int64 `json:"peak"`     // the most states held at once
	Evictions int64 `json:"evictions"`
	Overflow  int64 `json:"overflow"` // states stored past the bound, every state held being on the stack
}
