//go:build linux

package explorer

import (
	"testing"
	"unsafe"
)

// TestDropPages checks that dropPages gives back exactly the whole pages
// inside the slice it is given: they read as zeros afterwards, and the
// slots in partial pages at either end keep their values.
func TestDropPages(t *testing.T) {
	s := make([]uint64, 8*pageSize)
	for i := range s {
		s[i] = uint64(i) + 1
	}
	lo, hi := 3, len(s)-5 // not page-aligned ends
	dropPages(s[lo:hi])
	page := uintptr(pageSize)
	zeros := 0
	for i := range s {
		addr := uintptr(unsafe.Pointer(&s[i]))
		pageStart := addr &^ (page - 1)
		inside := pageStart >= uintptr(unsafe.Pointer(&s[lo])) && pageStart+page <= uintptr(unsafe.Pointer(&s[hi-1]))+8
		switch {
		case inside && s[i] != 0:
			t.Fatalf("slot %d, in a whole page of the slice dropped, reads %d", i, s[i])
		case !inside && s[i] != uint64(i)+1:
			t.Fatalf("slot %d, outside the whole pages dropped, reads %d, want %d", i, s[i], i+1)
		case inside:
			zeros++
		}
	}
	if zeros < (hi-lo)-2*pageSize/8 {
		t.Errorf("%d slots dropped of %d", zeros, hi-lo)
	}
}
