//go:build !linux

package explorer

import "slices"

// dropPages does nothing here: the system takes a replaced table's pages
// back when the Go runtime returns them (see pages_linux.go).
func dropPages([]uint64) {}

// hugePages does nothing here (see pages_linux.go).
func hugePages([]uint64) {}

// growHuge is slices.Grow here (see pages_linux.go).
func growHuge[E any](s []E, n int) []E { return slices.Grow(s, n) }
