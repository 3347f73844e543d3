// Package explorer searches the state space of a program run by a
// vm.Machine: stateful depth-first or breadth-first search over canonical
// states with an exact visited set (Store, or CollapseStore with collapse
// compression) or a lossy one (hash compaction, bitstate hashing),
// detection of deadlocks, assertion and invariant violations and uncaught
// exceptions, limits on states, depth and time, and counterexamples as
// replayable paths (Replay, trail files).
//
// Invariants: with an exact store two states are the same only if their
// canonical encodings are equal byte for byte; fingerprints
// (vm.Machine.Fingerprint, combined from the encoding's components) only
// choose hash buckets and identify states in reports, and are identical
// on every run, search order and machine.
//
// explorer imports vm and bytecode; it must not import por, scc or cmd: it
// declares what it consumes and cmd/mcvm wires implementations in.
package explorer
