package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mcvm/internal/bench"
	"mcvm/por"
)

func runMain(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = mainArgs(args, &o, &e)
	return code, o.String(), e.String()
}

const philo = "../../benchmarks/models/philo.mcasm"
const philoOK = "../../benchmarks/models/philo_ok.mcasm"
const uncaught = "../../testdata/conformance/seh_uncaught.mcasm"

func TestCheck_exitCodes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"check", "-D", "N=3", philo}, exitViolation},
		{[]string{"check", "-D", "N=3", philoOK}, exitOK},
		{[]string{"check", "-D", "N=4", "--max-states", "10", philoOK}, exitLimit},
		{[]string{"check", "-D", "N=4", "--max-depth", "5", philoOK}, exitLimit},
		{[]string{"check", "-D", "N=5", "--por", "none", "--time-limit", "1ns", philoOK}, exitLimit},
		{[]string{"check", "-D", "N=6", "--por", "none", "--continue", "--memory-limit", "1MiB", philoOK}, exitLimit},
		{[]string{"check", "--por", "sideways", philo}, exitUsage},
		{[]string{"check", "--por", "dpor", "--search", "bfs", philo}, exitUsage},
		{[]string{"check", "--por", "dpor", philo}, exitViolation},
		{[]string{"check", "--por", "ample+dpor", "-D", "N=3", philoOK}, exitOK},
		{[]string{"check", "--search", "bfs", "--proviso", "stack", philo}, exitUsage},
		{[]string{"check", "--search", "astar", philo}, exitUsage},                           // no heuristic
		{[]string{"check", "--search", "astar", "--heuristic", "nope", philo}, exitUsage},    // unknown
		{[]string{"check", "--search", "bfs", "--heuristic", "fsm", philo}, exitUsage},       // not directed
		{[]string{"check", "--search", "astar", "--heuristic", "hamming", philo}, exitUsage}, // needs --target
		{[]string{"check", "--search", "astar", "--heuristic", "fsm", "--hash-compact", philo}, exitUsage},
		{[]string{"check", "--search", "ida", "--heuristic", "fsm", "--continue", philo}, exitUsage},
		{[]string{"check", "--search", "astar", "--heuristic", "fsm", philo}, exitViolation},
		{[]string{"check", "--search", "best-first", "--heuristic", "active", philo}, exitViolation},
		{[]string{"check", "--search", "ida", "--heuristic", "fsm", "-D", "N=3", philo}, exitViolation},
		{[]string{"check", "--search", "astar", "--heuristic", "fsm", "-D", "N=3", philoOK}, exitOK},
		{[]string{"check", "--proviso", "never", philo}, exitUsage},
		{[]string{"check", "-D", "N=3", "--memory-limit", "0", philoOK}, exitOK},
		{[]string{"check", "--memory-limit", "lots", philoOK}, exitUsage},
		{[]string{"check", "-D", "N=3", "--hash-compact", philoOK}, exitOK},
		{[]string{"check", "-D", "N=3", "--bitstate", "20", philo}, exitViolation},
		{[]string{"check", "--hash-compact", "--bitstate", "20", philo}, exitUsage},
		{[]string{"check", "--bitstate", "5", philo}, exitUsage},
		{[]string{"bench", "--hash-compact", "--bitstate", "20"}, exitUsage},
		{[]string{"check", "-D", "N=3", "--collapse", philo}, exitViolation},
		{[]string{"check", "-D", "N=3", "--collapse=false", philoOK}, exitOK},
		{[]string{"check", "-D", "N=6", "--por", "none", "--continue", "--collapse", "--memory-limit", "1MiB", philoOK}, exitLimit},
		{[]string{"check", "--collapse", "--hash-compact", philo}, exitUsage},
		{[]string{"check", "--chain", philo}, exitViolation},
		{[]string{"check", "--chain", "-D", "N=3", "--continue", philoOK}, exitOK},
		{[]string{"check", "--chain", "--por", "none", philo}, exitUsage},
		{[]string{"check", "--chain", "--search", "bfs", philo}, exitUsage},
		{[]string{"check", "--chain", "--por", "dpor", philo}, exitUsage},
		{[]string{"check", "--chain", "--max-depth", "10", philo}, exitUsage},
		{[]string{"check", "--collapse", "--bitstate", "20", philo}, exitUsage},
		{[]string{"check", "--sleep", philo}, exitViolation},
		{[]string{"check", "--sleep", "--collapse", "-D", "N=3", "--continue", philoOK}, exitOK},
		{[]string{"check", "--sleep", "--por", "none", philo}, exitUsage},
		{[]string{"check", "--sleep", "--search", "bfs", philo}, exitUsage},
		{[]string{"check", "--sleep", "--por", "dpor", philo}, exitViolation},
		{[]string{"check", "--sleep", "--por", "dpor", "--search", "bfs", philo}, exitUsage},
		{[]string{"check", "--sleep", "--max-depth", "10", philo}, exitUsage},
		{[]string{"check", "--sleep", "--hash-compact", philo}, exitUsage},
		{[]string{"check", "--sleep", "--bitstate", "20", philo}, exitUsage},
		{[]string{"check", "--por", "none", "--hash-compact", philo}, exitViolation},
		{[]string{"check", "--sii", philo}, exitUsage},
		{[]string{"check", "--symmetry", philo}, exitViolation},
		{[]string{"check", "--symmetry", "--search", "bfs", "-D", "N=3", philoOK}, exitOK},
		{[]string{"check", "--symmetry", "--por", "dpor", philo}, exitUsage},
		{[]string{"check", "--symmetry", "../../testdata/conformance/tid.mcasm"}, exitUsage},
		{[]string{"check", "--por", "dpor", "--sii=false", philo}, exitViolation},
		{[]string{"check", "-D", "N=3", "--collapse=false", "--hash-compact", philoOK}, exitOK},
		{[]string{"bench", "--collapse", "--hash-compact"}, exitUsage},
		{[]string{"check", "--bitstate", "36", "--memory-limit", "1GiB", philo}, exitUsage},
		{[]string{"check", "nonexistent.mcasm"}, exitUsage},
		{[]string{"check", "-D", "NOPE=3", philo}, exitUsage},
		{[]string{"check", "-D", "N=x", philo}, exitUsage},
		{[]string{"check", "--search", "sideways", philo}, exitUsage},
		{[]string{"check", "--granularity", "fine", philo}, exitUsage},
		{[]string{"check", "--uncaught", "swallow", philo}, exitUsage},
		{[]string{"check", uncaught}, exitViolation},
		{[]string{"check", "--uncaught=ignore", uncaught}, exitOK},
		{[]string{"check", "--uncaught", "report", uncaught}, exitViolation},
		{[]string{"run", uncaught}, exitViolation},
		{[]string{"run", "--uncaught=ignore", uncaught}, exitOK},
		{[]string{"check"}, exitUsage},
		{[]string{"check", "--bogus", philo}, exitUsage},
		{[]string{"frobnicate"}, exitUsage},
		{[]string{}, exitUsage},
		{[]string{"check", "--help"}, exitOK},
		{[]string{"help", "check"}, exitOK},
	} {
		if code, _, stderr := runMain(tc.args...); code != tc.code {
			t.Errorf("mcvm %s: exit %d, want %d (stderr %q)", strings.Join(tc.args, " "), code, tc.code, stderr)
		}
	}
}

