package trevniarrow

import (
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/trevni-go/trevni/assemble/levels"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
)

// Arrow arrays built from the levels of the columnar read layer
// (assemble/levels), as pqarrow builds them from Parquet's: each leaf's
// definition and repetition levels and values of a batch's rows are read
// whole, then the builders below walk the plan's tree over them, a
// cursor per leaf. A node reads its next value where every leaf beneath
// is at the first level of it: the first leaf beneath tells whether the
// value is there (its definition level reaches the node's Def), a list
// how many items it has (the levels of repetition level Rep+1 that
// follow). A value that is not there passes over one level of each leaf
// beneath. The values go into Go slices handed to Arrow without a copy
// when a batch is finished; nothing is allocated per value.

// leafBuf is one leaf's levels and values of a batch, and the cursor of
// the builders over them.
type leafBuf struct {
	leaf   levels.Leaf
	run    levels.Run // the batch's levels and values
	pos    int        // the next level
	vpos   int        // the next value
	start  int        // the next byte string's first byte, in run.Data
	maxDef int16
	flat   bool // a leaf of no steps: its values are all there, one a row, and its levels are not kept
	// lastData is the bytes of byte strings of the batch before, when
	// they left the run.
	lastData int
}

// reset empties the leaf's batch. Values handed to an array (all) left
// the run: their slices are made anew with room for as many as before.
func (lb *leafBuf) reset() {
	r := &lb.run
	if r.Data == nil && lb.lastData > 0 {
		r.Data = make([]byte, 0, lb.lastData+lb.lastData/8)
	}
	lb.lastData = 0
	r.Defs, r.Reps = r.Defs[:0], r.Reps[:0]
	r.Bools, r.I32, r.I64, r.F32, r.F64 = r.Bools[:0], r.I32[:0], r.I64[:0], r.F32[:0], r.F64[:0]
	r.Data, r.Ends = r.Data[:0], r.Ends[:0]
	lb.pos, lb.vpos, lb.start = 0, 0, 0
}

// add appends a run of the leaf's to the batch's.
func (lb *leafBuf) add(r *levels.Run) error {
	b := &lb.run
	if !lb.flat {
		b.Defs = append(b.Defs, r.Defs...)
		b.Reps = append(b.Reps, r.Reps...)
	}
	b.Bools = append(b.Bools, r.Bools...)
	b.I32 = append(b.I32, r.I32...)
	b.I64 = append(b.I64, r.I64...)
	b.F32 = append(b.F32, r.F32...)
	b.F64 = append(b.F64, r.F64...)
	if len(r.Ends) > 0 {
		if len(b.Data)+len(r.Data) > math.MaxInt32 {
			return errors.New("more than 2 GiB of strings or bytes in one batch: make batches smaller")
		}
		base := len(b.Data)
		b.Data = append(b.Data, r.Data...)
		for _, e := range r.Ends {
			b.Ends = append(b.Ends, base+e)
		}
	}
	return nil
}

// def returns the definition level at the cursor (that of a value for a
// flat leaf).
func (lb *leafBuf) def() int16 {
	if lb.flat {
		return lb.maxDef
	}
	return lb.run.Defs[lb.pos]
}

// bytesAt returns the byte string of value i.
func (lb *leafBuf) bytesAt(i int) []byte {
	start := 0
	if i > 0 {
		start = lb.run.Ends[i-1]
	}
	return lb.run.Data[start:lb.run.Ends[i]]
}

// lcol builds one Arrow array from the levels of the leaves beneath its
// node.
type lcol interface {
	// read appends the node's next value, the leaves beneath at its
	// first level, and moves them past it.
	read() error
	// empty appends a value that is not there (under a parent that is
	// not, in a union's branch not taken: a null, or a zero value where
	// the Arrow field is not nullable) and passes over a level of each
	// leaf beneath.
	empty()
	// skip passes over a level of each leaf beneath, appending nothing
	// (a dense union's branches not taken).
	skip()
	// finish returns the array of the values appended and starts anew.
	finish() arrow.ArrayData
	// bytes estimates the memory the values appended hold.
	bytes() int
}

