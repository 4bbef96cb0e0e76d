package predicate

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/trevni-go/trevni/format/stats"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/typemap"
)

// Truth is a value of SQL's three-valued logic.
type Truth uint8

// The truth values.
const (
	False Truth = iota
	True
	Unknown // a comparison with NULL, and what follows from it
)

// String returns TRUE, FALSE or UNKNOWN.
func (t Truth) String() string { return [...]string{"FALSE", "TRUE", "UNKNOWN"}[t] }

// node is a bound expression.
type node interface {
	eval(rec any) (Truth, error)
	prune(env *pruneEnv) outcomes
}

type (
	andNode struct{ l, r node }
	orNode  struct{ l, r node }
	notNode struct{ x node }
	cmpNode struct {
		t    *target
		op   Op
		lits [][]scalar // per leaf of t
		sets []*inSet   // IN only: lits as sets, per leaf of t
	}
	nullNode struct {
		t   *target
		not bool
	}
)

// Eval evaluates the predicate on one record: a goavro native value of the
// schema the predicate was bound to, as assemble.AvroReader.Read returns
// it. See the package documentation for the semantics.
func (p *Predicate) Eval(rec any) (Truth, error) {
	return p.root.eval(rec)
}

// Match reports whether the predicate is TRUE for the record (UNKNOWN does
// not match, as in SQL's WHERE).
func (p *Predicate) Match(rec any) (bool, error) {
	t, err := p.root.eval(rec)
	return t == True, err
}

func (n *andNode) eval(rec any) (Truth, error) {
	l, err := n.l.eval(rec)
	if err != nil || l == False {
		return False, err
	}
	r, err := n.r.eval(rec)
	if err != nil {
		return False, err
	}
	if r == False {
		return False, nil
	}
	if l == Unknown || r == Unknown {
		return Unknown, nil
	}
	return True, nil
}

func (n *orNode) eval(rec any) (Truth, error) {
	l, err := n.l.eval(rec)
	if err != nil || l == True {
		return l, err
	}
	r, err := n.r.eval(rec)
	if err != nil {
		return False, err
	}
	if r == True {
		return True, nil
	}
	if l == Unknown || r == Unknown {
		return Unknown, nil
	}
	return False, nil
}

func (n *notNode) eval(rec any) (Truth, error) {
	x, err := n.x.eval(rec)
	switch x {
	case True:
		return False, err
	case False:
		return True, err
	}
	return Unknown, err
}

// errStop ends a walk early.
var errStop = errors.New("stop")

// visit calls f for every value the walker reaches in v: the leaf's index
// and its value, or -1 and nil for a NULL.
func (t *target) visit(w *walker, v any, f func(leaf int, v any) error) error {
	switch w.kind {
	case walkField:
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: expected a record (map[string]any), got %T", t.path, v)
		}
		fv, ok := m[w.field]
		if !ok {
			return fmt.Errorf("%s: record has no field %q", t.path, w.field)
		}
		return t.visit(w.next, fv, f)
	case walkArray:
		a, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: expected an array ([]any), got %T", t.path, v)
		}
		for _, e := range a {
			if err := t.visit(w.next, e, f); err != nil {
				return err
			}
		}
		return nil
	case walkMap:
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: expected a map (map[string]any), got %T", t.path, v)
		}
		for _, e := range m {
			if err := t.visit(w.next, e, f); err != nil {
				return err
			}
		}
		return nil
	case walkMapKey:
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: expected a map (map[string]any), got %T", t.path, v)
		}
		e, ok := m[w.key]
		if !ok {
			return f(-1, nil)
		}
		return t.visit(w.next, e, f)
	case walkUnion:
		k, inner, err := typemap.ResolveUnion(w.union, v)
		if err != nil {
			return fmt.Errorf("%s: %w", t.path, err)
		}
		if w.branches[k] == nil {
			return f(-1, nil)
		}
		return t.visit(w.branches[k], inner, f)
	case walkLeaf:
		return f(w.leaf, v)
	case walkRecord:
		return f(len(t.leaves), v)
	}
	return f(-1, nil)
}

