package trevniparquet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/internal/testing/ducktest"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/shred"
	"github.com/trevni-go/trevni/typemap"

	"github.com/trevni-go/trevni/trevniparquet"
)

// DuckDB reads the Parquet files toparquet writes of every interop vector
// and of random schemas: its row counts, and every value of every row,
// are the records'.
func TestDuckDBReadsParquet(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	type job struct {
		label string
		s     *schema.Schema
		want  []any
	}
	jobs := map[string]job{}
	var files []string
	add := func(label, name string, codec string) {
		ds, err := trevni.Open(ctx, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		var want []any
		for v, err := range ds.All(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, v)
		}
		out := filepath.Join(dir, fmt.Sprintf("%d.parquet", len(files)))
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := trevniparquet.Write(ctx, f, ds, &trevniparquet.WriteOptions{Codec: codec, RowGroupRows: 100}); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		jobs[out] = job{label, frontdoor.Schema(ds), want}
		files = append(files, out)
	}
	vectors, err := filepath.Glob("../testdata/interop/*/*.snappy.crc32.trv")
	if err != nil || len(vectors) < 8 {
		t.Fatalf("interop vectors: %v %v", vectors, err)
	}
	for i, v := range vectors {
		add(v, v, []string{"snappy", "zstd", "gzip", "none"}[i%4])
	}
	for seed := range uint64(40) {
		name, _, _ := writeRandomWith(t, 1000+seed, int(seed%7)+1, inDuckDomain)
		add(fmt.Sprintf("random seed %d", 1000+seed), name, "snappy")
	}
	// Schemas that Write writes straight from the Trevni columns.
	for seed := range uint64(20) {
		name, _, _ := writeDirectRandomWith(t, 2000+seed, int(seed%9)+1, inDuckDomain)
		add(fmt.Sprintf("direct random seed %d", 2000+seed), name, []string{"snappy", "zstd", "gzip", "none"}[seed%4])
	}
	reads := ducktest.ReadParquet(t, files...)
	for _, f := range files {
		j := jobs[f]
		ducktest.Check(t, j.label, j.s, j.want, reads[f])
	}
}

// inDuckDomain brings the times of day of a random value within a day,
// and its timestamps within 9e9 seconds of 1970: Avro allows any int or
// long, DuckDB's TIME only times of a day, and its timestamps a range.
func inDuckDomain(s *schema.Schema, v any) any {
	if v == nil {
		return nil
	}
	switch s.Kind {
	case schema.Union:
		i, inner, err := typemap.ResolveUnion(s, v)
		if err != nil || s.Branches[i].Kind == schema.Null {
			return v
		}
		return typemap.WrapUnion(s, i, inDuckDomain(s.Branches[i], inner))
	case schema.Record:
		m := v.(map[string]any)
		for _, f := range s.Fields {
			m[f.Name] = inDuckDomain(f.Type, m[f.Name])
		}
	case schema.Array:
		a := v.([]any)
		for i := range a {
			a[i] = inDuckDomain(s.Items, a[i])
		}
	case schema.Map:
		m := v.(map[string]any)
		for k, x := range m {
			m[k] = inDuckDomain(s.Values, x)
		}
	case schema.Int, schema.Long:
		if t, ok := v.(time.Time); ok && s.Logical != schema.LogicalDate {
			// DuckDB's TIMESTAMP_NS ends in 2262: within 9e9 s of 1970.
			t = time.Unix(t.Unix()%9e9, int64(t.Nanosecond())).In(t.Location())
			if s.Logical == schema.LogicalTimestampNanos {
				// DuckDB reads a UTC timestamp in nanoseconds as
				// TIMESTAMPTZ, in microseconds.
				t = t.Truncate(time.Microsecond)
			}
			return t
		}
		if n, ok := v.(int64); ok && logicalUnit(s.Logical) != 0 {
			per := int64(1e9) / logicalUnit(s.Logical)
			n = n/per%9e9*per + n%per
			if s.Logical == schema.LogicalTimestampNanos {
				n -= n % 1000
			}
			return n
		}
		if s.Logical == schema.LogicalTimeMillis || s.Logical == schema.LogicalTimeMicros {
			d := v.(time.Duration) % (24 * time.Hour)
			if d < 0 {
				d += 24 * time.Hour
			}
			return d
		}
	}
	return v
}

// logicalUnit is the nanoseconds of the unit of the timestamps goavro keeps
// as int64; 0 for other types.
func logicalUnit(l schema.LogicalType) int64 {
	switch l {
	case schema.LogicalLocalTimestampMillis:
		return 1e6
	case schema.LogicalLocalTimestampMicros:
		return 1e3
	case schema.LogicalTimestampNanos, schema.LogicalLocalTimestampNanos:
		return 1
	}
	return 0
}

