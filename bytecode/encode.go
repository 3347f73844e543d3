// The .mcb binary format: Encode, Decode and Digest.
//
// Grammar (all integers are varints: uvarint for counts and indices,
// zig-zag varint where a value may be negative; strings are a uvarint length
// then UTF-8 bytes):
//
//	file     = magic version body [checksum]
//	magic    = "MCVM\x00BC\r\n"            (10 bytes)
//	version  = uvarint                      (5 or 6; Decode also reads 1, 2 and 4: see below)
//	body     = files classes fields statics methods strings entry invariants [debug]
//	files    = count { string }
//	classes  = count { name:string super:svarint nfields { field:uvarint } pos }
//	fields   = count { class:uvarint name:string kind:byte pos }
//	statics  = count { class:uvarint name:string kind:byte init:svarint pos }
//	methods  = count { class:uvarint name:string flags:byte args:uvarint locals:uvarint
//	                   ncode { op:byte a:svarint b:svarint }
//	                   nlines { pos }
//	                   nhandlers { kind:byte start:uvarint end:uvarint target:uvarint class:svarint
//	                               [hend:uvarint filter:uvarint] }   (not in version 1)
//	                   pos }
//	strings  = count { string }
//	entry    = svarint
//	invariants = count { uvarint }
//	ext      = nsetup { method:uvarint } allowleak:byte
//	           nmethods { natomic { start:uvarint end:uvarint } nends { pc:uvarint } }
//	                                        (version 5 only, after invariants)
//	debug    = count { method:uvarint nlocals { name:string } }   (versions 5 and 6, after ext)
//	members  = nfields { flags:byte } nstatics { flags:byte }   (version 6 only, after debug)
//	pos      = file:uvarint line:uvarint col:uvarint
//	checksum = u64le: CRC-64 (ECMA) of every byte before it   (versions 4, 5 and 6)
//
// Encode writes version 6, version 5 with the members section (each
// field's and static's MemberFlag: ghost, final), for a program that has
// ghost or final members (Program.Qualified), and version 5 for the
// others, byte for byte as before version 6 existed.
// Encode writes version 5: version 4 with two sections after the
// invariants, ext (setup methods, AllowLeak, atomic regions and valid
// end states) and debug (the source names of each method's locals,
// Method.LocalNames, for traces, listed for the methods that name any).
// Version 4 is version 2's body and a checksum over the whole
// file, checked before anything is parsed. A CRC detects every error of
// up to 64 consecutive bits, so every flipped bit of a version-4 file is
// an error, and the version is 4, not 3, because no single flipped bit
// turns 4 into 1 or 2, the versions without a checksum. Version 1 has
// catch handlers only, without handler ends; version 2 added the filter,
// finally and fault handlers, handler ends (hend, 0 when unknown), filter
// blocks and the opcodes rethrow, leave, endfinally, endfault and
// endfilter. Decode still reads both; a version-1 file holds only what
// version 1 could express. Digest hashes the body of the lowest of
// versions 1 and 2 that holds the program, so digests, and the scripts
// and trails that name them, do not depend on the file version.
//
// Field slots and MaxStack are not stored: Decode recomputes them with Verify.
// Every count is checked against the bytes that remain before anything is
// allocated, so no input can make Decode allocate more than a small multiple
// of its length.

package bytecode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc64"
	"sync"

	"github.com/cespare/xxhash/v2"
)

// Magic starts every .mcb file.
const Magic = "MCVM\x00BC\r\n"

// FormatVersion is the newest version of the .mcb format, which Encode
// writes for a program with ghost or final members; Decode reads it and
// versions 1, 2, 4 and 5.
const FormatVersion = 6

// plainVersion is the version Encode writes for the other programs.
const plainVersion = 5

// checksumLen is the size of a version-4 file's checksum.
const checksumLen = 8

// crcTable is made on first use: building it costs every run of mcvm
// page faults and instructions at start, and most runs read assembly.
var crcTable = sync.OnceValue(func() *crc64.Table { return crc64.MakeTable(crc64.ECMA) })

// firstV2Opcode is the first opcode format version 1 does not have.
const firstV2Opcode = OpRethrow

// bodyVersion returns the lowest format version without a checksum (1 or
// 2) whose body holds p: the encoding Digest hashes.
func bodyVersion(p *Program) uint64 {
	if p.Qualified() {
		return FormatVersion
	}
	if p.Extended() {
		return plainVersion
	}
	for i := range p.Methods {
		m := &p.Methods[i]
		for _, h := range m.Handlers {
			if h.Kind != HandlerCatch || h.HandlerEnd != 0 || h.Filter != 0 {
				return 2
			}
		}
		for _, in := range m.Code {
			if in.Op >= firstV2Opcode {
				return 2
			}
		}
	}
	return 1
}

