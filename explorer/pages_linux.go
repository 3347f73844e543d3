//go:build linux

package explorer

import (
	"slices"
	"syscall"
	"unsafe"
)

// pageSize is the system's page size.
var pageSize = syscall.Getpagesize()

// dropPages tells the system that the whole pages inside s will not be
// read again, so that it takes them back at once (MADV_DONTNEED; they
// read as zeros if they are). A table being replaced by a larger one
// drops each part it has moved, so that the two are not both resident at
// the peak of a search. s must hold no pointers.
func dropPages(s []uint64) { adviseInside(s, uintptr(pageSize), syscall.MADV_DONTNEED) }

// adviseInside gives the system advice about the whole pages of size
// page (a power of two) inside s.
func adviseInside(s []uint64, page uintptr, advice int) {
	if len(s) == 0 {
		return
	}
	skip := (page - uintptr(unsafe.Pointer(&s[0]))%page) % page / 8
	if uintptr(len(s)) <= skip {
		return
	}
	n := (uintptr(len(s)) - skip) * 8 / page * page
	if n == 0 {
		return
	}
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Pointer(&s[skip])), n), advice)
}

// hugeTable is the size from which a table asks for huge pages.
const hugeTable = 64 << 20

// hugePages asks the system to back the whole 2 MiB pages inside s, a
// table of hugeTable bytes or more just allocated, with huge pages
// (MADV_HUGEPAGE; Go's heap does not ask, and where transparent huge
// pages are given only to who asks, it gets none): a lookup in a table of
// 100 MB then needs one of 50 TLB entries instead of one of 25,000
// (philosophers N = 10 with --hash-compact: 1.11 of the speed, for 0.7%
// more resident memory; smaller tables, mostly in the cache, gain
// nothing worth their rounding up to 2 MiB).
func hugePages(s []uint64) {
	if len(s)*8 >= hugeTable {
		adviseInside(s, 2<<20, syscall.MADV_HUGEPAGE)
	}
}

// growHuge returns s with room for n more elements, as slices.Grow, but
// asks for huge pages on a new array of 16 MiB or more before it
// copies s into it. The depth-first stack's arrays double as a search
// goes deeper, hundreds of thousands of levels on models whose runs are
// long cycles; faulting a new array in 4 KiB at a time is a large part of
// such a search's time on a virtual machine.
func growHuge[E any](s []E, n int) []E {
	if cap(s)-len(s) >= n {
		return s
	}
	size := unsafe.Sizeof(*new(E))
	c := max(2*cap(s), len(s)+n)
	if uintptr(c)*size < 16<<20 {
		return slices.Grow(s, n)
	}
	t := make([]E, len(s), c)
	adviseInside(unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(t))), uintptr(c)*size/8), 2<<20, syscall.MADV_HUGEPAGE)
	copy(t, s)
	return t
}
