package trevniarrow_test

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/linkedin/goavro/v2"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/trevniarrow"
)

// foreignSchema holds the Arrow types Avro has no type of their own for,
// which the inferred Avro schema keeps in properties: narrow and unsigned
// integers, TIME in nanoseconds, a map of keys other than strings, and
// (ParquetExtension) a TIME adjusted to UTC, a GEOMETRY and a GEOGRAPHY.
func foreignSchema() *arrow.Schema {
	m := arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.FixedWidthTypes.Boolean)
	m.SetItemNullable(true)
	return arrow.NewSchema([]arrow.Field{
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8},
		{Name: "i16", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "u8", Type: arrow.PrimitiveTypes.Uint8},
		{Name: "u16", Type: arrow.PrimitiveTypes.Uint16, Nullable: true},
		{Name: "u32", Type: arrow.PrimitiveTypes.Uint32},
		{Name: "u64", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
		{Name: "tns", Type: arrow.FixedWidthTypes.Time64ns, Nullable: true},
		{Name: "m", Type: m, Nullable: true},
		{Name: "list8", Type: arrow.ListOf(arrow.PrimitiveTypes.Int8), Nullable: true},
		{Name: "tutc", Type: trevniarrow.NewParquetType(arrow.FixedWidthTypes.Time32ms, pqschema.NewTimeLogicalType(true, pqschema.TimeUnitMillis))},
		{Name: "tusutc", Type: trevniarrow.NewParquetType(arrow.FixedWidthTypes.Time64us, pqschema.NewTimeLogicalType(true, pqschema.TimeUnitMicros)), Nullable: true},
		{Name: "geom", Type: trevniarrow.NewParquetType(arrow.BinaryTypes.Binary, pqschema.GeometryLogicalType{Crs: "srid:5070"}), Nullable: true},
		{Name: "geog", Type: trevniarrow.NewParquetType(arrow.BinaryTypes.Binary, pqschema.GeographyLogicalType{Algorithm: pqschema.GeographyEdgeKarney})},
	}, nil)
}

// foreignBatch returns n random rows of foreignSchema, the extremes of
// each integer type among them.
func foreignBatch(seed uint64, n int) arrow.RecordBatch {
	r := rand.New(rand.NewPCG(seed, 38))
	b := array.NewRecordBuilder(memory.NewGoAllocator(), foreignSchema())
	defer b.Release()
	null := func(i int) bool { return i%7 == 3 }
	for i := range n {
		pick := func(lo, hi int64) int64 {
			switch i % 5 {
			case 0:
				return lo
			case 1:
				return hi
			}
			return lo + r.Int64N(hi-lo) // hi itself is case 1
		}
		b.Field(0).(*array.Int8Builder).Append(int8(pick(math.MinInt8, math.MaxInt8)))
		if null(i) {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Int16Builder).Append(int16(pick(math.MinInt16, math.MaxInt16)))
		}
		b.Field(2).(*array.Uint8Builder).Append(uint8(pick(0, math.MaxUint8)))
		if null(i) {
			b.Field(3).AppendNull()
		} else {
			b.Field(3).(*array.Uint16Builder).Append(uint16(pick(0, math.MaxUint16)))
		}
		b.Field(4).(*array.Uint32Builder).Append(uint32(pick(0, math.MaxUint32)))
		if null(i) {
			b.Field(5).AppendNull()
		} else {
			// All 64 bits: those of 2^63 and up too.
			u := r.Uint64()
			switch i % 5 {
			case 0:
				u = 0
			case 1:
				u = math.MaxUint64
			}
			b.Field(5).(*array.Uint64Builder).Append(u)
		}
		if null(i) {
			b.Field(6).AppendNull()
		} else {
			b.Field(6).(*array.Time64Builder).Append(arrow.Time64(pick(0, 86400e9-1)))
		}
		mb := b.Field(7).(*array.MapBuilder)
		if null(i) {
			mb.AppendNull()
		} else {
			mb.Append(true)
			for k := range r.IntN(4) {
				mb.KeyBuilder().(*array.Int32Builder).Append(int32(k*1000) - r.Int32N(1000))
				if r.IntN(3) == 0 {
					mb.ItemBuilder().AppendNull()
				} else {
					mb.ItemBuilder().(*array.BooleanBuilder).Append(r.IntN(2) == 0)
				}
			}
		}
		lb := b.Field(8).(*array.ListBuilder)
		lb.Append(true)
		for range r.IntN(3) {
			lb.ValueBuilder().(*array.Int8Builder).Append(int8(pick(math.MinInt8, math.MaxInt8)))
		}
		b.Field(9).(*array.ExtensionBuilder).Builder.(*array.Time32Builder).Append(arrow.Time32(pick(0, 86400e3-1)))
		b.Field(10).(*array.ExtensionBuilder).Builder.(*array.Time64Builder).Append(arrow.Time64(pick(0, 86400e6-1)))
		wkb := make([]byte, 5+r.IntN(30))
		for k := range wkb {
			wkb[k] = byte(r.IntN(256))
		}
		if null(i) {
			b.Field(11).AppendNull()
		} else {
			b.Field(11).(*array.ExtensionBuilder).Builder.(*array.BinaryBuilder).Append(wkb)
		}
		b.Field(12).(*array.ExtensionBuilder).Builder.(*array.BinaryBuilder).Append(wkb[:3])
	}
	return b.NewRecordBatch()
}