// ErrFormat is wrapped by every Decode error about the bytes themselves.
var ErrFormat = errors.New("malformed .mcb file")

// Encode returns the .mcb encoding of p, in format version FormatVersion
// if p has ghost or final members and plainVersion otherwise.
func Encode(p *Program) []byte {
	if p.Qualified() {
		return encode(p, FormatVersion)
	}
	return encode(p, plainVersion)
}

// encode writes p in format version ver, which must hold it.
func encode(p *Program, ver uint64) []byte {
	w := &writer{b: make([]byte, 0, 1024)}
	w.b = append(w.b, Magic...)
	w.u(ver)
	w.u(uint64(len(p.Files)))
	for _, f := range p.Files {
		w.str(f)
	}
	w.u(uint64(len(p.Classes)))
	for i := range p.Classes {
		c := &p.Classes[i]
		w.str(c.Name)
		w.s(int64(c.Super))
		w.u(uint64(len(c.Fields)))
		for _, f := range c.Fields {
			w.u(uint64(f))
		}
		w.pos(c.Pos)
	}
	w.u(uint64(len(p.Fields)))
	for i := range p.Fields {
		f := &p.Fields[i]
		w.u(uint64(f.Class))
		w.str(f.Name)
		w.b = append(w.b, byte(f.Kind))
		w.pos(f.Pos)
	}
	w.u(uint64(len(p.Statics)))
	for i := range p.Statics {
		s := &p.Statics[i]
		w.u(uint64(s.Class))
		w.str(s.Name)
		w.b = append(w.b, byte(s.Kind))
		w.s(s.Init)
		w.pos(s.Pos)
	}
	w.u(uint64(len(p.Methods)))
	for i := range p.Methods {
		m := &p.Methods[i]
		w.u(uint64(m.Class))
		w.str(m.Name)
		w.b = append(w.b, byte(m.Flags))
		w.u(uint64(m.Args))
		w.u(uint64(m.Locals))
		w.u(uint64(len(m.Code)))
		for _, in := range m.Code {
			w.b = append(w.b, byte(in.Op))
			w.s(in.A)
			w.s(in.B)
		}
		w.u(uint64(len(m.Lines)))
		for _, l := range m.Lines {
			w.pos(l)
		}
		w.u(uint64(len(m.Handlers)))
		for _, h := range m.Handlers {
			w.b = append(w.b, byte(h.Kind))
			w.u(uint64(h.Start))
			w.u(uint64(h.End))
			w.u(uint64(h.Target))
			w.s(int64(h.Class))
			if ver >= 2 {
				w.u(uint64(h.HandlerEnd))
				w.u(uint64(h.Filter))
			}
		}
		w.pos(m.Pos)
	}
	w.u(uint64(len(p.Strings)))
	for _, s := range p.Strings {
		w.str(s)
	}
	w.s(int64(p.Entry))
	w.u(uint64(len(p.Invariants)))
	for _, inv := range p.Invariants {
		w.u(uint64(inv))
	}
	if ver >= 5 {
		w.u(uint64(len(p.Setup)))
		for _, s := range p.Setup {
			w.u(uint64(s))
		}
		leak := byte(0)
		if p.AllowLeak {
			leak = 1
		}
		w.b = append(w.b, leak)
		w.u(uint64(len(p.Methods)))
		for i := range p.Methods {
			m := &p.Methods[i]
			w.u(uint64(len(m.Atomic)))
			for _, r := range m.Atomic {
				w.u(uint64(r.Start))
				w.u(uint64(r.End))
			}
			w.u(uint64(len(m.Ends)))
			for _, e := range m.Ends {
				w.u(uint64(e))
			}
		}
		var named []int
		for i := range p.Methods {
			if len(p.Methods[i].LocalNames) > 0 {
				named = append(named, i)
			}
		}
		w.u(uint64(len(named)))
		for _, i := range named {
			w.u(uint64(i))
			w.u(uint64(len(p.Methods[i].LocalNames)))
			for _, n := range p.Methods[i].LocalNames {
				w.str(n)
			}
		}
	}
	if ver >= 6 {
		w.u(uint64(len(p.Fields)))
		for i := range p.Fields {
			w.b = append(w.b, byte(p.Fields[i].Flags))
		}
		w.u(uint64(len(p.Statics)))
		for i := range p.Statics {
			w.b = append(w.b, byte(p.Statics[i].Flags))
		}
	}
	if ver >= 4 {
		w.b = binary.LittleEndian.AppendUint64(w.b, crc64.Checksum(w.b, crcTable()))
	}
	return w.b
}