// A name given twice with -D is refused, whatever the values.
func TestDefines_twice(t *testing.T) {
	for _, args := range [][]string{
		{"check", "-D", "N=3", "-D", "N=4", philo},
		{"check", "-D", "N=3", "-D", " N = 3", philo},
		{"asm", "-D", "N=3", "-D", "N=4", "-o", filepath.Join(t.TempDir(), "p.mcb"), philo},
	} {
		code, _, stderr := runMain(args...)
		if code != exitUsage || !strings.Contains(stderr, "N is given twice") {
			t.Errorf("mcvm %s: exit %d, stderr %q; want %d and \"N is given twice\"", strings.Join(args, " "), code, stderr, exitUsage)
		}
	}
}

func TestCheck_json(t *testing.T) {
	code, out, _ := runMain("check", "--json", "-D", "N=3", philo)
	if code != exitViolation {
		t.Fatalf("exit %d", code)
	}
	var r map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if dec.More() {
		t.Errorf("more than one JSON value in the output")
	}
	for _, k := range []string{"verdict", "states", "transitions", "revisits", "max_depth", "errors", "elapsed_s", "states_per_s", "trace"} {
		if _, ok := r[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if r["verdict"] != "deadlock" {
		t.Errorf("verdict = %v, want deadlock", r["verdict"])
	}
	// Chains are the default: the transitions run through, and of them
	// those taken as a singleton persistent set.
	chained, _ := r["chained_transitions"].(float64)
	reduced, _ := r["chained_reduced"].(float64)
	if r["chain"] != true || chained == 0 || reduced == 0 || reduced > chained {
		t.Errorf("chain = %v, chained_transitions = %v, chained_reduced = %v", r["chain"], r["chained_transitions"], r["chained_reduced"])
	}
	trace, _ := r["trace"].([]any)
	if len(trace) == 0 {
		t.Fatal("empty trace")
	}
	step := trace[0].(map[string]any)
	for _, k := range []string{"thread", "method", "instr", "pos"} {
		if _, ok := step[k]; !ok {
			t.Errorf("trace step lacks %q", k)
		}
	}
}

// checkJSON runs check --json --continue with flags on model, which must
// end without an error, and returns its JSON object.
func checkJSON(t *testing.T, model string, flags ...string) map[string]any {
	t.Helper()
	args := append(append([]string{"check", "--json", "--continue"}, flags...), model)
	code, out, stderr := runMain(args...)
	if code != exitOK {
		t.Fatalf("mcvm %v: exit %d (%s)", args, code, stderr)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCheck_sleep checks that sleep sets are the default where they apply
// and report what they left out: the same states as without, fewer
// transitions.
func TestCheck_sleep(t *testing.T) {
	get := func(flags ...string) map[string]any {
		return checkJSON(t, philoOK, append([]string{"-D", "N=4"}, flags...)...)
	}
	on, off := get(), get("--sleep=false")
	slept, _ := on["slept_transitions"].(float64)
	if on["sleep"] != true || off["sleep"] != false || slept == 0 {
		t.Errorf("sleep = %v (with --sleep=false %v), slept_transitions = %v", on["sleep"], off["sleep"], on["slept_transitions"])
	}
	if on["states"] != off["states"] || on["transitions"].(float64) >= off["transitions"].(float64) {
		t.Errorf("with sleep sets %v states, %v transitions; without %v and %v", on["states"], on["transitions"], off["states"], off["transitions"])
	}
	if m, _ := on["memory"].(map[string]any); m == nil || m["sleep_set_bytes"] == nil {
		t.Errorf("the memory account lacks sleep_set_bytes: %v", on["memory"])
	}
	if on["sleep_again"] != nil {
		t.Errorf("sleep_again = %v for a program without invariants", on["sleep_again"])
	}
	// With --continue, a program whose invariant is violated is searched
	// a second time (explorer.Options.Sleep).
	code, out, stderr := runMain("check", "--json", "--continue", "../../por/testdata/gen_por_5_sleep.mcasm")
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); code != exitViolation || err != nil {
		t.Fatalf("exit %d, %v (%s)", code, err, stderr)
	}
	if r["verdict"] != "invariant" || r["sleep_again"] != true {
		t.Errorf("verdict %v, sleep_again %v", r["verdict"], r["sleep_again"])
	}
}

// TestCheck_symmetry checks that --symmetry stores fewer states on the
// bounded buffer with alike producers and consumers, reports the
// transitions of twin threads it left out, and writes a counterexample
// that replays without symmetry.
func TestCheck_symmetry(t *testing.T) {
	bb := "../../benchmarks/models/boundedbuffer.mcasm"
	get := func(flags ...string) map[string]any {
		return checkJSON(t, bb, append([]string{"-D", "ITEMS=0", "-D", "PRODUCERS=2", "-D", "CONSUMERS=2"}, flags...)...)
	}
	on, off := get("--symmetry"), get()
	if on["symmetry"] != true || off["symmetry"] != false || on["states"].(float64) >= off["states"].(float64) {
		t.Errorf("with --symmetry: symmetry %v, %v states; without: %v, %v states", on["symmetry"], on["states"], off["symmetry"], off["states"])
	}
	if tw, _ := on["twin_transitions"].(float64); tw == 0 {
		t.Errorf("twin_transitions = %v", on["twin_transitions"])
	}
	trail := filepath.Join(t.TempDir(), "bb.trail")
	small := []string{"-D", "SIZE=1", "-D", "PRODUCERS=2", "-D", "CONSUMERS=2", "-D", "ITEMS=2"}
	code, out, _ := runMain(append(append([]string{"check", "--stats", "--symmetry", "--trail", trail}, small...), bb)...)
	if code != exitViolation || !strings.Contains(out, "symmetry:") {
		t.Fatalf("check --symmetry --trail: exit %d\n%s", code, out)
	}
	code, out, stderr := runMain(append(append([]string{"replay"}, small...), trail, bb)...)
	if code != exitViolation || !strings.Contains(out, "verdict:     deadlock") {
		t.Errorf("replay: exit %d, out:\n%s\nerr: %s", code, out, stderr)
	}
}

// TestCheck_gc checks --gc: each collector reports itself and what it
// freed, both free the same objects, none frees nothing, and the search is
// the same with all three; an explicit --gc where nothing is collected is
// a usage error.
func TestCheck_gc(t *testing.T) {
	md := "../../benchmarks/models/moldyn.mcasm"
	small := []string{"-D", "THREADS=2", "-D", "SIZE=1", "-D", "MOVES=2"}
	var runs []map[string]any
	for _, gc := range []string{"mark-sweep", "memoised", "none"} {
		r := checkJSON(t, md, append(small, "--gc", gc)...)
		if r["gc"] != gc {
			t.Errorf("--gc %s: gc = %v", gc, r["gc"])
		}
		runs = append(runs, r)
	}
	freed, _ := runs[0]["freed_objects"].(float64)
	if freed == 0 || runs[1]["freed_objects"] != runs[0]["freed_objects"] || runs[2]["freed_objects"] != 0.0 {
		t.Errorf("freed_objects: mark-sweep %v, memoised %v, none %v", runs[0]["freed_objects"], runs[1]["freed_objects"], runs[2]["freed_objects"])
	}
	for _, r := range runs[1:] {
		for _, k := range []string{"states", "transitions", "revisits", "max_depth"} {
			if r[k] != runs[0][k] {
				t.Errorf("gc=%v: %s = %v, with mark-sweep %v", r["gc"], k, r[k], runs[0][k])
			}
		}
	}
	code, out, _ := runMain(append(append([]string{"check", "--stats"}, small...), md)...)
	if code != exitOK || !strings.Contains(out, "gc:          mark-sweep; ") {
		t.Errorf("check: exit %d, no gc line:\n%s", code, out)
	}
	for _, flags := range [][]string{{"--gc", "memoised", "--search", "bfs"}, {"--gc", "mark-sweep", "--por", "dpor"}, {"--gc", "copying"}} {
		if code, _, stderr := runMain(append(append([]string{"check"}, flags...), md)...); code != exitUsage || !strings.Contains(stderr, "--gc") {
			t.Errorf("check %v: exit %d, %s", flags, code, stderr)
		}
	}
}

// TestCheck_sii checks that dynamic reduction reports its summaries: as
// many states summarised as stored states left, fewer distinct ones, and
// less memory collapsed than not.
func TestCheck_sii(t *testing.T) {
	code, out, stderr := runMain("check", "--json", "--continue", "--por", "dpor", "-D", "N=4", philoOK)
	if code != exitOK {
		t.Fatalf("exit %d (%s)", code, stderr)
	}
	var r struct {
		States int64         `json:"states"`
		SII    *por.SIIStats `json:"sii"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if s := r.SII; s == nil || s.States != r.States || s.Distinct == 0 || s.Distinct >= s.States || s.CollapsedBytes >= s.FullBytes {
		t.Errorf("%d states, sii %+v", r.States, r.SII)
	}
	// Sleep sets with dpor only when asked for.
	for _, c := range []struct {
		flags []string
		sleep bool
	}{{nil, false}, {[]string{"--sleep"}, true}} {
		args := append([]string{"check", "--json", "--continue", "--por", "dpor", "-D", "N=4"}, c.flags...)
		_, out, _ := runMain(append(args, philoOK)...)
		var r map[string]any
		if err := json.Unmarshal([]byte(out), &r); err != nil || r["sleep"] != c.sleep {
			t.Errorf("mcvm %v: sleep %v (%v)", args, r["sleep"], err)
		}
	}
}

// TestCheck_collapseStack checks that --collapse on a deep search (the
// bounded buffer with endless loops, 13,816 levels) gives up the
// snapshots of levels far below the top, says so, and explores the same
// states and transitions as the exact store, which keeps them all.
func TestCheck_collapseStack(t *testing.T) {
	const bb = "../../benchmarks/models/boundedbuffer.mcasm"
	type result struct {
		States      int64 `json:"states"`
		Transitions int64 `json:"transitions"`
		Evicted     int64 `json:"evicted_snapshots"`
		Decoded     int64 `json:"decoded_levels"`
	}
	var rs [2]result
	for i, store := range []string{"--collapse=false", "--collapse"} {
		args := []string{"check", "--json", "--continue", store, "-D", "ITEMS=0", "-D", "PRODUCERS=2", "-D", "CONSUMERS=2", bb}
		code, out, stderr := runMain(args...)
		if code != exitOK {
			t.Fatalf("mcvm %v: exit %d (%s)", args, code, stderr)
		}
		if err := json.Unmarshal([]byte(out), &rs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if rs[0].States != rs[1].States || rs[0].Transitions != rs[1].Transitions {
		t.Errorf("exact store: %d states %d transitions; collapse: %d %d", rs[0].States, rs[0].Transitions, rs[1].States, rs[1].Transitions)
	}
	if rs[0].Evicted != 0 || rs[1].Evicted == 0 || rs[1].Decoded == 0 || rs[1].Decoded > rs[1].Evicted {
		t.Errorf("snapshots evicted and levels decoded: exact store %d %d, collapse %d %d", rs[0].Evicted, rs[0].Decoded, rs[1].Evicted, rs[1].Decoded)
	}
	_, out, _ := runMain("check", "--stats", "--continue", "--collapse", "-D", "ITEMS=0", "-D", "PRODUCERS=2", "-D", "CONSUMERS=2", bb)
	if !strings.Contains(out, "stack:       "+strconv.FormatInt(rs[1].Evicted, 10)+" snapshots") {
		t.Errorf("the summary does not give the snapshots given up:\n%s", out)
	}
}

// TestCheck_memoryHint checks that a search stopped by the memory limit
// with the plain exact store suggests the stores that fit more states,
// and that one run with them does not.
func TestCheck_memoryHint(t *testing.T) {
	for _, c := range []struct {
		store string
		hint  bool
	}{{"--collapse=false", true}, {"--collapse", false}} {
		code, out, _ := runMain("check", "-D", "N=6", "--por", "none", "--continue", "--memory-limit", "1MiB", c.store, philoOK)
		if code != exitLimit {
			t.Fatalf("%s: exit %d, want %d (limit)", c.store, code, exitLimit)
		}
		if got := strings.Contains(out, "--collapse keeps the store exact"); got != c.hint {
			t.Errorf("%s: hint about the stores given: %v, want %v:\n%s", c.store, got, c.hint, out)
		}
	}
}

// TestCheck_memoryAccount checks the memory account in check --json for
// each store.
func TestCheck_memoryAccount(t *testing.T) {
	for _, flags := range [][]string{{"--collapse=false"}, {"--hash-compact"}, {"--bitstate", "20"}, {"--collapse"}, {"--collapse=false", "--search", "bfs"}} {
		args := append([]string{"check", "--json", "--continue", "--por", "none", "-D", "N=4"}, flags...)
		_, out, _ := runMain(append(args, philoOK)...)
		var r struct {
			States int64
			Memory struct {
				Store           string
				StoreBytes      int64   `json:"store_bytes"`
				TableSlots      int64   `json:"table_slots"`
				PeakRSS         int64   `json:"peak_rss_bytes"`
				PeakGo          int64   `json:"peak_go_bytes"`
				Stack           int64   `json:"stack_bytes"`
				MissProbability float64 `json:"miss_probability"`
				Pools           []struct {
					Kind       string
					Components int64
					Bytes      int64
				}
			}
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v: %v\n%s", flags, err, out)
		}
		m := r.Memory
		want := map[string]string{"--collapse=false": "exact", "--hash-compact": "hash-compact", "--bitstate": "bitstate", "--collapse": "collapse"}[flags[0]]
		exact := want == "exact" || want == "collapse"
		if m.Store != want || m.StoreBytes <= 0 || m.TableSlots <= 0 || m.PeakRSS <= 0 || m.PeakGo <= 0 ||
			m.MissProbability < 0 || exact != (m.MissProbability == 0) || r.States != 1023 ||
			(m.Stack > 0) != !slices.Contains(flags, "bfs") {
			t.Errorf("mcvm %s: states %d, memory %+v", strings.Join(args, " "), r.States, m)
		}
		if want == "collapse" {
			if len(m.Pools) != 3 || m.Pools[0].Kind != "statics" || m.Pools[1].Kind != "threads" || m.Pools[2].Kind != "objects" ||
				m.Pools[1].Components <= 0 || m.Pools[1].Bytes <= 0 || m.Pools[0].Components <= 0 {
				t.Errorf("mcvm %s: pools %+v", strings.Join(args, " "), m.Pools)
			}
		} else if len(m.Pools) != 0 {
			t.Errorf("mcvm %s: pools %+v for store %s", strings.Join(args, " "), m.Pools, want)
		}
	}
}

func TestCheck_continueCountsErrors(t *testing.T) {
	_, out, _ := runMain("check", "--json", "--continue", "-D", "N=3", philo)
	var r struct {
		Verdict string
		Errors  int
		States  int
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Verdict != "deadlock" || r.Errors < 1 {
		t.Errorf("--continue: verdict %q errors %d, want deadlock and >= 1", r.Verdict, r.Errors)
	}
}

func TestCheck_trailReplay(t *testing.T) {
	dir := t.TempDir()
	trail := filepath.Join(dir, "philo.trail")
	code, out, _ := runMain("check", "--trail", trail, "-D", "N=3", philo)
	if code != exitViolation || !strings.Contains(out, "trail written") {
		t.Fatalf("check --trail: exit %d\n%s", code, out)
	}
	code, out, stderr := runMain("replay", "-D", "N=3", trail, philo)
	if code != exitViolation || !strings.Contains(out, "verdict:     deadlock") {
		t.Errorf("replay: exit %d, out:\n%s\nerr: %s", code, out, stderr)
	}
	// The same trail against another program is refused up front.
	code, _, stderr = runMain("replay", "-D", "N=4", trail, philo)
	if code != exitUsage || !strings.Contains(stderr, "another program") {
		t.Errorf("replay with other -D: exit %d, stderr %q", code, stderr)
	}
	os.WriteFile(trail, []byte("mcvm-trail 1\nprogram zz\n"), 0o644)
	code, _, stderr = runMain("replay", "-D", "N=3", trail, philo)
	if code != exitUsage || !strings.Contains(stderr, ":2:1:") {
		t.Errorf("replay of a bad trail: exit %d, stderr %q", code, stderr)
	}
}

// TestTrail_cutShort: trails of check, run and improve record their
// verdict and length, so one cut short is reported as incomplete, with
// its recorded verdict, by replay, improve and check --target.
func TestTrail_cutShort(t *testing.T) {
	dir := t.TempDir()
	file := func(name string) string { return filepath.Join(dir, name) }
	writers := map[string][]string{
		"check":   {"check", "-D", "N=3", "--trail", file("check.trail"), philo},
		"run":     {"run", "-D", "N=3", "--seed", "3", "--trail", file("run.trail"), philo},
		"improve": {"improve", "-D", "N=3", "--out", file("improve.trail"), file("check.trail"), philo},
	}
	for _, w := range []string{"check", "run", "improve"} {
		if code, _, e := runMain(writers[w]...); code == exitUsage {
			t.Fatalf("%s: exit %d: %s", w, code, e)
		}
		data := string(readFile(t, file(w+".trail")))
		lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
		n := 0
		for _, l := range lines {
			if l != "" && l[0] >= '0' && l[0] <= '9' {
				n++
			}
		}
		if lines[1] != "# verdict deadlock" || lines[2] != fmt.Sprintf("# steps %d", n) || n < 2 {
			t.Fatalf("%s: trail without its verdict and %d steps:\n%s", w, n, data)
		}
		cut := strings.Join(lines[:len(lines)-1], "\n") + "\n"
		os.WriteFile(file("cut.trail"), []byte(cut), 0o644)
		for _, args := range [][]string{
			{"replay", "-D", "N=3", file("cut.trail"), philo},
			{"improve", "-D", "N=3", "--out", file("x.trail"), file("cut.trail"), philo},
			{"check", "-D", "N=3", "--search", "astar", "--heuristic", "hamming", "--target", file("cut.trail"), philo},
		} {
			want := fmt.Sprintf("is incomplete: its steps end after %d of the %d it records, before its error (recorded verdict: deadlock)", n-1, n)
			if code, _, e := runMain(args...); code != exitUsage || !strings.Contains(e, want) {
				t.Errorf("%s trail cut short: mcvm %s: exit %d, stderr %q; want %d and %q", w, args[0], code, e, exitUsage, want)
			}
		}
		// Its count changed to match: the replay ends before the error.
		os.WriteFile(file("cut.trail"), []byte(strings.Replace(cut, lines[2], fmt.Sprintf("# steps %d", n-1), 1)), 0o644)
		want := fmt.Sprintf("is incomplete: its %d steps end before its error (recorded verdict: deadlock)", n-1)
		if code, _, e := runMain("replay", "-D", "N=3", file("cut.trail"), philo); code != exitUsage || !strings.Contains(e, want) {
			t.Errorf("%s trail cut short, count changed: replay: exit %d, stderr %q; want %d and %q", w, code, e, exitUsage, want)
		}
	}
	// A replay that reaches another violation than recorded says so.
	os.WriteFile(file("other.trail"), bytes.Replace(readFile(t, file("check.trail")), []byte("# verdict deadlock"), []byte("# verdict assertion"), 1), 0o644)
	if code, out, e := runMain("replay", "-D", "N=3", file("other.trail"), philo); code != exitViolation || !strings.Contains(out, "warning:     the trail records the verdict assertion") {
		t.Errorf("replay of a trail recording another verdict: exit %d, %s%s", code, out, e)
	}
	// A trail that records nothing (written by hand) replays as far as it goes.
	os.WriteFile(file("hand.trail"), []byte("mcvm-trail 1\n"+strings.Join(strings.Split(string(readFile(t, file("check.trail"))), "\n")[3:5], "\n")+"\n0 0\n"), 0o644)
	if code, out, e := runMain("replay", "-D", "N=3", file("hand.trail"), philo); code != exitOK || !strings.Contains(out, "verdict:     ok") {
		t.Errorf("replay of a hand-written schedule: exit %d, %s%s", code, out, e)
	}
	for _, tc := range []struct{ record, want string }{
		{"# steps x\n", "bad.trail:2:1: want"},
		{"# verdict ok\n# steps 1\n", "bad.trail:2:1: want"},
		{"# verdict deadlock\n# verdict deadlock\n# steps 1\n", "bad.trail:3:1: want"},
		{"# steps 1\n", "not both"},
	} {
		os.WriteFile(file("bad.trail"), []byte("mcvm-trail 1\n"+tc.record+"program 00\ngranularity transition\n0 0\n"), 0o644)
		if code, _, e := runMain("replay", "-D", "N=3", file("bad.trail"), philo); code != exitUsage || !strings.Contains(e, tc.want) {
			t.Errorf("replay with %q: exit %d, stderr %q; want %d and %q", tc.record, code, e, exitUsage, tc.want)
		}
	}
}

func TestAsmDisasmRun(t *testing.T) {
	dir := t.TempDir()
	mcb := filepath.Join(dir, "philo.mcb")
	if code, _, stderr := runMain("asm", "-D", "N=3", "-o", mcb, philoOK); code != exitOK {
		t.Fatalf("asm: exit %d: %s", code, stderr)
	}
	code, out, _ := runMain("check", "--json", mcb)
	if code != exitOK || !strings.Contains(out, `"verdict":"ok"`) {
		t.Errorf("check of .mcb: exit %d\n%s", code, out)
	}
	if code, _, _ := runMain("check", "-D", "N=3", mcb); code != exitUsage {
		t.Errorf("-D with .mcb: exit %d, want %d", code, exitUsage)
	}
	code, out, _ = runMain("disasm", mcb)
	if code != exitOK || !strings.Contains(out, "newthread Philosopher.run") {
		t.Errorf("disasm: exit %d\n%s", code, out)
	}
	bad := filepath.Join(dir, "bad.mcb")
	os.WriteFile(bad, []byte("not bytecode"), 0o644)
	if code, _, stderr := runMain("check", bad); code != exitUsage || !strings.Contains(stderr, "magic") {
		t.Errorf("check of a bad .mcb: exit %d, stderr %q", code, stderr)
	}
	// run: philo deadlocks under round-robin scheduling quickly or runs
	// until --max-steps; philo_ok never ends.
	if code, _, _ := runMain("run", "--max-steps", "1000", "-D", "N=3", philoOK); code != exitLimit {
		t.Errorf("run philo_ok: exit %d, want %d", code, exitLimit)
	}
}

// asm replaces an existing output only if it is bytecode: -o naming the
// source (or any other file) is refused and leaves the file as it was.
func TestAsm_overwrite(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "x.mcasm")
	text := readFile(t, philoOK)
	os.WriteFile(src, text, 0o644)
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("keep me\n"), 0o644)
	for _, out := range []string{src, notes} {
		before := readFile(t, out)
		code, _, stderr := runMain("asm", "-D", "N=3", "-o", out, src)
		if code != exitUsage || !strings.Contains(stderr, "not .mcb bytecode") {
			t.Errorf("asm -o %s: exit %d, stderr %q; want %d and \"not .mcb bytecode\"", out, code, stderr, exitUsage)
		}
		if !bytes.Equal(readFile(t, out), before) {
			t.Errorf("asm -o %s changed the file", out)
		}
	}
	// A new file of any name, and bytecode again over bytecode.
	for _, out := range []string{filepath.Join(dir, "x.bin"), filepath.Join(dir, "x.bin"), filepath.Join(dir, "x.mcb"), filepath.Join(dir, "x.mcb")} {
		if code, _, stderr := runMain("asm", "-D", "N=3", "-o", out, src); code != exitOK {
			t.Errorf("asm -o %s: exit %d, stderr %q", out, code, stderr)
		}
	}
	if code, _, stderr := runMain("asm", "-D", "N=3", src); code != exitOK {
		t.Errorf("asm over its own earlier output: exit %d, stderr %q", code, stderr)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if want := []string{"notes.txt", "x.bin", "x.mcasm", "x.mcb"}; !slices.Equal(names, want) {
		t.Errorf("files after asm: %v, want %v", names, want)
	}
}

// replaceFile leaves the whole new file or, when it fails, nothing new.
func TestReplaceFile(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	for _, data := range []string{"first", "second, longer"} {
		if err := replaceFile(f, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if got := string(readFile(t, f)); got != data {
			t.Errorf("after replaceFile(%q) the file holds %q", data, got)
		}
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "x"), nil, 0o644)
	if err := replaceFile(sub, []byte("x")); err == nil {
		t.Errorf("replaceFile over a directory succeeded")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("%d files after replaceFile, want 2 (no temporary file left)", len(ents))
	}
}

func TestRun_print(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "hello.mcasm")
	os.WriteFile(src, []byte(`.class Main
.method static main()
    print "x = "
    push 6
    push 7
    mul
    printi
    print "\n"
    return
.end
`), 0o644)
	code, out, stderr := runMain("run", src)
	if code != exitOK || out != "x = 42\n" {
		t.Errorf("run: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

// TestMain lets the test binary act as mcvm when mcvm bench runs it as a
// child process (bench runs its own executable).
func TestMain(m *testing.M) {
	if os.Getenv("MCVM_TEST_AS_MAIN") == "1" {
		if ready := os.Getenv("MCVM_TEST_READY"); ready != "" {
			// Tell the test that signals are caught from now on.
			interruptReady = func() {
				f, err := os.OpenFile(ready, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
				if err == nil {
					f.WriteString("ready\n")
					f.Close()
				}
			}
		}
		os.Exit(mainArgs(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestBench(t *testing.T) {
	t.Setenv("MCVM_TEST_AS_MAIN", "1")
	code, out, stderr := runMain("bench", "--dir", "../../benchmarks/models", "--models", "philo,philo_ok", "--small", "--por", "none,all",
		"--format", "json", "--compare", "--published", "../../benchmarks/jpf-published.json",
		"--jpf-log", "philo=../../internal/jpfreport/testdata/DiningPhil-3-first-error.log")
	if code != exitOK {
		t.Fatalf("bench: exit %d: %s", code, stderr)
	}
	var r struct {
		Rows []struct {
			Model       string
			Verdict     string
			States      int64
			Transitions int64
			Reduction   float64
			JPF         *struct {
				StatesNew int64 `json:"states_new"`
			} `json:"jpf_log"`
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("bench output is not JSON: %v\n%s", err, out)
	}
	// Rows: philo none, philo all, philo_ok none, philo_ok all. The
	// unreduced counts are derived in the models' headers.
	if len(r.Rows) != 4 || r.Rows[0].Model != "philo" || r.Rows[0].Verdict != "deadlock" || r.Rows[0].States != 262 ||
		r.Rows[2].States != 232 || r.Rows[0].JPF == nil || r.Rows[0].JPF.StatesNew != 85 ||
		r.Rows[1].Verdict != "deadlock" || r.Rows[1].States >= 262 || r.Rows[1].Reduction <= 1 || r.Rows[3].States >= 232 {
		t.Errorf("bench rows = %+v", r.Rows)
	}
	code, out, _ = runMain("bench", "--dir", "../../benchmarks/models", "--models", "philo", "--set", "N=2", "--format", "markdown")
	if code != exitOK || !strings.Contains(out, "| philo | N=2 | --set | all | deadlock |") {
		t.Errorf("bench --set N=2 --format markdown: exit %d\n%s", code, out)
	}
	// --large: philo's LARGE configuration is its defaults.
	code, out, _ = runMain("bench", "--dir", "../../benchmarks/models", "--models", "philo,philo_ok", "--large", "--format", "markdown")
	if code != exitOK || !strings.Contains(out, "| philo | N=5 | thesis | all | deadlock | 33 |") || !strings.Contains(out, "| philo_ok | N=5 | thesis | all | ok | 24 |") {
		t.Errorf("bench --large: exit %d\n%s", code, out)
	}
	// --symmetry where the model allows it: philo at N=5 stores 9 states
	// with it (33 without); the tid conformance program would be refused.
	code, out, _ = runMain("bench", "--dir", "../../benchmarks/models", "--models", "philo", "--large", "--symmetry", "--format", "markdown")
	if code != exitOK || !strings.Contains(out, "| philo | N=5 | thesis | all+symmetry | deadlock | 9 |") {
		t.Errorf("bench --symmetry: exit %d\n%s", code, out)
	}
	// --gc: the rows name a collector other than the default.
	code, out, _ = runMain("bench", "--dir", "../../benchmarks/models", "--models", "philo", "--large", "--gc", "memoised", "--format", "markdown")
	if code != exitOK || !strings.Contains(out, "| philo | N=5 | thesis | all gc=memoised | deadlock | 33 |") {
		t.Errorf("bench --gc: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{
		{"bench", "--dir", "../../benchmarks/models", "--models", "philo", "--gc", "copying"},
		{"bench", "--dir", "../../benchmarks/models", "--small", "--large"},
		{"bench", "--dir", "../../benchmarks/models", "--models", "philo", "--symmetry", "--por", "dpor"},
		{"bench", "--dir", "../../benchmarks/models", "--models", "nosuch"},
		{"bench", "--dir", "../../benchmarks/models", "--models", "philo", "--set", "NOPE=1"},
		{"bench", "--dir", "../../benchmarks/models", "--format", "xml"},
		{"bench", "--dir", "../../benchmarks/models", "--jpf-log", "philo=../../README.md"},
	} {
		if code, _, _ := runMain(args...); code != exitUsage {
			t.Errorf("mcvm %s: exit %d, want %d", strings.Join(args, " "), code, exitUsage)
		}
	}
}

// Outside the repository bench finds no models: it says so and fails
// rather than print an empty table.
func TestBench_noModels(t *testing.T) {
	code, out, stderr := runMain("bench", "--small", "--dir", t.TempDir())
	if code != exitUsage || out != "" || !strings.Contains(stderr, "no models") {
		t.Errorf("bench in an empty directory: exit %d, stdout %q, stderr %q; want %d and \"no models\"", code, out, stderr, exitUsage)
	}
}

func TestJPFReport(t *testing.T) {
	code, out, _ := runMain("jpf-report", "--json", "../../internal/jpfreport/testdata/DiningPhil-6-multiple-errors.log")
	var r map[string]any
	if code != exitOK || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("jpf-report --json: exit %d\n%s", code, out)
	}
	for k, want := range map[string]float64{"states_new": 385128, "states_visited": 1538105, "states_backtracked": 1923233,
		"states_end": 68, "max_depth": 48, "instructions": 29798894, "max_memory_mb": 382, "elapsed_s": 200, "errors": 13} {
		if r[k] != want {
			t.Errorf("jpf-report %s = %v, want %v", k, r[k], want)
		}
	}
	if code, _, stderr := runMain("jpf-report", "../../README.md"); code != exitUsage || !strings.Contains(stderr, "not a JPF report") {
		t.Errorf("jpf-report of a non-report: exit %d, stderr %q", code, stderr)
	}
}

// TestCheck_collapseText checks check's text report of the collapse store:
// the store line names it and a pools line gives each pool's size.
func TestCheck_collapseText(t *testing.T) {
	_, out, _ := runMain("check", "--stats", "--continue", "--por", "none", "-D", "N=4", "--collapse", philoOK)
	for _, re := range []string{`(?m)^store: +collapse, [0-9.]+ MiB: table \d+ slots \([0-9.]+ MiB\), index vectors [0-9.]+ MiB, index [0-9.]+ MiB$`,
		`(?m)^pools: +statics \d+ \([0-9.]+ MiB\), threads \d+ \([0-9.]+ MiB\), objects \d+ \([0-9.]+ MiB\)$`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("check --collapse output does not match %s:\n%s", re, out)
		}
	}
}

// TestCheck_deadLocals: --dead-locals stores fewer states on MolDyn
// (locals dead after their last read, and objects they alone reached no
// longer shared), with the same verdict, says so in the summary and the
// JSON, and writes a trail (of the raytracer's assertion) that replays
// with it.
func TestCheck_deadLocals(t *testing.T) {
	md := "../../benchmarks/models/moldyn.mcasm"
	plain := checkJSON(t, md, "-D", "THREADS=2", "-D", "SIZE=1", "-D", "MOVES=2")
	dead := checkJSON(t, md, "-D", "THREADS=2", "-D", "SIZE=1", "-D", "MOVES=2", "--dead-locals")
	if dead["dead_locals"] != true || plain["dead_locals"] != nil {
		t.Errorf("dead_locals: %v with the flag, %v without", dead["dead_locals"], plain["dead_locals"])
	}
	if dead["verdict"] != plain["verdict"] || dead["states"].(float64) >= plain["states"].(float64) {
		t.Errorf("--dead-locals: %v with %v states, without: %v with %v", dead["verdict"], dead["states"], plain["verdict"], plain["states"])
	}
	rt := "../../benchmarks/models/raytracer.mcasm"
	small := []string{"-D", "THREADS=2", "-D", "SIZE=1", "-D", "GRID=1", "-D", "LIGHTS=1", "-D", "MAXLEVEL=0"}
	trail := filepath.Join(t.TempDir(), "rt.trail")
	code, out, _ := runMain(append(append([]string{"check", "--stats", "--dead-locals", "--trail", trail}, small...), rt)...)
	if code != exitViolation || !strings.Contains(out, "dead locals: zeroed after every transition") {
		t.Errorf("check --dead-locals: exit %d\n%s", code, out)
	}
	if code, out, errs := runMain(append(append([]string{"replay"}, small...), trail, rt)...); code != exitViolation || !strings.Contains(out, "verdict:     assertion") {
		t.Errorf("replay of a --dead-locals trail: exit %d\n%s%s", code, out, errs)
	}
}

// TestCPUProfile checks that --cpuprofile writes a profile (gzipped
// protobuf) for check, verify and certify, and that a file it cannot
// create is a usage error, not a run without a profile.
func TestCPUProfile(t *testing.T) {
	if err := pprof.StartCPUProfile(io.Discard); err != nil {
		t.Skip("the test binary is profiling already (go test -cpuprofile)")
	}
	pprof.StopCPUProfile()
	dir := t.TempDir()
	script := filepath.Join(dir, "s.scc")
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"check", []string{"check", "-D", "N=3", "--continue", philoOK}, exitOK},
		{"verify", []string{"verify", "--continue", "--script", script, "-D", "N=3", philoOK}, exitOK},
		{"certify", []string{"certify", "--continue", "--script", script, "-D", "N=3", philoOK}, exitOK},
	} {
		prof := filepath.Join(dir, tc.name+".prof")
		code, _, stderr := runMain(append([]string{tc.args[0], "--cpuprofile", prof}, tc.args[1:]...)...)
		if code != tc.code {
			t.Fatalf("%s --cpuprofile: exit %d, want %d; stderr:\n%s", tc.name, code, tc.code, stderr)
		}
		b, err := os.ReadFile(prof)
		if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("%s --cpuprofile wrote %d bytes (%v), want a gzipped profile", tc.name, len(b), err)
		}
	}
	code, _, stderr := runMain("check", "--cpuprofile", filepath.Join(dir, "no", "such", "dir", "p.prof"), philoOK)
	if code != exitUsage || !strings.Contains(stderr, "--cpuprofile") {
		t.Errorf("check --cpuprofile into a missing directory: exit %d, stderr %q; want %d naming the flag", code, stderr, exitUsage)
	}
}

// TestBench_plot: bench --plot draws with mcvm-plot found on PATH and
// writes its SVG whole; without mcvm-plot it is an error that says how to
// build it.
func TestBench_plot(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	rows := []bench.Row{{Model: "philo", POR: "all", Verdict: "deadlock", States: 100, TimeS: 2,
		Published: []bench.PublishedFigure{{Source: "a", States: f(300), TimeS: f(4)}}}}
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	out := filepath.Join(dir, "suite.svg")
	if err := writePlotFile(out, rows); err == nil || !strings.Contains(err.Error(), "go build -o DIR/mcvm-plot") {
		t.Errorf("--plot without mcvm-plot = %v", err)
	}
	build := exec.Command(goTool(t), "build", "-o", filepath.Join(dir, "mcvm-plot"), "mcvm/cmd/mcvm-plot")
	if msg, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build mcvm-plot: %v\n%s", err, msg)
	}
	if err := writePlotFile(out, rows); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(out)
	if err != nil || !bytes.Contains(svg, []byte("</svg>")) || !bytes.Contains(svg, []byte("philo")) {
		t.Errorf("the plot file: %v, %.200q", err, svg)
	}
}

// goTool is the go command of the toolchain running the test.
func goTool(t *testing.T) string {
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no go command at %s", p)
	}
	return p
}
