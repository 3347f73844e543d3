//go:build linux

package explorer

import (
	"fmt"
	"os"
	"slices"
	"strings"
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

// TestHugePages checks that a table given huge pages keeps what is
// written to it, slot for slot, at both ends and across the 2 MiB
// boundaries, and that a smaller table is left alone.
func TestHugePages(t *testing.T) {
	s := make([]uint64, hugeTable/8+3)
	hugePages(s)
	for i := 0; i < len(s); i += 4093 {
		s[i] = uint64(i) + 1
	}
	s[len(s)-1] = 7
	for i := 0; i < len(s); i += 4093 {
		if s[i] != uint64(i)+1 {
			t.Fatalf("slot %d reads %d, want %d", i, s[i], i+1)
		}
	}
	if s[len(s)-1] != 7 || s[1] != 0 {
		t.Fatalf("the ends read %d and %d", s[len(s)-1], s[1])
	}
	hugePages(make([]uint64, 16)) // below hugeTable: nothing to do
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("no transparent huge pages here")
	}
	// The mapping holding the table's middle is marked for huge pages
	// (VmFlags "hg" in /proc/self/smaps).
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	mid := uint64(uintptr(unsafe.Pointer(&s[len(s)/2])))
	in := false
	for _, line := range strings.Split(string(smaps), "\n") {
		var lo, hi uint64
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = lo <= mid && mid < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			if !slices.Contains(strings.Fields(line), "hg") {
				t.Fatalf("the table's mapping is not marked for huge pages: %s", line)
			}
			return
		}
	}
	t.Fatal("the table's mapping is not in /proc/self/smaps")
}
