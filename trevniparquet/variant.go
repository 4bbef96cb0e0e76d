package trevniparquet

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/trevni-go/trevni/schema"
)

// A Parquet VARIANT column (a group of metadata and value binaries and,
// shredded, typed_value columns; parquet-format's VariantEncoding.md and
// VariantShredding.md) is read as the JSON text of its values: an Avro
// string marked by the property VariantProp. The shredded columns are
// put back into their values as the shredding spec says (the residual
// value object and the shredded fields merged, a value and a typed_value
// both null a missing field), straight into the text, which is rendered
// as DuckDB renders `v::JSON` (docs/arrow.md).

// VariantProp is the property of the Avro string schema of a column read
// from a Parquet VARIANT, whose values are JSON text; its value is
// VariantJSON.
const VariantProp = "parquet.variant"

// VariantJSON is VariantProp's value: the string is the JSON text of the
// Variant value.
const VariantJSON = "json"

// variantPlan makes the Variant columns of a file's batches text.
type variantPlan struct {
	// shaped is the schema of the batches before, schema after.
	shaped, schema *arrow.Schema
	// paths are the Arrow paths of the Variants (a list's element and a
	// map's value as "[]" and "{}"), for the Avro schema.
	paths [][]string
}

// planVariants returns the plan of the Variants of as (shaped), nil when
// it has none, or an error naming a Variant whose shredding the spec does
// not allow.
func planVariants(as *arrow.Schema) (*variantPlan, error) {
	vp := &variantPlan{shaped: as}
	fields := as.Fields()
	changed := false
	for i, f := range fields {
		t, ok, err := vp.textType(f.Type, []string{f.Name}, 0)
		if err != nil {
			return nil, err
		}
		if ok {
			fields[i].Type, changed = t, true
		}
	}
	if !changed {
		return nil, nil
	}
	md := as.Metadata()
	vp.schema = arrow.NewSchema(fields, &md)
	return vp, nil
}

