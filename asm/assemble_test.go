package asm

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"mcvm/bytecode"
)

// opcodeFixture wraps a snippet in a program that gives every operand kind
// something to refer to.
const opcodeFixture = `
.class T
.field f int
.static s int
.method static callee(x) returns
    load x
    retval
.end
.method virt()
    return
.end
.method static worker()
    return
.end
.method static main()
.locals r i
%s
    return
.end
`

// opcodeSnippets uses each opcode in a stack-balanced snippet of main.
var opcodeSnippets = map[bytecode.Opcode]string{
	bytecode.OpNop:           "nop",
	bytecode.OpPush:          "push 1\npop",
	bytecode.OpPushNull:      "pushnull\npop",
	bytecode.OpPop:           "push 1\npop",
	bytecode.OpDup:           "push 1\ndup\npop\npop",
	bytecode.OpSwap:          "push 1\npush 2\nswap\npop\npop",
	bytecode.OpLoad:          "load i\npop",
	bytecode.OpStore:         "push 1\nstore i",
	bytecode.OpInc:           "inc i -2",
	bytecode.OpAdd:           "push 6\npush 3\nadd\npop",
	bytecode.OpSub:           "push 6\npush 3\nsub\npop",
	bytecode.OpMul:           "push 6\npush 3\nmul\npop",
	bytecode.OpDiv:           "push 6\npush 3\ndiv\npop",
	bytecode.OpRem:           "push 6\npush 3\nrem\npop",
	bytecode.OpNeg:           "push 6\nneg\npop",
	bytecode.OpAnd:           "push 6\npush 3\nand\npop",
	bytecode.OpOr:            "push 6\npush 3\nor\npop",
	bytecode.OpXor:           "push 6\npush 3\nxor\npop",
	bytecode.OpShl:           "push 6\npush 3\nshl\npop",
	bytecode.OpShr:           "push 6\npush 3\nshr\npop",
	bytecode.OpUshr:          "push 6\npush 3\nushr\npop",
	bytecode.OpNot:           "push 6\nnot\npop",
	bytecode.OpEq:            "push 6\npush 3\neq\npop",
	bytecode.OpNe:            "push 6\npush 3\nne\npop",
	bytecode.OpLt:            "push 6\npush 3\nlt\npop",
	bytecode.OpLe:            "push 6\npush 3\nle\npop",
	bytecode.OpGt:            "push 6\npush 3\ngt\npop",
	bytecode.OpGe:            "push 6\npush 3\nge\npop",
	bytecode.OpGoto:          "goto l\nl: nop",
	bytecode.OpIfz:           "push 0\nifz l\nl: nop",
	bytecode.OpIfnz:          "push 0\nifnz l\nl: nop",
	bytecode.OpIfeq:          "push 1\npush 2\nifeq l\nl: nop",
	bytecode.OpIfne:          "push 1\npush 2\nifne l\nl: nop",
	bytecode.OpIflt:          "push 1\npush 2\niflt l\nl: nop",
	bytecode.OpIfle:          "push 1\npush 2\nifle l\nl: nop",
	bytecode.OpIfgt:          "push 1\npush 2\nifgt l\nl: nop",
	bytecode.OpIfge:          "push 1\npush 2\nifge l\nl: nop",
	bytecode.OpIfnull:        "pushnull\nifnull l\nl: nop",
	bytecode.OpIfnonnull:     "pushnull\nifnonnull l\nl: nop",
	bytecode.OpNew:           "new T\npop",
	bytecode.OpGetfield:      "new T\ngetfield T.f\npop",
	bytecode.OpPutfield:      "new T\npush 1\nputfield T.f",
	bytecode.OpGetstatic:     "getstatic T.s\npop",
	bytecode.OpPutstatic:     "push 1\nputstatic T.s",
	bytecode.OpInstanceof:    "pushnull\ninstanceof T\npop",
	bytecode.OpCheckcast:     "pushnull\ncheckcast T\npop",
	bytecode.OpNewarray:      "push 2\nnewarray\npop",
	bytecode.OpNewrefarray:   "push 2\nnewrefarray\npop",
	bytecode.OpArrload:       "push 2\nnewarray\npush 0\narrload\npop",
	bytecode.OpArrstore:      "push 2\nnewarray\npush 0\npush 5\narrstore",
	bytecode.OpArrlen:        "push 2\nnewarray\narrlen\npop",
	bytecode.OpInvokestatic:  "push 1\ninvokestatic T.callee\npop",
	bytecode.OpInvokevirtual: "new T\ninvokevirtual T.virt",
	bytecode.OpReturn:        "return",
	bytecode.OpRetval:        "push 1\ninvokestatic T.callee\npop",
	bytecode.OpNewthread:     "newthread T.worker\npop",
	bytecode.OpStart:         "newthread T.worker\nstart",
	bytecode.OpJoin:          "newthread T.worker\njoin",
	bytecode.OpYield:         "yield",
	bytecode.OpTid:           "tid\npop",
	bytecode.OpMonitorenter:  "new T\nmonitorenter",
	bytecode.OpMonitorexit:   "new T\nmonitorexit",
	bytecode.OpWait:          "new T\nwait",
	bytecode.OpNotify:        "new T\nnotify",
	bytecode.OpNotifyall:     "new T\nnotifyall",
	bytecode.OpChoose:        "choose 3\npop",
	bytecode.OpChooseb:       "chooseb\npop",
	bytecode.OpAssert:        "push 1\nassert \"ok\"",
	bytecode.OpPrint:         "print \"hi\\n\"",
	bytecode.OpPrinti:        "push 1\nprinti",
	bytecode.OpThrow:         "new Exception\nthrow",
	bytecode.OpRethrow:       ".catch any t0 h0 h0 h1\nt0: new Exception\nthrow\nh0: rethrow\nh1: nop",
	bytecode.OpLeave:         ".finally t0 h0 h0 h1\nt0: push 1\nleave h1\nh0: endfinally\nh1: nop",
	bytecode.OpEndfinally:    ".finally t0 h0 h0 h1\nt0: leave h1\nh0: endfinally\nh1: nop",
	bytecode.OpEndfault:      ".fault t0 h0 h0 h1\nt0: leave h1\nh0: endfault\nh1: nop",
	bytecode.OpEndfilter:     ".filter t0 f0 f0 h0 h1\nt0: leave h1\nf0: pop\npush 1\nendfilter\nh0: pop\nleave h1\nh1: nop",
}

