package scc

import (
	"errors"
	"strings"
	"testing"
)

// TestMatch_reduction: a script is refused up front when its partial-order
// reduction differs from the certifier's: by mode ("give --por"), or, with
// the same mode and proviso, by the reduction's revision (a script of
// another mcvm, whose persistent sets differ: "verify it again"; a script
// of the first revision has none in its name).
func TestMatch_reduction(t *testing.T) {
	for _, tc := range []struct {
		script, certifier, want string
	}{
		{"all/stack/r2", "all/stack/r2", ""},
		{"none", "none", ""},
		{"all/stack", "all/stack/r2", "verify it again with this mcvm"},
		{"ample/stack/r3", "ample/stack/r2", "verify it again with this mcvm"},
		{"all/stack/r2", "none", "give --por all"},
		{"none", "all/stack/r2", "give --por none"},
		{"escape/stack", "all/stack/r2", "give --por escape"},
	} {
		h := &Header{Digest: 7, Granularity: "transition", POR: tc.script, Symmetry: "none"}
		err := h.Match(7, "transition", tc.certifier, false, false, false)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s against %s: %v", tc.script, tc.certifier, err)
		case tc.want != "" && (!errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s against %s: %v, want %q", tc.script, tc.certifier, err, tc.want)
		}
	}
}
