package trevniarrow

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/trevni-go/trevni/schema"
)

// The column builders below decode Avro binary straight into the buffers
// of Arrow arrays: Go slices, grown by appending and handed to Arrow
// without a copy when a batch is finished. Nothing is allocated per value.

var errShort = errors.New("Avro value cut short")

// dec reads Avro binary.
type dec struct {
	b   []byte
	pos int
}

func (d *dec) long() (int64, error) {
	var u uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if d.pos >= len(d.b) {
			return 0, errShort
		}
		c := d.b[d.pos]
		d.pos++
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), nil
		}
	}
	return 0, errors.New("Avro varint longer than 10 bytes")
}

func (d *dec) int() (int32, error) {
	v, err := d.long()
	if err == nil && (v < math.MinInt32 || v > math.MaxInt32) {
		err = fmt.Errorf("Avro int %d out of range", v)
	}
	return int32(v), err
}

func (d *dec) take(n int) ([]byte, error) {
	if n < 0 || n > len(d.b)-d.pos {
		return nil, errShort
	}
	b := d.b[d.pos : d.pos+n]
	d.pos += n
	return b, nil
}

func (d *dec) bytes() ([]byte, error) {
	n, err := d.long()
	if err != nil {
		return nil, err
	}
	if n < 0 || n > int64(len(d.b)-d.pos) {
		return nil, errShort
	}
	return d.take(int(n))
}

// blockCount reads the count of the next block of an array or map (its
// byte size, when given, is passed over by reading the items).
func (d *dec) blockCount() (int64, error) {
	n, err := d.long()
	if err != nil || n >= 0 {
		return n, err
	}
	if n == math.MinInt64 {
		return 0, errors.New("Avro block count out of range")
	}
	if _, err := d.long(); err != nil {
		return 0, err
	}
	return -n, nil
}

// bitmap is an Arrow bitmap being built.
type bitmap struct {
	bits []byte
	n    int
}

func (m *bitmap) append(v bool) {
	if m.n%8 == 0 {
		m.bits = append(m.bits, 0)
	}
	if v {
		m.bits[m.n/8] |= 1 << (m.n % 8)
	}
	m.n++
}

func (m *bitmap) take() *memory.Buffer {
	b := memory.NewBufferBytes(m.bits)
	m.bits, m.n = nil, 0
	return b
}

// validity is a column's validity bitmap: kept only for a nullable column.
type validity struct {
	on    bool
	bits  bitmap
	nulls int
}

func (v *validity) set(ok bool) {
	if !v.on {
		return
	}
	v.bits.append(ok)
	if !ok {
		v.nulls++
	}
}

func (v *validity) take() (*memory.Buffer, int) {
	if !v.on || v.nulls == 0 {
		v.bits.bits, v.bits.n, v.nulls = v.bits.bits[:0], 0, 0
		return nil, 0
	}
	n := v.nulls
	v.nulls = 0
	return v.bits.take(), n
}

// column builds one Arrow array from Avro values.
type column interface {
	// decode appends the next value of d.
	decode(d *dec) error
	// empty appends a null, or for a column that cannot be null a zero
	// value (under a null parent, or in a union branch not taken).
	empty()
	// finish returns the array of the values appended and starts anew.
	finish() arrow.ArrayData
	// bytes estimates the memory the values appended hold.
	bytes() int
}

