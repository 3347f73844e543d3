// Partial scripts: a search cut off by a limit records the part it explored and its coverage estimate.

package scc_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"mcvm/explorer"
	"mcvm/por"
	"mcvm/scc"
	"mcvm/vm"
)

// partialCase is a verification a limit cuts off.
type partialCase struct {
	name     string
	n        int64 // philosophers
	red      *reduction
	sym      bool
	trustful bool
	max      int // MaxStates
	est      explorer.Estimator
}

var partialCases = []partialCase{
	{name: "por=none/n=4", n: 4, max: 300, est: explorer.EstimatorWalk},
	{name: "por=none/n=4/trustful", n: 4, max: 300, trustful: true, est: explorer.EstimatorWalk},
	{name: "por=none/n=4/symmetry", n: 4, sym: true, max: 100, est: explorer.EstimatorWalk},
	{name: "por=all+chain/n=6", n: 6, red: &reduction{por.All, "all/stack", true}, max: 20, est: explorer.EstimatorWalk},
	{name: "por=ample/n=6", n: 6, red: &reduction{por.Ample, "ample/stack", false}, max: 40, est: explorer.EstimatorWalk},
	{name: "por=none/n=4/coverage=off", n: 4, max: 300, est: explorer.EstimatorOff},
}

// run verifies c's model with its limit and returns the verification's
// result, its script and a certification's options and machine.
func (c partialCase) run(t *testing.T) (*explorer.Result, *scc.Script, *vm.Machine, scc.Options) {
	t.Helper()
	p := assemble(t, modelsDir+"/philo_ok.mcasm", map[string]int64{"N": c.n})
	opts := explorer.Options{MaxStates: c.max, Coverage: c.est, CoverageSeed: 7, Symmetry: c.sym}
	name, co := "none", scc.Options{Symmetry: c.sym}
	mk := func() *vm.Machine { return machine(t, p, vm.GranTransition) }
	if r := c.red; r != nil {
		opts.Reducer, opts.Proviso, opts.Chain = por.New(p, r.mode), explorer.ProvisoStack, r.chain
		name, co = r.name, r.options(p, co)
		mk = func() *vm.Machine { return r.machine(t, p, vm.GranTransition) }
	}
	res, s, err := scc.Verify(mk(), opts, c.trustful, name)
	if err != nil {
		t.Fatalf("Verify = %v", err)
	}
	return res, s, mk(), co
}

// TestPartial_certify: a search cut off by MaxStates writes a script of
// the part it explored, with the flag limit and (with an estimator) its
// coverage estimate; the script reads back the same and certifies with
// verdict limit, the verification's figures, and the same estimate
// computed again from the certified states, exactly.
func TestPartial_certify(t *testing.T) {
	for _, c := range partialCases {
		t.Run(c.name, func(t *testing.T) {
			res, s, m, co := c.run(t)
			if res.Limit != "states" || !s.Limited() || s.Complete() || s.Verdict != "limit" {
				t.Fatalf("Verify = limit %q, script limited %v, complete %v, verdict %q; want states, true, false, limit", res.Limit, s.Limited(), s.Complete(), s.Verdict)
			}
			if got, want := s.HasCoverage(), c.est != explorer.EstimatorOff; got != want || (res.Coverage != nil) != want {
				t.Fatalf("header has coverage %v, search estimated %v; want %v", got, res.Coverage != nil, want)
			}
			data := scc.Encode(s)
			r, err := scc.Read(data)
			if err != nil {
				t.Fatalf("Read = %v", err)
			}
			if r.Header != s.Header {
				t.Errorf("Read header = %+v, want %+v", r.Header, s.Header)
			}
			got, err := scc.Certify(m, r, co)
			if err != nil {
				t.Fatalf("Certify = %v", err)
			}
			if got.Verdict != explorer.VerdictLimit || got.Limit != scc.LimitScript {
				t.Errorf("Certify = verdict %v, limit %q; want limit, %q", got.Verdict, got.Limit, scc.LimitScript)
			}
			if !c.trustful && (got.Stats.States != res.Stats.States || got.Stats.Transitions != res.Stats.Transitions) {
				t.Errorf("Certify = %d states, %d transitions; verification had %d and %d", got.Stats.States, got.Stats.Transitions, res.Stats.States, res.Stats.Transitions)
			}
			if c.est == explorer.EstimatorOff {
				if got.Coverage != nil {
					t.Errorf("Certify estimated %+v from a script without an estimate", *got.Coverage)
				}
				return
			}
			if got.Coverage == nil {
				t.Fatalf("Certify estimated nothing, want %+v", *res.Coverage)
			}
			if *got.Coverage != *res.Coverage {
				t.Errorf("Certify estimate = %+v, want the verification's %+v", *got.Coverage, *res.Coverage)
			}
			if !r.Coverage.Same(got.Coverage) {
				t.Errorf("header's estimate %+v is not the same as the certifier's %+v", r.Coverage, *got.Coverage)
			}
			if sh := got.Coverage.Share; sh <= 0 || sh >= 1 {
				t.Errorf("share %v of a search cut off at %d states, want in (0, 1)", sh, c.max)
			}
		})
	}
}

