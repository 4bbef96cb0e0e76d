package trevniparquet_test

import (
	"bytes"
	"context"
	"fmt"
	"github.com/trevni-go/trevni/internal/testing/longtest"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"

	"github.com/trevni-go/trevni/trevniparquet"

	"github.com/trevni-go/trevni/trevniarrow"
)

// directSchema returns a random Avro schema of the kinds Write's
// direct path covers: records, arrays, maps, ["null", T] in either order,
// primitives, enums, fixed, durations, and dates, times and timestamps.
func directSchema(r *rand.Rand) string { return directSchemaWith(r, true) }

// directSchemaWith is directSchema, with decimals of more than 38 digits
// if wide (DuckDB reads those of Parquet files wrongly: as DOUBLEs of
// other values).
func directSchemaWith(r *rand.Rand, wide bool) string {
	n := 0
	var typ func(depth int) string
	typ = func(depth int) string {
		prims := []string{`"boolean"`, `"int"`, `"long"`, `"float"`, `"double"`, `"string"`, `"bytes"`,
			`{"type":"int","logicalType":"date"}`, `{"type":"int","logicalType":"time-millis"}`,
			`{"type":"long","logicalType":"time-micros"}`, `{"type":"long","logicalType":"timestamp-millis"}`,
			`{"type":"long","logicalType":"timestamp-micros"}`, `{"type":"long","logicalType":"timestamp-nanos"}`,
			`{"type":"long","logicalType":"local-timestamp-millis"}`, `{"type":"long","logicalType":"local-timestamp-micros"}`,
			`{"type":"long","logicalType":"local-timestamp-nanos"}`}
		k := r.IntN(14)
		if depth >= 3 {
			k = r.IntN(6)
		}
		switch {
		case k < 3:
			if r.IntN(3) == 0 {
				n++
				return levelsOnly(r, n, wide)
			}
			return prims[r.IntN(len(prims))]
		case k >= 12:
			// A union of several branches, null among them or not.
			var branches []string
			for _, i := range r.Perm(6)[:2+r.IntN(2)] {
				switch i {
				case 0, 1, 2:
					branches = append(branches, []string{`"int"`, `"string"`, `"double"`}[i])
				case 3:
					branches = append(branches, `{"type":"array","items":`+typ(depth+2)+`}`)
				case 4:
					n++
					branches = append(branches, fmt.Sprintf(`{"type":"record","name":"U%d","fields":[{"name":"a","type":%s},{"name":"b","type":"long"}]}`, n, typ(depth+2)))
				case 5:
					n++
					branches = append(branches, fmt.Sprintf(`{"type":"enum","name":"UE%d","symbols":["X","Y"]}`, n))
				}
			}
			for i, b := range branches {
				if strings.HasPrefix(b, "[") { // no union directly in a union
					branches[i] = `"long"`
				}
			}
			if r.IntN(2) == 0 {
				at := r.IntN(len(branches) + 1)
				branches = append(branches[:at], append([]string{`"null"`}, branches[at:]...)...)
			}
			return `[` + strings.Join(branches, ",") + `]`
		case k < 4:
			n++
			switch r.IntN(3) {
			case 0:
				return fmt.Sprintf(`{"type":"enum","name":"E%d","symbols":["A","BB","CCC"]}`, n)
			case 1:
				return fmt.Sprintf(`{"type":"fixed","name":"D%d","size":12,"logicalType":"duration"}`, n)
			}
			return fmt.Sprintf(`{"type":"fixed","name":"F%d","size":%d}`, n, 1+r.IntN(9))
		case k < 6:
			t := typ(depth + 1)
			if strings.HasPrefix(t, "[") || t == `"null"` { // no union directly in a union, no null twice
				return t
			}
			if r.IntN(2) == 0 {
				return `["null",` + t + `]`
			}
			return `[` + t + `,"null"]`
		case k < 8:
			return `{"type":"array","items":` + typ(depth+1) + `}`
		case k < 9:
			return `{"type":"map","values":` + typ(depth+1) + `}`
		}
		n++
		name := fmt.Sprintf("R%d", n)
		var fields []string
		for i := range 1 + r.IntN(4) {
			fields = append(fields, fmt.Sprintf(`{"name":"f%d","type":%s}`, i, typ(depth+1)))
		}
		return fmt.Sprintf(`{"type":"record","name":"%s","fields":[%s]}`, name, strings.Join(fields, ","))
	}
	if r.IntN(8) == 0 {
		// A schema that is not a record: the one column "value".
		return typ(1)
	}
	var fields []string
	for i := range r.IntN(6) {
		fields = append(fields, fmt.Sprintf(`{"name":"c%d","type":%s}`, i, typ(0)))
	}
	return `{"type":"record","name":"Top","fields":[` + strings.Join(fields, ",") + `]}`
}

