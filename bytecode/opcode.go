// The opcode table: every instruction's number, mnemonic, operands, stack effect and flags.

package bytecode

// Opcode identifies an instruction. The zero value is OpInvalid.
type Opcode uint8

// The instruction set. Each constant carries its stack picture: the values it
// pops (top of stack rightmost) -> the values it pushes. docs/isa.md is checked
// against this table by a test.
const (
	OpInvalid Opcode = iota

	// Stack and locals.
	OpNop      //  ->
	OpPush     //  -> n               (operand: int constant)
	OpPushNull //  -> null
	OpPop      // a ->
	OpDup      // a -> a a
	OpSwap     // a b -> b a
	OpLoad     //  -> v               (operand: local)
	OpStore    // v ->                (operand: local)
	OpInc      //  ->                 (operands: local, int; local += int)

	// Integer arithmetic, bitwise operations and comparisons (int64, wrapping).
	OpAdd  // a b -> a+b
	OpSub  // a b -> a-b
	OpMul  // a b -> a*b
	OpDiv  // a b -> a/b          (b == 0 throws ArithmeticException)
	OpRem  // a b -> a%b          (b == 0 throws ArithmeticException)
	OpNeg  // a -> -a
	OpAnd  // a b -> a&b
	OpOr   // a b -> a|b
	OpXor  // a b -> a^b
	OpShl  // a b -> a<<(b&63)
	OpShr  // a b -> a>>(b&63)    (arithmetic)
	OpUshr // a b -> a>>>(b&63)   (logical)
	OpNot  // a -> a==0 ? 1 : 0
	OpEq   // a b -> a==b ? 1 : 0 (ints, or references by identity)
	OpNe   // a b -> a!=b ? 1 : 0 (ints, or references by identity)
	OpLt   // a b -> a<b ? 1 : 0
	OpLe   // a b -> a<=b ? 1 : 0
	OpGt   // a b -> a>b ? 1 : 0
	OpGe   // a b -> a>=b ? 1 : 0

	// Control flow.
	OpGoto      //  ->         (operand: label)
	OpIfz       // a ->        (jump if a == 0)
	OpIfnz      // a ->        (jump if a != 0)
	OpIfeq      // a b ->      (jump if a == b)
	OpIfne      // a b ->      (jump if a != b)
	OpIflt      // a b ->      (jump if a < b)
	OpIfle      // a b ->      (jump if a <= b)
	OpIfgt      // a b ->      (jump if a > b)
	OpIfge      // a b ->      (jump if a >= b)
	OpIfnull    // r ->        (jump if r is null)
	OpIfnonnull // r ->        (jump if r is not null)

	// Objects, fields, statics and arrays.
	OpNew         //  -> r              (operand: class)
	OpGetfield    // r -> v             (operand: field)
	OpPutfield    // r v ->             (operand: field)
	OpGetstatic   //  -> v              (operand: static)
	OpPutstatic   // v ->               (operand: static)
	OpInstanceof  // r -> 0|1           (operand: class; null gives 0)
	OpCheckcast   // r -> r             (operand: class; throws ClassCastException)
	OpNewarray    // n -> r             (array of n ints, all 0)
	OpNewrefarray // n -> r             (array of n references, all null)
	OpArrload     // r i -> v
	OpArrstore    // r i v ->
	OpArrlen      // r -> n

	// Calls.
	OpInvokestatic  // a1..an -> [v]      (operand: method)
	OpInvokevirtual // r a1..an -> [v]    (operand: method; dispatched on r's class)
	OpReturn        //  ->                (return from a void method)
	OpRetval        // v ->               (return v to the caller)

	// Threads.
	OpNewthread // a1..an -> t          (operand: static method; t is a Thread object, not yet started)
	OpStart     // t ->
	OpJoin      // t ->                 (enabled once t has ended)
	OpYield     //  ->
	OpTid       //  -> id               (the current thread's id; main is 0)

	// Monitors, wait and notify (Java semantics).
	OpMonitorenter // r ->              (enabled when r's monitor is free or owned by this thread)
	OpMonitorexit  // r ->
	OpWait         // r ->              (releases r's monitor fully; reacquires it with the same count)
	OpNotify       // r ->              (wakes one waiter, chosen nondeterministically)
	OpNotifyall    // r ->

	// Nondeterminism, properties and output.
	OpChoose  //  -> k              (operand: n >= 1; k is each of 0..n-1 in turn)
	OpChooseb //  -> k              (k is each of 0, 1 in turn)
	OpAssert  // a ->               (operand: message; a == 0 is an assertion violation)
	OpPrint   //  ->                (operand: string; written in run mode)
	OpPrinti  // a ->               (writes a in decimal in run mode)

	// Exceptions.
	OpThrow      // r ->             (two passes: finds a handler, then runs the finally/fault handlers on the way)
	OpRethrow    //  ->              (rethrows the exception the enclosing catch handler handles)
	OpLeave      // ... ->           (operand: label; empties the stack, runs the finally handlers of the regions it exits)
	OpEndfinally //  ->              (ends a finally handler: the leave or unwinding that ran it goes on)
	OpEndfault   //  ->              (ends a fault handler: unwinding goes on)
	OpEndfilter  // a ->             (ends a filter: a != 0 selects its handler)

	numOpcodes
)

