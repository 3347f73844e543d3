package bytecode

import (
	"strings"
	"testing"
)

// TestVerify_ghostBudget checks that the ghost value check of a method
// whose instructions times stack depth passes the budget is refused with
// an error, not run: verifying untrusted input stays proportional to it.
func TestVerify_ghostBudget(t *testing.T) {
	for _, tc := range []struct {
		depth int
		want  string
	}{
		{100, ""},
		{3000, "method too large for the ghost value check"},
	} {
		p := NewProgram()
		c := int32(len(p.Classes))
		p.Classes = append(p.Classes, Class{Name: "A", Super: ClassObject})
		p.Statics = append(p.Statics, Static{Class: c, Name: "g", Kind: KindInt, Flags: MemberGhost})
		var code []Instr
		for range tc.depth {
			code = append(code, Instr{Op: OpPush, A: 1})
		}
		code = append(code, Instr{Op: OpGetstatic}, Instr{Op: OpPutstatic})
		for range tc.depth {
			code = append(code, Instr{Op: OpPop})
		}
		code = append(code, Instr{Op: OpReturn})
		p.Methods = append(p.Methods, Method{Class: c, Name: "main", Flags: MethodStatic, Code: code})
		p.Entry = int32(len(p.Methods) - 1)
		err := Verify(p)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Verify(depth %d) = %v, want %q", tc.depth, err, tc.want)
		}
	}
}
