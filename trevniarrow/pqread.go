package trevniarrow

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/trevni-go/trevni/schema"
)

// MetaParquetAvroSchema is the key-value metadata key under which
// parquet-avro (and Hive and Spark through it) keep the Avro schema of
// a Parquet file's records. OpenParquet takes it when the file has no
// MetaAvroSchema.
const MetaParquetAvroSchema = "parquet.avro.schema"

// storedAvroSchema returns the Avro schema of a Parquet file's records:
// the one its key-value metadata keeps (avro.schema, which toparquet
// writes, or else parquet.avro.schema, which parquet-avro writes),
// checked against the columns as (shaped), or else one inferred from as.
// A stored schema is a claim: one the columns do not hold (a field
// missing, a type the column's cannot be written as) is refused, naming
// the key and the field.
func storedAvroSchema(rd *file.Reader, as *arrow.Schema) (string, error) {
	kv := rd.MetaData().KeyValueMetadata()
	key := MetaAvroSchema
	v := kv.FindValue(key)
	if v == nil {
		key = MetaParquetAvroSchema
		v = kv.FindValue(key)
	}
	if v == nil {
		// The columns' types alone (pqarrow copies the key-value
		// metadata into as's, avro.schema among them: none here).
		md := as.Metadata()
		if i := md.FindKey(MetaAvroSchema); i >= 0 {
			keys, vals := md.Keys(), md.Values()
			keys = append(keys[:i:i], keys[i+1:]...)
			vals = append(vals[:i:i], vals[i+1:]...)
			nmd := arrow.NewMetadata(keys, vals)
			as = arrow.NewSchema(as.Fields(), &nmd)
		}
		text, err := AvroSchema(as)
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
// cannot be written as records of s: a field that is no column, a column
// whose type does not map to the field's (the encoders Writer would
// use cannot be made).
func checkClaim(s *schema.Schema, as *arrow.Schema) error {
	if s.Kind != schema.Record {
		if as.NumFields() != 1 {
			return fmt.Errorf("%d columns for an Avro %v", as.NumFields(), s.Kind)
		}
		if _, err := newEncoder(s, as.Field(0).Type); err != nil {
			return fmt.Errorf("column %s: %w", as.Field(0).Name, err)
		}
		return nil
	}
	for _, f := range s.Fields {
		k := as.FieldIndices(arrowFieldName(f))
		if len(k) == 0 {
			return fmt.Errorf("field %s is not a column", f.Name)
		}
		if _, err := newEncoder(f.Type, as.Field(k[0]).Type); err != nil {
			return fmt.Errorf("field %s: %w", f.Name, err)
		}
	}
	return nil
}

// shapedReader is a record reader whose batches are shaped.
type shapedReader struct {
	array.RecordReader
	schema *arrow.Schema
	shapes []*shape
	cur    arrow.RecordBatch
	err    error
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
	r.cur, r.err = shapeBatch(r.RecordReader.RecordBatch(), r.schema, r.shapes)
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