// Digest returns a 64-bit hash of p's encoding without source positions, so
// that reformatting the assembly source does not change it.
func Digest(p *Program) uint64 {
	q := *p
	q.Files = nil
	q.Classes = append([]Class(nil), p.Classes...)
	for i := range q.Classes {
		q.Classes[i].Pos = Pos{}
	}
	q.Fields = append([]Field(nil), p.Fields...)
	for i := range q.Fields {
		q.Fields[i].Pos = Pos{}
	}
	q.Statics = append([]Static(nil), p.Statics...)
	for i := range q.Statics {
		q.Statics[i].Pos = Pos{}
	}
	q.Methods = append([]Method(nil), p.Methods...)
	for i := range q.Methods {
		q.Methods[i].Lines = nil
		q.Methods[i].LocalNames = nil
		q.Methods[i].Pos = Pos{}
	}
	return xxhash.Sum64(encode(&q, bodyVersion(&q)))
}

type writer struct{ b []byte }

func (w *writer) u(x uint64)   { w.b = binary.AppendUvarint(w.b, x) }
func (w *writer) s(x int64)    { w.b = binary.AppendVarint(w.b, x) }
func (w *writer) str(s string) { w.u(uint64(len(s))); w.b = append(w.b, s...) }
func (w *writer) pos(p Pos) {
	w.u(uint64(uint32(p.File)))
	w.u(uint64(uint32(p.Line)))
	w.u(uint64(uint32(p.Col)))
}

// Decode parses and verifies a .mcb file. It never panics: malformed input
// gives an error wrapping ErrFormat, a well-formed but invalid program one
// wrapping ErrInvalid.
func Decode(b []byte) (*Program, error) {
	r := &reader{b: b}
	if len(b) < len(Magic) || string(b[:len(Magic)]) != Magic {
		return nil, fmt.Errorf("%w: not an mcvm bytecode file (bad magic number)", ErrFormat)
	}
	r.off = len(Magic)
	ver := r.u()
	if r.err != nil {
		return nil, r.err
	}
	switch ver {
	case 1, 2:
	case 4, 5, 6:
		if len(b)-r.off < checksumLen {
			return nil, fmt.Errorf("%w: truncated file (no room for its checksum)", ErrFormat)
		}
		body := len(b) - checksumLen
		if crc64.Checksum(b[:body], crcTable()) != binary.LittleEndian.Uint64(b[body:]) {
			return nil, fmt.Errorf("%w: checksum mismatch: the file is damaged or truncated", ErrFormat)
		}
		r.b = b[:body]
	default:
		return nil, fmt.Errorf("%w: format version %d, this mcvm reads versions 1, 2, 4, 5 and %d", ErrFormat, ver, FormatVersion)
	}
	p := &Program{}
	p.Files = make([]string, r.count(1))
	for i := range p.Files {
		p.Files[i] = r.str()
	}
	p.Classes = make([]Class, r.count(3))
	for i := range p.Classes {
		c := &p.Classes[i]
		c.Name = r.str()
		c.Super = r.i32()
		c.Fields = make([]int32, r.count(1))
		for j := range c.Fields {
			c.Fields[j] = r.idx()
		}
		c.Pos = r.pos()
	}
	p.Fields = make([]Field, r.count(6))
	for i := range p.Fields {
		f := &p.Fields[i]
		f.Class = r.idx()
		f.Name = r.str()
		f.Kind = Kind(r.byte())
		f.Pos = r.pos()
	}
	p.Statics = make([]Static, r.count(7))
	for i := range p.Statics {
		s := &p.Statics[i]
		s.Class = r.idx()
		s.Name = r.str()
		s.Kind = Kind(r.byte())
		s.Init = r.s()
		s.Pos = r.pos()
	}
	p.Methods = make([]Method, r.count(12))
	for i := range p.Methods {
		m := &p.Methods[i]
		m.Class = r.idx()
		m.Name = r.str()
		m.Flags = MethodFlag(r.byte())
		m.Args = r.idx()
		m.Locals = r.idx()
		m.Code = make([]Instr, r.count(3))
		for j := range m.Code {
			m.Code[j] = Instr{Op: Opcode(r.byte()), A: r.s(), B: r.s()}
		}
		if n := r.count(3); n > 0 {
			m.Lines = make([]Pos, n)
			for j := range m.Lines {
				m.Lines[j] = r.pos()
			}
		}
		if n := r.count(5); n > 0 {
			m.Handlers = make([]Handler, n)
			for j := range m.Handlers {
				h := Handler{Kind: HandlerKind(r.byte()), Start: r.idx(), End: r.idx(), Target: r.idx(), Class: r.i32()}
				if ver >= 2 {
					h.HandlerEnd, h.Filter = r.idx(), r.idx()
				} else if h.Kind != HandlerCatch {
					r.fail(fmt.Sprintf("%s handler in a version-1 file", h.Kind))
				}
				m.Handlers[j] = h
			}
		}
		m.Pos = r.pos()
	}
	p.Strings = make([]string, r.count(1))
	for i := range p.Strings {
		p.Strings[i] = r.str()
	}
	p.Entry = r.i32()
	if n := r.count(1); n > 0 {
		p.Invariants = make([]int32, n)
		for i := range p.Invariants {
			p.Invariants[i] = r.idx()
		}
	}
	if ver >= 5 {
		if n := r.count(1); n > 0 {
			p.Setup = make([]int32, n)
			for i := range p.Setup {
				p.Setup[i] = r.idx()
			}
		}
		switch r.byte() {
		case 0:
		case 1:
			p.AllowLeak = true
		default:
			r.fail("bad allowleak byte")
		}
		if n := r.count(2); n != len(p.Methods) && r.err == nil {
			r.fail(fmt.Sprintf("ext section for %d methods, the program has %d", n, len(p.Methods)))
		}
		for i := 0; i < len(p.Methods) && r.err == nil; i++ {
			m := &p.Methods[i]
			if n := r.count(2); n > 0 {
				m.Atomic = make([]Range, n)
				for j := range m.Atomic {
					m.Atomic[j] = Range{r.idx(), r.idx()}
				}
			}
			if n := r.count(1); n > 0 {
				m.Ends = make([]int32, n)
				for j := range m.Ends {
					m.Ends[j] = r.idx()
				}
			}
		}
		n := r.count(2)
		for k := 0; k < n && r.err == nil; k++ {
			mi := r.idx()
			names := make([]string, r.count(1))
			for j := range names {
				names[j] = r.str()
			}
			switch {
			case r.err != nil:
			case int(mi) >= len(p.Methods):
				r.fail(fmt.Sprintf("local names of method %d of %d", mi, len(p.Methods)))
			case len(names) != int(p.Methods[mi].Locals) || p.Methods[mi].LocalNames != nil:
				r.fail(fmt.Sprintf("method %d: %d local names for %d locals, or named twice", mi, len(names), p.Methods[mi].Locals))
			default:
				p.Methods[mi].LocalNames = names
			}
		}
	}
	if ver >= 6 {
		if n := r.count(1); n != len(p.Fields) && r.err == nil {
			r.fail(fmt.Sprintf("member flags for %d fields, the program has %d", n, len(p.Fields)))
		}
		for i := 0; i < len(p.Fields) && r.err == nil; i++ {
			p.Fields[i].Flags = MemberFlag(r.byte())
		}
		if n := r.count(1); n != len(p.Statics) && r.err == nil {
			r.fail(fmt.Sprintf("member flags for %d statics, the program has %d", n, len(p.Statics)))
		}
		for i := 0; i < len(p.Statics) && r.err == nil; i++ {
			p.Statics[i].Flags = MemberFlag(r.byte())
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if r.off != len(r.b) {
		return nil, fmt.Errorf("%w: %d trailing bytes at offset %d", ErrFormat, len(r.b)-r.off, r.off)
	}
	if err := Verify(p); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return p, nil
}

type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s at offset %d", ErrFormat, what, r.off)
	}
	r.off = len(r.b)
}

