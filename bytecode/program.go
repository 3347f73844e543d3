// Program: classes, fields, statics, methods, handler tables and source positions.

package bytecode

import "fmt"

// Kind is the type of a field, static, array element or value: an integer or a reference.
type Kind uint8

// Value kinds.
const (
	KindInt Kind = iota
	KindRef
)

func (k Kind) String() string {
	if k == KindRef {
		return "ref"
	}
	return "int"
}

// Instr is one decoded instruction. A and B hold the operands as the opcode's
// Operand kind says; unused operands are 0.
type Instr struct {
	Op Opcode
	A  int64
	B  int64
}

// Pos is a position in assembly source: 1-based line and rune column, and an
// index into Program.Files. The zero Pos means "unknown".
type Pos struct {
	File int32
	Line int32
	Col  int32
}

// Class is a class with single inheritance. Super is -1 only for Object.
type Class struct {
	Name   string
	Super  int32
	Fields []int32 // indices into Program.Fields of the fields this class declares
	// Slots is the number of instance slots including inherited ones; set by Link.
	Slots int32
	Pos   Pos
}

// Field is an instance field; Slot is its index in an object's slots (set by Link).
type Field struct {
	Class int32
	Name  string
	Kind  Kind
	Slot  int32
	Flags MemberFlag
	Pos   Pos
}

// Static is a static field with its initial value (an int; refs start null).
type Static struct {
	Class int32
	Name  string
	Kind  Kind
	Init  int64
	Flags MemberFlag
	Pos   Pos
}

// MemberFlag qualifies a field or static (format version 6).
type MemberFlag uint8

// Member flags.
const (
	// MemberGhost: the model's bookkeeping (an int field or static
	// declared ghost). Part of the state, read by invariants and
	// assertions; Verify checks that no ghost value flows into anything
	// else, so its accesses are not scheduling points.
	MemberGhost MemberFlag = 1 << iota
	// MemberFinal: an instance field written only by the method that
	// allocates its object, at most once, before the object is published
	// (Verify checks it), so that its reads are not scheduling points.
	MemberFinal
	memberFlags = MemberGhost | MemberFinal
)

// Ghost reports whether f is a ghost field.
func (f *Field) Ghost() bool { return f.Flags&MemberGhost != 0 }

// Final reports whether f is a final field.
func (f *Field) Final() bool { return f.Flags&MemberFinal != 0 }

// Ghost reports whether s is a ghost static.
func (s *Static) Ghost() bool { return s.Flags&MemberGhost != 0 }

// Hidden reports whether instruction in of p accesses a ghost field or
// static, or reads a final field: an access that is not a scheduling
// point (in must have valid operands).
func (p *Program) Hidden(in Instr) bool {
	switch in.Op {
	case OpGetfield:
		return p.Fields[in.A].Flags != 0
	case OpPutfield:
		return p.Fields[in.A].Ghost()
	case OpGetstatic, OpPutstatic:
		return p.Statics[in.A].Ghost()
	}
	return false
}

// Ghostly reports whether instruction in of p reads or writes a ghost
// field or static.
func (p *Program) Ghostly(in Instr) bool {
	switch in.Op {
	case OpGetfield, OpPutfield:
		return p.Fields[in.A].Ghost()
	case OpGetstatic, OpPutstatic:
		return p.Statics[in.A].Ghost()
	}
	return false
}

// MethodFlag describes a method.
type MethodFlag uint8

// Method flags.
const (
	MethodStatic  MethodFlag = 1 << iota
	MethodSync               // synchronized: the receiver's (or, if static, the class's) monitor is held during the call
	MethodReturns            // returns a value (retval); otherwise return
)

// HandlerKind is the kind of an exception handler.
type HandlerKind uint8

// Handler kinds. Format version 1 knows only HandlerCatch.
const (
	HandlerCatch   HandlerKind = iota // takes exceptions of Class or a subclass (-1: any)
	HandlerFilter                     // takes the exceptions its filter block [Filter, Target) accepts
	HandlerFinally                    // runs whenever control leaves the region
	HandlerFault                      // runs when control leaves the region by an exception
	numHandlerKinds
)

var handlerKindNames = [...]string{"catch", "filter", "finally", "fault"}

func (k HandlerKind) String() string {
	if int(k) < len(handlerKindNames) {
		return handlerKindNames[k]
	}
	return fmt.Sprintf("kind#%d", k)
}