// NumOpcodes is the number of opcodes including OpInvalid.
const NumOpcodes = int(numOpcodes)

// Operand is the kind of an instruction's operand.
type Operand uint8

// Operand kinds.
const (
	OperandNone   Operand = iota
	OperandInt            // an integer constant (A)
	OperandLocal          // a local variable index (A)
	OperandLocInt         // a local (A) and an integer constant (B)
	OperandLabel          // a branch target pc (A)
	OperandClass          // a class index (A)
	OperandField          // an instance field index (A)
	OperandStatic         // a static field index (A)
	OperandMethod         // a method index (A)
	OperandString         // a string table index (A)
	OperandCount          // a positive count (A), as in choose
)

// Access is the kind of shared location an instruction accesses: one that
// another thread can read or change. Escape analysis, partial-order
// reduction and what the invariants read go by it.
type Access uint8

// Access kinds. The object is the one whose reference is Info.Ref values
// down the operand stack.
const (
	AccessNone    Access = iota // nothing another thread can see
	AccessField                 // the instance field the operand names, of the object
	AccessStatic                // the static the operand names
	AccessElem                  // an element of the array (its index is the value above it)
	AccessMonitor               // the monitor, and the wait set, of the object
	AccessThread                // the status of the thread whose Thread object it is
)

// Flag describes properties of an opcode.
type Flag uint16

// Opcode flags.
const (
	// FlagSched marks a scheduling point: an instruction whose effect other
	// threads can observe, or that can block, or that makes a choice. A
	// transition ends before the next such instruction. Invocations and
	// returns are scheduling points only for synchronized methods, and a
	// return only when it ends a thread or a synchronized method; the VM
	// decides those cases when it decodes a method.
	FlagSched Flag = 1 << iota
	// FlagBranch marks instructions whose operand is a branch target.
	FlagBranch
	// FlagNoNext marks instructions after which control does not fall through.
	FlagNoNext
	// FlagChoice marks instructions that may create several transitions.
	FlagChoice
	// FlagVarStack marks instructions whose stack effect depends on the operand (calls).
	FlagVarStack
	// FlagCall marks method calls: a scheduling point, and disabled while
	// another thread holds the monitor, when the callee is synchronized.
	FlagCall
	// FlagReturn marks returns: a scheduling point when it ends a
	// synchronized method (releasing its monitor) or the thread.
	FlagReturn
	// FlagRuntimeFlow marks instructions that continue at a place known
	// only at run time, not (only) at the next pc or their label: the
	// structured exception instructions, which run the finally handlers on
	// the way or go on with the leave or unwinding that ran the handler.
	FlagRuntimeFlow
	// FlagWrite marks instructions that write the location they access
	// (Info.Access). Every monitor instruction counts as one: it changes the
	// monitor or its wait set, or waits for another thread to.
	FlagWrite
	// FlagAcquire marks the monitor instructions that take the monitor
	// (monitorenter): enabled only when it is free or the thread's already.
	// The others are done holding it.
	FlagAcquire
	// FlagMayBlock marks instructions that may be disabled until another
	// thread acts: monitorenter (the monitor is taken), join (the thread
	// has not ended) and calls (of a synchronized method). wait is not:
	// it executes, then the thread waits.
	FlagMayBlock
	// FlagLocal marks the instructions escape analysis may make
	// thread-local (not scheduling points) when only the executing thread
	// can reach their object (Info.Ref).
	FlagLocal
	// FlagPure marks the instructions an invariant may execute: they
	// neither change the state (beyond the invariant's own frames) nor
	// allocate, block, choose or handle exceptions.
	FlagPure
	// FlagKeep marks the instructions a transition the VM keeps for its
	// lookahead may execute (vm's keptahead.go): they read only their
	// thread's record, the object they write, the object at Info.Ref of a
	// first instruction that does not write it, and what no transition
	// changes (an object's class, an array's length).
	FlagKeep
)