func (n *cmpNode) eval(rec any) (Truth, error) {
	res := False
	err := n.t.visit(n.t.walk, rec, func(k int, v any) error {
		if k < 0 {
			res = Unknown
			return nil
		}
		lf := &n.t.leaves[k]
		sv, err := toScalar(lf, v)
		if err != nil {
			return fmt.Errorf("%s: %w", n.t.path, err)
		}
		if n.sets != nil && n.sets[k].has(sv) || n.sets == nil && itemTrue(n.op, sv, n.lits[k]) {
			res = True
			return errStop
		}
		return nil
	})
	if err == errStop {
		err = nil
	}
	return res, err
}

func (n *nullNode) eval(rec any) (Truth, error) {
	var null, present bool
	err := n.t.visit(n.t.walk, rec, func(k int, v any) error {
		if k < 0 {
			null = true
		} else {
			present = true
		}
		return nil
	})
	if n.not {
		null = present
	}
	if null {
		return True, err
	}
	return False, err
}

// toScalar converts a goavro native value of leaf lf to its scalar.
func toScalar(lf *leaf, v any) (scalar, error) {
	st, err := typemap.ToStored(lf.schema, v)
	if err != nil {
		return scalar{}, err
	}
	if lf.decimal {
		b, ok := st.([]byte)
		if !ok {
			return scalar{}, fmt.Errorf("decimal stored as %T", st)
		}
		return scalar{kind: sRat, r: decimalValue(b, lf.schema.Scale)}, nil
	}
	switch st := st.(type) {
	case bool:
		if st {
			return scalar{kind: sInt, i: 1}, nil
		}
		return scalar{kind: sInt}, nil
	case int32:
		return scalar{kind: sInt, i: int64(st)}, nil
	case int64:
		return scalar{kind: sInt, i: st}, nil
	case float32:
		return scalar{kind: sFloat, f: float64(st)}, nil
	case float64:
		return scalar{kind: sFloat, f: st}, nil
	case string:
		return scalar{kind: sBytes, s: st}, nil
	case []byte:
		return scalar{kind: sBytes, s: string(st)}, nil
	}
	return scalar{}, fmt.Errorf("cannot compare a stored %T", st)
}

// compare orders a and b, which are of kinds a conversion made comparable;
// ok is false when they are unordered (a NaN is involved).
func compare(a, b scalar) (c int, ok bool) {
	switch {
	case a.kind == sInt && b.kind == sInt:
		return cmp3(a.i < b.i, a.i > b.i), true
	case a.kind == sInt && b.kind == sFloat:
		return cmpIntFloat(a.i, b.f)
	case a.kind == sFloat && b.kind == sInt:
		c, ok := cmpIntFloat(b.i, a.f)
		return -c, ok
	case a.kind == sFloat && b.kind == sFloat:
		if a.f != a.f || b.f != b.f {
			return 0, false
		}
		return cmp3(a.f < b.f, a.f > b.f), true
	case a.kind == sBytes && b.kind == sBytes:
		return strings.Compare(a.s, b.s), true
	case a.kind == sRat && b.kind == sRat:
		return a.r.Cmp(b.r), true
	case b.kind == sNum && (a.kind == sInt || a.kind == sFloat):
		return cmpNum(a, b)
	case a.kind == sNum && (b.kind == sInt || b.kind == sFloat):
		c, ok := cmpNum(b, a)
		return -c, ok
	}
	return 0, false
}

// cmpNum compares an integer or a float a with a number literal n exactly.
func cmpNum(a, n scalar) (int, bool) {
	if a.kind == sInt {
		// n is not an integer when it lies in the int64 range.
		switch {
		case n.out != 0:
			return -int(n.out), true
		case a.i <= n.i:
			return -1, true
		}
		return 1, true
	}
	switch {
	case a.f != a.f:
		return 0, false
	case a.f < n.f:
		return -1, true
	case a.f > n.f:
		return 1, true
	}
	// a is n's nearest float: n lies on the side d says.
	return -int(n.d), true
}

func cmp3(lt, gt bool) int {
	switch {
	case lt:
		return -1
	case gt:
		return 1
	}
	return 0
}

// cmpIntFloat compares an integer with a float exactly.
func cmpIntFloat(i int64, f float64) (int, bool) {
	switch {
	case f != f:
		return 0, false
	case f >= 0x1p63:
		return -1, true
	case f < -0x1p63:
		return 1, true
	}
	t := math.Trunc(f)
	ti := int64(t)
	switch {
	case i < ti:
		return -1, true
	case i > ti:
		return 1, true
	case f > t:
		return -1, true
	case f < t:
		return 1, true
	}
	return 0, true
}

