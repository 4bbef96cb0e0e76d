package predicate

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is a mistake in an expression, or a path or literal that does not
// fit the schema: Offset is the byte offset in Expr where it was found.
// Its message ends with the expression and a caret under that character.
type Error struct {
	Expr   string
	Offset int
	Msg    string
}

// Error returns the message, the offset, and the expression with a caret
// line under the offending character.
func (e *Error) Error() string {
	line, col := e.Expr, 0
	if e.Offset <= len(line) {
		col = utf8.RuneCountInString(line[:e.Offset])
	}
	line = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || r == '\r' {
			return ' '
		}
		return r
	}, line)
	return fmt.Sprintf("%s at offset %d\n  %s\n  %s^", e.Msg, e.Offset, line, strings.Repeat(" ", col))
}

// Op is a comparison operator.
type Op uint8

// The comparison operators.
const (
	EQ         Op = iota // =
	NE                   // != (also written <>)
	LT                   // <
	LE                   // <=
	GT                   // >
	GE                   // >=
	IN                   // IN (...)
	IsNaN                // IS NAN (no literal)
	StartsWith           // STARTS WITH 'prefix'
	Like                 // LIKE 'pattern' (% any run of characters, _ one character)
)

var opNames = [...]string{"=", "!=", "<", "<=", ">", ">=", "IN", "IS NAN", "STARTS WITH", "LIKE"}

// String returns the operator as written.
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "Op(" + strconv.Itoa(int(o)) + ")"
}

// Expression nodes, as parsed. Offsets for errors are kept where binding
// reports them: in field paths and literals.
type (
	expr interface{ isExpr() }

	andExpr struct{ l, r expr }
	orExpr  struct{ l, r expr }
	notExpr struct{ x expr }
	cmpExpr struct {
		path fieldPath
		op   Op
		lits []literal
	}
	nullExpr struct {
		path fieldPath
		not  bool
	}
)

func (*andExpr) isExpr()  {}
func (*orExpr) isExpr()   {}
func (*notExpr) isExpr()  {}
func (*cmpExpr) isExpr()  {}
func (*nullExpr) isExpr() {}

type fieldPath struct {
	at   int
	segs []string
	ats  []int // offset of each segment
	// keys holds the map lookups: keys[i] are the keys written after
	// segs[i] (name['a']['b']), in order: the first selects that key's
	// value of the map the field holds, the next a key of that value (a
	// map of maps), and so on.
	keys map[int][]string
}

// maxKeys bounds the map lookups written after one field name, so that a
// path's depth stays within what binding walks.
const maxKeys = 64

func (p fieldPath) String() string { return strings.Join(p.segs, ".") }

type litKind uint8

const (
	litNumber litKind = iota
	litString
	litBool
	litBytes // X'hex'
)

// literal is a constant as written. A number keeps its text, its exact
// value (r, nil for NaN and the infinities), the nearest float64 and, when
// it is an integer that fits, its int64.
type literal struct {
	at    int
	kind  litKind
	text  string // the number as written, the string's or the bytes' value
	isInt bool
	i     int64
	f     float64
	r     *big.Rat
	b     bool
}

// parser is a recursive descent parser over a hand-written lexer.
type parser struct {
	src string
	pos int
	tok token
}

type tokKind uint8

const (
	tEOF tokKind = iota
	tIdent
	tQuotedIdent
	tString
	tNumber
	tHex
	tOp
	tLParen
	tRParen
	tComma
	tDot
	tLBracket
	tRBracket
)

type token struct {
	kind tokKind
	at   int
	text string // identifier, operator, string value, number text, hex digits
}

// Parse parses an expression of the --where grammar (see the package
// documentation). The result is not yet tied to a schema: Bind does that.
func Parse(src string) (*Expr, error) {
	p := &parser{src: src}
	if err := p.next(); err != nil {
		return nil, err
	}
	if p.tok.kind == tEOF {
		return nil, p.errAt(p.tok.at, "empty expression")
	}
	e, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tEOF {
		return nil, p.errAt(p.tok.at, "unexpected "+p.describe())
	}
	return &Expr{src: src, root: e}, nil
}