// TestPartial_refused: a partial script cannot be partitioned; verify
// refuses an estimator the certifier cannot compute again, and the
// estimate of a search with a cache (the cache's states are not the
// script's), which it writes without an estimate.
func TestPartial_refused(t *testing.T) {
	_, s, _, _ := partialCases[0].run(t)
	if _, err := scc.Split(s, 2); err == nil || !strings.Contains(err.Error(), "certify it whole") {
		t.Errorf("Split(partial script) = %v, want a refusal", err)
	}
	p := assemble(t, modelsDir+"/philo_ok.mcasm", map[string]int64{"N": 3})
	for _, est := range []explorer.Estimator{explorer.EstimatorChao, explorer.EstimatorThesis} {
		if est.Stored() {
			continue
		}
		_, _, err := scc.Verify(machine(t, p, vm.GranTransition), explorer.Options{MaxStates: 10, Coverage: est}, false, "none")
		if err == nil || !strings.Contains(err.Error(), "--coverage "+est.String()) {
			t.Errorf("Verify with --coverage %s = %v, want a refusal naming it", est, err)
		}
	}
	_, _, err := scc.Verify(machine(t, p, vm.GranTransition), explorer.Options{MaxDepth: 3}, false, "none")
	if !errors.Is(err, scc.ErrIncomplete) {
		t.Errorf("Verify with MaxDepth 3 = %v, want ErrIncomplete", err)
	}
	p4 := assemble(t, modelsDir+"/philo_ok.mcasm", map[string]int64{"N": 4})
	for _, est := range []explorer.Estimator{explorer.EstimatorWalk, explorer.EstimatorOff} {
		opts := explorer.Options{MaxStates: 300, Coverage: est, Cache: &explorer.Cache{States: 100, Policy: explorer.PolicyCost}}
		res, s, err := scc.Verify(machine(t, p4, vm.GranTransition), opts, false, "none")
		if res.Limit != "states" {
			t.Fatalf("cache, coverage %s: limit %q, want states", est, res.Limit)
		}
		if est != explorer.EstimatorOff {
			if !errors.Is(err, scc.ErrIncomplete) || !strings.Contains(err.Error(), "--coverage off") {
				t.Errorf("cache, coverage %s: Verify = %v, want ErrIncomplete suggesting --coverage off", est, err)
			}
			continue
		}
		if err != nil || !s.Limited() || s.HasCoverage() {
			t.Fatalf("cache, coverage off: Verify = %v; want a partial script without an estimate", err)
		}
		c, err := scc.Certify(machine(t, p4, vm.GranTransition), s, scc.Options{})
		if err != nil {
			t.Fatalf("cache, coverage off: Certify = %v", err)
		}
		if c.Verdict != explorer.VerdictLimit || c.Stats.States != s.States || c.Coverage != nil {
			t.Errorf("cache, coverage off: Certify = verdict %v, %d states (header %d), estimate %v; want limit, the header's, none", c.Verdict, c.Stats.States, s.States, c.Coverage)
		}
	}
}

// TestPartial_completeUnchanged: the flags limit and coverage leave
// scripts of complete searches as they were: the same bytes with and
// without an estimator asked for, and the header's flags and figures
// unchanged.
func TestPartial_completeUnchanged(t *testing.T) {
	p := assemble(t, modelsDir+"/philo_ok.mcasm", map[string]int64{"N": 3})
	var scripts [][]byte
	for _, est := range []explorer.Estimator{explorer.EstimatorOff, explorer.EstimatorWalk} {
		res, s, err := scc.Verify(machine(t, p, vm.GranTransition), explorer.Options{Coverage: est, MaxStates: 1 << 20}, false, "none")
		if err != nil {
			t.Fatal(err)
		}
		if s.Limited() || s.HasCoverage() || res.Coverage != nil || s.Coverage != (scc.Coverage{}) {
			t.Errorf("coverage %s: complete search's script limited %v, coverage %v %+v", est, s.Limited(), s.HasCoverage(), s.Coverage)
		}
		scripts = append(scripts, scc.Encode(s))
	}
	if !bytes.Equal(scripts[0], scripts[1]) {
		t.Errorf("a complete search's script differs with --coverage walk")
	}
}

