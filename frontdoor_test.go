package trevni_test

import (
	"bufio"
	"bytes"
	"io"
	"reflect"
	"time"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/trevni1"

	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
)

// The front door's promise, shown by a program written against the root
// package alone: a Trevni 2 file, a Trevni 1 file, a CLMN file, a glob of
// parts and a URL, each read with a struct, a filter and a field
// selection, against the independent truth of each file (Java's expected
// output, the CSV a CLMN file was made from).

// primitive is the struct read from the interop vector "primitives".
type primitive struct {
	I int32  `avro:"i"`
	S string `avro:"s"`
}

// expectedPrimitives returns Java's reading of the primitives vector.
func expectedPrimitives(t *testing.T) []map[string]any {
	t.Helper()
	f, err := os.Open("testdata/interop/primitives/expected.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// checkPrimitives reads ds, whose parts each hold the primitives vector,
// with a struct, a filter and a field selection.
func checkPrimitives(t *testing.T, ds *trevni.Dataset, parts int) {
	t.Helper()
	ctx := context.Background()
	want := expectedPrimitives(t)
	if got := ds.RowCount(); got != int64(parts*len(want)) {
		t.Fatalf("RowCount %d, want %d", got, parts*len(want))
	}
	var wantI []int32
	var wantS []string
	for range parts {
		for _, m := range want {
			if i := int32(m["i"].(float64)); i > 20 {
				wantI = append(wantI, i)
				wantS = append(wantS, m["s"].(string))
			}
		}
	}
	// A struct and a filter.
	var gotI []int32
	var gotS []string
	for p, err := range trevni.ReadStructs[primitive](ctx, ds, &trevni.ReadOptions{Where: "i > 20"}) {
		if err != nil {
			t.Fatal(err)
		}
		gotI, gotS = append(gotI, p.I), append(gotS, p.S)
	}
	if !slices.Equal(gotI, wantI) || !slices.Equal(gotS, wantS) || len(wantI) == 0 {
		t.Fatalf("structs with i > 20: %d records, want %d", len(gotI), len(wantI))
	}
	// A field selection and a filter, as Avro values.
	n := 0
	for rec, err := range ds.All(ctx, &trevni.ReadOptions{Fields: []string{"s"}, Where: "i > 20"}) {
		if err != nil {
			t.Fatal(err)
		}
		m := rec.(map[string]any)
		if len(m) != 1 || m["s"] != wantS[n] {
			t.Fatalf("record %d: %v, want s=%q only", n, m, wantS[n])
		}
		n++
	}
	if n != len(wantS) {
		t.Fatalf("%d selected records, want %d", n, len(wantS))
	}
	// Count reads only the filter's column.
	if c, err := ds.Count(ctx, &trevni.ReadOptions{Where: "i > 20"}); err != nil || c != int64(len(wantI)) {
		t.Fatalf("Count: %d, %v; want %d", c, err, len(wantI))
	}
	// Offset and limit across parts.
	off, lim := int64(len(want)-3), int64(5)
	r, err := ds.NewReader(ctx, &trevni.ReadOptions{Offset: off, Limit: lim})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	k := 0
	for rec, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		row := (int(off) + k) % len(want)
		if got := rec.(map[string]any)["s"]; got != want[row]["s"] {
			t.Fatalf("offset record %d: s=%v, want %v", k, got, want[row]["s"])
		}
		k++
	}
	if wantK := min(int(lim), parts*len(want)-int(off)); k != wantK {
		t.Fatalf("offset %d limit %d: %d records, want %d", off, lim, k, wantK)
	}
}

func TestOpenTrevni2(t *testing.T) {
	ds, err := trevni.Open(context.Background(), "testdata/interop/primitives/primitives.snappy.crc32.trv", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	if ds.Format() != trevni.Trevni2 {
		t.Fatalf("format %v", ds.Format())
	}
	checkPrimitives(t, ds, 1)
}

func TestOpenGlob(t *testing.T) {
	ds, err := trevni.Open(context.Background(), "testdata/interop/primitives/primitives.*crc32.trv", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	m, _ := filepath.Glob("testdata/interop/primitives/primitives.*crc32.trv")
	if len(ds.Parts()) != len(m) || len(m) < 2 {
		t.Fatalf("%d parts, %d files", len(ds.Parts()), len(m))
	}
	checkPrimitives(t, ds, len(m))
}

func TestOpenDirectory(t *testing.T) {
	dir := t.TempDir()
	src := "testdata/interop/primitives/primitives.null.none.trv"
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"b.trv", "a.trv", "c.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := trevni.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{filepath.Base(ds.Parts()[0].Name()), filepath.Base(ds.Parts()[1].Name())}; len(ds.Parts()) != 2 || got[0] != "a.trv" || got[1] != "b.trv" {
		t.Fatalf("parts %v", got)
	}
	checkPrimitives(t, ds, 2)
}

func TestOpenURL(t *testing.T) {
	b, err := os.ReadFile("testdata/interop/primitives/primitives.deflate.crc32.trv")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "p.trv", fileTime, bytesReader(b))
	}))
	defer srv.Close()
	ds, err := trevni.Open(context.Background(), srv.URL+"/p.trv", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	checkPrimitives(t, ds, 1)
}

