package trevniarrow

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/trevni-go/trevni/schema"
)

// An encoder writes the values of an Arrow array as Avro binary of one
// Avro type. It is made once for a pair of types and bound to each
// batch's array.
type encoder interface {
	bind(a arrow.Array) error
	encode(dst []byte, i int) ([]byte, error)
}

func appendLong(dst []byte, v int64) []byte {
	return binary.AppendUvarint(dst, uint64(v<<1)^uint64(v>>63))
}

func appendBytes(dst, b []byte) []byte {
	return append(appendLong(dst, int64(len(b))), b...)
}

func appendString(dst []byte, s string) []byte {
	return append(appendLong(dst, int64(len(s))), s...)
}

var errNull = errors.New("null where the Avro type has no null")

// storage returns an extension array's storage.
func storage(a arrow.Array) arrow.Array {
	if e, ok := a.(array.ExtensionArray); ok {
		return e.Storage()
	}
	return a
}

func storageType(t arrow.DataType) arrow.DataType {
	if e, ok := t.(arrow.ExtensionType); ok {
		return e.StorageType()
	}
	return t
}

// newEncoder returns the encoder of Arrow values of type t as Avro s.
func newEncoder(s *schema.Schema, t arrow.DataType) (encoder, error) {
	if inner, nullIndex := nullableUnion(s); inner != nil {
		if _, isUnion := t.(arrow.UnionType); !isUnion {
			e, err := newEncoder(inner, t)
			if err != nil {
				return nil, err
			}
			return &nullableEnc{inner: e, nullIndex: int64(nullIndex)}, nil
		}
	}
	st := storageType(t)
	if dt, ok := st.(*arrow.DictionaryType); ok && s.Kind != schema.Enum {
		// A dictionary column (pandas' category, a Parquet column
		// read with its Arrow schema) is written as its values.
		inner, err := newEncoder(s, dt.ValueType)
		if err != nil {
			return nil, err
		}
		return &dictEnc{inner: inner}, nil
	}
	switch s.Kind {
	case schema.Null:
		return nullEnc{}, nil
	case schema.Boolean:
		if st.ID() == arrow.BOOL {
			return &boolEnc{}, nil
		}
	case schema.Int, schema.Long:
		if e := newIntEnc(s, st); e != nil {
			return e, nil
		}
	case schema.Float, schema.Double:
		switch st.ID() {
		case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
			return &floatEnc{double: s.Kind == schema.Double}, nil
		}
	case schema.Bytes, schema.String, schema.Fixed:
		switch st.ID() {
		case arrow.DECIMAL128, arrow.DECIMAL256:
			return &decimalEnc{size: s.Size, precision: int32(s.Precision)}, nil
		case arrow.FIXED_SIZE_BINARY:
			w := st.(*arrow.FixedSizeBinaryType).ByteWidth
			if s.Kind == schema.Fixed && w != s.Size {
				break
			}
			return &binEnc{fixed: s.Kind == schema.Fixed, uuidText: s.Kind == schema.String && s.Logical == schema.LogicalUUID && w == 16}, nil
		case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW, arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW:
			return &binEnc{fixed: s.Kind == schema.Fixed, size: s.Size, text: s.Kind == schema.String}, nil
		case arrow.INTERVAL_MONTH_DAY_NANO:
			if s.Kind == schema.Fixed && s.Size == 12 {
				return &durationEnc{}, nil
			}
		}
	case schema.Enum:
		return &enumEnc{s: s}, nil
	case schema.Array:
		var item arrow.DataType
		switch lt := st.(type) {
		case *arrow.ListType:
			item = lt.Elem()
		case *arrow.LargeListType:
			item = lt.Elem()
		case *arrow.FixedSizeListType:
			item = lt.Elem()
		case *arrow.MapType:
			item = lt.Elem()
		default:
			return nil, fmt.Errorf("no Avro array from Arrow %v", t)
		}
		e, err := newEncoder(s.Items, item)
		if err != nil {
			return nil, err
		}
		return &listEnc{items: []encoder{e}}, nil
	case schema.Map:
		mt, ok := st.(*arrow.MapType)
		if !ok {
			return nil, fmt.Errorf("no Avro map from Arrow %v", t)
		}
		k, err := newEncoder(&schema.Schema{Kind: schema.String}, mt.KeyType())
		if err != nil {
			return nil, err
		}
		v, err := newEncoder(s.Values, mt.ItemType())
		if err != nil {
			return nil, err
		}
		return &listEnc{items: []encoder{k, v}, entries: true}, nil
	case schema.Record:
		stt, ok := st.(*arrow.StructType)
		if !ok {
			return nil, fmt.Errorf("no Avro record %s from Arrow %v", s.FullName(), t)
		}
		e := &structEnc{fields: make([]encoder, len(s.Fields)), index: make([]int, len(s.Fields))}
		for i, f := range s.Fields {
			k, ok := stt.FieldIdx(arrowFieldName(f))
			if !ok {
				return nil, fmt.Errorf("record %s: field %s is not in the Arrow struct", s.FullName(), f.Name)
			}
			fe, err := newEncoder(f.Type, stt.Field(k).Type)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", s.FullName(), f.Name, err)
			}
			e.fields[i], e.index[i] = fe, k
		}
		return e, nil
	case schema.Union:
		return newUnionEnc(s, st)
	}
	return nil, fmt.Errorf("no Avro %v from Arrow %v", s.Kind, t)
}