// TestOpcodes_roundTrip checks that every opcode assembles, disassembles to
// its mnemonic and round-trips.
func TestOpcodes_roundTrip(t *testing.T) {
	for op := bytecode.Opcode(1); int(op) < bytecode.NumOpcodes; op++ {
		t.Run("op="+op.String(), func(t *testing.T) {
			snippet, ok := opcodeSnippets[op]
			if !ok {
				t.Fatalf("no snippet for opcode %s: add one to opcodeSnippets", op)
			}
			src := fmt.Sprintf(opcodeFixture, snippet)
			p, err := Assemble("op.mcasm", []byte(src), Options{})
			if err != nil {
				t.Fatalf("Assemble(%q) = %v, want no error", snippet, err)
			}
			found := false
			for _, m := range p.Methods {
				for _, in := range m.Code {
					found = found || in.Op == op
				}
			}
			if !found {
				t.Errorf("Assemble(%q) has no %s instruction", snippet, op)
			}
			text := roundTrip(t, p)
			if !regexp.MustCompile(`(?m)^    ` + op.String() + `\b`).MatchString(text) {
				t.Errorf("Disassemble lacks %q:\n%s", op, text)
			}
		})
	}
}

const definesSrc = `.const N 2
.class A
.static s int = N * 10
.method static main()
    push N
    pop
    return
.end
`