// lbuilder makes the builders of a plan's nodes as the Arrow types of an
// Arrow schema of the plan's records (ArrowSchema) say.
type lbuilder struct {
	plan   *levels.Plan
	leaves []*leafBuf                // the plan's leaves, in its order
	branch map[*levels.Node]*leafBuf // the branch leaves of the unions read as dense unions, or with no leaf beneath
	extra  []*leafBuf                // the branch leaves, in the order made
	o      *SchemaOptions
}

// firstLeaf returns the leaf that tells whether node n's values are
// there: its first leaf, or, for a node with none beneath (unions of
// null alone), the branch leaf of the first such union.
func (b *lbuilder) firstLeaf(n *levels.Node) (*leafBuf, error) {
	if n.First < n.End {
		return b.leaves[n.First], nil
	}
	if n.Kind == levels.Union {
		return b.branchLeaf(n)
	}
	for _, c := range n.Children {
		if lb, err := b.firstLeaf(c); err == nil {
			return lb, nil
		}
	}
	return nil, fmt.Errorf("%s: no leaf beneath", n.Path)
}

// branchLeaf returns the branch leaf of union node u, made once.
func (b *lbuilder) branchLeaf(u *levels.Node) (*leafBuf, error) {
	if lb := b.branch[u]; lb != nil {
		return lb, nil
	}
	l, err := b.plan.BranchLeaf(u)
	if err != nil {
		return nil, err
	}
	lb := &leafBuf{leaf: l, maxDef: l.MaxDef()}
	b.branch[u] = lb
	b.extra = append(b.extra, lb)
	return lb, nil
}

// below returns the leaves beneath n, the branch leaves made so far
// included.
func (b *lbuilder) below(n *levels.Node) []*leafBuf {
	out := append([]*leafBuf(nil), b.leaves[n.First:n.End]...)
	var walk func(m *levels.Node)
	walk = func(m *levels.Node) {
		if lb := b.branch[m]; lb != nil {
			out = append(out, lb)
		}
		for _, c := range m.Children {
			walk(c)
		}
	}
	walk(n)
	return out
}

