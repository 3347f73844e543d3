package progen_test

import (
	"strings"
	"testing"

	"mcvm/asm"
	"mcvm/bytecode"
	"mcvm/internal/progen"
)

// TestGenerateGhost_assembles checks that GenerateGhost is a function of
// its seed and that its programs assemble (the verifier accepts their
// ghost and final members) and use what they are for.
func TestGenerateGhost_assembles(t *testing.T) {
	if progen.GenerateGhost(7) != progen.GenerateGhost(7) || progen.GenerateGhost(7) == progen.GenerateGhost(8) {
		t.Error("GenerateGhost is not a function of its seed")
	}
	var ghosts, finals, ends int
	for seed := uint64(1); seed <= 200; seed++ {
		src := progen.GenerateGhost(seed)
		p, err := asm.Assemble("gen.mcasm", []byte(src), asm.Options{})
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		if !p.Qualified() {
			t.Fatalf("seed %d: no ghost or final members", seed)
		}
		for i := range p.Methods {
			for _, in := range p.Methods[i].Code {
				switch {
				case p.Ghostly(in):
					ghosts++
				case in.Op == bytecode.OpGetfield && p.Fields[in.A].Final():
					finals++
				}
			}
		}
		ends += strings.Count(src, ".endstate ")
	}
	if ghosts < 400 || finals < 100 || ends < 50 {
		t.Errorf("in 200 programs: %d ghost accesses, %d final reads, %d end states: too few", ghosts, finals, ends)
	}
}