func TestAssemble_defines(t *testing.T) {
	tests := []struct {
		defines map[string]int64
		want    int64  // the static's initial value
		err     string // regexp, or "" for success
	}{
		{nil, 20, ""},
		{map[string]int64{"N": 5}, 50, ""},
		{map[string]int64{"N": -1}, -10, ""},
		{map[string]int64{"M": 1}, 0, `^d\.mcasm: -D M: no \.const M in the program$`},
		{map[string]int64{"n": 1}, 0, `-D n: no \.const n in the program \(did you mean "N"\?\)`},
		{map[string]int64{"N": 1, "A": 1, "B": 2}, 0, `^d\.mcasm: -D A: no \.const A in the program\nd\.mcasm: -D B: no \.const B in the program$`},
	}
	for _, tt := range tests {
		p, err := Assemble("d.mcasm", []byte(definesSrc), Options{Defines: tt.defines})
		if tt.err != "" {
			if err == nil || !regexp.MustCompile(tt.err).MatchString(err.Error()) {
				t.Errorf("Assemble with -D %v = %v, want error matching %q", tt.defines, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Assemble with -D %v = %v, want no error", tt.defines, err)
			continue
		}
		if got := p.Statics[0].Init; got != tt.want {
			t.Errorf("Assemble with -D %v: static = %d, want %d", tt.defines, got, tt.want)
		}
		if got := p.Methods[0].Code[0].A; got != tt.want/10 {
			t.Errorf("Assemble with -D %v: push %d, want %d", tt.defines, got, tt.want/10)
		}
	}
}

func TestAssemble_expressions(t *testing.T) {
	tests := []struct {
		expr string
		want int64
		err  string
	}{
		{"1 + 2 * 3", 7, ""},
		{"(1 + 2) * 3", 9, ""},
		{"-2 * 3", -6, ""},
		{"- -4", 4, ""},
		{"10 - 4 - 3", 3, ""},
		{"7 / 2", 3, ""},
		{"-7 / 2", -3, ""},
		{"-7 % 3", -1, ""},
		{"0x7fffffffffffffff", 1<<63 - 1, ""},
		{"0XFF", 255, ""},
		{"-9223372036854775808", -1 << 63, ""},
		{"-9223372036854775808 % -1", 0, ""},
		{"'a'", 97, ""},
		{`'\n'`, 10, ""},
		{`'\''`, 39, ""},
		{"'é'", 233, ""},
		{"K * 2", 84, ""},
		{"007", 7, ""},
		{"9223372036854775807 + 1", 0, `overflow`},
		{"-9223372036854775807 - 2", 0, `overflow`},
		{"4611686018427387904 * 2", 0, `overflow`},
		{"-(-9223372036854775808)", 0, `overflow`},
		{"1 / 0", 0, `division by zero`},
		{"1 +", 0, `missing operand`},
		{"(1", 0, `missing \)`},
		{"1 2", 0, `unexpected "2" after \.const`},
		{"Q", 0, `undefined constant "Q"`},
		{strings.Repeat("(", 200) + "1" + strings.Repeat(")", 200), 0, `nested too deeply`},
		{strings.Repeat("-", 200) + "1", 0, ``},
	}
	for _, tt := range tests {
		src := fmt.Sprintf(".const K 42\n.const X %s\n.class A\n.static s int = X\n.method static main()\n return\n.end\n", tt.expr)
		p, err := Assemble("e.mcasm", []byte(src), Options{})
		switch {
		case tt.err != "":
			if err == nil || !regexp.MustCompile(tt.err).MatchString(err.Error()) {
				t.Errorf("Assemble(.const X %s) = %v, want error matching %q", tt.expr, err, tt.err)
			}
		case tt.expr == strings.Repeat("-", 200)+"1":
			// Deep unary minus: either a value or a clean error, never a crash.
		case err != nil:
			t.Errorf("Assemble(.const X %s) = %v, want %d", tt.expr, err, tt.want)
		case p.Statics[0].Init != tt.want:
			t.Errorf("Assemble(.const X %s) = %d, want %d", tt.expr, p.Statics[0].Init, tt.want)
		}
	}
}

func TestAssemble_positions(t *testing.T) {
	p, err := AssembleFile("testdata/ok/include.mcasm", Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantFiles := []string{"testdata/ok/include.mcasm", "testdata/ok/inc/queue.inc", "testdata/ok/inc/consts.inc"}
	if fmt.Sprint(p.Files) != fmt.Sprint(wantFiles) {
		t.Errorf("Files = %q, want %q", p.Files, wantFiles)
	}
	q := p.FindClass("Queue")
	add := p.FindMethod(q, "add")
	main := p.FindMethod(p.FindClass("Main"), "main")
	tests := []struct {
		what string
		got  bytecode.Pos
		want bytecode.Pos
	}{
		{"class Queue", p.Classes[q].Pos, bytecode.Pos{File: 1, Line: 5, Col: 1}},
		{"field Queue.size", p.Fields[p.FindField(q, "size")].Pos, bytecode.Pos{File: 1, Line: 7, Col: 1}},
		{"method Queue.add", p.Methods[add].Pos, bytecode.Pos{File: 1, Line: 9, Col: 1}},
		{"Queue.add pc 0", p.InstrPos(add, 0), bytecode.Pos{File: 1, Line: 10, Col: 5}},
		{"Main.main pc 0", p.InstrPos(main, 0), bytecode.Pos{File: 0, Line: 8, Col: 5}},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: Pos = %+v, want %+v", tt.what, tt.got, tt.want)
		}
	}
	// A label and an instruction on one line: the mnemonic's column.
	p, err = AssembleFile("testdata/ok/branches.mcasm", Options{})
	if err != nil {
		t.Fatal(err)
	}
	classify := p.FindMethod(p.FindClass("Branch"), "classify")
	if got, want := p.InstrPos(classify, 7), (bytecode.Pos{Line: 13, Col: 9}); got != want {
		t.Errorf("Branch.classify pc 7: Pos = %+v, want %+v", got, want)
	}
	// Columns count runes, not bytes.
	src := ".class A\n.method static main()\n    print \"héllo\" pusj\n    return\n.end\n"
	_, err = Assemble("u.mcasm", []byte(src), Options{})
	if want := "u.mcasm:3:19: unexpected \"pusj\" after print"; err == nil || err.Error() != want {
		t.Errorf("Assemble(%q) = %v, want %s", src, err, want)
	}
}

func TestAssemble_strings(t *testing.T) {
	src := `.class A
.method static main()
    print "b"
    push 1
    assert
    print "a"
    print "b"
    push 1
    assert "assertion failed"
    return
.end
`
	p, err := Assemble("s.mcasm", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"b", DefaultAssertMessage, "a"}
	if fmt.Sprint(p.Strings) != fmt.Sprint(want) {
		t.Errorf("Strings = %q, want %q", p.Strings, want)
	}
}

func TestAssemble_tooManyErrors(t *testing.T) {
	src := ".class A\n.method static main()\n" + strings.Repeat("    bogus\n", 30) + "    return\n.end\n"
	_, err := Assemble("m.mcasm", []byte(src), Options{})
	list, ok := err.(ErrorList)
	if !ok {
		t.Fatalf("Assemble error = %T %v, want ErrorList", err, err)
	}
	if len(list) != MaxErrors+1 {
		t.Fatalf("len(errors) = %d, want %d", len(list), MaxErrors+1)
	}
	if got, want := list[MaxErrors].Error(), "m.mcasm:23:5: too many errors"; got != want {
		t.Errorf("last error = %q, want %q", got, want)
	}
	if got, want := list[0].Error(), `m.mcasm:3:5: unknown mnemonic "bogus"`; got != want {
		t.Errorf("first error = %q, want %q", got, want)
	}
	if got := strings.Count(err.Error(), "\n"); got != MaxErrors {
		t.Errorf("Error() has %d newlines, want %d", got, MaxErrors)
	}
}

func TestAssemble_includeDepth(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("f%d.inc", i)] = fmt.Sprintf(".include \"f%d.inc\"\n", i+1)
	}
	read := func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return nil, fs.ErrNotExist
	}
	src := ".include \"f1.inc\"\n.class A\n.method static main()\n return\n.end\n"
	_, err := Assemble("main.mcasm", []byte(src), Options{ReadFile: read})
	if want := "f16.inc:1:1: includes nested more than 16 deep"; err == nil || err.Error() != want {
		t.Errorf("Assemble(17 nested includes) = %v, want %s", err, want)
	}
}

