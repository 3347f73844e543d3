// The assembler: source lines to a bytecode.Program, then resolution and verification.

package asm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"mcvm/bytecode"
)

// Options configures Assemble. The zero value defines nothing and reads
// included files with os.ReadFile.
type Options struct {
	// Defines overrides the values of .const declarations by name, as the
	// command line's -D NAME=VALUE does. A define that names no .const is
	// an error.
	Defines map[string]int64
	// ReadFile reads the main file (AssembleFile only) and included files;
	// nil means os.ReadFile.
	ReadFile func(name string) ([]byte, error)
}

// Limits on the input.
const (
	MaxSource       = 16 << 20 // bytes of source in total, included files counted
	MaxIncludeDepth = 16       // nesting of .include
)

// DefaultAssertMessage is the message of an assert written without one.
const DefaultAssertMessage = "assertion failed"

// AssembleFile reads the file at path and assembles it; see Assemble.
func AssembleFile(path string, opts Options) (*bytecode.Program, error) {
	read := opts.ReadFile
	if read == nil {
		read = os.ReadFile
	}
	src, err := read(path)
	if err != nil {
		return nil, err
	}
	return Assemble(path, src, opts)
}

// Assemble translates the source text of filename into a verified program.
// Included files are named relative to the including file's directory. On
// failure it returns a nil program and an ErrorList. It never panics.
func Assemble(filename string, src []byte, opts Options) (*bytecode.Program, error) {
	a := newAssembler(filename, opts)
	if len(src) > MaxSource {
		a.errorAt(bytecode.Pos{}, "source is %d bytes, more than the limit of %d", len(src), MaxSource)
		return nil, finish(a.errs, a.dropped)
	}
	a.total = len(src)
	a.incStack = []string{filepath.Clean(filename)}
	a.file(filename, src, 0)
	if a.m != nil {
		a.unclosed()
	}
	a.curLine = 0
	if a.dropped > 0 {
		return nil, finish(a.errs, a.dropped)
	}
	a.resolve()
	if len(a.errs) == 0 {
		a.verify()
	}
	if len(a.errs) > 0 || a.dropped > 0 {
		return nil, finish(a.errs, a.dropped)
	}
	return a.p, nil
}

type assembler struct {
	opts     Options
	read     func(string) ([]byte, error)
	p        *bytecode.Program
	errs     []*Error
	dropped  int
	fileIdx  map[string]int32
	incStack []string
	total    int

	// The line being assembled: a second error on it is dropped, since it
	// is usually a consequence of the first.
	curFile int32
	curLine int32
	lineBad bool

	consts     map[string]int64
	constPos   map[string]bytecode.Pos
	constNames []string

	classByName map[string]int32
	supers      map[int32]nameRef // declared superclasses of user classes
	members     []members         // per class
	cls         int32             // the current class, or -1
	m           *method           // the open method, or nil

	strs       map[string]int32
	fixups     []fixup
	entry      *qualRef
	invs       []qualRef
	setups     []qualRef
	handlerPos map[int32][]bytecode.Pos // per method, the directive of each handler
}

// members indexes the members a class declares by name.
type members struct {
	fields, statics, methods map[string]int32
}

// nameRef is a name used at a position.
type nameRef struct {
	name string
	pos  bytecode.Pos
}

// qualRef is a CLASS.MEMBER reference.
type qualRef struct {
	class, member nameRef
}

// method is the method being assembled.
type method struct {
	idx     int32 // index in Program.Methods, or -1 for a method that is not kept
	name    string
	pos     bytecode.Pos
	locals  map[string]int32
	names   []string // named locals, for suggestions
	nlocals int32
	code    []bytecode.Instr
	lines   []bytecode.Pos
	labels  map[string]label
	refs    []labelRef
	catches []catch
	atomics []atomicDir
	ends    []nameRef
	tooLong bool
}

type label struct {
	pc  int32
	pos bytecode.Pos
}

type labelRef struct {
	pc int32
	nameRef
}

// catch is a handler directive: .catch, .filter, .finally or .fault.
type catch struct {
	kind             bytecode.HandlerKind
	pos              bytecode.Pos
	class            nameRef // .catch only; name "" for any
	from, to, target nameRef
	filter           nameRef // .filter only
	hend             nameRef // name "" when not given (.catch only)
}

// atomicDir is an .atomic directive.
type atomicDir struct {
	pos      bytecode.Pos
	from, to nameRef
}

type fixKind uint8

const (
	fixClass fixKind = iota
	fixField
	fixStatic
	fixMethod
	fixHandler // the class of handler pc of method
)

// fixup is an operand naming a class or member, resolved once every class is known.
type fixup struct {
	kind   fixKind
	method int32
	pc     int32
	qualRef
}

var mnemonics = func() []string {
	var s []string
	for op := bytecode.Opcode(1); op.Valid(); op++ {
		s = append(s, op.String())
	}
	return s
}()

var directives = []string{".const", ".include", ".class", ".field", ".static", ".method", ".locals", ".catch", ".filter", ".finally", ".fault", ".end", ".entry", ".invariant", ".setup", ".atomic", ".endstate", ".allowleak"}

func newAssembler(filename string, opts Options) *assembler {
	a := &assembler{
		opts:        opts,
		read:        opts.ReadFile,
		p:           bytecode.NewProgram(),
		fileIdx:     map[string]int32{},
		consts:      map[string]int64{},
		constPos:    map[string]bytecode.Pos{},
		classByName: map[string]int32{},
		supers:      map[int32]nameRef{},
		strs:        map[string]int32{},
		cls:         -1,
	}
	if a.read == nil {
		a.read = os.ReadFile
	}
	a.addFile(filename)
	for i := range a.p.Classes {
		a.classByName[a.p.Classes[i].Name] = int32(i)
		a.members = append(a.members, newMembers())
	}
	for i := range a.p.Fields {
		f := &a.p.Fields[i]
		a.members[f.Class].fields[f.Name] = int32(i)
	}
	return a
}