func TestOpenCLMN(t *testing.T) {
	ctx := context.Background()
	ds, err := trevni.Open(ctx, "testdata/clmn/sample.clmn", &trevni.OpenOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	if ds.Format() != trevni.CLMN {
		t.Fatalf("format %v", ds.Format())
	}
	f, err := os.Open("testdata/clmn/sample.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	rows = rows[1:] // the header: id,name,age,salary,email,city
	type person struct {
		Name string
		Age  int32
	}
	var want []person
	for _, r := range rows {
		age, _ := strconv.Atoi(r[2])
		if age >= 60 {
			want = append(want, person{r[1], int32(age)})
		}
	}
	var got []person
	for p, err := range trevni.ReadStructs[person](ctx, ds, &trevni.ReadOptions{Where: "age >= 60"}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, *p)
	}
	if !slices.Equal(got, want) || len(want) == 0 {
		t.Fatalf("structs: %d people, want %d", len(got), len(want))
	}
	n := 0
	for rec, err := range ds.All(ctx, &trevni.ReadOptions{Fields: []string{"city"}, Where: "age >= 60", Limit: 10}) {
		if err != nil {
			t.Fatal(err)
		}
		if m := rec.(map[string]any); len(m) != 1 || m["city"] == nil {
			t.Fatalf("record %d: %v", n, m)
		}
		n++
	}
	if n != 10 {
		t.Fatalf("%d records with a limit of 10", n)
	}
}

func TestOpenTrevni1(t *testing.T) {
	ctx := context.Background()
	ds, err := trevni.Open(ctx, "testdata/trevni1/impala_several_blocks.trv", &trevni.OpenOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	if ds.Format() != trevni.Trevni1 || ds.RowCount() != 5 {
		t.Fatalf("format %v, %d rows", ds.Format(), ds.RowCount())
	}
	// The truth: the file's own records, through the version-1 record
	// reader, with no Trevni 2 copy and no assembling.
	f, err := ds.Parts()[0].Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := trevni1Records(t, f)
	type row struct {
		Col1 *int32  `avro:"col_1"`
		Col2 *string `avro:"col_2"`
	}
	var got []map[string]any
	for r, err := range trevni.ReadStructs[row](ctx, ds, &trevni.ReadOptions{Where: "col_1 >= 0"}) {
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]any{"col_1": nil, "col_2": nil}
		if r.Col1 != nil {
			m["col_1"] = *r.Col1
		}
		if r.Col2 != nil {
			m["col_2"] = *r.Col2
		}
		got = append(got, m)
	}
	var wantF []map[string]any
	for _, m := range want {
		if v, ok := m["col_1"].(int32); ok && v >= 0 {
			wantF = append(wantF, m)
		}
	}
	if len(got) != len(wantF) || len(wantF) == 0 {
		t.Fatalf("structs: %v, want %v", got, wantF)
	}
	for i := range got {
		if got[i]["col_1"] != wantF[i]["col_1"] || got[i]["col_2"] != wantF[i]["col_2"] {
			t.Fatalf("struct %d: %v, want %v", i, got[i], wantF[i])
		}
	}
	k := 0
	for rec, err := range ds.All(ctx, &trevni.ReadOptions{Fields: []string{"col_2"}}) {
		if err != nil {
			t.Fatal(err)
		}
		m := rec.(map[string]any)
		if len(m) != 1 || !sameUnion(m["col_2"], want[k]["col_2"]) {
			t.Fatalf("record %d: %v, want col_2 %v", k, m, want[k]["col_2"])
		}
		k++
	}
	if k != len(want) {
		t.Fatalf("%d records, want %d", k, len(want))
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.trv")
	os.WriteFile(junk, []byte("JUNK not ours"), 0o666)
	if _, err := trevni.Open(ctx, junk, nil); !errors.Is(err, trevni.ErrUnknownFormat) {
		t.Errorf("junk: %v", err)
	}
	// A Parquet file, in a program that does not link the driver (the
	// root's tests do not): the error names the import.
	pq := filepath.Join(dir, "x.parquet")
	os.WriteFile(pq, []byte("PAR1 not read further"), 0o666)
	if _, err := trevni.Open(ctx, pq, nil); !errors.Is(err, trevni.ErrNoParquet) || !strings.Contains(err.Error(), "trevniparquet") {
		t.Errorf("parquet without its driver: %v", err)
	}
	if _, err := trevni.Open(ctx, filepath.Join(dir, "*.none"), nil); err == nil {
		t.Errorf("a glob that matches nothing opened")
	}
	// Two parts of different schemas need a reader schema.
	_, err := trevni.OpenFiles(ctx, []string{
		"testdata/interop/primitives/primitives.null.none.trv",
		"testdata/interop/email/email.null.none.trv",
	}, nil)
	if err == nil {
		t.Errorf("parts of different schemas opened as one data set")
	}
}

var fileTime = time.Unix(1700000000, 0)

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

// trevni1Records decodes a version-1 file's records with goavro from the
// version-1 record reader's Avro binary; union values are unwrapped.
func trevni1Records(t *testing.T, f *trevni.File) []map[string]any {
	t.Helper()
	rr, err := trevni1.NewRecordReader(frontdoor.Trevni1Reader(f))
	if err != nil {
		t.Fatal(err)
	}
	codec, err := goavro.NewCodec(rr.SchemaText())
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	var buf []byte
	for {
		buf, err = rr.ReadBinary(buf[:0])
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		v, _, err := codec.NativeFromBinary(buf)
		if err != nil {
			t.Fatal(err)
		}
		m := v.(map[string]any)
		for k, x := range m {
			if u, ok := x.(map[string]any); ok {
				for _, y := range u {
					m[k] = y
				}
			}
		}
		out = append(out, m)
	}
}

// sameUnion compares a union value as the reader returns it (goavro's
// {"type": value}, or nil) with an unwrapped one.
func sameUnion(got, want any) bool {
	if got == nil || want == nil {
		return got == nil && want == nil
	}
	u, ok := got.(map[string]any)
	if !ok || len(u) != 1 {
		return false
	}
	for _, v := range u {
		return reflect.DeepEqual(v, want)
	}
	return false
}

// Offsets, row ranges and limits across the parts of a data set, with and
// without a filter, against the brute-force reading of Java's records.
func TestRangesAcrossParts(t *testing.T) {
	ctx := context.Background()
	ds, err := trevni.OpenFiles(ctx, []string{
		"testdata/interop/primitives/primitives.null.none.trv",
		"testdata/interop/primitives/primitives.snappy.crc32.trv",
		"testdata/interop/primitives/primitives.deflate.crc32.trv",
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	one := expectedPrimitives(t)
	var all []map[string]any
	for range 3 {
		all = append(all, one...)
	}
	for _, where := range []string{"", "i > 20"} {
		for _, off := range []int64{0, 1, 499, 500, 777, 1499, 1500} {
			for _, rows := range []int64{0, 1, 300, 1000} {
				for _, lim := range []int64{0, 7} {
					var want []string
					end := int64(len(all))
					if rows > 0 {
						end = min(end, off+rows)
					}
					for k := off; k < end; k++ {
						if where == "" || all[k]["i"].(float64) > 20 {
							want = append(want, all[k]["s"].(string))
						}
					}
					if lim > 0 && int64(len(want)) > lim {
						want = want[:lim]
					}
					opts := &trevni.ReadOptions{Where: where, Offset: off, Rows: rows, Limit: lim, Fields: []string{"s"}}
					var got []string
					for rec, err := range ds.All(ctx, opts) {
						if err != nil {
							t.Fatal(err)
						}
						got = append(got, rec.(map[string]any)["s"].(string))
					}
					if !slices.Equal(got, want) {
						t.Fatalf("where %q offset %d rows %d limit %d: %d records, want %d", where, off, rows, lim, len(got), len(want))
					}
					if n, err := ds.Count(ctx, opts); err != nil || n != int64(len(want)) {
						t.Fatalf("Count where %q offset %d rows %d limit %d: %d, %v; want %d", where, off, rows, lim, n, err, len(want))
					}
				}
			}
		}
	}
}
