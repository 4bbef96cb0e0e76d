package predicate

import (
	"fmt"
	"io"
	"math/big"
	"unsafe"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/utf8check"
	"github.com/trevni-go/trevni/schema"
)

// Columnar evaluates a predicate column by column over runs of rows: the
// values of a run are read from each column the predicate compares, a
// batch at a time, and each comparison gives a truth per row, combined by
// AND, OR and NOT as Eval combines them. It applies to predicates whose
// every field is a top-level field of a record (a simple value, a
// decimal, a ["null", T] union of one, or an array of them, which means
// any element as for Eval), bound to the file's own schema; see
// Predicate.Columnar.
type Columnar struct {
	root  cnode
	cols  []*ccol
	truth []Truth
}

// ccol is one column a Columnar reads, and the values of the run read.
type ccol struct {
	col      int
	typ      format.ValueType
	str      bool // a string: checked for UTF-8
	decimal  bool // a decimal (bytes or fixed): compared as its number
	den      *big.Int
	num, top big.Int // a decimal's unscaled value, and 2^(8 len) for a negative one
	rat      big.Rat // the decimal value returned by value
	nullable bool    // a ["null", T] union's branch column: a length of 0 or 1 before each value
	array    bool    // an array's column: a length before each row's values
	lens     []int32
	present  []bool // nullable only: the rows of a value
	idx      []int32
	i32      []int32
	i64      []int64
	f32      []float32
	f64      []float64
	bools    []bool
	data     []byte
	ends     []int
}

// cnode is a bound expression evaluated over a run: into out, one truth
// per row.
type cnode interface {
	evalRun(c *Columnar, out []Truth)
}

type (
	candNode struct{ l, r cnode }
	corNode  struct{ l, r cnode }
	cnotNode struct{ x cnode }
	ccmpNode struct {
		col  *ccol
		op   Op
		lits []scalar
		set  *inSet
		// A decimal column compared with one literal by an ordering
		// operator: the literal times 10^scale, R, as its floor and
		// whether it is whole (see cmpDecimals).
		decFloor *big.Int
		decWhole bool
	}
	cnullNode struct {
		col *ccol
		not bool
	}
)

// Columnar returns the predicate's column-by-column evaluator, or nil
// when the predicate does not apply (see Columnar). Each call returns a
// new one, for one goroutine.
func (p *Predicate) Columnar() *Columnar {
	if p.fileCol {
		return nil
	}
	c := &Columnar{}
	root, ok := c.node(p.root)
	if !ok {
		return nil
	}
	c.root = root
	return c
}

// Columns returns the file columns Eval reads, in the order it takes
// their readers.
func (c *Columnar) Columns() []int {
	cols := make([]int, len(c.cols))
	for i, cc := range c.cols {
		cols[i] = cc.col
	}
	return cols
}

// column returns the ccol of the one leaf of t, if t is a top-level field
// of one simple value, of a ["null", T] union of one or of an array of
// them.
func (c *Columnar) column(t *target) (*ccol, bool) {
	if len(t.leaves) != 1 || len(t.records) != 0 || t.walk == nil || t.walk.kind != walkField {
		return nil, false
	}
	lf := &t.leaves[0]
	if lf.col < 0 || lf.decimal && lf.typ != format.Bytes {
		return nil, false
	}
	w := t.walk.next
	nullable, array := false, false
	if w.kind == walkArray {
		w, array = w.next, true
	} else if w.kind == walkUnion {
		u := w.union
		if len(u.Branches) != 2 || (u.Branches[0].Kind != schema.Null && u.Branches[1].Kind != schema.Null) {
			return nil, false
		}
		var inner *walker
		for _, b := range w.branches {
			if b != nil {
				inner = b
			}
		}
		if inner == nil {
			return nil, false
		}
		w, nullable = inner, true
	}
	if w.kind != walkLeaf || w.leaf != 0 || t.single == array {
		return nil, false
	}
	switch lf.typ {
	case format.Boolean, format.Int, format.Long, format.Float, format.Double, format.String, format.Bytes:
	default:
		return nil, false
	}
	for _, cc := range c.cols {
		if cc.col == lf.col {
			return cc, cc.nullable == nullable && cc.array == array && cc.typ == lf.typ && cc.decimal == lf.decimal
		}
	}
	cc := &ccol{col: lf.col, typ: lf.typ, str: lf.schema.Kind == schema.String, nullable: nullable, array: array, decimal: lf.decimal}
	if lf.decimal {
		cc.den = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(lf.schema.Scale)), nil)
	}
	c.cols = append(c.cols, cc)
	return cc, true
}

