package predicate

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

// Predicate is an expression bound to a schema and its column layout: it
// evaluates records (Eval, Match) and block statistics (MayMatch).
// A Predicate is safe for concurrent use.
type Predicate struct {
	src   string
	root  node
	cols  []int
	paths []string
	// fileCol marks a predicate bound with BindOptions.FileColumn: its
	// leaves' columns are not the file's.
	fileCol bool
}

// String returns the expression's text.
func (p *Predicate) String() string { return p.src }

// Columns returns, in increasing order, the columns whose statistics
// MayMatch may ask for: the leaf columns the expression compares and the
// union branch columns that tell whether a record it tests is present.
func (p *Predicate) Columns() []int { return append([]int(nil), p.cols...) }

// Fields returns the field paths the expression reads, in the order they
// first appear, each once: the fields a reader must assemble for Eval.
func (p *Predicate) Fields() []string { return append([]string(nil), p.paths...) }

// Compile parses src and binds it to schema s laid out as l (layout.New(s,
// nil)).
func Compile(src string, s *schema.Schema, l *layout.Layout) (*Predicate, error) {
	e, err := Parse(src)
	if err != nil {
		return nil, err
	}
	return e.Bind(s, l)
}

// BindOptions tunes BindWith and CompileWith. A nil *BindOptions binds to
// the file's own schema, as Bind does.
type BindOptions struct {
	// FileColumn, if set, says which file column holds the values of
	// column col of the layout bound to, for a schema other than the
	// file's (a reader schema): the file column, or -1 where none holds
	// exactly those values (a field read from its default, a value
	// promoted or otherwise converted on reading, a union branch fed by
	// several). Columns and the statistics MayMatch asks for are then the
	// file's; a column mapped to -1 has no statistics (every value is
	// possible there).
	FileColumn func(col int) int
}

// Bind resolves the expression's field paths against schema s and its
// layout l, and checks and converts its literals to the types of the fields
// they are compared with. A path or literal that does not fit is an *Error
// pointing at it.
func (e *Expr) Bind(s *schema.Schema, l *layout.Layout) (*Predicate, error) {
	return e.BindWith(s, l, nil)
}

// CompileWith is Compile with options.
func CompileWith(src string, s *schema.Schema, l *layout.Layout, opts *BindOptions) (*Predicate, error) {
	e, err := Parse(src)
	if err != nil {
		return nil, err
	}
	return e.BindWith(s, l, opts)
}

// BindWith is Bind with options.
func (e *Expr) BindWith(s *schema.Schema, l *layout.Layout, opts *BindOptions) (*Predicate, error) {
	b := &binder{src: e.src, colSet: map[int]bool{}, pathSet: map[string]bool{}}
	if l == nil || l.Root == nil || s == nil {
		return nil, &Error{Expr: e.src, Msg: "no schema to bind to"}
	}
	if opts != nil {
		b.fileCol = opts.FileColumn
	}
	b.schema, b.layout = s, l
	root, err := b.bind(e.root)
	if err != nil {
		return nil, err
	}
	p := &Predicate{src: e.src, root: root, paths: b.paths, fileCol: b.fileCol != nil}
	for c := range b.colSet {
		p.cols = append(p.cols, c)
	}
	sortInts(p.cols)
	return p, nil
}

