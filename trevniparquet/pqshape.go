package trevniparquet

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"
)

// Parquet's rules for lists written before the three-level LIST layout
// (LogicalTypes.md, "Backward-compatibility rules") make the repeated
// group of a list its element when the group is named "array" or
// "NAME_tuple". parquet-avro writes a list of lists so (its default,
// old-list structure):
//
//	optional group a (LIST) {
//	  repeated group array (LIST) {
//	    repeated int32 array;
//	  }
//	}
//
// which is a list of lists of ints, as DuckDB, Spark and parquet-java
// read it. arrow-go (v18.8.0) takes the element group for a struct
// whatever its own annotation, and reads list<struct<array: list<int32>>>.
// A shape undoes that: a struct of one field whose Parquet group is
// annotated LIST or MAP becomes its one field's value.

// shape says how to change the arrays of one Arrow type; nil changes
// nothing.
type shape struct {
	// unwrap replaces a struct of one field by that field.
	unwrap bool
	// toMap makes a list of key-value structs a map (a MAP whose
	// annotations fixFooter dropped, its keys optional), named name.
	toMap bool
	name  string
	// kids are the shapes of the type's children: a struct's fields, a
	// list's element, a map's entries struct.
	kids []*shape
}

// fileShapes returns the shape of each column of the manifest (nil for
// those unchanged), and nil when no column changes. fix names the MAP
// groups whose annotations the footer lost (nil when none).
func fileShapes(m *pqarrow.SchemaManifest, descr *pqschema.Schema, fix *footerFix) []*shape {
	if m == nil || descr == nil || len(m.Fields) != descr.Root().NumFields() {
		return nil
	}
	maps := fixedMaps(descr, fix)
	out := make([]*shape, len(m.Fields))
	any := false
	for i := range m.Fields {
		out[i] = nodeShape(&m.Fields[i], descr.Root().Field(i), 0, maps)
		any = any || out[i] != nil
	}
	if !any {
		return nil
	}
	return out
}

// isListOrMap says whether a Parquet node is a group annotated LIST or
// MAP (or MAP_KEY_VALUE, the old name).
func isListOrMap(n pqschema.Node) bool {
	g, ok := n.(*pqschema.GroupNode)
	if !ok {
		return false
	}
	lt := g.LogicalType()
	return lt.Equals(pqschema.NewListLogicalType()) || lt.Equals(pqschema.MapLogicalType{}) ||
		g.ConvertedType() == pqschema.ConvertedTypes.MapKeyValue
}

// nodeShape returns the shape of sf, which pqarrow made of Parquet node
// n, or nil when nothing in it changes (or it is not the shape expected:
// it is then left as pqarrow reads it).
func nodeShape(sf *pqarrow.SchemaField, n pqschema.Node, depth int, maps map[pqschema.Node]bool) *shape {
	if sf.IsLeaf() || depth > maxShapeDepth {
		return nil
	}
	if maps[n] {
		return mapShape(sf, n, depth, maps)
	}
	g, ok := n.(*pqschema.GroupNode)
	if !ok && n.RepetitionType() != parquet.Repetitions.Repeated {
		return nil
	}
	var kids []pqschema.Node // the Parquet node of each child of sf
	switch t := sf.Field.Type.(type) {
	case *arrow.StructType:
		if g == nil || g.NumFields() != len(sf.Children) || t.NumFields() != len(sf.Children) {
			return nil
		}
		for i := range g.NumFields() {
			kids = append(kids, g.Field(i))
		}
		s := childShapes(sf, kids, depth, maps)
		if isListOrMap(g) && len(sf.Children) == 1 && g.RepetitionType() == parquet.Repetitions.Repeated {
			if s == nil {
				s = &shape{kids: make([]*shape, 1)}
			}
			s.unwrap = true
		}
		return s
	case *arrow.ListType:
		switch {
		case n.RepetitionType() == parquet.Repetitions.Repeated:
			// A repeated field outside a LIST: its elements are
			// the node itself.
			kids = []pqschema.Node{n}
			if g != nil && len(sf.Children) == 1 && !sf.Children[0].IsLeaf() {
				return childStructShape(sf, g, depth, maps)
			}
		case g != nil && g.NumFields() == 1:
			ln := g.Field(0)
			lg, isGroup := ln.(*pqschema.GroupNode)
			if isGroup && lg.NumFields() == 1 && lg.Name() != "array" && lg.Name() != g.Name()+"_tuple" {
				kids = []pqschema.Node{lg.Field(0)}
			} else {
				kids = []pqschema.Node{ln}
			}
		default:
			return nil
		}
		return childShapes(sf, kids, depth, maps)
	case *arrow.MapType:
		if g == nil || g.NumFields() != 1 || len(sf.Children) != 1 {
			return nil
		}
		return childShapes(sf, []pqschema.Node{g.Field(0)}, depth, maps)
	}
	return nil
}

