package vm

import (
	"math/rand/v2"
	"slices"
	"testing"

	"mcvm/heap"
)

// checkUndoChains checks reverse deltas on their own: chains of random
// states of random lengths (shrinking and growing, as Decode and
// allocation make them), each saved as a delta against the shadow by
// diff, must come back exactly when undo undoes the deltas from the
// newest, also after the shadow's spare capacity was overwritten by deeper
// states.
func checkUndoChains[T comparable](t *testing.T, rng *rand.Rand, value func() T,
	diff func(act, sh []T, ent []int64) ([]int64, []T), undo func(sh []T, n int, ent []int64) []T) {
	t.Helper()
	type delta struct {
		n   int
		ent []int64
	}
	for round := 0; round < 200; round++ {
		var shadow []T
		var states [][]T
		var deltas []delta
		for step := 0; step < 40; step++ {
			if len(states) > 0 && rng.IntN(3) == 0 {
				// Undo back to a random earlier state and check it.
				k := rng.IntN(len(states))
				for len(deltas) > k+1 {
					d := deltas[len(deltas)-1]
					shadow = undo(shadow, d.n, d.ent)
					deltas, states = deltas[:len(deltas)-1], states[:len(states)-1]
				}
				if !slices.Equal(shadow, states[k]) {
					t.Fatalf("round %d step %d: undo to state %d gives %v, want %v", round, step, k, shadow, states[k])
				}
				continue
			}
			st := make([]T, rng.IntN(12))
			for i := range st {
				st[i] = value()
			}
			d := delta{n: len(shadow)}
			d.ent, shadow = diff(st, shadow, nil)
			if !slices.Equal(shadow, st) {
				t.Fatalf("round %d step %d: the shadow is %v after the diff, want %v", round, step, shadow, st)
			}
			deltas, states = append(deltas, d), append(states, st)
		}
	}
}

// TestUndo_roundTrip checks diffInts and undoInts (slots and statics).
func TestUndo_roundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	checkUndoChains(t, rng, func() int64 { return int64(rng.IntN(4)) }, diffInts, undoInts)
}

// TestUndo_roundTripObjs checks diffObjs and undoObjs, which diff and
// restore object headers as words.
func TestUndo_roundTripObjs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	checkUndoChains(t, rng, func() heap.Object {
		return heap.Object{Class: int32(rng.IntN(3)), Kind: heap.ObjKind(rng.IntN(3)), Owner: int32(rng.IntN(2)),
			Count: int32(rng.IntN(2)), Off: int32(rng.IntN(3)), Len: int32(rng.IntN(3))}
	}, diffObjs, undoObjs)
}
