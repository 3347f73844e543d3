package bytecode

import "testing"

// TestLiveLocals checks the live sets of a hand-built method: a loop whose
// counter stays live round the back edge, a local dead after its last
// read, a local live only through a catch handler, and a method with a
// finally handler, which the analysis leaves alone.
func TestLiveLocals(t *testing.T) {
	// locals: 0 i (loop counter), 1 x (read once), 2 h (read by the handler)
	code := []Instr{
		{Op: OpPush, A: 5},       // 0
		{Op: OpStore, A: 1},      // 1  x = 5
		{Op: OpPush, A: 7},       // 2
		{Op: OpStore, A: 2},      // 3  h = 7
		{Op: OpLoad, A: 1},       // 4  read x: dead from here on
		{Op: OpPop},              // 5
		{Op: OpLoad, A: 0},       // 6  loop: i
		{Op: OpIfz, A: 10},       // 7
		{Op: OpInc, A: 0, B: -1}, // 8  i-- (protected: may throw into 11)
		{Op: OpGoto, A: 6},       // 9
		{Op: OpReturn},           // 10
		{Op: OpLoad, A: 2},       // 11 handler: reads h
		{Op: OpPop},              // 12
		{Op: OpReturn},           // 13
	}
	m := &Method{Args: 1, Locals: 3, Code: code, Handlers: []Handler{{Kind: HandlerCatch, Start: 8, End: 9, Target: 11, Class: -1, HandlerEnd: 14}}}
	in, out, ok := LiveLocals(m)
	if !ok {
		t.Fatal("LiveLocals refused a method with only a catch handler")
	}
	const i, x, h = 1 << 0, 1 << 1, 1 << 2
	for _, c := range []struct {
		pc      int
		in, out uint64
		why     string
	}{
		{0, i, i, "x and h are written before they are read"},
		{4, i | x | h, i | h, "x is read here and never again"},
		{6, i | h, i | h, "the loop head: i round the back edge, h for the handler"},
		{8, i | h, i | h, "inc reads i; the handler may still read h"},
		{10, 0, 0, "the return reads nothing"},
		{11, h, 0, "the handler reads h"},
	} {
		if in[c.pc] != c.in || out[c.pc] != c.out {
			t.Errorf("pc %d: in %03b out %03b, want %03b %03b (%s)", c.pc, in[c.pc], out[c.pc], c.in, c.out, c.why)
		}
	}
	m.Handlers[0].Kind = HandlerFinally
	if _, _, ok := LiveLocals(m); ok {
		t.Errorf("LiveLocals analysed a method with a finally handler")
	}
	m.Handlers = nil
	m.Locals = 65
	if _, _, ok := LiveLocals(m); ok {
		t.Errorf("LiveLocals analysed a method with 65 locals")
	}
}
