package vm_test

import (
	"errors"
	"strings"
	"testing"

	"mcvm/asm"
	"mcvm/vm"
)

// TestNew_setupErrors checks that a setup method that cannot run to its
// end, or a thread it starts that faults before its first scheduling
// point, is an error of New wrapping ErrSetup at the instruction's
// position, never a panic or an initial state.
func TestNew_setupErrors(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"choose", "    choose 2\n    pop\n    return", "s.mcasm:5:5: setup method S.setup blocks, chooses or loops here"},
		{"fault", "    push 1\n    push 0\n    div\n    pop\n    return", "s.mcasm:7:5: setup method S.setup: uncaught ArithmeticException"},
		{"wait", "    new S\n    dup\n    monitorenter\n    wait\n    return", "setup method S.setup waits"},
		{"leak", "    new S\n    dup\n    putstatic S.o\n    monitorenter\n    newthread S.w\n    start\n    return", "ended holding the monitor of a S"},
		{"thread", "    newthread S.bad\n    start\n    return", "s.mcasm:16:5: thread 0, started by a setup method, faults before its first scheduling point: assertion"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := ".class S\n.static o ref\n.method static setup()\n.locals x\n" + c.body + "\n.end\n" +
				".method static w()\n    getstatic S.o\n    pop\n    return\n.end\n" +
				".method static bad()\n    push 0\n    assert\n    return\n.end\n.setup S.setup\n"
			p, err := asm.Assemble("s.mcasm", []byte(src), asm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = vm.New(p, vm.Options{})
			if !errors.Is(err, vm.ErrSetup) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("New = %v, want an ErrSetup containing %q", err, c.want)
			}
		})
	}
}