func newMembers() members {
	return members{fields: map[string]int32{}, statics: map[string]int32{}, methods: map[string]int32{}}
}

func (a *assembler) addFile(name string) int32 {
	if i, ok := a.fileIdx[name]; ok {
		return i
	}
	i := int32(len(a.p.Files))
	a.p.Files = append(a.p.Files, name)
	a.fileIdx[name] = i
	return i
}

// errorAt records an error at pos (the zero Pos: no position, main file).
func (a *assembler) errorAt(pos bytecode.Pos, format string, args ...any) {
	if pos.Line != 0 && pos.Line == a.curLine && pos.File == a.curFile {
		if a.lineBad {
			return
		}
		a.lineBad = true
	}
	if len(a.errs) >= maxStored {
		a.dropped++
		return
	}
	file := a.p.Files[0]
	if pos.File >= 0 && int(pos.File) < len(a.p.Files) {
		file = a.p.Files[pos.File]
	}
	a.errs = append(a.errs, &Error{File: file, Line: int(pos.Line), Col: int(pos.Col), Msg: fmt.Sprintf(format, args...), file: pos.File})
}

// posString formats pos for "first defined at" notes: the line alone within
// the current file, file:line otherwise.
func (a *assembler) posString(pos bytecode.Pos) string {
	if pos.File == a.curFile && a.curLine != 0 {
		return fmt.Sprintf("line %d", pos.Line)
	}
	return fmt.Sprintf("%s:%d", a.p.Files[pos.File], pos.Line)
}

// file assembles the lines of one source file.
func (a *assembler) file(name string, src []byte, depth int) {
	fi := a.addFile(name)
	s := string(src)
	for line := int32(1); len(s) > 0; line++ {
		if len(a.errs) >= maxStored {
			// Enough to report; the rest would only cost time.
			a.dropped++
			return
		}
		l := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			l, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		if line == 1 {
			l = strings.TrimPrefix(l, "\uFEFF")
		}
		a.curFile, a.curLine, a.lineBad = fi, line, false
		a.line(name, fi, line, l, depth)
	}
}

// line assembles one line: a directive, a label, an instruction, or a label
// and an instruction.
func (a *assembler) line(name string, fi, line int32, text string, depth int) {
	toks, lerr := lexLine(text)
	if lerr != nil {
		a.errorAt(bytecode.Pos{File: fi, Line: line, Col: lerr.col}, "%s", lerr.msg)
	}
	if len(toks) == 0 {
		return
	}
	lp := &lineParser{a: a, toks: toks, file: fi, line: line}
	t0 := &toks[0]
	if t0.kind == tokPunct && t0.text == "." {
		lp.i = 1
		d := lp.peek()
		if d == nil || d.kind != tokIdent || d.col != t0.col+1 {
			a.errorAt(lp.pos(t0.col), "expected a directive name after \".\"")
			return
		}
		lp.i++
		a.directive(lp, "."+d.text, lp.pos(t0.col), name, depth)
		return
	}
	if t0.kind == tokIdent && len(toks) > 1 && toks[1].kind == tokPunct && toks[1].text == ":" {
		a.label(t0.text, lp.pos(t0.col))
		lp.i = 2
		if lp.atEnd() {
			return
		}
	}
	t := lp.peek()
	if t.kind != tokIdent {
		a.errorAt(lp.pos(t.col), "expected a directive, label or instruction, found %s", describe(t))
		return
	}
	a.instr(lp)
}

func (a *assembler) directive(lp *lineParser, name string, pos bytecode.Pos, file string, depth int) {
	switch name {
	case ".const":
		a.dConst(lp)
	case ".include":
		a.dInclude(lp, pos, file, depth)
	case ".class":
		a.dClass(lp, pos)
	case ".field":
		a.dField(lp, pos)
	case ".static":
		a.dStatic(lp, pos)
	case ".method":
		a.dMethod(lp, pos)
	case ".locals":
		a.dLocals(lp, pos)
	case ".catch":
		a.dCatch(lp, pos, bytecode.HandlerCatch)
	case ".filter":
		a.dCatch(lp, pos, bytecode.HandlerFilter)
	case ".finally":
		a.dCatch(lp, pos, bytecode.HandlerFinally)
	case ".fault":
		a.dCatch(lp, pos, bytecode.HandlerFault)
	case ".end":
		if a.m == nil {
			a.errorAt(pos, ".end outside a method")
			return
		}
		lp.end(".end")
		a.closeMethod()
	case ".entry":
		q, ok := lp.qualified("CLASS.METHOD")
		if !ok || !lp.end(".entry") {
			return
		}
		if a.entry != nil {
			a.errorAt(pos, "duplicate .entry (first at %s)", a.posString(a.entry.class.pos))
			return
		}
		a.entry = &q
	case ".invariant":
		q, ok := lp.qualified("CLASS.METHOD")
		if ok && lp.end(".invariant") {
			a.invs = append(a.invs, q)
		}
	case ".setup":
		q, ok := lp.qualified("CLASS.METHOD")
		if ok && lp.end(".setup") {
			a.setups = append(a.setups, q)
		}
	case ".allowleak":
		if lp.end(".allowleak") {
			a.p.AllowLeak = true
		}
	case ".atomic":
		if a.m == nil {
			a.errorAt(pos, ".atomic outside a method")
			return
		}
		d := atomicDir{pos: pos}
		for i, r := range []*nameRef{&d.from, &d.to} {
			t, ok := lp.ident([]string{"start label", "end label"}[i])
			if !ok {
				return
			}
			*r = nameRef{t.text, lp.pos(t.col)}
		}
		if lp.end(".atomic") {
			a.m.atomics = append(a.m.atomics, d)
		}
	case ".endstate":
		if a.m == nil {
			a.errorAt(pos, ".endstate outside a method")
			return
		}
		for first := true; first || !lp.atEnd(); first = false {
			t, ok := lp.ident("label")
			if !ok {
				return
			}
			a.m.ends = append(a.m.ends, nameRef{t.text, lp.pos(t.col)})
		}
	default:
		a.errorAt(pos, "unknown directive %q%s", name, didYouMean(name, directives))
	}
}