func sortInts(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

type binder struct {
	src     string
	schema  *schema.Schema
	layout  *layout.Layout
	colSet  map[int]bool
	paths   []string
	pathSet map[string]bool
	keys    map[int][]string  // the map lookups of the path being resolved
	fileCol func(col int) int // BindOptions.FileColumn, or nil
}

func (b *binder) errAt(at int, format string, args ...any) *Error {
	return &Error{Expr: b.src, Offset: at, Msg: fmt.Sprintf(format, args...)}
}

func (b *binder) bindPair(l, r expr) (node, node, error) {
	ln, err := b.bind(l)
	if err != nil {
		return nil, nil, err
	}
	rn, err := b.bind(r)
	return ln, rn, err
}

func (b *binder) bind(e expr) (node, error) {
	switch e := e.(type) {
	case *andExpr:
		l, r, err := b.bindPair(e.l, e.r)
		if err != nil {
			return nil, err
		}
		return &andNode{l, r}, nil
	case *orExpr:
		l, r, err := b.bindPair(e.l, e.r)
		if err != nil {
			return nil, err
		}
		return &orNode{l, r}, nil
	case *notExpr:
		x, err := b.bind(e.x)
		if err != nil {
			return nil, err
		}
		return &notNode{x}, nil
	case *nullExpr:
		t, err := b.target(e.path)
		if err != nil {
			return nil, err
		}
		for _, r := range t.records {
			if r.presence >= 0 {
				b.colSet[r.presence] = true
			}
		}
		return &nullNode{t: t, not: e.not}, nil
	case *cmpExpr:
		if d, err := b.wellKnownTime(e); d != nil || err != nil {
			if err != nil {
				return nil, err
			}
			return b.bind(d)
		}
		t, err := b.target(e.path)
		if err != nil {
			return nil, err
		}
		if len(t.records) > 0 {
			return nil, b.errAt(e.path.at, "%s is a record: only IS NULL and IS NOT NULL apply to it", e.path)
		}
		n := &cmpNode{t: t, op: e.op, lits: make([][]scalar, len(t.leaves))}
		for i := range t.leaves {
			lf := &t.leaves[i]
			if lf.typ == format.Null {
				return nil, b.errAt(e.path.at, "%s is of type null: only IS NULL and IS NOT NULL apply to it", e.path)
			}
			switch e.op {
			case IsNaN:
				if (lf.schema.Kind != schema.Float && lf.schema.Kind != schema.Double) || lf.decimal {
					return nil, b.errAt(e.path.at, "%s is %s: IS NAN applies to float and double fields", e.path, article(describe(lf.schema)))
				}
			case StartsWith, Like:
				k := lf.schema.Kind
				if k != schema.String && k != schema.Bytes && k != schema.Fixed || lf.decimal {
					return nil, b.errAt(e.path.at, "%s is %s: %s applies to string, bytes and fixed fields", e.path, article(describe(lf.schema)), e.op)
				}
			}
			for _, lit := range e.lits {
				v, err := convertLeaf(lit, lf)
				if err != nil {
					return nil, b.errAt(lit.at, "%s: %s", e.path, err)
				}
				n.lits[i] = append(n.lits[i], v)
			}
		}
		if e.op == IN {
			n.sets = make([]*inSet, len(n.lits))
			for i, lits := range n.lits {
				n.sets[i] = newInSet(lits)
			}
		}
		return n, nil
	}
	return nil, fmt.Errorf("predicate: unknown expression %T", e)
}

// target is what a field path reaches: the simple values (leaves) and the
// records at its end, and how to walk a record to them.
type target struct {
	path string
	// avro is the path's segments by the Avro names of the fields they
	// name (a segment may name a field by its source name).
	avro   []string
	walk   *walker
	leaves []leaf
	// records are the records the path ends at, if any.
	records []recordEnd
	// single reports that a row holds at most one value of the path: no
	// array or map lies on the way.
	single bool
}

type leaf struct {
	schema  *schema.Schema
	col     int
	typ     format.ValueType
	decimal bool // compare as numbers, not as stored bytes; no statistics
	// enum maps the symbols of a protobuf enum stored as an int (the
	// field's "protobuf.enum" property) to their numbers, so that a
	// 'NAME' literal compares as its number; nil for other fields.
	enum map[string]int64
}

type recordEnd struct {
	// presence is the union branch column whose non-empty lengths count
	// the rows where the record is present, presenceAlways if it always
	// is, or presenceUnknown when no file column says (BindOptions).
	presence int
}

const (
	presenceAlways  = -1
	presenceUnknown = -2
)

// kindName names a schema's type for a message: "record In", "long".
func kindName(s *schema.Schema) string {
	if s.Kind.IsNamed() {
		return s.Kind.String() + " " + s.FullName()
	}
	return s.FullName()
}

// article returns name after "a" or "an", as its first letter wants.
func article(name string) string {
	if name != "" && strings.ContainsRune("aeiouAEIOU", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// walker tells Eval how to walk a goavro native value to the path's values.
type walker struct {
	kind     walkKind
	union    *schema.Schema // walkUnion: the union
	field    string         // walkField: the record field
	next     *walker        // walkField, walkArray, walkMap
	branches []*walker      // walkUnion: per branch; nil for null and for branches without the path
	leaf     int            // walkLeaf: index in target.leaves
	key      string         // walkMapKey: the key looked up
}

type walkKind uint8

const (
	walkField walkKind = iota
	walkArray
	walkMap
	walkMapKey // one key's value of a map; a missing key is a NULL
	walkUnion
	walkLeaf
	walkRecord // the path ends at a record: a present value
	walkNull   // a value of type null
)

// notFound is a path segment with no field of its name.
type notFound struct {
	seg int
	msg string
}

func (b *binder) target(fp fieldPath) (*target, error) {
	path := fp.String()
	t := &target{path: path, single: true, avro: slices.Clone(fp.segs)}
	b.keys = fp.keys
	w, nf := b.resolve(t, b.schema, b.layout.Root, fp.segs, 0, true, -1, nil)
	if nf != nil {
		return nil, b.errAt(fp.ats[nf.seg], "%s: %s", path, nf.msg)
	}
	// The path as Fields gives it: by the fields' Avro names, whatever
	// names the filter used (a source name, "log.level").
	if avro := strings.Join(t.avro, "."); !b.pathSet[avro] {
		b.pathSet[avro] = true
		b.paths = append(b.paths, avro)
	}
	t.walk = w
	if b.fileCol != nil {
		for k := range t.leaves {
			t.leaves[k].col = b.fileCol(t.leaves[k].col)
		}
		for k, r := range t.records {
			if r.presence >= 0 {
				if t.records[k].presence = b.fileCol(r.presence); t.records[k].presence < 0 {
					t.records[k].presence = presenceUnknown
				}
			}
		}
	}
	for _, lf := range t.leaves {
		if lf.col >= 0 {
			b.colSet[lf.col] = true
		}
	}
	return t, nil
}

// resolve follows segs[i:] from schema node s (layout node n). single is
// false once an array or a map was passed; branchCol is the innermost
// union branch column passed, or -1.
//
// key, when not nil, is a map key written after segs[i-1]: the next node
// must be a map (through unions), and the walk takes that key's value.
//
// keys, when not empty, are map keys written after segs[i-1]: the next
// node must be a map (through unions and arrays), and the walk takes the
// value of keys[0], then looks up the rest in that value.
func (b *binder) resolve(t *target, s *schema.Schema, n *layout.Node, segs []string, i int, single bool, branchCol int, keys []string) (*walker, *notFound) {
	if len(keys) > 0 && s.Kind != schema.Union && s.Kind != schema.Map && s.Kind != schema.Array {
		return nil, &notFound{seg: i - 1, msg: fmt.Sprintf("%s is %s, not a map: [%q] applies to maps", segs[i-1], article(kindName(s)), keys[0])}
	}
	switch s.Kind {
	case schema.Union:
		w := &walker{kind: walkUnion, union: s, branches: make([]*walker, len(s.Branches))}
		var first *notFound
		found := false
		for k, br := range s.Branches {
			if br.Kind == schema.Null || n.Branches[k] == nil {
				continue
			}
			bw, nf := b.resolve(t, br, n.Branches[k], segs, i, single, n.BranchCols[k], keys)
			if nf != nil {
				if first == nil || nf.seg > first.seg {
					first = nf
				}
				continue
			}
			w.branches[k], found = bw, true
		}
		if !found {
			if first == nil {
				first = &notFound{seg: max(i, 0), msg: "the union has only a null branch"}
				if i >= len(segs) {
					first.seg = len(segs) - 1
				}
			}
			return nil, first
		}
		return w, nil
	case schema.Array:
		// A key after an array looks it up in each element's map.
		next, nf := b.resolve(t, s.Items, n.Items, segs, i, false, branchCol, keys)
		if nf != nil {
			return nil, nf
		}
		return &walker{kind: walkArray, next: next}, nil
	case schema.Map:
		var rest []string
		if len(keys) > 0 {
			rest = keys[1:]
		}
		next, nf := b.resolve(t, s.Values, n.Items, segs, i, false, branchCol, rest)
		if nf != nil {
			return nil, nf
		}
		if len(keys) > 0 {
			return &walker{kind: walkMapKey, key: keys[0], next: next}, nil
		}
		return &walker{kind: walkMap, next: next}, nil
	case schema.Record:
		if i == len(segs) {
			t.single = t.single && single
			presence := branchCol
			if presence < 0 {
				presence = presenceAlways
			}
			t.records = append(t.records, recordEnd{presence: presence})
			return &walker{kind: walkRecord}, nil
		}
		k := -1
		f, err := s.LookupField(segs[i])
		if err != nil {
			return nil, &notFound{seg: i, msg: err.Error()}
		}
		if f != nil {
			k = slices.Index(s.Fields, f)
			if t.avro != nil {
				t.avro[i] = f.Name
			}
		}
		if k < 0 {
			msg := fmt.Sprintf("record %s has no field %q", s.Name, segs[i])
			if near := nearestField(s, segs[i]); near != "" {
				msg += "; did you mean " + near + "?"
			}
			return nil, &notFound{seg: i, msg: msg}
		}
		before := len(t.leaves)
		next, nf := b.resolve(t, s.Fields[k].Type, n.Fields[k], segs, i+1, single, branchCol, b.keys[i])
		if nf != nil {
			return nil, nf
		}
		if syms := protoEnum(s.Fields[k]); syms != nil {
			for j := before; j < len(t.leaves); j++ {
				if kind := t.leaves[j].schema.Kind; kind == schema.Int || kind == schema.Long {
					t.leaves[j].enum = syms
				}
			}
		}
		return &walker{kind: walkField, field: s.Fields[k].Name, next: next}, nil
	}
	if i < len(segs) {
		return nil, &notFound{seg: i, msg: fmt.Sprintf("a value of type %s has no field %q", s.FullName(), segs[i])}
	}
	t.single = t.single && single
	if s.Kind == schema.Null {
		return &walker{kind: walkNull}, nil
	}
	t.leaves = append(t.leaves, leaf{schema: s, col: n.Col, typ: n.Type, decimal: s.Logical == schema.LogicalDecimal})
	return &walker{kind: walkLeaf, leaf: len(t.leaves) - 1}, nil
}

// scalar is a value in the form comparisons use: integers (booleans as 0
// and 1, enums as ordinals, dates and times as their stored numbers),
// floats widened to float64, strings and bytes as strings, decimals as
// rationals. A number literal that is not an int64 is an sNum, which keeps
// what exact comparisons with integers and floats need.
type scalar struct {
	kind scalarKind
	i    int64 // sInt: the value; sNum: its floor, when out is 0
	f    float64
	s    string
	r    *big.Rat
	// sNum only: out is -1 or 1 when the value lies below or above the
	// int64 range; d is the sign of the value minus f, its nearest
	// float64 (f may be an infinity).
	out, d int8
}

type scalarKind uint8

const (
	sInt scalarKind = iota
	sFloat
	sBytes
	sRat
	sNum
)

// convert turns a literal into a scalar comparable with values of the
// simple schema s, or says why it cannot.
func convert(l literal, s *schema.Schema) (scalar, error) {
	want := func(what string) error {
		return fmt.Errorf("%s field needs %s", article(describe(s)), what)
	}
	switch s.Kind {
	case schema.Boolean:
		if l.kind != litBool {
			return scalar{}, want("TRUE or FALSE")
		}
		if l.b {
			return scalar{kind: sInt, i: 1}, nil
		}
		return scalar{kind: sInt}, nil
	case schema.Int, schema.Long:
		if l.kind == litString {
			if v, err := parseTime(l.text, s); err == nil {
				return scalar{kind: sInt, i: v}, nil
			} else if s.Logical != schema.LogicalNone {
				return scalar{}, err
			}
		}
		if l.kind != litNumber {
			return scalar{}, want("a number")
		}
		return number(l), nil
	case schema.Float, schema.Double:
		if l.kind != litNumber {
			return scalar{}, want("a number")
		}
		return number(l), nil
	case schema.String:
		if l.kind != litString {
			return scalar{}, want("a 'string'")
		}
		return scalar{kind: sBytes, s: l.text}, nil
	case schema.Enum:
		if l.kind != litString {
			return scalar{}, want("a 'symbol'")
		}
		k := s.SymbolIndex(l.text)
		if k < 0 {
			return scalar{}, fmt.Errorf("enum %s has no symbol %q (it has %s)", s.Name, l.text, strings.Join(s.Symbols, ", "))
		}
		return scalar{kind: sInt, i: int64(k)}, nil
	case schema.Bytes, schema.Fixed:
		if s.Logical == schema.LogicalDecimal {
			if l.kind != litNumber || l.r == nil {
				return scalar{}, want("a finite number")
			}
			return scalar{kind: sRat, r: l.r}, nil
		}
		switch l.kind {
		case litBytes:
			return scalar{kind: sBytes, s: l.text}, nil
		case litString:
			// As Avro JSON writes bytes: one character per byte.
			buf := make([]byte, 0, len(l.text))
			for _, r := range l.text {
				if r > 0xff {
					return scalar{}, fmt.Errorf("character %q is not a byte: write bytes as characters U+0000 to U+00FF, as Avro JSON does, or as X'hex'", r)
				}
				buf = append(buf, byte(r))
			}
			return scalar{kind: sBytes, s: string(buf)}, nil
		}
		return scalar{}, want("a 'string' of byte characters or X'hex'")
	}
	return scalar{}, fmt.Errorf("cannot compare %s", article(describe(s)))
}

func describe(s *schema.Schema) string {
	d := s.FullName()
	if s.Logical != schema.LogicalNone {
		d += " (" + string(s.Logical) + ")"
	}
	return d
}

// number converts a number literal: an int64 as sInt, NaN and the
// infinities as sFloat, any other value as an sNum that compares exactly.
func number(l literal) scalar {
	switch {
	case l.isInt:
		return scalar{kind: sInt, i: l.i}
	case l.r == nil:
		return scalar{kind: sFloat, f: l.f}
	}
	s := scalar{kind: sNum, f: l.f}
	switch {
	case math.IsInf(l.f, 1):
		s.d = -1
	case math.IsInf(l.f, -1):
		s.d = 1
	default:
		s.d = int8(l.r.Cmp(new(big.Rat).SetFloat64(l.f)))
	}
	fl := new(big.Int).Quo(l.r.Num(), l.r.Denom()) // truncated toward zero
	if l.r.Sign() < 0 && !l.r.IsInt() {
		fl.Sub(fl, big.NewInt(1))
	}
	switch {
	case !fl.IsInt64():
		s.out = int8(fl.Sign())
	default:
		s.i = fl.Int64()
	}
	return s
}

// parseTime reads a date, time or timestamp written as text for a field of
// a temporal logical type, giving the number the field stores. A value
// finer than the field's unit is an error.
func parseTime(text string, s *schema.Schema) (int64, error) {
	var unit time.Duration
	local := false
	switch s.Logical {
	case schema.LogicalDate:
		t, err := time.Parse("2006-01-02", text)
		if err != nil {
			return 0, fmt.Errorf("a date field needs a number of days or 'YYYY-MM-DD'")
		}
		return t.Unix() / 86400, nil
	case schema.LogicalTimeMillis, schema.LogicalTimeMicros:
		t, err := time.Parse("15:04:05.999999999", text)
		if err != nil {
			return 0, fmt.Errorf("a %s field needs a number or 'HH:MM:SS[.fraction]'", s.Logical)
		}
		d := time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute +
			time.Duration(t.Second())*time.Second + time.Duration(t.Nanosecond())
		unit = time.Millisecond
		if s.Logical == schema.LogicalTimeMicros {
			unit = time.Microsecond
		}
		if d%unit != 0 {
			return 0, fmt.Errorf("%q is finer than the field's unit", text)
		}
		return int64(d / unit), nil
	case schema.LogicalTimestampMillis:
		unit = time.Millisecond
	case schema.LogicalTimestampMicros:
		unit = time.Microsecond
	case schema.LogicalTimestampNanos:
		unit = time.Nanosecond
	case schema.LogicalLocalTimestampMillis:
		unit, local = time.Millisecond, true
	case schema.LogicalLocalTimestampMicros:
		unit, local = time.Microsecond, true
	case schema.LogicalLocalTimestampNanos:
		unit, local = time.Nanosecond, true
	default:
		return 0, fmt.Errorf("not a temporal field")
	}
	layoutStr := time.RFC3339Nano
	if local {
		layoutStr = "2006-01-02T15:04:05.999999999"
	}
	t, err := time.Parse(layoutStr, text)
	if err != nil {
		if local {
			return 0, fmt.Errorf("a %s field needs a number or 'YYYY-MM-DDTHH:MM:SS[.fraction]' (no zone)", s.Logical)
		}
		return 0, fmt.Errorf("a %s field needs a number or an RFC 3339 timestamp such as '2024-05-01T12:00:00Z'", s.Logical)
	}
	// Seconds and nanoseconds, exactly, in the unit.
	sec, ns := t.Unix(), int64(t.Nanosecond())
	if ns%int64(unit) != 0 {
		return 0, fmt.Errorf("%q is finer than the field's unit", text)
	}
	per := int64(time.Second / unit)
	if sec > math.MaxInt64/per || sec < math.MinInt64/per {
		return 0, fmt.Errorf("%q is out of the field's range", text)
	}
	return sec*per + ns/int64(unit), nil
}

// nearestField returns the field of record s whose name is nearest name: one
// equal but for case, else the first within two edits (insertions,
// deletions, substitutions of a character), the fewest edits first; "" when
// none is that near.
func nearestField(s *schema.Schema, name string) string {
	best, bestD := "", 3
	for _, f := range s.Fields {
		if strings.EqualFold(f.Name, name) {
			return f.Name
		}
		if d := editDistance(f.Name, name, bestD); d < bestD {
			best, bestD = f.Name, d
		}
	}
	return best
}

// editDistance returns the Levenshtein distance between a and b counted in
// characters, or limit when it is limit or more. Names longer than 64
// characters are not compared (limit).
func editDistance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 || len(ra)-len(rb) >= limit || len(rb)-len(ra) >= limit {
		return limit
	}
	var prevBuf, curBuf [65]int
	prev, cur := prevBuf[:len(rb)+1], curBuf[:len(rb)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			sub := prev[j-1]
			if ra[i-1] != rb[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return min(prev[len(rb)], limit)
}

// propProtoEnum is the field property in which package protoschema keeps a
// protobuf enum field's symbols and numbers ({"NAME": number, ...}).
const propProtoEnum = "protobuf.enum"

// protoEnum returns the symbols of a protobuf enum field by name, or nil
// when f is not one or its property is malformed.
func protoEnum(f *schema.Field) map[string]int64 {
	v, ok := f.Prop(propProtoEnum)
	if !ok {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return nil
	}
	syms := make(map[string]int64, len(m))
	for name, n := range m {
		switch n := n.(type) {
		case json.Number:
			i, err := n.Int64()
			if err != nil {
				return nil
			}
			syms[name] = i
		case float64:
			if n != math.Trunc(n) || math.Abs(n) > 1<<31 {
				return nil
			}
			syms[name] = int64(n)
		default:
			return nil
		}
	}
	return syms
}

// convertLeaf converts a literal for leaf lf: a string naming a symbol of
// a protobuf enum as the symbol's number, anything else as convert does.
func convertLeaf(l literal, lf *leaf) (scalar, error) {
	if lf.enum != nil && l.kind == litString {
		n, ok := lf.enum[l.text]
		if !ok {
			names := make([]string, 0, len(lf.enum))
			for name := range lf.enum {
				names = append(names, name)
			}
			sort.Slice(names, func(i, j int) bool {
				return lf.enum[names[i]] < lf.enum[names[j]] || lf.enum[names[i]] == lf.enum[names[j]] && names[i] < names[j]
			})
			return scalar{}, fmt.Errorf("protobuf enum has no symbol %q (it has %s)", l.text, strings.Join(names, ", "))
		}
		return scalar{kind: sInt, i: n}, nil
	}
	return convert(l, lf.schema)
}

// wellKnownTime rewrites a comparison of a protobuf Timestamp or Duration
// message (a record with the "protobuf.message" property, as package
// protoschema maps it: fields seconds and nanos) with a 'text' literal as
// comparisons of its fields, lexicographic on (seconds, nanos), which is
// their order for valid values. It returns nil and no error for any other
// comparison. Only a path that reaches one value per row (no array or map
// on the way) is rewritten, so that seconds and nanos come from one value.
func (b *binder) wellKnownTime(e *cmpExpr) (expr, error) {
	msg, single := endMessage(b.schema, e.path.segs)
	if msg != "google.protobuf.Timestamp" && msg != "google.protobuf.Duration" {
		return nil, nil
	}
	if e.op != EQ && e.op != NE && e.op != LT && e.op != LE && e.op != GT && e.op != GE && e.op != IN {
		return nil, nil // only IS NULL and the like, which then report the record
	}
	if !single {
		return nil, b.errAt(e.path.at, "%s is a repeated or mapped %s: compare its seconds and nanos fields", e.path, msg)
	}
	field := func(name string) fieldPath {
		fp := fieldPath{at: e.path.at, segs: append(append([]string(nil), e.path.segs...), name)}
		fp.ats = append(append([]int(nil), e.path.ats...), e.path.at)
		return fp
	}
	secs, nanos := field("seconds"), field("nanos")
	num := func(at int, v int64) []literal {
		return []literal{{at: at, kind: litNumber, isInt: true, i: v, f: float64(v), r: new(big.Rat).SetInt64(v)}}
	}
	cmp := func(op Op, at int, sec, ns int64) expr {
		s := func(o Op) expr { return &cmpExpr{path: secs, op: o, lits: num(at, sec)} }
		n := func(o Op) expr { return &cmpExpr{path: nanos, op: o, lits: num(at, ns)} }
		switch op {
		case EQ:
			return &andExpr{s(EQ), n(EQ)}
		case NE:
			return &notExpr{&andExpr{s(EQ), n(EQ)}}
		case LT, LE:
			return &orExpr{s(LT), &andExpr{s(EQ), n(op)}}
		}
		return &orExpr{s(GT), &andExpr{s(EQ), n(op)}} // GT, GE
	}
	var out expr
	for _, lit := range e.lits {
		if lit.kind != litString {
			return nil, b.errAt(lit.at, "%s: a %s needs a 'text' literal, such as %s", e.path, msg, map[bool]string{true: "'2024-05-20T00:00:00Z'", false: "'1.5s'"}[msg == "google.protobuf.Timestamp"])
		}
		var sec, ns int64
		var err error
		if msg == "google.protobuf.Timestamp" {
			var t time.Time
			if t, err = time.Parse(time.RFC3339Nano, lit.text); err == nil {
				sec, ns = t.Unix(), int64(t.Nanosecond())
			} else {
				err = fmt.Errorf("a Timestamp needs an RFC 3339 time such as '2024-05-20T00:00:00Z'")
			}
		} else {
			sec, ns, err = parseProtoDuration(lit.text)
		}
		if err != nil {
			return nil, b.errAt(lit.at, "%s: %s", e.path, err)
		}
		op := e.op
		if op == IN {
			op = EQ
		}
		c := cmp(op, lit.at, sec, ns)
		if out == nil {
			out = c
		} else {
			out = &orExpr{out, c}
		}
	}
	return out, nil
}

// endMessage follows segs through records, unions, arrays and maps of s
// and returns the "protobuf.message" property of the record they end at
// (one name when every branch agrees, else ""), and whether no array or
// map lies on the way.
func endMessage(s *schema.Schema, segs []string) (string, bool) {
	single := true
	var msg string
	found, agree := false, true
	var walk func(s *schema.Schema, i int)
	walk = func(s *schema.Schema, i int) {
		switch s.Kind {
		case schema.Union:
			for _, br := range s.Branches {
				walk(br, i)
			}
		case schema.Array:
			single = false
			walk(s.Items, i)
		case schema.Map:
			single = false
			walk(s.Values, i)
		case schema.Record:
			if i == len(segs) {
				m, _ := s.Prop("protobuf.message")
				name, _ := m.(string)
				if found && name != msg {
					agree = false
				}
				found, msg = true, name
				return
			}
			if f, _ := s.LookupField(segs[i]); f != nil {
				walk(f.Type, i+1)
			}
		}
	}
	walk(s, 0)
	if !found || !agree {
		return "", single
	}
	return msg, single
}

// parseProtoDuration reads a duration as protobuf JSON writes it, seconds
// with up to nine fractional digits and an "s" ('-1.5s'), or as Go writes
// one ('1h30m'), into seconds and nanoseconds of one sign.
func parseProtoDuration(text string) (sec, ns int64, err error) {
	bad := fmt.Errorf("a Duration needs seconds such as '1.5s' or '-0.000001s', or a Go duration such as '1h30m'")
	t, ok := strings.CutSuffix(text, "s")
	neg := strings.HasPrefix(t, "-")
	t = strings.TrimPrefix(t, "-")
	whole, frac, _ := strings.Cut(t, ".")
	if !ok || strings.Trim(t, "0123456789.") != "" {
		// Not plain seconds: a Go duration, within int64 nanoseconds.
		d, err := time.ParseDuration(text)
		if err != nil {
			return 0, 0, bad
		}
		return int64(d / time.Second), int64(d % time.Second), nil
	}
	if whole == "" || len(whole) > 12 || len(frac) > 9 || strings.Contains(frac, ".") {
		return 0, 0, bad // finer than nanoseconds, or beyond protobuf's range
	}
	for _, c := range whole {
		sec = sec*10 + int64(c-'0')
	}
	for i := 0; i < 9; i++ {
		ns *= 10
		if i < len(frac) {
			ns += int64(frac[i] - '0')
		}
	}
	if neg {
		sec, ns = -sec, -ns
	}
	return sec, ns, nil
}
