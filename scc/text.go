// The textual form of a script, one entry a line, as the thesis writes them.

package scc

import (
	"bufio"
	"fmt"
	"io"

	"mcvm/bytecode"
)

// WriteText writes the body of s one entry a line: "B" for a backtrack,
// otherwise "t<thread> <instruction> [c<choice>] -> S<ID>" ("new S<ID>"
// for a state not visited before, "fault" for a faulting transition) with
// "*" after the last occurrence of an ID. IDs are the script's, 0-based.
func WriteText(w io.Writer, s *Script, p *bytecode.Program) error {
	bw := bufio.NewWriter(w)
	lastNew := int32(0)
	if s.IsTask() {
		lastNew = s.Root
	}
	c := newCoder(lastNew)
	c.in = s.Body
	var e Entry
	for i := int64(0); c.more(); i++ {
		if err := c.decodeEntry(&e); err != nil {
			return corrupt(i, "bad bytes in entry %d", i)
		}
		if e.Op == OpBacktrack {
			bw.WriteString("B\n")
			continue
		}
		in := "(none)"
		if e.Instr.Op != bytecode.OpInvalid {
			in = bytecode.FormatInstr(p, e.Instr)
		}
		fmt.Fprintf(bw, "t%d %s", e.Thread, in)
		if e.Choice != 0 {
			fmt.Fprintf(bw, " c%d", e.Choice)
		}
		switch e.Op {
		case OpNew:
			fmt.Fprintf(bw, " -> new S%d", e.ID)
		case OpOld:
			fmt.Fprintf(bw, " -> S%d", e.ID)
		case OpFault:
			bw.WriteString(" -> fault")
		}
		if e.Last {
			bw.WriteString("*")
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

type counter int64

func (c *counter) Write(b []byte) (int, error) { *c += counter(len(b)); return len(b), nil }

// TextSize returns the size in bytes of the script's textual form
// (WriteText), the kind of script the thesis compressed with ZIP; 0 if the
// script does not decode.
func TextSize(s *Script, p *bytecode.Program) int64 {
	var c counter
	if WriteText(&c, s, p) != nil {
		return 0
	}
	return int64(c)
}