// newColumn returns the builder of values of s as Arrow type t.
func newColumn(s *schema.Schema, t arrow.DataType, nullable bool, o *SchemaOptions) (column, error) {
	if inner, nullIndex := nullableUnion(s); inner != nil {
		c, err := newColumn(inner, t, true, o)
		if err != nil {
			return nil, err
		}
		return &nullableCol{inner: c, nullIndex: int64(nullIndex)}, nil
	}
	v := validity{on: nullable}
	switch s.Kind {
	case schema.Null:
		return &nullCol{}, nil
	case schema.Boolean:
		return &boolCol{v: v}, nil
	case schema.Int:
		return &fixedCol[int32]{t: t, v: v, read: (*dec).int}, nil
	case schema.Long:
		return &fixedCol[int64]{t: t, v: v, read: (*dec).long}, nil
	case schema.Float:
		return &fixedCol[float32]{t: t, v: v, read: readFloat}, nil
	case schema.Double:
		return &fixedCol[float64]{t: t, v: v, read: readDouble}, nil
	case schema.Bytes, schema.String, schema.Fixed:
		switch tt := t.(type) {
		case *arrow.Decimal128Type:
			return &decimalCol{t: t, v: v, width: 16, size: s.Size}, nil
		case *arrow.Decimal256Type:
			return &decimalCol{t: t, v: v, width: 32, size: s.Size}, nil
		case *arrow.FixedSizeBinaryType:
			return &fixedBinCol{t: t, v: v, size: tt.ByteWidth}, nil
		case arrow.ExtensionType: // uuid, or a duration of the Parquet mapping
			if st, ok := tt.StorageType().(*arrow.FixedSizeBinaryType); ok {
				return &fixedBinCol{t: t, v: v, size: st.ByteWidth, uuidText: s.Kind == schema.String}, nil
			}
		}
		return &binCol{t: t, v: v}, nil
	case schema.Enum:
		return &enumCol{t: t, v: v, n: int32(len(s.Symbols)), dict: symbolArray(s.Symbols)}, nil
	case schema.Array:
		lt := t.(*arrow.ListType)
		item, err := newColumn(s.Items, lt.Elem(), lt.ElemField().Nullable, o)
		if err != nil {
			return nil, err
		}
		return &listCol{t: t, v: v, offsets: []int32{0}, items: []column{item}}, nil
	case schema.Map:
		mt := t.(*arrow.MapType)
		val, err := newColumn(s.Values, mt.ItemType(), mt.ItemField().Nullable, o)
		if err != nil {
			return nil, err
		}
		return &listCol{t: t, v: v, offsets: []int32{0}, items: []column{&binCol{t: arrow.BinaryTypes.String}, val}, entries: mt.Elem()}, nil
	case schema.Record:
		st := t.(*arrow.StructType)
		c := &structCol{t: t, v: v, fields: make([]column, len(s.Fields))}
		for i, f := range s.Fields {
			fc, err := newColumn(f.Type, st.Field(i).Type, st.Field(i).Nullable, o)
			if err != nil {
				return nil, err
			}
			c.fields[i] = fc
		}
		if len(s.Fields) == 0 && st.NumFields() == 1 { // SchemaOptions.Parquet
			c.fields = append(c.fields, &nullCol{})
		}
		return c, nil
	case schema.Union:
		switch ut := t.(type) {
		case *arrow.StructType:
			c := &unionStructCol{structCol: structCol{t: t, v: v}, field: make([]int, len(s.Branches))}
			k := 0
			for i, b := range s.Branches {
				if b.Kind == schema.Null {
					c.field[i] = -1
					continue
				}
				fc, err := newColumn(b, ut.Field(k).Type, true, o)
				if err != nil {
					return nil, err
				}
				c.fields = append(c.fields, fc)
				c.field[i] = k
				k++
			}
			return c, nil
		case *arrow.DenseUnionType:
			c := &unionCol{t: t, branches: make([]column, len(s.Branches)), counts: make([]int32, len(s.Branches))}
			for i, b := range s.Branches {
				bc, err := newColumn(b, ut.Fields()[i].Type, ut.Fields()[i].Nullable, o)
				if err != nil {
					return nil, err
				}
				c.branches[i] = bc
			}
			return c, nil
		}
	}
	return nil, fmt.Errorf("no column for Avro %v as Arrow %v", s.Kind, t)
}

