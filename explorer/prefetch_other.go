//go:build !amd64 && !arm64

package explorer

// havePrefetch: no prefetch instruction here (see prefetch.go).
const havePrefetch = false

// prefetchLine is never called without a prefetch instruction.
func prefetchLine(*uint64) { panic("explorer: no prefetch instruction") }
