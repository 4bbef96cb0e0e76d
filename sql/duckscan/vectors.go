package duckscan

/*
#include <stdlib.h>
#include "calls.h"

void td_assign_strings(duckdb_vector v, idx_t row, const int32_t *offsets, const char *data, const uint8_t *valid,
                       int64_t bit_offset, int64_t n);
void td_assign_fixed(duckdb_vector v, idx_t row, const char *data, int64_t size, const uint8_t *valid, int64_t bit_offset,
                     int64_t n);
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"

	"github.com/trevni-go/trevni/trevniarrow"
)

// The DuckDB types of the scan's columns, and the writing of Arrow arrays
// (trevniarrow's batches, after duckRecord) into DuckDB's vectors through
// the stable C API: the extension API has no Arrow import, so the scan
// writes vectors itself, in the extension and in trevni-sql alike.
//
//	Arrow (trevniarrow)                 DuckDB
//	bool, int32, int64, float, double   BOOLEAN, INTEGER, BIGINT, FLOAT, DOUBLE
//	utf8, dictionary of utf8 (enums)    VARCHAR
//	binary, fixed_size_binary           BLOB
//	date32                              DATE
//	time32[ms], time64[us]              TIME
//	timestamp[ms|us|ns, UTC]            TIMESTAMP WITH TIME ZONE
//	timestamp[ms|us]                    TIMESTAMP
//	timestamp[ns]                       TIMESTAMP_NS
//	decimal128(p, s)                    DECIMAL(p, s)
//	decimal256 (precision over 38)      VARCHAR (the decimal's text)
//	uuid                                UUID
//	trevni.avro.duration                INTERVAL
//	list, map, struct, sparse union     LIST, MAP, STRUCT, UNION
//	null                                INTEGER (always NULL)

// DuckDB's type ids (enum DUCKDB_TYPE of duckdb.h).
const (
	typeBoolean     = 1
	typeInteger     = 4
	typeBigint      = 5
	typeUTinyint    = 6
	typeFloat       = 10
	typeDouble      = 11
	typeTimestamp   = 12
	typeDate        = 13
	typeTime        = 14
	typeInterval    = 15
	typeVarchar     = 17
	typeBlob        = 18
	typeTimestampNS = 22
	typeUUID        = 27
	typeTimestampTZ = 31
)

// logicalType returns a new DuckDB type for the Arrow type dt, which the
// caller destroys.
func logicalType(dt arrow.DataType) (C.duckdb_logical_type, error) {
	simple := func(id int) (C.duckdb_logical_type, error) {
		return C.td_create_logical_type(C.duckdb_type(id)), nil
	}
	switch t := dt.(type) {
	case *arrow.NullType:
		return simple(typeInteger)
	case *arrow.BooleanType:
		return simple(typeBoolean)
	case *arrow.Int32Type:
		return simple(typeInteger)
	case *arrow.Int64Type:
		return simple(typeBigint)
	case *arrow.Float32Type:
		return simple(typeFloat)
	case *arrow.Float64Type:
		return simple(typeDouble)
	case *arrow.StringType:
		return simple(typeVarchar)
	case *arrow.BinaryType, *arrow.FixedSizeBinaryType:
		return simple(typeBlob)
	case *arrow.DictionaryType:
		return logicalType(t.ValueType)
	case *arrow.Date32Type:
		return simple(typeDate)
	case *arrow.Time32Type, *arrow.Time64Type:
		return simple(typeTime)
	case *arrow.TimestampType:
		switch {
		case t.TimeZone != "":
			return simple(typeTimestampTZ)
		case t.Unit == arrow.Nanosecond:
			return simple(typeTimestampNS)
		}
		return simple(typeTimestamp)
	case *arrow.Decimal128Type:
		return C.td_create_decimal_type(C.uint8_t(t.Precision), C.uint8_t(t.Scale)), nil
	case *arrow.Decimal256Type:
		return simple(typeVarchar)
	case *extensions.UUIDType:
		return simple(typeUUID)
	case arrow.ExtensionType:
		if t.ExtensionName() == trevniarrow.DurationExtension {
			return simple(typeInterval)
		}
		return logicalType(t.StorageType())
	case *arrow.ListType:
		c, err := logicalType(t.Elem())
		if err != nil {
			return nil, err
		}
		defer C.td_destroy_logical_type(&c)
		return C.td_create_list_type(c), nil
	case *arrow.MapType:
		k, err := logicalType(t.KeyType())
		if err != nil {
			return nil, err
		}
		defer C.td_destroy_logical_type(&k)
		v, err := logicalType(t.ItemType())
		if err != nil {
			return nil, err
		}
		defer C.td_destroy_logical_type(&v)
		return C.td_create_map_type(k, v), nil
	case *arrow.StructType:
		return members(t.Fields(), false)
	case *arrow.SparseUnionType:
		return members(t.Fields(), true)
	}
	return nil, fmt.Errorf("no DuckDB type for the Arrow type %s", dt)
}

// members returns a new STRUCT (or UNION) type of the fields.
func members(fields []arrow.Field, union bool) (C.duckdb_logical_type, error) {
	n := len(fields)
	types := (*[1 << 20]C.duckdb_logical_type)(C.calloc(C.size_t(max(n, 1)), C.size_t(unsafe.Sizeof(C.duckdb_logical_type(nil)))))[:n:n]
	names := (*[1 << 20]*C.char)(C.calloc(C.size_t(max(n, 1)), C.size_t(unsafe.Sizeof((*C.char)(nil)))))[:n:n]
	defer func() {
		for i := range n {
			if types[i] != nil {
				C.td_destroy_logical_type(&types[i])
			}
			C.free(unsafe.Pointer(names[i]))
		}
		C.free(unsafe.Pointer(unsafe.SliceData(types)))
		C.free(unsafe.Pointer(unsafe.SliceData(names)))
	}()
	for i, f := range fields {
		t, err := logicalType(f.Type)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		types[i], names[i] = t, cString(f.Name)
	}
	if union {
		return C.td_create_union_type(unsafe.SliceData(types), unsafe.SliceData(names), C.idx_t(n)), nil
	}
	return C.td_create_struct_type(unsafe.SliceData(types), unsafe.SliceData(names), C.idx_t(n)), nil
}

// setInvalid marks row i of vec NULL.
func setInvalid(vec C.duckdb_vector, i int) {
	C.td_vector_ensure_validity_writable(vec)
	v := C.td_vector_get_validity(vec)
	w := (*uint64)(unsafe.Add(unsafe.Pointer(v), (i/64)*8))
	*w &^= 1 << (i % 64)
}

// markNulls marks NULL the rows at+i of vec where a (or the parent,
// when parent is not nil) is null, and returns whether it marked any.
func markNulls(vec C.duckdb_vector, a arrow.Array, parent arrow.Array, at int) {
	if a.NullN() == 0 && (parent == nil || parent.NullN() == 0) {
		return
	}
	C.td_vector_ensure_validity_writable(vec)
	v := unsafe.Slice((*uint64)(unsafe.Pointer(C.td_vector_get_validity(vec))), (at+a.Len()+63)/64)
	for i := range a.Len() {
		if a.IsNull(i) || (parent != nil && parent.IsNull(i)) {
			r := at + i
			v[r/64] &^= 1 << (r % 64)
		}
	}
}

// data returns n values of type T of vec's data from row at.
func data[T any](vec C.duckdb_vector, at, n int) []T {
	return unsafe.Slice((*T)(unsafe.Add(C.td_vector_get_data(vec), at*int(unsafe.Sizeof(*new(T))))), n)
}

// bitmap returns the validity bitmap of a and its bit offset, or nil when
// a has no null.
func bitmap(a arrow.Array) (*C.uint8_t, C.int64_t) {
	if a.NullN() == 0 {
		return nil, 0
	}
	b := a.NullBitmapBytes()
	return (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(b))), C.int64_t(a.Data().Offset())
}

// hugeint is DuckDB's 128-bit integer.
type hugeint struct {
	lower uint64
	upper int64
}

// interval is DuckDB's INTERVAL.
type interval struct {
	months, days int32
	micros       int64
}

// write writes the values of a into rows at..at+a.Len()-1 of vec, whose
// type logicalType(a.DataType()) made. Nulls of parent (an array of the
// same length, or nil) are nulls too.
func write(vec C.duckdb_vector, a arrow.Array, parent arrow.Array, at int) error {
	n := a.Len()
	if n == 0 {
		return nil
	}
	switch a := a.(type) {
	case *array.Null:
		for i := range n {
			setInvalid(vec, at+i)
		}
		return nil
	case *array.Boolean:
		d := data[bool](vec, at, n)
		for i := range n {
			d[i] = a.Value(i)
		}
	case *array.Int32:
		copy(data[int32](vec, at, n), a.Int32Values())
	case *array.Int64:
		copy(data[int64](vec, at, n), a.Int64Values())
	case *array.Float32:
		copy(data[float32](vec, at, n), a.Float32Values())
	case *array.Float64:
		copy(data[float64](vec, at, n), a.Float64Values())
	case *array.Date32:
		copy(data[arrow.Date32](vec, at, n), a.Date32Values())
	case *array.Time32:
		if err := timesOfDay(a.Time32Values(), 1000); err != nil {
			return err
		}
		d := data[int64](vec, at, n)
		for i, v := range a.Time32Values() {
			d[i] = int64(v) * 1000 // milliseconds
		}
	case *array.Time64:
		if err := timesOfDay(a.Time64Values(), 1); err != nil {
			return err
		}
		copy(data[arrow.Time64](vec, at, n), a.Time64Values())
	case *array.Timestamp:
		t := a.DataType().(*arrow.TimestampType)
		d := data[int64](vec, at, n)
		vs := a.TimestampValues()
		switch {
		case t.Unit == arrow.Millisecond:
			for i, v := range vs {
				d[i] = int64(v) * 1000
			}
		case t.Unit == arrow.Nanosecond && t.TimeZone != "":
			for i, v := range vs {
				d[i] = floorDiv(int64(v), 1000)
			}
		case t.Unit == arrow.Second:
			for i, v := range vs {
				d[i] = int64(v) * 1000000
			}
		default:
			for i, v := range vs {
				d[i] = int64(v)
			}
		}
	case *array.String:
		writeStrings(vec, a, a.ValueOffsets(), at)
	case *array.Binary:
		writeStrings(vec, a, a.ValueOffsets(), at)
	case *extensions.UUIDArray:
		d := data[hugeint](vec, at, n)
		st := a.Storage().(*array.FixedSizeBinary)
		for i := range n {
			if a.IsValid(i) {
				b := st.Value(i)
				d[i] = hugeint{upper: int64(binary.BigEndian.Uint64(b) ^ 1<<63), lower: binary.BigEndian.Uint64(b[8:])}
			}
		}
	case array.ExtensionArray:
		st := a.Storage()
		if a.ExtensionType().ExtensionName() == trevniarrow.DurationExtension {
			fb := st.(*array.FixedSizeBinary)
			d := data[interval](vec, at, n)
			for i := range n {
				if a.IsValid(i) {
					b := fb.Value(i)
					d[i] = interval{months: int32(binary.LittleEndian.Uint32(b)), days: int32(binary.LittleEndian.Uint32(b[4:])), micros: int64(binary.LittleEndian.Uint32(b[8:])) * 1000}
				}
			}
			break
		}
		return write(vec, st, parent, at)
	case *array.FixedSizeBinary:
		valid, off := bitmap(a)
		size := a.DataType().(*arrow.FixedSizeBinaryType).ByteWidth
		var b []byte
		if size > 0 {
			b = a.Value(0) // the values are contiguous from the first
			b = unsafe.Slice(unsafe.SliceData(b), n*size)
		}
		C.td_assign_fixed(vec, C.idx_t(at), bytesPtr(b), C.int64_t(size), valid, off, C.int64_t(n))
	case *array.Dictionary:
		values := a.Dictionary()
		sv, ok := values.(*array.String)
		if !ok {
			return fmt.Errorf("a dictionary of %s", values.DataType())
		}
		for i := range n {
			if a.IsValid(i) {
				s := sv.Value(a.GetValueIndex(i))
				C.td_vector_assign_string_element_len(vec, C.idx_t(at+i), bytesPtr(unsafe.Slice(unsafe.StringData(s), len(s))), C.idx_t(len(s)))
			}
		}
	case *array.Decimal128:
		if err := writeDecimal(vec, a, at); err != nil {
			return err
		}
	case *array.Decimal256:
		for i := range n {
			if a.IsValid(i) {
				s := a.ValueStr(i)
				C.td_vector_assign_string_element_len(vec, C.idx_t(at+i), bytesPtr([]byte(s)), C.idx_t(len(s)))
			}
		}
	case *array.Map:
		if err := writeList(vec, a.Offsets(), a.ListValues(), at, n); err != nil {
			return err
		}
	case *array.List:
		if err := writeList(vec, a.Offsets(), a.ListValues(), at, n); err != nil {
			return err
		}
	case *array.Struct:
		for k := range a.NumField() {
			if err := write(C.td_struct_vector_get_child(vec, C.idx_t(k)), a.Field(k), a, at); err != nil {
				return err
			}
		}
	case *array.SparseUnion:
		tags := data[uint8](C.td_struct_vector_get_child(vec, 0), at, n)
		codes := a.RawTypeCodes()
		for k := range a.NumFields() {
			child := C.td_struct_vector_get_child(vec, C.idx_t(k+1))
			f := a.Field(k)
			if err := write(child, f, nil, at); err != nil {
				return err
			}
			for i := range n {
				if int(codes[i]) != k && f.IsValid(i) {
					setInvalid(child, at+i)
				}
			}
		}
		for i := range n {
			tags[i] = uint8(codes[i])
			if a.Field(a.ChildID(i)).IsNull(i) || (parent != nil && parent.IsNull(i)) {
				// The null branch, or a null value: DuckDB's NULL union
				// has its tag and every member NULL too.
				setInvalid(vec, at+i)
				for k := range a.NumFields() + 1 {
					setInvalid(C.td_struct_vector_get_child(vec, C.idx_t(k)), at+i)
				}
			}
		}
		return nil
	default:
		return fmt.Errorf("no DuckDB vector for the Arrow type %s", a.DataType())
	}
	markNulls(vec, a, parent, at)
	return nil
}

// writeList writes n lists of values (offsets, n+1 of them, into values)
// at rows at.. of the LIST (or MAP) vector vec.
func writeList(vec C.duckdb_vector, offsets []int32, values arrow.Array, at, n int) error {
	base := int(C.td_list_vector_get_size(vec))
	first, last := int(offsets[0]), int(offsets[n])
	if C.td_list_vector_reserve(vec, C.idx_t(base+last-first)) != 0 {
		return fmt.Errorf("DuckDB cannot reserve %d list values", base+last-first)
	}
	type entry struct{ offset, length uint64 }
	d := data[entry](vec, at, n)
	for i := range n {
		d[i] = entry{offset: uint64(base + int(offsets[i]) - first), length: uint64(offsets[i+1] - offsets[i])}
	}
	child := C.td_list_vector_get_child(vec)
	sl := array.NewSlice(values, int64(first), int64(last))
	defer sl.Release()
	if err := write(child, sl, nil, base); err != nil {
		return err
	}
	if C.td_list_vector_set_size(vec, C.idx_t(base+last-first)) != 0 {
		return fmt.Errorf("DuckDB cannot size a list vector to %d values", base+last-first)
	}
	return nil
}

// writeStrings writes the strings or blobs of a, whose offsets (n+1,
// from the array's offset on) index its whole data buffer.
func writeStrings(vec C.duckdb_vector, a arrow.Array, offsets []int32, at int) {
	var data []byte
	if b := a.Data().Buffers(); len(b) > 2 && b[2] != nil {
		data = b[2].Bytes()
	}
	valid, off := bitmap(a)
	C.td_assign_strings(vec, C.idx_t(at), (*C.int32_t)(unsafe.Pointer(unsafe.SliceData(offsets))), bytesPtr(data), valid, off, C.int64_t(a.Len()))
}

// writeDecimal writes decimals as DuckDB stores a DECIMAL of their
// precision: 16, 32, 64 or 128-bit integers.
func writeDecimal(vec C.duckdb_vector, a *array.Decimal128, at int) error {
	n := a.Len()
	p := a.DataType().(*arrow.Decimal128Type).Precision
	switch {
	case p <= 4:
		d := data[int16](vec, at, n)
		for i := range n {
			d[i] = int16(a.Value(i).LowBits())
		}
	case p <= 9:
		d := data[int32](vec, at, n)
		for i := range n {
			d[i] = int32(a.Value(i).LowBits())
		}
	case p <= 18:
		d := data[int64](vec, at, n)
		for i := range n {
			d[i] = int64(a.Value(i).LowBits())
		}
	default:
		d := data[hugeint](vec, at, n)
		for i := range n {
			v := a.Value(i)
			d[i] = hugeint{lower: v.LowBits(), upper: v.HighBits()}
		}
	}
	return nil
}

// bytesPtr returns a pointer to b's first byte, or nil.
func bytesPtr(b []byte) *C.char {
	if len(b) == 0 {
		return (*C.char)(unsafe.Pointer(&zero))
	}
	return (*C.char)(unsafe.Pointer(unsafe.SliceData(b)))
}

var zero byte

// floorDiv is a/b rounded down.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