// Handler is an exception table entry for the protected region [Start,
// End). Its handler block is [Target, HandlerEnd); a catch handler may
// leave HandlerEnd 0 (extent unknown, the form of format version 1), the
// other kinds may not. A catch or filter handler starts with the operand
// stack holding only the exception, a finally or fault handler with an
// empty one. A filter's filter block [Filter, Target) directly precedes
// its handler block and starts with only the exception on the stack. Class
// is the class a catch handler takes (-1: any) and -1 for the other kinds;
// Filter is 0 except for filters. A method lists inner regions' handlers
// before those of the regions enclosing them.
type Handler struct {
	Kind       HandlerKind
	Start      int32
	End        int32
	Target     int32
	Class      int32
	HandlerEnd int32
	Filter     int32
}

// Covers reports whether pc is in h's protected region.
func (h *Handler) Covers(pc int32) bool { return pc >= h.Start && pc < h.End }

// Takes reports whether h is a catch or filter handler: one that can take
// an exception (rather than run on the way).
func (h *Handler) Takes() bool { return h.Kind == HandlerCatch || h.Kind == HandlerFilter }

// Method is a static or instance method. For instance methods local 0 is the
// receiver and Args counts it. Locals >= Args is the number of local slots.
type Method struct {
	Class    int32
	Name     string
	Flags    MethodFlag
	Args     int32
	Locals   int32
	MaxStack int32 // computed by Verify
	Code     []Instr
	Lines    []Pos // one per instruction, or empty
	// LocalNames are the source names of the local slots, debug
	// information for traces: empty, or one per slot ("" for a slot
	// declared by count). Not part of the program's Digest.
	LocalNames []string
	Handlers   []Handler
	// Atomic lists the method's atomic regions (.atomic): a transition
	// that reaches an instruction strictly inside one goes on through the
	// region's scheduling points, as in SPIN's atomic sequences.
	Atomic []Range
	// Ends are the valid end states (.endstate): pcs where a thread may
	// stay blocked forever without the state counting as a deadlock. A
	// return there is not taken as a thread's last: the thread stays.
	Ends []int32
	Pos  Pos
}

// Range is the code [Start, End) of a method.
type Range struct {
	Start, End int32
}

// InAtomic reports whether pc is strictly inside one of m's atomic
// regions: after the region's first instruction and before its end.
func (m *Method) InAtomic(pc int32) bool {
	for _, r := range m.Atomic {
		if pc > r.Start && pc < r.End {
			return true
		}
	}
	return false
}

// IsEnd reports whether pc is one of m's valid end states.
func (m *Method) IsEnd(pc int32) bool {
	for _, e := range m.Ends {
		if e == pc {
			return true
		}
	}
	return false
}

// Static reports whether m is a static method.
func (m *Method) Static() bool { return m.Flags&MethodStatic != 0 }

// Sync reports whether m is synchronized.
func (m *Method) Sync() bool { return m.Flags&MethodSync != 0 }

// Returns reports whether m returns a value.
func (m *Method) Returns() bool { return m.Flags&MethodReturns != 0 }

// Program is a whole mcvm program. The first NumBuiltins classes are the
// built-in classes, in the order of Builtins.
type Program struct {
	Files      []string
	Classes    []Class
	Fields     []Field
	Statics    []Static
	Methods    []Method
	Strings    []string
	Entry      int32   // the static method run by thread 0, or -1 when Setup starts the threads
	Invariants []int32 // static methods returning 0/1, evaluated in every state
	// Setup lists static methods (.setup) run in order, to their end, before
	// the initial state: the threads they start exist from the initial
	// state on, as Promela's active processes do.
	Setup []int32
	// AllowLeak makes a thread that ends holding a monitor no error
	// (.allowleak).
	AllowLeak bool
}

// Qualified reports whether p has ghost or final members, which only
// format version 6 holds.
func (p *Program) Qualified() bool {
	for i := range p.Fields {
		if p.Fields[i].Flags != 0 {
			return true
		}
	}
	for i := range p.Statics {
		if p.Statics[i].Flags != 0 {
			return true
		}
	}
	return false
}

// Extended reports whether p uses what only format versions 5 and 6 hold:
// setup methods, atomic regions, valid end states or AllowLeak.
func (p *Program) Extended() bool {
	if len(p.Setup) > 0 || p.AllowLeak {
		return true
	}
	for i := range p.Methods {
		if len(p.Methods[i].Atomic) > 0 || len(p.Methods[i].Ends) > 0 {
			return true
		}
	}
	return false
}

// Built-in class indices.
const (
	ClassObject int32 = iota
	ClassThread
	ClassThrowable
	ClassException
	ClassNullPointer
	ClassArithmetic
	ClassIndexOutOfBounds
	ClassIllegalMonitorState
	ClassClassCast
	ClassNegativeArraySize
	ClassIllegalThreadState
	ClassStackOverflow
	NumBuiltins
)