// TestPartial_badHeader: a header whose estimate is out of range or not a
// number, or whose flags contradict each other, is refused with a clear
// error, never a panic.
func TestPartial_badHeader(t *testing.T) {
	_, s, _, _ := partialCases[0].run(t)
	tests := []struct {
		name string
		edit func(h *scc.Header)
		want string
	}{
		{"share=NaN", func(h *scc.Header) { h.Coverage.Share = math.NaN() }, "coverage share NaN"},
		{"share=1.5", func(h *scc.Header) { h.Coverage.Share = 1.5 }, "coverage share 1.5"},
		{"low=-0.1", func(h *scc.Header) { h.Coverage.Low = -0.1 }, "coverage low -0.1"},
		{"high=+Inf", func(h *scc.Header) { h.Coverage.High = math.Inf(1) }, "coverage high +Inf"},
		{"total=NaN", func(h *scc.Header) { h.Coverage.Total = math.NaN() }, "estimated total NaN"},
		{"total=-1", func(h *scc.Header) { h.Coverage.Total = -1 }, "estimated total -1"},
		{"total<visited", func(h *scc.Header) { h.Coverage.Total = float64(h.Coverage.Visited) - 1 }, "at least the"},
		{"total=+Inf", func(h *scc.Header) { h.Coverage.Total = math.Inf(1) }, "estimated total +Inf"},
		{"budget=2^40-1", func(h *scc.Header) { h.Coverage.Budget = 1<<40 - 1 }, "sample budget 1099511627775"},
		{"estimator=off", func(h *scc.Header) { h.Coverage.Estimator = "off" }, `unknown coverage estimator "off"`},
		{"estimator=guess", func(h *scc.Header) { h.Coverage.Estimator = "guess" }, `unknown coverage estimator "guess"`},
		{"coverage without limit", func(h *scc.Header) { h.Flags &^= scc.FlagLimit }, "no limit cut its search off"},
		{"limit and complete", func(h *scc.Header) { h.Flags |= scc.FlagComplete }, "complete or a task"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := *s
			tt.edit(&bad.Header)
			_, err := scc.Read(scc.Encode(&bad))
			var d *scc.Discrepancy
			if err == nil || !errors.As(err, &d) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Read = %v, want a discrepancy containing %q", err, tt.want)
			}
		})
	}
}

// TestPartial_tampered: changing the header's estimate is caught by the
// checksum; with the checksum made right again (a producer that lies),
// the file reads, and the certifier's estimate is not the same as the
// header's.
func TestPartial_tampered(t *testing.T) {
	res, s, m, co := partialCases[0].run(t)
	data := scc.Encode(s)
	want := make([]byte, 8)
	bits := math.Float64bits(res.Coverage.Share)
	for i := range want {
		want[i] = byte(bits >> (8 * i))
	}
	at := bytes.Index(data, want)
	if at < 0 {
		t.Fatal("the share's bytes are not in the header")
	}
	lie := append([]byte(nil), data...)
	copy(lie[at:], []byte{0, 0, 0, 0, 0, 0, 0xe0, 0x3f}) // 0.5
	if _, err := scc.Read(lie); err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Fatalf("Read(estimate changed) = %v, want a checksum mismatch", err)
	}
	r, err := scc.Read(scc.Reseal(lie))
	if err != nil {
		t.Fatalf("Read(estimate changed, resealed) = %v", err)
	}
	if r.Coverage.Share != 0.5 {
		t.Fatalf("resealed share = %v, want 0.5", r.Coverage.Share)
	}
	got, err := scc.Certify(m, r, co)
	if err != nil || got.Coverage == nil {
		t.Fatalf("Certify = %v, estimate %v", err, got.Coverage)
	}
	if r.Coverage.Same(got.Coverage) {
		t.Errorf("the certifier's estimate %+v is the same as the lying header's %+v", *got.Coverage, r.Coverage)
	}
	if *got.Coverage != *res.Coverage {
		t.Errorf("Certify estimate = %+v, want the verification's %+v", *got.Coverage, *res.Coverage)
	}
}
