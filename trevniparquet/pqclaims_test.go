package trevniparquet_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/trevni-go/trevni/trevniarrow"

	"github.com/trevni-go/trevni/trevniparquet"
)

// writeClaim writes one batch of cols (named as in as) with arrow-go and
// the Avro schema claim under key.
func writeClaim(t *testing.T, as *arrow.Schema, cols []arrow.Array, key, claim string) string {
	t.Helper()
	rec := array.NewRecordBatch(as, cols, int64(cols[0].Len()))
	defer rec.Release()
	name := filepath.Join(t.TempDir(), "claim.parquet")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fw, err := pqarrow.NewFileWriter(as, f, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.AppendKeyValueMetadata(key, claim); err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return name
}

// A stored Avro schema is a claim about the columns, not a truth: one that
// would have other values written than the file holds is refused, with
// an error naming the key and the field (or the row and the value), under
// both keys the ecosystem uses; the same file with a true claim reads.
func TestParquetStoredSchemaClaims(t *testing.T) {
	mem := memory.NewGoAllocator()
	ints := func(v ...int32) arrow.Array {
		b := array.NewInt32Builder(mem)
		defer b.Release()
		b.AppendValues(v, nil)
		return b.NewArray()
	}
	doubles := func(v ...float64) arrow.Array {
		b := array.NewFloat64Builder(mem)
		defer b.Release()
		b.AppendValues(v, nil)
		return b.NewArray()
	}
	decimals := func(dt *arrow.Decimal128Type, v ...int64) arrow.Array {
		b := array.NewDecimal128Builder(mem, dt)
		defer b.Release()
		for _, x := range v {
			b.Append(decimal128.FromI64(x))
		}
		return b.NewArray()
	}
	binaries := func(v ...string) arrow.Array {
		b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
		defer b.Release()
		for _, x := range v {
			b.Append([]byte(x))
		}
		return b.NewArray()
	}
	structs := func() arrow.Array {
		st := arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32}, arrow.Field{Name: "y", Type: arrow.PrimitiveTypes.Int32})
		b := array.NewStructBuilder(mem, st)
		defer b.Release()
		for i := range 2 {
			b.Append(true)
			b.FieldBuilder(0).(*array.Int32Builder).Append(int32(i))
			b.FieldBuilder(1).(*array.Int32Builder).Append(int32(10 + i))
		}
		return b.NewArray()
	}
	rec := func(fields string) string {
		return `{"type":"record","name":"R","fields":[` + fields + `]}`
	}
	dec92 := &arrow.Decimal128Type{Precision: 9, Scale: 2}
	dec52 := &arrow.Decimal128Type{Precision: 5, Scale: 2}
	cases := []struct {
		name  string
		field arrow.Field
		col   func() arrow.Array
		claim string // a false claim about the columns a (int) and the field
		want  string
		truth string // a true one
	}{
		{"a column dropped", arrow.Field{Name: "b", Type: arrow.PrimitiveTypes.Float64},
			func() arrow.Array { return doubles(1.5, 2.5) },
			rec(`{"name":"a","type":"int"}`), "column b is no field",
			rec(`{"name":"a","type":"int"},{"name":"b","type":"double"}`)},
		{"a double narrowed", arrow.Field{Name: "b", Type: arrow.PrimitiveTypes.Float64},
			func() arrow.Array { return doubles(1.5, 2.5) },
			rec(`{"name":"a","type":"int"},{"name":"b","type":"float"}`), "field b: a column of doubles claimed as float",
			rec(`{"name":"a","type":"int"},{"name":"b","type":"double"}`)},
		{"a decimal's scale changed", arrow.Field{Name: "b", Type: dec92},
			func() arrow.Array { return decimals(dec92, 12345, -1) },
			rec(`{"name":"a","type":"int"},{"name":"b","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":3}}`), "field b: a column of decimal(9,2) claimed as decimal(9,3)",
			rec(`{"name":"a","type":"int"},{"name":"b","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}}`)},
		{"a decimal's precision changed", arrow.Field{Name: "b", Type: dec92},
			func() arrow.Array { return decimals(dec92, 12345, -1) },
			rec(`{"name":"a","type":"int"},{"name":"b","type":{"type":"bytes","logicalType":"decimal","precision":4,"scale":2}}`), "claimed as decimal(4,2)",
			""},
		{"a decimal as plain bytes", arrow.Field{Name: "b", Type: dec92},
			func() arrow.Array { return decimals(dec92, 12345, -1) },
			rec(`{"name":"a","type":"int"},{"name":"b","type":"bytes"}`), "field b: a column of decimal(9,2) claimed as bytes",
			""},
		{"a value beyond its precision", arrow.Field{Name: "b", Type: dec52},
			func() arrow.Array { return decimals(dec52, 12345, 1234567) },
			"", "decimal 12345.67 has more than the 5 digits of its type",
			rec(`{"name":"a","type":"int"},{"name":"b","type":{"type":"bytes","logicalType":"decimal","precision":5,"scale":2}}`)},
		{"a string over bytes that are not UTF-8", arrow.Field{Name: "b", Type: arrow.BinaryTypes.Binary},
			func() arrow.Array { return binaries("ok", "\xff\xfe") },
			rec(`{"name":"a","type":"int"},{"name":"b","type":"string"}`), `row 1, column b: bytes that are not UTF-8 (\xff\xfe) where the Avro schema has a string`,
			rec(`{"name":"a","type":"int"},{"name":"b","type":"bytes"}`)},
		{"a nested column dropped", arrow.Field{Name: "b", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32}, arrow.Field{Name: "y", Type: arrow.PrimitiveTypes.Int32})},
			structs,
			rec(`{"name":"a","type":"int"},{"name":"b","type":{"type":"record","name":"S","fields":[{"name":"x","type":"int"}]}}`), "column b.y is no field",
			rec(`{"name":"a","type":"int"},{"name":"b","type":{"type":"record","name":"S","fields":[{"name":"x","type":"int"},{"name":"y","type":"int"}]}}`)},
	}
	for _, c := range cases {
		as := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int32}, c.field}, nil)
		for _, key := range []string{trevniarrow.MetaAvroSchema, trevniparquet.MetaParquetAvroSchema} {
			claim := c.claim
			if claim == "" {
				claim = c.truth // a true schema, a value it cannot hold
			}
			a, b := ints(1, 2), c.col()
			name := writeClaim(t, as, []arrow.Array{a, b}, key, claim)
			a.Release()
			b.Release()
			_, got, err := fromParquetSuite(t, name, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s under %s: %d rows, %v; want an error saying %q", c.name, key, len(got), err, c.want)
				continue
			}
			if c.claim != "" && !strings.Contains(err.Error(), key) && !strings.Contains(c.want, "row 1") {
				t.Errorf("%s under %s: %v does not name the key", c.name, key, err)
			}
			if c.claim == "" || c.truth == "" {
				continue
			}
			a, b = ints(1, 2), c.col()
			name = writeClaim(t, as, []arrow.Array{a, b}, key, c.truth)
			a.Release()
			b.Release()
			if _, got, err := fromParquetSuite(t, name, nil); err != nil || len(got) != 2 {
				t.Errorf("%s under %s, a true claim: %d rows, %v", c.name, key, len(got), err)
			}
		}
	}
}
