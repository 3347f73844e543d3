// Disassemble: a Program back to .mcasm assembly source.

package bytecode

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Disassemble returns assembly source for p. Assembling the result gives a
// program with the same Digest whenever p's members are grouped by class in
// index order and its strings are in order of first use, as in every
// program the assembler produces: classes, fields, statics and methods are
// printed in index order, the entry point is always named with .entry, and
// locals are declared by count (.locals N). Parameters are named aN after
// their local slot and locals are referred to by number. Labels are named
// L<pc> after their target. Built-in classes are not printed; a comment at
// the top notes anything that cannot be reproduced exactly. Disassemble
// never panics, even on a program that does not verify: an operand out of
// range is printed in a form the assembler rejects, such as class#12.
func Disassemble(p *Program) string {
	d := &disasm{p: p}
	d.header()
	for c := NumBuiltins; int(c) < len(p.Classes); c++ {
		d.class(c)
	}
	d.orphans()
	d.b.WriteString("\n")
	for _, s := range p.Setup {
		fmt.Fprintf(&d.b, ".setup %s\n", p.MethodName(s))
	}
	if p.AllowLeak {
		d.b.WriteString(".allowleak\n")
	}
	if p.Entry >= 0 && int(p.Entry) < len(p.Methods) {
		fmt.Fprintf(&d.b, ".entry %s\n", p.MethodName(p.Entry))
	} else if p.Entry != -1 || len(p.Setup) == 0 {
		fmt.Fprintf(&d.b, "; no valid entry method (%d)\n", p.Entry)
	}
	for _, inv := range p.Invariants {
		fmt.Fprintf(&d.b, ".invariant %s\n", p.MethodName(inv))
	}
	return d.b.String()
}

type disasm struct {
	p *Program
	b strings.Builder
}

// header writes the source file names and notes on what does not round-trip.
func (d *disasm) header() {
	p := d.p
	d.b.WriteString("; mcvm disassembly")
	if len(p.Files) > 0 {
		names := make([]string, len(p.Files))
		for i, f := range p.Files {
			names[i] = inComment(f)
		}
		fmt.Fprintf(&d.b, " of %s", strings.Join(names, ", "))
	}
	d.b.WriteString("\n")
	for _, n := range d.notes() {
		fmt.Fprintf(&d.b, "; note: %s\n", n)
	}
}

// notes lists the ways in which reassembling the output would not give back p.
func (d *disasm) notes() []string {
	p := d.p
	var notes []string
	// Strings in order of first use.
	var used []string
	seen := map[string]bool{}
	for i := range p.Methods {
		for _, in := range p.Methods[i].Code {
			if in.Op.Info().Operand == OperandString && in.A >= 0 && in.A < int64(len(p.Strings)) {
				if s := p.Strings[in.A]; !seen[s] {
					seen[s] = true
					used = append(used, s)
				}
			}
		}
	}
	if !slices.Equal(used, p.Strings) {
		notes = append(notes, "the string table is not in order of first use; reassembly reorders it")
	}
	// Members in the order the output declares them.
	var fields, statics, methods []int
	for c := NumBuiltins; int(c) < len(p.Classes); c++ {
		for _, f := range p.Classes[c].Fields {
			fields = append(fields, int(f))
		}
		for i := range p.Statics {
			if p.Statics[i].Class == c {
				statics = append(statics, i)
			}
		}
		for i := range p.Methods {
			if p.Methods[i].Class == c {
				methods = append(methods, i)
			}
		}
	}
	inOrder := func(idx []int, first, n int) bool {
		if len(idx) != n-first {
			return false
		}
		for i, x := range idx {
			if x != first+i {
				return false
			}
		}
		return true
	}
	if !inOrder(fields, 1, len(p.Fields)) || !inOrder(statics, 0, len(p.Statics)) || !inOrder(methods, 0, len(p.Methods)) {
		notes = append(notes, "members are not grouped by class in index order, or belong to built-in classes; reassembly renumbers them")
	}
	return notes
}

