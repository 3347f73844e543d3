// Package vm is mcvm's virtual machine: the active state (heap, statics,
// threads with their call stacks), one small executor per opcode decoded
// once per instruction at load time, and transitions in the style of Java
// PathFinder: a thread runs from a scheduling point through the following
// thread-local instructions up to the next instruction whose effect other
// threads can observe (or, with GranInstruction, one instruction).
//
// Invariants: the machine runs only verified programs, so operands are in
// range and operand stacks never underflow; a fault of the model program
// (assertion, uncaught exception, type error) is a Fault returned by Step,
// never a Go panic or error. Encode yields the canonical form of a state:
// equal for states equal up to heap renumbering and garbage, identical on
// every run and machine.
//
// vm imports bytecode and heap; it must not import explorer, por, scc or cmd.
package vm
