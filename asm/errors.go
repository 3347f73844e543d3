// Error, ErrorList and the "did you mean" suggestions.

package asm

import (
	"fmt"
	"slices"
	"strings"
)

// Error is one problem in the source. Line and Col are 1-based (Col counts
// runes); Line is 0 for a problem with no single place in the source, such
// as a -D naming no constant.
type Error struct {
	File string
	Line int
	Col  int
	Msg  string

	file int32 // index of File in the order files were first read, for sorting
}

// Error formats e as file:line:col: message (file: message without a line).
func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// ErrorList is the list of problems Assemble found, sorted by position (the
// main file first, then included files in the order they were first read;
// problems without a line last), at most one per line, and capped at
// MaxErrors entries followed by a final "too many errors".
type ErrorList []*Error

// Error returns the errors one per line.
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// MaxErrors is the number of errors Assemble reports before "too many errors".
const MaxErrors = 20

// maxStored bounds the errors kept while assembling, so that a large input
// full of mistakes cannot make the assembler allocate without bound.
const maxStored = 1000

func (e *Error) less(f *Error) int {
	// Positionless errors last.
	if (e.Line == 0) != (f.Line == 0) {
		if e.Line == 0 {
			return 1
		}
		return -1
	}
	if e.file != f.file {
		return int(e.file) - int(f.file)
	}
	if e.Line != f.Line {
		return e.Line - f.Line
	}
	return e.Col - f.Col
}

// finish sorts errs, keeps the first error of each line and caps the list.
// more is the number of errors that were not stored.
func finish(errs []*Error, more int) ErrorList {
	slices.SortStableFunc(errs, (*Error).less)
	out := make(ErrorList, 0, min(len(errs), MaxErrors+1))
	for i, e := range errs {
		if i > 0 && e.Line != 0 && e.Line == errs[i-1].Line && e.file == errs[i-1].file {
			continue
		}
		if i > 0 && e.Line == 0 && errs[i-1].Line == 0 && e.Msg == errs[i-1].Msg {
			continue
		}
		if len(out) == MaxErrors {
			out = append(out, &Error{File: e.File, Line: e.Line, Col: e.Col, Msg: "too many errors", file: e.file})
			return out
		}
		out = append(out, e)
	}
	if more > 0 && len(out) > 0 {
		last := out[len(out)-1]
		out = append(out, &Error{File: last.File, Msg: "too many errors", file: last.file})
	}
	return out
}

// Suggest returns the candidate closest to name by edit distance, or "" if
// none is close enough to be a plausible typo (a third of its length,
// ignoring case). Ties go to the lexicographically smallest candidate so
// that messages are deterministic. The command line suggests commands and
// flags with it too.
func Suggest(name string, candidates []string) string {
	// Long names are not typos worth a quadratic edit distance.
	if name == "" || len(name) > maxSuggestLen {
		return ""
	}
	lname := []rune(strings.ToLower(name))
	limit := len(lname) / 3 // short names: only a difference of case
	best, bestD := "", limit+1
	for _, c := range candidates {
		if c == name || c == "" {
			continue
		}
		// Cheap filter: the length difference bounds the distance.
		if d := len([]rune(c)) - len(lname); d > limit || -d > limit {
			continue
		}
		d := distance(lname, []rune(strings.ToLower(c)))
		if d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	return best
}

const maxSuggestLen = 64

// didYouMean returns ` (did you mean "x"?)` for the closest candidate, or "".
func didYouMean(name string, candidates []string) string {
	if s := Suggest(name, candidates); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// distance is the optimal string alignment distance: insertions, deletions,
// substitutions and transpositions of adjacent runes each cost 1, so that
// "psuh" is one edit from "push".
func distance(a, b []rune) int {
	// Three rows suffice for the transposition look-back.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