type nullEnc struct{}

// dictEnc writes the values of an Arrow dictionary array by its values'
// encoder.
type dictEnc struct {
	inner encoder
	a     *array.Dictionary
}

func (e *dictEnc) bind(a arrow.Array) error {
	d, ok := storage(a).(*array.Dictionary)
	if !ok {
		return fmt.Errorf("no Avro value from Arrow %v", a.DataType())
	}
	e.a = d
	return e.inner.bind(d.Dictionary())
}

func (e *dictEnc) encode(dst []byte, i int) ([]byte, error) {
	if e.a.IsNull(i) {
		return dst, errNull
	}
	k := e.a.GetValueIndex(i)
	if k < 0 || k >= e.a.Dictionary().Len() {
		return dst, fmt.Errorf("dictionary index %d of a dictionary of %d values", k, e.a.Dictionary().Len())
	}
	return e.inner.encode(dst, k)
}

func (nullEnc) bind(arrow.Array) error                   { return nil }
func (nullEnc) encode(dst []byte, _ int) ([]byte, error) { return dst, nil }

type nullableEnc struct {
	inner     encoder
	nullIndex int64
	a         arrow.Array
}

func (e *nullableEnc) bind(a arrow.Array) error { e.a = a; return e.inner.bind(a) }
func (e *nullableEnc) encode(dst []byte, i int) ([]byte, error) {
	if e.a.IsNull(i) {
		return appendLong(dst, e.nullIndex), nil
	}
	return e.inner.encode(appendLong(dst, 1-e.nullIndex), i)
}

type boolEnc struct{ a *array.Boolean }

func (e *boolEnc) bind(a arrow.Array) error { e.a = a.(*array.Boolean); return nil }
func (e *boolEnc) encode(dst []byte, i int) ([]byte, error) {
	if e.a.IsNull(i) {
		return dst, errNull
	}
	if e.a.Value(i) {
		return append(dst, 1), nil
	}
	return append(dst, 0), nil
}

// intEnc writes Avro ints and longs from any Arrow integer, date, time,
// timestamp or duration, scaled to the Avro type's unit.
type intEnc struct {
	int      bool  // Avro int: range checked
	mul, div int64 // the unit's scale
	get      func(i int) (int64, bool)
	a        arrow.Array
	// unsigned64 says the long holds a uint64's 64 bits (the Avro type
	// marked "uint64", PropArrowType): values of 2^63 and up are
	// written as the negative longs of the same bits, which the way
	// back reads unsigned again.
	unsigned64 bool
}

// unitNanos is the nanoseconds of a time unit.
func unitNanos(u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return 1e9
	case arrow.Millisecond:
		return 1e6
	case arrow.Microsecond:
		return 1e3
	}
	return 1
}

