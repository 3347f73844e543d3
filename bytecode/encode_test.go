package bytecode

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// testProgram builds, without the assembler, a small valid program that
// uses classes, fields, statics, handlers, strings, threads and an invariant.
func testProgram() *Program {
	p := NewProgram()
	p.Files = []string{"t.mcasm"}
	c := int32(len(p.Classes))
	p.Classes = append(p.Classes, Class{Name: "Counter", Super: ClassObject, Fields: []int32{1}, Pos: Pos{0, 1, 1}})
	p.Fields = append(p.Fields, Field{Class: c, Name: "n", Kind: KindInt, Pos: Pos{0, 2, 1}})
	p.Statics = append(p.Statics,
		Static{Class: c, Name: "count", Kind: KindInt, Init: -3, Pos: Pos{0, 3, 1}},
		Static{Class: c, Name: "last", Kind: KindRef, Pos: Pos{0, 4, 1}})
	p.Strings = []string{"lost update", "caught\n"}
	lines := func(n int, first int32) []Pos {
		l := make([]Pos, n)
		for i := range l {
			l[i] = Pos{0, first + int32(i), 5}
		}
		return l
	}
	worker := Method{Class: c, Name: "worker", Flags: MethodStatic, Code: []Instr{
		{Op: OpGetstatic}, {Op: OpPush, A: 1}, {Op: OpAdd}, {Op: OpPutstatic}, {Op: OpReturn},
	}}
	worker.Lines = lines(len(worker.Code), 6)
	inv := Method{Class: c, Name: "inv", Flags: MethodStatic | MethodReturns, Code: []Instr{
		{Op: OpGetstatic}, {Op: OpPush, A: 10}, {Op: OpLe}, {Op: OpRetval},
	}}
	main := Method{Class: c, Name: "main", Flags: MethodStatic, Locals: 2, Code: []Instr{
		/* 0 */ {Op: OpNewthread, A: 0},
		/* 1 */ {Op: OpDup},
		/* 2 */ {Op: OpStore, A: 0},
		/* 3 */ {Op: OpStart},
		/* 4 */ {Op: OpLoad, A: 0},
		/* 5 */ {Op: OpJoin},
		/* 6 */ {Op: OpInc, A: 1, B: -7},
		/* 7 */ {Op: OpNew, A: int64(c)},
		/* 8 */ {Op: OpGetfield, A: 1},
		/* 9 */ {Op: OpIfz, A: 12},
		/* 10 */ {Op: OpPush, A: 1},
		/* 11 */ {Op: OpAssert, A: 0},
		/* 12 */ {Op: OpReturn},
		/* 13 */ {Op: OpPop},
		/* 14 */ {Op: OpPrint, A: 1},
		/* 15 */ {Op: OpReturn},
	}, Handlers: []Handler{{Kind: HandlerCatch, Start: 7, End: 12, Target: 13, Class: ClassNullPointer}}}
	main.Lines = lines(len(main.Code), 20)
	p.Methods = append(p.Methods, worker, inv, main)
	p.Entry = 2
	p.Invariants = []int32{1}
	return p
}

func TestEncode_roundTrip(t *testing.T) {
	p := testProgram()
	if err := Verify(p); err != nil {
		t.Fatalf("Verify(testProgram()) = %v", err)
	}
	b := Encode(p)
	q, err := Decode(b)
	if err != nil {
		t.Fatalf("Decode(Encode(p)) = %v, want no error", err)
	}
	if got, want := string(Encode(q)), string(b); got != want {
		t.Errorf("Encode(Decode(Encode(p))) differs from Encode(p)")
	}
	if got, want := Digest(q), Digest(p); got != want {
		t.Errorf("Digest(Decode(Encode(p))) = %#x, want %#x", got, want)
	}
	if q.Methods[2].MaxStack != p.Methods[2].MaxStack || q.Fields[1].Slot != 0 {
		t.Errorf("Decode did not recompute MaxStack (%d, want %d) or slots", q.Methods[2].MaxStack, p.Methods[2].MaxStack)
	}
	// The digest ignores positions.
	q.Files = []string{"other.mcasm"}
	q.Methods[0].Lines = nil
	q.Classes[NumBuiltins].Pos = Pos{0, 99, 9}
	if Digest(q) != Digest(p) {
		t.Errorf("Digest depends on source positions")
	}
	q.Methods[0].Code[1].A = 2
	if Digest(q) == Digest(p) {
		t.Errorf("Digest ignores code")
	}
}

