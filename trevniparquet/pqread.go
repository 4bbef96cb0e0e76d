package trevniparquet

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/trevni-go/trevni/schema"

	"github.com/trevni-go/trevni/trevniarrow"
)

// MetaParquetAvroSchema is the key-value metadata key under which
// parquet-avro (and Hive and Spark through it) keep the Avro schema of
// a Parquet file's records. Open takes it when the file has no
// MetaAvroSchema.
const MetaParquetAvroSchema = "parquet.avro.schema"

// storedSchemaText returns the Avro schema text a file's key-value
// metadata keeps, nil without one, and its key: avro.schema, or else
// parquet.avro.schema.
func storedSchemaText(rd *file.Reader) (string, *string) {
	kv := rd.MetaData().KeyValueMetadata()
	if v := kv.FindValue(trevniarrow.MetaAvroSchema); v != nil {
		return trevniarrow.MetaAvroSchema, v
	}
	return MetaParquetAvroSchema, kv.FindValue(MetaParquetAvroSchema)
}

// storedAvroSchema returns the Avro schema of a Parquet file's records:
// the one its key-value metadata keeps (avro.schema, which toparquet
// writes, or else parquet.avro.schema, which parquet-avro writes),
// checked against the columns as (shaped), or else one inferred from as.
// A stored schema is a claim: one the columns do not hold (a field
// missing, a type the column's cannot be written as) is refused, naming
// the key and the field.
func storedAvroSchema(rd *file.Reader, as *arrow.Schema) (string, error) {
	key, v := storedSchemaText(rd)
	if v == nil {
		// The columns' types alone (pqarrow copies the key-value
		// metadata into as's, avro.schema among them: none here).
		md := as.Metadata()
		if i := md.FindKey(trevniarrow.MetaAvroSchema); i >= 0 {
			keys, vals := md.Keys(), md.Values()
			keys = append(keys[:i:i], keys[i+1:]...)
			vals = append(vals[:i:i], vals[i+1:]...)
			nmd := arrow.NewMetadata(keys, vals)
			as = arrow.NewSchema(as.Fields(), &nmd)
		}
		text, err := trevniarrow.AvroSchema(as)
		if err != nil {
			return "", fmt.Errorf("Parquet schema: %w", err)
		}
		return text, nil
	}
	s, err := schema.Parse(*v)
	if err != nil {
		return "", fmt.Errorf("Parquet key-value metadata %s: %w", key, err)
	}
	if err := checkClaim(s, as); err != nil {
		return "", fmt.Errorf("Parquet key-value metadata %s does not describe the file's columns: %w", key, err)
	}
	return *v, nil
}

// checkClaim returns an error naming the field when the columns of as
// cannot be written as records of s, or would be written as other values
// than the file holds: a field that is no column, a column that is no
// field (it would be dropped), a column whose type does not map to the
// field's (the encoders Writer would use cannot be made), a double claimed
// as a float or a 64-bit integer as an int (narrowed), a decimal whose
// precision or scale the claim changes, a decimal claimed as plain bytes.
func checkClaim(s *schema.Schema, as *arrow.Schema) error {
	if s.Kind != schema.Record {
		if as.NumFields() != 1 {
			return fmt.Errorf("%d columns for an Avro %v", as.NumFields(), s.Kind)
		}
		if err := trevniarrow.CheckSchema(s, as); err != nil {
			return fmt.Errorf("column %s: %w", as.Field(0).Name, err)
		}
		return claimType(s, as.Field(0).Type, as.Field(0).Name, 0)
	}
	claimed := map[int]bool{}
	for _, f := range s.Fields {
		k := as.FieldIndices(f.SourceName())
		if len(k) == 0 {
			return fmt.Errorf("field %s is not a column", f.Name)
		}
		claimed[k[0]] = true
	}
	if err := trevniarrow.CheckSchema(s, as); err != nil {
		return err
	}
	for _, f := range s.Fields {
		k := as.FieldIndices(f.SourceName())
		if err := claimType(f.Type, as.Field(k[0]).Type, f.Name, 0); err != nil {
			return err
		}
	}
	for i, f := range as.Fields() {
		if !claimed[i] && !isPad(len(s.Fields), f) {
			return fmt.Errorf("column %s is no field of it (its values would be dropped)", f.Name)
		}
	}
	return nil
}