func (a *assembler) dConst(lp *lineParser) {
	n, ok := lp.ident("constant name")
	if !ok {
		return
	}
	v, ok := lp.expr()
	if ok {
		lp.end(".const")
	}
	pos := lp.pos(n.col)
	if first, dup := a.constPos[n.text]; dup {
		a.errorAt(pos, "constant %q redefined (first defined at %s)", n.text, a.posString(first))
		return
	}
	if d, ok := a.opts.Defines[n.text]; ok {
		v = d
	}
	// Defined even when its expression is bad, to avoid a cascade of
	// "undefined constant" errors.
	a.consts[n.text] = v
	a.constPos[n.text] = pos
	a.constNames = append(a.constNames, n.text)
}

func (a *assembler) dInclude(lp *lineParser, pos bytecode.Pos, including string, depth int) {
	t := lp.peek()
	if t == nil || t.kind != tokString {
		a.errorAt(lp.pos(lp.col()), "expected a quoted file name after .include, found %s", describe(t))
		return
	}
	lp.i++
	if !lp.end(".include") {
		return
	}
	path := t.str
	if path == "" {
		a.errorAt(pos, "empty .include file name")
		return
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(including), path)
	}
	path = filepath.Clean(path)
	if slices.Contains(a.incStack, path) {
		chain := append(slices.Clone(a.incStack[slices.Index(a.incStack, path):]), path)
		a.errorAt(pos, "include cycle: %s", strings.Join(chain, " -> "))
		return
	}
	if depth+1 > MaxIncludeDepth {
		a.errorAt(pos, "includes nested more than %d deep", MaxIncludeDepth)
		return
	}
	src, err := a.read(path)
	if err != nil {
		a.errorAt(pos, "cannot include %q: %v", t.str, err)
		return
	}
	if a.total += len(src); a.total > MaxSource {
		a.errorAt(pos, "sources exceed the limit of %d bytes in total", MaxSource)
		return
	}
	a.incStack = append(a.incStack, path)
	fi, line := a.curFile, a.curLine
	a.file(path, src, depth+1)
	a.curFile, a.curLine, a.lineBad = fi, line, true
	a.incStack = a.incStack[:len(a.incStack)-1]
}

func (a *assembler) dClass(lp *lineParser, pos bytecode.Pos) {
	if a.m != nil {
		a.unclosed()
	}
	a.cls = -1
	n, ok := lp.ident("class name")
	if !ok {
		return
	}
	var super nameRef
	if t := lp.peek(); t != nil {
		if t.kind != tokIdent || t.text != "extends" {
			a.errorAt(lp.pos(t.col), "expected \"extends\" or end of line after the class name, found %s", describe(t))
		} else {
			lp.i++
			if s, ok := lp.ident("superclass name"); ok && lp.end(".class") {
				super = nameRef{s.text, lp.pos(s.col)}
			}
		}
	}
	// A class is created even when the line has errors, so that its
	// members do not cause a cascade of "outside a class" errors; a
	// class with a bad name is just not registered under it.
	register := true
	npos := lp.pos(n.col)
	if c, dup := a.classByName[n.text]; dup {
		if c < bytecode.NumBuiltins {
			a.errorAt(npos, "cannot redeclare built-in class %q (extend it instead)", n.text)
		} else {
			a.errorAt(npos, "class %q already declared at %s", n.text, a.posString(a.p.Classes[c].Pos))
		}
		register = false
	} else if n.text == "any" {
		a.errorAt(npos, "\"any\" is reserved (it means every class in .catch) and cannot name a class")
		register = false
	}
	c := int32(len(a.p.Classes))
	a.p.Classes = append(a.p.Classes, bytecode.Class{Name: n.text, Super: bytecode.ClassObject, Pos: pos})
	a.members = append(a.members, newMembers())
	if register {
		a.classByName[n.text] = c
	}
	if super.name != "" {
		a.supers[c] = super
	}
	a.cls = c
}

// inClass checks that a member directive has a class to belong to.
func (a *assembler) inClass(d string, pos bytecode.Pos) bool {
	if a.m != nil {
		a.unclosed()
	}
	if a.cls < 0 {
		a.errorAt(pos, "%s outside a class (start one with .class NAME)", d)
		return false
	}
	return true
}

func (lp *lineParser) kind() (bytecode.Kind, bool) {
	t, ok := lp.ident("kind (int or ref)")
	if !ok {
		return 0, false
	}
	switch t.text {
	case "int":
		return bytecode.KindInt, true
	case "ref":
		return bytecode.KindRef, true
	}
	lp.a.errorAt(lp.pos(t.col), "unknown kind %q (want int or ref)", t.text)
	return 0, false
}

// modifier reads the ghost or final before a member's name: a word
// followed by the name and the kind (so that a member may be named ghost
// or final). It returns the flags and whether the line can
// go on.
func (lp *lineParser) modifier(what string, allowed bytecode.MemberFlag) (bytecode.MemberFlag, bool) {
	t := lp.peek()
	if t == nil || t.kind != tokIdent || lp.i+2 >= len(lp.toks) || lp.toks[lp.i+1].kind != tokIdent ||
		lp.toks[lp.i+2].kind != tokIdent || lp.toks[lp.i+2].text != "int" && lp.toks[lp.i+2].text != "ref" {
		return 0, true
	}
	var f bytecode.MemberFlag
	switch t.text {
	case "ghost":
		f = bytecode.MemberGhost
	case "final":
		f = bytecode.MemberFinal
	default:
		lp.a.errorAt(lp.pos(t.col), "unknown modifier %q of %s (want ghost or final)%s", t.text, what, didYouMean(t.text, []string{"ghost", "final"}))
		return 0, false
	}
	lp.i++
	if f&allowed == 0 {
		lp.a.errorAt(lp.pos(t.col), "a %s cannot be %s (final applies to instance fields)", what, t.text)
		return 0, false
	}
	return f, true
}