// logicalNanos is the nanoseconds of an Avro logical type's unit; 0 for
// types without one.
func logicalNanos(l schema.LogicalType) int64 {
	switch l {
	case schema.LogicalTimeMillis, schema.LogicalTimestampMillis, schema.LogicalLocalTimestampMillis:
		return 1e6
	case schema.LogicalTimeMicros, schema.LogicalTimestampMicros, schema.LogicalLocalTimestampMicros:
		return 1e3
	case schema.LogicalTimestampNanos, schema.LogicalLocalTimestampNanos:
		return 1
	case schema.LogicalDate:
		return 86400e9
	}
	return 0
}

func newIntEnc(s *schema.Schema, t arrow.DataType) encoder {
	e := &intEnc{int: s.Kind == schema.Int, mul: 1, div: 1}
	var from int64 // the Arrow type's unit in nanoseconds; 0 for a plain integer
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		e.unsigned64 = t.ID() == arrow.UINT64 && s.Kind == schema.Long && propString(s, PropArrowType) == "uint64"
	case arrow.DATE32:
		from = 86400e9
	case arrow.DATE64:
		from = 1e6
	case arrow.TIME32:
		from = unitNanos(t.(*arrow.Time32Type).Unit)
	case arrow.TIME64:
		from = unitNanos(t.(*arrow.Time64Type).Unit)
	case arrow.TIMESTAMP:
		from = unitNanos(t.(*arrow.TimestampType).Unit)
	case arrow.DURATION:
		from = unitNanos(t.(*arrow.DurationType).Unit)
	default:
		return nil
	}
	if to := logicalNanos(s.Logical); from != 0 && to != 0 {
		if from >= to {
			e.mul = from / to
		} else {
			e.div = to / from
		}
	}
	return e
}

func (e *intEnc) bind(a arrow.Array) error {
	e.a = a
	switch x := storage(a).(type) {
	case *array.Int8:
		e.get = func(i int) (int64, bool) { return int64(x.Value(i)), true }
	case *array.Int16:
		e.get = func(i int) (int64, bool) { return int64(x.Value(i)), true }
	case *array.Int32:
		e.get = func(i int) (int64, bool) { return int64(x.Value(i)), true }
	case *array.Int64:
		e.get = func(i int) (int64, bool) { return x.Value(i), true }
	case *array.Uint8:
		e.get = func(i int) (int64, bool) { return int64(x.Value(i)), true }
	case *array.Uint16:
		e.get = func(i int) (int64, bool) { return int64(x.Value(i)), true }
	case *array.Uint32:
		e.get = func(i int) (int64, bool) { return int64(x.Value(i)), true }
	case *array.Uint64:
		e.get = func(i int) (int64, bool) { v := x.Value(i); return int64(v), v <= math.MaxInt64 || e.unsigned64 }
	case *array.Date32:
		e.get = func(i int) (int64, bool) { return int64(x.Value(i)), true }
	case *array.Date64:
		e.get = func(i int) (int64, bool) { return int64(x.Value(i)), true }
	case *array.Time32:
		e.get = func(i int) (int64, bool) { return int64(x.Value(i)), true }
	case *array.Time64:
		e.get = func(i int) (int64, bool) { return int64(x.Value(i)), true }
	case *array.Timestamp:
		e.get = func(i int) (int64, bool) { return int64(x.Value(i)), true }
	case *array.Duration:
		e.get = func(i int) (int64, bool) { return int64(x.Value(i)), true }
	default:
		return fmt.Errorf("no Avro integer from Arrow %v", a.DataType())
	}
	return nil
}

func (e *intEnc) encode(dst []byte, i int) ([]byte, error) {
	if e.a.IsNull(i) {
		return dst, errNull
	}
	v, ok := e.get(i)
	if !ok {
		return dst, fmt.Errorf("unsigned %d past the largest Avro long", uint64(v))
	}
	if e.mul != 1 {
		w := v * e.mul
		if w/e.mul != v {
			return dst, fmt.Errorf("%d overflows when scaled by %d", v, e.mul)
		}
		v = w
	}
	if e.div != 1 {
		if v%e.div != 0 {
			return dst, fmt.Errorf("%d is not a whole number of the Avro type's unit (%d of it)", v, e.div)
		}
		v /= e.div
	}
	if e.int && (v < math.MinInt32 || v > math.MaxInt32) {
		return dst, fmt.Errorf("%d out of the range of an Avro int", v)
	}
	return appendLong(dst, v), nil
}

