package trevniparquet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/testing/ducktest"
	"github.com/trevni-go/trevni/internal/testing/longtest"
	"github.com/trevni-go/trevni/trevniarrow"

	"github.com/trevni-go/trevni/trevniparquet"
)

// parquetInfo returns the number of row groups of a Parquet file and the
// codec of its first column chunk.
func parquetInfo(t *testing.T, name string) (int, string) {
	t.Helper()
	rd, err := file.OpenParquetFile(name, false)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	cc, err := rd.MetaData().RowGroup(0).ColumnChunk(0)
	if err != nil {
		t.Fatal(err)
	}
	return rd.NumRowGroups(), strings.ToLower(cc.Compression().String())
}

// duckShapes is a DuckDB query of nested shapes and types beyond
// TestParquetFromDuckDB's: lists of lists, lists of maps, maps of int
// keys and of list values, maps of date and blob keys, structs of lists
// of structs, fixed-size arrays,
// unsigned and small integers, enums, timestamps of each unit, times,
// intervals, names that are not Avro names, and NULL at every level, over
// n rows.
func duckShapes(n int) string {
	return fmt.Sprintf(`SELECT i AS id,
		(i %% 256 - 128)::TINYINT AS i8, (i * 7 %% 65536 - 32768)::SMALLINT AS i16, (i %% 256)::UTINYINT AS u8, (i * 13 %% 65536)::USMALLINT AS u16,
		(i * 100003)::UINTEGER AS u32, (i * 1000000007)::UBIGINT AS u64,
		CASE WHEN i %% 9 = 0 THEN NULL ELSE (i %% 3)::VARCHAR END AS code,
		(['red', 'grün', 'blue'])[1 + i %% 3]::ENUM('red', 'grün', 'blue') AS colour,
		CASE WHEN i %% 5 = 0 THEN NULL ELSE [[i, NULL], NULL, [], [i * 2]] END AS lol,
		[MAP {i: 'a' || i}, NULL, MAP {}] AS lom,
		CASE WHEN i %% 4 = 1 THEN NULL ELSE MAP {i: [i, NULL], -i - 1: NULL} END AS mil,
		{'s': CASE WHEN i %% 3 = 0 THEN NULL ELSE [{'x': i, 'y': CASE WHEN i %% 2 = 0 THEN NULL ELSE i / 4 END}, NULL] END,
		 'n': CASE WHEN i %% 8 = 0 THEN NULL ELSE {'deep': [[{'z': i::VARCHAR}]]} END} AS st,
		[i, i + 1, i + 2]::INTEGER[3] AS arr,
		(i * 1.5)::REAL AS r, CASE WHEN i %% 11 = 0 THEN 'NaN'::DOUBLE WHEN i %% 13 = 0 THEN '-inf'::DOUBLE ELSE i / 7 END AS dd,
		make_timestamp(1600000000000000 + i * 1000001) AS ts_us,
		epoch_ms(1600000000000 + i * 1001) AS ts_ms,
		make_timestamp_ns(1600000000000000000 + i * 1000000007) AS ts_ns,
		to_timestamp(1600000000 + i) AS ts_tz,
		(TIME '01:02:03' + INTERVAL (i * 1000007) MICROSECOND) AS t,
		(i * 99991 %% 1000000000 / 100)::DECIMAL(9, 2) AS d9, (i %% 10000 / -10000)::DECIMAL(4, 4) AS frac,
		CASE WHEN i %% 10 = 0 THEN NULL ELSE repeat('é✓', i %% 5) END AS "my txt",
		{'x-y': i, 'ok': 'v'} AS "st.1", [{'a b': i}, NULL] AS "1st",
		MAP {DATE '2020-01-01' + i::INTEGER: i, DATE '1900-03-01': NULL} AS datemap,
		CASE WHEN i %% 7 = 0 THEN NULL ELSE MAP {('\x' || lpad(to_hex(i %% 256), 2, '0'))::BLOB: [i]} END AS blobmap,
		CASE WHEN i %% 6 = 0 THEN NULL ELSE to_months((i %% 30)::INTEGER) + to_days((i %% 40)::INTEGER) + to_milliseconds(i * 1234567) END AS span,
		[to_days(i::INTEGER), INTERVAL 0 SECOND] AS spans
		FROM range(0, %d) t(i)`, n)
}

