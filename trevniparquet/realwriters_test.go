package trevniparquet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/internal/testing/ducktest"
	"github.com/trevni-go/trevni/schema"

	"github.com/trevni-go/trevni/trevniparquet"
)

// realWriterFiles returns the Parquet files under dir.
func realWriterFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".parquet") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// fromParquetSuite converts a Parquet file as fromparquet does (batches of
// 7 rows, so that records span batches) and returns the Avro schema and
// the records of the Trevni file.
func fromParquetSuite(t *testing.T, name string, opts *trevniparquet.ReadOptions) (*schema.Schema, []any, error) {
	t.Helper()
	s, out, err := fromParquetSuiteFile(t, name, opts)
	if err != nil {
		return nil, nil, err
	}
	return s, readAll(t, out), nil
}

// fromParquetSuiteFile converts a Parquet file as fromparquet does, map
// entries in the file's order, and returns the Avro schema and the Trevni
// file's name.
func fromParquetSuiteFile(t *testing.T, name string, opts *trevniparquet.ReadOptions) (*schema.Schema, string, error) {
	t.Helper()
	in, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	o := trevniparquet.ReadOptions{BatchRows: 7}
	if opts != nil {
		o = *opts
	}
	pf, err := trevniparquet.Open(in, &o)
	if err != nil {
		return nil, "", err
	}
	defer pf.Close()
	s, err := schema.Parse(pf.AvroSchema())
	if err != nil {
		return nil, "", err
	}
	out := filepath.Join(t.TempDir(), filepath.Base(name)+".trv")
	wo := &trevni.WriteOptions{}
	frontdoor.KeepMapOrder(wo) // a MAP's entries in the file's order, as fromparquet writes them
	w, err := trevni.Create(context.Background(), out, pf.AvroSchema(), wo)
	if err != nil {
		return nil, "", err
	}
	if _, err := pf.WriteTo(context.Background(), w); err != nil {
		w.Abort()
		return nil, "", err
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return s, out, nil
}

// toParquetSuite writes a Trevni file as toparquet does and returns the
// Parquet file's name.
func toParquetSuite(t *testing.T, trv string) string {
	t.Helper()
	ctx := context.Background()
	ds, err := trevni.Open(ctx, trv, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	out := strings.TrimSuffix(trv, ".trv") + ".back.parquet"
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := trevniparquet.Write(ctx, f, ds, nil); err != nil {
		t.Fatalf("%s: toparquet: %v", trv, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// suiteExceptions are the rows of the suites' files where DuckDB's
// reading is not the truth, each with why; the other rows of those files
// are compared.
var suiteExceptions = map[string]struct {
	rows   []int
	reason string
}{
	// Spark writes 290000-12-31 with a negative Julian day and negative
	// nanoseconds (its arithmetic wrapped), and reads it back by the same
	// wrapping arithmetic; DuckDB takes the day for unsigned. The file's
	// int96_from_spark.md gives Spark's value, which
	// TestParquetInt96FromSpark checks.
	"int96_from_spark.parquet": {rows: []int{5}, reason: "DuckDB reads the 290000-12-31 INT96 as another instant"},
}

// suiteRefused are the suites' files DuckDB reads that we refuse, each
// with what our refusal says: the two whose page CRCs do not match, which
// are damaged. When one reads, this test fails until it is taken off the
// list and compared.
var suiteRefused = map[string]string{
	"datapage_v1-corrupt-checksum.parquet":           "CRC-32",
	"rle-dict-uncompressed-corrupt-checksum.parquet": "CRC-32",
}

// Every file of the suites (testdata/realwriters, or the directory
// TREVNI_PARQUET_SUITE names: apache/parquet-testing's data/,
// arrow-testing's data/parquet/) that DuckDB reads, fromparquet converts
// into the values DuckDB reads: the same rows, in order, the same nested
// shapes. The files DuckDB refuses are checked by the tests below.
func TestParquetRealWritersReadAsDuckDB(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("TREVNI_PARQUET_SUITE")
	if dir == "" {
		dir = "testdata/realwriters"
	}
	files := realWriterFiles(t, dir)
	reads := ducktest.ReadParquetEach(t, files...)
	wkbRows(t, reads)
	compared := 0
	for _, f := range files {
		d, ok := reads[f]
		ok = ok && d.Error == ""
		s, got, err := fromParquetSuite(t, f, nil)
		if want := suiteRefused[filepath.Base(f)]; want != "" && err == nil {
			t.Errorf("%s: read, but listed as refused (%s): take it off suiteRefused", f, want)
			continue
		}
		switch {
		case !ok && err != nil:
			t.Logf("%s: DuckDB refuses it (%s), and so do we: %v", f, d.Error, err)
			continue
		case err != nil && suiteRefused[filepath.Base(f)] != "" && strings.Contains(err.Error(), suiteRefused[filepath.Base(f)]):
			t.Logf("%s: DuckDB reads it, we refuse it as we should: %v", f, err)
			continue
		case err != nil:
			t.Errorf("%s: DuckDB reads %d rows, we refuse it: %v", f, d.Count, err)
			continue
		case !ok:
			t.Logf("%s: DuckDB refuses it (%s), we read %d rows", f, d.Error, len(got))
			continue
		}
		if ex, ok := suiteExceptions[filepath.Base(f)]; ok {
			for _, r := range ex.rows {
				if r < len(got) && r < len(d.Rows) {
					t.Logf("%s: row %d not compared: %s", f, r, ex.reason)
					got = append(got[:r:r], got[r+1:]...)
					d.Rows = append(d.Rows[:r:r], d.Rows[r+1:]...)
					d.Count--
				}
			}
		}
		if err := ducktest.Diff(s, got, d); err != nil {
			t.Errorf("%s: %v\nschema %s", f, err, s)
			continue
		}
		compared++
	}
	t.Logf("%d files read as DuckDB reads them", compared)
}

// wkbRows replaces the rows DuckDB read of files of GEOMETRY columns
// (Parquet's GEOMETRY and GEOGRAPHY), which its to_json prints as
// well-known text, with those of the same columns as well-known binary
// (ST_AsWKB, in DuckDB without its spatial extension): the bytes the file
// holds, which fromparquet keeps.
func wkbRows(t *testing.T, reads map[string]ducktest.Read) {
	t.Helper()
	var files, queries []string
	for f, r := range reads {
		var geo []string
		for _, c := range r.Columns {
			name, typ, _ := strings.Cut(c, " ")
			if strings.HasPrefix(typ, "GEOMETRY") {
				geo = append(geo, fmt.Sprintf(`ST_AsWKB("%s") AS "%s"`, name, name))
			}
		}
		if len(geo) == 0 || r.Error != "" {
			continue
		}
		files = append(files, f)
		queries = append(queries, fmt.Sprintf(`SELECT to_json(trevni_row_)::VARCHAR FROM (SELECT * REPLACE (%s) FROM read_parquet('%s')) trevni_row_`,
			strings.Join(geo, ", "), strings.ReplaceAll(f, "'", "''")))
	}
	if len(queries) == 0 {
		return
	}
	for i, res := range ducktest.Query(t, queries...) {
		if res.Error != "" {
			t.Fatalf("%s: DuckDB: %s", files[i], res.Error)
		}
		r := reads[files[i]]
		r.Rows = r.Rows[:0]
		for _, row := range res.Rows {
			r.Rows = append(r.Rows, row[0].(string))
		}
		reads[files[i]] = r
	}
}

// Spark's INT96 timestamps, 9999-12-31 and 290000-12-31 among them, read
// as the microseconds int96_from_spark.md lists (as Spark reads them).
func TestParquetInt96FromSpark(t *testing.T) {
	s, got, err := fromParquetSuite(t, "testdata/realwriters/parquet-testing/int96_from_spark.parquet", nil)
	if err != nil {
		t.Fatal(err)
	}
	if l := s.Fields[0].Type.Branches[1].Logical; l != schema.LogicalLocalTimestampMicros {
		t.Fatalf("INT96 read as %v, want local-timestamp-micros", l)
	}
	want := []any{int64(1704141296123456), int64(1704070800000000), int64(253402225200000000), int64(1735599600000000), nil, int64(9089380393200000000)}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i, w := range want {
		v := got[i].(map[string]any)["a"]
		if m, ok := v.(map[string]any); ok {
			for _, x := range m {
				v = x
			}
		}
		if tm, ok := v.(interface{ UnixMicro() int64 }); ok {
			v = tm.UnixMicro()
		}
		if v != w {
			t.Errorf("row %d: %v, want %v", i, v, w)
		}
	}
}

// A column of an Arrow dictionary type (pandas' category), written with
// its Arrow schema as pyarrow writes it, so that pqarrow reads it back as
// a dictionary: fromparquet writes its values, as DuckDB reads them.
func TestParquetDictionaryColumn(t *testing.T) {
	mem := memory.NewGoAllocator()
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	b := array.NewDictionaryBuilder(mem, dt).(*array.BinaryDictionaryBuilder)
	defer b.Release()
	words := []string{"red", "green", "red", "", "blue", "green"}
	for i, w := range words {
		if i == 3 {
			b.AppendNull()
			continue
		}
		if err := b.AppendString(w); err != nil {
			t.Fatal(err)
		}
	}
	col := b.NewArray()
	defer col.Release()
	as := arrow.NewSchema([]arrow.Field{{Name: "colour", Type: dt, Nullable: true}}, nil)
	rec := array.NewRecordBatch(as, []arrow.Array{col}, int64(len(words)))
	defer rec.Release()
	name := filepath.Join(t.TempDir(), "category.parquet")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	fw, err := pqarrow.NewFileWriter(as, f, parquet.NewWriterProperties(), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	s, got, err := fromParquetSuite(t, name, &trevniparquet.ReadOptions{BatchRows: 4})
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range words {
		v := got[i].(map[string]any)["colour"]
		if i == 3 {
			if v != nil {
				t.Errorf("row %d: %v, want null", i, v)
			}
			continue
		}
		if m, ok := v.(map[string]any); !ok || m["string"] != w {
			t.Errorf("row %d: %v, want %q", i, v, w)
		}
	}
	reads := ducktest.ReadParquet(t, name)
	ducktest.Check(t, name, s, got, reads[name])
}

// Parquet's deprecated LZ4 codec, which DuckDB does not read: Hadoop's
// framing (parquet-java) and a bare LZ4 block (older parquet-cpp) read as
// the same data compressed with LZ4_RAW, which DuckDB reads as we do (the
// suite test above).
func TestParquetHadoopLZ4(t *testing.T) {
	dir := "testdata/realwriters/parquet-testing/"
	_, want, err := fromParquetSuite(t, dir+"lz4_raw_compressed.parquet", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"hadoop_lz4_compressed.parquet", "non_hadoop_lz4_compressed.parquet"} {
		_, got, err := fromParquetSuite(t, dir+name, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows, want %d", name, len(got), len(want))
		}
		for i := range want {
			// One file's columns are optional, the other's required.
			if !avrorand.EqualNative(bareUnions(got[i]), bareUnions(want[i])) {
				t.Errorf("%s: row %d: %v, want %v", name, i, got[i], want[i])
			}
		}
	}
}

// A version 2 data page of nulls that stores no compressed bytes
// (datapage_v2_empty_datapage.snappy.parquet) reads as its one null, as
// DuckDB reads it.
func TestParquetEmptyV2Page(t *testing.T) {
	_, got, err := fromParquetSuite(t, "testdata/realwriters/parquet-testing/datapage_v2_empty_datapage.snappy.parquet", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].(map[string]any)["value"] != nil {
		t.Fatalf("read %v, want one null", got)
	}
}

// bareUnions returns a record's fields with their union values unwrapped
// (a field's value that is a map of one key, the branch).
func bareUnions(v any) any {
	rec := v.(map[string]any)
	out := make(map[string]any, len(rec))
	for k, x := range rec {
		if m, ok := x.(map[string]any); ok && len(m) == 1 {
			for _, inner := range m {
				x = inner
			}
		}
		out[k] = x
	}
	return out
}

// Page CRC-32s: the suite's files whose CRCs match read, those with a
// page damaged are refused naming the row group, column and page (and
// read with SkipChecksums, as DuckDB reads them).
func TestParquetPageChecksums(t *testing.T) {
	dir := "testdata/realwriters/parquet-testing/"
	for _, name := range []string{"datapage_v1-uncompressed-checksum.parquet", "datapage_v1-snappy-compressed-checksum.parquet",
		"rle-dict-snappy-checksum.parquet", "plain-dict-uncompressed-checksum.parquet"} {
		if _, _, err := fromParquetSuite(t, dir+name, nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, where := range map[string]string{
		"datapage_v1-corrupt-checksum.parquet":           "Parquet row group 0, column a, page 0: its CRC-32 is",
		"rle-dict-uncompressed-corrupt-checksum.parquet": "Parquet row group 0, column long_field, page 0: its CRC-32 is",
	} {
		_, _, err := fromParquetSuite(t, dir+name, nil)
		if err == nil || !strings.Contains(err.Error(), where) {
			t.Errorf("%s: %v, want an error starting %q", name, err, where)
		}
		_, got, err := fromParquetSuite(t, dir+name, &trevniparquet.ReadOptions{SkipChecksums: true})
		if err != nil || len(got) == 0 {
			t.Errorf("%s with SkipChecksums: %d rows, %v", name, len(got), err)
		}
	}
}

// Damaged files of arrow-testing's fuzzer corpus are refused in a reader's
// words: no Go runtime error, no Go type, no placeholder of arrow-go's.
func TestParquetFuzzerMessages(t *testing.T) {
	dir := "testdata/realwriters/arrow-testing/fuzzing"
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		_, _, err := fromParquetSuite(t, filepath.Join(dir, e.Name()), nil)
		if err == nil {
			t.Errorf("%s: read", e.Name())
			continue
		}
		for _, leak := range []string{"runtime error", "makeslice", "<UNSET>", "*parquet.", "goroutine", "index out of range"} {
			if strings.Contains(err.Error(), leak) {
				t.Errorf("%s: %v", e.Name(), err)
			}
		}
		if !strings.HasPrefix(err.Error(), "Parquet") {
			t.Errorf("%s: %v, want a message naming Parquet and where", e.Name(), err)
		}
	}
}

// The way back: every suite file that DuckDB reads and we read, converted
// by fromparquet (map entries in the file's order) and written back by
// toparquet, reads in DuckDB as the original does: the same columns of
// the same types (DESCRIBE), row by row as DuckDB prints them (to_json
// text, map entries in the same order: nullable.impala's maps hold
// theirs out of key order). The types come back too: INT96 and legacy
// TIMESTAMP_* timestamps without a time zone, TIMEs adjusted to UTC and
// in nanoseconds, 8- and 16-bit and unsigned integers, maps of keys
// other than strings, GEOMETRY and GEOGRAPHY, each through what the Avro
// schema keeps of them. The rows of suiteExceptions, where DuckDB does
// not read the original as its writer meant, are not compared.
func TestParquetRoundTripReadsAsDuckDB(t *testing.T) {
	t.Parallel()
	files := realWriterFiles(t, "testdata/realwriters")
	var all, geo []string
	back := map[string]string{}
	for _, f := range files {
		_, trv, err := fromParquetSuiteFile(t, f, nil)
		if err != nil {
			continue // TestParquetRealWritersReadAsDuckDB says why
		}
		b := toParquetSuite(t, trv)
		back[f] = b
		all = append(all, f, b)
	}
	reads := ducktest.ReadParquetEach(t, all...)
	wkbRows(t, reads)
	same := 0
	for _, f := range files {
		b, ok := back[f]
		if !ok || reads[f].Error != "" {
			continue
		}
		o, r := reads[f], reads[b]
		if r.Error != "" {
			t.Errorf("%s: DuckDB reads it, not its way back: %s", f, r.Error)
			continue
		}
		if ex, ok := suiteExceptions[filepath.Base(f)]; ok {
			for _, i := range ex.rows {
				if i < len(o.Rows) && i < len(r.Rows) {
					t.Logf("%s: row %d not compared: %s", f, i, ex.reason)
					o.Rows[i], r.Rows[i] = "", ""
				}
			}
		}
		diff := ""
		switch {
		case strings.Join(o.Columns, ", ") != strings.Join(r.Columns, ", "):
			diff = fmt.Sprintf("columns:\n  original %s\n  way back %s", strings.Join(o.Columns, ", "), strings.Join(r.Columns, ", "))
		case o.Count != r.Count || len(o.Rows) != len(r.Rows):
			diff = fmt.Sprintf("%d rows, the original %d", r.Count, o.Count)
		default:
			for i := range o.Rows {
				if o.Rows[i] != r.Rows[i] {
					diff = fmt.Sprintf("row %d:\n  original %s\n  way back %s", i, o.Rows[i], r.Rows[i])
					break
				}
			}
		}
		if diff != "" {
			t.Errorf("%s: comes back differing, %s", f, diff)
			continue
		}
		if strings.Contains(f, "geospatial") {
			geo = append(geo, f)
		}
		same++
	}
	t.Logf("%d files come back as DuckDB read them", same)
	// DuckDB reads a GEOGRAPHY as a GEOMETRY, and shows the coordinate
	// reference system of some only: the Parquet logical types
	// themselves must be the same.
	var queries []string
	for _, f := range geo {
		for _, p := range []string{f, back[f]} {
			queries = append(queries, fmt.Sprintf(`SELECT name, type, logical_type FROM parquet_schema('%s') WHERE logical_type LIKE 'Geo%%'`, strings.ReplaceAll(p, "'", "''")))
		}
	}
	if len(geo) == 0 {
		t.Fatal("no GEOMETRY or GEOGRAPHY file came back")
	}
	res := ducktest.Query(t, queries...)
	for i, f := range geo {
		o, r := res[2*i], res[2*i+1]
		if o.Error != "" || r.Error != "" || len(o.Rows) == 0 || fmt.Sprint(o.Rows) != fmt.Sprint(r.Rows) {
			t.Errorf("%s: Parquet schema\n  original %v %s\n  way back %v %s", f, o.Rows, o.Error, r.Rows, r.Error)
		}
	}
}