type floatEnc struct {
	double bool
	get    func(i int) float64
	a      arrow.Array
	f32    *array.Float32
}

func (e *floatEnc) bind(a arrow.Array) error {
	e.a, e.f32 = a, nil
	switch x := a.(type) {
	case *array.Float16:
		e.get = func(i int) float64 { return float64(x.Value(i).Float32()) }
	case *array.Float32:
		e.f32 = x
		e.get = func(i int) float64 { return float64(x.Value(i)) }
	case *array.Float64:
		e.get = x.Value
	default:
		return fmt.Errorf("no Avro float from Arrow %v", a.DataType())
	}
	return nil
}

func (e *floatEnc) encode(dst []byte, i int) ([]byte, error) {
	if e.a.IsNull(i) {
		return dst, errNull
	}
	if e.double {
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(e.get(i))), nil
	}
	if e.f32 != nil { // bit for bit: NaN payloads kept
		return binary.LittleEndian.AppendUint32(dst, math.Float32bits(e.f32.Value(i))), nil
	}
	return binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(e.get(i)))), nil
}

// binEnc writes Avro bytes, string and fixed from Arrow binary, strings
// and fixed-size binary (UUIDs as their text for an Avro string).
type binEnc struct {
	fixed    bool
	size     int
	uuidText bool
	text     bool // an Avro string: bytes must be UTF-8
	a        arrow.Array
	get      func(i int) []byte
	str      func(i int) string
}

func (e *binEnc) bind(a arrow.Array) error {
	e.a, e.get, e.str = a, nil, nil
	switch x := storage(a).(type) {
	case *array.String:
		e.str = x.Value
	case *array.LargeString:
		e.str = x.Value
	case *array.StringView:
		e.str = x.Value
	case *array.Binary:
		e.get = x.Value
	case *array.LargeBinary:
		e.get = x.Value
	case *array.BinaryView:
		e.get = x.Value
	case *array.FixedSizeBinary:
		e.get = x.Value
	default:
		return fmt.Errorf("no Avro bytes from Arrow %v", a.DataType())
	}
	return nil
}

const hexDigits = "0123456789abcdef"

func (e *binEnc) encode(dst []byte, i int) ([]byte, error) {
	if e.a.IsNull(i) {
		return dst, errNull
	}
	if e.str != nil {
		s := e.str(i)
		if e.fixed {
			if len(s) != e.size {
				return dst, fmt.Errorf("%d bytes for an Avro fixed of %d", len(s), e.size)
			}
			return append(dst, s...), nil
		}
		return appendString(dst, s), nil
	}
	b := e.get(i)
	if e.text && !utf8.Valid(b) {
		return dst, fmt.Errorf("bytes that are not UTF-8 (%s) where the Avro schema has a string", hexBytes(b))
	}
	switch {
	case e.uuidText:
		dst = appendLong(dst, 36)
		for k, x := range b {
			if k == 4 || k == 6 || k == 8 || k == 10 {
				dst = append(dst, '-')
			}
			dst = append(dst, hexDigits[x>>4], hexDigits[x&15])
		}
		return dst, nil
	case e.fixed:
		if e.size != 0 && len(b) != e.size {
			return dst, fmt.Errorf("%d bytes for an Avro fixed of %d", len(b), e.size)
		}
		return append(dst, b...), nil
	}
	return appendBytes(dst, b), nil
}

// decimalEnc writes Avro decimals (big-endian two's complement, in bytes
// as short as the value allows, or sign-extended to a fixed's size) from
// Arrow decimals.
type decimalEnc struct {
	size      int   // of the Avro fixed; 0 for bytes
	precision int32 // of the Avro decimal: a value of more digits is an error
	a         arrow.Array
	le        [32]byte
}

func (e *decimalEnc) bind(a arrow.Array) error {
	switch a.(type) {
	case *array.Decimal128, *array.Decimal256:
		e.a = a
		return nil
	}
	return fmt.Errorf("no Avro decimal from Arrow %v", a.DataType())
}

