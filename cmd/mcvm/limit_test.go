package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheck_machineLimits: an array of 2^40 elements and the 4,097th
// thread are limits of the checker, not property violations: verdict
// limit, exit 3, a message naming the limit and the flag that raises it,
// for check, verify, run and replay alike.
func TestCheck_machineLimits(t *testing.T) {
	dir := t.TempDir()
	arr := filepath.Join(dir, "arr.mcasm")
	os.WriteFile(arr, []byte(`
.class Main
.method static main()
    push 1099511627776
    newarray
    pop
    return
.end
`), 0o644)
	thr := filepath.Join(dir, "thr.mcasm")
	os.WriteFile(thr, []byte(`
.class Main
.method static run()
    return
.end
.method static main()
.locals i
loop:
    newthread Main.run
    pop
    inc i 1
    load i
    push 4097
    iflt loop
    return
.end
`), 0o644)
	trail := filepath.Join(dir, "thr.trail")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"check", arr}, exitLimit, "limit:       heap slot limit of 16777216 reached allocating an array of 1099511627776 elements, --max-heap-slots raises it (thread 0, Main.main"},
		{[]string{"check", "--json", arr}, exitLimit, `"limit":"heap slots"`},
		{[]string{"check", "--trail", trail, thr}, exitLimit, "thread limit of 4096 reached, --max-threads raises it"},
		{[]string{"replay", trail, thr}, exitLimit, "limit:       thread limit of 4096 reached"},
		{[]string{"check", "--max-threads", "4098", thr}, exitOK, "verdict:     ok"},
		{[]string{"replay", "--max-threads", "4098", trail, thr}, exitOK, "verdict:     ok"},
		{[]string{"check", "--max-threads", "0", thr}, exitUsage, "--max-threads: want 1 to"},
		{[]string{"check", "--max-heap-slots", "-1", arr}, exitUsage, "--max-heap-slots: want 1 to"},
		{[]string{"check", "--max-invariant-steps", "-1", arr}, exitUsage, "--max-invariant-steps"},
		{[]string{"verify", "--script", filepath.Join(dir, "s"), arr}, exitLimit, "verdict:     limit (heap slots limit reached"},
		{[]string{"run", arr}, exitLimit, "--max-heap-slots raises it"},
		{[]string{"run", "--max-objects", "100", thr}, exitLimit, "object limit of 100 reached, --max-objects raises it"},
		{[]string{"improve", trail, thr}, exitUsage, "nothing to improve"},
	} {
		code, out, errs := runMain(tc.args...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("mcvm %s: exit %d (want %d), output lacks %q:\n%s%s", strings.Join(tc.args, " "), code, tc.code, tc.want, out, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "s")); err == nil {
		t.Errorf("verify cut off by a limit of the machine wrote a script")
	}
}