// ghostKind checks that a ghost member, whose kind is at pos, is an int.
func (a *assembler) ghostKind(flags bytecode.MemberFlag, k bytecode.Kind, pos bytecode.Pos, what string) bool {
	if flags&bytecode.MemberGhost != 0 && k != bytecode.KindInt {
		a.errorAt(pos, "a ghost %s must be an int: a ghost reference would keep objects reachable", what)
		return false
	}
	return true
}

func (a *assembler) dField(lp *lineParser, pos bytecode.Pos) {
	if !a.inClass(".field", pos) {
		return
	}
	flags, ok := lp.modifier("field", bytecode.MemberGhost|bytecode.MemberFinal)
	if !ok {
		return
	}
	n, ok := lp.ident("field name")
	if !ok {
		return
	}
	kpos := lp.pos(lp.col())
	k, ok := lp.kind()
	if !ok || !lp.end(".field") || !a.ghostKind(flags, k, kpos, "field") {
		return
	}
	mem := a.members[a.cls]
	if f, dup := mem.fields[n.text]; dup {
		a.errorAt(lp.pos(n.col), "field %q already declared in class %q at %s", n.text, a.p.Classes[a.cls].Name, a.posString(a.p.Fields[f].Pos))
		return
	}
	f := int32(len(a.p.Fields))
	a.p.Fields = append(a.p.Fields, bytecode.Field{Class: a.cls, Name: n.text, Kind: k, Flags: flags, Pos: pos})
	a.p.Classes[a.cls].Fields = append(a.p.Classes[a.cls].Fields, f)
	mem.fields[n.text] = f
}

func (a *assembler) dStatic(lp *lineParser, pos bytecode.Pos) {
	if !a.inClass(".static", pos) {
		return
	}
	flags, ok := lp.modifier("static", bytecode.MemberGhost)
	if !ok {
		return
	}
	n, ok := lp.ident("static name")
	if !ok {
		return
	}
	kpos := lp.pos(lp.col())
	k, ok := lp.kind()
	if !ok || !a.ghostKind(flags, k, kpos, "static") {
		return
	}
	var init int64
	if t := lp.peek(); t != nil && t.kind == tokPunct && t.text == "=" {
		lp.i++
		if k == bytecode.KindRef {
			a.errorAt(lp.pos(t.col), "a ref static cannot have an initial value (it starts null)")
			return
		}
		if init, ok = lp.expr(); !ok {
			return
		}
	}
	if !lp.end(".static") {
		return
	}
	mem := a.members[a.cls]
	if s, dup := mem.statics[n.text]; dup {
		a.errorAt(lp.pos(n.col), "static %q already declared in class %q at %s", n.text, a.p.Classes[a.cls].Name, a.posString(a.p.Statics[s].Pos))
		return
	}
	s := int32(len(a.p.Statics))
	a.p.Statics = append(a.p.Statics, bytecode.Static{Class: a.cls, Name: n.text, Kind: k, Init: init, Flags: flags, Pos: pos})
	mem.statics[n.text] = s
}

// dMethod parses
//
//	.method [static] [synchronized] NAME(P1, P2, ...) [returns]
//
// and opens the method even when the line has errors, so that its body
// does not cause a cascade of "outside a method" errors.
func (a *assembler) dMethod(lp *lineParser, pos bytecode.Pos) {
	m := &method{idx: -1, pos: pos, locals: map[string]int32{}, labels: map[string]label{}}
	ok := a.inClass(".method", pos)
	a.m = m
	if !ok {
		return
	}
	var words []token
	for t := lp.peek(); t != nil && t.kind == tokIdent; t = lp.peek() {
		words = append(words, *t)
		lp.i++
	}
	if len(words) == 0 {
		a.errorAt(lp.pos(lp.col()), "expected method name, found %s", describe(lp.peek()))
		return
	}
	var flags bytecode.MethodFlag
	for _, w := range words[:len(words)-1] {
		var f bytecode.MethodFlag
		switch w.text {
		case "static":
			f = bytecode.MethodStatic
		case "synchronized":
			f = bytecode.MethodSync
		default:
			a.errorAt(lp.pos(w.col), "unknown method modifier %q (want static or synchronized)", w.text)
			continue
		}
		if flags&f != 0 {
			a.errorAt(lp.pos(w.col), "duplicate modifier %q", w.text)
		}
		flags |= f
	}
	n := words[len(words)-1]
	m.name = n.text
	if flags&bytecode.MethodStatic == 0 {
		m.locals["this"] = 0
		m.names = append(m.names, "this")
		m.nlocals = 1
	}
	// Parameters.
	good := lp.punct("(", "after the method name")
	if good && !lp.isPunct(")") {
		for {
			p, ok := lp.ident("parameter name")
			if !ok {
				good = false
				break
			}
			a.declareLocal(p.text, lp.pos(p.col))
			if lp.isPunct(",") {
				lp.i++
				continue
			}
			break
		}
	}
	args := m.nlocals
	if good && lp.punct(")", "after the parameters") {
		if t := lp.peek(); t != nil && t.kind == tokIdent && t.text == "returns" {
			lp.i++
			flags |= bytecode.MethodReturns
		}
		if t := lp.peek(); t != nil {
			a.errorAt(lp.pos(t.col), "expected \"returns\" or end of line after the parameters, found %s", describe(t))
		}
	}
	mem := a.members[a.cls]
	if prev, dup := mem.methods[n.text]; dup {
		a.errorAt(lp.pos(n.col), "method %q already declared in class %q at %s", n.text, a.p.Classes[a.cls].Name, a.posString(a.p.Methods[prev].Pos))
		return
	}
	m.idx = int32(len(a.p.Methods))
	a.p.Methods = append(a.p.Methods, bytecode.Method{Class: a.cls, Name: n.text, Flags: flags, Args: args, Pos: pos})
	mem.methods[n.text] = m.idx
}

