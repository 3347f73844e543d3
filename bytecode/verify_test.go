package bytecode_test

import (
	"strings"
	"testing"

	"mcvm/bytecode"
)

// validProgram returns a minimal valid program: a static main that returns.
func validProgram() *bytecode.Program {
	p := bytecode.NewProgram()
	p.Classes = append(p.Classes, bytecode.Class{Name: "Main", Super: bytecode.ClassObject})
	p.Methods = append(p.Methods, bytecode.Method{Class: int32(len(p.Classes) - 1), Name: "main",
		Flags: bytecode.MethodStatic, Code: []bytecode.Instr{{Op: bytecode.OpReturn}}})
	p.Entry = 0
	return p
}

func TestVerify_builtinFields(t *testing.T) {
	if err := bytecode.Verify(validProgram()); err != nil {
		t.Fatalf("Verify(valid) = %v", err)
	}
	p := validProgram()
	// A reference field added to Thread would hide references from the
	// collector, which assumes Thread objects hold none.
	p.Fields = append(p.Fields, bytecode.Field{Class: bytecode.ClassThread, Name: "next", Kind: bytecode.KindRef})
	p.Classes[bytecode.ClassThread].Fields = append(p.Classes[bytecode.ClassThread].Fields, int32(len(p.Fields)-1))
	if err := bytecode.Verify(p); err == nil || !strings.Contains(err.Error(), "built-in class Thread has the wrong fields") {
		t.Errorf("Verify(Thread with an extra field) = %v, want the built-in fields error", err)
	}
	p = validProgram()
	p.Fields = append(p.Fields, bytecode.Field{Class: bytecode.ClassObject, Name: "x", Kind: bytecode.KindInt})
	p.Classes[bytecode.ClassObject].Fields = []int32{int32(len(p.Fields) - 1)}
	if err := bytecode.Verify(p); err == nil {
		t.Error("Verify accepted a field on Object")
	}
}
