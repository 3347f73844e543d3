// Package scc implements search-carrying code (Taleghani, "Search-Carrying
// Code", chapters 3 and 4): a verifying depth-first search records a search
// script, the sequence of every transition it explored (the instruction that
// began it, the thread and the choice value) with the ID of the state it
// reached, and every backtrack; a certifier later follows the script instead
// of searching, checking the program's properties in every state and the
// script's veracity on the fly (Algorithm 3.1) with a map from state IDs to
// fingerprints instead of a visited set. The script can be partitioned into
// independent tasks (Algorithm 3.2) certified in parallel and merged by
// comparing their FP maps. docs/design.md, "Search-carrying code", says
// why the certifier's checks make it tamper-proof; docs/scc-format.md,
// "Discrepancies", lists them.
//
// Contents: the script format (format.go, whose grammar is the comment at
// its top; docs/scc-format.md describes it for people) and its textual
// form, one entry a line (text.go), the Recorder that writes scripts as a
// listener of the search (record.go), the certifier (certify.go: its
// options, state checks and FP map; driver.go: its walk of
// explorer.DepthFirst with the script as the successor source), the
// partitioner (partition.go), the shared replay of init paths
// (initpaths.go), FP maps and their merge (fpmap.go), and the kinds of
// Discrepancy (errors.go).
//
// Where the thesis was silent or mcvm differs:
//   - Transitions are matched, not indexed: an entry names the thread, the
//     choice and the instruction at the thread's pc, which the certifier
//     looks up among the state's enabled transitions, noting their
//     instructions when it enters the state, so it never needs a state
//     back to reject an entry.
//   - New versus visited is explicit in every entry. The thesis infers
//     "new" from an ID above the highest so far, which breaks in a task,
//     whose IDs have holes where regions were cut out.
//   - The certifier keeps no encodings: a DFS level holds a vm.Snapshot
//     when its state has two transitions or more (reverse deltas from
//     explorer.DeltaSnapDepth on, as the search does), and the FP map is a
//     slice indexed by ID (a map with --forget or in task files, where IDs
//     are sparse). It collects garbage where the search does. The trustful
//     certifier computes no fingerprints, so it has no mark to collect by
//     and does not collect.
//   - Properties the producer did not check run on extra machines for the
//     same program, fed by Decode of the state's encoding; only the
//     program's own invariants decide whether a state is expanded.
//     --properties files are linked with .include and must only add
//     classes with methods, so the state space is unchanged.
//   - A script from a search that stopped at its first error is certified
//     by finding that error. A search that a limit of the search stops
//     (states, time, memory, an interrupt) records the part it explored
//     (header flag limit) and its coverage estimate (flag coverage), which
//     the certifier computes again from the states it certified
//     (explorer.EstimateStored); it ends with verdict limit, never a pass.
//     --max-depth and limits of the machine write no script.
//
// Partitioning. Split makes one pass over the encoded script to find its
// structure (where each state is introduced and left, its parent) from the
// one-byte tags and the new-state column alone, and makes each task a list
// of ranges of the script's entries, which its certifier decodes itself
// from the sync point before each, so decoding runs in parallel too. The
// thesis's greedy choice (each cut the region closest to 1/(k-i) of what
// is left) cannot split a region once cut, so one early choice can leave a
// task well above 1/k: if the plan's largest task is more than a tenth
// above 1/k, Split plans again with the targets scaled by 0.7 to 1.3 and
// then bottom-up (planner.minMax: Kundu and Misra's rule, which with a
// binary search on the bound finds the least largest task any k-1 cuts
// leave), and cuts the best plan; Partition.Least reports that bound when
// no plan can do better. Planning again is skipped when its counted work
// (a count, not a time, so that the partition is the same everywhere)
// would pass a fixed bound.
//
// Init paths. Each task replays its init path from the initial state, as
// the thesis's tasks do; for a deep search that is most of the work. So
// certify --tasks replays all of a partition's init paths once, as the
// tree they form (Partition.Prepare), keeping the state's encoding where a
// later path branches off and making the checks a task makes; each task
// then starts from its root's decoded state. Task files (mcvm partition,
// certify --task) still replay their own init paths, so they run anywhere.
// Tasks are handed to --jobs workers largest first.
//
// Script size. A script's fields are written in columns, each instruction
// coded by its place in a short move-to-front list of the thread's recent
// ones, a transition's thread predicted from the previous transition of
// the same state, and the Subgraphs list coded as its difference from the
// counts the entries imply (zero for an honest script); docs/scc-format.md
// gives the choices and the ones left out.
//
// Invariants: a full certifier never reports success unless it executed
// every required transition of every state it reached (all enabled ones,
// or the persistent set and stack proviso of the script's reduction, less
// symmetry's twins) and every state ID it was told about maps to one
// fingerprint; for a set of tasks, unless in addition every referenced
// state ID is explored by exactly one task and the initial state is. A
// trustful certifier checks the states it is led to, not completeness.
// Readers of scripts and FP maps never panic and allocate in proportion to
// the input's actual size.
//
// scc imports vm, bytecode and explorer; explorer and vm must not import
// it, and it must not import por (the reducer is given as an
// explorer.Reducer).
package scc