// TestDecode_truncated checks that every proper prefix of a valid file is
// rejected without a panic.
func TestDecode_truncated(t *testing.T) {
	b := Encode(testProgram())
	for n := 0; n < len(b); n++ {
		if _, err := Decode(b[:n]); err == nil {
			t.Errorf("Decode(first %d of %d bytes) succeeded, want an error", n, len(b))
		}
	}
}

func TestDecode_bad(t *testing.T) {
	good := Encode(testProgram())
	version3 := append([]byte(Magic), 3)
	damaged := append([]byte(nil), good...)
	damaged[len(damaged)/2] ^= 0x10
	tests := []struct {
		name string
		b    []byte
		is   error
		msg  string
	}{
		{"empty", nil, ErrFormat, "bad magic"},
		{"magic", append([]byte("MCVM\x00XX\r\n"), good[len(Magic):]...), ErrFormat, "bad magic"},
		{"version", append(version3, good[len(Magic)+1:]...), ErrFormat, "format version 3, this mcvm reads versions 1, 2, 4, 5 and 6"},
		{"v1 finally", encode(sehProgram(), 1), ErrFormat, "finally handler in a version-1 file"},
		{"trailing", append(append([]byte(nil), good...), 0), ErrFormat, "checksum mismatch"},
		{"v2 trailing", append(encode(testProgram(), 2), 0), ErrFormat, "trailing"},
		{"damaged", damaged, ErrFormat, "checksum mismatch"},
		{"no checksum", append([]byte(Magic), 4, 0, 0), ErrFormat, "no room for its checksum"},
		{"huge count", append([]byte(Magic), 1, 0xff, 0xff, 0xff, 0xff, 0x0f), ErrFormat, "exceeds the remaining input"},
	}
	for _, tt := range tests {
		_, err := Decode(tt.b)
		if err == nil || !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Decode(%s) = %v, want an error wrapping %v containing %q", tt.name, err, tt.is, tt.msg)
		}
	}
	// Well-formed bytes, invalid program.
	p := testProgram()
	p.Methods[0].Code[0].A = 99
	if _, err := Decode(Encode(p)); !errors.Is(err, ErrInvalid) {
		t.Errorf("Decode(static out of range) = %v, want an error wrapping ErrInvalid", err)
	}
}

// sehProgram is testProgram with a main using every handler kind and the
// version-2 opcodes:
//
//	try { try { try { s = 1 } finally { s = 2 } } filter (e => 1) { rethrow } } fault { }
func sehProgram() *Program {
	p := testProgram()
	m := Method{Class: p.Methods[0].Class, Name: "seh", Flags: MethodStatic}
	m.Code = []Instr{
		/* 0 */ {Op: OpPush, A: 1},
		/* 1 */ {Op: OpPutstatic},
		/* 2 */ {Op: OpLeave, A: 12},
		/* 3 */ {Op: OpPush, A: 2}, // finally [3, 6)
		/* 4 */ {Op: OpPutstatic},
		/* 5 */ {Op: OpEndfinally},
		/* 6 */ {Op: OpPop}, // filter block [6, 9)
		/* 7 */ {Op: OpPush, A: 1},
		/* 8 */ {Op: OpEndfilter},
		/* 9 */ {Op: OpPop}, // filter handler [9, 11)
		/* 10 */ {Op: OpRethrow},
		/* 11 */ {Op: OpEndfault}, // fault [11, 12)
		/* 12 */ {Op: OpReturn},
	}
	m.Handlers = []Handler{
		{Kind: HandlerFinally, Start: 0, End: 3, Target: 3, HandlerEnd: 6, Class: -1},
		{Kind: HandlerFilter, Start: 0, End: 6, Filter: 6, Target: 9, HandlerEnd: 11, Class: -1},
		{Kind: HandlerFault, Start: 0, End: 11, Target: 11, HandlerEnd: 12, Class: -1},
	}
	p.Methods = append(p.Methods, m)
	return p
}

