package scc_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"mcvm/asm"
	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/internal/progen"
	"mcvm/por"
	"mcvm/scc"
	"mcvm/vm"
)

// TestVerify_cache checks that a search with a state cache writes the
// script the search without one writes, byte for byte (so certify takes
// it as it takes that one), whatever the cache's size and policy: on the
// conformance programs and generated ones, unreduced and with the
// default reduction (without chains), complete and to the first error,
// tamper-proof and trustful. With the reduction a state explored again
// may reach a state not reached before, and verify refuses to write the
// script; unreduced it never may.
func TestVerify_cache(t *testing.T) {
	progs := scriptPrograms(t)
	n := 8
	if testing.Short() {
		n = 3
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		for gi, gen := range []func(uint64) string{progen.Generate, progen.GeneratePOR} {
			p, err := asm.Assemble("gen.mcasm", []byte(gen(seed)), asm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			progs = append(progs, scriptProg{fmt.Sprintf("gen%d/%d", gi, seed), p, false})
		}
	}
	refused, repeated := 0, 0
	for _, sp := range progs {
		if sp.model {
			continue // (the conformance and generated programs are enough, and quick)
		}
		for _, mode := range []por.Mode{por.None, por.All} {
			for _, cont := range []bool{true, false} {
				trustful := !cont
				want, res := cacheVerify(t, sp.p, mode, cont, trustful, nil)
				if want == nil {
					t.Fatalf("%s: verify without a cache failed", sp.name)
				}
				for _, size := range []int{int(res.Stats.States) / 2, 3 * int(res.Stats.States) / 4} {
					for _, pol := range []explorer.CachePolicy{explorer.PolicyCost, explorer.PolicyRandom, explorer.PolicyAge} {
						name := fmt.Sprintf("%s/por=%s/continue=%v/cache=%d/%s", sp.name, mode, cont, size, pol)
						c := &explorer.Cache{States: max(size, 1), Policy: pol, Seed: 3}
						got, cres := cacheVerify(t, sp.p, mode, cont, trustful, c)
						if cres.Limit != "" {
							continue // (a small cache can repeat exponentially much)
						}
						if cres.Stats.Transitions > res.Stats.Transitions {
							repeated++
						}
						switch {
						case got == nil && mode != por.None:
							refused++
						case got == nil:
							t.Errorf("%s: verify refused the unreduced cached search's script", name)
						case !bytes.Equal(got, want):
							t.Errorf("%s: the script differs from the search's without a cache", name)
						}
					}
				}
			}
		}
	}
	if repeated == 0 {
		t.Error("no cached search explored anything again: the test tests nothing")
	}
	t.Logf("%d cached searches explored states again; %d reduced ones refused", repeated, refused)
}

// cacheVerify verifies p and returns the encoded script (nil if verify
// refused it) and the search's result.
func cacheVerify(t *testing.T, p *bytecode.Program, mode por.Mode, cont, trustful bool, c *explorer.Cache) ([]byte, *explorer.Result) {
	t.Helper()
	m, err := vm.New(p, mode.VMOptions(vm.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	opts := explorer.Options{Continue: cont, Cache: c}
	if c != nil {
		opts.MaxStates = 200_000
	}
	name := "none"
	if mode != por.None {
		opts.Reducer, opts.Proviso, name = por.New(p, mode), explorer.ProvisoStack, mode.String()+"/stack"
	}
	res, s, err := scc.Verify(m, opts, trustful, name)
	if errors.Is(err, scc.ErrIncomplete) && c != nil {
		return nil, res
	}
	if err != nil {
		if c != nil && mode != por.None && strings.Contains(err.Error(), "explored again reached a state") {
			return nil, res
		}
		t.Fatalf("verify: %v", err)
	}
	return scc.Encode(s), res
}
