// Package bytecode defines mcvm's instruction set and program format: the
// opcode table (mnemonics, operands, stack effects, the shared location
// each instruction accesses, and the flags the VM and the reductions
// classify instructions by: scheduling point, write, may block, pure, ...),
// Program with its classes, fields, statics, methods, exception tables and
// pc-to-source line tables, the versioned .mcb binary encoding, Verify,
// which establishes the invariants the virtual machine relies on, and
// LiveLocals, the liveness of local variables for dead variable reduction.
//
// The opcode table (opcode.go) is the one description of every opcode:
// the assembler, the disassembler, Verify, the vm's decoder and package
// por's analyses read it, and docs/isa.md is generated from it
// (ISAMarkdown; a test keeps the file equal to the output). Encode writes
// .mcb format version 5 (version 4, which ends with a checksum of the
// whole file, with setup methods, atomic regions, valid end states,
// AllowLeak and the names of locals), or version 6 (version 5 with the
// ghost and final flags of fields and statics) for a program with such
// members; Decode reads both and versions 4, 1 and 2, the last two
// without a checksum. Digest hashes the version-1 or version-2 encoding
// (version 5's or 6's for a program using what only they hold), so the
// digests named by scripts and trails do not depend on the file version.
//
// TestOpcodeTable_columns checks that the table's columns agree with one
// another. LiveLocals (live.go) is a backward dataflow per method with an
// edge from each instruction of a catch region to its handler; methods
// with finally, fault or filter handlers, which run for continuations the
// control flow does not show, have every local live.
//
// Invariants: a Program returned by Decode, or accepted by Verify, has every
// operand in range, consistent stack depths, well-nested protected regions
// whose handler blocks are entered only by the exception mechanism, no
// static synchronized method, the built-in classes at indices
// 0..NumBuiltins-1, values read from ghost members reaching only
// assertions, ghost members and invariants' results, and final fields
// written only by the method that allocates their object, once, before
// it publishes it (members.go). Decode never panics and never allocates more than a
// small multiple of its input's length.
//
// This package is a leaf: it imports nothing from mcvm.
package bytecode