// isPad says whether f is the one null field PadField that stands for
// the fields of a record of none (Arrow and Parquet have no empty struct).
func isPad(fields int, f arrow.Field) bool {
	return fields == 0 && f.Name == trevniarrow.PadField && f.Type.ID() == arrow.NULL
}

// claimType returns an error naming path when values of Arrow type t
// would be written as other values by Avro type s (see checkClaim).
func claimType(s *schema.Schema, t arrow.DataType, path string, depth int) error {
	if depth > maxShapeDepth {
		return fmt.Errorf("field %s nests too deep", path)
	}
	if inner := nullable(s); inner != nil {
		s = inner
	}
	if e, ok := t.(arrow.ExtensionType); ok {
		t = e.StorageType()
	}
	if dt, ok := t.(*arrow.DictionaryType); ok {
		t = dt.ValueType
	}
	switch tt := t.(type) {
	case *arrow.Float64Type:
		if s.Kind == schema.Float {
			return fmt.Errorf("field %s: a column of doubles claimed as float (their values would be narrowed)", path)
		}
	case *arrow.Int64Type, *arrow.Uint32Type, *arrow.Uint64Type:
		if s.Kind == schema.Int {
			return fmt.Errorf("field %s: a column of 64-bit integers claimed as int (their values would be narrowed)", path)
		}
	case arrow.DecimalType:
		switch {
		case s.Logical != schema.LogicalDecimal:
			return fmt.Errorf("field %s: a column of decimal(%d,%d) claimed as %v without its scale", path, tt.GetPrecision(), tt.GetScale(), s.Kind)
		case s.Precision != int(tt.GetPrecision()) || s.Scale != int(tt.GetScale()):
			return fmt.Errorf("field %s: a column of decimal(%d,%d) claimed as decimal(%d,%d)", path, tt.GetPrecision(), tt.GetScale(), s.Precision, s.Scale)
		}
	case *arrow.StructType:
		if s.Kind != schema.Record {
			return nil
		}
		claimed := make([]bool, tt.NumFields())
		for _, f := range s.Fields {
			k, ok := tt.FieldIdx(f.SourceName())
			if !ok {
				return fmt.Errorf("field %s.%s is not a column", path, f.Name)
			}
			claimed[k] = true
			if err := claimType(f.Type, tt.Field(k).Type, path+"."+f.Name, depth+1); err != nil {
				return err
			}
		}
		for i, c := range claimed {
			if !c && !isPad(len(s.Fields), tt.Field(i)) {
				return fmt.Errorf("column %s.%s is no field of it (its values would be dropped)", path, tt.Field(i).Name)
			}
		}
	case *arrow.MapType:
		if s.Kind == schema.Map {
			return claimType(s.Values, tt.ItemType(), path+"[]", depth+1)
		}
	case arrow.ListLikeType:
		if s.Kind == schema.Array {
			return claimType(s.Items, tt.Elem(), path+"[]", depth+1)
		}
	}
	return nil
}

// nullable returns T of a union ["null", T] or [T, "null"], else nil.
func nullable(s *schema.Schema) *schema.Schema {
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

// shapedReader is a record reader whose batches are shaped.
type shapedReader struct {
	array.RecordReader
	schema *arrow.Schema
	shapes []*shape
	// shape, when set, shapes each batch in shapeBatch's place.
	shape func(arrow.RecordBatch) (arrow.RecordBatch, error)
	cur   arrow.RecordBatch
	err   error
}

func (r *shapedReader) Schema() *arrow.Schema { return r.schema }

func (r *shapedReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || !r.RecordReader.Next() {
		return false
	}
	if r.shape != nil {
		r.cur, r.err = r.shape(r.RecordReader.RecordBatch())
	} else {
		r.cur, r.err = shapeBatch(r.RecordReader.RecordBatch(), r.schema, r.shapes)
	}
	return r.err == nil
}

func (r *shapedReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is RecordBatch (the name arrow-go's interface keeps).
func (r *shapedReader) Record() arrow.RecordBatch { return r.cur }

func (r *shapedReader) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.RecordReader.Err()
}

func (r *shapedReader) Release() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	r.RecordReader.Release()
}
