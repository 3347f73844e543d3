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

// TestThreadCopy_roundTrip checks that a snapshot's packed copy of a
// thread gives the thread back field for field: random frames, values
// (more than 64, references anywhere, negative and extreme numbers) and
// pending records, restored into threads whose arrays hold other
// contents, with copies reused for threads of other shapes.
func TestThreadCopy_roundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	i32 := func() int32 {
		switch rng.IntN(4) {
		case 0:
			return -1
		case 1:
			return int32(rng.Uint32())
		default:
			return int32(rng.IntN(100))
		}
	}
	var c threadCopy
	dst := &Thread{Frames: make([]Frame, 5), Stack: make([]Value, 9), Pending: make([]Pending, 2)}
	for round := 0; round < 500; round++ {
		src := &Thread{ID: i32(), Status: Status(rng.IntN(6)), Obj: heap.Ref(i32()), WaitObj: heap.Ref(i32()), WaitCount: i32(), stamp: rng.Uint64()}
		for range rng.IntN(6) {
			src.Frames = append(src.Frames, Frame{Method: i32(), PC: i32(), Base: i32(), Lock: heap.Ref(i32())})
		}
		for range rng.IntN(3) * rng.IntN(70) {
			v := Value{I: int64(rng.Uint64()), Ref: rng.IntN(2) == 0}
			if rng.IntN(4) == 0 {
				v.I = int64(rng.IntN(7)) - 3
			}
			src.Stack = append(src.Stack, v)
		}
		for range rng.IntN(2) * rng.IntN(4) {
			src.Pending = append(src.Pending, Pending{Frame: i32(), Kind: PendingKind(rng.IntN(256)), Handler: i32(), Exc: heap.Ref(i32()), A: i32(), B: i32()})
		}
		c.save(src)
		c.restore(dst)
		if dst.ID != src.ID || dst.Status != src.Status || dst.Obj != src.Obj || dst.WaitObj != src.WaitObj ||
			dst.WaitCount != src.WaitCount || dst.stamp != src.stamp ||
			!slices.Equal(dst.Frames, src.Frames) || !slices.Equal(dst.Stack, src.Stack) || !slices.Equal(dst.Pending, src.Pending) {
			t.Fatalf("round %d: saved %+v, restored %+v", round, *src, *dst)
		}
	}
}
