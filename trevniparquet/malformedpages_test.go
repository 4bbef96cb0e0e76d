package trevniparquet_test

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/trevni-go/trevni/trevniparquet"
)

// levelsFile is a Parquet file arrow-go writes, uncompressed, data pages
// v1, one row group: s.x (an int32 in an optional struct: definition
// levels up to 2, two bits each), ll (a list of lists of int32:
// repetition levels up to 2), d (strings from a dictionary of three).
// Every row is the same, so each column's levels are one RLE run.
func levelsFile(t *testing.T) []byte {
	t.Helper()
	mem := memory.DefaultAllocator
	st := arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true})
	ll := arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Int32))
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: st, Nullable: true},
		{Name: "ll", Type: ll, Nullable: true},
		{Name: "d", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	sb := b.Field(0).(*array.StructBuilder)
	lb := b.Field(1).(*array.ListBuilder)
	db := b.Field(2).(*array.StringBuilder)
	const rows = 100
	for i := range rows {
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Int32Builder).Append(7)
		lb.Append(true)
		inner := lb.ValueBuilder().(*array.ListBuilder)
		inner.Append(true)
		inner.ValueBuilder().(*array.Int32Builder).Append(5)
		db.Append([]string{"red", "green", "blue"}[i%3])
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Uncompressed),
		parquet.WithDataPageVersion(parquet.DataPageV1), parquet.WithDictionaryDefault(false),
		parquet.WithDictionaryFor("d", true), parquet.WithStats(false))
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sc, &buf, props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// dataPage returns the offset in data of the bytes of the first data
// page of column c (after its header) and their size.
func dataPage(t *testing.T, data []byte, c int) (int64, int64) {
	t.Helper()
	rd, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	cc, err := rd.MetaData().RowGroup(0).ColumnChunk(c)
	if err != nil {
		t.Fatal(err)
	}
	off := cc.DataPageOffset()
	hdr, n, err := trevniparquet.PageHeaderSize(data, off)
	if err != nil {
		t.Fatal(err)
	}
	return off + int64(hdr), n
}

// Pages whose levels or dictionary indices no reader can take (hand-made
// from a valid file by changing one byte of a page) are refused, naming
// the row group, the column and the page, before any value is made of
// them: a definition level above the column's maximum, a repetition
// level above it, a dictionary index bit width over 32, indices beyond
// the dictionary.
func TestParquetMalformedPages(t *testing.T) {
	good := levelsFile(t)
	if n, err := fromParquet(good); err != nil || n != 100 {
		t.Fatalf("the intact file: %d rows, %v", n, err)
	}
	for _, tc := range []struct {
		name   string
		column int
		// change changes the page's bytes (levels, then values).
		change func(page []byte)
		want   string
	}{
		// Definition levels: a 4-byte length, then one RLE run of
		// 100 levels of 2 (varint 200, then the value's byte): 3 is
		// above s.x's maximum, 2.
		{"definition level above the maximum", 0, func(p []byte) {
			if binary.LittleEndian.Uint32(p) != 3 || p[4] != 200 || p[5] != 1 || p[6] != 2 {
				t.Fatalf("levels % x", p[:8])
			}
			p[6] = 3
		}, "definition level 3 above the column's maximum 2"},
		// Repetition levels first: one RLE run of 100 levels of 0;
		// 3 is above ll's maximum, 2.
		{"repetition level above the maximum", 1, func(p []byte) {
			if binary.LittleEndian.Uint32(p) != 3 || p[6] != 0 {
				t.Fatalf("levels % x", p[:8])
			}
			p[6] = 3
		}, "repetition level 3 above the column's maximum 2"},
		// d's definition levels (one RLE run of 1s, 7 bytes), then the
		// indices' bit width (2 for three entries).
		{"index bit width over 32", 2, func(p []byte) {
			if p[7] != 2 {
				t.Fatalf("bit width %d", p[7])
			}
			p[7] = 40
		}, "dictionary index bit width 40"},
		{"indices beyond the dictionary", 2, func(p []byte) {
			p[7] = 8
		}, "dictionary"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := bytes.Clone(good)
			off, n := dataPage(t, data, tc.column)
			tc.change(data[off : off+n])
			_, err := fromParquet(data)
			if err == nil {
				t.Fatal("read")
			}
			t.Log(err)
			for _, w := range []string{"Parquet row group 0", "page", tc.want} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v: want %q in it", err, w)
				}
			}
		})
	}
}
