// Package bytecode defines mcvm's instruction set and program format: the
// opcode table (mnemonics, operands, stack effects, the shared location
// each instruction accesses, and the flags the VM and the reductions
// classify instructions by: scheduling point, write, may block, pure, ...),
// Program with its classes, fields, statics, methods, exception tables and
// pc-to-source line tables, the versioned .mcb binary encoding, and Verify,
// which establishes the invariants the virtual machine relies on.
//
// Invariants: a Program returned by Decode, or accepted by Verify, has every
// operand in range, consistent stack depths, and the built-in classes at
// indices 0..NumBuiltins-1. Decode never panics and never allocates more
// than a small multiple of its input's length.
//
// This package is a leaf: it imports nothing from mcvm.
package bytecode
