package trevnisql

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DuckDB 1.5.6's Arrow import fails, with an internal error that ends the
// database, on a dictionary inside a list (an Avro array of enums, or a
// map of them). Such batches are given to it with every dictionary below
// a list decoded into its strings: the column is a list of VARCHAR, as a
// top-level enum is a VARCHAR.

// plainType returns dt with every dictionary that is inside a list (or a
// map) replaced by its value type, and whether it replaced one.
func plainType(dt arrow.DataType, inList bool) (arrow.DataType, bool) {
	switch t := dt.(type) {
	case *arrow.DictionaryType:
		if inList {
			return t.ValueType, true
		}
	case *arrow.MapType:
		k, kc := plainType(t.KeyType(), true)
		v, vc := plainType(t.ItemField().Type, true)
		if kc || vc {
			m := arrow.MapOfWithMetadata(k, t.KeyField().Metadata, v, t.ItemField().Metadata)
			m.SetItemNullable(t.ItemField().Nullable)
			return m, true
		}
	case *arrow.ListType:
		f := t.ElemField()
		if et, c := plainType(f.Type, true); c {
			f.Type = et
			return arrow.ListOfField(f), true
		}
	case *arrow.StructType:
		fields := t.Fields()
		changed := false
		for i := range fields {
			if ft, c := plainType(fields[i].Type, inList); c {
				fields[i].Type, changed = ft, true
			}
		}
		if changed {
			return arrow.StructOf(fields...), true
		}
	}
	return dt, false
}

// plainSchema returns s with plainType applied to its fields' types, and
// whether that changed one.
func plainSchema(s *arrow.Schema) (*arrow.Schema, bool) {
	fields := s.Fields()
	changed := false
	for i := range fields {
		if ft, c := plainType(fields[i].Type, false); c {
			fields[i].Type, changed = ft, true
		}
	}
	if !changed {
		return s, false
	}
	md := s.Metadata()
	return arrow.NewSchema(fields, &md), true
}

// plainRecord returns rec's columns as the schema ps (plainSchema of
// rec's) has them. The caller releases it.
func plainRecord(rec arrow.RecordBatch, ps *arrow.Schema) arrow.RecordBatch {
	cols := make([]arrow.Array, rec.NumCols())
	for i := range cols {
		d := plainData(rec.Column(i).Data(), ps.Field(i).Type)
		cols[i] = array.MakeFromData(d)
		d.Release()
	}
	out := array.NewRecordBatch(ps, cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out
}

// plainData returns d as type to (plainType of d's type): dictionaries
// decoded, every other buffer shared. The caller releases it.
func plainData(d arrow.ArrayData, to arrow.DataType) arrow.ArrayData {
	if arrow.TypeEqual(d.DataType(), to) {
		d.Retain()
		return d
	}
	if _, ok := d.DataType().(*arrow.DictionaryType); ok {
		dict := array.MakeFromData(d).(*array.Dictionary)
		defer dict.Release()
		values := dict.Dictionary().(*array.String)
		b := array.NewStringBuilder(memory.DefaultAllocator)
		defer b.Release()
		b.Reserve(dict.Len())
		for i := range dict.Len() {
			if dict.IsNull(i) {
				b.AppendNull()
			} else {
				b.Append(values.Value(dict.GetValueIndex(i)))
			}
		}
		a := b.NewArray()
		defer a.Release()
		out := a.Data()
		out.Retain()
		return out
	}
	children := d.Children()
	plain := make([]arrow.ArrayData, len(children))
	for i, c := range children {
		plain[i] = plainData(c, childType(to, i))
	}
	out := array.NewData(to, d.Len(), d.Buffers(), plain, d.NullN(), d.Offset())
	for _, c := range plain {
		c.Release()
	}
	return out
}

// childType returns the type of the i-th child of a nested type's data.
func childType(dt arrow.DataType, i int) arrow.DataType {
	switch t := dt.(type) {
	case *arrow.MapType:
		return t.Elem()
	case arrow.ListLikeType:
		return t.Elem()
	case *arrow.StructType:
		return t.Field(i).Type
	}
	return nil
}