// Info describes one opcode. Pop and Push are the stack effect; for
// FlagVarStack instructions they are the fixed part and the callee's arity and
// result are added.
type Info struct {
	Name    string
	Operand Operand
	Pop     int8
	Push    int8
	Flags   Flag
	// Access is the shared location the instruction accesses, and Ref,
	// for a location in an object, where the object's reference is on the
	// operand stack before it executes (1: the top); 0 if none.
	Access Access
	Ref    int8
	Doc    string
	Stack  string // the stack picture: popped values (top rightmost) -> pushed values
}

var infos = [numOpcodes]Info{
	OpInvalid: {Name: "invalid", Doc: "never valid", Stack: ""},

	OpNop:      {"nop", OperandNone, 0, 0, FlagPure | FlagKeep, AccessNone, 0, "does nothing", "->"},
	OpPush:     {"push", OperandInt, 0, 1, FlagPure | FlagKeep, AccessNone, 0, "pushes an integer constant", "-> n"},
	OpPushNull: {"pushnull", OperandNone, 0, 1, FlagPure | FlagKeep, AccessNone, 0, "pushes the null reference", "-> null"},
	OpPop:      {"pop", OperandNone, 1, 0, FlagPure | FlagKeep, AccessNone, 0, "discards the top value", "a ->"},
	OpDup:      {"dup", OperandNone, 1, 2, FlagPure | FlagKeep, AccessNone, 0, "duplicates the top value", "a -> a a"},
	OpSwap:     {"swap", OperandNone, 2, 2, FlagPure | FlagKeep, AccessNone, 0, "swaps the two top values", "a b -> b a"},
	OpLoad:     {"load", OperandLocal, 0, 1, FlagPure | FlagKeep, AccessNone, 0, "pushes a local variable", "-> v"},
	OpStore:    {"store", OperandLocal, 1, 0, FlagPure | FlagKeep, AccessNone, 0, "pops into a local variable", "v ->"},
	OpInc:      {"inc", OperandLocInt, 0, 0, FlagPure | FlagKeep, AccessNone, 0, "adds a constant to an integer local", "->"},

	OpAdd:  {"add", OperandNone, 2, 1, FlagPure | FlagKeep, AccessNone, 0, "integer addition (wrapping)", "a b -> a+b"},
	OpSub:  {"sub", OperandNone, 2, 1, FlagPure | FlagKeep, AccessNone, 0, "integer subtraction (wrapping)", "a b -> a-b"},
	OpMul:  {"mul", OperandNone, 2, 1, FlagPure | FlagKeep, AccessNone, 0, "integer multiplication (wrapping)", "a b -> a*b"},
	OpDiv:  {"div", OperandNone, 2, 1, FlagPure | FlagKeep, AccessNone, 0, "integer division truncating toward zero; throws ArithmeticException on zero", "a b -> a/b"},
	OpRem:  {"rem", OperandNone, 2, 1, FlagPure | FlagKeep, AccessNone, 0, "integer remainder; throws ArithmeticException on zero", "a b -> a%b"},
	OpNeg:  {"neg", OperandNone, 1, 1, FlagPure | FlagKeep, AccessNone, 0, "integer negation", "a -> -a"},
	OpAnd:  {"and", OperandNone, 2, 1, FlagPure | FlagKeep, AccessNone, 0, "bitwise and", "a b -> a&b"},
	OpOr:   {"or", OperandNone, 2, 1, FlagPure | FlagKeep, AccessNone, 0, "bitwise or", "a b -> a|b"},
	OpXor:  {"xor", OperandNone, 2, 1, FlagPure | FlagKeep, AccessNone, 0, "bitwise exclusive or", "a b -> a^b"},
	OpShl:  {"shl", OperandNone, 2, 1, FlagPure | FlagKeep, AccessNone, 0, "shift left by b&63", "a b -> a<<(b&63)"},
	OpShr:  {"shr", OperandNone, 2, 1, FlagPure | FlagKeep, AccessNone, 0, "arithmetic shift right by b&63", "a b -> a>>(b&63)"},
	OpUshr: {"ushr", OperandNone, 2, 1, FlagPure | FlagKeep, AccessNone, 0, "logical shift right by b&63", "a b -> a>>>(b&63)"},
	OpNot:  {"not", OperandNone, 1, 1, FlagPure | FlagKeep, AccessNone, 0, "logical not: 1 if a is 0, else 0", "a -> a==0 ? 1 : 0"},
	OpEq:   {"eq", OperandNone, 2, 1, FlagPure | FlagKeep, AccessNone, 0, "1 if equal (integers, or references by identity), else 0", "a b -> a==b ? 1 : 0 (ints, or references by identity)"},
	OpNe:   {"ne", OperandNone, 2, 1, FlagPure | FlagKeep, AccessNone, 0, "1 if not equal, else 0", "a b -> a!=b ? 1 : 0 (ints, or references by identity)"},
	OpLt:   {"lt", OperandNone, 2, 1, FlagPure | FlagKeep, AccessNone, 0, "1 if a < b, else 0", "a b -> a<b ? 1 : 0"},
	OpLe:   {"le", OperandNone, 2, 1, FlagPure | FlagKeep, AccessNone, 0, "1 if a <= b, else 0", "a b -> a<=b ? 1 : 0"},
	OpGt:   {"gt", OperandNone, 2, 1, FlagPure | FlagKeep, AccessNone, 0, "1 if a > b, else 0", "a b -> a>b ? 1 : 0"},
	OpGe:   {"ge", OperandNone, 2, 1, FlagPure | FlagKeep, AccessNone, 0, "1 if a >= b, else 0", "a b -> a>=b ? 1 : 0"},

	OpGoto:      {"goto", OperandLabel, 0, 0, FlagBranch | FlagNoNext | FlagPure | FlagKeep, AccessNone, 0, "jumps", "->"},
	OpIfz:       {"ifz", OperandLabel, 1, 0, FlagBranch | FlagPure | FlagKeep, AccessNone, 0, "jumps if a is 0", "a ->"},
	OpIfnz:      {"ifnz", OperandLabel, 1, 0, FlagBranch | FlagPure | FlagKeep, AccessNone, 0, "jumps if a is not 0", "a ->"},
	OpIfeq:      {"ifeq", OperandLabel, 2, 0, FlagBranch | FlagPure | FlagKeep, AccessNone, 0, "jumps if a == b", "a b ->"},
	OpIfne:      {"ifne", OperandLabel, 2, 0, FlagBranch | FlagPure | FlagKeep, AccessNone, 0, "jumps if a != b", "a b ->"},
	OpIflt:      {"iflt", OperandLabel, 2, 0, FlagBranch | FlagPure | FlagKeep, AccessNone, 0, "jumps if a < b", "a b ->"},
	OpIfle:      {"ifle", OperandLabel, 2, 0, FlagBranch | FlagPure | FlagKeep, AccessNone, 0, "jumps if a <= b", "a b ->"},
	OpIfgt:      {"ifgt", OperandLabel, 2, 0, FlagBranch | FlagPure | FlagKeep, AccessNone, 0, "jumps if a > b", "a b ->"},
	OpIfge:      {"ifge", OperandLabel, 2, 0, FlagBranch | FlagPure | FlagKeep, AccessNone, 0, "jumps if a >= b", "a b ->"},
	OpIfnull:    {"ifnull", OperandLabel, 1, 0, FlagBranch | FlagPure | FlagKeep, AccessNone, 0, "jumps if r is null", "r ->"},
	OpIfnonnull: {"ifnonnull", OperandLabel, 1, 0, FlagBranch | FlagPure | FlagKeep, AccessNone, 0, "jumps if r is not null", "r ->"},

	OpNew:         {"new", OperandClass, 0, 1, 0, AccessNone, 0, "allocates an object with all fields 0 or null", "-> r"},
	OpGetfield:    {"getfield", OperandField, 1, 1, FlagSched | FlagPure | FlagKeep | FlagLocal, AccessField, 1, "reads an instance field; throws NullPointerException", "r -> v"},
	OpPutfield:    {"putfield", OperandField, 2, 0, FlagSched | FlagWrite | FlagKeep | FlagLocal, AccessField, 2, "writes an instance field; throws NullPointerException", "r v ->"},
	OpGetstatic:   {"getstatic", OperandStatic, 0, 1, FlagSched | FlagPure, AccessStatic, 0, "reads a static field", "-> v"},
	OpPutstatic:   {"putstatic", OperandStatic, 1, 0, FlagSched | FlagWrite, AccessStatic, 0, "writes a static field", "v ->"},
	OpInstanceof:  {"instanceof", OperandClass, 1, 1, FlagPure | FlagKeep, AccessNone, 0, "1 if r is a non-null instance of the class or a subclass", "r -> 0|1"},
	OpCheckcast:   {"checkcast", OperandClass, 1, 1, FlagPure | FlagKeep, AccessNone, 0, "throws ClassCastException unless r is null or an instance of the class", "r -> r"},
	OpNewarray:    {"newarray", OperandNone, 1, 1, 0, AccessNone, 0, "allocates an int array; throws NegativeArraySizeException", "n -> r"},
	OpNewrefarray: {"newrefarray", OperandNone, 1, 1, 0, AccessNone, 0, "allocates a reference array; throws NegativeArraySizeException", "n -> r"},
	OpArrload:     {"arrload", OperandNone, 2, 1, FlagSched | FlagPure | FlagKeep | FlagLocal, AccessElem, 2, "reads an array element; throws NullPointerException, IndexOutOfBoundsException", "r i -> v"},
	OpArrstore:    {"arrstore", OperandNone, 3, 0, FlagSched | FlagWrite | FlagKeep | FlagLocal, AccessElem, 3, "writes an array element; throws NullPointerException, IndexOutOfBoundsException", "r i v ->"},
	OpArrlen:      {"arrlen", OperandNone, 1, 1, FlagPure | FlagKeep, AccessNone, 0, "an array's length (immutable, so not a scheduling point); throws NullPointerException", "r -> n"},

	OpInvokestatic:  {"invokestatic", OperandMethod, 0, 0, FlagVarStack | FlagCall | FlagMayBlock | FlagPure, AccessNone, 0, "calls a static method", "a1..an -> [v]"},
	OpInvokevirtual: {"invokevirtual", OperandMethod, 1, 0, FlagVarStack | FlagCall | FlagMayBlock | FlagPure, AccessNone, 0, "calls an instance method, dispatched on the receiver's class; throws NullPointerException", "r a1..an -> [v]"},
	OpReturn:        {"return", OperandNone, 0, 0, FlagNoNext | FlagReturn | FlagPure, AccessNone, 0, "returns from a void method", "->"},
	OpRetval:        {"retval", OperandNone, 1, 0, FlagNoNext | FlagReturn | FlagPure, AccessNone, 0, "returns a value", "v ->"},

	OpNewthread: {"newthread", OperandMethod, 0, 1, FlagVarStack, AccessNone, 0, "creates a thread that will run a static method with the popped arguments", "a1..an -> t"},
	OpStart:     {"start", OperandNone, 1, 0, FlagSched | FlagWrite, AccessThread, 1, "starts a new thread", "t ->"},
	OpJoin:      {"join", OperandNone, 1, 0, FlagSched | FlagMayBlock, AccessThread, 1, "waits until a thread has ended", "t ->"},
	OpYield:     {"yield", OperandNone, 0, 0, FlagSched | FlagKeep, AccessNone, 0, "a scheduling point with no effect", "->"},
	OpTid:       {"tid", OperandNone, 0, 1, FlagPure | FlagKeep, AccessNone, 0, "pushes the current thread's id", "-> id"},

	OpMonitorenter: {"monitorenter", OperandNone, 1, 0, FlagSched | FlagWrite | FlagAcquire | FlagMayBlock | FlagKeep | FlagLocal, AccessMonitor, 1, "acquires r's monitor (reentrant); throws NullPointerException", "r ->"},
	OpMonitorexit:  {"monitorexit", OperandNone, 1, 0, FlagSched | FlagWrite | FlagKeep | FlagLocal, AccessMonitor, 1, "releases r's monitor once; throws IllegalMonitorStateException if not owner", "r ->"},
	OpWait:         {"wait", OperandNone, 1, 0, FlagSched | FlagWrite | FlagKeep, AccessMonitor, 1, "waits on r; throws IllegalMonitorStateException if not owner", "r ->"},
	OpNotify:       {"notify", OperandNone, 1, 0, FlagSched | FlagChoice | FlagWrite, AccessMonitor, 1, "wakes one waiter of r (each in turn); throws IllegalMonitorStateException if not owner", "r ->"},
	OpNotifyall:    {"notifyall", OperandNone, 1, 0, FlagSched | FlagWrite, AccessMonitor, 1, "wakes every waiter of r; throws IllegalMonitorStateException if not owner", "r ->"},

	OpChoose:  {"choose", OperandCount, 0, 1, FlagSched | FlagChoice | FlagKeep, AccessNone, 0, "pushes each of 0..n-1 in turn (a choice point)", "-> k"},
	OpChooseb: {"chooseb", OperandNone, 0, 1, FlagSched | FlagChoice | FlagKeep, AccessNone, 0, "pushes 0 and 1 in turn (a choice point)", "-> k"},
	OpAssert:  {"assert", OperandString, 1, 0, FlagPure | FlagKeep, AccessNone, 0, "an assertion violation with the message if a is 0", "a ->"},
	OpPrint:   {"print", OperandString, 0, 0, FlagPure, AccessNone, 0, "writes a string (run mode only)", "->"},
	OpPrinti:  {"printi", OperandNone, 1, 0, FlagPure, AccessNone, 0, "writes an integer in decimal (run mode only)", "a ->"},

	OpThrow:      {"throw", OperandNone, 1, 0, FlagNoNext, AccessNone, 0, "throws r (two passes, see Exceptions); throws NullPointerException if r is null", "r ->"},
	OpRethrow:    {"rethrow", OperandNone, 0, 0, FlagNoNext | FlagRuntimeFlow, AccessNone, 0, "throws again the exception the innermost enclosing catch (or filter) handler block is handling; only inside such a block", "->"},
	OpLeave:      {"leave", OperandLabel, 0, 0, FlagBranch | FlagNoNext | FlagRuntimeFlow, AccessNone, 0, "empties the operand stack and jumps to the label, first running (innermost first) the finally handlers of the protected regions it exits; the normal way out of a protected region or a catch handler", "... ->"},
	OpEndfinally: {"endfinally", OperandNone, 0, 0, FlagNoNext | FlagRuntimeFlow, AccessNone, 0, "ends a finally handler: the leave or the unwinding that ran it goes on; only inside a finally handler", "->"},
	OpEndfault:   {"endfault", OperandNone, 0, 0, FlagNoNext | FlagRuntimeFlow, AccessNone, 0, "ends a fault handler: the unwinding that ran it goes on; only inside a fault handler", "->"},
	OpEndfilter:  {"endfilter", OperandNone, 1, 0, FlagNoNext | FlagRuntimeFlow, AccessNone, 0, "ends a filter: a != 0 selects the filter's handler (the second pass starts), 0 lets the search go on; only at the end of a filter block", "a ->"},
}

// Info returns the table entry of op; an out-of-range op gets OpInvalid's.
func (op Opcode) Info() *Info {
	if int(op) >= NumOpcodes {
		return &infos[OpInvalid]
	}
	return &infos[op]
}

// String returns the lowercase mnemonic.
func (op Opcode) String() string { return op.Info().Name }

// Valid reports whether op is a defined opcode other than OpInvalid.
func (op Opcode) Valid() bool { return op != OpInvalid && int(op) < NumOpcodes }

// Is reports whether op has all of the flags f.
func (op Opcode) Is(f Flag) bool { return op.Info().Flags&f == f }

var byName = func() map[string]Opcode {
	m := make(map[string]Opcode, NumOpcodes)
	for i := 1; i < NumOpcodes; i++ {
		m[infos[i].Name] = Opcode(i)
	}
	return m
}()

// Lookup returns the opcode with the given mnemonic.
func Lookup(name string) (Opcode, bool) {
	op, ok := byName[name]
	return op, ok
}
