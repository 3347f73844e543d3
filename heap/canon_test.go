package heap_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"mcvm/bytecode"
	"mcvm/heap"
)

// layout returns a layout with class Node {next ref; val int; other ref}.
func layout(t *testing.T) (*heap.Layout, int32) {
	t.Helper()
	p := bytecode.NewProgram()
	node := int32(len(p.Classes))
	p.Classes = append(p.Classes, bytecode.Class{Name: "Node", Super: bytecode.ClassObject})
	for _, f := range []struct {
		name string
		kind bytecode.Kind
	}{{"next", bytecode.KindRef}, {"val", bytecode.KindInt}, {"other", bytecode.KindRef}} {
		p.Classes[node].Fields = append(p.Classes[node].Fields, int32(len(p.Fields)))
		p.Fields = append(p.Fields, bytecode.Field{Class: node, Name: f.name, Kind: f.kind})
	}
	p.Methods = append(p.Methods, bytecode.Method{Class: node, Name: "main", Flags: bytecode.MethodStatic,
		Code: []bytecode.Instr{{Op: bytecode.OpReturn}}})
	p.Entry = 0
	if err := bytecode.Verify(p); err != nil {
		t.Fatal(err)
	}
	return heap.NewLayout(p), node
}

// build allocates a random graph of n nodes plus garbage, in a random
// allocation order, and returns the heap and the root. The logical graph
// depends only on seed; perm only changes allocation order and garbage.
func build(l *heap.Layout, node int32, seed uint64, n int, perm *rand.Rand) (*heap.Heap, heap.Ref) {
	g := rand.New(rand.NewPCG(seed, 1))
	next := make([]int, n)
	other := make([]int, n)
	val := make([]int64, n)
	for i := 0; i < n; i++ {
		next[i], other[i], val[i] = g.IntN(n+1)-1, g.IntN(n+1)-1, g.Int64N(1000)-500
	}
	h := &heap.Heap{}
	refs := make([]heap.Ref, n)
	for _, i := range perm.Perm(n) {
		for j := perm.IntN(3); j > 0; j-- {
			h.New(l, node) // garbage
		}
		refs[i] = h.New(l, node)
	}
	arr := h.NewArray(heap.KindIntArray, 3)
	h.Slots(arr)[1] = 42
	for i := 0; i < n; i++ {
		s := h.Slots(refs[i])
		if next[i] >= 0 {
			s[0] = int64(refs[next[i]])
		}
		s[1] = val[i]
		if other[i] >= 0 {
			s[2] = int64(refs[other[i]])
		}
	}
	h.Obj(refs[0]).Owner, h.Obj(refs[0]).Count = 3, 2
	return h, refs[0]
}

func encode(c *heap.Canon, h *heap.Heap, l *heap.Layout, root heap.Ref) []byte {
	c.Reset(h)
	c.Root(root)
	return c.EncodeObjects(nil, h, l, 0)
}

// TestCanon_allocationOrderAndGarbage checks that the encoding depends only
// on the logical graph: not on allocation order, not on garbage.
func TestCanon_allocationOrderAndGarbage(t *testing.T) {
	l, node := layout(t)
	var c heap.Canon
	for seed := uint64(0); seed < 50; seed++ {
		h1, r1 := build(l, node, seed, 12, rand.New(rand.NewPCG(seed, 10)))
		h2, r2 := build(l, node, seed, 12, rand.New(rand.NewPCG(seed, 20)))
		e1, e2 := encode(&c, h1, l, r1), encode(&c, h2, l, r2)
		if !bytes.Equal(e1, e2) {
			t.Fatalf("seed %d: encodings differ with allocation order:\n%v\n%v", seed, e1, e2)
		}
		// Decoding gives a heap that encodes the same (from its root, ref 1).
		var h3 heap.Heap
		heap.DecodeObjects(e1, 0, &h3, l)
		if e3 := encode(&c, &h3, l, 1); !bytes.Equal(e1, e3) {
			t.Fatalf("seed %d: encode(decode(e)) != e", seed)
		}
		if h3.Len() != c.Live() {
			t.Fatalf("decoded heap has %d objects, want %d live ones", h3.Len(), c.Live())
		}
	}
}

// TestCanon_distinguishes checks that different graphs encode differently.
func TestCanon_distinguishes(t *testing.T) {
	l, node := layout(t)
	var c heap.Canon
	seen := map[string]uint64{}
	for seed := uint64(0); seed < 200; seed++ {
		h, r := build(l, node, seed, 6, rand.New(rand.NewPCG(seed, 1)))
		e := string(encode(&c, h, l, r))
		if prev, ok := seen[e]; ok {
			t.Logf("seeds %d and %d give the same graph (possible for tiny graphs)", prev, seed)
		}
		seen[e] = seed
	}
	if len(seen) < 190 {
		t.Errorf("only %d distinct encodings of 200 random graphs", len(seen))
	}
}

// TestHeap_freeAndReuse checks the free lists: an allocation takes the
// most recently freed object of exactly as many slots, small or large,
// zeroed, and otherwise appends; freeing never moves an object.
func TestHeap_freeAndReuse(t *testing.T) {
	l, node := layout(t)
	h := &heap.Heap{}
	a := h.New(l, node)                    // 3 slots
	b := h.NewArray(heap.KindIntArray, 40) // large
	c := h.NewArray(heap.KindIntArray, 50) // large
	d := h.New(l, node)                    // 3 slots
	h.Slots(d)[1], h.Slots(c)[7] = 9, 9
	offD := h.Obj(d).Off
	h.Free(a)
	h.Free(d)
	h.Free(b)
	h.Free(c)
	if n := h.FreeObjects(); n != 4 {
		t.Errorf("%d free objects, want 4", n)
	}
	if got := h.New(l, node); got != d || h.Obj(d).Off != offD || h.Slots(d)[1] != 0 || h.Obj(d).Kind != heap.KindObject {
		t.Errorf("first 3-slot allocation: %d (off %d), want %d, the last freed, zeroed in place", got, h.Obj(got).Off, d)
	}
	if got := h.New(l, node); got != a {
		t.Errorf("second 3-slot allocation: %d, want %d", got, a)
	}
	if got := h.NewArray(heap.KindRefArray, 40); got != b || h.Obj(b).Kind != heap.KindRefArray {
		t.Errorf("40-element allocation: %d, want %d (past the free 50-element one)", got, b)
	}
	if got := h.NewArray(heap.KindIntArray, 45); int(got) != h.Len() || got == c {
		t.Errorf("45-element allocation: %d, want a new object", got)
	}
	if got := h.NewArray(heap.KindIntArray, 50); got != c || h.Slots(c)[7] != 0 {
		t.Errorf("50-element allocation: %d, want %d zeroed", got, c)
	}
	if got := h.New(l, node); int(got) != h.Len() {
		t.Errorf("3-slot allocation with none free: %d, want a new object", got)
	}
	if n := h.FreeObjects(); n != 0 {
		t.Errorf("%d free objects, want 0", n)
	}
}
