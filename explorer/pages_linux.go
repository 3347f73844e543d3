//go:build linux

package explorer

import (
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