// node returns the run evaluator of n, if every field it reads applies.
func (c *Columnar) node(n node) (cnode, bool) {
	switch n := n.(type) {
	case *andNode:
		l, ok1 := c.node(n.l)
		r, ok2 := c.node(n.r)
		return &candNode{l, r}, ok1 && ok2
	case *orNode:
		l, ok1 := c.node(n.l)
		r, ok2 := c.node(n.r)
		return &corNode{l, r}, ok1 && ok2
	case *notNode:
		x, ok := c.node(n.x)
		return &cnotNode{x}, ok
	case *cmpNode:
		cc, ok := c.column(n.t)
		if !ok {
			return nil, false
		}
		cn := &ccmpNode{col: cc, op: n.op, lits: n.lits[0]}
		if n.sets != nil {
			cn.set = n.sets[0]
		}
		if cc.decimal && cn.set == nil && n.op <= GE && len(cn.lits) == 1 && cn.lits[0].kind == sRat {
			r := new(big.Rat).Mul(cn.lits[0].r, new(big.Rat).SetInt(cc.den))
			var m big.Int
			cn.decFloor, _ = new(big.Int).DivMod(r.Num(), r.Denom(), &m) // the denominator is positive: the floor
			cn.decWhole = m.Sign() == 0
		}
		return cn, true
	case *nullNode:
		cc, ok := c.column(n.t)
		return &cnullNode{col: cc, not: n.not}, ok
	}
	return nil, false
}

