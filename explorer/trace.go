// Traces: replaying a path into readable steps, and the trail file format.
//
// Trail grammar (text, one item per line; '#' starts a comment line):
//
//	trail   = "mcvm-trail 1" NL
//	          "program" SP digest NL        (16 lowercase hex digits: bytecode.Digest)
//	          "granularity" SP ("transition" | "instruction") NL
//	          { ("escape" | "dead-locals") SP ("on" | "off") NL }   (optional, in any order)
//	          { thread SP choice NL }       (decimal integers, one line per transition)
//
// Escape analysis and dead variable reduction move where transitions end,
// so a trail names them; a "thread choice" line per transition is all a
// replay needs, since every choice begins a transition. Comment lines let
// a writer record more: mcvm check writes the verdict and the number of
// steps after the first line, and reads them back to tell a trail cut
// short from a complete one.

package explorer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"mcvm/bytecode"
	"mcvm/vm"
)

// Step is one transition of a counterexample, for people.
type Step struct {
	Thread  int32
	Method  string // Class.method, or "" for a thread with no frame
	PC      int32
	Instr   string // the first instruction of the transition, with operands
	Pos     string // its source position file:line:col
	Choice  int32  // the value taken at a choice point, or -1
	Choices int32  // how many values the choice point had (1 when none)
	Resume  bool   // a notified thread reacquiring its monitor after wait

	// Set by Describe only:
	File    string   // the source file of Pos ("" when unknown)
	Line    int32    // the source line of Pos (0 when unknown)
	Op      string   // the shared operation and what it did: "Fork#2.owner := 3", "monitorenter Fork#2"
	Woke    []int32  // the threads a notify or notifyall woke
	Access  string   // what the shared operation is: read, write, acquire, release, wait, notify, start, join, choose, begin, end ("": other)
	Target  string   // what it touched: "Fork#2", "Box#1.value", "Main.count", "int[]#1[3]", "thread 3"
	Peer    int32    // the thread a start or join names (-1: none)
	Changes []Change // the locals, statics, fields and elements the step changed, and objects it made
}

// ErrReplay is wrapped by errors of Replay: the path does not fit the program.
var ErrReplay = errors.New("trail does not replay")

// enabledStep checks that tr, step i of a path, is enabled in the state
// m holds, and returns how many choices its thread has there (buf is
// scratch, returned grown).
func enabledStep(m *vm.Machine, buf []vm.Trans, i int, tr vm.Trans) ([]vm.Trans, int32, error) {
	buf = m.Enabled(buf[:0])
	n := int32(0)
	ok := false
	for _, e := range buf {
		if e.Thread == tr.Thread {
			n++
			ok = ok || e == tr
		}
	}
	if !ok {
		return buf, n, fmt.Errorf("%w: step %d: thread %d with choice %d is not enabled", ErrReplay, i+1, tr.Thread, tr.Choice)
	}
	return buf, n, nil
}

// Replay runs path from the initial state and returns its steps and the
// fault at its end: the fault of the last transition, or, checked in the
// final state as the search does, an invariant violation or deadlock.
func Replay(m *vm.Machine, path []vm.Trans) ([]Step, *vm.Fault, error) {
	p := m.Program()
	m.Init()
	var steps []Step
	var buf []vm.Trans
	for i, tr := range path {
		var n int32
		var err error
		if buf, n, err = enabledStep(m, buf, i, tr); err != nil {
			return steps, nil, err
		}
		st := Step{Thread: tr.Thread, Choice: -1, Choices: n}
		if meth, pc := m.Where(tr.Thread); meth >= 0 {
			in := p.Methods[meth].Code[pc]
			st.Method, st.PC = p.MethodName(meth), pc
			st.Instr = bytecode.FormatInstr(p, in)
			st.Pos = p.PosString(p.InstrPos(meth, pc))
			if in.Op.Is(bytecode.FlagChoice) {
				st.Choice = tr.Choice
			}
		}
		st.Resume = m.S.Threads[tr.Thread].Status == vm.StatusNotified
		if st.Resume {
			st.Instr, st.Choice = "(reacquire monitor after wait)", -1
		}
		steps = append(steps, st)
		if f := m.Step(tr); f != nil {
			if i != len(path)-1 {
				return steps, nil, fmt.Errorf("%w: step %d faults before the end of the trail", ErrReplay, i+1)
			}
			c := *f
			return steps, &c, nil
		}
	}
	if f := m.CheckInvariants(); f != nil {
		c := *f
		return steps, &c, nil
	}
	if len(m.Enabled(buf[:0])) == 0 && m.Alive() {
		return steps, DeadlockFault(), nil
	}
	return steps, nil, nil
}