// Expr is a parsed expression.
type Expr struct {
	src  string
	root expr
}

// String returns the expression's text.
func (e *Expr) String() string { return e.src }

func (p *parser) errAt(at int, msg string) *Error { return &Error{Expr: p.src, Offset: at, Msg: msg} }

func (p *parser) describe() string {
	switch p.tok.kind {
	case tEOF:
		return "end of expression"
	case tString:
		return "string"
	case tNumber:
		return "number " + p.tok.text
	}
	return strconv.Quote(p.src[p.tok.at:p.pos])
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdentPart(c byte) bool  { return isIdentStart(c) || c >= '0' && c <= '9' }
func isDigit(c byte) bool      { return c >= '0' && c <= '9' }

// next reads the next token into p.tok.
func (p *parser) next() error {
	s := p.src
	for p.pos < len(s) && (s[p.pos] == ' ' || s[p.pos] == '\t' || s[p.pos] == '\n' || s[p.pos] == '\r') {
		p.pos++
	}
	start := p.pos
	p.tok = token{at: start}
	if p.pos >= len(s) {
		p.tok.kind = tEOF
		return nil
	}
	c := s[p.pos]
	switch {
	case (c == 'x' || c == 'X') && p.pos+1 < len(s) && s[p.pos+1] == '\'':
		p.pos++
		v, err := p.quoted('\'')
		if err != nil {
			return err
		}
		for i := 0; i < len(v); i++ {
			if !strings.ContainsRune("0123456789abcdefABCDEF", rune(v[i])) {
				return p.errAt(start+2+i, "not a hex digit in X'...'")
			}
		}
		if len(v)%2 != 0 {
			return p.errAt(start, "odd number of hex digits in X'...'")
		}
		p.tok.kind, p.tok.text = tHex, v
	case isIdentStart(c):
		for p.pos < len(s) && isIdentPart(s[p.pos]) {
			p.pos++
		}
		p.tok.kind, p.tok.text = tIdent, s[start:p.pos]
	case c == '"' || c == '`':
		v, err := p.quoted(c)
		if err != nil {
			return err
		}
		p.tok.kind, p.tok.text = tQuotedIdent, v
	case c == '\'':
		v, err := p.quoted('\'')
		if err != nil {
			return err
		}
		p.tok.kind, p.tok.text = tString, v
	case isDigit(c) || (c == '-' || c == '+' || c == '.') && p.pos+1 < len(s) && (isDigit(s[p.pos+1]) || s[p.pos+1] == '.'):
		p.pos++
		for p.pos < len(s) && (isDigit(s[p.pos]) || s[p.pos] == '.' || s[p.pos] == 'e' || s[p.pos] == 'E' ||
			(s[p.pos] == '-' || s[p.pos] == '+') && (s[p.pos-1] == 'e' || s[p.pos-1] == 'E')) {
			p.pos++
		}
		p.tok.kind, p.tok.text = tNumber, s[start:p.pos]
	case c == '-' || c == '+':
		// -Infinity, +Infinity.
		p.pos++
		for p.pos < len(s) && isIdentPart(s[p.pos]) {
			p.pos++
		}
		if !strings.EqualFold(s[start+1:p.pos], "infinity") {
			return p.errAt(start, "unexpected "+strconv.Quote(string(c)))
		}
		p.tok.kind, p.tok.text = tNumber, s[start:p.pos]
	case c == '(':
		p.pos++
		p.tok.kind = tLParen
	case c == ')':
		p.pos++
		p.tok.kind = tRParen
	case c == ',':
		p.pos++
		p.tok.kind = tComma
	case c == '[':
		p.pos++
		p.tok.kind = tLBracket
	case c == ']':
		p.pos++
		p.tok.kind = tRBracket
	case c == '.':
		p.pos++
		p.tok.kind = tDot
	case c == '=' || c == '<' || c == '>' || c == '!':
		p.pos++
		if p.pos < len(s) && (s[p.pos] == '=' || c == '<' && s[p.pos] == '>') {
			p.pos++
		}
		op := s[start:p.pos]
		if op == "!" {
			return p.errAt(start, `"!" must be followed by "=" (use NOT for negation)`)
		}
		if op == "==" {
			op = "="
		}
		p.tok.kind, p.tok.text = tOp, op
	default:
		r, _ := utf8.DecodeRuneInString(s[p.pos:])
		return p.errAt(start, "unexpected character "+strconv.QuoteRune(r))
	}
	return nil
}

// quoted reads a literal quoted with q, in which q is written twice to
// stand for itself (SQL's escaping), starting at p.pos.
func (p *parser) quoted(q byte) (string, error) {
	start := p.pos
	p.pos++
	var b strings.Builder
	for {
		i := strings.IndexByte(p.src[p.pos:], q)
		if i < 0 {
			return "", p.errAt(start, "unterminated quoted text")
		}
		b.WriteString(p.src[p.pos : p.pos+i])
		p.pos += i + 1
		if p.pos < len(p.src) && p.src[p.pos] == q {
			b.WriteByte(q)
			p.pos++
			continue
		}
		return b.String(), nil
	}
}

func (p *parser) keyword(k string) bool {
	return p.tok.kind == tIdent && strings.EqualFold(p.tok.text, k)
}

// peekKeyword reports whether the token after the current one is keyword
// k, without moving.
func (p *parser) peekKeyword(k string) bool {
	save, tok := p.pos, p.tok
	defer func() { p.pos, p.tok = save, tok }()
	return p.next() == nil && p.keyword(k)
}

var reserved = []string{"AND", "OR", "NOT", "IN", "IS", "NULL", "TRUE", "FALSE"}

func isReserved(s string) bool {
	for _, r := range reserved {
		if strings.EqualFold(s, r) {
			return true
		}
	}
	return false
}

func (p *parser) or() (expr, error) { return p.nested(0) }

// maxNesting bounds NOT and parentheses, so that a hostile expression
// cannot exhaust the stack.
const maxNesting = 1000

func (p *parser) unary(depth int) (expr, error) {
	if depth > maxNesting {
		return nil, p.errAt(p.tok.at, "expression nested too deeply")
	}
	if p.keyword("NOT") {
		if err := p.next(); err != nil {
			return nil, err
		}
		x, err := p.unary(depth + 1)
		if err != nil {
			return nil, err
		}
		return &notExpr{x: x}, nil
	}
	if p.tok.kind == tLParen {
		open := p.tok.at
		if err := p.next(); err != nil {
			return nil, err
		}
		x, err := p.nested(depth + 1)
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tRParen {
			return nil, p.errAt(p.tok.at, fmt.Sprintf("expected \")\" to close the \"(\" at offset %d, found %s", open, p.describe()))
		}
		if err := p.next(); err != nil {
			return nil, err
		}
		return x, nil
	}
	return p.predicate()
}

// nested parses a whole expression inside parentheses.
func (p *parser) nested(depth int) (expr, error) {
	l, err := p.nestedAnd(depth)
	if err != nil {
		return nil, err
	}
	for p.keyword("OR") {
		if err := p.next(); err != nil {
			return nil, err
		}
		r, err := p.nestedAnd(depth)
		if err != nil {
			return nil, err
		}
		l = &orExpr{l: l, r: r}
	}
	return l, nil
}

func (p *parser) nestedAnd(depth int) (expr, error) {
	l, err := p.unary(depth)
	if err != nil {
		return nil, err
	}
	for p.keyword("AND") {
		if err := p.next(); err != nil {
			return nil, err
		}
		r, err := p.unary(depth)
		if err != nil {
			return nil, err
		}
		l = &andExpr{l: l, r: r}
	}
	return l, nil
}

func (p *parser) predicate() (expr, error) {
	path, err := p.path()
	if err != nil {
		return nil, err
	}
	switch {
	case p.keyword("IS"):
		if err := p.next(); err != nil {
			return nil, err
		}
		not := p.keyword("NOT")
		if not {
			if err := p.next(); err != nil {
				return nil, err
			}
		}
		if p.keyword("NAN") {
			var e expr = &cmpExpr{path: path, op: IsNaN}
			if not {
				e = &notExpr{x: e}
			}
			return e, p.next()
		}
		if !p.keyword("NULL") {
			return nil, p.errAt(p.tok.at, "expected NULL or NAN, found "+p.describe())
		}
		return &nullExpr{path: path, not: not}, p.next()
	case p.keyword("STARTS"):
		if err := p.next(); err != nil {
			return nil, err
		}
		if !p.keyword("WITH") {
			return nil, p.errAt(p.tok.at, "expected WITH after STARTS, found "+p.describe())
		}
		if err := p.next(); err != nil {
			return nil, err
		}
		l, err := p.literal()
		if err != nil {
			return nil, err
		}
		return &cmpExpr{path: path, op: StartsWith, lits: []literal{l}}, nil
	case p.keyword("LIKE"), p.keyword("NOT") && p.peekKeyword("LIKE"):
		not := p.keyword("NOT")
		if not {
			if err := p.next(); err != nil {
				return nil, err
			}
		}
		if err := p.next(); err != nil {
			return nil, err
		}
		l, err := p.literal()
		if err != nil {
			return nil, err
		}
		var e expr = &cmpExpr{path: path, op: Like, lits: []literal{l}}
		if not {
			e = &notExpr{x: e}
		}
		return e, nil
	case p.keyword("NOT"), p.keyword("IN"):
		not := p.keyword("NOT")
		if not {
			if err := p.next(); err != nil {
				return nil, err
			}
			if !p.keyword("IN") {
				return nil, p.errAt(p.tok.at, "expected IN or LIKE after NOT, found "+p.describe())
			}
		}
		if err := p.next(); err != nil {
			return nil, err
		}
		if p.tok.kind != tLParen {
			return nil, p.errAt(p.tok.at, "expected \"(\" after IN, found "+p.describe())
		}
		var lits []literal
		for {
			if err := p.next(); err != nil {
				return nil, err
			}
			l, err := p.literal()
			if err != nil {
				return nil, err
			}
			lits = append(lits, l)
			if p.tok.kind == tRParen {
				break
			}
			if p.tok.kind != tComma {
				return nil, p.errAt(p.tok.at, "expected \",\" or \")\" in the IN list, found "+p.describe())
			}
		}
		if err := p.next(); err != nil {
			return nil, err
		}
		var e expr = &cmpExpr{path: path, op: IN, lits: lits}
		if not {
			e = &notExpr{x: e}
		}
		return e, nil
	case p.tok.kind == tOp:
		at := p.tok.at
		var op Op
		switch p.tok.text {
		case "=":
			op = EQ
		case "!=", "<>":
			op = NE
		case "<":
			op = LT
		case "<=":
			op = LE
		case ">":
			op = GT
		case ">=":
			op = GE
		default:
			return nil, p.errAt(at, "unknown operator "+strconv.Quote(p.tok.text))
		}
		if err := p.next(); err != nil {
			return nil, err
		}
		if p.keyword("NULL") {
			return nil, p.errAt(p.tok.at, "a comparison with NULL is never true: use IS NULL or IS NOT NULL")
		}
		l, err := p.literal()
		if err != nil {
			return nil, err
		}
		return &cmpExpr{path: path, op: op, lits: []literal{l}}, nil
	}
	return nil, p.errAt(p.tok.at, "expected an operator (= != < <= > >= IN IS LIKE STARTS WITH) after "+strconv.Quote(path.String())+", found "+p.describe())
}

func (p *parser) path() (fieldPath, error) {
	fp := fieldPath{at: p.tok.at}
	for {
		switch {
		case p.tok.kind == tQuotedIdent, p.tok.kind == tIdent && !isReserved(p.tok.text):
		case p.tok.kind == tIdent:
			return fp, p.errAt(p.tok.at, fmt.Sprintf("expected a field name, found the keyword %s (quote a field of that name: \"%s\")", strings.ToUpper(p.tok.text), p.tok.text))
		default:
			return fp, p.errAt(p.tok.at, "expected a field name, found "+p.describe())
		}
		fp.segs = append(fp.segs, p.tok.text)
		fp.ats = append(fp.ats, p.tok.at)
		if err := p.next(); err != nil {
			return fp, err
		}
		for p.tok.kind == tLBracket {
			if err := p.next(); err != nil {
				return fp, err
			}
			if p.tok.kind != tString {
				return fp, p.errAt(p.tok.at, "expected a 'key' in [ ], found "+p.describe())
			}
			if fp.keys == nil {
				fp.keys = map[int][]string{}
			}
			if len(fp.keys[len(fp.segs)-1]) == maxKeys {
				return fp, p.errAt(p.tok.at, fmt.Sprintf("more than %d map lookups after one field name", maxKeys))
			}
			fp.keys[len(fp.segs)-1] = append(fp.keys[len(fp.segs)-1], p.tok.text)
			if err := p.next(); err != nil {
				return fp, err
			}
			if p.tok.kind != tRBracket {
				return fp, p.errAt(p.tok.at, "expected \"]\" after the map key, found "+p.describe())
			}
			if err := p.next(); err != nil {
				return fp, err
			}
		}
		if p.tok.kind != tDot {
			return fp, nil
		}
		if err := p.next(); err != nil {
			return fp, err
		}
	}
}

// literal parses a literal and reads the token after it.
func (p *parser) literal() (literal, error) {
	l := literal{at: p.tok.at}
	switch p.tok.kind {
	case tString:
		l.kind, l.text = litString, p.tok.text
	case tHex:
		l.kind = litBytes
		b := make([]byte, len(p.tok.text)/2)
		for i := range b {
			v, _ := strconv.ParseUint(p.tok.text[2*i:2*i+2], 16, 8)
			b[i] = byte(v)
		}
		l.text = string(b)
	case tNumber:
		l.kind, l.text = litNumber, p.tok.text
		t := strings.TrimPrefix(p.tok.text, "+")
		switch strings.ToLower(strings.TrimPrefix(t, "-")) {
		case "infinity":
			l.f = math.Inf(1)
			if t[0] == '-' {
				l.f = math.Inf(-1)
			}
			return l, p.next()
		}
		r, err := parseNumber(t)
		if err != nil {
			return l, p.errAt(l.at, err.Error())
		}
		l.r = r
		l.f, _ = r.Float64()
		if r.IsInt() && r.Num().IsInt64() {
			l.isInt, l.i = true, r.Num().Int64()
		}
	case tIdent:
		switch {
		case strings.EqualFold(p.tok.text, "true"), strings.EqualFold(p.tok.text, "false"):
			l.kind, l.b = litBool, strings.EqualFold(p.tok.text, "true")
		case strings.EqualFold(p.tok.text, "nan"):
			l.kind, l.text, l.f = litNumber, p.tok.text, math.NaN()
		case strings.EqualFold(p.tok.text, "infinity"):
			l.kind, l.text, l.f = litNumber, p.tok.text, math.Inf(1)
		default:
			return l, p.errAt(l.at, "expected a literal (a 'string', a number, TRUE, FALSE, NaN, Infinity or X'hex'), found "+p.describe()+"; quote strings and enum symbols with '")
		}
	default:
		return l, p.errAt(l.at, "expected a literal, found "+p.describe())
	}
	return l, p.next()
}

// Bounds on a number literal, so that parsing it stays linear in its length
// and its exact value small: the longest literal, in characters, and the
// largest exponent.
const (
	maxNumberLen      = 4096
	maxNumberExponent = 10000
)

// parseNumber reads a decimal number literal (t without a leading '+')
// exactly.
func parseNumber(t string) (*big.Rat, error) {
	if len(t) > maxNumberLen {
		return nil, fmt.Errorf("number literal of %d characters: at most %d are allowed", len(t), maxNumberLen)
	}
	if k := strings.IndexAny(t, "eE"); k >= 0 {
		e, err := strconv.Atoi(t[k+1:])
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, fmt.Errorf("malformed number %q", t)
		}
		if err != nil || e > maxNumberExponent || e < -maxNumberExponent {
			return nil, fmt.Errorf("exponent of %q out of range: at most %d either way", t, maxNumberExponent)
		}
	}
	r, ok := new(big.Rat).SetString(t)
	if !ok || strings.ContainsAny(t, "/xXpP") {
		return nil, fmt.Errorf("malformed number %q", t)
	}
	return r, nil
}