func (d *disasm) class(c int32) {
	p := d.p
	cl := &p.Classes[c]
	d.b.WriteString("\n")
	fmt.Fprintf(&d.b, ".class %s", cl.Name)
	if cl.Super != ClassObject {
		fmt.Fprintf(&d.b, " extends %s", p.className(cl.Super))
	}
	d.b.WriteString("\n")
	for _, f := range cl.Fields {
		if f >= 0 && int(f) < len(p.Fields) {
			fmt.Fprintf(&d.b, ".field %s%s %s\n", modifiers(p.Fields[f].Flags), p.Fields[f].Name, p.Fields[f].Kind)
		}
	}
	for i := range p.Statics {
		if s := &p.Statics[i]; s.Class == c {
			d.static(s)
		}
	}
	for i := range p.Methods {
		if p.Methods[i].Class == c {
			d.method(int32(i))
		}
	}
}

func (d *disasm) static(s *Static) {
	fmt.Fprintf(&d.b, ".static %s%s %s", modifiers(s.Flags), s.Name, s.Kind)
	if s.Init != 0 {
		fmt.Fprintf(&d.b, " = %d", s.Init)
	}
	d.b.WriteString("\n")
}

// modifiers returns the declaration's modifiers for flags, each followed
// by a space.
func modifiers(flags MemberFlag) string {
	s := ""
	if flags&MemberGhost != 0 {
		s += "ghost "
	}
	if flags&MemberFinal != 0 {
		s += "final "
	}
	return s
}

// orphans prints, as comments, members of built-in or invalid classes,
// which the assembly language cannot declare.
func (d *disasm) orphans() {
	p := d.p
	user := func(c int32) bool { return c >= NumBuiltins && int(c) < len(p.Classes) }
	for i := range p.Fields {
		if f := &p.Fields[i]; !user(f.Class) && !(i == 0 && f.Class == ClassThread && f.Name == ThreadIDField) {
			fmt.Fprintf(&d.b, "; field %s of class %s cannot be declared in assembly\n", inComment(f.Name), inComment(p.className(f.Class)))
		}
	}
	for i := range p.Statics {
		if s := &p.Statics[i]; !user(s.Class) {
			fmt.Fprintf(&d.b, "; static %s of class %s cannot be declared in assembly\n", inComment(s.Name), inComment(p.className(s.Class)))
		}
	}
	for i := range p.Methods {
		if !user(p.Methods[i].Class) {
			fmt.Fprintf(&d.b, "; method %s cannot be declared in assembly\n", inComment(p.MethodName(int32(i))))
		}
	}
}

func (d *disasm) method(mi int32) {
	p := d.p
	m := &p.Methods[mi]
	d.b.WriteString("\n.method ")
	if m.Static() {
		d.b.WriteString("static ")
	}
	if m.Sync() {
		d.b.WriteString("synchronized ")
	}
	d.b.WriteString(m.Name)
	d.b.WriteString("(")
	first := int32(0)
	if !m.Static() {
		first = 1
	}
	for i := first; i < m.Args; i++ {
		if i > first {
			d.b.WriteString(", ")
		}
		fmt.Fprintf(&d.b, "a%d", i)
	}
	d.b.WriteString(")")
	if m.Returns() {
		d.b.WriteString(" returns")
	}
	if m.Flags&^(MethodStatic|MethodSync|MethodReturns) != 0 {
		fmt.Fprintf(&d.b, " ; invalid flags %#x", m.Flags)
	}
	d.b.WriteString("\n")
	if n := m.Locals - max(m.Args, first); n > 0 {
		fmt.Fprintf(&d.b, ".locals %d\n", n)
	}

	n := int64(len(m.Code))
	labels := map[int64]bool{}
	target := func(pc int64) string {
		if pc < 0 || pc > n {
			return fmt.Sprintf("pc#%d", pc)
		}
		labels[pc] = true
		return "L" + strconv.FormatInt(pc, 10)
	}
	for _, h := range m.Handlers {
		switch h.Kind {
		case HandlerCatch:
			class := "any"
			if h.Class != -1 {
				class = p.className(h.Class)
			}
			fmt.Fprintf(&d.b, ".catch %s %s %s %s", class, target(int64(h.Start)), target(int64(h.End)), target(int64(h.Target)))
			if h.HandlerEnd != 0 {
				fmt.Fprintf(&d.b, " %s", target(int64(h.HandlerEnd)))
			}
		case HandlerFilter:
			fmt.Fprintf(&d.b, ".filter %s %s %s %s %s", target(int64(h.Start)), target(int64(h.End)),
				target(int64(h.Filter)), target(int64(h.Target)), target(int64(h.HandlerEnd)))
		case HandlerFinally, HandlerFault:
			fmt.Fprintf(&d.b, ".%s %s %s %s %s", h.Kind, target(int64(h.Start)), target(int64(h.End)),
				target(int64(h.Target)), target(int64(h.HandlerEnd)))
		default:
			fmt.Fprintf(&d.b, "; invalid handler kind %d", h.Kind)
		}
		d.b.WriteString("\n")
	}
	for _, r := range m.Atomic {
		fmt.Fprintf(&d.b, ".atomic %s %s\n", target(int64(r.Start)), target(int64(r.End)))
	}
	for _, e := range m.Ends {
		fmt.Fprintf(&d.b, ".endstate %s\n", target(int64(e)))
	}
	text := make([]string, len(m.Code))
	for pc, in := range m.Code {
		text[pc] = d.instr(m, in, target)
	}
	for pc, t := range text {
		if labels[int64(pc)] {
			fmt.Fprintf(&d.b, "L%d:\n", pc)
		}
		if pc < len(m.Lines) && m.Lines[pc].Line > 0 {
			fmt.Fprintf(&d.b, "    %-31s ; %s\n", t, d.where(m.Lines[pc]))
		} else {
			fmt.Fprintf(&d.b, "    %s\n", t)
		}
	}
	if labels[n] {
		fmt.Fprintf(&d.b, "L%d:\n", n)
	}
	d.b.WriteString(".end\n")
}