func (e *decimalEnc) encode(dst []byte, i int) ([]byte, error) {
	if e.a.IsNull(i) {
		return dst, errNull
	}
	var le []byte
	switch x := e.a.(type) {
	case *array.Decimal128:
		v := x.Value(i)
		if e.precision > 0 && !v.FitsInPrecision(e.precision) {
			return dst, fmt.Errorf("decimal %s has more than the %d digits of its type", v.ToString(x.DataType().(arrow.DecimalType).GetScale()), e.precision)
		}
		le = e.le[:16]
		binary.LittleEndian.PutUint64(le, v.LowBits())
		binary.LittleEndian.PutUint64(le[8:], uint64(v.HighBits()))
	case *array.Decimal256:
		if e.precision > 0 && !x.Value(i).FitsInPrecision(e.precision) {
			return dst, fmt.Errorf("decimal %s has more than the %d digits of its type", x.Value(i).ToString(x.DataType().(arrow.DecimalType).GetScale()), e.precision)
		}
		v := x.Value(i).Array()
		le = e.le[:32]
		for k, w := range v {
			binary.LittleEndian.PutUint64(le[8*k:], w)
		}
	}
	// The shortest big-endian form: drop sign-extension bytes.
	n := len(le)
	for n > 1 && (le[n-1] == 0 && le[n-2]&0x80 == 0 || le[n-1] == 0xff && le[n-2]&0x80 != 0) {
		n--
	}
	if e.size == 0 {
		dst = appendLong(dst, int64(n))
	} else {
		if n > e.size {
			return dst, fmt.Errorf("decimal of %d bytes does not fit an Avro fixed of %d", n, e.size)
		}
		ext := byte(0)
		if le[n-1]&0x80 != 0 {
			ext = 0xff
		}
		for range e.size - n {
			dst = append(dst, ext)
		}
	}
	for k := n - 1; k >= 0; k-- {
		dst = append(dst, le[k])
	}
	return dst, nil
}

// durationEnc writes Avro durations from Arrow month-day-nanosecond
// intervals holding whole milliseconds.
type durationEnc struct{ a *array.MonthDayNanoInterval }

func (e *durationEnc) bind(a arrow.Array) error {
	x, ok := a.(*array.MonthDayNanoInterval)
	if !ok {
		return fmt.Errorf("no Avro duration from Arrow %v", a.DataType())
	}
	e.a = x
	return nil
}

func (e *durationEnc) encode(dst []byte, i int) ([]byte, error) {
	if e.a.IsNull(i) {
		return dst, errNull
	}
	v := e.a.Value(i)
	ms := v.Nanoseconds / 1e6
	if v.Months < 0 || v.Days < 0 || v.Nanoseconds < 0 || v.Nanoseconds%1e6 != 0 || ms > math.MaxUint32 {
		return dst, fmt.Errorf("interval %d months %d days %d ns is not an Avro duration (unsigned months, days and milliseconds)", v.Months, v.Days, v.Nanoseconds)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(v.Months))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(v.Days))
	return binary.LittleEndian.AppendUint32(dst, uint32(ms)), nil
}

// enumEnc writes Avro enums from Arrow dictionaries of strings, or from
// strings.
type enumEnc struct {
	s     *schema.Schema
	a     arrow.Array
	dict  *array.Dictionary
	remap []int32 // of each dictionary entry: its symbol, or -1
	str   binEnc
}

func (e *enumEnc) bind(a arrow.Array) error {
	e.a, e.dict = a, nil
	if d, ok := a.(*array.Dictionary); ok {
		e.dict = d
		e.remap = e.remap[:0]
		if d.Data().Dictionary() == nil || d.Data().Dictionary().(*array.Data) == nil {
			return nil // no values: an empty array, or all null
		}
		var vals binEnc
		if err := vals.bind(d.Dictionary()); err != nil {
			return err
		}
		e.remap = e.remap[:0]
		for k := range d.Dictionary().Len() {
			sym := -1
			if !d.Dictionary().IsNull(k) {
				if vals.str != nil {
					sym = e.s.SymbolIndex(vals.str(k))
				} else {
					sym = e.s.SymbolIndex(string(vals.get(k)))
				}
			}
			e.remap = append(e.remap, int32(sym))
		}
		return nil
	}
	return e.str.bind(a)
}