func readFloat(d *dec) (float32, error) {
	b, err := d.take(4)
	if err != nil {
		return 0, err
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
}

func readDouble(d *dec) (float64, error) {
	b, err := d.take(8)
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
}

// byteSlice views a slice of fixed-width values as bytes, for an Arrow
// buffer.
func byteSlice[T int8 | int32 | int64 | float32 | float64](s []T) []byte {
	return arrow.GetBytes(s)
}

type nullCol struct{ n int }

func (c *nullCol) decode(*dec) error { c.n++; return nil }
func (c *nullCol) empty()            { c.n++ }
func (c *nullCol) bytes() int        { return 0 }
func (c *nullCol) finish() arrow.ArrayData {
	n := c.n
	c.n = 0
	return array.NewData(arrow.Null, n, []*memory.Buffer{nil}, nil, n, 0)
}

// nullableCol is a union of null and one other type.
type nullableCol struct {
	inner     column
	nullIndex int64
}

func (c *nullableCol) decode(d *dec) error {
	i, err := d.long()
	if err != nil {
		return err
	}
	switch i {
	case c.nullIndex:
		c.inner.empty()
		return nil
	case 1 - c.nullIndex:
		return c.inner.decode(d)
	}
	return fmt.Errorf("union branch %d of 2", i)
}
func (c *nullableCol) empty()                  { c.inner.empty() }
func (c *nullableCol) bytes() int              { return c.inner.bytes() }
func (c *nullableCol) finish() arrow.ArrayData { return c.inner.finish() }

type boolCol struct {
	v    validity
	vals bitmap
}

func (c *boolCol) decode(d *dec) error {
	b, err := d.take(1)
	if err != nil {
		return err
	}
	c.v.set(true)
	c.vals.append(b[0] != 0)
	return nil
}
func (c *boolCol) empty()     { c.v.set(false); c.vals.append(false) }
func (c *boolCol) bytes() int { return len(c.vals.bits) * 2 }
func (c *boolCol) finish() arrow.ArrayData {
	n := c.vals.n
	valid, nulls := c.v.take()
	return array.NewData(arrow.FixedWidthTypes.Boolean, n, []*memory.Buffer{valid, c.vals.take()}, nil, nulls, 0)
}

type fixedCol[T int32 | int64 | float32 | float64] struct {
	t    arrow.DataType
	v    validity
	vals []T
	read func(*dec) (T, error)
}

func (c *fixedCol[T]) decode(d *dec) error {
	x, err := c.read(d)
	if err != nil {
		return err
	}
	c.v.set(true)
	c.vals = append(c.vals, x)
	return nil
}
func (c *fixedCol[T]) empty()     { c.v.set(false); c.vals = append(c.vals, 0) }
func (c *fixedCol[T]) bytes() int { return len(c.vals) * 8 }
func (c *fixedCol[T]) finish() arrow.ArrayData {
	n := len(c.vals)
	valid, nulls := c.v.take()
	data := array.NewData(c.t, n, []*memory.Buffer{valid, memory.NewBufferBytes(byteSlice(c.vals))}, nil, nulls, 0)
	c.vals = make([]T, 0, n)
	return data
}

// binCol builds strings or bytes: offsets into one buffer of the values.
type binCol struct {
	t       arrow.DataType
	v       validity
	offsets []int32
	data    []byte
}

func (c *binCol) add(b []byte) error {
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

func (c *binCol) decode(d *dec) error {
	b, err := d.bytes()
	if err != nil {
		return err
	}
	c.v.set(true)
	return c.add(b)
}
func (c *binCol) empty()     { c.v.set(false); c.add(nil) }
func (c *binCol) bytes() int { return len(c.data) + 4*len(c.offsets) }
func (c *binCol) finish() arrow.ArrayData {
	if len(c.offsets) == 0 {
		c.offsets = append(c.offsets, 0)
	}
	n := len(c.offsets) - 1
	valid, nulls := c.v.take()
	data := array.NewData(c.t, n, []*memory.Buffer{valid, memory.NewBufferBytes(byteSlice(c.offsets)), memory.NewBufferBytes(c.data)}, nil, nulls, 0)
	c.offsets = make([]int32, 1, n+1)
	c.data = make([]byte, 0, len(c.data))
	return data
}

// fixedBinCol builds fixed-size binary values: Avro fixed, and UUIDs
// (from fixed, or from their text in an Avro string).
type fixedBinCol struct {
	t        arrow.DataType
	v        validity
	size     int
	uuidText bool
	data     []byte
	n        int
}

func (c *fixedBinCol) decode(d *dec) error {
	var (
		b   []byte
		err error
	)
	if c.uuidText {
		b, err = d.bytes()
		if err != nil {
			return err
		}
		c.data, err = appendUUID(c.data, b)
		if err != nil {
			return err
		}
	} else {
		b, err = d.take(c.size)
		if err != nil {
			return err
		}
		c.data = append(c.data, b...)
	}
	c.v.set(true)
	c.n++
	return nil
}

// appendUUID appends the 16 bytes of a UUID's canonical text.
func appendUUID(dst, text []byte) ([]byte, error) {
	if len(text) != 36 || text[8] != '-' || text[13] != '-' || text[18] != '-' || text[23] != '-' {
		return dst, fmt.Errorf("uuid %q is not of the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", text)
	}
	var hi byte
	k := 0
	for i, ch := range text {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			continue
		}
		var x byte
		switch {
		case ch >= '0' && ch <= '9':
			x = ch - '0'
		case ch >= 'a' && ch <= 'f':
			x = ch - 'a' + 10
		case ch >= 'A' && ch <= 'F':
			x = ch - 'A' + 10
		default:
			return dst, fmt.Errorf("uuid %q has a character that is not a hex digit", text)
		}
		if k%2 == 0 {
			hi = x << 4
		} else {
			dst = append(dst, hi|x)
		}
		k++
	}
	return dst, nil
}

func (c *fixedBinCol) empty() {
	c.v.set(false)
	c.data = append(c.data, make([]byte, c.size)...)
	c.n++
}
func (c *fixedBinCol) bytes() int { return len(c.data) }
func (c *fixedBinCol) finish() arrow.ArrayData {
	n := c.n
	valid, nulls := c.v.take()
	data := array.NewData(c.t, n, []*memory.Buffer{valid, memory.NewBufferBytes(c.data)}, nil, nulls, 0)
	c.data, c.n = make([]byte, 0, len(c.data)), 0
	return data
}

// decimalCol builds Arrow decimals, little-endian words, from Avro's
// big-endian two's complement bytes.
type decimalCol struct {
	t     arrow.DataType
	v     validity
	width int // 16 or 32
	size  int // of the Avro fixed; 0 for bytes
	data  []byte
	n     int
}

func (c *decimalCol) decode(d *dec) error {
	var (
		b   []byte
		err error
	)
	if c.size > 0 {
		b, err = d.take(c.size)
	} else {
		b, err = d.bytes()
	}
	if err != nil {
		return err
	}
	// Leading bytes past the width must be sign extension.
	var ext byte
	if len(b) > 0 && b[0]&0x80 != 0 {
		ext = 0xff
	}
	for len(b) > c.width {
		if b[0] != ext || (b[1]&0x80 != 0) != (ext != 0) {
			return fmt.Errorf("decimal of %d bytes does not fit Arrow's %d", len(b), c.width)
		}
		b = b[1:]
	}
	// The value little-endian, sign-extended to the width.
	start := len(c.data)
	for range c.width {
		c.data = append(c.data, ext)
	}
	out := c.data[start:]
	for i, x := range b {
		out[len(b)-1-i] = x
	}
	c.v.set(true)
	c.n++
	return nil
}
func (c *decimalCol) empty() {
	c.v.set(false)
	c.data = append(c.data, make([]byte, c.width)...)
	c.n++
}
func (c *decimalCol) bytes() int { return len(c.data) }
func (c *decimalCol) finish() arrow.ArrayData {
	n := c.n
	valid, nulls := c.v.take()
	data := array.NewData(c.t, n, []*memory.Buffer{valid, memory.NewBufferBytes(c.data)}, nil, nulls, 0)
	c.data, c.n = make([]byte, 0, len(c.data)), 0
	return data
}

// enumCol builds a dictionary of the enum's symbols, in their order, and
// the indices into it.
type enumCol struct {
	t    arrow.DataType
	v    validity
	n    int32
	dict *array.String
	idx  []int32
}

func (c *enumCol) decode(d *dec) error {
	i, err := d.int()
	if err != nil {
		return err
	}
	if i < 0 || i >= c.n {
		return fmt.Errorf("enum symbol %d of %d", i, c.n)
	}
	c.v.set(true)
	c.idx = append(c.idx, i)
	return nil
}
func (c *enumCol) empty()     { c.v.set(false); c.idx = append(c.idx, 0) }
func (c *enumCol) bytes() int { return 4 * len(c.idx) }
func (c *enumCol) finish() arrow.ArrayData {
	n := len(c.idx)
	valid, nulls := c.v.take()
	data := array.NewDataWithDictionary(c.t, n, []*memory.Buffer{valid, memory.NewBufferBytes(byteSlice(c.idx))}, nulls, 0, c.dict.Data().(*array.Data))
	c.idx = make([]int32, 0, n)
	return data
}

// listCol builds lists (one item column) and maps (key and value columns,
// under the entries struct).
type listCol struct {
	t       arrow.DataType
	v       validity
	offsets []int32
	items   []column
	entries arrow.DataType // maps: the entries' struct type
}

func (c *listCol) decode(d *dec) error {
	total := int64(c.offsets[len(c.offsets)-1])
	for {
		n, err := d.blockCount()
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
		if total+n > math.MaxInt32 {
			return errors.New("more than 2^31 list items in one batch: make batches smaller")
		}
		for range n {
			for _, it := range c.items {
				if err := it.decode(d); err != nil {
					return err
				}
			}
		}
		total += n
	}
	c.v.set(true)
	c.offsets = append(c.offsets, int32(total))
	return nil
}
func (c *listCol) empty() {
	c.v.set(false)
	c.offsets = append(c.offsets, c.offsets[len(c.offsets)-1])
}
func (c *listCol) bytes() int {
	n := 4 * len(c.offsets)
	for _, it := range c.items {
		n += it.bytes()
	}
	return n
}
func (c *listCol) finish() arrow.ArrayData {
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

type structCol struct {
	t      arrow.DataType
	v      validity
	fields []column
	n      int
}

func (c *structCol) decode(d *dec) error {
	for _, f := range c.fields {
		if err := f.decode(d); err != nil {
			return err
		}
	}
	c.v.set(true)
	c.n++
	return nil
}
func (c *structCol) empty() {
	for _, f := range c.fields {
		f.empty()
	}
	c.v.set(false)
	c.n++
}
func (c *structCol) bytes() int {
	n := c.n / 8
	for _, f := range c.fields {
		n += f.bytes()
	}
	return n
}
func (c *structCol) finish() arrow.ArrayData {
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

// unionStructCol builds a union as a struct of a field per non-null
// branch.
type unionStructCol struct {
	structCol
	field []int // of each branch; -1 for the null branch
}

func (c *unionStructCol) decode(d *dec) error {
	i, err := d.long()
	if err != nil {
		return err
	}
	if i < 0 || i >= int64(len(c.field)) {
		return fmt.Errorf("union branch %d of %d", i, len(c.field))
	}
	k := c.field[i]
	if k < 0 {
		c.empty()
		return nil
	}
	for j, f := range c.fields {
		if j == k {
			if err := f.decode(d); err != nil {
				return err
			}
		} else {
			f.empty()
		}
	}
	c.v.set(true)
	c.n++
	return nil
}

// unionCol builds a dense union.
type unionCol struct {
	t        arrow.DataType
	branches []column
	counts   []int32
	types    []int8
	offsets  []int32
}

func (c *unionCol) decode(d *dec) error {
	i, err := d.long()
	if err != nil {
		return err
	}
	if i < 0 || i >= int64(len(c.branches)) {
		return fmt.Errorf("union branch %d of %d", i, len(c.branches))
	}
	if err := c.branches[i].decode(d); err != nil {
		return err
	}
	c.types = append(c.types, int8(i))
	c.offsets = append(c.offsets, c.counts[i])
	c.counts[i]++
	return nil
}
func (c *unionCol) empty() {
	c.branches[0].empty()
	c.types = append(c.types, 0)
	c.offsets = append(c.offsets, c.counts[0])
	c.counts[0]++
}
func (c *unionCol) bytes() int {
	n := 5 * len(c.types)
	for _, b := range c.branches {
		n += b.bytes()
	}
	return n
}
func (c *unionCol) finish() arrow.ArrayData {
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

// symbolArray returns an enum's symbols as a string array on Go memory, as
// every array of a batch is (nothing of a batch comes from an allocator).
func symbolArray(syms []string) *array.String {
	offsets := make([]int32, 1, len(syms)+1)
	var data []byte
	for _, sym := range syms {
		data = append(data, sym...)
		offsets = append(offsets, int32(len(data)))
	}
	d := array.NewData(arrow.BinaryTypes.String, len(syms), []*memory.Buffer{nil, memory.NewBufferBytes(byteSlice(offsets)), memory.NewBufferBytes(data)}, nil, 0, 0)
	defer d.Release()
	return array.NewStringData(d)
}