// Trail is a path with the program and the vm options (granularity,
// escape analysis, dead variable reduction) that define its transitions.
type Trail struct {
	Digest      uint64
	Granularity vm.Granularity
	Escape      bool
	DeadLocals  bool // dead locals zeroed: escape analysis then sees fewer references, so transitions can end elsewhere
	Path        []vm.Trans
}

// WriteTrail writes t in the trail format.
func WriteTrail(w io.Writer, t *Trail) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "mcvm-trail 1\nprogram %016x\ngranularity %s\n", t.Digest, t.Granularity)
	if t.Escape {
		// Escape analysis changes where transitions end. The line is
		// optional, so older trails (and trails without it) still read.
		bw.WriteString("escape on\n")
	}
	if t.DeadLocals {
		bw.WriteString("dead-locals on\n") // optional too
	}
	for _, tr := range t.Path {
		fmt.Fprintf(bw, "%d %d\n", tr.Thread, tr.Choice)
	}
	return bw.Flush()
}

// MaxTrailSteps bounds the length of a trail that ReadTrail accepts.
const MaxTrailSteps = 1 << 24

// ReadTrail parses a trail; errors name file:line:col.
func ReadTrail(name string, data []byte) (*Trail, error) {
	t := &Trail{}
	lines := bytes.Split(data, []byte("\n"))
	errf := func(line, col int, format string, args ...any) error {
		return fmt.Errorf("%s:%d:%d: %s", name, line, col, fmt.Sprintf(format, args...))
	}
	header := 0
	for i, raw := range lines {
		ln := i + 1
		s := strings.TrimRight(string(raw), "\r")
		trimmed := strings.TrimSpace(s)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		col := strings.Index(s, trimmed) + 1
		fields := strings.Fields(trimmed)
		switch header {
		case 0:
			if len(fields) != 2 || fields[0] != "mcvm-trail" {
				return nil, errf(ln, col, "not an mcvm trail file (want \"mcvm-trail 1\")")
			}
			if fields[1] != "1" {
				return nil, errf(ln, col, "trail format version %q, this mcvm reads version 1", fields[1])
			}
			header++
			continue
		case 1:
			if len(fields) != 2 || fields[0] != "program" {
				return nil, errf(ln, col, "want \"program DIGEST\"")
			}
			d, err := strconv.ParseUint(fields[1], 16, 64)
			if err != nil {
				return nil, errf(ln, col, "bad program digest %q", fields[1])
			}
			t.Digest = d
			header++
			continue
		case 2:
			if len(fields) != 2 || fields[0] != "granularity" {
				return nil, errf(ln, col, "want \"granularity transition|instruction\"")
			}
			switch fields[1] {
			case "transition":
				t.Granularity = vm.GranTransition
			case "instruction":
				t.Granularity = vm.GranInstruction
			default:
				return nil, errf(ln, col, "unknown granularity %q", fields[1])
			}
			header++
			continue
		case 3:
			// Optional option lines, in any order, before the steps.
			if fields[0] == "escape" || fields[0] == "dead-locals" {
				if len(fields) != 2 || (fields[1] != "on" && fields[1] != "off") {
					return nil, errf(ln, col, "want \"%s on|off\"", fields[0])
				}
				if fields[0] == "escape" {
					t.Escape = fields[1] == "on"
				} else {
					t.DeadLocals = fields[1] == "on"
				}
				continue
			}
			header++
		}
		if len(fields) != 2 {
			return nil, errf(ln, col, "want \"THREAD CHOICE\", got %q", trimmed)
		}
		th, err1 := strconv.ParseInt(fields[0], 10, 32)
		ch, err2 := strconv.ParseInt(fields[1], 10, 32)
		if err1 != nil || err2 != nil || th < 0 || ch < 0 {
			return nil, errf(ln, col, "bad step %q: want two non-negative integers", trimmed)
		}
		if len(t.Path) >= MaxTrailSteps {
			return nil, errf(ln, col, "trail longer than %d steps", MaxTrailSteps)
		}
		t.Path = append(t.Path, vm.Trans{Thread: int32(th), Choice: int32(ch)})
	}
	if header < 3 {
		return nil, fmt.Errorf("%s: incomplete trail header", name)
	}
	return t, nil
}

