package trevniarrow

import (
	"context"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/schema"
)

// AvroSchema returns the Avro schema the records of batches of Arrow
// schema s are written as: the one kept in its metadata under
// MetaAvroSchema, or else one inferred from its types (see the package
// doc), as JSON text.
func AvroSchema(s *arrow.Schema) (string, error) {
	if text, ok := s.Metadata().GetValue(MetaAvroSchema); ok {
		if _, err := schema.Parse(text); err != nil {
			return "", fmt.Errorf("the %s metadata: %w", MetaAvroSchema, err)
		}
		return text, nil
	}
	in := &inferrer{names: map[string]int{}}
	rec := &schema.Schema{Kind: schema.Record, Name: "Record"}
	in.names["Record"] = 1
	fields, err := in.fields(s.Fields(), "Record")
	if err != nil {
		return "", err
	}
	rec.Fields = fields
	text := rec.String()
	if _, err := schema.Parse(text); err != nil {
		return "", fmt.Errorf("the Avro schema inferred: %w", err)
	}
	return text, nil
}

// inferrer infers Avro types from Arrow types, naming records, enums and
// fixed uniquely.
type inferrer struct {
	names map[string]int
}

// name returns a valid Avro name made of s, unused so far.
func (in *inferrer) name(s string) string {
	n := schema.MakeName(s)
	in.names[n]++
	if k := in.names[n]; k > 1 {
		n += "_" + strconv.Itoa(k)
		in.names[n]++
	}
	return n
}

func (in *inferrer) fields(fs []arrow.Field, path string) ([]*schema.Field, error) {
	out := make([]*schema.Field, len(fs))
	seen := map[string]bool{}
	for i, f := range fs {
		t, err := in.typ(f.Type, path+"_"+f.Name)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		if f.Nullable && t.Kind != schema.Null && t.Kind != schema.Union {
			t = &schema.Schema{Kind: schema.Union, Branches: []*schema.Schema{{Kind: schema.Null}, t}}
		}
		name := schema.MakeName(f.Name)
		for seen[name] {
			name += "_"
		}
		seen[name] = true
		out[i] = &schema.Field{Name: name, Type: t}
		if name != f.Name {
			out[i].Props = []schema.Property{{Key: "arrow.name", Value: f.Name}}
		}
	}
	return out, nil
}

