// Round trips: verify, encode, read and certify every conformance program and small benchmark model.

package scc_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"mcvm/asm"
	"mcvm/bytecode"
	"mcvm/explorer"
	benchmarks "mcvm/internal/bench"
	"mcvm/scc"
	"mcvm/vm"
)

const conformanceDir = "../testdata/conformance"
const modelsDir = "../benchmarks/models"

func machine(t testing.TB, p *bytecode.Program, g vm.Granularity) *vm.Machine {
	t.Helper()
	m, err := vm.New(p, vm.Options{Granularity: g})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func assemble(t testing.TB, path string, defs map[string]int64) *bytecode.Program {
	t.Helper()
	p, err := asm.AssembleFile(path, asm.Options{Defines: defs})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// verify runs a verification and returns its result and encoded script.
func verify(t testing.TB, p *bytecode.Program, g vm.Granularity, cont, trustful bool) (*explorer.Result, []byte) {
	t.Helper()
	res, s, err := scc.Verify(machine(t, p, g), explorer.Options{Continue: cont}, trustful, "none")
	if err != nil {
		t.Fatal(err)
	}
	return res, scc.Encode(s)
}

func certify(t testing.TB, p *bytecode.Program, g vm.Granularity, data []byte, opts scc.Options) (*scc.Result, error) {
	t.Helper()
	s, err := scc.Read(data)
	if err != nil {
		return nil, err
	}
	return scc.Certify(machine(t, p, g), s, opts)
}

// checkSame compares a certification with the verification it follows.
func checkSame(t *testing.T, name string, v *explorer.Result, c *scc.Result, trustful bool) {
	t.Helper()
	if c.Verdict != v.Verdict || c.Stats.States != v.Stats.States || c.Stats.Errors != v.Stats.Errors {
		t.Errorf("%s: certify = %s states=%d errors=%d, verify = %s states=%d errors=%d",
			name, c.Verdict, c.Stats.States, c.Stats.Errors, v.Verdict, v.Stats.States, v.Stats.Errors)
	}
	if !trustful && (c.Stats.Transitions != v.Stats.Transitions || c.Stats.Revisits != v.Stats.Revisits) {
		t.Errorf("%s: certify transitions=%d revisits=%d, verify %d %d", name, c.Stats.Transitions, c.Stats.Revisits, v.Stats.Transitions, v.Stats.Revisits)
	}
	// The certifier collects garbage in every state it enters as the
	// search does in every state it pushes: the same objects, as many (a
	// trustful one does not collect).
	if !trustful && c.Stats.Freed != v.Stats.Freed || trustful && c.Stats.Freed != 0 {
		t.Errorf("%s: certify freed %d objects, verify %d", name, c.Stats.Freed, v.Stats.Freed)
	}
	if trustful && c.Stats.Transitions > v.Stats.Transitions {
		t.Errorf("%s: trustful certification executed %d transitions, more than verification's %d", name, c.Stats.Transitions, v.Stats.Transitions)
	}
}

func TestRoundTrip_conformance(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(conformanceDir, "*.mcasm"))
	if len(paths) < 40 {
		t.Fatalf("%d conformance programs, want 40", len(paths))
	}
	for _, path := range paths {
		p := assemble(t, path, nil)
		for _, g := range []vm.Granularity{vm.GranTransition, vm.GranInstruction} {
			for _, cont := range []bool{false, true} {
				for _, trustful := range []bool{false, true} {
					name := fmt.Sprintf("model=%s/gran=%s/continue=%v/trustful=%v", filepath.Base(path), g, cont, trustful)
					v, data := verify(t, p, g, cont, trustful)
					for _, forget := range []bool{false, true} {
						c, err := certify(t, p, g, data, scc.Options{Continue: cont, Forget: forget})
						if err != nil {
							t.Errorf("%s: %v", name, err)
							continue
						}
						checkSame(t, name, v, c, trustful)
						if forget && c.PeakFP > v.Stats.States {
							t.Errorf("%s: peak FP %d > states %d", name, c.PeakFP, v.Stats.States)
						}
					}
				}
			}
		}
	}
}

// smallModels returns the benchmark models with their SMALL configurations.
func smallModels(t testing.TB) []*benchmarks.Model {
	ms, err := benchmarks.LoadModels(modelsDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []*benchmarks.Model
	for _, m := range ms {
		if m.Small.Defines != nil || m.Small.States > 0 {
			out = append(out, m)
		}
	}
	return out
}

func TestRoundTrip_models(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for _, mod := range smallModels(t) {
		if mod.Small.States > 200000 {
			continue
		}
		p := assemble(t, mod.Path, mod.Small.Defines)
		for _, trustful := range []bool{false, true} {
			name := fmt.Sprintf("model=%s/trustful=%v", mod.Name, trustful)
			v, data := verify(t, p, vm.GranTransition, false, trustful)
			c, err := certify(t, p, vm.GranTransition, data, scc.Options{Forget: !trustful})
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			checkSame(t, name, v, c, trustful)
			_, again := verify(t, p, vm.GranTransition, false, trustful)
			if !bytes.Equal(data, again) {
				t.Errorf("%s: two verifications wrote different scripts", name)
			}
		}
	}
}

// TestRead_oldVersion: a script of format version 1 (before the entries'
// fields went to columns of their own) is refused with a message that
// says what to do.
func TestRead_oldVersion(t *testing.T) {
	p := assemble(t, filepath.Join(conformanceDir, "counter_race.mcasm"), nil)
	_, data := verify(t, p, vm.GranTransition, true, false)
	if data[8] != scc.FormatVersion {
		t.Fatalf("version byte %d, want %d", data[8], scc.FormatVersion)
	}
	old := append([]byte(nil), data...)
	old[8] = 1
	_, err := scc.Read(old)
	if err == nil || !strings.Contains(err.Error(), "format version 1") || !strings.Contains(err.Error(), "write it again with mcvm verify --script") {
		t.Errorf("Read(version 1 script) = %v, want a refusal naming the version and what to do", err)
	}
	if _, err := scc.Read(data); err != nil {
		t.Errorf("Read(version %d script) = %v", scc.FormatVersion, err)
	}
}

// TestRead_everyBitFlip flips each bit of a script, of a task and of a
// partial script in turn: Read refuses every damaged file, the header's
// bytes (its verdict, figures and coverage estimate) included, except
// where the compressed payload still decompresses to the same bytes: then
// it reads the same script.
func TestRead_everyBitFlip(t *testing.T) {
	p := assemble(t, filepath.Join(conformanceDir, "counter_race.mcasm"), nil)
	_, data := verify(t, p, vm.GranTransition, true, false)
	_, part := readSplit(t, data, 2)
	_, partial, err := scc.Verify(machine(t, p, vm.GranTransition), explorer.Options{MaxStates: 5, Coverage: explorer.EstimatorWalk}, false, "none")
	if err != nil || !partial.HasCoverage() {
		t.Fatalf("Verify with MaxStates 5 = %v, want a partial script with an estimate", err)
	}
	for name, b := range map[string][]byte{"script": data, "task": scc.Encode(part.Tasks[1]), "partial": scc.Encode(partial)} {
		frame := bytes.Index(b, []byte{0x28, 0xb5, 0x2f, 0xfd}) // the zstd frame's magic number
		if frame < 0 {
			t.Fatalf("%s: no zstd frame", name)
		}
		orig := append([]byte(nil), b...)
		for i := range len(b) * 8 {
			b[i/8] ^= 1 << (i % 8)
			s, err := scc.Read(b)
			if err == nil && (i/8 < frame || !bytes.Equal(scc.Encode(s), orig)) {
				t.Errorf("%s: Read with bit %d of byte %d flipped reads a script, want an error", name, i%8, i/8)
			}
			b[i/8] ^= 1 << (i % 8)
		}
		if _, err := scc.Read(b); err != nil {
			t.Fatalf("%s: Read after the flips = %v", name, err)
		}
	}
}

// TestRead_taskRoot: a task header whose root state does not fit a state
// ID is refused (it used to be truncated to 32 bits, a negative or wrong
// root).
func TestRead_taskRoot(t *testing.T) {
	p := assemble(t, filepath.Join(conformanceDir, "counter_race.mcasm"), nil)
	_, data := verify(t, p, vm.GranTransition, true, false)
	_, part := readSplit(t, data, 2)
	task := part.Tasks[0]
	task.Root = 1<<31 - 1
	b := scc.Encode(task)
	at := bytes.Index(b, []byte{0xff, 0xff, 0xff, 0xff, 0x07})
	if at < 0 {
		t.Fatal("the root's bytes are not in the header")
	}
	b[at+4] = 0x0f // 2^32-1: int32 -1 if truncated
	if _, err := scc.Read(b); err == nil || !strings.Contains(err.Error(), "bad root state") {
		t.Errorf("Read(task with root 2^32-1) = %v, want a refusal of the root", err)
	}
}

// TestEncode_unchanged pins the bytes before the compressed payload (the
// header, and the checksum, which covers the header and the uncompressed
// payload) of the scripts of complete searches, as mcvm verify wrote them
// before the flags limit and coverage came: those flags must leave other
// scripts byte for byte what they were. (The compressed bytes depend on
// the zstd library's version, and are not pinned.)
func TestEncode_unchanged(t *testing.T) {
	p := assemble(t, modelsDir+"/philo_ok.mcasm", map[string]int64{"N": 3})
	for _, tc := range []struct {
		trustful bool
		want     string
	}{
		{false, "4d43564d5343430a0546156e52588ce03bcd0a7472616e736974696f6e046e6f6e65046e6f6e6501026f6be8018b05f3060000000000000000f306699d0500e701a40300e801ec13a4f65b6b9d5f8a6b"},
		{true, "4d43564d5343430a0554156e52588ce03bcd0a7472616e736974696f6e046e6f6e65046e6f6e6501026f6be8018b05cf030000000000000000cf03ac01f90100e7010000e801c30a1d65ff64eec0b2bc"},
	} {
		res, s, err := scc.Verify(machine(t, p, vm.GranTransition), explorer.Options{Coverage: explorer.EstimatorWalk}, tc.trustful, "none")
		if err != nil || res.Verdict != explorer.VerdictOK {
			t.Fatalf("trustful=%v: Verify = %v, %v", tc.trustful, res.Verdict, err)
		}
		b := scc.Encode(s)
		frame := bytes.Index(b, []byte{0x28, 0xb5, 0x2f, 0xfd}) // the zstd frame's magic number
		if got := fmt.Sprintf("%x", b[:max(frame, 0)]); got != tc.want {
			t.Errorf("trustful=%v: header and checksum\n%s, want\n%s", tc.trustful, got, tc.want)
		}
	}
}
