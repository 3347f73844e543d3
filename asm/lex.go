// The lexer: one source line to tokens.

package asm

import (
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"
)

type tokKind uint8

const (
	tokIdent  tokKind = iota + 1
	tokInt            // val holds the literal's magnitude; the sign is a separate '-'
	tokChar           // val holds the rune
	tokString         // str holds the unquoted text
	tokPunct          // text holds the one punctuation character
)

type token struct {
	kind tokKind
	text string // the source text of the token
	val  uint64
	str  string
	col  int32 // 1-based rune column
}

// maxLineTokens bounds the tokens of one line; no sensible line comes close.
const maxLineTokens = 4096

// lexError is a lexical error at a column of the line.
type lexError struct {
	col int32
	msg string
}

// lexLine splits one line (without its newline) into tokens, stopping at a
// ';' comment. On a lexical error it returns the tokens before it and the error.
func lexLine(s string) ([]token, *lexError) {
	var toks []token
	col := int32(1)
	i := 0
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == ' ' || r == '\t' || r == '\r' || r == '\f' || r == '\v':
			i += w
			col++
			continue
		case r == ';':
			return toks, nil
		}
		if len(toks) == maxLineTokens {
			return toks, &lexError{col, fmt.Sprintf("line has more than %d tokens", maxLineTokens)}
		}
		start, startCol := i, col
		switch {
		case r == '_' || unicode.IsLetter(r):
			for i < len(s) {
				r, w := utf8.DecodeRuneInString(s[i:])
				if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					break
				}
				i += w
				col++
			}
			toks = append(toks, token{kind: tokIdent, text: s[start:i], col: startCol})
		case r >= '0' && r <= '9':
			for i < len(s) && (isAlnum(s[i]) || s[i] == '_') {
				i++
				col++
			}
			text := s[start:i]
			var v uint64
			var err error
			if len(text) > 1 && (text[1] == 'x' || text[1] == 'X') && text[0] == '0' {
				v, err = strconv.ParseUint(text[2:], 16, 64)
			} else {
				v, err = strconv.ParseUint(text, 10, 64)
			}
			if err != nil || v > 1<<63 {
				if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrSyntax {
					return toks, &lexError{startCol, fmt.Sprintf("malformed integer literal %q", text)}
				}
				return toks, &lexError{startCol, fmt.Sprintf("integer literal %q out of range", text)}
			}
			toks = append(toks, token{kind: tokInt, text: text, val: v, col: startCol})
		case r == '"' || r == '\'':
			j, n, ok := scanQuoted(s, i, byte(r))
			if !ok {
				what := "string"
				if r == '\'' {
					what = "character"
				}
				return toks, &lexError{startCol, what + " literal not terminated"}
			}
			text := s[i:j]
			i, col = j, col+n
			if r == '"' {
				u, err := strconv.Unquote(text)
				if err != nil {
					return toks, &lexError{startCol, fmt.Sprintf("malformed string literal %s", text)}
				}
				toks = append(toks, token{kind: tokString, text: text, str: u, col: startCol})
			} else {
				inner := text[1 : len(text)-1]
				v, _, tail, err := strconv.UnquoteChar(inner, '\'')
				if inner == "" || err != nil || tail != "" {
					return toks, &lexError{startCol, fmt.Sprintf("malformed character literal %s", text)}
				}
				toks = append(toks, token{kind: tokChar, text: text, val: uint64(v), col: startCol})
			}
		case r < utf8.RuneSelf && isPunct(byte(r)):
			i++
			col++
			toks = append(toks, token{kind: tokPunct, text: s[start:i], col: startCol})
		default:
			if r == utf8.RuneError && w == 1 {
				return toks, &lexError{startCol, fmt.Sprintf("invalid UTF-8 byte %#x", s[i])}
			}
			return toks, &lexError{startCol, fmt.Sprintf("unexpected character %q", r)}
		}
	}
	return toks, nil
}

// scanQuoted finds the end of the literal quoted by q that starts at s[i]:
// it returns the index just past the closing quote and the literal's length
// in runes.
func scanQuoted(s string, i int, q byte) (end int, runes int32, ok bool) {
	j := i + 1
	runes = 1
	for j < len(s) {
		c := s[j]
		switch {
		case c == q:
			return j + 1, runes + 1, true
		case c == '\\' && j+1 < len(s):
			// Skip the escaped character (one byte suffices: escapes
			// start with ASCII, and the rest is scanned normally).
			j += 2
			runes += 2
			continue
		}
		_, w := utf8.DecodeRuneInString(s[j:])
		j += w
		runes++
	}
	return 0, 0, false
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isPunct(c byte) bool {
	switch c {
	case '.', ':', ',', '(', ')', '+', '-', '*', '/', '%', '=':
		return true
	}
	return false
}
