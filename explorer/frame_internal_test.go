package explorer

import (
	"testing"
	"unsafe"
)

// TestFrame_size: a depth-first search keeps a frame per level, and
// searches of endless loops run millions of levels deep; a field added in
// the wrong place grows every frame by its padding.
func TestFrame_size(t *testing.T) {
	if n := unsafe.Sizeof(frame{}); n > 80 {
		t.Errorf("frame is %d bytes, more than 80", n)
	}
}