// col returns the builder of node n as Arrow type t (nullable or not).
func (b *lbuilder) col(n *levels.Node, t arrow.DataType, nullable bool) (lcol, error) {
	v := validity{on: nullable}
	s := n.Schema
	switch n.Kind {
	case levels.Record:
		st, ok := t.(*arrow.StructType)
		if !ok {
			return nil, fmt.Errorf("%s: a record as Arrow %s", n.Path, t)
		}
		c := &lstructCol{t: t, v: v, def: n.Def}
		if n.Leaf >= 0 {
			// A record of no fields: its own leaf counts its values.
			c.own = b.leaves[n.Leaf]
			c.first = c.own
			if st.NumFields() == 1 { // SchemaOptions.Parquet's field of nulls
				c.fields = []lcol{&lnullCol{}}
			}
			return c, nil
		}
		if len(n.Children) != st.NumFields() {
			return nil, fmt.Errorf("%s: %d fields as an Arrow struct of %d", n.Path, len(n.Children), st.NumFields())
		}
		for i, ch := range n.Children {
			fc, err := b.col(ch, st.Field(i).Type, st.Field(i).Nullable)
			if err != nil {
				return nil, err
			}
			c.fields = append(c.fields, fc)
		}
		first, err := b.firstLeaf(n)
		if err != nil {
			return nil, err
		}
		c.first = first
		return c, nil
	case levels.List, levels.Map:
		c := &llistCol{t: t, v: v, offsets: []int32{0}, def: n.Def, itemRep: n.Rep + 1}
		switch lt := t.(type) {
		case *arrow.ListType:
			item, err := b.col(n.Children[0], lt.Elem(), lt.ElemField().Nullable)
			if err != nil {
				return nil, err
			}
			c.items = []lcol{item}
		case *arrow.MapType:
			if n.Kind == levels.List {
				// An array of key-value records marked as a map
				// (PropArrowType): the records are the entries.
				item, err := b.col(n.Children[0], lt.Elem(), false)
				if err != nil {
					return nil, err
				}
				c.items = []lcol{item}
				break
			}
			val, err := b.col(n.Children[1], lt.ItemType(), lt.ItemField().Nullable)
			if err != nil {
				return nil, err
			}
			key := &lbinCol{t: arrow.BinaryTypes.String, lb: b.leaves[n.Children[0].Leaf]}
			c.items, c.entries = []lcol{key, val}, lt.Elem()
		default:
			return nil, fmt.Errorf("%s: an array or map as Arrow %s", n.Path, t)
		}
		first, err := b.firstLeaf(n)
		if err != nil {
			return nil, err
		}
		c.first = first
		return c, nil
	case levels.Union:
		switch ut := t.(type) {
		case *arrow.StructType:
			c := &lstructCol{t: t, v: v, def: n.Def}
			k := 0
			for _, ch := range n.Children {
				if ch.Schema.Kind == schema.Null {
					continue
				}
				fc, err := b.col(ch, ut.Field(k).Type, true)
				if err != nil {
					return nil, err
				}
				c.fields = append(c.fields, fc)
				k++
			}
			if n.First == n.End {
				// A union of null alone: its branch leaf counts its
				// values, all null.
				bl, err := b.branchLeaf(n)
				if err != nil {
					return nil, err
				}
				c.own, c.first, c.def = bl, bl, bl.maxDef+1
				return c, nil
			}
			first, err := b.firstLeaf(n)
			if err != nil {
				return nil, err
			}
			c.first = first
			return c, nil
		case *arrow.DenseUnionType:
			bl, err := b.branchLeaf(n)
			if err != nil {
				return nil, err
			}
			c := &lunionCol{t: t, bl: bl, counts: make([]int32, len(n.Children))}
			for i, ch := range n.Children {
				var bc lcol
				if ch.Schema.Kind == schema.Null && ch.Leaf < 0 {
					bc = &lnullCol{}
				} else {
					f := ut.Fields()[i]
					if bc, err = b.col(ch, f.Type, f.Nullable); err != nil {
						return nil, err
					}
				}
				c.branches = append(c.branches, bc)
			}
			return c, nil
		}
		return nil, fmt.Errorf("%s: a union as Arrow %s", n.Path, t)
	}
	// A value.
	if n.Leaf < 0 {
		return &lnullCol{}, nil
	}
	lb := b.leaves[n.Leaf]
	if s.Kind == schema.Null {
		return &lnullCol{lb: lb}, nil
	}
	switch s.Kind {
	case schema.Boolean:
		return &lboolCol{v: v, lb: lb}, nil
	case schema.Int:
		return newFixedCol(n, t, v, lb, func(r *levels.Run) *[]int32 { return &r.I32 }), nil
	case schema.Long:
		return newFixedCol(n, t, v, lb, func(r *levels.Run) *[]int64 { return &r.I64 }), nil
	case schema.Float:
		return &lfixedCol[float32]{t: t, v: v, lb: lb, vals: func(r *levels.Run) *[]float32 { return &r.F32 }}, nil
	case schema.Double:
		return &lfixedCol[float64]{t: t, v: v, lb: lb, vals: func(r *levels.Run) *[]float64 { return &r.F64 }}, nil
	case schema.Enum:
		return &lenumCol{t: t, v: v, lb: lb, n: int32(len(s.Symbols)), dict: symbolArray(s.Symbols)}, nil
	case schema.Bytes, schema.String, schema.Fixed:
		switch tt := t.(type) {
		case *arrow.Decimal128Type:
			lb.leaf.Decimal = 16
			return &ldecimalCol{t: t, v: v, lb: lb, width: 16}, nil
		case *arrow.Decimal256Type:
			lb.leaf.Decimal = 32
			return &ldecimalCol{t: t, v: v, lb: lb, width: 32}, nil
		case *arrow.FixedSizeBinaryType:
			return &lfixedBinCol{t: t, v: v, lb: lb, size: tt.ByteWidth}, nil
		case arrow.ExtensionType: // a UUID, or a duration of the Parquet mapping
			if st, ok := tt.StorageType().(*arrow.FixedSizeBinaryType); ok {
				lb.leaf.UUID = s.Kind == schema.String
				return &lfixedBinCol{t: t, v: v, lb: lb, size: st.ByteWidth}, nil
			}
		}
		return &lbinCol{t: t, v: v, lb: lb}, nil
	}
	return nil, fmt.Errorf("%s: no builder of Avro %s as Arrow %s", n.Path, s.Kind, t)
}