// where formats a source position for a comment: the line alone in the
// first (main) file, file:line in others.
func (d *disasm) where(pos Pos) string {
	if pos.File == 0 {
		return fmt.Sprintf("line %d", pos.Line)
	}
	if pos.File > 0 && int(pos.File) < len(d.p.Files) {
		return fmt.Sprintf("%s:%d", inComment(d.p.Files[pos.File]), pos.Line)
	}
	return fmt.Sprintf("?:%d", pos.Line)
}

// instr formats one instruction.
func (d *disasm) instr(m *Method, in Instr, target func(int64) string) string {
	p := d.p
	name := in.Op.String()
	if !in.Op.Valid() {
		return fmt.Sprintf("invalid ; opcode %d", in.Op)
	}
	idx := func(n int) int32 {
		if in.A < 0 || in.A >= int64(n) {
			return -1
		}
		return int32(in.A)
	}
	var s string
	switch in.Op.Info().Operand {
	case OperandNone:
		s = name
	case OperandInt, OperandLocal, OperandCount:
		s = fmt.Sprintf("%s %d", name, in.A)
	case OperandLocInt:
		s = fmt.Sprintf("%s %d %d", name, in.A, in.B)
	case OperandLabel:
		s = name + " " + target(in.A)
	case OperandClass:
		if c := idx(len(p.Classes)); c >= 0 {
			s = name + " " + p.Classes[c].Name
		} else {
			s = fmt.Sprintf("%s class#%d", name, in.A)
		}
	case OperandField:
		if f := idx(len(p.Fields)); f >= 0 {
			s = name + " " + p.FieldName(f)
		} else {
			s = fmt.Sprintf("%s field#%d", name, in.A)
		}
	case OperandStatic:
		if x := idx(len(p.Statics)); x >= 0 {
			s = name + " " + p.StaticName(x)
		} else {
			s = fmt.Sprintf("%s static#%d", name, in.A)
		}
	case OperandMethod:
		if x := idx(len(p.Methods)); x >= 0 {
			s = name + " " + p.MethodName(x)
		} else {
			s = fmt.Sprintf("%s method#%d", name, in.A)
		}
	case OperandString:
		if x := idx(len(p.Strings)); x >= 0 {
			s = name + " " + strconv.Quote(p.Strings[x])
		} else {
			s = fmt.Sprintf("%s string#%d", name, in.A)
		}
	}
	if in.Op.Info().Operand != OperandLocInt && in.B != 0 {
		s += fmt.Sprintf(" ; operand B is %d", in.B)
	}
	if in.Op.Info().Operand == OperandNone && in.A != 0 {
		s += fmt.Sprintf(" ; operand A is %d", in.A)
	}
	return s
}

// inComment quotes s if it would end the comment it is printed in.
func inComment(s string) string {
	if strings.ContainsAny(s, "\n\r") {
		return strconv.Quote(s)
	}
	return s
}

// FormatInstr renders one instruction of p with symbolic operands, as the
// disassembler does; branch targets are shown as "@pc".
func FormatInstr(p *Program, in Instr) string {
	d := &disasm{p: p}
	return d.instr(nil, in, func(pc int64) string { return "@" + strconv.FormatInt(pc, 10) })
}
