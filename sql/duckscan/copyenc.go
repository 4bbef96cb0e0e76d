package duckscan

/*
#include "calls.h"
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"
)

// An encoder is the view of one DuckDB vector (flat, as DuckDB hands a
// copy function its chunks) that the column writers of copycols.go read:
// bind points it at a chunk's vector, valid reports whether a row's value
// is not NULL. The fixed-size types' put functions below give a value's
// Avro binary encoding, which the column writer of a rarer type (a
// decimal, a UUID, an INTERVAL, seconds as milliseconds) decodes as the
// shredder does.
type encoder interface {
	bind(v C.duckdb_vector)
	valid(row int) bool
}

// appendLong appends v in Avro's zigzag varint encoding.
func appendLong(b []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	for u >= 0x80 {
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}

// vec is a vector's data and validity.
type vec struct {
	data     unsafe.Pointer
	validity unsafe.Pointer // a bitmap of 64-bit words, or nil: all valid
}

func (v *vec) bindVec(x C.duckdb_vector) {
	v.data = C.td_vector_get_data(x)
	v.validity = unsafe.Pointer(C.td_vector_get_validity(x))
}

func (v *vec) valid(row int) bool {
	if v.validity == nil {
		return true
	}
	w := *(*uint64)(unsafe.Add(v.validity, (row>>6)*8))
	return w>>(uint(row)&63)&1 != 0
}

// fixedEnc encodes values of size bytes each with put.
type fixedEnc struct {
	vec
	size int
	put  func(b []byte, p unsafe.Pointer) ([]byte, error)
	id   C.duckdb_type // the DuckDB type of the values (set by typeMapper.typ)
}

func (e *fixedEnc) bind(x C.duckdb_vector) { e.bindVec(x) }

func putBool(b []byte, p unsafe.Pointer) ([]byte, error) {
	if *(*uint8)(p) != 0 {
		return append(b, 1), nil
	}
	return append(b, 0), nil
}
func putInt8(b []byte, p unsafe.Pointer) ([]byte, error) {
	return appendLong(b, int64(*(*int8)(p))), nil
}
func putInt16(b []byte, p unsafe.Pointer) ([]byte, error) {
	return appendLong(b, int64(*(*int16)(p))), nil
}
func putInt32(b []byte, p unsafe.Pointer) ([]byte, error) {
	return appendLong(b, int64(*(*int32)(p))), nil
}
func putInt64(b []byte, p unsafe.Pointer) ([]byte, error) { return appendLong(b, *(*int64)(p)), nil }
func putUint8(b []byte, p unsafe.Pointer) ([]byte, error) {
	return appendLong(b, int64(*(*uint8)(p))), nil
}
func putUint16(b []byte, p unsafe.Pointer) ([]byte, error) {
	return appendLong(b, int64(*(*uint16)(p))), nil
}
func putUint32(b []byte, p unsafe.Pointer) ([]byte, error) {
	return appendLong(b, int64(*(*uint32)(p))), nil
}
func putUint64(b []byte, p unsafe.Pointer) ([]byte, error) {
	v := *(*uint64)(p)
	if v > math.MaxInt64 {
		return b, fmt.Errorf("UBIGINT %d is over the largest Avro long", v)
	}
	return appendLong(b, int64(v)), nil
}
func putFloat(b []byte, p unsafe.Pointer) ([]byte, error) {
	return binary.LittleEndian.AppendUint32(b, math.Float32bits(*(*float32)(p))), nil
}
func putDouble(b []byte, p unsafe.Pointer) ([]byte, error) {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(*(*float64)(p))), nil
}
func putSecondsAsMillis(b []byte, p unsafe.Pointer) ([]byte, error) {
	v := *(*int64)(p)
	if v > math.MaxInt64/1000 || v < math.MinInt64/1000 {
		return b, fmt.Errorf("TIMESTAMP_S %d is out of the range of milliseconds", v)
	}
	return appendLong(b, v*1000), nil
}

// putInterval encodes an INTERVAL (months int32, days int32, micros int64)
// as Avro's duration: three little-endian unsigned 32-bit counts of
// months, days and milliseconds.
func putInterval(b []byte, p unsafe.Pointer) ([]byte, error) {
	months, days, micros := *(*int32)(p), *(*int32)(unsafe.Add(p, 4)), *(*int64)(unsafe.Add(p, 8))
	if months < 0 || days < 0 || micros < 0 || micros%1000 != 0 || micros/1000 > math.MaxUint32 {
		return b, fmt.Errorf("INTERVAL of %d months, %d days and %d µs: Avro's duration holds whole non-negative milliseconds (up to 2³²-1) only", months, days, micros)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(months))
	b = binary.LittleEndian.AppendUint32(b, uint32(days))
	return binary.LittleEndian.AppendUint32(b, uint32(micros/1000)), nil
}

// 10³⁸, the bound of a DECIMAL(38)'s magnitude, as two 64-bit halves.
const (
	pow38Hi = 0x4B3B4CA85A86C47A
	pow38Lo = 0x098A224000000000
)

// appendDecimal appends the 128-bit two's complement integer hi:lo as an
// Avro decimal's bytes: the fewest big-endian bytes that hold it.
func appendDecimal(b []byte, hi int64, lo uint64) []byte {
	var x [16]byte
	binary.BigEndian.PutUint64(x[:8], uint64(hi))
	binary.BigEndian.PutUint64(x[8:], lo)
	i := 0
	for i < 15 && ((x[i] == 0 && x[i+1]&0x80 == 0) || (x[i] == 0xff && x[i+1]&0x80 != 0)) {
		i++
	}
	b = appendLong(b, int64(16-i))
	return append(b, x[i:]...)
}

func putDecimal16(b []byte, p unsafe.Pointer) ([]byte, error) {
	v := int64(*(*int16)(p))
	return appendDecimal(b, v>>63, uint64(v)), nil
}
func putDecimal32(b []byte, p unsafe.Pointer) ([]byte, error) {
	v := int64(*(*int32)(p))
	return appendDecimal(b, v>>63, uint64(v)), nil
}
func putDecimal64(b []byte, p unsafe.Pointer) ([]byte, error) {
	v := *(*int64)(p)
	return appendDecimal(b, v>>63, uint64(v)), nil
}

// putHugeintDecimal encodes a HUGEINT (or a DECIMAL stored as one: lower
// uint64, then upper int64) as a decimal of 38 digits.
func putHugeintDecimal(b []byte, p unsafe.Pointer) ([]byte, error) {
	lo, hi := *(*uint64)(p), *(*int64)(unsafe.Add(p, 8))
	// |v| < 10³⁸ (ah:al is |v|)
	ah, al := uint64(hi), lo
	if hi < 0 { // two's complement negation
		ah, al = ^ah, ^al+1
		if al == 0 {
			ah++
		}
	}
	if ah > pow38Hi || (ah == pow38Hi && al >= pow38Lo) {
		return b, fmt.Errorf("%s has more than the 38 digits an Avro decimal of a HUGEINT holds", hugeString(hi, lo))
	}
	return appendDecimal(b, hi, lo), nil
}

// putUHugeintDecimal encodes a UHUGEINT as a decimal of 38 digits.
func putUHugeintDecimal(b []byte, p unsafe.Pointer) ([]byte, error) {
	lo, hi := *(*uint64)(p), *(*uint64)(unsafe.Add(p, 8))
	if hi > pow38Hi || (hi == pow38Hi && lo >= pow38Lo) {
		return b, fmt.Errorf("UHUGEINT (upper %d, lower %d) has more than the 38 digits an Avro decimal holds", hi, lo)
	}
	return appendDecimal(b, int64(hi), lo), nil
}

func hugeString(hi int64, lo uint64) string {
	return fmt.Sprintf("HUGEINT (upper %d, lower %d)", hi, lo)
}

// putUUID encodes a UUID (a HUGEINT whose top bit DuckDB flips, so that
// UUIDs sort as their text) as its text: Avro's uuid is a string.
func putUUID(b []byte, p unsafe.Pointer) ([]byte, error) {
	lo, hi := *(*uint64)(p), *(*uint64)(unsafe.Add(p, 8))^(1<<63)
	var x [16]byte
	binary.BigEndian.PutUint64(x[:8], hi)
	binary.BigEndian.PutUint64(x[8:], lo)
	const digits = "0123456789abcdef"
	b = appendLong(b, 36)
	for i, c := range x {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, digits[c>>4], digits[c&15])
	}
	return b, nil
}

// stringEnc is a vector of VARCHAR or BLOB values (duckdb_string_t: a 32-bit
// length, then the bytes inline when 12 or fewer, else a prefix and a
// pointer).
type stringEnc struct{ vec }

func (e *stringEnc) bind(x C.duckdb_vector) { e.bindVec(x) }

// stringT returns the bytes of the duckdb_string_t at p, where they are.
func stringT(p unsafe.Pointer) []byte {
	n := *(*uint32)(p)
	var s unsafe.Pointer
	if n <= 12 {
		s = unsafe.Add(p, 4)
	} else {
		s = *(*unsafe.Pointer)(unsafe.Add(p, 8))
	}
	return unsafe.Slice((*byte)(s), n)
}

// enumEnc is a vector of an ENUM, written as an Avro enum (its symbols valid Avro names)
// or else as its text.
type enumEnc struct {
	vec
	size    int
	symbols []string
	asEnum  bool
}

func (e *enumEnc) bind(x C.duckdb_vector) { e.bindVec(x) }

// index returns the index of row's value among the symbols.
func (e *enumEnc) index(row int) (int, error) {
	p := unsafe.Add(e.data, row*e.size)
	var i int
	switch e.size {
	case 1:
		i = int(*(*uint8)(p))
	case 2:
		i = int(*(*uint16)(p))
	default:
		i = int(*(*uint32)(p))
	}
	if i >= len(e.symbols) {
		return 0, fmt.Errorf("ENUM index %d of %d values", i, len(e.symbols))
	}
	return i, nil
}

// listEnc is a vector of a LIST (entries of offset and length into its
// child) or an ARRAY (fixed items a row), written as an Avro array.
type listEnc struct {
	vec
	item  encoder
	fixed int // the ARRAY's size, or 0 for a LIST
}

func (e *listEnc) bind(x C.duckdb_vector) {
	e.bindVec(x)
	if e.fixed > 0 {
		e.item.bind(C.td_array_vector_get_child(x))
	} else {
		e.item.bind(C.td_list_vector_get_child(x))
	}
}

// entry returns the offset and length of row's items.
func (e *listEnc) entry(row int) (int, int) {
	if e.fixed > 0 {
		return row * e.fixed, e.fixed
	}
	p := unsafe.Add(e.data, row*16)
	return int(*(*uint64)(p)), int(*(*uint64)(unsafe.Add(p, 8)))
}

// mapEnc is a vector of a MAP of VARCHAR keys (a list of key-value
// structs), written as an Avro map.
type mapEnc struct {
	listEnc
	keys  stringEnc
	value encoder
}

func (e *mapEnc) bind(x C.duckdb_vector) {
	e.bindVec(x)
	entries := C.td_list_vector_get_child(x)
	e.keys.bind(C.td_struct_vector_get_child(entries, 0))
	e.value.bind(C.td_struct_vector_get_child(entries, 1))
}

// structEnc is a vector of a STRUCT, written as an Avro record.
type structEnc struct {
	vec
	fields []encoder
}

func (e *structEnc) bind(x C.duckdb_vector) {
	e.bindVec(x)
	for i, f := range e.fields {
		f.bind(C.td_struct_vector_get_child(x, C.idx_t(i)))
	}
}

// unionEnc is a vector of a UNION (a struct of its tags, then a vector
// a member), written as the Avro union ["null", members...].
type unionEnc struct {
	vec
	tags    unsafe.Pointer
	members []encoder
}

func (e *unionEnc) bind(x C.duckdb_vector) {
	e.bindVec(x)
	e.tags = C.td_vector_get_data(C.td_struct_vector_get_child(x, 0))
	for i, m := range e.members {
		m.bind(C.td_struct_vector_get_child(x, C.idx_t(i+1)))
	}
}

// nullEnc is a vector of DuckDB's NULL type (a column of NULL
// literals): Avro's null, which takes no bytes.
type nullEnc struct{}

func (nullEnc) bind(C.duckdb_vector) {}
func (nullEnc) valid(int) bool       { return false }
