package asm

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mcvm/bytecode"
)

// FuzzAssemble checks that Assemble never panics, that its errors are
// well-formed, and that whatever it accepts round-trips through Disassemble
// and through Encode and Decode.
func FuzzAssemble(f *testing.F) {
	inc := map[string][]byte{}
	for _, name := range []string{"inc/queue.inc", "inc/consts.inc"} {
		b, err := os.ReadFile(filepath.Join("testdata/ok", name))
		if err != nil {
			f.Fatal(err)
		}
		inc[name] = b
	}
	read := func(name string) ([]byte, error) {
		if b, ok := inc[filepath.ToSlash(name)]; ok {
			return b, nil
		}
		return nil, fs.ErrNotExist
	}
	for _, file := range okFiles(f) {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	errFiles, _ := filepath.Glob("testdata/errors/*.mcasm")
	for _, file := range errFiles {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, c := range strings.Split(string(b), "\n---\n") {
			f.Add(c)
		}
	}
	for _, s := range opcodeSnippets {
		f.Add(strings.Replace(opcodeFixture, "%s", s, 1))
	}
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Assemble("fuzz.mcasm", []byte(src), Options{ReadFile: read, Defines: map[string]int64{}})
		if err != nil {
			list, ok := err.(ErrorList)
			if !ok || len(list) == 0 || len(list) > MaxErrors+1 || p != nil {
				t.Fatalf("Assemble = %v, %T %v: want nil and a non-empty, capped ErrorList", p, err, err)
			}
			for _, e := range list {
				if e.Msg == "" || e.Line < 0 || (e.Line > 0 && e.Col < 1) {
					t.Fatalf("malformed error %+v", e)
				}
			}
			return
		}
		roundTrip(t, p)
	})
}

// TestRoundTrip_stringOrder checks that strings first used in a later
// method keep their order, and that Disassemble notes a string table that
// is not in order of first use (which reassembly cannot reproduce).
func TestRoundTrip_stringOrder(t *testing.T) {
	src := `.class A
.method static f()
    print "second"
    return
.end
.method static main()
    print "first"
    print "second"
    return
.end
`
	p, err := Assemble("o.mcasm", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, p)
	// A program whose string table is not in first-use order gets a note.
	p.Strings[0], p.Strings[1] = p.Strings[1], p.Strings[0]
	for i := range p.Methods {
		for j := range p.Methods[i].Code {
			if in := &p.Methods[i].Code[j]; in.Op == bytecode.OpPrint {
				in.A = 1 - in.A
			}
		}
	}
	if text := bytecode.Disassemble(p); !strings.Contains(text, "; note: the string table is not in order of first use") {
		t.Errorf("Disassemble of a reordered string table lacks the note:\n%s", text)
	}
}

// TestRoundTrip_tricky covers names that are also keywords, shadowed and
// inherited members, extreme constants and handler labels at the end of a
// method: each must assemble and round-trip.
func TestRoundTrip_tricky(t *testing.T) {
	tests := map[string]string{
		"keywords": `.class extends
.field int int
.static static int = -9223372036854775808
.method static synchronized()
    return
.end
.method returns() returns
    push 'x'
    retval
.end
.method static main()
.locals 1
    push -9223372036854775808
    inc 0 -1
    pop
    return
.end
`,
		"shadow": `.class B extends A
.field x int
.method m(a) returns
    load a
    retval
.end
.class A
.field x ref
.static s int
.method m(a) returns
    push 0
    retval
.end
.method static main()
    new B
    dup
    getfield A.x
    pop
    getfield B.x
    getstatic B.s
    add
    pop
    new B
    push 1
    invokevirtual A.m
    pop
    return
.end
`,
		"handlers": `.class E extends Exception
.class A
.method static main()
.catch E a b h
.catch any a b h
a: goto b
h: pop
    return
b: nop
    return
.end
`,
		"unicode": `.class Zähler
.static wert int = 'ü'
.method static main()
    print "grüße\x00\xff"
    return
.end
`,
	}
	for name, src := range tests {
		t.Run("case="+name, func(t *testing.T) {
			p, err := Assemble(name+".mcasm", []byte(src), Options{})
			if err != nil {
				t.Fatalf("Assemble = %v, want no error", err)
			}
			roundTrip(t, p)
		})
	}
}
