package vm_test

import (
	"testing"

	"mcvm/asm"
	"mcvm/vm"
)

// TestMachine_limits: a program that passes a limit of the machine gets a
// FaultLimit naming it, not an exception or invariant violation, at the
// default limits and at limits set in Options; a limit out of range is
// refused.
func TestMachine_limits(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		opts      vm.Options
		limit     vm.Limit
		msg       string
	}{
		{"array", `
.class Main
.method static main()
    push 1099511627776
    newarray
    pop
    return
.end`, vm.Options{}, vm.LimitSlots, "heap slot limit of 16777216 reached allocating an array of 1099511627776 elements"},
		{"array-raised", `
.class Main
.method static main()
    push 100
    newarray
    pop
    push 100
    newarray
    pop
    return
.end`, vm.Options{MaxSlots: 150}, vm.LimitSlots, "heap slot limit of 150 reached allocating an array of 100 elements"},
		{"threads", `
.class Main
.method static run()
    return
.end
.method static main()
loop:
    newthread Main.run
    pop
    goto loop
.end`, vm.Options{}, vm.LimitThreads, "thread limit of 4096 reached"},
		{"threads-raised", `
.class Main
.method static run()
    return
.end
.method static main()
loop:
    newthread Main.run
    pop
    goto loop
.end`, vm.Options{MaxThreads: 5}, vm.LimitThreads, "thread limit of 5 reached"},
		{"objects", `
.class Box
.class Main
.static keep ref
.method static main()
.locals x
loop:
    new Box
    store x
    goto loop
.end`, vm.Options{MaxObjects: 10}, vm.LimitObjects, "object limit of 10 reached"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := asm.Assemble(tc.name+".mcasm", []byte(tc.src), asm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			m, err := vm.New(p, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var f *vm.Fault
			for i := 0; i < 10 && f == nil; i++ {
				trs := m.Enabled(nil)
				if len(trs) == 0 {
					break
				}
				f = m.Step(trs[0])
			}
			if f == nil || f.Kind != vm.FaultLimit || f.Limit != tc.limit || f.Msg != tc.msg {
				t.Errorf("fault = %+v, want kind limit, limit %v, message %q", f, tc.limit, tc.msg)
			}
		})
	}
	p, err := asm.Assemble("inv.mcasm", []byte(`
.class Main
.invariant Main.spin
.method static spin() returns
loop:
    goto loop
.end
.method static main()
    return
.end`), asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := vm.New(p, vm.Options{MaxInvariantSteps: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if f := m.CheckInvariants(); f == nil || f.Kind != vm.FaultLimit || f.Limit != vm.LimitInvariantSteps ||
		f.Msg != "invariant Main.spin did not return within 1000 instructions" {
		t.Errorf("CheckInvariants of an endless invariant = %+v, want a FaultLimit of its steps", f)
	}
	for _, o := range []vm.Options{{MaxThreads: -1}, {MaxThreads: vm.MaxThreadsLimit + 1}, {MaxObjects: vm.MaxObjectsLimit + 1}, {MaxSlots: -3}, {MaxInvariantSteps: -1}} {
		if _, err := vm.New(p, o); err == nil {
			t.Errorf("New with %+v succeeded", o)
		}
	}
}
