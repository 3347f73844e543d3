package explorer

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"mcvm/asm"
	"mcvm/vm"
)

// checkParents checks the parents kept for delta collapse, base and next:
// each holds exactly its state's encoding (Get), cut where the state's
// vector says, with the vector's indices. It returns how many it held.
func checkParents(t *testing.T, c *CollapseStore) int {
	t.Helper()
	held := 0
	for _, p := range []*parent{&c.base, &c.next} {
		if p.id < 0 {
			continue
		}
		held++
		if want := c.Get(p.id); string(p.enc) != string(want) {
			t.Fatalf("parent %d: encoding %v, want %v", p.id, p.enc, want)
		}
		vec := c.states.Get(p.id)
		start := int32(0)
		i, off := 0, 0
		for ; off < len(vec); i++ {
			x, k := binary.Uvarint(vec[off:])
			off += k
			if i >= len(p.cuts) || i >= len(p.idx) || p.idx[i] != uint32(x) ||
				string(p.enc[start:p.cuts[i]]) != string(c.comps[kindAt(i, p.n)][x]) {
				t.Fatalf("parent %d: component %d of cuts %v, indices %v: vector %v", p.id, i, p.cuts, p.idx, vec)
			}
			start = p.cuts[i]
		}
		if i != len(p.cuts) || i != len(p.idx) {
			t.Fatalf("parent %d: %d cuts and %d indices for a vector of %d", p.id, len(p.cuts), len(p.idx), i)
		}
	}
	return held
}

// TestCollapseStore_parents checks the parents kept for delta collapse
// after every step of random walks that name parents as depth-first
// search does (the state just added, an ancestor) and as breadth-first
// search does (any state), on a model whose states differ in their
// numbers of threads and objects.
func TestCollapseStore_parents(t *testing.T) {
	p, err := asm.AssembleFile("../testdata/conformance/prodcons.mcasm", asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := vm.New(p, vm.Options{Granularity: vm.GranInstruction})
	if err != nil {
		t.Fatal(err)
	}
	c := NewCollapseStore()
	rng := rand.New(rand.NewPCG(11, 12))
	var path []int32
	var trs []vm.Trans
	var enc []byte
	var cuts []int32
	both := 0
	for w := 0; w < 50; w++ {
		m.Init()
		path = path[:0]
		for i := 0; i < 60; i++ {
			enc, cuts = m.EncodeSplit(enc[:0], cuts[:0])
			id, _ := c.Add(enc, cuts)
			checkParents(t, c)
			path = append(path, id)
			switch r := rng.IntN(16); {
			case r < 13:
				c.SetParent(id)
			case r < 15:
				c.SetParent(path[rng.IntN(len(path))])
			default:
				c.SetParent(int32(rng.IntN(c.Len())))
			}
			if checkParents(t, c) == 2 {
				both++
			}
			trs = m.Enabled(trs[:0])
			if len(trs) == 0 || m.Step(trs[rng.IntN(len(trs))]) != nil {
				break
			}
		}
	}
	if both < 100 {
		t.Errorf("base and next were both held only %d times", both)
	}
}
