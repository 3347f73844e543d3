package explorer_test

import (
	"bytes"
	"regexp"
	"testing"

	"mcvm/explorer"
	"mcvm/vm"
)

func TestTrail_roundTrip(t *testing.T) {
	for i := range 4 {
		escape, dead := i&1 != 0, i&2 != 0
		in := &explorer.Trail{Digest: 0xdeadbeef01234567, Granularity: vm.GranInstruction, Escape: escape, DeadLocals: dead,
			Path: []vm.Trans{{Thread: 0, Choice: 0}, {Thread: 3, Choice: 2}}}
		var b bytes.Buffer
		if err := explorer.WriteTrail(&b, in); err != nil {
			t.Fatal(err)
		}
		out, err := explorer.ReadTrail("t.trail", b.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if out.Digest != in.Digest || out.Granularity != in.Granularity || out.Escape != escape || out.DeadLocals != dead ||
			len(out.Path) != 2 || out.Path[1] != in.Path[1] {
			t.Errorf("ReadTrail(WriteTrail(%+v)) = %+v", in, out)
		}
	}
}

func TestReadTrail_errors(t *testing.T) {
	head := "mcvm-trail 1\nprogram 00000000000000ff\ngranularity transition\n"
	for _, tc := range []struct{ in, want string }{
		{"", `t.trail: incomplete trail header`},
		{"hello\n", `t.trail:1:1: not an mcvm trail file`},
		{"mcvm-trail 2\n", `t.trail:1:1: trail format version "2"`},
		{"mcvm-trail 1\nprogram xyz\n", `t.trail:2:1: bad program digest "xyz"`},
		{"mcvm-trail 1\nprogram 00\ngranularity fine\n", `t.trail:3:1: unknown granularity "fine"`},
		{head + "0 0\n  1 x\n", `t.trail:5:3: bad step "1 x"`},
		{head + "0 -1\n", `t.trail:4:1: bad step "0 -1"`},
		{head + "0 0 0\n", `t.trail:4:1: want "THREAD CHOICE"`},
		{head + "escape maybe\n", `t.trail:4:1: want "escape on|off"`},
		{head + "escape on\ndead-locals 1\n", `t.trail:5:1: want "dead-locals on|off"`},
	} {
		_, err := explorer.ReadTrail("t.trail", []byte(tc.in))
		if err == nil || !regexp.MustCompile(regexp.QuoteMeta(tc.want)).MatchString(err.Error()) {
			t.Errorf("ReadTrail(%q) error = %v, want %q", tc.in, err, tc.want)
		}
	}
}

// FuzzReadTrail checks that any input gives a trail or an error, never a
// panic, and that accepted trails round-trip.
func FuzzReadTrail(f *testing.F) {
	f.Add([]byte("mcvm-trail 1\nprogram 00000000000000ff\ngranularity transition\n0 0\n1 2\n"))
	f.Add([]byte("# comment\nmcvm-trail 1\r\nprogram ff\r\ngranularity instruction\r\n"))
	f.Add([]byte("mcvm-trail 1\nprogram\n"))
	f.Add([]byte("mcvm-trail 1\nprogram 01\ngranularity transition\ndead-locals on\nescape off\n0 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := explorer.ReadTrail("f", data)
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := explorer.WriteTrail(&b, tr); err != nil {
			t.Fatal(err)
		}
		tr2, err := explorer.ReadTrail("f", b.Bytes())
		if err != nil || tr2.Digest != tr.Digest || len(tr2.Path) != len(tr.Path) {
			t.Fatalf("round trip failed: %v", err)
		}
	})
}
