// Discrepancies: the ways a script can disagree with a program.

package scc

import "fmt"

// DiscrepancyKind classifies why a script was rejected.
type DiscrepancyKind uint8

// Discrepancy kinds.
const (
	Corrupt       DiscrepancyKind = iota + 1 // bytes that do not decode, or a bad checksum
	Truncated                                // the file or the script ends early
	NotEnabled                               // a transition the state does not have
	Duplicate                                // a transition explored twice from one state
	Unexplored                               // a backtrack from a state with unexplored transitions
	FPMismatch                               // an ID mapped to states with different fingerprints
	BadID                                    // a new state with an unexpected ID, or a reference to an ID not introduced
	Forgotten                                // an ID used after its last-use mark
	Marks                                    // last-use marks missing
	FaultMismatch                            // the script and the program disagree on whether a transition faults
	Extra                                    // entries after the search ended
	Subgraphs                                // the Subgraphs list disagrees with the script
	BadHeader                                // the header's figures disagree with the script
	Undefined                                // tasks: an ID referenced but explored by no task
)

var kindNames = map[DiscrepancyKind]string{
	Corrupt: "corrupt", Truncated: "truncated", NotEnabled: "transition not enabled",
	Duplicate: "duplicate transition", Unexplored: "backtrack with unexplored transitions",
	FPMismatch: "ID mapped to a different fingerprint", BadID: "bad state ID",
	Forgotten: "ID used after its last-use mark", Marks: "last-use marks inconsistent",
	FaultMismatch: "fault mismatch", Extra: "entries after the end of the search",
	Subgraphs: "inconsistent Subgraphs", BadHeader: "header inconsistent with the script",
	Undefined: "state explored by no task",
}

func (k DiscrepancyKind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind%d", uint8(k))
}

// Discrepancy is a certification failure: the script does not describe
// the program's reachability graph (or is damaged). Pos is the 0-based
// index of the body entry at fault, -1 when not at an entry.
type Discrepancy struct {
	Kind DiscrepancyKind
	Pos  int64
	Msg  string
}

func (d *Discrepancy) Error() string {
	if d.Pos >= 0 {
		return fmt.Sprintf("script entry %d: %s: %s", d.Pos, d.Kind, d.Msg)
	}
	return fmt.Sprintf("%s: %s", d.Kind, d.Msg)
}

func discrepancy(k DiscrepancyKind, pos int64, format string, args ...any) *Discrepancy {
	return &Discrepancy{Kind: k, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

func corrupt(pos int64, format string, args ...any) *Discrepancy {
	return discrepancy(Corrupt, pos, format, args...)
}

func truncated(format string, args ...any) *Discrepancy {
	return discrepancy(Truncated, -1, format, args...)
}
