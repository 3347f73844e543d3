//go:build amd64 || arm64

package explorer

// havePrefetch says that prefetchLine issues a prefetch instruction
// (lookahead applies only then: without one, reading ahead would stall as
// the lookup does).
const havePrefetch = true

// prefetchLine asks the processor to bring the cache line of *p in
// (PREFETCHT0, PRFM PLDL1KEEP) and returns at once: the miss, if any,
// overlaps with what follows instead of stalling it.
//
//go:noescape
func prefetchLine(p *uint64)