// inSet holds the literals of an IN list by their exact values, so that a
// value is looked up rather than compared with each: the integers, the
// floats and the strings (bytes, and decimals as rationals) among them.
type inSet struct {
	ints   map[int64]struct{}
	floats map[float64]struct{}
	strs   map[string]struct{}
}

func newInSet(lits []scalar) *inSet {
	s := &inSet{ints: map[int64]struct{}{}, floats: map[float64]struct{}{}, strs: map[string]struct{}{}}
	for _, l := range lits {
		switch l.kind {
		case sInt:
			s.ints[l.i] = struct{}{}
			if f := float64(l.i); f < 0x1p63 && int64(f) == l.i {
				s.floats[f] = struct{}{}
			}
		case sFloat:
			if l.f == l.f {
				s.floats[l.f] = struct{}{}
			}
		case sNum:
			// Not an int64; a float only when it is exactly one.
			if l.d == 0 {
				s.floats[l.f] = struct{}{}
			}
		case sBytes:
			s.strs[l.s] = struct{}{}
		case sRat:
			s.strs[l.r.RatString()] = struct{}{}
		}
	}
	return s
}

// has reports whether a value equals a literal of the set.
func (s *inSet) has(v scalar) bool {
	var ok bool
	switch v.kind {
	case sInt:
		_, ok = s.ints[v.i]
	case sFloat:
		_, ok = s.floats[v.f] // NaN is never found
	case sBytes:
		_, ok = s.strs[v.s]
	case sRat:
		_, ok = s.strs[v.r.RatString()]
	}
	return ok
}

// itemTrue evaluates a comparison on one non-null value. NaN compares as
// IEEE 754 says: unequal to everything, neither less nor greater.
func itemTrue(op Op, v scalar, lits []scalar) bool {
	if op == IN {
		for _, l := range lits {
			if c, ok := compare(v, l); ok && c == 0 {
				return true
			}
		}
		return false
	}
	switch op {
	case IsNaN:
		return v.kind == sFloat && v.f != v.f
	case StartsWith:
		return strings.HasPrefix(v.s, lits[0].s)
	case Like:
		return likeMatch(v.s, lits[0].s)
	}
	c, ok := compare(v, lits[0])
	if !ok {
		return op == NE
	}
	switch op {
	case EQ:
		return c == 0
	case NE:
		return c != 0
	case LT:
		return c < 0
	case LE:
		return c <= 0
	case GT:
		return c > 0
	case GE:
		return c >= 0
	}
	return false
}

// StatsFunc gives the statistics MayMatch needs: for column col, a block's
// statistics (or several consecutive blocks merged with stats.Merge) that
// cover every row being tested, and the first row they cover; ok false
// when there are none or they cannot be trusted.
type StatsFunc func(col int) (b *stats.Block, firstRow int64, ok bool)

// outcomes over-approximates the truth values an expression can take on
// the rows of a range: t is false only when no row can make it TRUE, f
// only when no row can make it FALSE, u only when no row can make it
// UNKNOWN. MayMatch needs t alone (AND, OR and NOT never turn UNKNOWN into
// TRUE); AllMatch needs f and u, since a row where the expression is
// UNKNOWN does not match.
type outcomes struct{ t, f, u bool }

type pruneEnv struct {
	first, rows int64
	get         StatsFunc
}

// block returns column col's statistics and whether they cover exactly the
// rows being tested.
func (e *pruneEnv) block(col int) (*stats.Block, bool, bool) {
	if col < 0 {
		return nil, false, false // no file column holds the values
	}
	b, first, ok := e.get(col)
	if !ok || b == nil {
		return nil, false, false
	}
	return b, true, first == e.first && b.Rows == e.rows
}

// MayMatch reports whether a row among rows rows starting at firstRow
// might satisfy the predicate, judging from the statistics get gives. It is
// false only when the statistics prove that no row in the range can: a
// missing or inexact statistic, and every doubt, make it true.
func (p *Predicate) MayMatch(firstRow, rows int64, get StatsFunc) bool {
	if rows <= 0 {
		return false
	}
	return p.root.prune(&pruneEnv{first: firstRow, rows: rows, get: get}).t
}

