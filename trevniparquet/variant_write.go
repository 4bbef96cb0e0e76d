package trevniparquet

import (
	"errors"
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
	if in := nonNull(s); in != nil {
		s = in
	}
	v, _ := s.Prop(VariantProp)
	return s.Kind == schema.String && v == VariantJSON
}

// nonNull returns the other branch of a union of null and one type, or
// nil.
func nonNull(s *schema.Schema) *schema.Schema {
	if s.Kind != schema.Union || len(s.Branches) != 2 {
		return nil
	}
	switch {
	case s.Branches[0].Kind == schema.Null && s.Branches[1].Kind != schema.Null:
		return s.Branches[1]
	case s.Branches[1].Kind == schema.Null && s.Branches[0].Kind != schema.Null:
		return s.Branches[0]
	}
	return nil
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
	if in := nonNull(s); in != nil {
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
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i := range cols {
		nt := w.schema.Field(i).Type
		if arrow.TypeEqual(rec.Column(i).DataType(), nt) {
			cols[i] = rec.Column(i)
			cols[i].Retain()
			continue
		}
		d, err := w.data(rec.Column(i).Data(), nt, w.schema.Field(i).Name, 0)
		if err != nil {
			var ve *variantRowError
			if errors.As(err, &ve) {
				return nil, fmt.Errorf("record %d, %w", first+int64(ve.row), ve.err)
			}
			return nil, err
		}
		cols[i] = array.MakeFromData(d)
		d.Release()
	}
	return array.NewRecordBatch(w.schema, cols, rec.NumRows()), nil
}

// data returns d with the strings that are Variants in nt (variantArrowType's
// type of d's) encoded; path names d as the Avro fields do.
func (w *variantWrite) data(d arrow.ArrayData, nt arrow.DataType, path string, depth int) (arrow.ArrayData, error) {
	if arrow.TypeEqual(d.DataType(), nt) || depth > maxShapeDepth {
		d.Retain()
		return d, nil
	}
	switch t := nt.(type) {
	case *extensions.VariantType:
		return w.encodeColumn(d, t, path)
	case *arrow.StructType:
		kids := make([]arrow.ArrayData, len(d.Children()))
		for i, k := range d.Children() {
			nk, err := w.data(k, t.Field(i).Type, path+"."+t.Field(i).Name, depth+1)
			if err != nil {
				releaseAll(kids)
				// The child's rows are the struct's.
				var ve *variantRowError
				if errors.As(err, &ve) {
					ve.row += k.Offset() - d.Offset()
				}
				return nil, err
			}
			kids[i] = nk
		}
		defer releaseAll(kids)
		return array.NewData(nt, d.Len(), d.Buffers(), kids, d.NullN(), d.Offset()), nil
	case *arrow.ListType, *arrow.MapType:
		k := d.Children()[0]
		var elem arrow.DataType
		if mt, ok := t.(*arrow.MapType); ok {
			elem, path = mt.Elem(), path+"{}"
		} else {
			elem, path = t.(*arrow.ListType).Elem(), path+"[]"
		}
		nk, err := w.data(k, elem, path, depth+1)
		if err != nil {
			var ve *variantRowError
			if errors.As(err, &ve) {
				ve.row = listRow(d, k.Offset()+ve.row)
			}
			return nil, err
		}
		defer nk.Release()
		return array.NewData(nt, d.Len(), d.Buffers(), []arrow.ArrayData{nk}, d.NullN(), d.Offset()), nil
	}
	d.Retain()
	return d, nil
}

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
