package main

import (
	"strings"
	"testing"
)

const spinModel = "testdata/spin.mcasm"

// TestRun_limits: a run of a thread-local loop stops at --max-instructions
// or --time-limit with exit 3 and says where the loop is; one that repeats
// a state is a livelock at once.
func TestRun_limits(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"run", "--max-instructions", "1000000", spinModel}, exitLimit, []string{
			"mcvm run: stopped after 19 transitions, 1048579 instructions (--max-instructions)",
			"thread 1 is in a loop that reaches no scheduling point: its last transition ran 65536 instructions, up to Main.spin at testdata/spin.mcasm:8:5",
			"thread 1  runnable   at inc 0 1 testdata/spin.mcasm:8:5 (Main.spin)"}},
		{[]string{"run", "--time-limit", "1ns", spinModel}, exitLimit, []string{"(--time-limit)"}},
		{[]string{"run", "--max-steps", "3", spinModel}, exitLimit, []string{"stopped after 3 transitions", "(--max-steps)", "thread 1 is in a loop"}},
		{[]string{"run", "--max-instructions", "-1", spinModel}, exitUsage, []string{"must not be negative"}},
		{[]string{"run", "../../testdata/conformance/livelock.mcasm"}, exitViolation, []string{
			"livelock: the thread loops forever without reaching a scheduling point, its state repeating every 2 instructions (thread 1, Main.waiter"}},
	} {
		code, out, errs := runMain(tc.args...)
		for _, w := range tc.want {
			if code != tc.code || !strings.Contains(out+errs, w) {
				t.Errorf("mcvm %s: exit %d (want %d), output lacks %q:\n%s%s", strings.Join(tc.args, " "), code, tc.code, w, out, errs)
			}
		}
	}
}