// Builtins are the names and superclasses of the built-in classes.
var Builtins = [NumBuiltins]struct {
	Name  string
	Super int32
}{
	{"Object", -1},
	{"Thread", ClassObject},
	{"Throwable", ClassObject},
	{"Exception", ClassThrowable},
	{"NullPointerException", ClassException},
	{"ArithmeticException", ClassException},
	{"IndexOutOfBoundsException", ClassException},
	{"IllegalMonitorStateException", ClassException},
	{"ClassCastException", ClassException},
	{"NegativeArraySizeException", ClassException},
	{"IllegalThreadStateException", ClassException},
	{"StackOverflowError", ClassThrowable},
}

// ThreadIDField is the name of Thread's one field, an int holding the thread's id.
const ThreadIDField = "id"

// NewProgram returns a program holding only the built-in classes and
// Thread's id field.
func NewProgram() *Program {
	p := &Program{Entry: -1}
	for _, b := range Builtins {
		p.Classes = append(p.Classes, Class{Name: b.Name, Super: b.Super})
	}
	p.Fields = append(p.Fields, Field{Class: ClassThread, Name: ThreadIDField, Kind: KindInt})
	p.Classes[ClassThread].Fields = []int32{0}
	return p
}

// IsSubclass reports whether class c is d or a subclass of d. It assumes a
// linked (acyclic) program.
func (p *Program) IsSubclass(c, d int32) bool {
	for n := 0; c >= 0 && n <= len(p.Classes); n++ {
		if c == d {
			return true
		}
		c = p.Classes[c].Super
	}
	return false
}

// MethodName returns "Class.method".
func (p *Program) MethodName(m int32) string {
	if m < 0 || int(m) >= len(p.Methods) {
		return fmt.Sprintf("method#%d", m)
	}
	mm := &p.Methods[m]
	return p.className(mm.Class) + "." + mm.Name
}

// FieldName returns "Class.field".
func (p *Program) FieldName(f int32) string {
	if f < 0 || int(f) >= len(p.Fields) {
		return fmt.Sprintf("field#%d", f)
	}
	return p.className(p.Fields[f].Class) + "." + p.Fields[f].Name
}

// StaticName returns "Class.static".
func (p *Program) StaticName(s int32) string {
	if s < 0 || int(s) >= len(p.Statics) {
		return fmt.Sprintf("static#%d", s)
	}
	return p.className(p.Statics[s].Class) + "." + p.Statics[s].Name
}

func (p *Program) className(c int32) string {
	if c < 0 || int(c) >= len(p.Classes) {
		return fmt.Sprintf("class#%d", c)
	}
	return p.Classes[c].Name
}

// PosString formats pos as file:line:col ("?" when unknown).
func (p *Program) PosString(pos Pos) string {
	if pos.Line == 0 {
		return "?"
	}
	file := "?"
	if pos.File >= 0 && int(pos.File) < len(p.Files) {
		file = p.Files[pos.File]
	}
	return fmt.Sprintf("%s:%d:%d", file, pos.Line, pos.Col)
}

// InstrPos returns the source position of instruction pc of method m.
func (p *Program) InstrPos(m int32, pc int32) Pos {
	if m < 0 || int(m) >= len(p.Methods) {
		return Pos{}
	}
	l := p.Methods[m].Lines
	if pc < 0 || int(pc) >= len(l) {
		return Pos{}
	}
	return l[pc]
}

// LocalName returns the source name of local slot l of method m, or
// "local N" when the source did not name it.
func (p *Program) LocalName(m, l int32) string {
	if m >= 0 && int(m) < len(p.Methods) {
		if n := p.Methods[m].LocalNames; l >= 0 && int(l) < len(n) && n[l] != "" {
			return n[l]
		}
	}
	return fmt.Sprintf("local %d", l)
}

// FindMethod returns the index of the method named name declared in class c
// or inherited from a superclass, or -1.
func (p *Program) FindMethod(c int32, name string) int32 {
	for n := 0; c >= 0 && n <= len(p.Classes); n++ {
		for i := range p.Methods {
			if p.Methods[i].Class == c && p.Methods[i].Name == name {
				return int32(i)
			}
		}
		c = p.Classes[c].Super
	}
	return -1
}

// FindField returns the instance field named name of class c or a superclass, or -1.
func (p *Program) FindField(c int32, name string) int32 {
	for n := 0; c >= 0 && n <= len(p.Classes); n++ {
		for _, f := range p.Classes[c].Fields {
			if p.Fields[f].Name == name {
				return f
			}
		}
		c = p.Classes[c].Super
	}
	return -1
}

// FindClass returns the index of the class named name, or -1.
func (p *Program) FindClass(name string) int32 {
	for i := range p.Classes {
		if p.Classes[i].Name == name {
			return int32(i)
		}
	}
	return -1
}