func TestEncode_versions(t *testing.T) {
	if got := bodyVersion(testProgram()); got != 1 {
		t.Errorf("bodyVersion(program without version-2 features) = %d, want 1", got)
	}
	p := sehProgram()
	if err := Verify(p); err != nil {
		t.Fatalf("Verify(sehProgram()) = %v", err)
	}
	if got := bodyVersion(p); got != 2 {
		t.Errorf("bodyVersion(sehProgram()) = %d, want 2", got)
	}
	b := Encode(p)
	if b[len(Magic)] != plainVersion {
		t.Errorf("Encode(sehProgram()) writes version %d, want %d", b[len(Magic)], plainVersion)
	}
	q, err := Decode(b)
	if err != nil {
		t.Fatalf("Decode(Encode(sehProgram())) = %v", err)
	}
	if !bytes.Equal(Encode(q), b) {
		t.Error("Encode(Decode(Encode(p))) differs from Encode(p)")
	}
	if got, want := q.Methods[3].Handlers, p.Methods[3].Handlers; !slices.Equal(got, want) {
		t.Errorf("handlers after a round trip = %+v, want %+v", got, want)
	}
}

// TestEncode_extended round-trips a program with setup methods, atomic
// regions, valid end states and AllowLeak through format version 5.
func TestEncode_extended(t *testing.T) {
	p := extendedProgram(t)
	m := &p.Methods[p.Setup[0]]
	if err := Verify(p); err != nil {
		t.Fatalf("Verify(extended) = %v", err)
	}
	if got := bodyVersion(p); got != plainVersion {
		t.Errorf("bodyVersion(extended) = %d, want %d", got, plainVersion)
	}
	b := Encode(p)
	if b[len(Magic)] != plainVersion {
		t.Errorf("Encode(extended) writes version %d, want %d", b[len(Magic)], plainVersion)
	}
	q, err := Decode(b)
	if err != nil {
		t.Fatalf("Decode(Encode(extended)) = %v", err)
	}
	if !bytes.Equal(Encode(q), b) {
		t.Error("Encode(Decode(Encode(p))) differs from Encode(p)")
	}
	qm := &q.Methods[q.Setup[0]]
	if !slices.Equal(qm.Atomic, m.Atomic) || !slices.Equal(qm.Ends, m.Ends) || !q.AllowLeak || q.Entry != -1 {
		t.Errorf("after a round trip: atomic %v ends %v leak %v entry %d, want %v %v true -1", qm.Atomic, qm.Ends, q.AllowLeak, q.Entry, m.Atomic, m.Ends)
	}
	if Digest(q) != Digest(p) {
		t.Error("Digest changes in a round trip")
	}
}

// extendedProgram is sehProgram with its entry method turned into a
// setup method with an atomic region and a valid end state, and
// AllowLeak: a program only format version 5 holds.
func extendedProgram(t testing.TB) *Program {
	p := sehProgram()
	if err := Verify(p); err != nil {
		t.Fatalf("Verify(sehProgram()) = %v", err)
	}
	m := &p.Methods[p.Entry]
	m.Atomic = []Range{{0, 1}}
	m.Ends = []int32{0}
	p.AllowLeak = true
	p.Setup = []int32{p.Entry}
	p.Entry = -1
	return p
}

// TestDecode_oldVersions reads files written before the checksum, by the
// mcvm of the time (mcvm asm -D N=2 benchmarks/models/philo.mcasm, and
// mcvm asm testdata/conformance/seh_finally_fault.mcasm): they decode,
// their bytes are what encode still writes for their version, and their
// digests are the ones recorded then.
func TestDecode_oldVersions(t *testing.T) {
	for _, tc := range []struct {
		file   string
		ver    uint64
		digest uint64
	}{
		{"testdata/old/philo_n2.v1.mcb", 1, 0x9a8e1770cc094d9d},
		{"testdata/old/seh_finally_fault.v2.mcb", 2, 0xe8121a89d5dedd82},
	} {
		b, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if b[len(Magic)] != byte(tc.ver) {
			t.Fatalf("%s: version %d, want %d", tc.file, b[len(Magic)], tc.ver)
		}
		p, err := Decode(b)
		if err != nil {
			t.Fatalf("Decode(%s) = %v", tc.file, err)
		}
		if got := Digest(p); got != tc.digest {
			t.Errorf("Digest(%s) = %016x, want %016x", tc.file, got, tc.digest)
		}
		if !bytes.Equal(encode(p, tc.ver), b) {
			t.Errorf("encode(Decode(%s), %d) differs from the file", tc.file, tc.ver)
		}
		q, err := Decode(Encode(p))
		if err != nil || Digest(q) != tc.digest {
			t.Errorf("%s in version %d: Decode = %v, digest %016x, want %016x", tc.file, FormatVersion, err, Digest(q), tc.digest)
		}
	}
}