func (e *enumEnc) encode(dst []byte, i int) ([]byte, error) {
	if e.a.IsNull(i) {
		return dst, errNull
	}
	var sym int
	if e.dict != nil {
		k := e.dict.GetValueIndex(i)
		if k < 0 || k >= len(e.remap) {
			return dst, fmt.Errorf("dictionary index %d of %d", k, len(e.remap))
		}
		sym = int(e.remap[k])
		if sym < 0 {
			return dst, fmt.Errorf("%s is not a symbol of enum %s", e.dict.Dictionary().ValueStr(k), e.s.FullName())
		}
	} else {
		var v string
		if e.str.str != nil {
			v = e.str.str(i)
		} else {
			v = string(e.str.get(i))
		}
		sym = e.s.SymbolIndex(v)
		if sym < 0 {
			return dst, fmt.Errorf("%q is not a symbol of enum %s", v, e.s.FullName())
		}
	}
	return appendLong(dst, int64(sym)), nil
}

// listEnc writes Avro arrays (one item encoder) and maps (key and value)
// from Arrow lists and maps, in one block.
type listEnc struct {
	items   []encoder
	entries bool
	a       arrow.Array
	offsets func(i int) (int64, int64)
}

func (e *listEnc) bind(a arrow.Array) error {
	e.a = a
	var child arrow.Array
	switch x := storage(a).(type) {
	case *array.Map:
		if e.entries {
			if err := e.items[0].bind(x.Keys()); err != nil {
				return err
			}
			e.offsets = func(i int) (int64, int64) { s, t := x.ValueOffsets(i); return s, t }
			return e.items[1].bind(x.Items())
		}
		child = x.ListValues()
		e.offsets = x.ValueOffsets
	case *array.List:
		child = x.ListValues()
		e.offsets = x.ValueOffsets
	case *array.LargeList:
		child = x.ListValues()
		e.offsets = x.ValueOffsets
	case *array.FixedSizeList:
		child = x.ListValues()
		n := int64(x.DataType().(*arrow.FixedSizeListType).Len())
		off := int64(x.Offset())
		e.offsets = func(i int) (int64, int64) { s := (off + int64(i)) * n; return s, s + n }
	default:
		return fmt.Errorf("no Avro array or map from Arrow %v", a.DataType())
	}
	if e.entries {
		return fmt.Errorf("no Avro map from Arrow %v", a.DataType())
	}
	return e.items[0].bind(child)
}

func (e *listEnc) encode(dst []byte, i int) ([]byte, error) {
	if e.a.IsNull(i) {
		return dst, errNull
	}
	start, end := e.offsets(i)
	if end > start {
		dst = appendLong(dst, end-start)
		for k := start; k < end; k++ {
			for _, it := range e.items {
				var err error
				if dst, err = it.encode(dst, int(k)); err != nil {
					return dst, fmt.Errorf("item %d: %w", k-start, err)
				}
			}
		}
	}
	return append(dst, 0), nil
}

// structEnc writes Avro records from Arrow structs, field by name.
type structEnc struct {
	fields []encoder
	index  []int // of each Avro field: the Arrow field
	a      *array.Struct
}

func (e *structEnc) bind(a arrow.Array) error {
	x, ok := a.(*array.Struct)
	if !ok {
		return fmt.Errorf("no Avro record from Arrow %v", a.DataType())
	}
	e.a = x
	for i, f := range e.fields {
		if err := f.bind(x.Field(e.index[i])); err != nil {
			return err
		}
	}
	return nil
}

