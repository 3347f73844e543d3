package progen_test

import (
	"strings"
	"testing"

	"mcvm/asm"
	"mcvm/internal/progen"
)

// TestGenerateModel_assembles checks that GenerateModel is a function of
// its seed and that its programs assemble and use what they are for.
func TestGenerateModel_assembles(t *testing.T) {
	if progen.GenerateModel(7) != progen.GenerateModel(7) || progen.GenerateModel(7) == progen.GenerateModel(8) {
		t.Error("GenerateModel is not a function of its seed")
	}
	var atomic, ends, leak int
	for seed := uint64(1); seed <= 200; seed++ {
		src := progen.GenerateModel(seed)
		p, err := asm.Assemble("gen.mcasm", []byte(src), asm.Options{})
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		if len(p.Setup) != 1 || p.Entry != -1 {
			t.Fatalf("seed %d: setup %v, entry %d, want one setup method and no entry", seed, p.Setup, p.Entry)
		}
		atomic += strings.Count(src, ".atomic ")
		ends += strings.Count(src, ".endstate ")
		if p.AllowLeak {
			leak++
		}
	}
	if atomic < 100 || ends < 20 || leak < 20 {
		t.Errorf("in 200 programs: %d atomic regions, %d end states, %d allowing leaks: too few", atomic, ends, leak)
	}
}
