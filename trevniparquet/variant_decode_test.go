package trevniparquet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/trevniparquet"
)

// variantBins returns the metadata and value of each .variant.bin of
// testdata/variant (parquet-testing's unshredded Variants).
func variantBins(tb testing.TB) (metas, values [][]byte) {
	tb.Helper()
	files, err := filepath.Glob("testdata/variant/*.variant.bin")
	if err != nil || len(files) == 0 {
		tb.Fatal(files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		n, err := trevniparquet.VariantMetaLen(b)
		if err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		metas, values = append(metas, b[:n]), append(values, b[n:])
	}
	return metas, values
}

// The Variant decoder never panics, never recurses past its bound and
// never writes more text than its bound on any metadata and value, and
// what it writes is valid JSON.
func FuzzVariantJSON(f *testing.F) {
	metas, values := variantBins(f)
	for i := range metas {
		f.Add(metas[i], values[i])
	}
	f.Fuzz(func(t *testing.T, m, v []byte) {
		text, err := trevniparquet.VariantValueJSON(m, v, 1<<20)
		if err != nil {
			return
		}
		if !json.Valid([]byte(text)) {
			t.Fatalf("not JSON: %q", text)
		}
		if len(text) > 1<<20+len(v)*6+64 {
			t.Fatalf("%d bytes of text from %d bytes", len(text), len(v))
		}
	})
}

// Malformed metadata and values are errors saying what is wrong, never a
// panic: every way a length, offset, id or type can lie.
func TestVariantMalformed(t *testing.T) {
	t.Parallel()
	empty := []byte{0x01, 0x00, 0x00}                    // version 1, no names
	ab := []byte{0x01, 0x02, 0x00, 0x01, 0x02, 'a', 'b'} // names a, b
	deep := bytes.Repeat([]byte{0x03, 0x01, 0x00, 0x00}, 200)
	deep = append(deep, 0x00)
	cases := []struct {
		name      string
		meta, val []byte
		want      string
	}{
		{"no metadata", nil, []byte{0}, "metadata: empty"},
		{"version 2", []byte{0x02, 0x00, 0x00}, []byte{0}, "version 2"},
		{"dictionary past the bytes", []byte{0x01, 0xff, 0x00}, []byte{0}, "a dictionary of 255 names"},
		{"names past the bytes", []byte{0x01, 0x01, 0x00, 0x09, 'a'}, []byte{0}, "names end at byte 9"},
		{"no value", empty, nil, "a value of no bytes"},
		{"short string past the end", empty, []byte{0x05<<2 | 1, 'a'}, "a short string of 5 bytes"},
		{"int64 cut", empty, []byte{6 << 2, 1, 2}, "needs 8 bytes"},
		{"string past the end", empty, []byte{16 << 2, 0xff, 0, 0, 0, 'a'}, "a string of 255 bytes"},
		{"string not UTF-8", empty, []byte{1<<2 | 1, 0xff}, "not UTF-8"},
		{"decimal scale 39", empty, []byte{8 << 2, 39, 1, 0, 0, 0}, "scale 39"},
		{"type 21", empty, []byte{21 << 2}, "primitive type 21"},
		{"time past a day", empty, []byte{17 << 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, "not within a day"},
		{"array count past the bytes", empty, []byte{0x03, 200, 0, 0}, "an array of 200 elements"},
		{"array offsets past the values", empty, []byte{0x03, 1, 0, 9, 0}, "an array whose values end at byte 9"},
		{"array element offset past the values", empty, []byte{0x03, 2, 9, 0, 1, 0}, "element 0 at byte 9"},
		{"object id past the dictionary", empty, []byte{0x02, 1, 0, 0, 1, 0}, "field id 0 of a dictionary of 0 names"},
		{"object two fields of one name", ab, []byte{0x02, 2, 0, 0, 0, 1, 2, 0, 0}, `two fields named "a"`},
		{"nested past the bound", empty, deep, "nested deeper than 128"},
	}
	for _, c := range cases {
		_, err := trevniparquet.VariantValueJSON(c.meta, c.val, 0)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// An array whose elements all point at one inner array (offsets may
// overlap), nested, describes text far beyond its bytes: the text is
// bounded, not the product of the counts.
func TestVariantOverlapBounded(t *testing.T) {
	t.Parallel()
	// Innermost: the short string "abcdefgh"; each level an array of
	// 255 elements all at offset 0, the value after the offsets.
	v := []byte{8<<2 | 1, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'}
	for range 4 {
		level := []byte{0x03 | 1<<2, 255} // two-byte offsets
		for range 255 {
			level = append(level, 0, 0)
		}
		level = append(level, byte(len(v)), byte(len(v)>>8))
		v = append(level, v...)
	}
	_, err := trevniparquet.VariantValueJSON([]byte{1, 0, 0}, v, 1<<20)
	if err == nil || !strings.Contains(err.Error(), "JSON text passes") {
		t.Fatalf("%d bytes of four levels of 255: %v, want the bound", len(v), err)
	}
}

// writeVariantFile writes, with arrow-go, a Parquet file of columns id,
// var (a Variant), in (a struct of one Variant), list (a list of
// Variants) and m (a map of Variants), of rows of the given metadata and
// values (nil: a null Variant), in row groups of rows rows.
func writeVariantFile(t testing.TB, metas, values [][]byte, rows int64) string {
	t.Helper()
	mem := memory.DefaultAllocator
	vt := extensions.NewDefaultVariantType()
	st := vt.StorageType().(*arrow.StructType)
	build := func(n int) arrow.Array {
		sb := array.NewStructBuilder(mem, st)
		defer sb.Release()
		for i := range n {
			k := i % len(metas)
			if values[k] == nil {
				sb.AppendNull()
				continue
			}
			sb.Append(true)
			sb.FieldBuilder(0).(*array.BinaryBuilder).Append(metas[k])
			sb.FieldBuilder(1).(*array.BinaryBuilder).Append(values[k])
		}
		s := sb.NewArray()
		defer s.Release()
		return array.NewExtensionArrayWithStorage(vt, s)
	}
	n := len(metas)
	ids := array.NewInt32Builder(mem)
	for i := range n {
		ids.Append(int32(i))
	}
	idArr := ids.NewArray()
	top := build(n)
	inner := build(n)
	in, err := array.NewStructArray([]arrow.Array{inner}, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	// list: row i holds elements i and i+1 (of 2n).
	elems := build(2 * n)
	offs := make([]int32, n+1)
	for i := range offs {
		offs[i] = int32(2 * i)
	}
	list := array.NewListData(array.NewData(arrow.ListOf(vt), n,
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offs))},
		[]arrow.ArrayData{elems.Data()}, 0, 0))
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "var", Type: vt, Nullable: true},
		{Name: "in", Type: in.DataType(), Nullable: true},
		{Name: "list", Type: list.DataType(), Nullable: true},
	}, nil)
	rec := array.NewRecordBatch(sch, []arrow.Array{idArr, top, in, list}, int64(n))
	defer rec.Release()
	tbl := array.NewTableFromRecords(sch, []arrow.RecordBatch{rec})
	defer tbl.Release()
	out := filepath.Join(t.TempDir(), "variants.parquet")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(rows))
	// WriteTable closes f.
	if err := pqarrow.WriteTable(tbl, f, rows, props, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	return out
}

