package toolserver

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Limits of the calculator: an expression is data from a model, so its size and nesting
// are bounded before any work is done.
const (
	maxExpressionLen = 1000
	maxDepth         = 64
)

// evaluate parses and computes an arithmetic expression: numbers (decimal, optional
// exponent), + - * / % ^, parentheses and unary minus or plus. ^ binds tighter than unary
// minus and is right-associative (-2^2 = -4, 2^3^2 = 512). It never evaluates code: any
// other character is an error.
func evaluate(expr string) (float64, error) {
	if len(expr) > maxExpressionLen {
		return 0, fmt.Errorf("expression is too long (%d characters, at most %d)", len(expr), maxExpressionLen)
	}
	p := &parser{src: expr}
	p.skipSpace()
	if p.pos == len(p.src) {
		return 0, errors.New("expression is empty")
	}
	v, err := p.expr(0)
	if err != nil {
		return 0, err
	}
	p.skipSpace()
	if p.pos < len(p.src) {
		return 0, p.errorf("unexpected %q", p.src[p.pos])
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, errors.New("result is not a finite number")
	}
	return v, nil
}

// formatNumber prints a result with at most 15 significant digits, so 0.1+0.2 reads 0.3.
func formatNumber(v float64) string {
	if v == 0 {
		return "0" // no "-0"
	}
	return strconv.FormatFloat(v, 'g', 15, 64)
}

// parser is a recursive-descent parser over the grammar
//
//	expr    = term { ("+" | "-") term }
//	term    = unary { ("*" | "/" | "%") unary }
//	unary   = ("-" | "+") unary | power
//	power   = primary [ "^" unary ]
//	primary = number | "(" expr ")"
type parser struct {
	src string
	pos int
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("at position %d: %s", p.pos+1, fmt.Sprintf(format, args...))
}

func (p *parser) skipSpace() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (p *parser) peek() byte {
	p.skipSpace()
	if p.pos == len(p.src) {
		return 0
	}
	return p.src[p.pos]
}

func (p *parser) expr(depth int) (float64, error) {
	if depth > maxDepth {
		return 0, p.errorf("expression is nested too deeply (more than %d levels)", maxDepth)
	}
	v, err := p.term(depth)
	if err != nil {
		return 0, err
	}
	for {
		switch op := p.peek(); op {
		case '+', '-':
			p.pos++
			r, err := p.term(depth)
			if err != nil {
				return 0, err
			}
			if op == '+' {
				v += r
			} else {
				v -= r
			}
		default:
			return v, nil
		}
	}
}

func (p *parser) term(depth int) (float64, error) {
	v, err := p.unary(depth)
	if err != nil {
		return 0, err
	}
	for {
		op := p.peek()
		if op != '*' && op != '/' && op != '%' {
			return v, nil
		}
		at := p.pos
		p.pos++
		r, err := p.unary(depth)
		if err != nil {
			return 0, err
		}
		switch op {
		case '*':
			v *= r
		case '/':
			if r == 0 {
				p.pos = at
				return 0, p.errorf("division by zero")
			}
			v /= r
		case '%':
			if r == 0 {
				p.pos = at
				return 0, p.errorf("modulo by zero")
			}
			v = math.Mod(v, r)
		}
	}
}

func (p *parser) unary(depth int) (float64, error) {
	if depth > maxDepth {
		return 0, p.errorf("expression is nested too deeply (more than %d levels)", maxDepth)
	}
	switch p.peek() {
	case '-':
		p.pos++
		v, err := p.unary(depth + 1)
		return -v, err
	case '+':
		p.pos++
		return p.unary(depth + 1)
	}
	return p.power(depth)
}

func (p *parser) power(depth int) (float64, error) {
	base, err := p.primary(depth)
	if err != nil {
		return 0, err
	}
	if p.peek() != '^' {
		return base, nil
	}
	at := p.pos
	p.pos++
	exp, err := p.unary(depth + 1)
	if err != nil {
		return 0, err
	}
	v := math.Pow(base, exp)
	if math.IsNaN(v) {
		p.pos = at
		return 0, p.errorf("%s ^ %s is not a real number", formatNumber(base), formatNumber(exp))
	}
	if math.IsInf(v, 0) {
		p.pos = at
		return 0, p.errorf("%s ^ %s is too large", formatNumber(base), formatNumber(exp))
	}
	return v, nil
}

func (p *parser) primary(depth int) (float64, error) {
	c := p.peek()
	switch {
	case c == 0:
		return 0, p.errorf("expression ends where a number or '(' was expected")
	case c == '(':
		open := p.pos
		p.pos++
		v, err := p.expr(depth + 1)
		if err != nil {
			return 0, err
		}
		if p.peek() != ')' {
			p.pos = open
			return 0, p.errorf("'(' is never closed")
		}
		p.pos++
		return v, nil
	case c >= '0' && c <= '9', c == '.':
		return p.number()
	default:
		return 0, p.errorf("unexpected %q: only numbers, + - * / %% ^ and parentheses are allowed", c)
	}
}

func (p *parser) number() (float64, error) {
	start := p.pos
	digits := 0
	for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
		p.pos++
		digits++
	}
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
			p.pos++
			digits++
		}
	}
	if digits == 0 {
		p.pos = start
		return 0, p.errorf("malformed number")
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		mark := p.pos
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		expDigits := 0
		for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
			p.pos++
			expDigits++
		}
		if expDigits == 0 {
			p.pos = mark
			return 0, p.errorf("malformed exponent in number %q", p.src[start:mark+1])
		}
	}
	text := p.src[start:p.pos]
	v, err := strconv.ParseFloat(text, 64)
	if err != nil {
		p.pos = start
		return 0, p.errorf("number %q is out of range", text)
	}
	return v, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