// Eval reads the next k rows of each column of Columns from its reader
// (rd[i] reads Columns()[i], before the run's first row) and sets out[i]
// to whether the predicate is TRUE for the run's i-th row. The rows must
// be there: fewer is an error.
func (c *Columnar) Eval(rd []*format.ColumnReader, k int, out []bool) error {
	for i, cc := range c.cols {
		if err := cc.read(rd[i], k); err != nil {
			return err
		}
	}
	c.truth = grow(c.truth, k)
	c.root.evalRun(c, c.truth)
	for i, t := range c.truth {
		out[i] = t == True
	}
	return nil
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// read reads the next k rows of the column.
func (cc *ccol) read(c *format.ColumnReader, k int) error {
	var (
		got int
		err error
	)
	if cc.nullable || cc.array {
		cc.lens = grow(cc.lens, k)
		cc.present = grow(cc.present, k)
		switch cc.typ {
		case format.Boolean:
			got, cc.bools, err = format.ReadArrays(c, cc.lens, cc.bools[:0])
		case format.Int:
			got, cc.i32, err = format.ReadArrays(c, cc.lens, cc.i32[:0])
		case format.Long:
			got, cc.i64, err = format.ReadArrays(c, cc.lens, cc.i64[:0])
		case format.Float:
			got, cc.f32, err = format.ReadArrays(c, cc.lens, cc.f32[:0])
		case format.Double:
			got, cc.f64, err = format.ReadArrays(c, cc.lens, cc.f64[:0])
		default:
			cc.data, cc.ends = cc.data[:0], cc.ends[:0]
			got, err = c.ReadArrayBytesTo(cc.lens, cc.add)
		}
		if err == nil && got == k {
			cc.idx = grow(cc.idx, k)
			var j int32
			for i, l := range cc.lens {
				if l > 1 && cc.nullable {
					return fmt.Errorf("%w: union branch column %d has length %d", format.ErrFormat, cc.col, l)
				}
				cc.present[i] = l == 1
				cc.idx[i] = j
				j += l
			}
		}
	} else {
		switch cc.typ {
		case format.Boolean:
			cc.bools = grow(cc.bools, k)
			got, err = c.ReadBools(cc.bools)
		case format.Int:
			cc.i32 = grow(cc.i32, k)
			got, err = c.ReadInts(cc.i32)
		case format.Long:
			cc.i64 = grow(cc.i64, k)
			got, err = c.ReadLongs(cc.i64)
		case format.Float:
			cc.f32 = grow(cc.f32, k)
			got, err = c.ReadFloats(cc.f32)
		case format.Double:
			cc.f64 = grow(cc.f64, k)
			got, err = c.ReadDoubles(cc.f64)
		default:
			cc.data, cc.ends = cc.data[:0], cc.ends[:0]
			got, err = c.ReadBytesTo(k, func(_ int, b []byte) { cc.add(b) })
		}
	}
	if err == nil && got < k {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return fmt.Errorf("the filter's column %d: %w", cc.col, err)
	}
	if cc.str {
		start := 0
		for _, end := range cc.ends {
			if !utf8check.Valid(cc.data[start:end]) {
				return fmt.Errorf("%w: the filter's column %d: a string that is not UTF-8", format.ErrFormat, cc.col)
			}
			start = end
		}
	}
	return nil
}

func (cc *ccol) add(b []byte) {
	cc.data = append(cc.data, b...)
	cc.ends = append(cc.ends, len(cc.data))
}

// value returns the scalar of the j-th value read (the j-th row's, or of
// a nullable column the j-th present). A string's aliases the run's bytes.
func (cc *ccol) value(j int) scalar {
	switch cc.typ {
	case format.Boolean:
		if cc.bools[j] {
			return scalar{kind: sInt, i: 1}
		}
		return scalar{kind: sInt}
	case format.Int:
		return scalar{kind: sInt, i: int64(cc.i32[j])}
	case format.Long:
		return scalar{kind: sInt, i: cc.i64[j]}
	case format.Float:
		return scalar{kind: sFloat, f: float64(cc.f32[j])}
	case format.Double:
		return scalar{kind: sFloat, f: cc.f64[j]}
	}
	start := 0
	if j > 0 {
		start = cc.ends[j-1]
	}
	b := cc.data[start:cc.ends[j]]
	if cc.decimal {
		// As decimalValue, into the column's own numbers: the scalar is
		// the column's until the next value.
		cc.num.SetBytes(b)
		if len(b) > 0 && b[0]&0x80 != 0 {
			cc.top.SetUint64(1)
			cc.num.Sub(&cc.num, cc.top.Lsh(&cc.top, uint(8*len(b))))
		}
		cc.rat.SetFrac(&cc.num, cc.den)
		return scalar{kind: sRat, r: &cc.rat}
	}
	if len(b) == 0 {
		return scalar{kind: sBytes}
	}
	return scalar{kind: sBytes, s: unsafe.String(&b[0], len(b))}
}

func (n *candNode) evalRun(c *Columnar, out []Truth) {
	n.l.evalRun(c, out)
	r := make([]Truth, len(out))
	n.r.evalRun(c, r)
	for i, l := range out {
		switch {
		case l == False || r[i] == False:
			out[i] = False
		case l == Unknown || r[i] == Unknown:
			out[i] = Unknown
		default:
			out[i] = True
		}
	}
}

func (n *corNode) evalRun(c *Columnar, out []Truth) {
	n.l.evalRun(c, out)
	r := make([]Truth, len(out))
	n.r.evalRun(c, r)
	for i, l := range out {
		switch {
		case l == True || r[i] == True:
			out[i] = True
		case l == Unknown || r[i] == Unknown:
			out[i] = Unknown
		default:
			out[i] = False
		}
	}
}

func (n *cnotNode) evalRun(c *Columnar, out []Truth) {
	n.x.evalRun(c, out)
	for i, x := range out {
		switch x {
		case True:
			out[i] = False
		case False:
			out[i] = True
		}
	}
}

func (n *ccmpNode) evalRun(c *Columnar, out []Truth) {
	cc := n.col
	// The common comparisons of an integer column with an integer
	// literal, without a scalar per value.
	if !cc.nullable && !cc.array && n.set == nil && len(n.lits) == 1 && n.lits[0].kind == sInt && (cc.typ == format.Long || cc.typ == format.Int) {
		lit := n.lits[0].i
		if cmpInts(n.op, cc, lit, out) {
			return
		}
	}
	for i := range out {
		switch {
		case cc.array:
			// Any element: TRUE if one compares true, else FALSE.
			out[i] = False
			for j := cc.idx[i]; j < cc.idx[i]+cc.lens[i]; j++ {
				if n.match(int(j)) {
					out[i] = True
					break
				}
			}
		case cc.nullable && !cc.present[i]:
			out[i] = Unknown
		default:
			j := i
			if cc.nullable {
				j = int(cc.idx[i])
			}
			if n.match(j) {
				out[i] = True
			} else {
				out[i] = False
			}
		}
	}
}

// match reports whether the j-th value read compares true.
func (n *ccmpNode) match(j int) bool {
	if n.decFloor != nil {
		return n.decimalMatch(j)
	}
	v := n.col.value(j)
	return n.set != nil && n.set.has(v) || n.set == nil && itemTrue(n.op, v, n.lits)
}

// decimalMatch compares the j-th value of a decimal column with the
// node's literal L by comparing its unscaled value v (an integer) with
// R = L*10^scale, through R's floor F: v = R when R is whole and v = F;
// v < R when v < F, or v = F and R is not whole; v <= R when v <= F.
// Nothing is allocated once the column's numbers have grown.
func (n *ccmpNode) decimalMatch(j int) bool {
	cc := n.col
	start := 0
	if j > 0 {
		start = cc.ends[j-1]
	}
	b := cc.data[start:cc.ends[j]]
	cc.num.SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		cc.top.SetUint64(1)
		cc.num.Sub(&cc.num, cc.top.Lsh(&cc.top, uint(8*len(b))))
	}
	c := cc.num.Cmp(n.decFloor)
	switch n.op {
	case EQ:
		return c == 0 && n.decWhole
	case NE:
		return c != 0 || !n.decWhole
	case LT:
		return c < 0 || c == 0 && !n.decWhole
	case LE:
		return c <= 0
	case GT:
		return c > 0
	}
	return c > 0 || c == 0 && n.decWhole // GE
}

