package duckscan

/*
#include <stdlib.h>
#include "calls.h"
*/
import "C"

import (
	"fmt"
	"strconv"
	"unsafe"

	"github.com/trevni-go/trevni/schema"
)

// DuckDB's type ids (enum DUCKDB_TYPE of duckdb.h) that COPY TO maps, beside
// those of vectors.go.
const (
	typeTinyint     = 2
	typeSmallint    = 3
	typeUSmallint   = 7
	typeUInteger    = 8
	typeUBigint     = 9
	typeHugeint     = 16
	typeDecimal     = 19
	typeTimestampS  = 20
	typeTimestampMS = 21
	typeEnum        = 23
	typeList        = 24
	typeStruct      = 25
	typeMap         = 26
	typeUnion       = 28
	typeUHugeint    = 32
	typeArray       = 33
	typeSQLNull     = 36
)

// duckTypeNames names the DuckDB types COPY TO refuses, for its error.
var duckTypeNames = map[C.duckdb_type]string{
	29: "BIT", 30: "TIME WITH TIME ZONE", 34: "ANY", 35: "BIGNUM", 39: "TIME_NS", 40: "GEOMETRY", 41: "VARIANT",
}

// typeMapper builds the Avro schema of the records COPY TO writes and the
// encoder of each column, from DuckDB's logical types.
type typeMapper struct {
	names map[string]int // the named types (records, enums, fixed) so far
}

// name returns a unique Avro name made of s.
func (m *typeMapper) name(s string) string {
	n := schema.MakeName(s)
	m.names[n]++
	if k := m.names[n]; k > 1 {
		n += "_" + strconv.Itoa(k)
		m.names[n]++
	}
	return n
}

// takeString returns a string DuckDB allocated, freeing it.
func takeString(p *C.char) string {
	if p == nil {
		return ""
	}
	defer C.td_free(unsafe.Pointer(p))
	return C.GoString(p)
}

// nullable returns ["null", t], or t when it is null or a union already.
func nullable(t *schema.Schema) *schema.Schema {
	if t.Kind == schema.Null || t.Kind == schema.Union {
		return t
	}
	return &schema.Schema{Kind: schema.Union, Branches: []*schema.Schema{{Kind: schema.Null}, t}}
}

// fields maps the columns or struct fields of the given names and types
// into Avro fields (each nullable, as every DuckDB value may be NULL) and
// their encoders.
func (m *typeMapper) fields(names []string, types []C.duckdb_logical_type, path string, depth int) ([]*schema.Field, []encoder, error) {
	out := make([]*schema.Field, len(names))
	encs := make([]encoder, len(names))
	seen := map[string]bool{}
	for i, n := range names {
		t, e, err := m.typ(types[i], path+"_"+n, depth+1)
		if err != nil {
			return nil, nil, fmt.Errorf("column %s: %w", n, err)
		}
		name := schema.MakeName(n)
		for seen[name] {
			name += "_"
		}
		seen[name] = true
		out[i] = &schema.Field{Name: name, Type: nullable(t)}
		if name != n {
			out[i].Props = []schema.Property{{Key: "arrow.name", Value: n}}
		}
		encs[i] = e
	}
	return out, encs, nil
}

// maxCopyDepth bounds the nesting of the types COPY TO maps.
const maxCopyDepth = 64

// typ returns the Avro type of DuckDB type t (not nullable: the caller
// wraps it) and the encoder of its values. A fixedEnc knows the DuckDB
// type it encodes: the column writers (copycols.go) take the common ones
// straight from their vectors.
func (m *typeMapper) typ(t C.duckdb_logical_type, path string, depth int) (*schema.Schema, encoder, error) {
	s, e, err := m.typeOf(t, path, depth)
	if f, ok := e.(*fixedEnc); ok {
		f.id = C.td_get_type_id(t)
	}
	return s, e, err
}