func (in *inferrer) typ(t arrow.DataType, path string) (*schema.Schema, error) {
	prim := func(k schema.Kind, l schema.LogicalType) *schema.Schema { return &schema.Schema{Kind: k, Logical: l} }
	switch tt := t.(type) {
	case arrow.ExtensionType:
		switch tt.ExtensionName() {
		case "arrow.uuid":
			return prim(schema.String, schema.LogicalUUID), nil
		case DurationExtension:
			return &schema.Schema{Kind: schema.Fixed, Name: in.name(path), Size: 12, Logical: schema.LogicalDuration}, nil
		case ParquetExtension:
			s, err := in.typ(tt.StorageType(), path)
			if err != nil {
				return nil, err
			}
			return withProps(s, parquetProps(tt.(*parquetType).logical)...), nil
		}
		return in.typ(tt.StorageType(), path)
	case *arrow.NullType:
		return prim(schema.Null, ""), nil
	case *arrow.BooleanType:
		return prim(schema.Boolean, ""), nil
	case *arrow.Int32Type:
		return prim(schema.Int, ""), nil
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Uint8Type, *arrow.Uint16Type:
		return withProps(prim(schema.Int, ""), schema.Property{Key: PropArrowType, Value: t.String()}), nil
	case *arrow.Int64Type:
		return prim(schema.Long, ""), nil
	case *arrow.Uint32Type, *arrow.Uint64Type:
		return withProps(prim(schema.Long, ""), schema.Property{Key: PropArrowType, Value: t.String()}), nil
	case *arrow.Float16Type, *arrow.Float32Type:
		return prim(schema.Float, ""), nil
	case *arrow.Float64Type:
		return prim(schema.Double, ""), nil
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return prim(schema.String, ""), nil
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType:
		return prim(schema.Bytes, ""), nil
	case *arrow.Date32Type, *arrow.Date64Type:
		return prim(schema.Int, schema.LogicalDate), nil
	case *arrow.Time32Type:
		return prim(schema.Int, schema.LogicalTimeMillis), nil
	case *arrow.Time64Type:
		if tt.Unit == arrow.Nanosecond {
			return &schema.Schema{Kind: schema.Long, Props: []schema.Property{{Key: PropArrowType, Value: "time64[ns]"}}}, nil
		}
		return prim(schema.Long, schema.LogicalTimeMicros), nil
	case *arrow.TimestampType:
		utc := tt.TimeZone != ""
		switch tt.Unit {
		case arrow.Second, arrow.Millisecond:
			if utc {
				return prim(schema.Long, schema.LogicalTimestampMillis), nil
			}
			return prim(schema.Long, schema.LogicalLocalTimestampMillis), nil
		case arrow.Microsecond:
			if utc {
				return prim(schema.Long, schema.LogicalTimestampMicros), nil
			}
			return prim(schema.Long, schema.LogicalLocalTimestampMicros), nil
		}
		if utc {
			return prim(schema.Long, schema.LogicalTimestampNanos), nil
		}
		return prim(schema.Long, schema.LogicalLocalTimestampNanos), nil
	case *arrow.DurationType:
		return &schema.Schema{Kind: schema.Long, Props: []schema.Property{{Key: PropArrowType, Value: "duration[" + tt.Unit.String() + "]"}}}, nil
	case *arrow.MonthDayNanoIntervalType:
		return &schema.Schema{Kind: schema.Fixed, Name: in.name(path), Size: 12, Logical: schema.LogicalDuration}, nil
	case *arrow.Decimal128Type:
		return &schema.Schema{Kind: schema.Bytes, Logical: schema.LogicalDecimal, Precision: int(tt.Precision), Scale: int(tt.Scale)}, nil
	case *arrow.Decimal256Type:
		return &schema.Schema{Kind: schema.Bytes, Logical: schema.LogicalDecimal, Precision: int(tt.Precision), Scale: int(tt.Scale)}, nil
	case *arrow.FixedSizeBinaryType:
		return &schema.Schema{Kind: schema.Fixed, Name: in.name(path), Size: tt.ByteWidth}, nil
	case *arrow.DictionaryType:
		return in.typ(tt.ValueType, path)
	case *arrow.ListType:
		return in.list(tt.ElemField(), path)
	case *arrow.LargeListType:
		return in.list(tt.ElemField(), path)
	case *arrow.FixedSizeListType:
		return in.list(tt.ElemField(), path)
	case *arrow.MapType:
		if tt.KeyType().ID() == arrow.STRING || tt.KeyType().ID() == arrow.LARGE_STRING {
			v, err := in.typ(tt.ItemType(), path+"_value")
			if err != nil {
				return nil, err
			}
			if tt.ItemField().Nullable && v.Kind != schema.Null && v.Kind != schema.Union {
				v = &schema.Schema{Kind: schema.Union, Branches: []*schema.Schema{{Kind: schema.Null}, v}}
			}
			return &schema.Schema{Kind: schema.Map, Values: v}, nil
		}
		l, err := in.list(tt.ElemField(), path)
		if err != nil {
			return nil, err
		}
		return withProps(l, schema.Property{Key: PropArrowType, Value: "map"}), nil
	case *arrow.StructType:
		fs, err := in.fields(tt.Fields(), path)
		if err != nil {
			return nil, err
		}
		return &schema.Schema{Kind: schema.Record, Name: in.name(path), Fields: fs}, nil
	case arrow.UnionType:
		u := &schema.Schema{Kind: schema.Union}
		for _, f := range tt.Fields() {
			b, err := in.typ(f.Type, path+"_"+f.Name)
			if err != nil {
				return nil, err
			}
			if b.Kind == schema.Union {
				return nil, fmt.Errorf("an Arrow union in a union")
			}
			u.Branches = append(u.Branches, b)
		}
		return u, nil
	}
	return nil, fmt.Errorf("no Avro type for Arrow %v", t)
}

func (in *inferrer) list(item arrow.Field, path string) (*schema.Schema, error) {
	t, err := in.typ(item.Type, path+"_item")
	if err != nil {
		return nil, err
	}
	if item.Nullable && t.Kind != schema.Null && t.Kind != schema.Union {
		t = &schema.Schema{Kind: schema.Union, Branches: []*schema.Schema{{Kind: schema.Null}, t}}
	}
	return &schema.Schema{Kind: schema.Array, Items: t}, nil
}