// The Arrow types Avro has no type for come back from a Trevni file
// written from them: the inferred Avro schema (valid Avro) keeps them in
// properties, and the batches read back have the original types and
// values; with the Parquet mapping, the Parquet logical types of
// ParquetExtension too (without it, their storage types).
func TestForeignArrowTypesComeBack(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(4) {
		rec := foreignBatch(seed, 200+int(seed)*37)
		text, err := trevniarrow.AvroSchema(rec.Schema())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := schema.Parse(text); err != nil {
			t.Fatalf("the inferred schema is not Avro: %v\n%s", err, text)
		}
		// Another implementation of Avro takes it as well.
		if _, err := goavro.NewCodec(text); err != nil {
			t.Fatalf("goavro refuses the inferred schema: %v\n%s", err, text)
		}
		for _, want := range []string{`"arrow.type":"int8"`, `"arrow.type":"uint64"`, `"arrow.type":"map"`, `"parquet.adjustedToUTC":true`, `"parquet.crs":"srid:5070"`, `"parquet.edges":"karney"`} {
			if !strings.Contains(text, want) {
				t.Errorf("the inferred schema has no %s: %s", want, text)
			}
		}
		name := filepath.Join(t.TempDir(), "foreign.trv")
		w, err := trevni.Create(ctx, name, text, nil)
		if err != nil {
			t.Fatal(err)
		}
		rr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := trevniarrow.WriteAll(ctx, w, rr); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		// Without ForeignTypes (toarrow, trevni sql), the Avro types'
		// own Arrow types, as before the marks.
		plain, err := trevniarrow.ArrowSchema(mustParse(t, text), &trevniarrow.SchemaOptions{Parquet: true})
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []string{"int32", "int32", "int32", "int32", "int64", "int64", "int64", "list<item: struct<key: int32, value: bool nullable>>", "list<item: int32, nullable>", "time32[ms]", "time64[us]", "binary", "binary"} {
			if got := plain.Field(i).Type.String(); got != want {
				t.Errorf("without ForeignTypes, %s is %s, want %s", plain.Field(i).Name, got, want)
			}
		}
		for _, parquet := range []bool{false, true} {
			ds, err := trevni.Open(ctx, name, nil)
			if err != nil {
				t.Fatal(err)
			}
			back, err := trevniarrow.NewRecordReader(ctx, ds, &trevniarrow.ReadOptions{BatchRows: 33, Schema: trevniarrow.SchemaOptions{Parquet: parquet, ForeignTypes: true}})
			if err != nil {
				t.Fatal(err)
			}
			row := int64(0)
			for back.Next() {
				got := back.RecordBatch()
				if err := array.ValidateRecordFull(got); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				for c, f := range rec.Schema().Fields() {
					col := rec.Column(c)
					if _, ok := f.Type.(arrow.ExtensionType); ok && !parquet {
						col = col.(array.ExtensionArray).Storage()
					}
					want := array.NewSlice(col, row, row+got.NumRows())
					if !arrow.TypeEqual(got.Column(c).DataType(), want.DataType()) {
						t.Fatalf("seed %d, parquet %v: %s comes back as %s, want %s", seed, parquet, f.Name, got.Column(c).DataType(), want.DataType())
					}
					if !array.Equal(got.Column(c), want) {
						t.Fatalf("seed %d, parquet %v: %s rows %d to %d:\n got %v\nwant %v", seed, parquet, f.Name, row, row+got.NumRows(), got.Column(c), want)
					}
					want.Release()
				}
				row += got.NumRows()
			}
			if err := back.Err(); err != nil {
				t.Fatal(err)
			}
			back.Release()
			ds.Close()
			if row != rec.NumRows() {
				t.Fatalf("seed %d: %d rows back, want %d", seed, row, rec.NumRows())
			}
		}
		rec.Release()
	}
}

func mustParse(t *testing.T, text string) *schema.Schema {
	t.Helper()
	s, err := schema.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// BenchmarkToArrowForeign reads batches of the marked types
// (foreignSchema: narrowed integers checked in range, maps of int keys,
// the Parquet extension types) from a Trevni file of 20,000 rows.
func BenchmarkToArrowForeign(b *testing.B) {
	ctx := context.Background()
	rec := foreignBatch(1, 20000)
	defer rec.Release()
	text, err := trevniarrow.AvroSchema(rec.Schema())
	if err != nil {
		b.Fatal(err)
	}
	name := filepath.Join(b.TempDir(), "foreign.trv")
	w, err := trevni.Create(ctx, name, text, nil)
	if err != nil {
		b.Fatal(err)
	}
	rr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := trevniarrow.WriteAll(ctx, w, rr); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	ds, err := trevni.Open(ctx, name, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ds.Close()
	b.ReportAllocs()
	for b.Loop() {
		back, err := trevniarrow.NewRecordReader(ctx, ds, &trevniarrow.ReadOptions{Schema: trevniarrow.SchemaOptions{Parquet: true, ForeignTypes: true}})
		if err != nil {
			b.Fatal(err)
		}
		rows := int64(0)
		for back.Next() {
			rows += back.RecordBatch().NumRows()
		}
		if back.Err() != nil || rows != rec.NumRows() {
			b.Fatalf("%d rows of %d: %v", rows, rec.NumRows(), back.Err())
		}
		back.Release()
	}
}