// AllMatch reports whether every row among rows rows starting at firstRow
// satisfies the predicate, judging from the statistics get gives: true
// only when they prove that no row can make it FALSE or UNKNOWN, so that a
// reader may take the rows without evaluating it. A missing statistic, a
// NULL the counts do not rule out, a NaN, and every doubt make it false.
func (p *Predicate) AllMatch(firstRow, rows int64, get StatsFunc) bool {
	if rows <= 0 {
		return false
	}
	o := p.root.prune(&pruneEnv{first: firstRow, rows: rows, get: get})
	return !o.f && !o.u
}

// The three-valued connectives on outcomes. A row is UNKNOWN under AND
// when one side is UNKNOWN and the other TRUE or UNKNOWN, under OR when
// one side is UNKNOWN and the other FALSE or UNKNOWN: an expression proven
// TRUE on every row makes an OR TRUE whatever the other side holds.
func (n *andNode) prune(e *pruneEnv) outcomes {
	l, r := n.l.prune(e), n.r.prune(e)
	return outcomes{t: l.t && r.t, f: l.f || r.f, u: l.u && (r.t || r.u) || r.u && (l.t || l.u)}
}

func (n *orNode) prune(e *pruneEnv) outcomes {
	l, r := n.l.prune(e), n.r.prune(e)
	return outcomes{t: l.t || r.t, f: l.f && r.f, u: l.u && (r.f || r.u) || r.u && (l.f || l.u)}
}

func (n *notNode) prune(e *pruneEnv) outcomes {
	x := n.x.prune(e)
	return outcomes{t: x.f, f: x.t, u: x.u}
}

// presentRows returns how many rows of the range hold a (non-null) value of
// a single-valued target, and whether that count is known: every statistic
// present and covering exactly the range.
func (t *target) presentRows(e *pruneEnv) (int64, bool) {
	var n int64
	for _, lf := range t.leaves {
		b, ok, exact := e.block(lf.col)
		if !ok || !exact {
			return 0, false
		}
		n += b.Values
	}
	for _, r := range t.records {
		if r.presence == presenceAlways {
			n += e.rows
			continue
		}
		b, ok, exact := e.block(r.presence)
		if !ok || !exact {
			return 0, false
		}
		n += b.NonEmpty
	}
	return n, true
}

// alwaysPresent reports whether the statistics prove that every row of the
// range holds a value of a single-valued target's leaves (none is NULL):
// their values count the rows when they cover exactly the range, or one
// leaf's block, which covers the range, holds a value in each of its rows.
func (t *target) alwaysPresent(e *pruneEnv) bool {
	if len(t.records) > 0 {
		return false
	}
	if n, known := t.presentRows(e); known && n == e.rows {
		return true
	}
	for _, lf := range t.leaves {
		if b, ok, _ := e.block(lf.col); ok && b.Rows > 0 && b.Values == b.Rows {
			return true
		}
	}
	return false
}

// mayBePresent reports whether some row of the range may hold a non-null
// value of the target.
func (t *target) mayBePresent(e *pruneEnv) bool {
	for _, lf := range t.leaves {
		if b, ok, _ := e.block(lf.col); !ok || b.Values > 0 {
			return true
		}
	}
	for _, r := range t.records {
		if r.presence == presenceAlways {
			return true
		}
		if b, ok, _ := e.block(r.presence); !ok || b.NonEmpty > 0 {
			return true
		}
	}
	return false
}

// IS NULL and IS NOT NULL are never UNKNOWN.
func (n *nullNode) prune(e *pruneEnv) outcomes {
	if !n.t.single {
		return outcomes{t: true, f: true}
	}
	// A row holds one value or a NULL: IS NULL is true where it holds no
	// value.
	present, known := n.t.presentRows(e)
	isNull := outcomes{t: !known || present < e.rows, f: n.t.mayBePresent(e)}
	if n.not {
		isNull.t, isNull.f = isNull.f, isNull.t
	}
	return isNull
}

func (n *cmpNode) prune(e *pruneEnv) outcomes {
	if n.t.topArray() {
		return n.pruneArray(e)
	}
	var o outcomes
	for k := range n.t.leaves {
		lf := &n.t.leaves[k]
		b, ok, _ := e.block(lf.col)
		if !ok {
			o.t, o.f = true, true
			continue
		}
		if b.Values == 0 {
			continue
		}
		t, f := leafOutcomes(n.op, n.lits[k], lf, b)
		o.t, o.f = o.t || t, o.f || f
	}
	if !n.t.single {
		// A row with no value at all is FALSE; a NULL among its values
		// (a missing map key, a null element) may make it UNKNOWN.
		o.f, o.u = true, true
	} else {
		// A row without a value (a null, a union branch without the
		// path) is UNKNOWN.
		o.u = !n.t.alwaysPresent(e)
	}
	return o
}