func (r *reader) u() uint64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.fail("bad or truncated varint")
		return 0
	}
	r.off += n
	return x
}

func (r *reader) s() int64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Varint(r.b[r.off:])
	if n <= 0 {
		r.fail("bad or truncated varint")
		return 0
	}
	r.off += n
	return x
}

func (r *reader) byte() byte {
	if r.err != nil {
		return 0
	}
	if r.off >= len(r.b) {
		r.fail("truncated file")
		return 0
	}
	c := r.b[r.off]
	r.off++
	return c
}

// count reads a count of items each at least min bytes long and fails if
// the remaining input cannot hold them.
func (r *reader) count(min int) int {
	n := r.u()
	if r.err != nil {
		return 0
	}
	if n > uint64(len(r.b)-r.off)/uint64(min) {
		r.fail(fmt.Sprintf("count %d exceeds the remaining input", n))
		return 0
	}
	return int(n)
}

// idx reads a non-negative int32.
func (r *reader) idx() int32 {
	x := r.u()
	if x > 1<<31-1 {
		r.fail("index out of range")
		return 0
	}
	return int32(x)
}

func (r *reader) i32() int32 {
	x := r.s()
	if x < -1<<31 || x > 1<<31-1 {
		r.fail("value out of range")
		return 0
	}
	return int32(x)
}

func (r *reader) str() string {
	n := r.count(1)
	if r.err != nil {
		return ""
	}
	s := string(r.b[r.off : r.off+n])
	r.off += n
	return s
}

func (r *reader) pos() Pos {
	return Pos{File: r.idx(), Line: r.idx(), Col: r.idx()}
}