// Variants at every place in a record (a column, a struct's field, a
// list's element), in several row groups and batches, are read as the
// text of the same bytes at the top level; null Variants stay null.
func TestParquetVariantNested(t *testing.T) {
	t.Parallel()
	metas, values := variantBins(t)
	metas, values = append(metas, nil), append(values, nil)
	file := writeVariantFile(t, metas, values, 29)
	s, recs, err := fromParquetSuite(t, file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if direct := readAll(t, file); len(direct) != len(recs) {
		t.Fatalf("trevni.Open: %d records, fromparquet %d", len(direct), len(recs))
	}
	text := func(k int) any {
		k %= len(metas)
		if values[k] == nil {
			return nil
		}
		s, err := trevniparquet.VariantValueJSON(metas[k], values[k], 0)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	str := func(v any) any {
		if m, ok := v.(map[string]any); ok {
			if s, ok := m["string"]; ok {
				return s
			}
		}
		return v
	}
	for i, r := range recs {
		m := r.(map[string]any)
		if got, want := str(m["var"]), text(i); got != want {
			t.Errorf("row %d: var %v, want %v", i, got, want)
		}
		in, _ := str(m["in"]).(map[string]any)
		if in == nil {
			in, _ = m["in"].(map[string]any)
		}
		for k, v := range in {
			if inner, ok := v.(map[string]any); ok && k != "x" {
				in = inner
			}
		}
		if got, want := str(in["x"]), text(i); got != want {
			t.Errorf("row %d: in.x %v, want %v (%v)", i, got, want, m["in"])
		}
		list := m["list"]
		if u, ok := list.(map[string]any); ok {
			list = u["array"]
		}
		l, _ := list.([]any)
		if len(l) != 2 || str(l[0]) != text(2*i) || str(l[1]) != text(2*i+1) {
			t.Errorf("row %d: list %v, want %v, %v", i, list, text(2*i), text(2*i+1))
		}
	}
	if !strings.Contains(s.String(), `"parquet.variant":"json"`) {
		t.Errorf("schema %s", s)
	}
	// The Arrow batches of File.RecordReader: the same text.
	in, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	pf, err := trevniparquet.Open(in, &trevniparquet.ReadOptions{BatchRows: 13})
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	rr, err := pf.RecordReader(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	row := 0
	for rr.Next() {
		col, ok := rr.RecordBatch().Column(1).(*array.String)
		if !ok {
			t.Fatalf("var: %s", rr.RecordBatch().Column(1).DataType())
		}
		for i := range col.Len() {
			var got any
			if col.IsValid(i) {
				got = col.Value(i)
			}
			if want := text(row); got != want {
				t.Errorf("RecordReader row %d: %v, want %v", row, got, want)
			}
			row++
		}
	}
	if rr.Err() != nil || row != len(recs) {
		t.Errorf("RecordReader: %d rows, %v", row, rr.Err())
	}
}

// A malformed Variant is an error naming the row group, the row in it
// and the column, read through fromparquet's WriteTo and through
// trevni.Open of the Parquet file.
func TestParquetVariantErrorLocated(t *testing.T) {
	t.Parallel()
	metas, values := variantBins(t)
	metas, values = metas[:40], values[:40]
	values[33] = []byte{16 << 2, 0xff, 0, 0, 0, 'a'} // a string past its value
	// Its first use is list element 33, the second of row 16, the
	// seventh row of the second row group.
	file := writeVariantFile(t, metas, values, 10)
	_, _, err := fromParquetSuite(t, file, nil)
	want := "Parquet row group 1: row 6, column list.list.element.value: a string of 255 bytes in 1"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("fromparquet: %v, want %q", err, want)
	}
	ds, err := trevni.Open(context.Background(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	for _, err = range ds.All(context.Background(), nil) {
		if err != nil {
			break
		}
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("trevni.Open: %v, want %q", err, want)
	}
}

// BenchmarkVariantText reads parquet-testing's Variants, each as a
// top-level column, a struct's field and two list elements, 20,000 rows.
func BenchmarkVariantText(b *testing.B) {
	metas, values := variantBins(b)
	var ms, vs [][]byte
	for len(ms) < 20000 {
		ms, vs = append(ms, metas...), append(vs, values...)
	}
	file := writeVariantFile(b, ms[:20000], vs[:20000], 1<<20)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		in, err := os.Open(file)
		if err != nil {
			b.Fatal(err)
		}
		pf, err := trevniparquet.Open(in, nil)
		if err != nil {
			b.Fatal(err)
		}
		rr, err := pf.RecordReader(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		for rr.Next() {
		}
		if err := rr.Err(); err != nil {
			b.Fatal(err)
		}
		rr.Release()
		pf.Close()
		in.Close()
	}
}