// topArray reports whether the target is a top-level field holding an
// array of simple values: one leaf, whose column holds each row's length
// before its elements, none of them null.
func (t *target) topArray() bool {
	w := t.walk
	return len(t.leaves) == 1 && len(t.records) == 0 && w != nil && w.kind == walkField &&
		w.next != nil && w.next.kind == walkArray && w.next.next != nil && w.next.next.kind == walkLeaf
}

// pruneArray judges a comparison on a top-level array of simple values
// (any element): TRUE where an element compares true, else FALSE (also for
// an empty array), never UNKNOWN. It is TRUE on every row when every
// element compares true and no row's array is empty (the block's lengths
// all non-zero).
func (n *cmpNode) pruneArray(e *pruneEnv) outcomes {
	lf := &n.t.leaves[0]
	b, ok, _ := e.block(lf.col)
	if !ok {
		return outcomes{t: true, f: true}
	}
	if b.Values == 0 {
		return outcomes{f: true}
	}
	t, f := leafOutcomes(n.op, n.lits[0], lf, b)
	empty := b.Lengths == 0 || b.NonEmpty != b.Lengths
	return outcomes{t: t, f: f || empty}
}

// leafOutcomes tells whether a value within b's bounds can make the
// comparison true, and whether one can make it false.
func leafOutcomes(op Op, lits []scalar, lf *leaf, b *stats.Block) (mayT, mayF bool) {
	switch op {
	case IsNaN:
		if !b.HasBounds && !b.NaN {
			return true, true // values without bounds: nothing is known
		}
		// Bounds leave NaN out: a block with bounds holds a value that is
		// not NaN.
		return b.NaN, b.HasBounds
	case Like:
		// A match starts with the pattern's text before its first wildcard.
		mayT, _ = prefixOutcomes(likePrefix(lits[0].s), b)
		return mayT, true
	case StartsWith:
		return prefixOutcomes(lits[0].s, b)
	}
	if b.NaN {
		// NaN is unequal to everything and otherwise unordered.
		mayT, mayF = op == NE, op != NE
	}
	if !b.HasBounds {
		if !b.NaN && b.Values > 0 {
			return true, true // values without bounds: nothing is known
		}
		return mayT, mayF
	}
	var lo, hi scalar
	noMax := false
	t := stats.Type(lf.typ)
	switch {
	case lf.decimal:
		var ok bool
		if lo, hi, ok = decimalBounds(lf, b); !ok {
			return true, true
		}
	case t.IsInteger():
		lo, hi = scalar{kind: sInt, i: b.MinInt}, scalar{kind: sInt, i: b.MaxInt}
	case t.IsFloat():
		lo, hi = scalar{kind: sFloat, f: b.MinFloat}, scalar{kind: sFloat, f: b.MaxFloat}
	case t.IsBytes():
		lo, hi, noMax = scalar{kind: sBytes, s: string(b.MinBytes)}, scalar{kind: sBytes, s: string(b.MaxBytes)}, b.NoMax
	default:
		return true, true
	}
	// cmpLo and cmpHi compare the bounds with a literal; inRange says
	// whether the literal may equal a value, single whether every value
	// equals it.
	bounds := func(l scalar) (cl, ch int, ok bool) {
		cl, ok1 := compare(lo, l)
		ch, ok2 := compare(hi, l)
		if noMax {
			ch, ok2 = 1, true
		}
		return cl, ch, ok1 && ok2
	}
	if op == IN {
		allSame := false
		for _, l := range lits {
			cl, ch, ok := bounds(l)
			if !ok {
				continue
			}
			if cl <= 0 && ch >= 0 {
				mayT = true
			}
			if cl == 0 && ch == 0 {
				allSame = true
			}
		}
		return mayT, mayF || !allSame
	}
	cl, ch, ok := bounds(lits[0])
	if !ok {
		// A NaN literal: every comparison but != is false.
		return mayT || op == NE, mayF || op != NE
	}
	var t2, f2 bool
	switch op {
	case EQ:
		t2, f2 = cl <= 0 && ch >= 0, !(cl == 0 && ch == 0)
	case NE:
		t2, f2 = !(cl == 0 && ch == 0), cl <= 0 && ch >= 0
	case LT:
		t2, f2 = cl < 0, ch >= 0
	case LE:
		t2, f2 = cl <= 0, ch > 0
	case GT:
		t2, f2 = ch > 0, cl <= 0
	case GE:
		t2, f2 = ch >= 0, cl < 0
	}
	return mayT || t2, mayF || f2
}

