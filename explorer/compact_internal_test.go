package explorer

import "testing"

// TestLossyStores_addDoesNotAllocate: inserting into and looking up in the
// lossy stores is on the search's hot path; between table growths it must
// not allocate.
func TestLossyStores_addDoesNotAllocate(t *testing.T) {
	cs := newCompactStore(0)
	bs, err := newBitStore(20)
	if err != nil {
		t.Fatal(err)
	}
	fp := uint64(1)
	for name, s := range map[string]visitedSet{"hash-compact": cs, "bitstate": bs} {
		if a := testing.AllocsPerRun(1000, func() {
			fp = fp*0x9e3779b97f4a7c15 + 1
			s.add(nil, nil, fp)
			s.add(nil, nil, fp)
		}); a != 0 {
			t.Errorf("%s: add allocates %v times per call", name, a)
		}
	}
}

// TestBitStore_missProbability checks the coverage estimate against a
// direct count: with the array a quarter full, the share of fresh
// fingerprints taken for visited ones is about the estimate.
func TestBitStore_missProbability(t *testing.T) {
	bs, _ := newBitStore(16)
	missed := 0
	x := uint64(12345)
	next := func() uint64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }
	for i := 0; i < 8000; i++ {
		if _, isNew := bs.add(nil, nil, next()); !isNew {
			missed++
		}
	}
	a := bs.account()
	exp := a.ExpectedMissed
	if got := float64(missed); got < exp/2-3 || got > exp*2+3 {
		t.Errorf("missed %d of 8000 distinct fingerprints, estimate %.1f", missed, exp)
	}
}

// TestCollapseStore_addDoesNotAllocate: looking up a stored state in the
// collapse store, with or without delta collapse, must not allocate.
func TestCollapseStore_addDoesNotAllocate(t *testing.T) {
	for _, delta := range []bool{true, false} {
		c := NewCollapseStore()
		c.SetDelta(delta)
		encs := [][]byte{{2, 0, 5, 1, 1, 3, 9, 9, 9}, {2, 0, 5, 1, 2, 3, 9, 9, 9}, {2, 1, 5, 1, 2, 3, 9, 9, 8}}
		cuts := []int32{2, 5, 6, 9}
		for _, e := range encs {
			c.Add(e, cuts)
		}
		if a := testing.AllocsPerRun(1000, func() {
			for i, e := range encs {
				c.SetParent(int32(2 - i))
				if _, isNew := c.add(e, cuts, c.states.Key(e)); isNew {
					t.Fatal("a stored state was new")
				}
			}
		}); a != 0 {
			t.Errorf("delta=%v: add allocates %v times per run", delta, a)
		}
	}
}

// TestCompactStore_growsByHalf: the fingerprint table keeps every
// fingerprint through many growths by half (a probe starts at the
// fingerprint scaled to the table's length, so every length works), finds
// each again, never takes a new one for a stored one, stays at most 13/16
// full and grows only past that; fingerprints 0 and 1 are one (0 marks an
// empty slot), and the largest ones probe from the last slot round to the
// first.
func TestCompactStore_growsByHalf(t *testing.T) {
	cs := newCompactStore(0)
	x := uint64(88172645463325252)
	next := func() uint64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }
	fps := []uint64{1, ^uint64(0), ^uint64(1), ^uint64(2)}
	for len(fps) < 400000 {
		fps = append(fps, next())
	}
	lens := map[int]bool{}
	for i, fp := range fps {
		if _, isNew := cs.add(nil, nil, fp); !isNew {
			t.Fatalf("fingerprint %d (%#x) taken for a stored one", i, fp)
		}
		if _, isNew := cs.add(nil, nil, fp); isNew {
			t.Fatalf("fingerprint %d (%#x) not found right after it was added", i, fp)
		}
		if 16*cs.size() > compactLoad*len(cs.table) {
			t.Fatalf("%d fingerprints in %d slots", cs.size(), len(cs.table))
		}
		lens[len(cs.table)] = true
	}
	if _, isNew := cs.add(nil, nil, 0); isNew {
		t.Error("fingerprint 0 is new after fingerprint 1")
	}
	for i, fp := range fps {
		if _, isNew := cs.add(nil, nil, fp); isNew {
			t.Fatalf("fingerprint %d (%#x) lost by a growth", i, fp)
		}
	}
	if cs.size() != len(fps) {
		t.Errorf("size %d, want %d", cs.size(), len(fps))
	}
	if len(lens) < 6 {
		t.Errorf("the table had %d lengths: it did not grow by half", len(lens))
	}
	if need := 16 * len(fps) / compactLoad; len(cs.table) > need*3/2+1 {
		t.Errorf("%d slots for %d fingerprints: more than one growth past the load", len(cs.table), len(fps))
	}
}