// lnullCol counts nulls: of a leaf of nulls, or of none (a dense union's
// null branch, a record of no fields' field of nulls).
type lnullCol struct {
	lb *leafBuf
	n  int
}

func (c *lnullCol) read() error {
	if c.lb != nil {
		c.lb.pos++
	}
	c.n++
	return nil
}
func (c *lnullCol) empty() { c.read() }
func (c *lnullCol) skip() {
	if c.lb != nil {
		c.lb.pos++
	}
}
func (c *lnullCol) bytes() int { return 0 }
func (c *lnullCol) finish() arrow.ArrayData {
	n := c.n
	c.n = 0
	return array.NewData(arrow.Null, n, []*memory.Buffer{nil}, nil, n, 0)
}

// take passes the cursor of a leaf of values over a level and says
// whether it holds a value, whose index it returns.
func (lb *leafBuf) take() (int, bool) {
	if lb.flat {
		lb.pos++
		lb.vpos++
		return lb.vpos - 1, true
	}
	d := lb.run.Defs[lb.pos]
	lb.pos++
	if d != lb.maxDef {
		return 0, false
	}
	lb.vpos++
	return lb.vpos - 1, true
}

type lboolCol struct {
	v    validity
	lb   *leafBuf
	vals bitmap
}

func (c *lboolCol) read() error {
	i, ok := c.lb.take()
	c.v.set(ok)
	c.vals.append(ok && c.lb.run.Bools[i])
	return nil
}
func (c *lboolCol) empty()     { c.lb.pos++; c.v.set(false); c.vals.append(false) }
func (c *lboolCol) skip()      { c.lb.pos++ }
func (c *lboolCol) bytes() int { return len(c.vals.bits) * 2 }
func (c *lboolCol) finish() arrow.ArrayData {
	n := c.vals.n
	valid, nulls := c.v.take()
	return array.NewData(arrow.FixedWidthTypes.Boolean, n, []*memory.Buffer{valid, c.vals.take()}, nil, nulls, 0)
}

// lfixedCol builds values of a fixed width: ints, longs, floats,
// doubles, and the dates, times and timestamps they hold.
type lfixedCol[T int32 | int64 | float32 | float64] struct {
	t    arrow.DataType
	v    validity
	lb   *leafBuf
	vals func(*levels.Run) *[]T // the run's values of the type
	out  []T
	bulk bool // the values come a batch at a time (all): no capacity kept
	// width is the bytes of a value of an Arrow integer type narrower
	// than T (int8 to uint32, PropArrowType), which the values are cut
	// to; 0 for a type of T's width. lo and hi are the type's range,
	// which a value outside is an error (the mark is the schema's claim).
	width  int
	lo, hi int64
	path   string // the node's, for errors
}

// narrowRange returns the bytes of a value of t and its range when it is
// an integer type of less than 64 bits other than int32, else 0.
func narrowRange(t arrow.DataType) (width int, lo, hi int64) {
	switch t.ID() {
	case arrow.INT8:
		return 1, math.MinInt8, math.MaxInt8
	case arrow.UINT8:
		return 1, 0, math.MaxUint8
	case arrow.INT16:
		return 2, math.MinInt16, math.MaxInt16
	case arrow.UINT16:
		return 2, 0, math.MaxUint16
	case arrow.UINT32:
		return 4, 0, math.MaxUint32
	}
	return 0, 0, 0
}

// newFixedCol returns the builder of a leaf of ints or longs as Arrow t.
func newFixedCol[T int32 | int64](n *levels.Node, t arrow.DataType, v validity, lb *leafBuf, vals func(*levels.Run) *[]T) *lfixedCol[T] {
	c := &lfixedCol[T]{t: t, v: v, lb: lb, vals: vals, path: n.Path}
	c.width, c.lo, c.hi = narrowRange(t)
	return c
}

// inRange returns an error when the next n values of vals do not lie in
// the range of the column's narrow Arrow type.
func (c *lfixedCol[T]) inRange(vals []T) error {
	for _, v := range vals {
		if x := int64(v); x < c.lo || x > c.hi {
			return fmt.Errorf("%s: %d out of the range of Arrow %s, the type the Avro schema's %q names", c.path, x, c.t, PropArrowType)
		}
	}
	return nil
}

