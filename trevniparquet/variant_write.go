package trevniparquet

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/trevniarrow"
)

// Write puts the Variants back: a string marked VariantProp (the JSON
// text of a Parquet VARIANT that fromparquet read) is written as a
// VARIANT group of metadata and value binaries, unshredded, each value
// the Variant encoding of its text (variantEncoder). Such a string is
// found where the Avro schema and the Arrow batch line up: a record's
// field, a nullable union's branch, an array's items, a map's values;
// elsewhere (a branch of a union of several types) it stays a string.

// variantWrite makes the marked strings of Write's batches Variants.
type variantWrite struct {
	// schema is the schema of the batches made.
	schema *arrow.Schema
	mem    memory.Allocator
	enc    variantEncoder
}

// isVariantText says whether s (a nullable union's branch, if one) is a
// string marked VariantProp.
func isVariantText(s *schema.Schema) bool {
	if in := nullable(s); in != nil {
		s = in
	}
	v, _ := s.Prop(VariantProp)
	return s.Kind == schema.String && v == VariantJSON
}

// hasVariantText says whether s holds a string marked VariantProp
// anywhere.
func hasVariantText(s *schema.Schema) bool {
	seen := map[*schema.Schema]bool{}
	var walk func(s *schema.Schema) bool
	walk = func(s *schema.Schema) bool {
		if seen[s] {
			return false
		}
		seen[s] = true
		if isVariantText(s) {
			return true
		}
		for _, f := range s.Fields {
			if walk(f.Type) {
				return true
			}
		}
		for _, b := range s.Branches {
			if walk(b) {
				return true
			}
		}
		return s.Items != nil && walk(s.Items) || s.Values != nil && walk(s.Values)
	}
	return walk(s)
}

// planVariantWrite returns how the batches of as (trevniarrow's, of the
// Avro schema in its metadata) get their Variants, or nil when they have
// none.
func planVariantWrite(as *arrow.Schema, mem memory.Allocator) *variantWrite {
	text, ok := as.Metadata().GetValue(trevniarrow.MetaAvroSchema)
	if !ok {
		return nil
	}
	s, err := schema.Parse(text)
	if err != nil || !hasVariantText(s) {
		return nil
	}
	fields := as.Fields()
	changed := false
	if r := s; r.Kind == schema.Record && len(r.Fields) == len(fields) {
		for i, f := range r.Fields {
			if t, ok := variantArrowType(f.Type, fields[i].Type, 0); ok {
				fields[i].Type, changed = t, true
			}
		}
	} else if len(fields) == 1 {
		// Another type than a record: the one column ValueField.
		if t, ok := variantArrowType(s, fields[0].Type, 0); ok {
			fields[0].Type, changed = t, true
		}
	}
	if !changed {
		return nil
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	md := as.Metadata()
	return &variantWrite{schema: arrow.NewSchema(fields, &md), mem: mem}
}

// variantArrowType returns t (the Arrow type of s) with the strings of
// s marked VariantProp made Variants, and whether any was.
func variantArrowType(s *schema.Schema, t arrow.DataType, depth int) (arrow.DataType, bool) {
	if depth > maxShapeDepth {
		return t, false
	}
	if in := nullable(s); in != nil {
		s = in
	}
	// The item of a map's entries: the Avro map's values, or an array of
	// key-value records marked a map.
	mapItem := func(mt *arrow.MapType, items *schema.Schema) (arrow.DataType, bool) {
		item := mt.ItemField()
		nt, ok := variantArrowType(items, item.Type, depth+1)
		if !ok {
			return t, false
		}
		item.Type = nt
		return arrow.MapOfFields(mt.KeyField(), item), true
	}
	switch s.Kind {
	case schema.String:
		if isVariantText(s) && t.ID() == arrow.STRING {
			return extensions.NewDefaultVariantType(), true
		}
	case schema.Record:
		st, ok := t.(*arrow.StructType)
		if !ok || st.NumFields() != len(s.Fields) {
			return t, false
		}
		fields := st.Fields()
		changed := false
		for i, f := range s.Fields {
			if nt, ok := variantArrowType(f.Type, fields[i].Type, depth+1); ok {
				fields[i].Type, changed = nt, true
			}
		}
		if changed {
			return arrow.StructOf(fields...), true
		}
	case schema.Array:
		switch lt := t.(type) {
		case *arrow.ListType:
			elem := lt.ElemField()
			if nt, ok := variantArrowType(s.Items, elem.Type, depth+1); ok {
				elem.Type = nt
				return arrow.ListOfField(elem), true
			}
		case *arrow.MapType:
			if s.Items.Kind == schema.Record && len(s.Items.Fields) == 2 {
				return mapItem(lt, s.Items.Fields[1].Type)
			}
		}
	case schema.Map:
		if mt, ok := t.(*arrow.MapType); ok {
			return mapItem(mt, s.Values)
		}
	}
	return t, false
}

// batch returns rec with its Variants encoded; first, the number of
// records written before rec, locates errors.
func (w *variantWrite) batch(rec arrow.RecordBatch, first int64) (arrow.RecordBatch, error) {
	return rebuildBatch(rec, w.schema, w.data, func(row int, err error) error {
		return fmt.Errorf("record %d, %w", first+int64(row), err)
	})
}

// data returns d with the strings that are Variants in nt (variantArrowType's
// type of d's) encoded; path names d as the Avro fields do.
func (w *variantWrite) data(d arrow.ArrayData, nt arrow.DataType, path string) (arrow.ArrayData, error) {
	return rebuild(d, nt, path, 0, avroChildren, func(d arrow.ArrayData, nt arrow.DataType, path string) (arrow.ArrayData, error) {
		vt, ok := nt.(*extensions.VariantType)
		if !ok {
			d.Retain()
			return d, nil
		}
		return w.encodeColumn(d, vt, path)
	})
}

// avroChildren name the children of a path as Avro fields do: an
// array's items and a map's values (path.value).
var avroChildren = childNames{list: "[]"}

// encodeColumn returns the Variants of the JSON texts of string array d
// (null where d is).
func (w *variantWrite) encodeColumn(d arrow.ArrayData, vt *extensions.VariantType, path string) (arrow.ArrayData, error) {
	if d.DataType().ID() != arrow.STRING {
		return nil, fmt.Errorf("column %s: a VARIANT's JSON text of Arrow type %s", path, d.DataType())
	}
	texts := array.NewStringData(d)
	defer texts.Release()
	sb := array.NewStructBuilder(w.mem, vt.StorageType().(*arrow.StructType))
	defer sb.Release()
	mb := sb.FieldBuilder(0).(*array.BinaryBuilder)
	vb := sb.FieldBuilder(1).(*array.BinaryBuilder)
	n := texts.Len()
	sb.Reserve(n)
	mb.Reserve(n)
	vb.Reserve(n)
	vb.ReserveData(len(texts.ValueBytes()))
	for i := range n {
		if texts.IsNull(i) {
			sb.Append(false) // and a null to each child
			continue
		}
		meta, value, err := w.enc.encode(texts.Value(i))
		if err != nil {
			return nil, &variantRowError{row: i, err: fmt.Errorf("column %s: the JSON text of a Parquet VARIANT: %w", path, err)}
		}
		sb.Append(true)
		mb.Append(meta)
		vb.Append(value)
	}
	st := sb.NewStructArray()
	defer st.Release()
	ext := array.NewExtensionArrayWithStorage(vt, st)
	defer ext.Release()
	out := ext.Data()
	out.Retain()
	return out, nil
}