// levelsOnly returns one of the types the direct path once left to the
// Arrow path: a decimal (bytes, or fixed), a UUID (string, or fixed), a
// null, a record of no fields. n makes names unique.
func levelsOnly(r *rand.Rand, n int, wide bool) string {
	switch r.IntN(6) {
	case 0:
		p := 1 + r.IntN(38)
		if r.IntN(8) == 0 && wide {
			p = 39 + r.IntN(10) // beyond Decimal128
		}
		return fmt.Sprintf(`{"type":"bytes","logicalType":"decimal","precision":%d,"scale":%d}`, p, r.IntN(p+1))
	case 1:
		size := 1 + r.IntN(16)
		// The most digits a size holds: floor(log10(2^(8*size-1) - 1)).
		digits := int(float64(8*size-1)*0.30102999566) - 0
		if digits < 1 {
			digits = 1
		}
		p := 1 + r.IntN(digits)
		return fmt.Sprintf(`{"type":"fixed","name":"X%d","size":%d,"logicalType":"decimal","precision":%d,"scale":%d}`, n, size, p, r.IntN(p+1))
	case 2:
		return `{"type":"string","logicalType":"uuid"}`
	case 3:
		return fmt.Sprintf(`{"type":"fixed","name":"G%d","size":16,"logicalType":"uuid"}`, n)
	case 4:
		return `"null"`
	}
	return fmt.Sprintf(`{"type":"record","name":"Z%d","fields":[]}`, n)
}

// writeDirectRandom writes n random records of a random direct-path
// schema to a Trevni file.
func writeDirectRandom(t *testing.T, seed uint64, n int) (string, string, []any) {
	t.Helper()
	return writeDirectRandomWith(t, seed, n, nil)
}

