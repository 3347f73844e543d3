package bytecode

import (
	"errors"
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
	version2 := append([]byte(Magic), 2)
	tests := []struct {
		name string
		b    []byte
		is   error
		msg  string
	}{
		{"empty", nil, ErrFormat, "bad magic"},
		{"magic", append([]byte("MCVM\x00XX\r\n"), good[len(Magic):]...), ErrFormat, "bad magic"},
		{"version", append(version2, good[len(Magic)+1:]...), ErrFormat, "format version 2"},
		{"trailing", append(append([]byte(nil), good...), 0), ErrFormat, "trailing"},
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