// declareLocal adds a named local to the open method.
func (a *assembler) declareLocal(name string, pos bytecode.Pos) {
	m := a.m
	if _, dup := m.locals[name]; dup {
		a.errorAt(pos, "local %q already declared", name)
		return
	}
	if m.nlocals >= bytecode.MaxLocals {
		a.errorAt(pos, "more than %d locals", bytecode.MaxLocals)
		return
	}
	m.locals[name] = m.nlocals
	m.names = append(m.names, name)
	m.nlocals++
}

// dLocals parses ".locals NAME [NAME ...]" or ".locals N".
func (a *assembler) dLocals(lp *lineParser, pos bytecode.Pos) {
	m := a.m
	if m == nil {
		a.errorAt(pos, ".locals outside a method")
		return
	}
	t := lp.peek()
	if t == nil {
		a.errorAt(pos, ".locals needs local names or a count")
		return
	}
	if t.kind == tokInt {
		lp.i++
		if !lp.end(".locals") {
			return
		}
		if t.val > uint64(bytecode.MaxLocals-m.nlocals) {
			a.errorAt(lp.pos(t.col), "more than %d locals", bytecode.MaxLocals)
			return
		}
		m.nlocals += int32(t.val)
		return
	}
	for !lp.atEnd() {
		n, ok := lp.ident("local name")
		if !ok {
			return
		}
		a.declareLocal(n.text, lp.pos(n.col))
	}
}

// dCatch parses a handler directive:
//
//	.catch CLASS|any FROM TO HANDLER [HANDLER_END]
//	.filter FROM TO FILTER HANDLER HANDLER_END
//	.finally FROM TO HANDLER HANDLER_END
//	.fault FROM TO HANDLER HANDLER_END
func (a *assembler) dCatch(lp *lineParser, pos bytecode.Pos, kind bytecode.HandlerKind) {
	name := "." + kind.String()
	if a.m == nil {
		a.errorAt(pos, "%s outside a method", name)
		return
	}
	c := catch{kind: kind, pos: pos}
	var refs []*nameRef
	var whats []string
	switch kind {
	case bytecode.HandlerCatch:
		refs = []*nameRef{&c.class, &c.from, &c.to, &c.target}
		whats = []string{"exception class or any", "start label", "end label", "handler label"}
	case bytecode.HandlerFilter:
		refs = []*nameRef{&c.from, &c.to, &c.filter, &c.target, &c.hend}
		whats = []string{"start label", "end label", "filter label", "handler label", "handler end label"}
	default:
		refs = []*nameRef{&c.from, &c.to, &c.target, &c.hend}
		whats = []string{"start label", "end label", "handler label", "handler end label"}
	}
	for i, r := range refs {
		t, ok := lp.ident(whats[i])
		if !ok {
			return
		}
		*r = nameRef{t.text, lp.pos(t.col)}
	}
	if kind == bytecode.HandlerCatch && !lp.atEnd() {
		t, ok := lp.ident("handler end label")
		if !ok {
			return
		}
		c.hend = nameRef{t.text, lp.pos(t.col)}
	}
	if !lp.end(name) {
		return
	}
	if c.class.name == "any" {
		c.class.name = ""
	}
	a.m.catches = append(a.m.catches, c)
}

// unclosed reports the open method as lacking .end and closes it.
func (a *assembler) unclosed() {
	a.errorAt(a.m.pos, "method %q has no .end", a.m.name)
	a.closeMethod()
}

// closeMethod resolves the open method's labels and handlers and stores its code.
func (a *assembler) closeMethod() {
	m := a.m
	a.m = nil
	n := int32(len(m.code))
	find := func(r nameRef) (int32, bool) {
		l, ok := m.labels[r.name]
		if !ok {
			a.errorAt(r.pos, "unknown label %q%s", r.name, didYouMean(r.name, slices.Sorted(mapKeys(m.labels))))
		}
		return l.pc, ok
	}
	for _, r := range m.refs {
		pc, ok := find(r.nameRef)
		if !ok {
			continue
		}
		if pc == n {
			a.errorAt(r.pos, "label %q is after the last instruction; a branch needs an instruction to jump to", r.name)
			continue
		}
		m.code[r.pc].A = int64(pc)
	}
	var handlers []bytecode.Handler
	var hpos []bytecode.Pos
	for _, c := range m.catches {
		from, ok1 := find(c.from)
		to, ok2 := find(c.to)
		target, ok3 := find(c.target)
		var hend, filter int32
		ok4, ok5 := true, true
		if c.hend.name != "" {
			hend, ok4 = find(c.hend)
		}
		if c.kind == bytecode.HandlerFilter {
			filter, ok5 = find(c.filter)
		}
		if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
			continue
		}
		name := "." + c.kind.String()
		if from >= to {
			a.errorAt(c.from.pos, "empty %s range: label %q is not before label %q", name, c.from.name, c.to.name)
			continue
		}
		if target == n {
			a.errorAt(c.target.pos, "handler label %q is after the last instruction", c.target.name)
			continue
		}
		if c.hend.name != "" && hend <= target {
			a.errorAt(c.hend.pos, "empty handler block: label %q is not after label %q", c.hend.name, c.target.name)
			continue
		}
		if c.kind == bytecode.HandlerFilter && filter >= target {
			a.errorAt(c.filter.pos, "empty filter block: label %q is not before the handler label %q (the filter block ends where the handler starts)", c.filter.name, c.target.name)
			continue
		}
		if c.class.name != "" && m.idx >= 0 {
			a.fixups = append(a.fixups, fixup{kind: fixHandler, method: m.idx, pc: int32(len(handlers)), qualRef: qualRef{class: c.class}})
		}
		handlers = append(handlers, bytecode.Handler{Kind: c.kind, Start: from, End: to, Target: target, Class: -1, HandlerEnd: hend, Filter: filter})
		hpos = append(hpos, c.pos)
	}
	var atomics []bytecode.Range
	for _, d := range m.atomics {
		from, ok1 := find(d.from)
		to, ok2 := find(d.to)
		if !ok1 || !ok2 {
			continue
		}
		if from >= to {
			a.errorAt(d.from.pos, "empty .atomic range: label %q is not before label %q", d.from.name, d.to.name)
			continue
		}
		overlap := false
		for i, r := range atomics {
			if from < r.End && r.Start < to {
				a.errorAt(d.pos, ".atomic range overlaps the one at %s (atomic regions do not nest)", a.posString(m.atomics[i].pos))
				overlap = true
				break
			}
		}
		if !overlap {
			atomics = append(atomics, bytecode.Range{Start: from, End: to})
		}
	}
	var ends []int32
	for _, r := range m.ends {
		pc, ok := find(r)
		if !ok {
			continue
		}
		if pc == n {
			a.errorAt(r.pos, "label %q is after the last instruction; a valid end state needs an instruction", r.name)
			continue
		}
		if !slices.Contains(ends, pc) {
			ends = append(ends, pc)
		}
	}
	if m.idx < 0 {
		return
	}
	pm := &a.p.Methods[m.idx]
	pm.Atomic = atomics
	pm.Ends = ends
	pm.Locals = m.nlocals
	if len(m.locals) > 0 {
		pm.LocalNames = make([]string, m.nlocals)
		for name, slot := range m.locals {
			pm.LocalNames[slot] = name
		}
	}
	pm.Code = m.code
	pm.Lines = m.lines
	pm.Handlers = handlers
	if a.handlerPos == nil {
		a.handlerPos = map[int32][]bytecode.Pos{}
	}
	a.handlerPos[m.idx] = hpos
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func (a *assembler) label(name string, pos bytecode.Pos) {
	m := a.m
	if m == nil {
		a.errorAt(pos, "label %q outside a method", name)
		return
	}
	if l, dup := m.labels[name]; dup {
		a.errorAt(pos, "duplicate label %q (first defined at %s)", name, a.posString(l.pos))
		return
	}
	m.labels[name] = label{pc: int32(len(m.code)), pos: pos}
}