// typeOf is typ but for the DuckDB type of a fixedEnc.
func (m *typeMapper) typeOf(t C.duckdb_logical_type, path string, depth int) (*schema.Schema, encoder, error) {
	if depth > maxCopyDepth {
		return nil, nil, fmt.Errorf("types nested deeper than %d", maxCopyDepth)
	}
	prim := func(k schema.Kind, l schema.LogicalType) *schema.Schema { return &schema.Schema{Kind: k, Logical: l} }
	id := C.td_get_type_id(t)
	switch id {
	case typeBoolean:
		return prim(schema.Boolean, ""), &fixedEnc{size: 1, put: putBool}, nil
	case typeTinyint:
		return prim(schema.Int, ""), &fixedEnc{size: 1, put: putInt8}, nil
	case typeSmallint:
		return prim(schema.Int, ""), &fixedEnc{size: 2, put: putInt16}, nil
	case typeInteger:
		return prim(schema.Int, ""), &fixedEnc{size: 4, put: putInt32}, nil
	case typeUTinyint:
		return prim(schema.Int, ""), &fixedEnc{size: 1, put: putUint8}, nil
	case typeUSmallint:
		return prim(schema.Int, ""), &fixedEnc{size: 2, put: putUint16}, nil
	case typeBigint:
		return prim(schema.Long, ""), &fixedEnc{size: 8, put: putInt64}, nil
	case typeUInteger:
		return prim(schema.Long, ""), &fixedEnc{size: 4, put: putUint32}, nil
	case typeUBigint:
		return prim(schema.Long, ""), &fixedEnc{size: 8, put: putUint64}, nil
	case typeFloat:
		return prim(schema.Float, ""), &fixedEnc{size: 4, put: putFloat}, nil
	case typeDouble:
		return prim(schema.Double, ""), &fixedEnc{size: 8, put: putDouble}, nil
	case typeHugeint, typeUHugeint:
		s := &schema.Schema{Kind: schema.Bytes, Logical: schema.LogicalDecimal, Precision: 38}
		if id == typeUHugeint {
			return s, &fixedEnc{size: 16, put: putUHugeintDecimal}, nil
		}
		return s, &fixedEnc{size: 16, put: putHugeintDecimal}, nil
	case typeDecimal:
		w, sc := int(C.td_decimal_width(t)), int(C.td_decimal_scale(t))
		s := &schema.Schema{Kind: schema.Bytes, Logical: schema.LogicalDecimal, Precision: w, Scale: sc}
		switch C.td_decimal_internal_type(t) {
		case typeSmallint:
			return s, &fixedEnc{size: 2, put: putDecimal16}, nil
		case typeInteger:
			return s, &fixedEnc{size: 4, put: putDecimal32}, nil
		case typeBigint:
			return s, &fixedEnc{size: 8, put: putDecimal64}, nil
		default:
			return s, &fixedEnc{size: 16, put: putHugeintDecimal}, nil
		}
	case typeVarchar:
		return prim(schema.String, ""), &stringEnc{}, nil
	case typeBlob:
		return prim(schema.Bytes, ""), &stringEnc{}, nil
	case typeUUID:
		return prim(schema.String, schema.LogicalUUID), &fixedEnc{size: 16, put: putUUID}, nil
	case typeDate:
		return prim(schema.Int, schema.LogicalDate), &fixedEnc{size: 4, put: putInt32}, nil
	case typeTime:
		return prim(schema.Long, schema.LogicalTimeMicros), &fixedEnc{size: 8, put: putInt64}, nil
	case typeTimestamp:
		return prim(schema.Long, schema.LogicalLocalTimestampMicros), &fixedEnc{size: 8, put: putInt64}, nil
	case typeTimestampS:
		return prim(schema.Long, schema.LogicalLocalTimestampMillis), &fixedEnc{size: 8, put: putSecondsAsMillis}, nil
	case typeTimestampMS:
		return prim(schema.Long, schema.LogicalLocalTimestampMillis), &fixedEnc{size: 8, put: putInt64}, nil
	case typeTimestampNS:
		return prim(schema.Long, schema.LogicalLocalTimestampNanos), &fixedEnc{size: 8, put: putInt64}, nil
	case typeTimestampTZ:
		return prim(schema.Long, schema.LogicalTimestampMicros), &fixedEnc{size: 8, put: putInt64}, nil
	case typeInterval:
		return &schema.Schema{Kind: schema.Fixed, Name: m.name(path), Size: 12, Logical: schema.LogicalDuration}, &fixedEnc{size: 16, put: putInterval}, nil
	case typeSQLNull:
		return prim(schema.Null, ""), nullEnc{}, nil
	case typeEnum:
		n := int(C.td_enum_dictionary_size(t))
		symbols := make([]string, n)
		valid := true
		seen := map[string]bool{}
		for i := range symbols {
			symbols[i] = takeString(C.td_enum_dictionary_value(t, C.idx_t(i)))
			if schema.MakeName(symbols[i]) != symbols[i] || seen[symbols[i]] {
				valid = false
			}
			seen[symbols[i]] = true
		}
		size := map[C.duckdb_type]int{typeUTinyint: 1, typeUSmallint: 2, typeUInteger: 4}[C.td_enum_internal_type(t)]
		if size == 0 {
			return nil, nil, fmt.Errorf("an ENUM of internal type %d", C.td_enum_internal_type(t))
		}
		e := &enumEnc{size: size, symbols: symbols, asEnum: valid && n > 0}
		if e.asEnum {
			return &schema.Schema{Kind: schema.Enum, Name: m.name(path), Symbols: symbols}, e, nil
		}
		return prim(schema.String, ""), e, nil
	case typeList, typeArray:
		var ct C.duckdb_logical_type
		size := 0
		if id == typeList {
			ct = C.td_list_type_child_type(t)
		} else {
			ct = C.td_array_type_child_type(t)
			size = int(C.td_array_type_array_size(t))
		}
		defer C.td_destroy_logical_type(&ct)
		it, ie, err := m.typ(ct, path+"_item", depth+1)
		if err != nil {
			return nil, nil, err
		}
		return &schema.Schema{Kind: schema.Array, Items: nullable(it)}, &listEnc{item: ie, fixed: size}, nil
	case typeMap:
		kt := C.td_map_type_key_type(t)
		defer C.td_destroy_logical_type(&kt)
		vt := C.td_map_type_value_type(t)
		defer C.td_destroy_logical_type(&vt)
		if C.td_get_type_id(kt) == typeVarchar {
			v, ve, err := m.typ(vt, path+"_value", depth+1)
			if err != nil {
				return nil, nil, err
			}
			return &schema.Schema{Kind: schema.Map, Values: nullable(v)}, &mapEnc{value: ve}, nil
		}
		// A map of other keys is an array of key-value records, as
		// trevniarrow writes an Arrow map of other keys.
		fs, es, err := m.fields([]string{"key", "value"}, []C.duckdb_logical_type{kt, vt}, path, depth)
		if err != nil {
			return nil, nil, err
		}
		rec := &schema.Schema{Kind: schema.Record, Name: m.name(path + "_entry"), Fields: fs}
		return &schema.Schema{Kind: schema.Array, Items: nullable(rec)}, &listEnc{item: &structEnc{fields: es}}, nil
	case typeStruct:
		n := int(C.td_struct_type_child_count(t))
		names := make([]string, n)
		types := make([]C.duckdb_logical_type, n)
		for i := range n {
			names[i] = takeString(C.td_struct_type_child_name(t, C.idx_t(i)))
			types[i] = C.td_struct_type_child_type(t, C.idx_t(i))
		}
		defer func() {
			for i := range types {
				C.td_destroy_logical_type(&types[i])
			}
		}()
		fs, es, err := m.fields(names, types, path, depth)
		if err != nil {
			return nil, nil, err
		}
		return &schema.Schema{Kind: schema.Record, Name: m.name(path), Fields: fs}, &structEnc{fields: es}, nil
	case typeUnion:
		n := int(C.td_union_type_member_count(t))
		u := &schema.Schema{Kind: schema.Union, Branches: []*schema.Schema{{Kind: schema.Null}}}
		e := &unionEnc{}
		for i := range n {
			name := takeString(C.td_union_type_member_name(t, C.idx_t(i)))
			mt := C.td_union_type_member_type(t, C.idx_t(i))
			b, be, err := m.typ(mt, path+"_"+name, depth+1)
			C.td_destroy_logical_type(&mt)
			if err != nil {
				return nil, nil, fmt.Errorf("member %s: %w", name, err)
			}
			if b.Kind == schema.Union || b.Kind == schema.Null {
				return nil, nil, fmt.Errorf("member %s: a union or NULL inside a UNION has no Avro type", name)
			}
			u.Branches = append(u.Branches, b)
			e.members = append(e.members, be)
		}
		return u, e, nil
	}
	name := duckTypeNames[id]
	if name == "" {
		name = "of id " + strconv.Itoa(int(id))
	}
	return nil, nil, fmt.Errorf("DuckDB's type %s has no Avro type (cast it, to VARCHAR for instance)", name)
}