// ConcretePath is concretePath for a path found elsewhere with the
// threads sorted after every transition (a certifier of a script written
// with Options.Symmetry): it replays the path on a fresh machine like m.
func ConcretePath(m *vm.Machine, path []vm.Trans, f *vm.Fault) []vm.Trans {
	r, err := vm.New(m.Program(), m.Options())
	if err != nil {
		return path
	}
	return concretePath(r, path, f)
}

// concretePath rewrites path, found with Options.Symmetry (its thread ids
// are those of states whose threads were put in canonical order after
// every transition), into the thread ids and choices of a plain run of the
// program, and sets the thread of f, the fault at its end, to match. It
// replays the path twice in step: as the search ran it, and plainly,
// where each step takes the transition of the corresponding thread whose
// state is the search's with the threads named as in the plain run. The
// machine m is left in an unspecified state.
func concretePath(m *vm.Machine, path []vm.Trans, f *vm.Fault) []vm.Trans {
	c, err := vm.New(m.Program(), m.Options())
	if err != nil {
		return path // cannot happen: m runs the same program
	}
	out := make([]vm.Trans, 0, len(path))
	orig := []int32{0} // search's thread i is the plain run's thread orig[i]
	var inv, perm []int32
	var enabled []vm.Trans
	var snapA, snapC vm.Snapshot
	var encA, encC []byte
	m.Init()
	c.Init()
	for k, tr := range path {
		if int(tr.Thread) >= len(orig) {
			return path
		}
		th := orig[tr.Thread]
		fc := c.Step(tr)
		if fc == nil {
			// The search's state with the threads named as in the plain run.
			for i := len(orig); i < c.NumThreads(); i++ {
				orig = append(orig, int32(i)) // created by this step: same index in both runs
			}
			inv = inv[:0]
			for range orig {
				inv = append(inv, 0)
			}
			for i, o := range orig {
				inv[o] = int32(i)
			}
			c.Save(&snapC, nil)
			c.PermuteThreads(inv)
			encC = c.Encode(encC[:0])
			c.Restore(&snapC)
		}
		m.Save(&snapA, nil)
		enabled = m.Enabled(enabled[:0])
		found := false
		for _, e := range enabled {
			if e.Thread != th {
				continue
			}
			m.Restore(&snapA)
			fa := m.Step(e)
			if (fa == nil) != (fc == nil) {
				continue
			}
			if fa != nil {
				found = fa.Kind == fc.Kind && fa.Method == fc.Method && fa.PC == fc.PC && k == len(path)-1
			} else {
				encA = m.Encode(encA[:0])
				found = string(encA) == string(encC)
			}
			if found {
				out = append(out, e)
				break
			}
		}
		if !found {
			return path // cannot happen: the two runs are isomorphic
		}
		if fc != nil {
			if f.Kind == fc.Kind {
				f.Thread = th
			}
			break
		}
		perm, _ = c.SortThreads(perm)
		next := make([]int32, len(perm))
		for i, p := range perm {
			next[i] = orig[p]
		}
		orig = next
	}
	return out
}