// operandDoc says what each operand kind looks like, for "needs an operand" errors.
var operandDoc = [...]string{
	bytecode.OperandInt:    "an integer expression",
	bytecode.OperandLocal:  "a local name or number",
	bytecode.OperandLocInt: "a local and an integer expression",
	bytecode.OperandLabel:  "a label",
	bytecode.OperandClass:  "a class name",
	bytecode.OperandField:  "CLASS.FIELD",
	bytecode.OperandStatic: "CLASS.STATIC",
	bytecode.OperandMethod: "CLASS.METHOD",
	bytecode.OperandString: "a quoted string",
	bytecode.OperandCount:  "a count expression",
}

func (a *assembler) instr(lp *lineParser) {
	t := lp.next()
	pos := lp.pos(t.col)
	op, ok := bytecode.Lookup(t.text)
	if !ok {
		a.errorAt(pos, "unknown mnemonic %q%s", t.text, didYouMean(t.text, mnemonics))
		return
	}
	m := a.m
	if m == nil {
		a.errorAt(pos, "instruction %q outside a method", t.text)
		return
	}
	if len(m.code) >= bytecode.MaxCode {
		if !m.tooLong {
			a.errorAt(pos, "method %q has more than %d instructions", m.name, bytecode.MaxCode)
			m.tooLong = true
		}
		return
	}
	pc := int32(len(m.code))
	m.code = append(m.code, bytecode.Instr{Op: op})
	m.lines = append(m.lines, pos)
	in := &m.code[pc]
	kind := op.Info().Operand
	if kind == bytecode.OperandNone {
		if u := lp.peek(); u != nil {
			a.errorAt(lp.pos(u.col), "%q takes no operand", t.text)
		}
		return
	}
	if lp.atEnd() && !(op == bytecode.OpAssert) {
		a.errorAt(pos, "%q needs an operand: %s", t.text, operandDoc[kind])
		return
	}
	switch kind {
	case bytecode.OperandInt:
		v, ok := lp.expr()
		if !ok {
			return
		}
		in.A = v
	case bytecode.OperandLocal:
		l, ok := lp.local()
		if !ok {
			return
		}
		in.A = int64(l)
	case bytecode.OperandLocInt:
		l, ok := lp.local()
		if !ok {
			return
		}
		if lp.atEnd() {
			a.errorAt(pos, "%q needs an operand: %s", t.text, operandDoc[kind])
			return
		}
		v, ok := lp.expr()
		if !ok {
			return
		}
		in.A, in.B = int64(l), v
	case bytecode.OperandLabel:
		n, ok := lp.ident("label")
		if !ok {
			return
		}
		m.refs = append(m.refs, labelRef{pc, nameRef{n.text, lp.pos(n.col)}})
	case bytecode.OperandClass:
		n, ok := lp.ident("class name")
		if !ok {
			return
		}
		a.fixup(fixClass, pc, qualRef{class: nameRef{n.text, lp.pos(n.col)}})
	case bytecode.OperandField, bytecode.OperandStatic, bytecode.OperandMethod:
		q, ok := lp.qualified(operandDoc[kind])
		if !ok {
			return
		}
		k := fixMethod
		switch kind {
		case bytecode.OperandField:
			k = fixField
		case bytecode.OperandStatic:
			k = fixStatic
		}
		a.fixup(k, pc, q)
	case bytecode.OperandString:
		s := DefaultAssertMessage
		if u := lp.peek(); u != nil {
			if u.kind != tokString {
				a.errorAt(lp.pos(u.col), "%q needs a quoted string, found %s", t.text, describe(u))
				return
			}
			lp.i++
			s = u.str
		}
		in.A = int64(a.intern(s))
	case bytecode.OperandCount:
		c := lp.col()
		v, ok := lp.expr()
		if !ok {
			return
		}
		if v < 1 || v > bytecode.MaxChoose {
			a.errorAt(lp.pos(c), "%s count %d out of range 1..%d", t.text, v, bytecode.MaxChoose)
			return
		}
		in.A = v
	}
	lp.end(t.text)
}

func (a *assembler) fixup(k fixKind, pc int32, q qualRef) {
	if a.m.idx >= 0 {
		a.fixups = append(a.fixups, fixup{kind: k, method: a.m.idx, pc: pc, qualRef: q})
	}
}

