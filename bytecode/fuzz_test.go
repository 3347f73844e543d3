package bytecode

import (
	"encoding/binary"
	"hash/crc64"
	"testing"
)

// FuzzDecode checks that Decode never panics and that whatever it accepts
// encodes to bytes that decode again to a program with the same digest.
// Disassemble must not panic on it either. Each input is also decoded
// sealed (as a version-4 file with a correct checksum), so that changes
// reach the parser behind the checksum.
func FuzzDecode(f *testing.F) {
	f.Add(Encode(testProgram()))
	f.Add(Encode(sehProgram()))
	f.Add(encode(testProgram(), 2))
	f.Add(encode(sehProgram(), 2))
	f.Add(Encode(NewProgram()))
	f.Add(Encode(extendedProgram(f)))
	f.Add(Encode(qualifiedProgram()))
	f.Add([]byte(Magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, in := range [][]byte{b, sealed(b)} {
			p, err := Decode(in)
			if err != nil {
				if p != nil {
					t.Fatalf("Decode returned a program and the error %v", err)
				}
				continue
			}
			q, err := Decode(Encode(p))
			if err != nil {
				t.Fatalf("Decode(Encode(Decode(b))) = %v, want no error", err)
			}
			if Digest(q) != Digest(p) {
				t.Fatalf("Digest changed across Encode and Decode")
			}
			Disassemble(p)
		}
	})
}

// sealed returns b made a version-4 file: its version replaced by 4 and
// the checksum of the result appended (nil if b has no magic and version).
func sealed(b []byte) []byte {
	if len(b) <= len(Magic) || string(b[:len(Magic)]) != Magic {
		return nil
	}
	_, n := binary.Uvarint(b[len(Magic):])
	if n <= 0 {
		return nil
	}
	s := append([]byte(Magic), plainVersion)
	s = append(s, b[len(Magic)+n:]...)
	return binary.LittleEndian.AppendUint64(s, crc64.Checksum(s, crcTable()))
}

// qualifiedProgram is testProgram with a ghost static: a program only
// format version 6 holds.
func qualifiedProgram() *Program {
	p := testProgram()
	p.Statics = append(p.Statics, Static{Class: p.Statics[0].Class, Name: "g", Kind: KindInt, Flags: MemberGhost})
	return p
}