// checkVariantGroups checks the shredded groups of the VARIANT groups
// under n (path its name, "" for the root) before arrow-go reads the
// schema: a shredded object's field and an array's element must be
// required groups (VariantShredding.md), which arrow-go refuses, naming
// no column, when they are not.
func checkVariantGroups(n pqschema.Node, path string, depth int) error {
	g, ok := n.(*pqschema.GroupNode)
	if !ok || depth > maxShapeDepth {
		return nil
	}
	variant := false
	if _, ok := g.LogicalType().(pqschema.VariantLogicalType); ok {
		variant = true
	}
	for i := range g.NumFields() {
		f := g.Field(i)
		p := f.Name()
		if path != "" {
			p = path + "." + p
		}
		if variant && f.Name() == "typed_value" {
			if err := checkShreddedGroups(f, p, depth+1); err != nil {
				return err
			}
			continue
		}
		if err := checkVariantGroups(f, p, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// checkShreddedGroups checks typed_value node n (at path).
func checkShreddedGroups(n pqschema.Node, path string, depth int) error {
	g, ok := n.(*pqschema.GroupNode)
	if !ok {
		return nil
	}
	if depth > maxVariantDepth {
		return fmt.Errorf("Parquet column %s: a shredded VARIANT nested deeper than %d", path, maxVariantDepth)
	}
	isList := false
	if _, ok := g.LogicalType().(pqschema.ListLogicalType); ok {
		isList = true
	}
	for i := range g.NumFields() {
		f := g.Field(i)
		p := path + "." + f.Name()
		if isList {
			// repeated group list { required group element { ... } }
			lg, ok := f.(*pqschema.GroupNode)
			if !ok || lg.NumFields() != 1 {
				return fmt.Errorf("Parquet column %s: a shredded Variant array that is not a three-level list", p)
			}
			f, p = lg.Field(0), p+"."+lg.Field(0).Name()
		}
		what := "object field"
		if isList {
			what = "array element"
		}
		fg, ok := f.(*pqschema.GroupNode)
		if !ok || f.RepetitionType() != parquet.Repetitions.Required {
			return fmt.Errorf("Parquet column %s: a shredded Variant %s that is not a required group of value and typed_value, as the Variant shredding spec wants it", p, what)
		}
		for k := range fg.NumFields() {
			if fg.Field(k).Name() == "typed_value" {
				if err := checkShreddedGroups(fg.Field(k), p+".typed_value", depth+1); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// textSchema returns as (another schema of the same columns, such as the
// hinted one) with its Variants as strings.
func (vp *variantPlan) textSchema(as *arrow.Schema) *arrow.Schema {
	fields := as.Fields()
	for i, f := range fields {
		if t, ok, err := (&variantPlan{}).textType(f.Type, nil, 0); err == nil && ok {
			fields[i].Type = t
		}
	}
	md := as.Metadata()
	return arrow.NewSchema(fields, &md)
}

// textType returns t with each Variant in it a string, and whether any
// was; path is t's, and each Variant's is added to vp.paths.
func (vp *variantPlan) textType(t arrow.DataType, path []string, depth int) (arrow.DataType, bool, error) {
	if depth > maxShapeDepth {
		return t, false, nil
	}
	switch tt := t.(type) {
	case *extensions.VariantType:
		st, ok := tt.StorageType().(*arrow.StructType)
		if !ok {
			return t, false, fmt.Errorf("Parquet column %s: a VARIANT that is not a group", joinPath(path))
		}
		if err := checkVariantStorage(st, joinPath(path)); err != nil {
			return t, false, err
		}
		vp.paths = append(vp.paths, slices.Clone(path))
		return arrow.BinaryTypes.String, true, nil
	case *arrow.StructType:
		fs := tt.Fields()
		changed := false
		for i, f := range fs {
			nt, ok, err := vp.textType(f.Type, append(path, f.Name), depth+1)
			if err != nil {
				return t, false, err
			}
			if ok {
				fs[i].Type, changed = nt, true
			}
		}
		if changed {
			return arrow.StructOf(fs...), true, nil
		}
	case *arrow.ListType:
		ef := tt.ElemField()
		nt, ok, err := vp.textType(ef.Type, append(path, "[]"), depth+1)
		if err != nil || !ok {
			return t, false, err
		}
		ef.Type = nt
		return arrow.ListOfField(ef), true, nil
	case *arrow.MapType:
		it := tt.ItemField()
		nt, ok, err := vp.textType(it.Type, append(path, "{}"), depth+1)
		if err != nil || !ok {
			return t, false, err
		}
		m := arrow.MapOfWithMetadata(tt.KeyType(), tt.KeyField().Metadata, nt, it.Metadata)
		m.KeysSorted = tt.KeysSorted
		m.SetItemNullable(it.Nullable)
		return m, true, nil
	}
	return t, false, nil
}

// joinPath writes a path as Parquet names columns, a.b.c.
func joinPath(path []string) string {
	var b []byte
	for i, p := range path {
		if i > 0 {
			b = append(b, '.')
		}
		if p == "[]" {
			p = "list.element"
		} else if p == "{}" {
			p = "key_value.value"
		}
		b = append(b, p...)
	}
	return string(b)
}

// checkVariantStorage checks a Variant group: a binary metadata, and a
// binary value, a typed_value of a type the shredding spec allows, or
// both.
func checkVariantStorage(st *arrow.StructType, path string) error {
	m, ok := st.FieldByName("metadata")
	if !ok || m.Type.ID() != arrow.BINARY {
		return fmt.Errorf("Parquet column %s: a VARIANT without a binary metadata column", path)
	}
	return checkShredded(st, path, 0, true)
}

// checkShredded checks a group of value and typed_value (a Variant's,
// a shredded field's or an array element's).
func checkShredded(st *arrow.StructType, path string, depth int, top bool) error {
	if depth > maxVariantDepth {
		return fmt.Errorf("Parquet column %s: a shredded VARIANT nested deeper than %d", path, maxVariantDepth)
	}
	v, hasValue := st.FieldByName("value")
	if hasValue && v.Type.ID() != arrow.BINARY {
		return fmt.Errorf("Parquet column %s.value: a VARIANT value that is not binary", path)
	}
	tv, hasTyped := st.FieldByName("typed_value")
	if !hasValue && !hasTyped {
		return fmt.Errorf("Parquet column %s: a shredded VARIANT group of neither value nor typed_value", path)
	}
	want := 0
	for _, n := range []bool{hasValue, hasTyped, top} {
		if n {
			want++
		}
	}
	if st.NumFields() != want {
		return fmt.Errorf("Parquet column %s: a VARIANT group of %d columns (metadata, value and typed_value only)", path, st.NumFields())
	}
	if !hasTyped {
		return nil
	}
	return checkTyped(tv.Type, path+".typed_value", depth+1)
}

// checkTyped checks the type of a typed_value against the shredding
// spec's table of shredded types.
func checkTyped(t arrow.DataType, path string, depth int) error {
	switch tt := t.(type) {
	case *arrow.BooleanType, *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type,
		*arrow.Float32Type, *arrow.Float64Type, *arrow.Date32Type, *arrow.BinaryType, *arrow.StringType:
		return nil
	case arrow.DecimalType:
		if tt.GetPrecision() > 38 {
			return fmt.Errorf("Parquet column %s: shredded Variant decimals of precision %d (at most 38)", path, tt.GetPrecision())
		}
		return nil
	case *arrow.Time64Type:
		if tt.Unit == arrow.Microsecond {
			return nil
		}
	case *arrow.TimestampType:
		if tt.Unit == arrow.Microsecond || tt.Unit == arrow.Nanosecond {
			return nil
		}
	case *extensions.UUIDType:
		return nil
	case *arrow.StructType:
		for _, f := range tt.Fields() {
			st, ok := f.Type.(*arrow.StructType)
			if !ok {
				return fmt.Errorf("Parquet column %s.%s: a shredded Variant field that is not a group of value and typed_value", path, f.Name)
			}
			if err := checkShredded(st, path+"."+f.Name, depth+1, false); err != nil {
				return err
			}
		}
		return nil
	case *arrow.ListType:
		st, ok := tt.Elem().(*arrow.StructType)
		if !ok {
			return fmt.Errorf("Parquet column %s.list.element: a shredded Variant array element that is not a group of value and typed_value", path)
		}
		return checkShredded(st, path+".list.element", depth+1, false)
	}
	return fmt.Errorf("Parquet column %s: shredded Variant values of type %s, which the Variant shredding spec does not allow (a reader cannot tell which Variant type they are)", path, typeWords(t))
}

// typeWords names an Arrow type in the words of Parquet's types.
func typeWords(t arrow.DataType) string {
	switch tt := t.(type) {
	case *arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type, *arrow.Uint64Type:
		return fmt.Sprintf("INTEGER(%d,false)", tt.(arrow.FixedWidthDataType).BitWidth())
	case *arrow.FixedSizeBinaryType:
		return fmt.Sprintf("FIXED_LEN_BYTE_ARRAY(%d)", tt.ByteWidth)
	case *arrow.TimestampType:
		return "TIMESTAMP(" + tt.Unit.String() + ")"
	case *arrow.Time32Type:
		return "TIME(MILLIS)"
	case *arrow.Time64Type:
		return "TIME(NANOS)"
	case *arrow.Float16Type:
		return "FLOAT16"
	case *arrow.MapType:
		return "MAP"
	}
	return t.Name()
}

// variantAvroSchema returns the Avro schema of a file with Variants:
// the one its key-value metadata keeps with each Variant's record (of
// metadata and value bytes, as parquet-avro writes it) made a string of
// VariantProp, checked against the columns as checkClaim does, or else
// the one inferred from hinted with the property added.
func variantAvroSchema(rd *file.Reader, hinted *arrow.Schema, vp *variantPlan) (string, error) {
	key, v := storedSchemaText(rd)
	var text string
	if v == nil {
		t, err := storedAvroSchema(rd, hinted)
		if err != nil {
			return "", err
		}
		text, key = t, "inferred from the columns"
	} else {
		text = *v
	}
	s, err := schema.Parse(text)
	if err != nil {
		return "", fmt.Errorf("Parquet key-value metadata %s: %w", key, err)
	}
	for _, p := range vp.paths {
		if err := markVariant(s, p); err != nil {
			return "", fmt.Errorf("Parquet key-value metadata %s does not describe the file's columns: VARIANT column %s: %w", key, joinPath(p), err)
		}
	}
	if v != nil {
		if err := checkClaim(s, hinted); err != nil {
			return "", fmt.Errorf("Parquet key-value metadata %s does not describe the file's columns: %w", key, err)
		}
	}
	return s.String(), nil
}

// markVariant makes the type at path in s (a record's field by its
// source name, "[]" an array's items, "{}" a map's values, through
// nullable unions) a string of VariantProp.
func markVariant(s *schema.Schema, path []string) error {
	for i, step := range path {
		at := s
		if in := nullable(s); in != nil {
			at = in
		}
		var next **schema.Schema
		switch {
		case step == "[]" && at.Kind == schema.Array:
			next = &at.Items
		case step == "{}" && at.Kind == schema.Map:
			next = &at.Values
		case at.Kind == schema.Record:
			for _, f := range at.Fields {
				if f.SourceName() == step {
					next = &f.Type
					break
				}
			}
		}
		if next == nil {
			return fmt.Errorf("no Avro field at %s", step)
		}
		if i < len(path)-1 {
			s = *next
			continue
		}
		text := &schema.Schema{Kind: schema.String, Props: []schema.Property{{Key: VariantProp, Value: VariantJSON}}}
		if in := nullable(*next); in != nil {
			u := *(*next)
			u.Branches = slices.Clone(u.Branches)
			for b := range u.Branches {
				if u.Branches[b].Kind != schema.Null {
					u.Branches[b] = text
				}
			}
			*next = &u
			return nil
		}
		*next = text
	}
	return nil
}

// batch returns rec (of vp.shaped) with its Variants as text; g and
// first (the row group, -1 when unknown, and the row of rec's first row
// in it) locate errors.
func (vp *variantPlan) batch(rec arrow.RecordBatch, g int, first int64) (arrow.RecordBatch, error) {
	return rebuildBatch(rec, vp.schema, textData, func(row int, err error) error {
		// rowGroupBatches names the row group.
		if g >= 0 {
			return fmt.Errorf("row %d, %w", first+int64(row), err)
		}
		return fmt.Errorf("Parquet row %d, %w", first+int64(row), err)
	})
}

// rebuildBatch returns rec as a batch of schema as: each column whose type
// as changes made by col (of the column, its new type and its name), a
// *variantRowError of it made the error at of its row and error.
func rebuildBatch(rec arrow.RecordBatch, as *arrow.Schema, col func(d arrow.ArrayData, nt arrow.DataType, path string) (arrow.ArrayData, error), at func(row int, err error) error) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i := range cols {
		nt := as.Field(i).Type
		if arrow.TypeEqual(rec.Column(i).DataType(), nt) {
			cols[i] = rec.Column(i)
			cols[i].Retain()
			continue
		}
		d, err := col(rec.Column(i).Data(), nt, as.Field(i).Name)
		if err != nil {
			var ve *variantRowError
			if errors.As(err, &ve) {
				return nil, at(ve.row, ve.err)
			}
			return nil, err
		}
		cols[i] = array.MakeFromData(d)
		d.Release()
	}
	return array.NewRecordBatch(as, cols, rec.NumRows()), nil
}

// variantRowError is an error of the Variant in row row of a column
// (of its top level: the index of the value holding it).
type variantRowError struct {
	row int
	err error
}

func (e *variantRowError) Error() string { return fmt.Sprintf("row %d: %v", e.row, e.err) }
func (e *variantRowError) Unwrap() error { return e.err }

// textData returns d with its Variants as text, as type nt (textType's
// of d's type); path names it.
func textData(d arrow.ArrayData, nt arrow.DataType, path string) (arrow.ArrayData, error) {
	return rebuild(d, nt, path, 0, parquetChildren, func(d arrow.ArrayData, _ arrow.DataType, path string) (arrow.ArrayData, error) {
		if _, ok := d.DataType().(*extensions.VariantType); !ok {
			d.Retain()
			return d, nil
		}
		a := array.MakeFromData(d)
		defer a.Release()
		st, ok := a.(array.ExtensionArray).Storage().(*array.Struct)
		if !ok {
			return nil, fmt.Errorf("Parquet column %s: a VARIANT that is not a group", path)
		}
		return variantText(st, path)
	})
}

// childNames name the children of a path: a list's elements and a map's
// entries.
type childNames struct{ list, entries string }

// parquetChildren name them as Parquet names its columns.
var parquetChildren = childNames{list: ".list.element", entries: ".key_value"}

// rebuild returns d as type nt, a type of the same nesting as d's with
// some leaves changed: struct children, list elements and map entries
// rebuilt alike, each leaf whose type nt changes made by leaf. path names
// d; a *variantRowError of a child is made one of d's rows.
func rebuild(d arrow.ArrayData, nt arrow.DataType, path string, depth int, names childNames, leaf func(d arrow.ArrayData, nt arrow.DataType, path string) (arrow.ArrayData, error)) (arrow.ArrayData, error) {
	if arrow.TypeEqual(d.DataType(), nt) {
		d.Retain()
		return d, nil
	}
	if depth > maxShapeDepth {
		return nil, fmt.Errorf("Parquet column %s nests too deep", path)
	}
	if d.DataType().ID() != nt.ID() {
		return leaf(d, nt, path)
	}
	switch t := nt.(type) {
	case *arrow.StructType:
		if len(d.Children()) != t.NumFields() {
			break
		}
		kids := make([]arrow.ArrayData, len(d.Children()))
		for i, k := range d.Children() {
			nk, err := rebuild(k, t.Field(i).Type, path+"."+t.Field(i).Name, depth+1, names, leaf)
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
		elem, sub := arrow.DataType(nil), path+names.list
		if mt, ok := t.(*arrow.MapType); ok {
			elem, sub = mt.Elem(), path+names.entries
		} else {
			elem = t.(*arrow.ListType).Elem()
		}
		nk, err := rebuild(k, elem, sub, depth+1, names, leaf)
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
	return leaf(d, nt, path)
}

// listRow returns the row of list (or map) d, counted from its offset,
// that holds element e of its values.
func listRow(d arrow.ArrayData, e int) int {
	if len(d.Buffers()) < 2 || d.Buffers()[1] == nil {
		return 0
	}
	offs := arrow.Int32Traits.CastFromBytes(d.Buffers()[1].Bytes())
	lo, hi := d.Offset(), min(d.Offset()+d.Len(), len(offs)-1)
	// The last row whose first element is at most e.
	for lo < hi {
		mid := int(uint(lo+hi+1) >> 1)
		if int(offs[mid]) <= e {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo - d.Offset()
}

func releaseAll(ds []arrow.ArrayData) {
	for _, d := range ds {
		if d != nil {
			d.Release()
		}
	}
}

// variantText returns the JSON text of each Variant of st (a Variant
// group's array), a string array of its length, null where st is.
func variantText(st *array.Struct, path string) (arrow.ArrayData, error) {
	mi, _ := st.DataType().(*arrow.StructType).FieldIdx("metadata")
	meta, ok := st.Field(mi).(*array.Binary)
	if !ok || meta.Len() != st.Len() {
		return nil, fmt.Errorf("Parquet column %s.metadata: not a binary column of the group's length", path)
	}
	node, err := shredNodeOf(st, path, 0)
	if err != nil {
		return nil, err
	}
	n := st.Len()
	w := &variantJSON{}
	offsets := make([]int32, n+1)
	valid := make([]byte, bitutil.BytesForBits(int64(n)))
	nulls := 0
	var m variantMeta
	var last []byte
	for i := range n {
		if st.IsNull(i) {
			nulls++
			offsets[i+1] = int32(len(w.out))
			continue
		}
		bitutil.SetBit(valid, i)
		if meta.IsNull(i) {
			return nil, &variantRowError{i, fmt.Errorf("column %s.metadata: no metadata", path)}
		}
		mb := meta.Value(i)
		if last == nil || !bytes.Equal(mb, last) {
			if m, err = parseVariantMeta(mb); err != nil {
				return nil, &variantRowError{i, fmt.Errorf("column %s.metadata: %w", path, err)}
			}
			last = mb
		}
		present, err := w.node(&m, node, i, 0)
		if err != nil {
			return nil, &variantRowError{i, err}
		}
		if !present {
			// A Variant missing where a value is required is the
			// Variant null (VariantShredding.md).
			w.out = append(w.out, "null"...)
		}
		if len(w.out) > maxVariantText {
			return nil, &variantRowError{i, fmt.Errorf("column %s: %w", path, errVariantText)}
		}
		offsets[i+1] = int32(len(w.out))
	}
	bufs := []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets)), memory.NewBufferBytes(w.out)}
	if nulls > 0 {
		bufs[0] = memory.NewBufferBytes(valid)
	}
	return array.NewData(arrow.BinaryTypes.String, n, bufs, nil, nulls, 0), nil
}

// binaryColumn is a value column of a Variant group.
type binaryColumn interface {
	IsNull(int) bool
	Value(int) []byte
}

// shredNode is a group of value and typed_value: the Variant's, a
// shredded field's or an array element's.
type shredNode struct {
	path  string
	value binaryColumn // nil without a value column
	typed arrow.Array  // nil without a typed_value column
	// fields are a shredded object's fields, in the order of their
	// names; elem and list a shredded array's.
	object bool
	fields []shredField
	elem   *shredNode
	list   *array.List
	uuid   *array.FixedSizeBinary
}

type shredField struct {
	name []byte
	node *shredNode
}

// shredNodeOf returns the node of group st.
func shredNodeOf(st *array.Struct, path string, depth int) (*shredNode, error) {
	if depth > maxVariantDepth {
		return nil, fmt.Errorf("Parquet column %s: a shredded VARIANT nested deeper than %d", path, maxVariantDepth)
	}
	n := &shredNode{path: path}
	t := st.DataType().(*arrow.StructType)
	if i, ok := t.FieldIdx("value"); ok {
		b, isBin := st.Field(i).(*array.Binary)
		if !isBin || b.Len() != st.Len() {
			return nil, fmt.Errorf("Parquet column %s.value: not a binary column of the group's length", path)
		}
		n.value = b
	}
	i, ok := t.FieldIdx("typed_value")
	if !ok {
		return n, nil
	}
	n.typed = st.Field(i)
	tp := path + ".typed_value"
	if n.typed.Len() != st.Len() {
		return nil, fmt.Errorf("Parquet column %s: %d values in a group of %d", tp, n.typed.Len(), st.Len())
	}
	switch a := n.typed.(type) {
	case *array.Struct:
		n.object = true
		ft := a.DataType().(*arrow.StructType)
		for k, f := range ft.Fields() {
			kst, ok := a.Field(k).(*array.Struct)
			if !ok || kst.Len() != a.Len() {
				return nil, fmt.Errorf("Parquet column %s.%s: not a group of the object's length", tp, f.Name)
			}
			kn, err := shredNodeOf(kst, tp+"."+f.Name, depth+1)
			if err != nil {
				return nil, err
			}
			n.fields = append(n.fields, shredField{name: []byte(f.Name), node: kn})
		}
		slices.SortFunc(n.fields, func(a, b shredField) int { return bytes.Compare(a.name, b.name) })
		for k := 1; k < len(n.fields); k++ {
			if bytes.Equal(n.fields[k-1].name, n.fields[k].name) {
				return nil, fmt.Errorf("Parquet column %s: two shredded fields named %s", tp, n.fields[k].name)
			}
		}
	case *array.List:
		est, ok := a.ListValues().(*array.Struct)
		if !ok {
			return nil, fmt.Errorf("Parquet column %s.list.element: not a group", tp)
		}
		en, err := shredNodeOf(est, tp+".list.element", depth+1)
		if err != nil {
			return nil, err
		}
		n.elem, n.list = en, a
	case array.ExtensionArray:
		fb, ok := a.Storage().(*array.FixedSizeBinary)
		if !ok || fb.DataType().(*arrow.FixedSizeBinaryType).ByteWidth != 16 {
			return nil, fmt.Errorf("Parquet column %s: a UUID column not of 16 bytes", tp)
		}
		n.uuid = fb
	}
	return n, nil
}

// node writes the value of node n at row i and says whether it has one
// (false: both value and typed_value are null, the value is missing).
func (w *variantJSON) node(m *variantMeta, n *shredNode, i, depth int) (bool, error) {
	valNull := n.value == nil || n.value.IsNull(i)
	if n.typed == nil || n.typed.IsNull(i) {
		if valNull {
			return false, nil
		}
		if err := w.value(m, n.value.Value(i), depth); err != nil {
			return true, fmt.Errorf("column %s.value: %w", n.path, err)
		}
		return true, nil
	}
	if depth >= maxVariantDepth {
		return true, fmt.Errorf("column %s: arrays and objects nested deeper than %d", n.path, maxVariantDepth)
	}
	if err := w.check(); err != nil {
		return true, fmt.Errorf("column %s: %w", n.path, err)
	}
	switch {
	case n.object:
		return true, w.shreddedObject(m, n, i, depth)
	case !valNull:
		return true, fmt.Errorf("column %s: both value and typed_value hold a value, which the Variant shredding spec allows only for an object's fields", n.path)
	case n.list != nil:
		start, end := n.list.ValueOffsets(i)
		if start < 0 || start > end || end > int64(n.elem.len()) {
			return true, fmt.Errorf("column %s.typed_value: elements %d to %d of %d", n.path, start, end, n.elem.len())
		}
		w.out = append(w.out, '[')
		for j := start; j < end; j++ {
			if j > start {
				w.out = append(w.out, ',')
			}
			present, err := w.node(m, n.elem, int(j), depth+1)
			if err != nil {
				return true, err
			}
			if !present {
				// An element both null: Variant null, as parquet-testing
				// reads it (the spec wants writers to write 00).
				w.out = append(w.out, "null"...)
			}
		}
		w.out = append(w.out, ']')
		return true, nil
	}
	if err := w.typedPrimitive(n, i); err != nil {
		return true, fmt.Errorf("column %s.typed_value: %w", n.path, err)
	}
	return true, nil
}

// len returns the number of rows of the node's columns.
func (n *shredNode) len() int {
	if n.typed != nil {
		return n.typed.Len()
	}
	if b, ok := n.value.(*array.Binary); ok {
		return b.Len()
	}
	return 0
}

// shreddedObject writes row i of object node n: its shredded fields
// merged with the fields of its value (a partially shredded object), in
// the order of their names.
func (w *variantJSON) shreddedObject(m *variantMeta, n *shredNode, i, depth int) error {
	es := w.scratch(depth)
	if n.value != nil && !n.value.IsNull(i) {
		v := n.value.Value(i)
		if len(v) == 0 || v[0]&3 != vBasicObject {
			w.entries[depth] = es
			return fmt.Errorf("column %s: typed_value holds shredded fields and value a Variant that is not an object, which the Variant shredding spec forbids", n.path)
		}
		var err error
		es, err = objectEntries(m, v, es)
		w.entries[depth] = es
		if err != nil {
			return fmt.Errorf("column %s.value: %w", n.path, err)
		}
		for _, f := range n.fields {
			if _, found := slices.BinarySearchFunc(es, f.name, func(e variantEntry, k []byte) int { return bytes.Compare(e.key, k) }); found {
				return fmt.Errorf("column %s.value: field %q is also shredded (typed_value.%s), which the Variant shredding spec forbids", n.path, f.name, f.name)
			}
		}
	}
	residual := len(es)
	for k, f := range n.fields {
		fn := f.node
		if (fn.value == nil || fn.value.IsNull(i)) && (fn.typed == nil || fn.typed.IsNull(i)) {
			continue // missing
		}
		es = append(es, variantEntry{key: f.name, field: k})
	}
	w.entries[depth] = es
	if residual > 0 && len(es) > residual {
		slices.SortFunc(es, func(a, b variantEntry) int { return bytes.Compare(a.key, b.key) })
	}
	w.out = append(w.out, '{')
	for k, e := range es {
		if k > 0 {
			w.out = append(w.out, ',')
		}
		if err := w.str(e.key); err != nil {
			return fmt.Errorf("column %s: %w", n.path, err)
		}
		w.out = append(w.out, ':')
		if e.field >= 0 {
			if _, err := w.node(m, n.fields[e.field].node, i, depth+1); err != nil {
				return err
			}
			continue
		}
		if err := w.value(m, e.value, depth+1); err != nil {
			return fmt.Errorf("column %s.value: field %q: %w", n.path, e.key, err)
		}
	}
	w.out = append(w.out, '}')
	return nil
}

// typedPrimitive writes row i of a shredded primitive, as the Variant
// type it stands for would be written.
func (w *variantJSON) typedPrimitive(n *shredNode, i int) error {
	switch a := n.typed.(type) {
	case *array.Boolean:
		if a.Value(i) {
			w.out = append(w.out, "true"...)
		} else {
			w.out = append(w.out, "false"...)
		}
	case *array.Int8:
		w.int(int64(a.Value(i)))
	case *array.Int16:
		w.int(int64(a.Value(i)))
	case *array.Int32:
		w.int(int64(a.Value(i)))
	case *array.Int64:
		w.int(a.Value(i))
	case *array.Float32:
		w.double(float64(a.Value(i)))
	case *array.Float64:
		w.double(a.Value(i))
	case *array.Decimal32:
		x := int64(a.Value(i))
		w.decimal(uint64(x>>63), uint64(x), int(a.DataType().(arrow.DecimalType).GetScale()))
	case *array.Decimal64:
		x := int64(a.Value(i))
		w.decimal(uint64(x>>63), uint64(x), int(a.DataType().(arrow.DecimalType).GetScale()))
	case *array.Decimal128:
		x := a.Value(i)
		w.decimal(uint64(x.HighBits()), x.LowBits(), int(a.DataType().(arrow.DecimalType).GetScale()))
	case *array.Decimal256:
		// Of at most 38 digits (checkTyped): the low 128 bits.
		x := a.Value(i).Array()
		w.decimal(x[1], x[0], int(a.DataType().(arrow.DecimalType).GetScale()))
	case *array.Date32:
		w.date(int32(a.Value(i)))
	case *array.Time64:
		return w.timeOfDay(int64(a.Value(i)))
	case *array.Timestamp:
		t := a.DataType().(*arrow.TimestampType)
		w.timestamp(int64(a.Value(i)), t.Unit == arrow.Nanosecond, t.TimeZone != "")
	case *array.Binary:
		w.blob(a.Value(i))
	case *array.String:
		return w.strText(a.Value(i))
	default:
		if n.uuid != nil {
			w.uuid(n.uuid.Value(i))
			return nil
		}
		return fmt.Errorf("shredded values of type %s", typeWords(n.typed.DataType()))
	}
	return nil
}

// int writes an integer.
func (w *variantJSON) int(x int64) { w.out = strconv.AppendInt(w.out, x, 10) }

// outBatch returns rec, a batch pqarrow read (the rows from first of row
// group g; g -1 when unknown), shaped as the file's schema says: legacy
// shapes mended (shapeBatch), Variants as text.
func (p *File) outBatch(rec arrow.RecordBatch, g int, first int64) (arrow.RecordBatch, error) {
	if p.variants == nil {
		return shapeBatch(rec, p.schema, p.shapes)
	}
	shaped, err := shapeBatch(rec, p.variants.shaped, p.shapes)
	if err != nil {
		return nil, err
	}
	defer shaped.Release()
	return p.variants.batch(shaped, g, first)
}
