package vm

import (
	"math/rand/v2"
	"slices"
	"testing"

	"mcvm/heap"
)

// TestUndo_roundTrip checks the reverse deltas on their own: a chain of
// random states of random lengths (shrinking and growing, as Decode and
// allocation make them), each saved as a delta against the shadow, must
// come back exactly when the deltas are undone from the newest, also after
// the shadow's spare capacity was overwritten by deeper states.
func TestUndo_roundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type delta struct {
		n   int32
		ent []int64
	}
	for round := 0; round < 200; round++ {
		var shadow []int64
		var states [][]int64
		var deltas []delta
		for step := 0; step < 40; step++ {
			if len(states) > 0 && rng.IntN(3) == 0 {
				// Undo back to a random earlier state and check it.
				k := rng.IntN(len(states))
				for len(deltas) > k+1 {
					d := deltas[len(deltas)-1]
					shadow = undoInts(shadow, int(d.n), d.ent)
					deltas, states = deltas[:len(deltas)-1], states[:len(states)-1]
				}
				if !slices.Equal(shadow, states[k]) {
					t.Fatalf("round %d step %d: undo to state %d gives %v, want %v", round, step, k, shadow, states[k])
				}
				continue
			}
			st := make([]int64, rng.IntN(12))
			for i := range st {
				st[i] = int64(rng.IntN(4))
			}
			d := delta{n: int32(len(shadow))}
			d.ent, shadow = diffInts(st, shadow, nil)
			if !slices.Equal(shadow, st) {
				t.Fatalf("round %d step %d: the shadow is %v after the diff, want %v", round, step, shadow, st)
			}
			deltas, states = append(deltas, d), append(states, st)
		}
	}
}

// TestUndo_roundTripObjs is TestUndo_roundTrip for object headers, which
// are diffed and restored as words.
func TestUndo_roundTripObjs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	type delta struct {
		n   int32
		ent []int64
	}
	for round := 0; round < 200; round++ {
		var shadow []heap.Object
		var states [][]heap.Object
		var deltas []delta
		for step := 0; step < 40; step++ {
			if len(states) > 0 && rng.IntN(3) == 0 {
				k := rng.IntN(len(states))
				for len(deltas) > k+1 {
					d := deltas[len(deltas)-1]
					shadow = undoObjs(shadow, int(d.n), d.ent)
					deltas, states = deltas[:len(deltas)-1], states[:len(states)-1]
				}
				if !slices.Equal(shadow, states[k]) {
					t.Fatalf("round %d step %d: undo to state %d gives %v, want %v", round, step, k, shadow, states[k])
				}
				continue
			}
			st := make([]heap.Object, rng.IntN(12))
			for i := range st {
				st[i] = heap.Object{Class: int32(rng.IntN(3)), Kind: heap.ObjKind(rng.IntN(3)), Owner: int32(rng.IntN(2)), Count: int32(rng.IntN(2)), Off: int32(rng.IntN(3)), Len: int32(rng.IntN(3))}
			}
			d := delta{n: int32(len(shadow))}
			d.ent, shadow = diffObjs(st, shadow, nil)
			if !slices.Equal(shadow, st) {
				t.Fatalf("round %d step %d: the shadow is %v after the diff, want %v", round, step, shadow, st)
			}
			deltas, states = append(deltas, d), append(states, st)
		}
	}
}