// narrow returns the values cut to width bytes each (little-endian),
// in a new buffer.
func narrow[T int32 | int64 | float32 | float64](vals []T, width int) []byte {
	out := make([]byte, len(vals)*width)
	for i, v := range vals {
		x := uint64(int64(v))
		for k := range width {
			out[i*width+k] = byte(x >> (8 * k))
		}
	}
	return out
}

func (c *lfixedCol[T]) read() error {
	i, ok := c.lb.take()
	c.v.set(ok)
	if !ok {
		c.out = append(c.out, 0)
		return nil
	}
	x := (*c.vals(&c.lb.run))[i]
	if c.width > 0 {
		if err := c.inRange([]T{x}); err != nil {
			return err
		}
	}
	c.out = append(c.out, x)
	return nil
}

// all appends the next n values of a flat leaf at once: when they are
// all the batch's, its slice becomes the array's.
func (c *lfixedCol[T]) all(n int) error {
	c.bulk = true
	vals := c.vals(&c.lb.run)
	if c.width > 0 {
		if err := c.inRange((*vals)[c.lb.vpos : c.lb.vpos+n]); err != nil {
			return err
		}
	}
	if len(c.out) == 0 && c.lb.vpos == 0 && n == len(*vals) {
		c.out = *vals
		*vals = nil
	} else {
		c.out = append(c.out, (*vals)[c.lb.vpos:c.lb.vpos+n]...)
	}
	for range n {
		c.v.set(true)
	}
	c.lb.pos += n
	c.lb.vpos += n
	return nil
}
func (c *lfixedCol[T]) empty()     { c.lb.pos++; c.v.set(false); c.out = append(c.out, 0) }
func (c *lfixedCol[T]) skip()      { c.lb.pos++ }
func (c *lfixedCol[T]) bytes() int { return len(c.out) * 8 }
func (c *lfixedCol[T]) finish() arrow.ArrayData {
	n := len(c.out)
	valid, nulls := c.v.take()
	if c.width > 0 {
		data := array.NewData(c.t, n, []*memory.Buffer{valid, memory.NewBufferBytes(narrow(c.out, c.width))}, nil, nulls, 0)
		c.out = c.out[:0]
		return data
	}
	data := array.NewData(c.t, n, []*memory.Buffer{valid, memory.NewBufferBytes(byteSlice(c.out))}, nil, nulls, 0)
	c.out = nil
	if !c.bulk {
		c.out = make([]T, 0, n)
	}
	return data
}

// lbinCol builds strings or bytes: offsets into one buffer of the values.
type lbinCol struct {
	t       arrow.DataType
	v       validity
	lb      *leafBuf
	offsets []int32
	data    []byte
	bulk    bool // the values come a batch at a time (all): no capacity kept
}

func (c *lbinCol) add(b []byte) error {
	if len(c.offsets) == 0 {
		c.offsets = append(c.offsets, 0)
	}
	if len(c.data)+len(b) > math.MaxInt32 {
		return errors.New("more than 2 GiB of strings or bytes in one batch: make batches smaller")
	}
	c.data = append(c.data, b...)
	c.offsets = append(c.offsets, int32(len(c.data)))
	return nil
}

func (c *lbinCol) read() error {
	i, ok := c.lb.take()
	c.v.set(ok)
	if !ok {
		return c.add(nil)
	}
	return c.add(c.lb.bytesAt(i))
}

