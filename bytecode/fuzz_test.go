package bytecode

import "testing"

// FuzzDecode checks that Decode never panics and that whatever it accepts
// encodes to bytes that decode again to a program with the same digest.
// Disassemble must not panic on it either.
func FuzzDecode(f *testing.F) {
	f.Add(Encode(testProgram()))
	f.Add(Encode(sehProgram()))
	f.Add(Encode(NewProgram()))
	f.Add([]byte(Magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Decode(b)
		if err != nil {
			if p != nil {
				t.Fatalf("Decode returned a program and the error %v", err)
			}
			return
		}
		q, err := Decode(Encode(p))
		if err != nil {
			t.Fatalf("Decode(Encode(Decode(b))) = %v, want no error", err)
		}
		if Digest(q) != Digest(p) {
			t.Fatalf("Digest changed across Encode and Decode")
		}
		Disassemble(p)
	})
}
