package explorer

import (
	"testing"
	"time"

	"mcvm/asm"
	"mcvm/vm"
)

// TestLookahead_listeners checks that only a listener of transitions
// turns the lookahead off: the progress line, say, leaves it on.
func TestLookahead_listeners(t *testing.T) {
	if !havePrefetch {
		t.Skip("no prefetch instruction on this architecture: no lookahead")
	}
	p, err := asm.AssembleFile("../benchmarks/models/philo.mcasm", asm.Options{Defines: map[string]int64{"N": 3}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := vm.New(p, vm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ls    []Listener
		ahead bool
	}{
		{nil, true},
		{[]Listener{Funcs{OnProgress: func(Stats) {}}, Funcs{OnState: func(int32, uint64) {}}}, true},
		{[]Listener{Funcs{OnProgress: func(Stats) {}}, Funcs{OnTransition: func(int32, vm.Trans, int32, int32, int32, bool) {}}}, false},
		{[]Listener{NoListener{}}, false},
	} {
		s := newSearch(m, Options{Storage: StorageHashCompact, Listeners: c.ls}, time.Now(), false)
		if got := s.pf != nil; got != c.ahead {
			t.Errorf("listeners %v: looks ahead %v, want %v", c.ls, got, c.ahead)
		}
	}
}
