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
// .mcb format version 4, which ends with a checksum of the whole file, or
// version 5 (version 4 with setup methods, atomic regions, valid end
// states and AllowLeak) for a program that uses those; Decode reads both
// and versions 1 and 2, which have no checksum. Digest hashes the
// version-1 or version-2 encoding (version 5's for a program using what
// only it holds), so the digests named by scripts and trails do not
// depend on the file version.
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
// static synchronized method, and the built-in classes at indices
// 0..NumBuiltins-1. Decode never panics and never allocates more than a
// small multiple of its input's length.
//
// This package is a leaf: it imports nothing from mcvm.
package bytecode