func (a *assembler) intern(s string) int32 {
	if i, ok := a.strs[s]; ok {
		return i
	}
	i := int32(len(a.p.Strings))
	a.p.Strings = append(a.p.Strings, s)
	a.strs[s] = i
	return i
}

// local parses a local operand: a name declared in the method or a number.
func (lp *lineParser) local() (int32, bool) {
	a := lp.a
	t := lp.next()
	switch t.kind {
	case tokIdent:
		l, ok := a.m.locals[t.text]
		if !ok {
			a.errorAt(lp.pos(t.col), "unknown local %q%s", t.text, didYouMean(t.text, a.m.names))
		}
		return l, ok
	case tokInt:
		if t.val >= bytecode.MaxLocals {
			a.errorAt(lp.pos(t.col), "local %s out of range", t.text)
			return 0, false
		}
		return int32(t.val), true
	}
	a.errorAt(lp.pos(t.col), "expected a local name or number, found %s", describe(&t))
	return 0, false
}

// resolve fills in the operands that name classes and members, the
// superclasses, the entry point and the invariants.
func (a *assembler) resolve() {
	p := a.p
	// Superclasses, in class order for deterministic messages.
	for c := bytecode.NumBuiltins; int(c) < len(p.Classes); c++ {
		s, ok := a.supers[c]
		if !ok {
			continue
		}
		if sc, ok := a.class(s); ok {
			p.Classes[c].Super = sc
		}
	}
	// Cycles: a class whose superclass chain comes back to it.
	var cyclic []int32
	for c := bytecode.NumBuiltins; int(c) < len(p.Classes); c++ {
		s := p.Classes[c].Super
		for n := 0; s >= 0 && n < len(p.Classes) && s != c; n++ {
			s = p.Classes[s].Super
		}
		if s == c {
			chain := []string{p.Classes[c].Name}
			for s := p.Classes[c].Super; s != c; s = p.Classes[s].Super {
				chain = append(chain, p.Classes[s].Name)
			}
			chain = append(chain, p.Classes[c].Name)
			a.errorAt(p.Classes[c].Pos, "cyclic inheritance: %s", strings.Join(chain, " extends "))
			cyclic = append(cyclic, c)
		}
	}
	for _, c := range cyclic {
		p.Classes[c].Super = bytecode.ClassObject
	}
	for i := range a.fixups {
		a.resolveFixup(&a.fixups[i])
	}
	// The entry point.
	if a.entry != nil {
		if m, ok := a.member(fixMethod, *a.entry); ok {
			if mm := &p.Methods[m]; !mm.Static() || mm.Args != 0 {
				a.errorAt(a.entry.member.pos, "entry method %s must be static with no parameters", p.MethodName(m))
			}
			p.Entry = m
		}
	} else if len(a.setups) > 0 {
		p.Entry = -1 // no main thread: the setup methods start the threads
	} else {
		var mains []int32
		for i := range p.Methods {
			if m := &p.Methods[i]; m.Name == "main" && m.Static() && m.Args == 0 {
				mains = append(mains, int32(i))
			}
		}
		switch len(mains) {
		case 0:
			if len(a.errs) > 0 {
				break // probably a consequence of an earlier error
			}
			a.errorAt(bytecode.Pos{}, "no entry point: declare a static method main() or name one with .entry CLASS.METHOD")
		case 1:
			p.Entry = mains[0]
		default:
			var names []string
			for _, m := range mains {
				names = append(names, p.MethodName(m))
			}
			a.errorAt(p.Methods[mains[1]].Pos, "several static methods main() (%s): choose one with .entry CLASS.METHOD", strings.Join(names, ", "))
		}
	}
	for _, q := range a.setups {
		m, ok := a.member(fixMethod, q)
		if !ok {
			continue
		}
		if mm := &p.Methods[m]; !mm.Static() || mm.Args != 0 || mm.Returns() {
			a.errorAt(q.member.pos, "setup method %s must be a static method with no parameters that returns no value", p.MethodName(m))
			continue
		}
		p.Setup = append(p.Setup, m)
	}
	for _, q := range a.invs {
		m, ok := a.member(fixMethod, q)
		if !ok {
			continue
		}
		if mm := &p.Methods[m]; !mm.Static() || mm.Args != 0 || !mm.Returns() {
			a.errorAt(q.member.pos, "invariant %s must be a static method with no parameters that returns a value", p.MethodName(m))
			continue
		}
		p.Invariants = append(p.Invariants, m)
	}
	for _, d := range slices.Sorted(mapKeys(a.opts.Defines)) {
		if _, ok := a.consts[d]; !ok {
			a.errorAt(bytecode.Pos{}, "-D %s: no .const %s in the program%s", d, d, didYouMean(d, a.constNames))
		}
	}
}

func (a *assembler) resolveFixup(f *fixup) {
	m := &a.p.Methods[f.method]
	switch f.kind {
	case fixClass:
		if c, ok := a.class(f.class); ok {
			m.Code[f.pc].A = int64(c)
		}
	case fixHandler:
		if c, ok := a.class(f.class); ok {
			if !a.p.IsSubclass(c, bytecode.ClassThrowable) {
				a.errorAt(f.class.pos, "cannot catch %q: it does not extend Throwable", f.class.name)
				return
			}
			m.Handlers[f.pc].Class = c
		}
	default:
		if x, ok := a.member(f.kind, f.qualRef); ok {
			m.Code[f.pc].A = int64(x)
		}
	}
}

// class looks up a class by name, reporting an unknown one.
func (a *assembler) class(r nameRef) (int32, bool) {
	if c, ok := a.classByName[r.name]; ok {
		return c, true
	}
	a.errorAt(r.pos, "unknown class %q%s", r.name, didYouMean(r.name, slices.Sorted(mapKeys(a.classByName))))
	return -1, false
}

var kindNames = [...]string{fixField: "field", fixStatic: "static", fixMethod: "method"}