// Parquet files DuckDB writes (nested, nullable at every level, several
// row groups, each codec) convert to Trevni, with the Avro schema
// inferred, and read back equal to what DuckDB reads from them.
func TestParquetFromDuckDB(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	query := `SELECT i::INTEGER AS id,
		CASE WHEN i % 7 = 0 THEN NULL ELSE i * 1000003 END::BIGINT AS big,
		(i / 3)::DOUBLE AS d, (i / 7)::FLOAT AS f, i % 2 = 0 AS flag,
		CASE WHEN i % 5 = 0 THEN NULL ELSE 'name ' || i END AS name,
		('\x' || lpad(to_hex(i % 256), 2, '0'))::BLOB AS raw,
		(i * 12345)::DECIMAL(18, 3) AS amount, (i * 7)::DECIMAL(38, 10) AS wide,
		DATE '2000-01-01' + i::INTEGER AS day, TIMESTAMP '2000-01-01 00:00:00' + INTERVAL (i) SECOND AS at,
		TIMESTAMPTZ '2000-01-01 00:00:00+00' + INTERVAL (i * 1001) MILLISECOND AS at_utc,
		TIME '00:00:00' + INTERVAL (i) SECOND AS tod,
		CASE WHEN i % 4 = 0 THEN NULL ELSE [i, NULL, i + 1] END AS ints,
		[{'k': i, 'v': CASE WHEN i % 3 = 0 THEN NULL ELSE 'v' || i END}, NULL] AS pairs,
		CASE WHEN i % 6 = 0 THEN NULL ELSE {'a': i, 'b': {'c': [i::VARCHAR], 'd': NULL::INTEGER}} END AS nested,
		MAP {'x': i, 'y': NULL} AS m, gen_random_uuid() AS id2
		FROM range(0, 2500) t(i)`
	var args, files []string
	for _, codec := range []string{"snappy", "zstd", "gzip", "uncompressed"} {
		f := filepath.Join(dir, codec+".parquet")
		args = append(args, fmt.Sprintf("sql:COPY (%s) TO '%s' (FORMAT parquet, COMPRESSION %s, ROW_GROUP_SIZE 1000)", query, f, codec))
		files = append(files, f)
	}
	reads := ducktest.ReadParquet(t, append(args, files...)...)
	for _, f := range files {
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := trevniparquet.Open(in, nil)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		s, err := schema.Parse(pf.AvroSchema())
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, filepath.Base(f)+".trv")
		w, err := trevni.Create(context.Background(), out, pf.AvroSchema(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pf.WriteTo(ctx, w); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		pf.Close()
		in.Close()
		ducktest.Check(t, f, s, readAll(t, out), reads[f])
	}
}

// A Parquet file arrow-go writes from Arrow types of its own (small and
// unsigned integers, large strings, half floats, second timestamps, nested
// nullable lists, maps and structs), in three row groups without an Avro
// schema, with each codec arrow-go offers, converts with the inferred
// schema and reads back equal to what DuckDB reads from it.
func TestParquetFromArrowGo(t *testing.T) {
	ctx := context.Background()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8},
		{Name: "u16", Type: arrow.PrimitiveTypes.Uint16, Nullable: true},
		{Name: "u32", Type: arrow.PrimitiveTypes.Uint32},
		{Name: "u64", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Second, TimeZone: "UTC"}},
		{Name: "t32", Type: arrow.FixedWidthTypes.Time32s},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 20, Scale: 4}, Nullable: true},
		{Name: "list", Type: arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.PrimitiveTypes.Int64, Nullable: true}), Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64)},
		{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true}, arrow.Field{Name: "b", Type: arrow.FixedWidthTypes.Boolean}), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := range 300 {
		b.Field(0).(*array.Int8Builder).Append(int8(i))
		if i%3 == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Uint16Builder).Append(uint16(i * 200))
		}
		b.Field(2).(*array.Uint32Builder).Append(uint32(i) * 14000000)
		b.Field(3).(*array.Uint64Builder).Append(uint64(i) << 50)
		if i%4 == 0 {
			b.Field(4).AppendNull()
		} else {
			b.Field(4).(*array.LargeStringBuilder).Append(fmt.Sprintf("s%d ✓", i))
		}
		b.Field(5).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(i) * 86399))
		b.Field(6).(*array.Time32Builder).Append(arrow.Time32(i * 281))
		if i%5 == 0 {
			b.Field(7).AppendNull()
		} else {
			b.Field(7).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i*i) - 3000))
		}
		lb := b.Field(8).(*array.ListBuilder)
		if i%6 == 0 {
			lb.AppendNull()
		} else {
			lb.Append(true)
			for k := range i % 4 {
				if k == 1 {
					lb.ValueBuilder().AppendNull()
				} else {
					lb.ValueBuilder().(*array.Int64Builder).Append(int64(i * k))
				}
			}
		}
		mb := b.Field(9).(*array.MapBuilder)
		mb.Append(true)
		for k := range i % 3 {
			mb.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprintf("k%d", k))
			mb.ItemBuilder().(*array.Float64Builder).Append(float64(i) / float64(k+1))
		}
		sb := b.Field(10).(*array.StructBuilder)
		if i%7 == 0 {
			sb.AppendNull()
		} else {
			sb.Append(true)
			if i%2 == 0 {
				sb.FieldBuilder(0).AppendNull()
			} else {
				sb.FieldBuilder(0).(*array.StringBuilder).Append(fmt.Sprint(i))
			}
			sb.FieldBuilder(1).(*array.BooleanBuilder).Append(i%2 == 0)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	dir := t.TempDir()
	var files []string
	for _, codec := range arrowGoCodecs {
		name := filepath.Join(dir, "arrowgo-"+codec.String()+".parquet")
		f, err := os.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(100), parquet.WithCompression(codec))
		fw, err := pqarrow.NewFileWriter(sc, f, props, pqarrow.DefaultWriterProps())
		if err != nil {
			t.Fatal(err)
		}
		if err := fw.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := fw.Close(); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
	}
	reads := ducktest.ReadParquet(t, files...)
	for _, name := range files {
		in, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := trevniparquet.Open(in, nil)
		if err != nil {
			t.Fatal(err)
		}
		if pf.NumRows() != 300 || pf.Schema().NumFields() != sc.NumFields() {
			t.Fatalf("%s: %d rows, %d columns", name, pf.NumRows(), pf.Schema().NumFields())
		}
		s, err := schema.Parse(pf.AvroSchema())
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, filepath.Base(name)+".trv")
		w, err := trevni.Create(context.Background(), out, pf.AvroSchema(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pf.WriteTo(ctx, w); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		pf.Close()
		in.Close()
		ducktest.Check(t, name, s, readAll(t, out), reads[name])
	}
}

