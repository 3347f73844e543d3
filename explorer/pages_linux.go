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
func dropPages(s []uint64) {
	if len(s) == 0 {
		return
	}
	page := uintptr(pageSize)
	skip := (page - uintptr(unsafe.Pointer(&s[0]))%page) % page / 8
	if uintptr(len(s)) <= skip {
		return
	}
	n := (uintptr(len(s)) - skip) * 8 / page * page
	if n == 0 {
		return
	}
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Pointer(&s[skip])), n), syscall.MADV_DONTNEED)
}
