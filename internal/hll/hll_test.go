package hll

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestEstimate: the estimate of n distinct fingerprints (a seeded
// generator's) is within 4 standard errors of n, from none to a million,
// and adding fingerprints again changes nothing.
func TestEstimate(t *testing.T) {
	for _, n := range []int{0, 1, 10, 100, 1000, 10_000, 30_000, 60_000, 100_000, 1_000_000} {
		var s Sketch
		r := rand.New(rand.NewPCG(uint64(n), 7))
		fps := make([]uint64, n)
		for i := range fps {
			fps[i] = r.Uint64()
			s.Add(fps[i])
		}
		e := s.Estimate()
		tol := max(4*StdError*float64(n), 1)
		if math.Abs(e-float64(n)) > tol {
			t.Errorf("%d fingerprints: estimate %.1f, further than %.1f", n, e, tol)
		}
		for _, fp := range fps[:n/2] {
			s.Add(fp)
		}
		if e2 := s.Estimate(); e2 != e {
			t.Errorf("%d fingerprints: adding half of them again moved the estimate from %.1f to %.1f", n, e, e2)
		}
	}
}

// TestMerge: merged sketches estimate the union, whatever the overlap.
func TestMerge(t *testing.T) {
	var a, b, u Sketch
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200_000 {
		fp := r.Uint64()
		if i < 150_000 {
			a.Add(fp)
		}
		if i >= 50_000 {
			b.Add(fp)
		}
		u.Add(fp)
	}
	a.Merge(&b)
	if a != u {
		t.Error("the merge of two sketches differs from the sketch of the union")
	}
	if e := a.Estimate(); math.Abs(e-200_000) > 4*StdError*200_000 {
		t.Errorf("union of 200,000: estimate %.0f", e)
	}
}

// TestUnmarshal: a sketch survives its file; a damaged, short or foreign
// file is an ErrFormat error.
func TestUnmarshal(t *testing.T) {
	var s Sketch
	for i := range uint64(5000) {
		s.Add(i * 0x9e3779b97f4a7c15)
	}
	data, _ := s.MarshalBinary()
	var got Sketch
	if err := got.UnmarshalBinary(data); err != nil || got != s {
		t.Fatalf("round trip: %v", err)
	}
	bad := map[string][]byte{
		"empty":     nil,
		"short":     data[:len(data)-1],
		"long":      append(append([]byte{}, data...), 0),
		"foreign":   append([]byte("PK\x03\x04"), data[4:]...),
		"flipped":   flip(data, 100),
		"precision": flip(data, len(magic)),
	}
	for name, b := range bad {
		if err := got.UnmarshalBinary(b); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", name, err)
		}
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte{}, b...)
	c[i] ^= 1
	return c
}

// FuzzUnmarshal: no input makes UnmarshalBinary panic, and what it
// accepts it writes back the same.
func FuzzUnmarshal(f *testing.F) {
	var s Sketch
	s.Add(1)
	s.Add(1 << 63)
	data, _ := s.MarshalBinary()
	f.Add(data)
	f.Add(data[:20])
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		var s Sketch
		if s.UnmarshalBinary(b) != nil {
			return
		}
		out, _ := s.MarshalBinary()
		if string(out) != string(b) {
			t.Error("an accepted sketch does not write back the same")
		}
		_ = s.Estimate()
	})
}