// childStructShape is the shape of a list pqarrow made of a repeated group
// outside a LIST: its element is the struct of the group's fields.
func childStructShape(sf *pqarrow.SchemaField, g *pqschema.GroupNode, depth int, maps map[pqschema.Node]bool) *shape {
	el := &sf.Children[0]
	if len(el.Children) != g.NumFields() {
		return nil
	}
	kids := make([]pqschema.Node, g.NumFields())
	for i := range kids {
		kids[i] = g.Field(i)
	}
	s := childShapes(el, kids, depth+1, maps)
	if s == nil {
		return nil
	}
	return &shape{kids: []*shape{s}}
}

// childShapes returns the shape of sf whose children are made of the
// Parquet nodes kids, or nil when none changes.
func childShapes(sf *pqarrow.SchemaField, kids []pqschema.Node, depth int, maps map[pqschema.Node]bool) *shape {
	if len(kids) != len(sf.Children) {
		return nil
	}
	var s *shape
	for i := range kids {
		if k := nodeShape(&sf.Children[i], kids[i], depth+1, maps); k != nil {
			if s == nil {
				s = &shape{kids: make([]*shape, len(kids))}
			}
			s.kids[i] = k
		}
	}
	return s
}

// maxShapeDepth bounds the nesting a shape is looked for in (a Parquet
// schema nests as deep as its footer says).
const maxShapeDepth = 256

// field returns f with its type shaped.
func (s *shape) field(f arrow.Field) arrow.Field {
	if s == nil {
		return f
	}
	switch t := f.Type.(type) {
	case *arrow.StructType:
		fields := t.Fields()
		for i := range fields {
			if i < len(s.kids) {
				fields[i] = s.kids[i].field(fields[i])
			}
		}
		if s.unwrap && len(fields) == 1 {
			inner := fields[0]
			inner.Name, inner.Metadata = f.Name, f.Metadata
			inner.Nullable = inner.Nullable || f.Nullable
			return inner
		}
		f.Type = arrow.StructOf(fields...)
	case *arrow.ListType:
		if len(s.kids) != 1 {
			break
		}
		el := s.kids[0].field(t.ElemField())
		f.Type = arrow.ListOfField(el)
		if st, ok := el.Type.(*arrow.StructType); ok && s.toMap && st.NumFields() == 2 {
			mt := arrow.MapOfWithMetadata(st.Field(0).Type, st.Field(0).Metadata, st.Field(1).Type, st.Field(1).Metadata)
			mt.SetItemNullable(st.Field(1).Nullable)
			f.Type = mt
		}
	case *arrow.MapType:
		if len(s.kids) == 1 {
			kv := s.kids[0].field(t.ElemField())
			if st, ok := kv.Type.(*arrow.StructType); ok && st.NumFields() == 2 {
				mt := arrow.MapOfWithMetadata(st.Field(0).Type, st.Field(0).Metadata, st.Field(1).Type, st.Field(1).Metadata)
				mt.SetItemNullable(st.Field(1).Nullable)
				f.Type = mt
			}
		}
	}
	return f
}

// data returns the array data d (of field f's type before shaping) shaped,
// as a new reference.
func (s *shape) data(f arrow.Field, d arrow.ArrayData) (arrow.ArrayData, error) {
	if s == nil {
		d.Retain()
		return d, nil
	}
	nf := s.field(f)
	switch t := f.Type.(type) {
	case *arrow.StructType:
		kids := make([]arrow.ArrayData, len(d.Children()))
		defer func() {
			for _, k := range kids {
				if k != nil {
					k.Release()
				}
			}
		}()
		for i, c := range d.Children() {
			var ks *shape
			if i < len(s.kids) {
				ks = s.kids[i]
			}
			k, err := ks.data(t.Field(i), c)
			if err != nil {
				return nil, err
			}
			kids[i] = k
		}
		if s.unwrap && len(kids) == 1 {
			isMap := len(s.kids) == 1 && s.kids[0] != nil && s.kids[0].toMap
			if d.NullN() > 0 && !isMap {
				return nil, fmt.Errorf("a null element of a list of field %s", f.Name)
			}
			k := array.NewSliceData(kids[0], int64(d.Offset()), int64(d.Offset()+d.Len()))
			if d.NullN() == 0 {
				return k, nil
			}
			defer k.Release()
			return nullWhere(f.Name, d, k)
		}
		return array.NewData(nf.Type, d.Len(), d.Buffers(), kids, d.NullN(), d.Offset()), nil
	case *arrow.ListType, *arrow.MapType:
		if len(s.kids) != 1 || len(d.Children()) != 1 {
			d.Retain()
			return d, nil
		}
		var elem arrow.Field
		if lt, ok := t.(*arrow.ListType); ok {
			elem = lt.ElemField()
		} else {
			elem = t.(*arrow.MapType).ElemField()
		}
		k, err := s.kids[0].data(elem, d.Children()[0])
		if err != nil {
			return nil, err
		}
		defer k.Release()
		if mt, ok := nf.Type.(*arrow.MapType); ok && s.toMap {
			if len(k.Children()) != 2 {
				return nil, fmt.Errorf("map %s: entries of %d fields", f.Name, len(k.Children()))
			}
			if err := noNullKeys(s.name, d, k); err != nil {
				return nil, err
			}
			k = array.NewData(mt.Elem(), k.Len(), k.Buffers(), k.Children(), k.NullN(), k.Offset())
			defer k.Release()
		}
		return array.NewData(nf.Type, d.Len(), d.Buffers(), []arrow.ArrayData{k}, d.NullN(), d.Offset()), nil
	}
	d.Retain()
	return d, nil
}

