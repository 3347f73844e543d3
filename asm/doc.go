// Package asm assembles mcvm's line-oriented assembly language (.mcasm)
// into a verified bytecode.Program. docs/asm.md is the language reference.
//
// Assembly is done in three passes. The first reads the source line by
// line, expanding .include textually, and builds classes, members and code;
// constants and locals must be declared before use, so their values are
// known here, and labels are resolved when a method's .end is reached. The
// second resolves the names that may be used before they are declared:
// superclasses, and the classes, fields, statics and methods named by
// operands, handlers, .entry, .invariant and .setup (labels of .atomic
// and .endstate are resolved with the method's). The third runs
// bytecode.Verify and reports its findings (stack depths at joins, arity,
// falling off the end, return misuse, ghost values that reach more than
// assertions and ghost state, final fields written after publication) at
// the source position of the instruction concerned, through Method.Lines.
//
// Invariants: Assemble never panics, whatever its input; it reads at most
// MaxSource bytes of source in total, so what it allocates is bounded by a
// multiple of that; it returns either a program that passes
// bytecode.Verify or a non-empty ErrorList, sorted by position, at most one
// error per line and at most MaxErrors of them. Indices follow declaration
// order (classes, fields, statics, methods; strings by first use), which is
// what lets bytecode.Disassemble print a program that assembles back to the
// same bytecode.Digest.
//
// This package imports only bytecode and the standard library.
package asm