func TestAssemble_noEntry(t *testing.T) {
	src := ".class A\n.method static helper()\n return\n.end\n"
	_, err := Assemble("n.mcasm", []byte(src), Options{})
	want := "n.mcasm: no entry point: declare a static method main() or name one with .entry CLASS.METHOD"
	if err == nil || err.Error() != want {
		t.Errorf("Assemble(no main) = %v, want %s", err, want)
	}
}

func TestAssemble_limits(t *testing.T) {
	big := make([]byte, MaxSource+1)
	if _, err := Assemble("big.mcasm", big, Options{}); err == nil || !strings.Contains(err.Error(), "more than the limit") {
		t.Errorf("Assemble(%d bytes) = %v, want a size error", len(big), err)
	}
	_, err := AssembleFile("testdata/no/such/file.mcasm", Options{})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("AssembleFile(missing) = %v, want fs.ErrNotExist", err)
	}
	src := ".class A\n.method static main()\n.locals 70000\n return\n.end\n"
	if _, err := Assemble("l.mcasm", []byte(src), Options{}); err == nil || !strings.Contains(err.Error(), "more than 65536 locals") {
		t.Errorf("Assemble(.locals 70000) = %v, want a locals error", err)
	}
}

func TestSuggest(t *testing.T) {
	tests := []struct {
		name string
		want string
	}{
		{"psuh", "push"},
		{"pus", "push"},
		{"PUSH", "push"},
		{"invokestatc", "invokestatic"},
		{"monitorneter", "monitorenter"},
		{"xyzzy", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Suggest(tt.name, mnemonics); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
