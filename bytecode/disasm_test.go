package bytecode

import (
	"strings"
	"testing"
)

const testProgramText = `; mcvm disassembly of t.mcasm

.class Counter
.field n int
.static count int = -3
.static last ref

.method static worker()
    getstatic Counter.count         ; line 6
    push 1                          ; line 7
    add                             ; line 8
    putstatic Counter.count         ; line 9
    return                          ; line 10
.end

.method static inv() returns
    getstatic Counter.count
    push 10
    le
    retval
.end

.method static main()
.locals 2
.catch NullPointerException L7 L12 L13
    newthread Counter.worker        ; line 20
    dup                             ; line 21
    store 0                         ; line 22
    start                           ; line 23
    load 0                          ; line 24
    join                            ; line 25
    inc 1 -7                        ; line 26
L7:
    new Counter                     ; line 27
    getfield Counter.n              ; line 28
    ifz L12                         ; line 29
    push 1                          ; line 30
    assert "lost update"            ; line 31
L12:
    return                          ; line 32
L13:
    pop                             ; line 33
    print "caught\n"                ; line 34
    return                          ; line 35
.end

.entry Counter.main
.invariant Counter.inv
`

func TestDisassemble(t *testing.T) {
	if got := Disassemble(testProgram()); got != testProgramText {
		t.Errorf("Disassemble(testProgram()) =\n%s\nwant\n%s", got, testProgramText)
	}
}

// TestDisassemble_invalid checks that programs that do not verify still
// disassemble without a panic, marking what cannot be expressed.
func TestDisassemble_invalid(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(p *Program)
		want   string
	}{
		{"class operand", func(p *Program) { p.Methods[2].Code[7].A = 1 << 40 }, "new class#1099511627776"},
		{"field operand", func(p *Program) { p.Methods[2].Code[8].A = -1 }, "getfield field#-1"},
		{"static operand", func(p *Program) { p.Methods[0].Code[0].A = 5 }, "getstatic static#5"},
		{"method operand", func(p *Program) { p.Methods[2].Code[0].A = 9 }, "newthread method#9"},
		{"string operand", func(p *Program) { p.Methods[2].Code[11].A = 2 }, "assert string#2"},
		{"branch target", func(p *Program) { p.Methods[2].Code[9].A = 100 }, "ifz pc#100"},
		{"opcode", func(p *Program) { p.Methods[2].Code[1].Op = 250 }, "invalid ; opcode 250"},
		{"unused operand", func(p *Program) { p.Methods[2].Code[1].A = 3 }, "dup ; operand A is 3"},
		{"entry", func(p *Program) { p.Entry = -1 }, "; no valid entry method (-1)"},
		{"builtin member", func(p *Program) { p.Methods[0].Class = ClassThread }, "; method Thread.worker cannot be declared in assembly"},
		{"member order", func(p *Program) {
			p.Statics[0], p.Statics[1] = p.Statics[1], p.Statics[0]
			p.Statics[0].Class = ClassObject
		}, "; note: members are not grouped"},
		{"handler class", func(p *Program) { p.Methods[2].Handlers[0].Class = -1 }, ".catch any L7 L12 L13"},
		{"no lines", func(p *Program) { p.Methods[2].Lines = nil; p.Files = nil }, "    dup\n"},
	}
	for _, tt := range tests {
		p := testProgram()
		tt.mutate(p)
		if got := Disassemble(p); !strings.Contains(got, tt.want) {
			t.Errorf("Disassemble(%s) lacks %q:\n%s", tt.name, tt.want, got)
		}
	}
	Disassemble(&Program{Entry: -1}) // no built-in classes at all
}