func (mem *members) table(k fixKind) map[string]int32 {
	switch k {
	case fixField:
		return mem.fields
	case fixStatic:
		return mem.statics
	}
	return mem.methods
}

// member looks up CLASS.NAME as a field, static or method declared in the
// class or inherited from a superclass, reporting an unknown one.
func (a *assembler) member(k fixKind, q qualRef) (int32, bool) {
	c, ok := a.class(q.class)
	if !ok {
		return -1, false
	}
	if x := a.lookup(k, c, q.member.name); x >= 0 {
		return x, true
	}
	// A member of another kind with this name makes a better message.
	for _, other := range []fixKind{fixField, fixStatic, fixMethod} {
		if other != k && a.lookup(other, c, q.member.name) >= 0 {
			a.errorAt(q.member.pos, "%s.%s is a %s, not a %s", q.class.name, q.member.name, kindNames[other], kindNames[k])
			return -1, false
		}
	}
	var names []string
	a.walk(c, func(c int32) {
		names = slices.AppendSeq(names, mapKeys(a.members[c].table(k)))
	})
	slices.Sort(names)
	a.errorAt(q.member.pos, "unknown %s %q in class %q%s", kindNames[k], q.member.name, q.class.name, didYouMean(q.member.name, names))
	return -1, false
}

func (a *assembler) lookup(k fixKind, c int32, name string) int32 {
	x := int32(-1)
	a.walk(c, func(c int32) {
		if y, ok := a.members[c].table(k)[name]; ok && x < 0 {
			x = y
		}
	})
	return x
}

// walk calls f for c and its superclasses, nearest first. It is bounded
// even if the hierarchy has a cycle.
func (a *assembler) walk(c int32, f func(int32)) {
	for n := 0; c >= 0 && n <= len(a.p.Classes); n++ {
		f(c)
		c = a.p.Classes[c].Super
	}
}

// verify runs bytecode.Verify and reports its errors at source positions.
func (a *assembler) verify() {
	p := a.p
	err := bytecode.Verify(p)
	if err == nil {
		return
	}
	var ve bytecode.VerifyErrors
	if !errors.As(err, &ve) {
		a.errorAt(bytecode.Pos{}, "%v", err)
		return
	}
	for _, e := range ve {
		var pos bytecode.Pos
		msg := e.Msg
		if e.Method >= 0 && int(e.Method) < len(p.Methods) {
			prefix := p.MethodName(e.Method)
			if e.PC >= 0 {
				prefix += fmt.Sprintf(" pc %d", e.PC)
			}
			msg = strings.TrimPrefix(msg, prefix+": ")
			pos = p.Methods[e.Method].Pos
			if e.PC >= 0 {
				pos = p.InstrPos(e.Method, e.PC)
			}
			if hp := a.handlerPos[e.Method]; e.Handler >= 0 && int(e.Handler) < len(hp) {
				pos = hp[e.Handler]
				msg = strings.TrimPrefix(e.Msg, prefix+": ")
			}
		}
		a.errorAt(pos, "%s", msg)
	}
}

// lineParser reads the tokens of one line.
type lineParser struct {
	a    *assembler
	toks []token
	i    int
	file int32
	line int32
}

func (lp *lineParser) peek() *token {
	if lp.i < len(lp.toks) {
		return &lp.toks[lp.i]
	}
	return nil
}

// next returns the current token and advances; the caller has checked that
// there is one.
func (lp *lineParser) next() token {
	t := lp.toks[lp.i]
	lp.i++
	return t
}

func (lp *lineParser) atEnd() bool { return lp.i >= len(lp.toks) }

func (lp *lineParser) pos(col int32) bytecode.Pos {
	return bytecode.Pos{File: lp.file, Line: lp.line, Col: col}
}

// col is the column of the current token, or just past the last one.
func (lp *lineParser) col() int32 {
	if t := lp.peek(); t != nil {
		return t.col
	}
	return lp.endCol()
}

func (lp *lineParser) endCol() int32 {
	if len(lp.toks) == 0 {
		return 1
	}
	t := &lp.toks[len(lp.toks)-1]
	return t.col + int32(utf8.RuneCountInString(t.text))
}

func (lp *lineParser) isPunct(s string) bool {
	t := lp.peek()
	return t != nil && t.kind == tokPunct && t.text == s
}

// punct expects the punctuation s.
func (lp *lineParser) punct(s, where string) bool {
	if lp.isPunct(s) {
		lp.i++
		return true
	}
	lp.a.errorAt(lp.pos(lp.col()), "expected %q %s, found %s", s, where, describe(lp.peek()))
	return false
}

// ident expects a name.
func (lp *lineParser) ident(what string) (token, bool) {
	t := lp.peek()
	if t == nil || t.kind != tokIdent {
		lp.a.errorAt(lp.pos(lp.col()), "expected %s, found %s", what, describe(t))
		return token{}, false
	}
	lp.i++
	return *t, true
}

// qualified expects CLASS.NAME.
func (lp *lineParser) qualified(what string) (qualRef, bool) {
	c, ok := lp.ident(what)
	if !ok {
		return qualRef{}, false
	}
	if !lp.isPunct(".") {
		lp.a.errorAt(lp.pos(lp.col()), "expected %s, found %s", what, describe(lp.peek()))
		return qualRef{}, false
	}
	lp.i++
	m, ok := lp.ident(what)
	if !ok {
		return qualRef{}, false
	}
	return qualRef{nameRef{c.text, lp.pos(c.col)}, nameRef{m.text, lp.pos(m.col)}}, true
}

// end reports anything left on the line after what.
func (lp *lineParser) end(what string) bool {
	if t := lp.peek(); t != nil {
		lp.a.errorAt(lp.pos(t.col), "unexpected %s after %s", describe(t), what)
		return false
	}
	return true
}

// describe names a token for "found ..." in messages.
func describe(t *token) string {
	switch {
	case t == nil:
		return "end of line"
	case t.kind == tokString:
		return "string " + t.text
	}
	return fmt.Sprintf("%q", t.text)
}
