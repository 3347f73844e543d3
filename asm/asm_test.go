package asm

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"mcvm/bytecode"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ok")

// okFiles returns the valid test programs.
func okFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/ok/*.mcasm")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test programs: %v", err)
	}
	return files
}

// roundTrip checks that p disassembles to source that assembles to a
// program with the same digest, and that p encodes and decodes.
func roundTrip(t testing.TB, p *bytecode.Program) string {
	t.Helper()
	text := bytecode.Disassemble(p)
	q, err := Assemble("disasm.mcasm", []byte(text), Options{})
	if err != nil {
		t.Fatalf("reassembling the disassembly failed: %v\n%s", err, text)
	}
	if got, want := bytecode.Digest(q), bytecode.Digest(p); got != want {
		t.Fatalf("Digest(Assemble(Disassemble(p))) = %#x, want %#x\n%s", got, want, text)
	}
	r, err := bytecode.Decode(bytecode.Encode(p))
	if err != nil {
		t.Fatalf("Decode(Encode(p)) failed: %v", err)
	}
	if got, want := bytecode.Digest(r), bytecode.Digest(p); got != want {
		t.Fatalf("Digest(Decode(Encode(p))) = %#x, want %#x", got, want)
	}
	return text
}

func TestAssemble_golden(t *testing.T) {
	for _, file := range okFiles(t) {
		t.Run("file="+filepath.Base(file), func(t *testing.T) {
			p, err := AssembleFile(file, Options{})
			if err != nil {
				t.Fatalf("AssembleFile(%q) = %v, want no error", file, err)
			}
			text := roundTrip(t, p)
			golden := strings.TrimSuffix(file, ".mcasm") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./asm -update to create it)", err)
			}
			if text != string(want) {
				t.Errorf("Disassemble(%s) differs from %s (run go test ./asm -update to accept):\n%s", file, golden, text)
			}
		})
	}
}

// TestErrors runs the cases in testdata/errors/*.mcasm. Cases are separated
// by lines "---"; a line carrying `; ERROR "regexp"` must get an error
// matching regexp, and no other line may get an error. Annotations in
// included files count too. Each case keeps the file's line numbers.
func TestErrors(t *testing.T) {
	files, err := filepath.Glob("testdata/errors/*.mcasm")
	if err != nil || len(files) == 0 {
		t.Fatalf("no error cases: %v", err)
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(src), "\n")
		start := 0
		for i := 0; i <= len(lines); i++ {
			if i < len(lines) && strings.TrimSpace(lines[i]) != "---" {
				continue
			}
			// Lines outside the case become blank, keeping line numbers.
			c := make([]string, len(lines))
			copy(c[start:i], lines[start:i])
			name := filepath.Base(file) + ":" + itoa(start+1)
			t.Run("case="+name, func(t *testing.T) {
				checkErrors(t, file, strings.Join(c, "\n"))
			})
			start = i + 1
		}
	}
}

var errorRE = regexp.MustCompile(`;\s*ERROR\s+"((?:[^"\\]|\\.)*)"`)

func checkErrors(t *testing.T, file, src string) {
	t.Helper()
	want := map[string]*regexp.Regexp{} // "file:line" -> pattern
	collect := func(name, text string) {
		for i, l := range strings.Split(text, "\n") {
			if m := errorRE.FindStringSubmatch(l); m != nil {
				pat := strings.ReplaceAll(m[1], `\"`, `"`)
				want[name+":"+itoa(i+1)] = regexp.MustCompile(pat)
			}
		}
	}
	collect(file, src)
	opts := Options{ReadFile: func(name string) ([]byte, error) {
		b, err := os.ReadFile(name)
		if err == nil {
			collect(name, string(b))
		}
		return b, err
	}}
	_, err := Assemble(file, []byte(src), opts)
	if len(want) == 0 {
		t.Fatalf("case has no ERROR annotation")
	}
	if err == nil {
		t.Fatalf("Assemble succeeded, want errors matching %v", want)
	}
	list, ok := err.(ErrorList)
	if !ok {
		t.Fatalf("Assemble error is %T, want ErrorList", err)
	}
	matched := map[string]bool{}
	for _, e := range list {
		key := e.File + ":" + itoa(e.Line)
		re, ok := want[key]
		if !ok {
			t.Errorf("unexpected error %v", e)
			continue
		}
		if !re.MatchString(e.Msg) {
			t.Errorf("error %v does not match %q", e, re)
			continue
		}
		matched[key] = true
	}
	for key, re := range want {
		if !matched[key] {
			t.Errorf("%s: no error matching %q (got:\n%v)", key, re, err)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