// all appends the values of a flat leaf's batch at once: the batch's
// bytes are the array's.
func (c *lbinCol) all(n int) error {
	c.bulk = true
	r := &c.lb.run
	if len(c.offsets) == 0 {
		c.offsets = append(c.offsets, 0)
	}
	start := 0
	if c.lb.vpos > 0 {
		start = r.Ends[c.lb.vpos-1]
	}
	end := start
	if n > 0 {
		end = r.Ends[c.lb.vpos+n-1]
	}
	if len(c.data)+end-start > math.MaxInt32 {
		return errors.New("more than 2 GiB of strings or bytes in one batch: make batches smaller")
	}
	base := int32(len(c.data)) - int32(start)
	if len(c.data) == 0 && start == 0 && end == len(r.Data) {
		// The batch's bytes become the array's.
		c.data = r.Data
		c.lb.lastData = len(r.Data)
		r.Data = nil
	} else {
		c.data = append(c.data, r.Data[start:end]...)
	}
	for _, e := range r.Ends[c.lb.vpos : c.lb.vpos+n] {
		c.offsets = append(c.offsets, base+int32(e))
	}
	for range n {
		c.v.set(true)
	}
	c.lb.pos += n
	c.lb.vpos += n
	return nil
}
func (c *lbinCol) empty()     { c.lb.pos++; c.v.set(false); c.add(nil) }
func (c *lbinCol) skip()      { c.lb.pos++ }
func (c *lbinCol) bytes() int { return len(c.data) + 4*len(c.offsets) }
func (c *lbinCol) finish() arrow.ArrayData {
	if len(c.offsets) == 0 {
		c.offsets = append(c.offsets, 0)
	}
	n := len(c.offsets) - 1
	valid, nulls := c.v.take()
	data := array.NewData(c.t, n, []*memory.Buffer{valid, memory.NewBufferBytes(byteSlice(c.offsets)), memory.NewBufferBytes(c.data)}, nil, nulls, 0)
	c.offsets = make([]int32, 1, n+1)
	if c.bulk {
		c.data = nil
	} else {
		c.data = make([]byte, 0, len(c.data))
	}
	return data
}

// lfixedBinCol builds fixed-size binary values: Avro fixed, UUIDs (the
// leaf reads a string's text as its 16 bytes), durations.
type lfixedBinCol struct {
	t    arrow.DataType
	v    validity
	lb   *leafBuf
	size int
	data []byte
	n    int
}

func (c *lfixedBinCol) read() error {
	i, ok := c.lb.take()
	c.v.set(ok)
	c.n++
	if !ok {
		c.data = append(c.data, make([]byte, c.size)...)
		return nil
	}
	b := c.lb.bytesAt(i)
	if len(b) != c.size {
		return fmt.Errorf("a value of %d bytes, not %d", len(b), c.size)
	}
	c.data = append(c.data, b...)
	return nil
}
func (c *lfixedBinCol) empty() {
	c.lb.pos++
	c.v.set(false)
	c.data = append(c.data, make([]byte, c.size)...)
	c.n++
}
func (c *lfixedBinCol) skip()      { c.lb.pos++ }
func (c *lfixedBinCol) bytes() int { return len(c.data) }
func (c *lfixedBinCol) finish() arrow.ArrayData {
	n := c.n
	valid, nulls := c.v.take()
	data := array.NewData(c.t, n, []*memory.Buffer{valid, memory.NewBufferBytes(c.data)}, nil, nulls, 0)
	c.data, c.n = make([]byte, 0, len(c.data)), 0
	return data
}

// ldecimalCol builds Arrow decimals, little-endian words, from the
// leaf's big-endian two's complement values of the width (the leaf's
// Decimal).
type ldecimalCol struct {
	t     arrow.DataType
	v     validity
	lb    *leafBuf
	width int
	data  []byte
	n     int
}

func (c *ldecimalCol) read() error {
	i, ok := c.lb.take()
	c.v.set(ok)
	c.n++
	at := len(c.data)
	c.data = append(c.data, make([]byte, c.width)...)
	if !ok {
		return nil
	}
	b := c.lb.bytesAt(i)
	if len(b) != c.width {
		return fmt.Errorf("a decimal of %d bytes, not %d", len(b), c.width)
	}
	out := c.data[at:]
	for j, x := range b {
		out[c.width-1-j] = x
	}
	return nil
}
func (c *ldecimalCol) empty() {
	c.lb.pos++
	c.v.set(false)
	c.data = append(c.data, make([]byte, c.width)...)
	c.n++
}
func (c *ldecimalCol) skip()      { c.lb.pos++ }
func (c *ldecimalCol) bytes() int { return len(c.data) }
func (c *ldecimalCol) finish() arrow.ArrayData {
	n := c.n
	valid, nulls := c.v.take()
	data := array.NewData(c.t, n, []*memory.Buffer{valid, memory.NewBufferBytes(c.data)}, nil, nulls, 0)
	c.data, c.n = make([]byte, 0, len(c.data)), 0
	return data
}

