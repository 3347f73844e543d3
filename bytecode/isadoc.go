// ISAMarkdown: docs/isa.md, generated from the opcode table.

package bytecode

import (
	"fmt"
	"strings"
)

var families = []struct {
	title    string
	from, to Opcode
}{
	{"Constants, stack and locals", OpNop, OpInc},
	{"Integer arithmetic and comparison", OpAdd, OpGe},
	{"Control flow", OpGoto, OpIfnonnull},
	{"Objects, fields, statics and arrays", OpNew, OpArrlen},
	{"Calls and returns", OpInvokestatic, OpRetval},
	{"Threads", OpNewthread, OpTid},
	{"Monitors, wait and notify", OpMonitorenter, OpNotifyall},
	{"Choice, properties and output", OpChoose, OpPrinti},
	{"Exceptions", OpThrow, OpEndfilter},
}

var operandSyntax = [...]string{
	OperandNone:   "",
	OperandInt:    "EXPR",
	OperandLocal:  "LOCAL",
	OperandLocInt: "LOCAL EXPR",
	OperandLabel:  "LABEL",
	OperandClass:  "CLASS",
	OperandField:  "CLASS.FIELD",
	OperandStatic: "CLASS.STATIC",
	OperandMethod: "CLASS.METHOD",
	OperandString: `"TEXT"`,
	OperandCount:  "N",
}

const isaIntro = `# mcvm instruction set

<!-- Generated from bytecode/opcode.go by TestISADoc; refresh with: go test ./bytecode -run TestISADoc -update -->

mcvm bytecode is a stack bytecode in the style of the JVM and the CLI. Each
method has numbered local slots (for instance methods local 0 is the
receiver, then the arguments) and an operand stack. A value is a 64-bit
integer or a reference (to an object or array, or null); the two kinds are
distinct at run time, and using one where the other is needed is a type
error, reported as an ` + "`exception`" + ` verdict with a "type error" message.
Integer arithmetic wraps (two's complement).

## Transitions and scheduling points

A **scheduling point** is an instruction whose effect other threads can
observe, that can block, or that makes a choice. With the default
` + "`--granularity=transition`" + ` one transition of a thread executes the
instruction at which the thread stands and then every following
instruction up to (not including) its next scheduling point, or until it
blocks, waits or ends. With ` + "`--granularity=instruction`" + ` every
instruction is a transition. Calls to and returns from synchronized methods
are scheduling points (they acquire and release a monitor), and so is the
` + "`return`/`retval`" + ` that ends a thread. A transition whose thread comes
back to a state it was in, having only read, computed and called in
between, loops forever: a **livelock**, reported as an error. A transition
that runs 65,536 thread-local instructions ends there, so another
thread-local infinite loop becomes a cycle of states rather than a hang.

A thread is **enabled** when it is runnable and its next instruction can
execute: ` + "`monitorenter`" + ` and calls of synchronized methods need the
monitor free or already held by the thread; ` + "`join`" + ` needs the target
ended (or never started, as in Java). A notified thread is enabled when the
monitor it waited on is free; its next transition first reacquires the
monitor with the entry count it had. A **deadlock** is a state where no
thread is enabled while some started thread has not ended.

` + "`choose N`" + ` gives N transitions (values 0..N-1) and ` + "`notify`" + ` on an
object with k > 1 waiters gives k transitions, one per waiter to wake:
every alternative is explored.

## Exceptions

Runtime errors throw instances of built-in classes, all subclasses of
` + "`Exception`" + ` (itself a subclass of ` + "`Throwable`" + `) except
` + "`StackOverflowError`" + ` (a direct subclass of ` + "`Throwable`" + `):

| class | thrown by |
|---|---|
| NullPointerException | getfield, putfield, array instructions, invokevirtual, monitor instructions, start, join, throw on null |
| ArithmeticException | div, rem by zero |
| IndexOutOfBoundsException | arrload, arrstore out of bounds |
| IllegalMonitorStateException | monitorexit, wait, notify, notifyall without owning the monitor |
| ClassCastException | checkcast |
| NegativeArraySizeException | newarray, newrefarray with a negative length |
| IllegalThreadStateException | start of a thread that was already started |
| StackOverflowError | a call beyond 4,096 frames or 65,536 values on one thread's stack |

A method's exception table lists **protected regions** (pc ranges) with
their handlers, inner regions before the regions that enclose them. A
handler is a **catch** (matches the thrown object's class or a subclass;
` + "`any`" + ` matches everything), a **filter** (a block of code ending in
` + "`endfilter`" + ` that decides whether its handler takes the exception), a
**finally** (runs whenever the region is left, by ` + "`leave`" + ` or by an
exception) or a **fault** (runs only when the region is left by an
exception). Handler and filter blocks have explicit extents (except catch
handlers declared without an end, which keep the older, unrestricted form).

` + "`throw`" + ` works in two passes, as in the CLI and MoonWalker. The first
pass searches the frames from the top of the call stack down for the first
catch handler whose region covers the frame's pc (a caller's pc is its call
instruction) and whose class matches, or the first filter whose filter
block returns non-zero. A filter block runs as ordinary code in a copy of its
method's frame pushed on top of the stack (with only the exception on its
operand stack), while the frames above it are still in place; a filter that
throws counts as false (its exception is discarded after the finally and
fault handlers between it and the filter have run). Only when a handler is
chosen does the second pass start: the finally and fault handlers of the
regions between the throw and the chosen handler run, innermost first, each
with an empty operand stack and ending with ` + "`endfinally`" + ` or
` + "`endfault`" + `, and the frames above the handler's are popped
(releasing the monitors of synchronized methods). The handler then starts
with the operand stack holding only the exception. An exception thrown by a
finally, fault or catch handler replaces the one being handled.

With no handler in any frame the thread ends at once (no finally handler
runs, as in MoonWalker), the monitors of its synchronized frames are
released, and the exception is reported with the verdict ` + "`exception`" + `,
naming its class and where it was thrown (unless the checker runs with
` + "`--uncaught=ignore`" + `, which lets the thread end silently).

` + "`leave LABEL`" + ` is the normal exit of a protected region and of a
catch handler: it empties the operand stack, runs the finally handlers
(never the fault handlers) of the regions it exits, innermost first, and
jumps. ` + "`rethrow`" + `, inside a catch or filter handler block, throws the
exception that block is handling. Handlers and filters are ordinary code:
their field, static, array and monitor instructions are scheduling points,
so other threads interleave with them.

## Instructions

Stack pictures list popped values with the top of the stack rightmost, then
the pushed values. "sched" marks scheduling points.
`

// ISAMarkdown returns the instruction set reference, docs/isa.md.
func ISAMarkdown() string {
	var b strings.Builder
	b.WriteString(isaIntro)
	for _, f := range families {
		fmt.Fprintf(&b, "\n### %s\n\n| instruction | stack | sched | description |\n|---|---|---|---|\n", f.title)
		for op := f.from; op <= f.to; op++ {
			info := op.Info()
			syntax := info.Name
			if s := operandSyntax[info.Operand]; s != "" {
				syntax += " " + s
			}
			sched := ""
			switch {
			case info.Flags&FlagSched != 0:
				sched = "yes"
			case info.Flags&FlagCall != 0:
				sched = "if synchronized"
			case info.Flags&FlagReturn != 0:
				sched = "if synchronized or ending the thread"
			}
			fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s |\n", syntax, strings.ReplaceAll(info.Stack, "|", `\|`), sched, info.Doc)
		}
	}
	return b.String()
}
