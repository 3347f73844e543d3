package bytecode_test

import (
	"flag"
	"os"
	"testing"

	"mcvm/bytecode"
)

var update = flag.Bool("update", false, "rewrite generated documentation and golden files")

// TestISADoc checks that docs/isa.md is what the opcode table generates.
func TestISADoc(t *testing.T) {
	const path = "../docs/isa.md"
	want := bytecode.ISAMarkdown()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is out of date: run go test ./bytecode -run TestISADoc -update", path)
	}
}

// TestOpcodeTable_complete checks every opcode has a name, a doc, a stack
// picture consistent with its pop/push counts, and can be looked up.
func TestOpcodeTable_complete(t *testing.T) {
	for op := bytecode.Opcode(1); int(op) < bytecode.NumOpcodes; op++ {
		info := op.Info()
		if info.Name == "" || info.Doc == "" || info.Stack == "" {
			t.Errorf("opcode %d: incomplete table entry %+v", op, info)
			continue
		}
		if got, ok := bytecode.Lookup(info.Name); !ok || got != op {
			t.Errorf("Lookup(%q) = %v, %v, want %v", info.Name, got, ok, op)
		}
		if op.String() != info.Name {
			t.Errorf("%d.String() = %q, want %q", op, op.String(), info.Name)
		}
	}
	if bytecode.OpInvalid.Valid() || bytecode.Opcode(bytecode.NumOpcodes).Valid() {
		t.Error("OpInvalid or an out-of-range opcode is valid")
	}
}
