package duckscan

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/trevni-go/trevni/schema"
)

// DuckDB 1.5.6's Arrow import has two gaps that the batches are reshaped
// around before DuckDB sees them:
//
//   - it reads sparse unions only (a dense union is "Unsupported Internal
//     Arrow Type"): the batches are read with unions as structs of a
//     nullable field per non-null branch (trevniarrow's UnionsAsStructs),
//     and each such struct becomes a sparse union of those fields, its
//     type ids telling the field set. A row of the null branch has no
//     field set: its type id is the first branch's, whose value there is
//     null, which DuckDB reads as a NULL union.
//   - it fails, with an internal error that ends the database, on a
//     dictionary inside a list (an Avro array or map of enums): every
//     dictionary below a list is decoded into its strings (a VARCHAR, as
//     DuckDB reads a top-level enum anyway).

// duckType returns the type DuckDB is given for the Arrow type dt, which
// trevniarrow mapped the Avro schema s to, and whether it differs. inList
// tells that dt is inside a list or map.
func duckType(s *schema.Schema, dt arrow.DataType, inList bool) (arrow.DataType, bool) {
	s = nonNull(s)
	switch t := dt.(type) {
	case *arrow.DictionaryType:
		if inList {
			return t.ValueType, true
		}
	case *arrow.MapType:
		var vs *schema.Schema
		if s != nil && s.Kind == schema.Map {
			vs = s.Values
		}
		v, vc := duckType(vs, t.ItemField().Type, true)
		if vc {
			m := arrow.MapOfWithMetadata(t.KeyType(), t.KeyField().Metadata, v, t.ItemField().Metadata)
			m.SetItemNullable(t.ItemField().Nullable)
			return m, true
		}
	case *arrow.ListType:
		var is *schema.Schema
		if s != nil && s.Kind == schema.Array {
			is = s.Items
		}
		f := t.ElemField()
		if et, c := duckType(is, f.Type, true); c {
			f.Type = et
			return arrow.ListOfField(f), true
		}
	case *arrow.StructType:
		fields := t.Fields()
		var fs []*schema.Schema // the Avro schema of each field
		union := false
		switch {
		case s != nil && s.Kind == schema.Record && len(s.Fields) == len(fields):
			for _, f := range s.Fields {
				fs = append(fs, f.Type)
			}
		case s != nil && s.Kind == schema.Union:
			for _, b := range s.Branches {
				if b.Kind != schema.Null {
					fs = append(fs, b)
				}
			}
			union = len(fs) == len(fields) && len(fields) > 0
		}
		changed := union
		for i := range fields {
			var f *schema.Schema
			if i < len(fs) {
				f = fs[i]
			}
			if ft, c := duckType(f, fields[i].Type, inList); c {
				fields[i].Type, changed = ft, true
			}
		}
		if union {
			codes := make([]arrow.UnionTypeCode, len(fields))
			for i := range codes {
				codes[i] = arrow.UnionTypeCode(i)
				fields[i].Nullable = true
			}
			return arrow.SparseUnionOf(fields, codes), true
		}
		if changed {
			return arrow.StructOf(fields...), true
		}
	}
	return dt, false
}

// nonNull returns T for the union ["null", T] or [T, "null"], else s.
func nonNull(s *schema.Schema) *schema.Schema {
	if s == nil || s.Kind != schema.Union || len(s.Branches) != 2 {
		return s
	}
	switch {
	case s.Branches[0].Kind == schema.Null:
		return s.Branches[1]
	case s.Branches[1].Kind == schema.Null:
		return s.Branches[0]
	}
	return s
}

// duckSchema returns the schema DuckDB is given for the batches of
// schema as (the Arrow mapping of the record schema s), and whether it
// differs.
func duckSchema(s *schema.Schema, as *arrow.Schema) (*arrow.Schema, bool) {
	fields := as.Fields()
	changed := false
	for i := range fields {
		var f *schema.Schema
		if s.Kind == schema.Record {
			for _, sf := range s.Fields {
				if sf.Name == fields[i].Name {
					f = sf.Type
				}
			}
		} else if len(fields) == 1 {
			f = s
		}
		if ft, c := duckType(f, fields[i].Type, false); c {
			fields[i].Type, changed = ft, true
		}
	}
	if !changed {
		return as, false
	}
	md := as.Metadata()
	return arrow.NewSchema(fields, &md), true
}

// duckRecord returns rec's columns as the schema ds (duckSchema of rec's)
// has them. The caller releases it.
func duckRecord(rec arrow.RecordBatch, ds *arrow.Schema) arrow.RecordBatch {
	cols := make([]arrow.Array, rec.NumCols())
	for i := range cols {
		d := duckData(rec.Column(i).Data(), ds.Field(i).Type)
		cols[i] = array.MakeFromData(d)
		d.Release()
	}
	out := array.NewRecordBatch(ds, cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out
}

// duckData returns d as type to (duckType of d's type): dictionaries
// decoded, union structs made sparse unions, every other buffer shared.
// The caller releases it.
func duckData(d arrow.ArrayData, to arrow.DataType) arrow.ArrayData {
	if arrow.TypeEqual(d.DataType(), to) {
		d.Retain()
		return d
	}
	if _, ok := d.DataType().(*arrow.DictionaryType); ok {
		return decodeDictionary(d)
	}
	children := d.Children()
	conv := make([]arrow.ArrayData, len(children))
	for i, c := range children {
		conv[i] = duckData(c, childType(to, i))
	}
	defer func() {
		for _, c := range conv {
			c.Release()
		}
	}()
	if _, ok := to.(*arrow.SparseUnionType); ok {
		return sparseUnion(d, to, conv)
	}
	return array.NewData(to, d.Len(), d.Buffers(), conv, d.NullN(), d.Offset())
}

// decodeDictionary returns the strings of a dictionary array of strings.
func decodeDictionary(d arrow.ArrayData) arrow.ArrayData {
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

// sparseUnion returns the union struct d (a nullable field per branch,
// the one set telling the branch) as the sparse union to of its fields
// children.
func sparseUnion(d arrow.ArrayData, to arrow.DataType, children []arrow.ArrayData) arrow.ArrayData {
	off, n := d.Offset(), d.Len()
	fields := make([]arrow.Array, len(children))
	for i, c := range children {
		fields[i] = array.MakeFromData(c)
		defer fields[i].Release()
	}
	ids := memory.NewResizableBuffer(memory.DefaultAllocator)
	defer ids.Release()
	ids.Resize(off + n)
	b := ids.Bytes()
	for i := range off + n {
		b[i] = 0
		if i < off {
			continue
		}
		for k, f := range fields {
			if f.IsValid(i) {
				b[i] = byte(k)
				break
			}
		}
	}
	return array.NewData(to, n, []*memory.Buffer{nil, ids}, children, 0, off)
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
	case *arrow.SparseUnionType:
		return t.Fields()[i].Type
	}
	return nil
}
