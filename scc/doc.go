// Package scc implements search-carrying code (Taleghani, "Search-Carrying
// Code", chapters 3 and 4): a verifying depth-first search records a search
// script, the sequence of every transition it explored (the instruction that
// began it, the thread and the choice value) with the ID of the state it
// reached, and every backtrack; a certifier later follows the script instead
// of searching, checking the program's properties in every state and the
// script's veracity on the fly (Algorithm 3.1) with a map from state IDs to
// fingerprints instead of a visited set. The script can be partitioned into
// independent tasks (Algorithm 3.2) certified in parallel and merged by
// comparing their FP maps.
//
// Contents: the script format (format.go, whose grammar is the comment at
// its top; docs/scc-format.md describes it for people), the Recorder that
// writes scripts from explorer.Options callbacks (record.go), the certifier
// (certify.go), the partitioner (partition.go) and FP maps and their merge
// (fpmap.go).
//
// Invariants: the certifier never reports success unless it executed every
// enabled transition of every state it reached and every state ID it was
// told about maps to one fingerprint; for a set of tasks, unless in addition
// every referenced state ID is explored by some task and the initial state
// is. Readers of scripts and FP maps never panic and allocate in proportion
// to the input's actual size.
//
// scc imports vm, bytecode and explorer; explorer and vm must not import it.
package scc
