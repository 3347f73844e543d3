// Constant expressions: integer and character literals, constants, + - * / %,
// unary minus and parentheses, evaluated with overflow checks.

package asm

import (
	"fmt"
	"math"
)

// maxExprDepth bounds the nesting of parentheses and unary minus so that
// evaluation cannot exhaust the stack.
const maxExprDepth = 100

// exprError is an error in an expression, reported at a column.
type exprError struct {
	col int32
	msg string
}

// expr parses and evaluates an expression starting at the parser's current
// token:
//
//	expr  = term { ("+" | "-") term }
//	term  = unary { ("*" | "/" | "%") unary }
//	unary = "-" unary | primary
//	primary = INT | CHAR | NAME | "(" expr ")"
func (lp *lineParser) expr() (int64, bool) {
	v, err := lp.sum(0)
	if err != nil {
		lp.a.errorAt(lp.pos(err.col), "%s", err.msg)
		return 0, false
	}
	return v, true
}

func (lp *lineParser) sum(depth int) (int64, *exprError) {
	x, err := lp.product(depth)
	if err != nil {
		return 0, err
	}
	for {
		t := lp.peek()
		if t == nil || t.kind != tokPunct || (t.text != "+" && t.text != "-") {
			return x, nil
		}
		lp.i++
		y, err := lp.product(depth)
		if err != nil {
			return 0, err
		}
		var ok bool
		if t.text == "+" {
			x, ok = addOK(x, y)
		} else {
			x, ok = subOK(x, y)
		}
		if !ok {
			return 0, &exprError{t.col, fmt.Sprintf("overflow in constant expression (%s)", t.text)}
		}
	}
}

func (lp *lineParser) product(depth int) (int64, *exprError) {
	x, err := lp.unary(depth)
	if err != nil {
		return 0, err
	}
	for {
		t := lp.peek()
		if t == nil || t.kind != tokPunct || (t.text != "*" && t.text != "/" && t.text != "%") {
			return x, nil
		}
		lp.i++
		y, err := lp.unary(depth)
		if err != nil {
			return 0, err
		}
		switch t.text {
		case "*":
			r, ok := mulOK(x, y)
			if !ok {
				return 0, &exprError{t.col, "overflow in constant expression (*)"}
			}
			x = r
		default:
			if y == 0 {
				return 0, &exprError{t.col, "division by zero in constant expression"}
			}
			if x == math.MinInt64 && y == -1 {
				if t.text == "%" {
					x = 0
					continue
				}
				return 0, &exprError{t.col, "overflow in constant expression (/)"}
			}
			if t.text == "/" {
				x /= y
			} else {
				x %= y
			}
		}
	}
}

func (lp *lineParser) unary(depth int) (int64, *exprError) {
	t := lp.peek()
	if depth > maxExprDepth {
		return 0, &exprError{lp.col(), "expression nested too deeply"}
	}
	if t == nil {
		return 0, &exprError{lp.endCol(), "bad expression: missing operand"}
	}
	if t.kind == tokPunct && t.text == "-" {
		lp.i++
		// A negated literal may be -2^63, which has no positive int64.
		if n := lp.peek(); n != nil && n.kind == tokInt {
			lp.i++
			return -int64(n.val), nil // wraps to MinInt64 exactly when val == 2^63
		}
		x, err := lp.unary(depth + 1)
		if err != nil {
			return 0, err
		}
		if x == math.MinInt64 {
			return 0, &exprError{t.col, "overflow in constant expression (unary -)"}
		}
		return -x, nil
	}
	return lp.primary(depth)
}

func (lp *lineParser) primary(depth int) (int64, *exprError) {
	t := lp.next()
	switch t.kind {
	case tokInt:
		if t.val > math.MaxInt64 {
			return 0, &exprError{t.col, fmt.Sprintf("integer literal %s out of range", t.text)}
		}
		return int64(t.val), nil
	case tokChar:
		return int64(t.val), nil
	case tokIdent:
		v, ok := lp.a.consts[t.text]
		if !ok {
			return 0, &exprError{t.col, fmt.Sprintf("undefined constant %q%s", t.text, didYouMean(t.text, lp.a.constNames))}
		}
		return v, nil
	case tokPunct:
		if t.text == "(" {
			x, err := lp.sum(depth + 1)
			if err != nil {
				return 0, err
			}
			c := lp.peek()
			if c == nil || c.kind != tokPunct || c.text != ")" {
				return 0, &exprError{lp.col(), "bad expression: missing )"}
			}
			lp.i++
			return x, nil
		}
	case tokString:
		return 0, &exprError{t.col, fmt.Sprintf("bad expression: unexpected string %s", t.text)}
	}
	return 0, &exprError{t.col, fmt.Sprintf("bad expression: unexpected %q", t.text)}
}

func addOK(x, y int64) (int64, bool) {
	r := x + y
	return r, (r > x) == (y > 0)
}

func subOK(x, y int64) (int64, bool) {
	r := x - y
	return r, (r < x) == (y > 0)
}

func mulOK(x, y int64) (int64, bool) {
	if x == 0 || y == 0 {
		return 0, true
	}
	r := x * y
	if (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) || r/y != x {
		return 0, false
	}
	return r, true
}