// parquetGoFile is a Parquet file written by parquet-go
// (testdata/parquetgo/README.md says how): lists of strings and of
// structs, an optional int, snappy.
const parquetGoFile = "testdata/parquetgo/large300.parquet"

// fromParquetGo converts parquetGoFile with fromparquet's code and returns
// the Avro schema and the records of the Trevni file.
func fromParquetGo(t *testing.T) (*schema.Schema, []any) {
	t.Helper()
	in, err := os.Open(parquetGoFile)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	pf, err := trevniparquet.Open(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	s, err := schema.Parse(pf.AvroSchema())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "pqgo.trv")
	w, err := trevni.Create(context.Background(), out, pf.AvroSchema(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := pf.WriteTo(context.Background(), w); err != nil || n != 300 {
		t.Fatalf("%d rows: %v", n, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return s, readAll(t, out)
}

// The parquet-go file converts into the records of the Avro file it was
// written from.
func TestParquetFromParquetGo(t *testing.T) {
	_, got := fromParquetGo(t)
	// The Avro file's records, through a Trevni file of them.
	avro, err := os.Open("testdata/parquetgo/large300.avro")
	if err != nil {
		t.Fatal(err)
	}
	defer avro.Close()
	src := filepath.Join(t.TempDir(), "src.trv")
	sf, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := shred.FromContainer(context.Background(), sf, avro, nil); err != nil {
		t.Fatal(err)
	}
	if err := sf.Close(); err != nil {
		t.Fatal(err)
	}
	want := readAll(t, src)
	if len(got) != len(want) {
		t.Fatalf("%d records from Parquet, %d in the Avro file", len(got), len(want))
	}
	for i := range want {
		if !avrorand.EqualNative(got[i], want[i]) {
			t.Fatalf("record %d\n got %v\nwant %v", i, got[i], want[i])
		}
	}
}

// The parquet-go file converts into what DuckDB reads from it.
func TestParquetFromParquetGoDuckDB(t *testing.T) {
	s, got := fromParquetGo(t)
	reads := ducktest.ReadParquet(t, parquetGoFile)
	ducktest.Check(t, parquetGoFile, s, got, reads[parquetGoFile])
}