// TestDecode_everyBitFlip flips each bit of version-4 files in turn:
// every damaged file is an error, never a program.
func TestDecode_everyBitFlip(t *testing.T) {
	for name, p := range map[string]*Program{"test": testProgram(), "seh": sehProgram()} {
		b := Encode(p)
		for i := range len(b) * 8 {
			b[i/8] ^= 1 << (i % 8)
			if q, err := Decode(b); err == nil || q != nil {
				t.Errorf("%s: Decode with bit %d of byte %d flipped = %v, want an error", name, i%8, i/8, err)
			}
			b[i/8] ^= 1 << (i % 8)
		}
		if _, err := Decode(b); err != nil {
			t.Fatalf("%s: Decode after the flips = %v", name, err)
		}
	}
}

// TestEncode_localNames: the local names of the debug information survive
// a round trip and do not change the Digest; a name list that does not fit
// its method is an error, not a panic.
func TestEncode_localNames(t *testing.T) {
	p := testProgram()
	if err := Verify(p); err != nil {
		t.Fatal(err)
	}
	before := Digest(p)
	m := &p.Methods[0]
	m.LocalNames = make([]string, m.Locals)
	for i := range m.LocalNames {
		m.LocalNames[i] = fmt.Sprintf("v%d", i)
	}
	if len(m.LocalNames) > 0 {
		m.LocalNames[0] = ""
	}
	if got := Digest(p); got != before {
		t.Errorf("Digest with local names = %016x, want %016x", got, before)
	}
	q, err := Decode(Encode(p))
	if err != nil {
		t.Fatalf("Decode(Encode(p)) = %v", err)
	}
	if got, want := q.Methods[0].LocalNames, m.LocalNames; !slices.Equal(got, want) {
		t.Errorf("LocalNames after a round trip = %q, want %q", got, want)
	}
	if m.Locals > 1 {
		if got, want := q.LocalName(0, 1), "v1"; got != want {
			t.Errorf("LocalName(0, 1) = %q, want %q", got, want)
		}
	}
	if got, want := q.LocalName(0, 0), "local 0"; got != want {
		t.Errorf("LocalName(0, 0) = %q, want %q", got, want)
	}
	m.LocalNames = append(m.LocalNames, "extra")
	if _, err := Decode(Encode(p)); !errors.Is(err, ErrFormat) {
		t.Errorf("Decode of a method with a local name too many = %v, want ErrFormat", err)
	}
}

// TestEncode_qualified round-trips a program with a ghost static and a
// final field through format version 6, and checks that the same program
// without them is still written in version 5.
func TestEncode_qualified(t *testing.T) {
	p := testProgram()
	if b := Encode(p); b[len(Magic)] != plainVersion {
		t.Errorf("Encode(testProgram()) writes version %d, want %d", b[len(Magic)], plainVersion)
	}
	p.Statics = append(p.Statics, Static{Class: p.Statics[0].Class, Name: "g", Kind: KindInt, Flags: MemberGhost, Pos: Pos{0, 5, 1}})
	p.Fields[1].Flags = MemberFinal
	if err := Verify(p); err != nil {
		t.Fatalf("Verify(qualified) = %v", err)
	}
	b := Encode(p)
	if b[len(Magic)] != FormatVersion {
		t.Errorf("Encode(qualified) writes version %d, want %d", b[len(Magic)], FormatVersion)
	}
	q, err := Decode(b)
	if err != nil {
		t.Fatalf("Decode(Encode(qualified)) = %v", err)
	}
	if !q.Statics[len(q.Statics)-1].Ghost() || !q.Fields[1].Final() || q.Fields[0].Flags != 0 {
		t.Errorf("after a round trip: flags %v %v, want ghost static and final field", q.Statics[len(q.Statics)-1].Flags, q.Fields[1].Flags)
	}
	if !bytes.Equal(Encode(q), b) || Digest(q) != Digest(p) {
		t.Error("Encode or Digest changes in a round trip")
	}
	p.Statics[len(p.Statics)-1].Flags = 0
	if Digest(q) == Digest(p) {
		t.Error("Digest ignores a ghost flag")
	}
	for _, bad := range []MemberFlag{MemberFinal, 4} {
		q.Statics[len(q.Statics)-1].Flags = bad
		if err := Verify(q); err == nil {
			t.Errorf("Verify accepts a static with flags %v", bad)
		}
	}
}