// cmpInts compares an integer column with an integer literal for the
// ordering operators, and reports whether op was one.
func cmpInts(op Op, cc *ccol, lit int64, out []Truth) bool {
	var f func(v int64) bool
	switch op {
	case EQ:
		f = func(v int64) bool { return v == lit }
	case NE:
		f = func(v int64) bool { return v != lit }
	case LT:
		f = func(v int64) bool { return v < lit }
	case LE:
		f = func(v int64) bool { return v <= lit }
	case GT:
		f = func(v int64) bool { return v > lit }
	case GE:
		f = func(v int64) bool { return v >= lit }
	default:
		return false
	}
	set := func(i int, ok bool) {
		if ok {
			out[i] = True
		} else {
			out[i] = False
		}
	}
	if cc.typ == format.Long {
		for i, v := range cc.i64[:len(out)] {
			set(i, f(v))
		}
	} else {
		for i, v := range cc.i32[:len(out)] {
			set(i, f(int64(v)))
		}
	}
	return true
}

func (n *cnullNode) evalRun(c *Columnar, out []Truth) {
	for i := range out {
		// An array's elements are never null: IS NOT NULL holds where
		// it has one.
		null := n.col.nullable && !n.col.present[i] || n.col.array && n.not && n.col.lens[i] == 0
		if n.not {
			null = !null
		}
		if null {
			out[i] = True
		} else {
			out[i] = False
		}
	}
}
