// Package hll is a HyperLogLog sketch of 64-bit fingerprints: a few
// kilobytes that estimate how many distinct fingerprints were added, and
// that merge, so that the sketches of several searches estimate how many
// distinct states they reached together (mcvm swarm).
//
// The sketch has 2^14 registers; register i keeps the largest rank (the
// position of the first 1 bit in the 50 bits below the top 14) of the
// fingerprints whose top 14 bits are i. The estimate is Ertl's improved
// raw estimator ("New cardinality estimation algorithms for HyperLogLog
// sketches", 2017), unbiased from no element to far beyond 2^32 without
// the empirical bias tables of HyperLogLog++; its standard error is
// 1.04/sqrt(2^14), 0.8%. Fingerprints must be uniformly distributed, as
// the machine's are (vm/fingerprint.go).
package hll

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/cespare/xxhash/v2"
)

// Precision is the log2 of the number of registers.
const Precision = 14

const (
	m    = 1 << Precision
	q    = 64 - Precision // the bits that give the rank
	size = len(magic) + 1 + m + 8
)

// magic begins a sketch's file; the byte after it is the precision, and
// an xxhash64 of what comes before ends it.
const magic = "MCVMHLL\x01"

// StdError is the estimate's relative standard error.
var StdError = 1.04 / math.Sqrt(m)

// Sketch is a HyperLogLog sketch; its zero value is empty.
type Sketch struct {
	reg [m]uint8
}

// Add adds fingerprint fp.
func (s *Sketch) Add(fp uint64) {
	i := fp >> q
	r := uint8(min(bits.LeadingZeros64(fp<<Precision), q) + 1)
	if r > s.reg[i] {
		s.reg[i] = r
	}
}

// Merge adds every fingerprint added to o.
func (s *Sketch) Merge(o *Sketch) {
	for i, r := range o.reg {
		if r > s.reg[i] {
			s.reg[i] = r
		}
	}
}

// Estimate returns the estimated number of distinct fingerprints added.
func (s *Sketch) Estimate() float64 {
	var c [q + 2]float64 // c[k]: registers holding k
	for _, r := range s.reg {
		c[r]++
	}
	z := m * tau(1-c[q+1]/m)
	for k := q; k >= 1; k-- {
		z = 0.5 * (z + c[k])
	}
	z += m * sigma(c[0]/m)
	return m * m / (2 * math.Ln2) / z
}

// sigma is Ertl's σ(x) = x + Σ_{k≥1} x^(2^k) 2^(k-1).
func sigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		prev := z
		z += x * y
		y += y
		if z == prev {
			return z
		}
	}
}

// tau is Ertl's τ(x) = (1 - x - Σ_{k≥1} (1 - x^(2^-k))^2 2^-k) / 3.
func tau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		prev := z
		y *= 0.5
		z -= (1 - x) * (1 - x) * y
		if z == prev {
			return z / 3
		}
	}
}

// MarshalBinary returns the sketch as a file's bytes: magic, precision,
// registers, checksum.
func (s *Sketch) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, size)
	b = append(b, magic...)
	b = append(b, Precision)
	b = append(b, s.reg[:]...)
	return binary.LittleEndian.AppendUint64(b, xxhash.Sum64(b)), nil
}

// ErrFormat is wrapped by the errors of UnmarshalBinary.
var ErrFormat = errors.New("not a HyperLogLog sketch of mcvm")

// UnmarshalBinary reads a sketch written by MarshalBinary, checking its
// length, precision, checksum and registers.
func (s *Sketch) UnmarshalBinary(data []byte) error {
	switch {
	case len(data) < len(magic) || string(data[:len(magic)]) != magic:
		return fmt.Errorf("%w (no header)", ErrFormat)
	case len(data) != size:
		return fmt.Errorf("%w: %d bytes, want %d", ErrFormat, len(data), size)
	case data[len(magic)] != Precision:
		return fmt.Errorf("%w: precision %d, want %d", ErrFormat, data[len(magic)], Precision)
	case binary.LittleEndian.Uint64(data[size-8:]) != xxhash.Sum64(data[:size-8]):
		return fmt.Errorf("%w: checksum mismatch (damaged)", ErrFormat)
	}
	regs := data[len(magic)+1 : size-8]
	for i, r := range regs {
		if r > q+1 {
			return fmt.Errorf("%w: register %d holds %d, at most %d", ErrFormat, i, r, q+1)
		}
	}
	copy(s.reg[:], regs)
	return nil
}