// lenumCol builds a dictionary of the enum's symbols, in their order, and
// the indices into it, the leaf's ordinals.
type lenumCol struct {
	t    arrow.DataType
	v    validity
	lb   *leafBuf
	n    int32
	dict *array.String
	idx  []int32
}

func (c *lenumCol) read() error {
	i, ok := c.lb.take()
	c.v.set(ok)
	if !ok {
		c.idx = append(c.idx, 0)
		return nil
	}
	k := c.lb.run.I32[i]
	if k < 0 || k >= c.n {
		return fmt.Errorf("enum symbol %d of %d", k, c.n)
	}
	c.idx = append(c.idx, k)
	return nil
}
func (c *lenumCol) empty()     { c.lb.pos++; c.v.set(false); c.idx = append(c.idx, 0) }
func (c *lenumCol) skip()      { c.lb.pos++ }
func (c *lenumCol) bytes() int { return 4 * len(c.idx) }
func (c *lenumCol) finish() arrow.ArrayData {
	n := len(c.idx)
	valid, nulls := c.v.take()
	data := array.NewDataWithDictionary(c.t, n, []*memory.Buffer{valid, memory.NewBufferBytes(byteSlice(c.idx))}, nulls, 0, c.dict.Data().(*array.Data))
	c.idx = make([]int32, 0, n)
	return data
}

// llistCol builds lists (one item column) and maps (key and value
// columns, under the entries struct).
type llistCol struct {
	t       arrow.DataType
	v       validity
	first   *leafBuf // the first leaf beneath
	def     int16    // the list's Def: there at def, of items at def+1
	itemRep int16    // the repetition level of an item after the first
	offsets []int32
	items   []lcol
	entries arrow.DataType // maps: the entries' struct type
}

func (c *llistCol) read() error {
	f := c.first
	d := f.def()
	if d <= c.def {
		// Null, or empty.
		for _, it := range c.items {
			it.skip()
		}
		c.v.set(d == c.def)
		c.offsets = append(c.offsets, c.offsets[len(c.offsets)-1])
		return nil
	}
	total := int64(c.offsets[len(c.offsets)-1])
	for {
		for _, it := range c.items {
			if err := it.read(); err != nil {
				return err
			}
		}
		total++
		if f.pos >= len(f.run.Reps) || f.run.Reps[f.pos] != c.itemRep {
			break
		}
	}
	if total > math.MaxInt32 {
		return errors.New("more than 2^31 list items in one batch: make batches smaller")
	}
	c.v.set(true)
	c.offsets = append(c.offsets, int32(total))
	return nil
}
func (c *llistCol) empty() {
	c.skip()
	c.v.set(false)
	c.offsets = append(c.offsets, c.offsets[len(c.offsets)-1])
}
func (c *llistCol) skip() {
	for _, it := range c.items {
		it.skip()
	}
}
func (c *llistCol) bytes() int {
	n := 4 * len(c.offsets)
	for _, it := range c.items {
		n += it.bytes()
	}
	return n
}
func (c *llistCol) finish() arrow.ArrayData {
	n := len(c.offsets) - 1
	valid, nulls := c.v.take()
	var child arrow.ArrayData
	if c.entries == nil {
		child = c.items[0].finish()
	} else {
		k, v := c.items[0].finish(), c.items[1].finish()
		child = array.NewData(c.entries, k.Len(), []*memory.Buffer{nil}, []arrow.ArrayData{k, v}, 0, 0)
		k.Release()
		v.Release()
	}
	data := array.NewData(c.t, n, []*memory.Buffer{valid, memory.NewBufferBytes(byteSlice(c.offsets))}, []arrow.ArrayData{child}, nulls, 0)
	child.Release()
	c.offsets = make([]int32, 1, n+1)
	return data
}

// lstructCol builds records, and unions as structs of a field per
// non-null branch (each there where its branch is taken).
type lstructCol struct {
	t      arrow.DataType
	v      validity
	first  *leafBuf // the first leaf beneath
	own    *leafBuf // a record of no fields', or a union of null alone's, leaf; nil for others
	def    int16    // there at def
	fields []lcol
	n      int
}