// arrowFieldName returns the name of the Arrow field an Avro field is
// written from: the name kept where the source's name is not a valid Avro
// name ("my col", "a.b", "1st"): "arrow.name", or a CSV header's or a
// JSON key's (schema.Field.SourceName), else the field's name.
func arrowFieldName(f *schema.Field) string { return f.SourceName() }

// Writer writes Arrow record batches into a Trevni file as Avro records.
// It is not safe for concurrent use.
type Writer struct {
	w      *trevni.Writer
	avro   *schema.Schema
	fields []encoder // of the record's fields, or the one value
	index  []int     // of each: its column
	buf    []byte
	rows   int64
}

// NewWriter returns a writer of batches of Arrow schema as into w, whose
// Avro schema must be AvroSchema(as)'s (or one the batches map to: fields
// are found by name).
func NewWriter(w *trevni.Writer, as *arrow.Schema) (*Writer, error) {
	s := frontdoor.Schema(w)
	fields, index, err := encoders(s, as)
	if err != nil {
		return nil, err
	}
	return &Writer{w: w, avro: s, fields: fields, index: index}, nil
}

// CheckSchema returns the error NewWriter would return for a Trevni
// writer of Avro schema s and batches of Arrow schema as: nil when every
// field of s is a column of as whose type its values can be written
// from. (A column that is no field of s is not an error here: it is
// left out.)
func CheckSchema(s *schema.Schema, as *arrow.Schema) error {
	_, _, err := encoders(s, as)
	return err
}

// encoders returns the encoders of the fields of s (or of its one value)
// from the columns of as, and the index of each one's column.
func encoders(s *schema.Schema, as *arrow.Schema) ([]encoder, []int, error) {
	if s.Kind != schema.Record {
		if as.NumFields() != 1 {
			return nil, nil, fmt.Errorf("%d columns for an Avro %v: want one", as.NumFields(), s.Kind)
		}
		e, err := newEncoder(s, as.Field(0).Type)
		if err != nil {
			return nil, nil, err
		}
		return []encoder{e}, []int{0}, nil
	}
	var (
		fields []encoder
		index  []int
	)
	for _, f := range s.Fields {
		k := as.FieldIndices(arrowFieldName(f))
		if len(k) == 0 {
			return nil, nil, fmt.Errorf("field %s of the Avro schema is not a column", f.Name)
		}
		e, err := newEncoder(f.Type, as.Field(k[0]).Type)
		if err != nil {
			return nil, nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		fields, index = append(fields, e), append(index, k[0])
	}
	return fields, index, nil
}

// Write writes the rows of a batch.
func (tw *Writer) Write(rec arrow.RecordBatch) error {
	for i, e := range tw.fields {
		if err := e.bind(rec.Column(tw.index[i])); err != nil {
			return fmt.Errorf("column %s: %w", rec.ColumnName(tw.index[i]), err)
		}
	}
	for r := range int(rec.NumRows()) {
		buf := tw.buf[:0]
		for i, e := range tw.fields {
			var err error
			if buf, err = e.encode(buf, r); err != nil {
				return fmt.Errorf("row %d, column %s: %w", tw.rows, rec.ColumnName(tw.index[i]), err)
			}
		}
		tw.buf = buf
		if err := tw.w.WriteBinary(buf); err != nil {
			return fmt.Errorf("row %d: %w", tw.rows, err)
		}
		tw.rows++
	}
	return nil
}

// Rows returns the number of rows written.
func (tw *Writer) Rows() int64 { return tw.rows }

// WriteAll writes every batch of rr, and returns the rows written.
func WriteAll(ctx context.Context, w *trevni.Writer, rr array.RecordReader) (int64, error) {
	tw, err := NewWriter(w, rr.Schema())
	if err != nil {
		return 0, err
	}
	for rr.Next() {
		if err := ctx.Err(); err != nil {
			return tw.rows, err
		}
		if err := tw.Write(rr.RecordBatch()); err != nil {
			return tw.rows, err
		}
	}
	return tw.rows, rr.Err()
}