func (e *structEnc) encode(dst []byte, i int) ([]byte, error) {
	if e.a.IsNull(i) {
		return dst, errNull
	}
	for _, f := range e.fields {
		var err error
		if dst, err = f.encode(dst, i); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// unionEnc writes Avro unions from Arrow dense or sparse unions (a child
// per branch, in order) or from structs of a field per non-null branch.
type unionEnc struct {
	branches []encoder
	nullIdx  int64 // the null branch; -1 when none
	asStruct bool
	branchOf []int // struct form: the branch of each field
	a        arrow.Array
	u        array.Union
	st       *array.Struct
	byCode   [128]int8 // union form: the branch of each type code
}

func newUnionEnc(s *schema.Schema, t arrow.DataType) (encoder, error) {
	e := &unionEnc{nullIdx: -1}
	for i, b := range s.Branches {
		if b.Kind == schema.Null {
			e.nullIdx = int64(i)
		}
	}
	switch ut := t.(type) {
	case arrow.UnionType:
		if len(ut.Fields()) != len(s.Branches) {
			return nil, fmt.Errorf("a union of %d branches from an Arrow union of %d", len(s.Branches), len(ut.Fields()))
		}
		for k := range e.byCode {
			e.byCode[k] = -1
		}
		for i, f := range ut.Fields() {
			be, err := newEncoder(s.Branches[i], f.Type)
			if err != nil {
				return nil, err
			}
			e.branches = append(e.branches, be)
			e.byCode[ut.TypeCodes()[i]] = int8(i)
		}
		return e, nil
	case *arrow.StructType:
		e.asStruct = true
		k := 0
		for i, b := range s.Branches {
			if b.Kind == schema.Null {
				continue
			}
			if k >= ut.NumFields() {
				return nil, fmt.Errorf("a union of %d branches from a struct of %d fields", len(s.Branches), ut.NumFields())
			}
			be, err := newEncoder(b, ut.Field(k).Type)
			if err != nil {
				return nil, err
			}
			e.branches = append(e.branches, be)
			e.branchOf = append(e.branchOf, i)
			k++
		}
		if k != ut.NumFields() {
			return nil, fmt.Errorf("a union of %d branches from a struct of %d fields", len(s.Branches), ut.NumFields())
		}
		return e, nil
	}
	return nil, fmt.Errorf("no Avro union from Arrow %v", t)
}

func (e *unionEnc) bind(a arrow.Array) error {
	e.a = a
	if e.asStruct {
		st, ok := a.(*array.Struct)
		if !ok {
			return fmt.Errorf("no Avro union from Arrow %v", a.DataType())
		}
		e.st = st
		for k, b := range e.branches {
			if err := b.bind(st.Field(k)); err != nil {
				return err
			}
		}
		return nil
	}
	u, ok := a.(array.Union)
	if !ok {
		return fmt.Errorf("no Avro union from Arrow %v", a.DataType())
	}
	e.u = u
	for k, b := range e.branches {
		if err := b.bind(u.Field(k)); err != nil {
			return err
		}
	}
	return nil
}

func (e *unionEnc) encode(dst []byte, i int) ([]byte, error) {
	if e.asStruct {
		if e.st.IsNull(i) {
			if e.nullIdx < 0 {
				return dst, errNull
			}
			return appendLong(dst, e.nullIdx), nil
		}
		for k, b := range e.branches {
			if e.st.Field(k).IsNull(i) {
				continue
			}
			return b.encode(appendLong(dst, int64(e.branchOf[k])), i)
		}
		if e.nullIdx >= 0 {
			return appendLong(dst, e.nullIdx), nil
		}
		return dst, errors.New("a union struct with no field set")
	}
	code := e.u.TypeCode(i)
	if code < 0 || e.byCode[code] < 0 {
		return dst, fmt.Errorf("union type code %d unknown", code)
	}
	k := int(e.byCode[code])
	j := i
	if d, ok := e.u.(*array.DenseUnion); ok {
		j = int(d.ValueOffset(i))
		if j < 0 || j >= d.Field(k).Len() {
			return dst, fmt.Errorf("dense union offset %d past branch %d's %d values", j, k, d.Field(k).Len())
		}
	}
	return e.branches[k].encode(appendLong(dst, int64(k)), j)
}

// hexBytes shows at most 16 bytes as \xHH escapes, for a message.
func hexBytes(b []byte) string {
	var sb strings.Builder
	for k, c := range b {
		if k == 16 {
			sb.WriteString("...")
			break
		}
		sb.WriteString("\\x")
		sb.WriteByte(hexDigits[c>>4])
		sb.WriteByte(hexDigits[c&15])
	}
	return sb.String()
}
