package vm_test

import (
	"strings"
	"testing"

	"mcvm/asm"
	"mcvm/vm"
)

// TestMachine_livelock: a transition whose thread comes back to a state
// it was in, with only quiet instructions in between, is a livelock at
// once; a loop that changes something each round (a counter, the heap,
// the output) or whose round is longer than a transition is not one, and
// its transition ends after MaxLocalSteps instructions as before.
func TestMachine_livelock(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		period     int // 0: not a livelock
	}{
		{"self", `
loop:
    goto loop`, 1},
		{"toggle", `
loop:
    push 1
    load x
    sub
    store x
    goto loop`, 10},
		{"call", `
loop:
    load x
    invokestatic Main.id
    store x
    goto loop`, 6},
		{"after-count", `
loop:
    inc x 1
    load x
    push 10000
    iflt loop
spin:
    goto spin`, 1},
		{"count", `
loop:
    inc x 1
    goto loop`, 0},
		{"allocate", `
loop:
    new Main
    pop
    goto loop`, 0},
		{"catch", `
.catch any t e h
t:
    push 1
    push 0
    div
    pop
    goto t
e:
h:
    pop
    goto t`, 0},
		{"print", `
loop:
    print "x"
    goto loop`, 0},
		{"long-round", `
loop:
    inc x 1
    load x
    push 100000
    rem
    store x
    goto loop`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := `
.class Main
.method static id(v) returns
    load v
    retval
.end
.method static main()
.locals x` + tc.body + `
.end
`
			p, err := asm.Assemble(tc.name+".mcasm", []byte(src), asm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			m, err := vm.New(p, vm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			f := m.Step(vm.Trans{})
			switch {
			case tc.period == 0 && f != nil:
				t.Errorf("Step = %+v, want no fault", f)
			case tc.period == 0 && m.Executed() != vm.MaxLocalSteps:
				t.Errorf("Step executed %d instructions, want %d", m.Executed(), vm.MaxLocalSteps)
			case tc.period > 0 && (f == nil || f.Kind != vm.FaultLivelock):
				t.Errorf("Step = %+v, want a livelock", f)
			case tc.period == 1 && !strings.HasSuffix(f.Msg, "repeating every instruction"),
				tc.period > 1 && !strings.HasSuffix(f.Msg, "repeating every "+itoa(tc.period)+" instructions"):
				t.Errorf("Step = %q, want a period of %d", f.Msg, tc.period)
			case tc.period > 0 && m.Executed() > 3*4096+10000*4:
				t.Errorf("livelock found after %d instructions", m.Executed())
			}
		})
	}
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}