// decimalBounds returns the bounds of a block of a fixed decimal as
// values, when the statistics' unsigned byte bounds give them: both exact
// and of the fixed's size, and of the same sign (two's complement numbers
// of one width and one sign order as their unsigned bytes do, and a run of
// unsigned values between two of one sign holds only that sign). Bytes
// decimals, of varying lengths, never do.
func decimalBounds(lf *leaf, b *stats.Block) (lo, hi scalar, ok bool) {
	size := lf.schema.Size
	if lf.schema.Kind != schema.Fixed || b.MinInexact || b.MaxInexact || b.NoMax ||
		len(b.MinBytes) != size || len(b.MaxBytes) != size || size == 0 ||
		b.MinBytes[0]&0x80 != b.MaxBytes[0]&0x80 {
		return scalar{}, scalar{}, false
	}
	return scalar{kind: sRat, r: decimalValue(b.MinBytes, lf.schema.Scale)},
		scalar{kind: sRat, r: decimalValue(b.MaxBytes, lf.schema.Scale)}, true
}

// decimalValue returns the value of a decimal's big-endian two's
// complement bytes at scale.
func decimalValue(b []byte, scale int) *big.Rat {
	i := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		i.Sub(i, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	r := new(big.Rat).SetInt(i)
	return r.Quo(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
}

// prefixOutcomes tells whether a string or bytes value within b's bounds
// can start with pre, and whether one can fail to. The values starting
// with pre are those from pre up to, not including, pre's successor: pre
// with its last byte below 0xff incremented and the rest dropped (none when
// pre is all 0xff bytes).
func prefixOutcomes(pre string, b *stats.Block) (mayT, mayF bool) {
	if pre == "" {
		return true, false
	}
	if !b.HasBounds {
		return true, true
	}
	lo, hi := string(b.MinBytes), string(b.MaxBytes)
	succ, hasSucc := prefixSuccessor(pre)
	// Some value may start with pre unless every value lies below pre or
	// at or above its successor.
	mayT = (b.NoMax || hi >= pre) && (!hasSucc || lo < succ)
	// Every value starts with pre when the bounds both lie in its range.
	all := lo >= pre && !b.NoMax && hasSucc && hi < succ
	if !hasSucc && !b.NoMax {
		all = false
	}
	return mayT, !all
}

// prefixSuccessor returns the least string above every string starting
// with pre, and false when there is none (pre is all 0xff bytes).
func prefixSuccessor(pre string) (string, bool) {
	for i := len(pre) - 1; i >= 0; i-- {
		if pre[i] != 0xff {
			return pre[:i] + string([]byte{pre[i] + 1}), true
		}
	}
	return "", false
}

// likePrefix returns the literal start of a LIKE pattern: the text before
// its first wildcard.
func likePrefix(pat string) string {
	if i := strings.IndexAny(pat, "%_"); i >= 0 {
		return pat[:i]
	}
	return pat
}

// likeMatch reports whether s matches the LIKE pattern pat, in which %
// stands for any run of characters and _ for one character (a UTF-8
// sequence, or one byte that is not part of one). It backtracks only to
// the last %, so it takes time proportional to len(s) times len(pat) at
// worst.
func likeMatch(s, pat string) bool {
	si, pi := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		switch {
		case pi < len(pat) && pat[pi] == '%':
			starP, starS = pi, si
			pi++
			continue
		case pi < len(pat) && pat[pi] == '_':
			_, n := utf8.DecodeRuneInString(s[si:])
			si += n
			pi++
			continue
		case pi < len(pat):
			_, n := utf8.DecodeRuneInString(pat[pi:])
			if si+n <= len(s) && s[si:si+n] == pat[pi:pi+n] {
				si += n
				pi += n
				continue
			}
		}
		if starP < 0 {
			return false
		}
		_, n := utf8.DecodeRuneInString(s[starS:])
		starS += n
		si, pi = starS, starP+1
	}
	for pi < len(pat) && pat[pi] == '%' {
		pi++
	}
	return pi == len(pat)
}