func (c *lstructCol) read() error {
	ok := c.first.def() >= c.def
	if c.own != nil {
		c.own.pos++
		if c.own.leaf.Branch != nil && c.own.run.Defs[c.own.pos-1] == c.own.maxDef {
			c.own.vpos++
		}
	}
	if !ok {
		for _, f := range c.fields {
			f.empty()
		}
	} else {
		for _, f := range c.fields {
			if err := f.read(); err != nil {
				return err
			}
		}
	}
	c.v.set(ok)
	c.n++
	return nil
}
func (c *lstructCol) empty() {
	c.skipOwn()
	for _, f := range c.fields {
		f.empty()
	}
	c.v.set(false)
	c.n++
}
func (c *lstructCol) skip() {
	c.skipOwn()
	for _, f := range c.fields {
		f.skip()
	}
}

// skipOwn passes the struct's own leaf, if any, over a level that holds
// no value.
func (c *lstructCol) skipOwn() {
	if c.own != nil {
		c.own.pos++
	}
}
func (c *lstructCol) bytes() int {
	n := c.n / 8
	for _, f := range c.fields {
		n += f.bytes()
	}
	return n
}
func (c *lstructCol) finish() arrow.ArrayData {
	n := c.n
	valid, nulls := c.v.take()
	children := make([]arrow.ArrayData, len(c.fields))
	for i, f := range c.fields {
		children[i] = f.finish()
	}
	data := array.NewData(c.t, n, []*memory.Buffer{valid}, children, nulls, 0)
	for _, ch := range children {
		ch.Release()
	}
	c.n = 0
	return data
}

// lunionCol builds a dense union: the branch leaf gives each value's
// branch.
type lunionCol struct {
	t        arrow.DataType
	bl       *leafBuf
	branches []lcol
	counts   []int32
	types    []int8
	offsets  []int32
}

func (c *lunionCol) read() error {
	i, ok := c.bl.take()
	if !ok {
		// The union is not reached (beneath a null): branch 0, empty.
		c.emptyBranch()
		return nil
	}
	k := int(c.bl.run.I32[i])
	if k < 0 || k >= len(c.branches) {
		return fmt.Errorf("union branch %d of %d", k, len(c.branches))
	}
	for j, b := range c.branches {
		if j != k {
			b.skip()
		}
	}
	if err := c.branches[k].read(); err != nil {
		return err
	}
	c.types = append(c.types, int8(k))
	c.offsets = append(c.offsets, c.counts[k])
	c.counts[k]++
	return nil
}

// emptyBranch appends an empty value of branch 0, the branch leaf's level
// passed over already.
func (c *lunionCol) emptyBranch() {
	c.branches[0].empty()
	for _, b := range c.branches[1:] {
		b.skip()
	}
	c.types = append(c.types, 0)
	c.offsets = append(c.offsets, c.counts[0])
	c.counts[0]++
}
func (c *lunionCol) empty() {
	c.bl.pos++
	c.emptyBranch()
}
func (c *lunionCol) skip() {
	c.bl.pos++
	for _, b := range c.branches {
		b.skip()
	}
}
func (c *lunionCol) bytes() int {
	n := 5 * len(c.types)
	for _, b := range c.branches {
		n += b.bytes()
	}
	return n
}
func (c *lunionCol) finish() arrow.ArrayData {
	n := len(c.types)
	children := make([]arrow.ArrayData, len(c.branches))
	for i, b := range c.branches {
		children[i] = b.finish()
		c.counts[i] = 0
	}
	data := array.NewData(c.t, n, []*memory.Buffer{nil, memory.NewBufferBytes(byteSlice(c.types)), memory.NewBufferBytes(byteSlice(c.offsets))}, children, 0, 0)
	for _, ch := range children {
		ch.Release()
	}
	c.types, c.offsets = make([]int8, 0, n), make([]int32, 0, n)
	return data
}

// flatLeaf says whether a leaf's values are one a row, all there: a leaf
// of no steps, whose levels need not be kept.
func flatLeaf(l *levels.Leaf) bool {
	return len(l.Steps) == 0 && !l.Null && l.Branch == nil && l.Type != format.Null
}