// shapeSchema returns as with its columns shaped.
func shapeSchema(as *arrow.Schema, shapes []*shape) *arrow.Schema {
	if shapes == nil || len(shapes) != as.NumFields() {
		return as
	}
	fields := as.Fields()
	for i := range fields {
		fields[i] = shapes[i].field(fields[i])
	}
	md := as.Metadata()
	return arrow.NewSchema(fields, &md)
}

// shapeBatch returns rec, of the schema before shaping, shaped to as (a
// new reference; rec itself when nothing changes, retained).
func shapeBatch(rec arrow.RecordBatch, as *arrow.Schema, shapes []*shape) (arrow.RecordBatch, error) {
	if shapes == nil {
		rec.Retain()
		return rec, nil
	}
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i := range cols {
		d, err := shapes[i].data(rec.Schema().Field(i), rec.Column(i).Data())
		if err != nil {
			return nil, err
		}
		cols[i] = array.MakeFromData(d)
		d.Release()
	}
	return array.NewRecordBatch(as, cols, rec.NumRows()), nil
}

// fixedMaps returns the Parquet nodes of the MAP groups fix names, found
// by their paths in descr.
func fixedMaps(descr *pqschema.Schema, fix *footerFix) map[pqschema.Node]bool {
	if fix == nil || len(fix.maps) == 0 {
		return nil
	}
	out := map[pqschema.Node]bool{}
	for _, path := range fix.maps {
		var n pqschema.Node = descr.Root()
		for _, name := range path {
			g, ok := n.(*pqschema.GroupNode)
			if !ok {
				n = nil
				break
			}
			i := g.FieldIndexByName(name)
			if i < 0 {
				n = nil
				break
			}
			n = g.Field(i)
		}
		if n != nil {
			out[n] = true
		}
	}
	return out
}

// mapShape is the shape of a MAP group n whose annotations the footer
// lost (its keys optional), which pqarrow reads as a struct of one list
// of key-value structs: the struct unwrapped, the list a map.
func mapShape(sf *pqarrow.SchemaField, n pqschema.Node, depth int, maps map[pqschema.Node]bool) *shape {
	g, ok := n.(*pqschema.GroupNode)
	if !ok || g.NumFields() != 1 || len(sf.Children) != 1 {
		return nil
	}
	kv, ok := g.Field(0).(*pqschema.GroupNode)
	list := &sf.Children[0]
	if !ok || kv.NumFields() != 2 || len(list.Children) != 1 {
		return nil
	}
	if _, ok := list.Field.Type.(*arrow.ListType); !ok {
		return nil
	}
	el := &list.Children[0]
	if st, ok := el.Field.Type.(*arrow.StructType); !ok || st.NumFields() != 2 {
		return nil
	}
	entries := childShapes(el, []pqschema.Node{kv.Field(0), kv.Field(1)}, depth+2, maps)
	return &shape{unwrap: true, kids: []*shape{{toMap: true, name: n.Name(), kids: []*shape{entries}}}}
}

// noNullKeys returns an error when a map entry of list d (entries k) that
// a row holds has a null key, which a map cannot.
func noNullKeys(name string, d, k arrow.ArrayData) error {
	keys := k.Children()[0]
	if keys.NullN() == 0 {
		return nil
	}
	list := array.NewListData(d)
	defer list.Release()
	kr := array.MakeFromData(keys)
	defer kr.Release()
	for i := range list.Len() {
		if list.IsNull(i) {
			continue
		}
		lo, hi := list.ValueOffsets(i)
		for j := lo; j < hi; j++ {
			if kr.IsNull(int(j) + k.Offset()) {
				return fmt.Errorf("map %s: a null key (row %d of the batch): a map's keys cannot be null", name, i)
			}
		}
	}
	return nil
}

// nullWhere returns map k (a slice of the child of struct d, the same
// rows) null where d is: a MAP group that is null is a null map. The map
// pqarrow reads under a null group must be null or empty.
func nullWhere(name string, d, k arrow.ArrayData) (arrow.ArrayData, error) {
	st := array.MakeFromData(d)
	defer st.Release()
	m := array.NewMapData(k)
	defer m.Release()
	bits := make([]byte, (k.Offset()+k.Len()+7)/8)
	nulls := 0
	for i := range m.Len() {
		lo, hi := m.ValueOffsets(i)
		switch {
		case st.IsNull(i) && hi > lo:
			return nil, fmt.Errorf("map %s: entries under a null group (row %d of the batch)", name, i)
		case st.IsNull(i) || m.IsNull(i):
			nulls++
		default:
			bitutil.SetBit(bits, k.Offset()+i)
		}
	}
	buf := memory.NewBufferBytes(bits)
	defer buf.Release()
	return array.NewData(k.DataType(), k.Len(), []*memory.Buffer{buf, k.Buffers()[1]}, k.Children(), nulls, k.Offset()), nil
}