// Parquet files DuckDB writes of duckShapes, with each codec DuckDB offers
// (snappy, zstd, gzip, uncompressed, lz4_raw, brotli), Parquet format
// versions 1 and 2 (DuckDB's version 2 writes data pages v2 and the delta
// and byte-stream-split encodings), in several row groups: fromparquet
// converts each into what DuckDB reads from it. Every codec is written
// in one version, the versions taking turns, 2,100 rows each; with
// TREVNI_LONG_TESTS=1 every codec in both versions, 3,000 rows each.
func TestParquetFromDuckDBShapes(t *testing.T) {
	dir := t.TempDir()
	// DuckDB cuts row groups at multiples of its vectors, 2,048 rows.
	rows, versions := 2100, 1
	if longtest.On() {
		rows, versions = 3000, 2
	}
	query := duckShapes(rows)
	var args, files []string
	for i, codec := range []string{"snappy", "zstd", "gzip", "uncompressed", "lz4_raw", "brotli"} {
		for v := range versions {
			version := []string{"V1", "V2"}[(i+v)%2]
			f := filepath.Join(dir, fmt.Sprintf("%s-%s.parquet", codec, version))
			args = append(args, fmt.Sprintf("sql:COPY (%s) TO '%s' (FORMAT parquet, COMPRESSION %s, PARQUET_VERSION %s, ROW_GROUP_SIZE %d)",
				query, f, codec, version, 1000+i*100))
			files = append(files, f)
		}
	}
	reads := ducktest.ReadParquet(t, append(args, files...)...)
	for i, f := range files {
		groups, c := parquetInfo(t, f)
		if groups < 2 || c != strings.Split(filepath.Base(f), "-")[0] {
			t.Fatalf("%s: %d row groups, codec %s", f, groups, c)
		}
		s, got, err := fromParquetSuite(t, f, &trevniparquet.ReadOptions{BatchRows: 100 + i*rows/10})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := ducktest.Diff(s, got, reads[f]); err != nil {
			t.Fatalf("%s: %v\n%s", f, err, s)
		}
	}
}

// arrowGoCodecs are the codecs arrow-go's Parquet writer offers.
var arrowGoCodecs = []compress.Compression{
	compress.Codecs.Uncompressed, compress.Codecs.Snappy, compress.Codecs.Gzip,
	compress.Codecs.Zstd, compress.Codecs.Lz4Raw, compress.Codecs.Brotli,
}

// Parquet files arrow-go writes (pqarrow, no Avro or Arrow schema kept) of
// the Arrow batches of random Avro schemas (records, arrays, maps, unions
// as structs, logical types; nullable at every level), with each codec,
// data pages v1 and v2, dictionaries on and off, several row groups:
// fromparquet converts each, with the Avro schema inferred, into what
// DuckDB reads from it.
func TestParquetFromArrowGoRandom(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	seeds := uint64(longtest.Rounds(12, 48))
	var files []string
	for seed := range seeds {
		src, _, _ := writeRandomWith(t, 3000+seed, 150, inDuckDomain)
		ds, err := trevni.Open(ctx, src, nil)
		if err != nil {
			t.Fatal(err)
		}
		rr, err := trevniarrow.NewRecordReader(ctx, ds, &trevniarrow.ReadOptions{BatchRows: 40, Schema: trevniarrow.SchemaOptions{Parquet: true}})
		if err != nil {
			t.Fatalf("seed %d: %v", 3000+seed, err)
		}
		codec := arrowGoCodecs[seed%uint64(len(arrowGoCodecs))]
		version := parquet.DataPageV1
		if seed%2 == 1 {
			version = parquet.DataPageV2
		}
		props := parquet.NewWriterProperties(parquet.WithCompression(codec), parquet.WithMaxRowGroupLength(int64(30+seed%4*10)),
			parquet.WithDataPageVersion(version), parquet.WithDictionaryDefault(seed%3 != 0), parquet.WithDataPageSize(512))
		name := filepath.Join(dir, fmt.Sprintf("arrowgo-%d.parquet", seed))
		f, err := os.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		fw, err := pqarrow.NewFileWriter(rr.Schema(), f, props, pqarrow.DefaultWriterProps())
		if err != nil {
			t.Fatalf("seed %d: %v", 3000+seed, err)
		}
		for rr.Next() {
			if err := fw.Write(rr.RecordBatch()); err != nil {
				t.Fatalf("seed %d: %v", 3000+seed, err)
			}
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		rr.Release()
		if err := fw.Close(); err != nil {
			t.Fatal(err)
		}
		groups, c := parquetInfo(t, name)
		if groups < 2 || c != strings.ToLower(codec.String()) {
			t.Fatalf("%s: %d row groups, codec %s", name, groups, c)
		}
		files = append(files, name)
	}
	reads := ducktest.ReadParquet(t, files...)
	for i, f := range files {
		s, got, err := fromParquetSuite(t, f, &trevniparquet.ReadOptions{BatchRows: 7 + i*11})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := ducktest.Diff(s, got, reads[f]); err != nil {
			t.Fatalf("%s: %v\n%s", f, err, s)
		}
	}
}