// writeDirectRandomWith is writeDirectRandom with each value passed
// through fix.
func writeDirectRandomWith(t *testing.T, seed uint64, n int, fix func(*schema.Schema, any) any) (string, string, []any) {
	t.Helper()
	// The values fixed are DuckDB's: no decimals it misreads.
	text := directSchemaWith(rand.New(rand.NewPCG(seed, 7)), fix == nil)
	s, err := schema.Parse(text)
	if err != nil {
		t.Fatalf("seed %d: %v\n%s", seed, err, text)
	}
	g := avrorand.New(seed, avrorand.Options{})
	name := filepath.Join(t.TempDir(), fmt.Sprintf("d%d.trv", seed))
	w, err := trevni.Create(context.Background(), name, text, nil)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	var want []any
	for range n {
		v := g.Value(s)
		if fix != nil {
			v = fix(s, v)
		}
		if err := w.Write(v); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		want = append(want, v)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return name, text, want
}

// sameParquet checks that two Parquet files have the same schema,
// key-value metadata, row count and values (read by pqarrow).
func sameParquet(t *testing.T, label string, direct, arrowPath []byte) {
	t.Helper()
	ctx := context.Background()
	var (
		mds   [2]string
		mm    = [2]map[string][2][]byte{{}, {}}
		text  = map[string]bool{}
		nulls = [2]map[string]int64{{}, {}}
	)
	for i, b := range [][]byte{direct, arrowPath} {
		rd, err := file.NewParquetReader(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		md := rd.MetaData()
		var sb strings.Builder
		fmt.Fprintf(&sb, "%d rows\n%s\n", md.NumRows, md.Schema)
		kv := md.KeyValueMetadata()
		for j, k := range kv.Keys() {
			fmt.Fprintf(&sb, "%s=%s\n", k, kv.Values()[j])
		}
		for g := range rd.NumRowGroups() {
			for c := range md.Schema.NumColumns() {
				cc, err := md.RowGroup(g).ColumnChunk(c)
				if err != nil {
					t.Fatal(err)
				}
				// Parquet defines no order of INTERVALs: arrow-go
				// writes no statistics of them.
				if md.Schema.Column(c).ConvertedType() == pqschema.ConvertedTypes.Interval {
					if ok, _ := cc.StatsSet(); ok {
						t.Fatalf("%s: row group %d, column %d, an INTERVAL, has statistics", label, g, c)
					}
					fmt.Fprintf(&sb, "row group %d column %d: %d values, no statistics\n", g, c, cc.NumValues())
					continue
				}
				// A column of nulls (an Avro null, the field of a
				// record of no fields) has statistics or not alike in
				// both files.
				if _, null := md.Schema.Column(c).LogicalType().(pqschema.NullLogicalType); null {
					ok, _ := cc.StatsSet()
					fmt.Fprintf(&sb, "row group %d column %d: %d values, nulls only, statistics %v\n", g, c, cc.NumValues(), ok)
					continue
				}
				if ok, err := cc.StatsSet(); !ok || err != nil {
					t.Fatalf("%s: row group %d, column %d has no statistics (%v)", label, g, c, err)
				}
				st, err := cc.Statistics()
				if err != nil {
					t.Fatal(err)
				}
				// pqarrow does not count as null a required leaf
				// under a null optional group (the Parquet format
				// does, and the direct path): its null counts are at
				// most the direct path's.
				fmt.Fprintf(&sb, "row group %d column %d: %d values", g, c, cc.NumValues())
				nulls[i][fmt.Sprint(g, c)] = st.NullCount()
				// pqarrow leaves out the minimum and maximum of some
				// chunks that have them (a nested optional boolean's)
				// and writes its type's extremes reversed for a chunk
				// of nulls only (an int32's 7fffffff and 80000000):
				// where both files have them, they agree. An enum's
				// are those of the values written by the direct path,
				// of all its symbols by pqarrow (its dictionary): the
				// first lie within the second.
				if st.HasMinMax() {
					mm[i][fmt.Sprint(g, c)] = [2][]byte{st.EncodeMin(), st.EncodeMax()}
					if md.Schema.Column(c).PhysicalType() == parquet.Types.ByteArray {
						text[fmt.Sprint(g, c)] = true
					}
				}
				sb.WriteByte('\n')
			}
		}
		mds[i] = sb.String()
		rd.Close()
	}
	if mds[0] != mds[1] {
		t.Fatalf("%s: the direct path's file\n%s\nthe Arrow path's\n%s", label, mds[0], mds[1])
	}
	for k, v := range nulls[0] {
		if w := nulls[1][k]; v < w {
			t.Fatalf("%s: row group and column %s: the direct path counts %d nulls, the Arrow path %d", label, k, v, w)
		}
	}
	for k, v := range mm[0] {
		w, ok := mm[1][k]
		if !ok {
			continue
		}
		same := bytes.Equal(v[0], w[0]) && bytes.Equal(v[1], w[1])
		within := text[k] && bytes.Compare(v[0], w[0]) >= 0 && bytes.Compare(v[1], w[1]) <= 0
		if !same && !within {
			t.Fatalf("%s: row group and column %s: the direct path's min %x max %x, the Arrow path's min %x max %x", label, k, v[0], v[1], w[0], w[1])
		}
	}
	read := func(b []byte) arrow.Table {
		tbl, err := pqarrow.ReadTable(ctx, bytes.NewReader(b), parquet.NewReaderProperties(nil), pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		return tbl
	}
	a, b := read(direct), read(arrowPath)
	defer a.Release()
	defer b.Release()
	// An enum's dictionary page holds the symbols written by the direct
	// path, all of them by the Arrow path (Arrow's dictionary): read as
	// Arrow, their dictionaries differ, and their records are compared
	// instead.
	if !strings.Contains(a.Schema().String(), "dictionary") {
		exact := []array.EqualOption{array.WithNaNsEqual(true), array.WithAbsTolerance(0)}
		if !array.TableApproxEqual(a, b, exact...) {
			for i := range int(a.NumCols()) {
				ca, cb := a.Column(i).Data(), b.Column(i).Data()
				if !array.ChunkedApproxEqual(ca, cb, exact...) {
					t.Fatalf("%s: column %s: the direct path's values\n%v\ndiffer from the Arrow path's\n%v", label, a.Schema().Field(i).Name, ca.Chunks(), cb.Chunks())
				}
			}
			t.Fatalf("%s: the direct path's values differ from the Arrow path's", label)
		}
	}
	ra, rb := parquetRecords(t, direct), parquetRecords(t, arrowPath)
	if len(ra) != len(rb) {
		t.Fatalf("%s: %d records from the direct path's file, %d from the Arrow path's", label, len(ra), len(rb))
	}
	for i := range ra {
		if !avrorand.EqualNative(ra[i], rb[i]) {
			t.Fatalf("%s: record %d\n direct %v\n  Arrow %v", label, i, ra[i], rb[i])
		}
	}
}

// parquetRecords converts a Parquet file to Trevni with fromparquet's code
// and returns its records.
func parquetRecords(t *testing.T, b []byte) []any {
	t.Helper()
	pf, err := trevniparquet.Open(bytes.NewReader(b), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	out := filepath.Join(t.TempDir(), "r.trv")
	w, err := trevni.Create(context.Background(), out, pf.AvroSchema(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pf.WriteTo(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return readAll(t, out)
}

// The direct path (Parquet written from Trevni columns) writes what the
// Arrow path writes, on random schemas of the kinds it covers and on the
// interop vectors it covers, with row groups of a few rows and each codec;
// and Trevni to Parquet to Trevni gives back every record.
func TestParquetDirectPath(t *testing.T) {
	ctx := context.Background()
	codecs := []string{"snappy", "zstd", "gzip", "none"}
	check := func(label, name string, opts *trevniparquet.WriteOptions, want []any) {
		ds, err := trevni.Open(ctx, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ds.Close()
		if !trevniparquet.DirectApplies(ds, opts) {
			t.Fatalf("%s: the direct path does not apply to\n%s", label, ds.SchemaText())
		}
		var direct, viaArrow bytes.Buffer
		n, err := trevniparquet.Write(ctx, &direct, ds, opts)
		if err != nil {
			t.Fatalf("%s: %v\n%s", label, err, ds.SchemaText())
		}
		rows := ds.RowCount()
		if l := opts.Read.Limit; l > 0 && l < rows {
			rows = l
		}
		if n != rows {
			t.Fatalf("%s: %d rows written of %d", label, n, rows)
		}
		if _, err := trevniparquet.WriteArrow(ctx, &viaArrow, ds, opts); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		sameParquet(t, label, direct.Bytes(), viaArrow.Bytes())
		if want == nil {
			return
		}
		pf, err := trevniparquet.Open(bytes.NewReader(direct.Bytes()), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer pf.Close()
		out := filepath.Join(t.TempDir(), "back.trv")
		w, err := trevni.Create(context.Background(), out, pf.AvroSchema(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pf.WriteTo(ctx, w); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		got := readAll(t, out)
		if len(got) != len(want) {
			t.Fatalf("%s: %d records back of %d", label, len(got), len(want))
		}
		for i := range want {
			if !avrorand.EqualNative(got[i], want[i]) {
				t.Fatalf("%s: record %d\n got %v\nwant %v\n%s", label, i, got[i], want[i], ds.SchemaText())
			}
		}
	}
	// 24 random schemas by default, 80 in the long form (TREVNI_LONG_TESTS=1).
	for seed := range uint64(longtest.Rounds(24, 80)) {
		name, _, want := writeDirectRandom(t, seed, int(seed%13)+1)
		check(fmt.Sprintf("seed %d", seed), name, &trevniparquet.WriteOptions{Codec: codecs[seed%4], RowGroupRows: int(seed%5) + 1}, want)
	}
	// Files written from protobuf, where the direct path applies.
	protos, _ := filepath.Glob("../testdata/proto/*/*.trv")
	direct := 0
	for _, name := range protos {
		ds, err := trevni.Open(ctx, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		opts := &trevniparquet.WriteOptions{RowGroupRows: 3}
		if trevniparquet.DirectApplies(ds, opts) {
			direct++
			check(name, name, opts, nil)
		}
		ds.Close()
	}
	if direct == 0 {
		t.Errorf("the direct path applies to none of %d files written from protobuf", len(protos))
	}
	t.Logf("the direct path applies to %d of %d files written from protobuf", direct, len(protos))
	// Trevni 1 and CLMN files, read through their columns as Trevni 2
	// lays them out.
	others, _ := filepath.Glob("../testdata/trevni1/*.trv")
	clmns, _ := filepath.Glob("../testdata/clmn/*.clmn")
	for _, group := range [][]string{others, clmns} {
		direct := 0
		for _, name := range group {
			ds, err := trevni.Open(ctx, name, nil)
			if err != nil {
				t.Fatal(err)
			}
			opts := &trevniparquet.WriteOptions{RowGroupRows: 3}
			switch {
			case strings.Contains(name, "boolean_quirk"):
				// Impala's lost booleans are an error on both paths.
				_, err1 := trevniparquet.Write(ctx, io.Discard, ds, opts)
				_, err2 := trevniparquet.WriteArrow(ctx, io.Discard, ds, opts)
				if err1 == nil || err2 == nil || !strings.Contains(err1.Error(), "boolean values lost") {
					t.Errorf("%s: %v, through Arrow %v", name, err1, err2)
				}
			case trevniparquet.DirectApplies(ds, opts):
				direct++
				check(name, name, opts, nil)
			}
			ds.Close()
		}
		if direct == 0 {
			t.Errorf("the direct path applies to none of %v", group)
		}
	}
	for _, v := range []string{"medium", "tiny", "booleans", "nested_records", "email", "maps", "unions", "primitives", "enum_fixed_bytes", "empty"} {
		names, _ := filepath.Glob(filepath.Join("../testdata/interop", v, "*.snappy.crc32.trv"))
		for _, name := range names {
			// The first 3,500 of medium's 30,000 records: four row
			// groups, the last one short, as the whole file's thirty.
			check(name, name, &trevniparquet.WriteOptions{RowGroupRows: 1000, Read: trevniarrow.ReadOptions{ReadOptions: trevni.ReadOptions{Limit: 3500}}}, nil)
		}
	}
}

// Only a data set whose parts have schemas of their own (resolved to the
// data set's as records) goes through Arrow batches.
func TestParquetDirectPathNotTaken(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for i, text := range []string{
		`{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`,
		`{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string","default":"x"}]}`,
	} {
		w, err := trevni.Create(ctx, filepath.Join(dir, fmt.Sprintf("p%d.trv", i)), text, nil)
		if err != nil {
			t.Fatal(err)
		}
		v := map[string]any{"a": int32(i), "b": "y"}
		if i == 0 {
			delete(v, "b")
		}
		if err := w.Write(v); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := trevni.Open(ctx, dir, &trevni.OpenOptions{ReaderSchema: `{"type":"record","name":"R","fields":[{"name":"b","type":"string","default":"x"},{"name":"a","type":"int"}]}`})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	if trevniparquet.DirectApplies(ds, nil) {
		t.Errorf("the direct path applies to parts of schemas of their own")
	}
	var direct, viaArrow bytes.Buffer
	if _, err := trevniparquet.Write(ctx, &direct, ds, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := trevniparquet.WriteArrow(ctx, &viaArrow, ds, nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(direct.Bytes(), viaArrow.Bytes()) {
		t.Errorf("Write and the Arrow path differ")
	}
}

// A damaged Trevni file (bytes changed, or cut short) written by the
// direct path is an error or a file, never a panic or a hang.
func TestParquetDirectDamaged(t *testing.T) {
	ctx := context.Background()
	// A schema of columns: a file of none (records of no fields, or of
	// nulls) has only its row count, which nothing can check, and a
	// damaged one is as many records on every path.
	seed := uint64(12)
	for {
		s, err := schema.Parse(directSchema(rand.New(rand.NewPCG(seed, 7))))
		if err != nil {
			t.Fatal(err)
		}
		if cols, err := layout.Columns(s, nil); err == nil && len(cols) > 2 {
			break
		}
		seed++
	}
	name, _, _ := writeDirectRandom(t, seed, 40)
	good, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	failed := 0
	for i := range 300 {
		b := bytes.Clone(good)
		if i%10 == 0 {
			b = b[:r.IntN(len(b))]
		} else {
			for range 1 + r.IntN(4) {
				b[r.IntN(len(b))] ^= byte(1 + r.IntN(255))
			}
		}
		bad := filepath.Join(dir, fmt.Sprintf("bad%d.trv", i))
		if err := os.WriteFile(bad, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ds, err := trevni.Open(ctx, bad, nil)
		if err != nil {
			failed++
			continue
		}
		if _, err := trevniparquet.Write(ctx, io.Discard, ds, nil); err != nil {
			failed++
		}
		ds.Close()
	}
	if failed == 0 {
		t.Fatal("no damaged file failed")
	}
}

// A data set of several Trevni files goes the direct path too, a row
// group never spanning two files: the values are the Arrow path's.
func TestParquetDirectPathParts(t *testing.T) {
	ctx := context.Background()
	text := ""
	var names []string
	var want []any
	for i := range 3 {
		name, tx, w := writeDirectRandom(t, 42, 5+i)
		if text != "" && tx != text {
			t.Fatal("one seed, two schemas")
		}
		text = tx
		dst := filepath.Join(t.TempDir(), fmt.Sprintf("part%d.trv", i))
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, dst)
		want = append(want, w...)
	}
	ds, err := trevni.OpenFiles(ctx, names, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	opts := &trevniparquet.WriteOptions{RowGroupRows: 4}
	if !trevniparquet.DirectApplies(ds, opts) {
		t.Fatal("the direct path does not apply")
	}
	var direct, viaArrow bytes.Buffer
	n, err := trevniparquet.Write(ctx, &direct, ds, opts)
	if err != nil || n != int64(len(want)) {
		t.Fatalf("%d rows of %d: %v", n, len(want), err)
	}
	if _, err := trevniparquet.WriteArrow(ctx, &viaArrow, ds, opts); err != nil {
		t.Fatal(err)
	}
	read := func(b []byte) arrow.Table {
		tbl, err := pqarrow.ReadTable(ctx, bytes.NewReader(b), parquet.NewReaderProperties(nil), pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		return tbl
	}
	a, b := read(direct.Bytes()), read(viaArrow.Bytes())
	defer a.Release()
	defer b.Release()
	// An enum's dictionaries differ (see sameParquet): the records of
	// both files are compared with those written.
	if a.NumRows() != int64(len(want)) || !strings.Contains(a.Schema().String(), "dictionary") &&
		!array.TableApproxEqual(a, b, array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
		t.Fatalf("the direct path's %d rows differ from the Arrow path's %d", a.NumRows(), b.NumRows())
	}
	for path, data := range map[string][]byte{"direct": direct.Bytes(), "Arrow": viaArrow.Bytes()} {
		got := parquetRecords(t, data)
		if len(got) != len(want) {
			t.Fatalf("the %s path's file: %d records of %d", path, len(got), len(want))
		}
		for i := range want {
			if !avrorand.EqualNative(got[i], want[i]) {
				t.Fatalf("the %s path's file: record %d\n got %v\nwant %v\n%s", path, i, got[i], want[i], text)
			}
		}
	}
}
