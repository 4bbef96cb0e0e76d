package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/sql/duckdbext/extfooter"
	"github.com/trevni-go/trevni/sql/duckscan"
	"github.com/trevni-go/trevni/trevni1/convert"
)

// interopFile returns the path of a Java-written file of testdata.
func interopFile(vector, name string) string {
	return filepath.Join("..", "..", "testdata", "interop", vector, name)
}

// abs returns the absolute path of p (DuckDB runs in another directory).
func abs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestLoadAndVersion loads the extension into DuckDB's Node package and
// checks DuckDB's version and what duckdb_extensions() says of it.
func TestLoadAndVersion(t *testing.T) {
	rs := runDuckDB(t, step{SQLs: []string{
		"SELECT version()",
		load(t),
		"SELECT extension_name, loaded, install_mode FROM duckdb_extensions() WHERE extension_name = 'trevni'",
		"SELECT count(*) FROM duckdb_functions() WHERE function_name IN ('read_trevni', 'trevni_scan')",
	}})
	v := must(t, rs[0]).Rows[0][0]
	if s, _ := v.(string); !strings.HasPrefix(s, "v1.5.") {
		t.Errorf("DuckDB %v: the tests expect DuckDB 1.5", v)
	}
	must(t, rs[1])
	if r := must(t, rs[2]); len(r.Rows) != 1 || r.Rows[0][1] != true {
		t.Errorf("duckdb_extensions(): %v", r.Rows)
	}
	if r := must(t, rs[3]); fmt.Sprint(r.Rows[0][0]) != "2" {
		t.Errorf("functions read_trevni and trevni_scan: %v", r.Rows)
	}
}

// TestTooOldDuckDB gives a copy of the extension a footer that needs a C
// API newer than any DuckDB's, and checks that DuckDB refuses it with an
// error saying so, and goes on answering.
func TestTooOldDuckDB(t *testing.T) {
	b, err := os.ReadFile(extension(t))
	if err != nil {
		t.Fatal(err)
	}
	m, err := extfooter.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if m.ABI != extfooter.ABICStruct || m.Version != duckscan.APIVersion || m.Platform != extfooter.HostPlatform() {
		t.Errorf("footer %+v", m)
	}
	m.Version = "v9.9.0"
	f, err := extfooter.Footer(m)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "trevni.duckdb_extension")
	if err := os.WriteFile(path, append(b[:len(b)-extfooter.Size:len(b)-extfooter.Size], f...), 0o644); err != nil {
		t.Fatal(err)
	}
	rs := runDuckDB(t, step{SQLs: []string{"LOAD " + quote(path), "SELECT 42"}})
	if rs[0].Error == "" || !strings.Contains(rs[0].Error, "v9.9.0") {
		t.Errorf("loading an extension that needs C API v9.9.0: %q, want DuckDB's refusal naming the version", rs[0].Error)
	}
	t.Logf("DuckDB says: %s", rs[0].Error)
	if fmt.Sprint(must(t, rs[1]).Rows) != "[[42]]" {
		t.Errorf("after the refusal: %v", rs[1].Rows)
	}
}

// compareStatements returns the statements that describe the columns of
// the Trevni data set source, read by the extension, and of the Parquet
// file pq (the same records, as trevni toparquet writes them).
func compareStatements(source, pq string) []string {
	return []string{
		fmt.Sprintf("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_trevni(%s))", quote(source)),
		fmt.Sprintf("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(%s))", quote(pq)),
	}
}

// TestReadsAsParquet reads every interop vector (Java's files) with
// read_trevni and compares with DuckDB's own reading of the same records
// written as Parquet.
func TestReadsAsParquet(t *testing.T) {
	dir := t.TempDir()
	type vec struct{ source, pq string }
	var vecs []vec
	for _, v := range []struct{ vector, file string }{
		{"primitives", "primitives.snappy.crc32.trv"},
		{"booleans", "booleans.null.none.trv"},
		{"email", "email.deflate.none.trv"},
		{"enum_fixed_bytes", "enum_fixed_bytes.null.none.trv"},
		{"maps", "maps.null.none.trv"},
		{"nested_records", "nested_records.null.none.trv"},
		{"unions", "unions.null.none.trv"},
		{"medium", "medium.null.none.trv"},
	} {
		p := interopFile(v.vector, v.file)
		if _, err := os.Stat(p); err != nil {
			matches, _ := filepath.Glob(interopFile(v.vector, "*.trv"))
			if len(matches) == 0 {
				t.Fatalf("%s: no .trv file", v.vector)
			}
			p = matches[0]
		}
		vecs = append(vecs, vec{abs(t, p), toParquet(t, p, dir)})
	}
	// First the types of both.
	var sqls []string
	for _, v := range vecs {
		sqls = append(sqls, compareStatements(v.source, v.pq)...)
	}
	rs := runDuckDB(t, step{SQLs: append([]string{load(t)}, sqls...)})
	must(t, rs[0])
	var compare []string
	for i, v := range vecs {
		tr, pq := must(t, rs[1+2*i]), must(t, rs[2+2*i])
		var cols []string
		pqTypes := map[string]string{}
		for _, row := range pq.Rows {
			pqTypes[row[0].(string)] = row[1].(string)
		}
		for _, row := range tr.Rows {
			name, typ := row[0].(string), row[1].(string)
			want, ok := pqTypes[name]
			switch {
			case !ok:
				t.Errorf("%s: column %s (%s) is not in the Parquet file", v.source, name, typ)
			case typ == want:
				cols = append(cols, `"`+strings.ReplaceAll(name, `"`, `""`)+`"`)
			case strings.Contains(typ, "UNION("):
				// Parquet has no unions: compared below by trevnisql's
				// type tests and TestUnions.
			default:
				t.Errorf("%s: column %s is %s, DuckDB reads the Parquet as %s", v.source, name, typ, want)
			}
		}
		if len(tr.Rows) != len(pq.Rows) {
			t.Errorf("%s: %d columns, Parquet %d", v.source, len(tr.Rows), len(pq.Rows))
		}
		if len(cols) == 0 {
			continue
		}
		sel := strings.Join(cols, ", ")
		a := fmt.Sprintf("SELECT %s FROM read_trevni(%s)", sel, quote(v.source))
		b := fmt.Sprintf("SELECT %s FROM read_parquet(%s)", sel, quote(v.pq))
		compare = append(compare,
			fmt.Sprintf("SELECT (SELECT count(*) FROM (%s)), (SELECT count(*) FROM (%s)), (SELECT count(*) FROM (%s EXCEPT ALL %s)), (SELECT count(*) FROM (%s EXCEPT ALL %s))", a, b, a, b, b, a))
	}
	rs = runDuckDB(t, step{SQLs: append([]string{load(t)}, compare...)})
	for _, r := range rs[1:] {
		must(t, r)
		got := fmt.Sprint(r.Rows[0])
		f := strings.Fields(strings.Trim(got, "[]"))
		if len(f) != 4 || f[0] != f[1] || f[2] != "0" || f[3] != "0" {
			t.Errorf("%s\n= %s (rows of Trevni, of Parquet, Trevni's not in Parquet, Parquet's not in Trevni)", r.SQL, got)
		}
	}
}

// TestUnions checks UNION columns value by value against what Go reads.
func TestUnions(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "u.trv")
	w, err := trevni.Create(context.Background(), path, `{"type":"record","name":"R","fields":[
		{"name":"id","type":"int"},
		{"name":"u","type":["null","int","string"]},
		{"name":"l","type":{"type":"array","items":["long","string"]}}]}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := []map[string]any{
		{"id": int32(0), "u": nil, "l": []any{}},
		{"id": int32(1), "u": map[string]any{"int": int32(7)}, "l": []any{map[string]any{"long": int64(1)}, map[string]any{"string": "x"}}},
		{"id": int32(2), "u": map[string]any{"string": "s"}, "l": []any{map[string]any{"string": "y"}}},
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rs := runDuckDB(t, step{SQLs: []string{load(t),
		fmt.Sprintf("SELECT id, typeof(u), union_tag(u), u::VARCHAR, l::VARCHAR FROM %s ORDER BY id", quote(path))}})
	r := must(t, rs[1])
	want := `[[0 UNION("int" INTEGER, string VARCHAR) <nil> <nil> []] [1 UNION("int" INTEGER, string VARCHAR) int 7 [1, x]] [2 UNION("int" INTEGER, string VARCHAR) string s [y]]]`
	if got := fmt.Sprint(r.Rows); got != want {
		t.Errorf("unions:\n got %s\nwant %s", got, want)
	}
}

// TestSources reads one data set named in each way a query can, from
// each kind of source: a path, a glob, a directory, an http URL, through
// read_trevni and through the replacement scan (.trv, .trv1, .clmn).
func TestSources(t *testing.T) {
	dir := abs(t, filepath.Join("..", "..", "testdata", "interop", "primitives"))
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	sub := t.TempDir()
	for _, name := range []string{"a.trv", "b.trv"} {
		b, err := os.ReadFile(filepath.Join(dir, "primitives.snappy.crc32.trv"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	clmn := abs(t, filepath.Join("..", "..", "testdata", "clmn"))
	// A Trevni 1 copy of the file (testdata has none).
	trv1 := []string{filepath.Join(t.TempDir(), "primitives.trv1")}
	{
		src, err := format.Open(filepath.Join(dir, "primitives.snappy.crc32.trv"))
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(trv1[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := convert.FromV2(context.Background(), f, src.Reader, nil); err != nil {
			t.Fatal(err)
		}
		src.Close()
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct{ from, want string }{
		{quote(filepath.Join(dir, "primitives.snappy.crc32.trv")), "500"},
		{"read_trevni(" + quote(filepath.Join(dir, "primitives.deflate.crc32.trv")) + ")", "500"},
		{quote(filepath.Join(dir, "primitives.[bds]*.crc32.trv")), "1500"},
		{"read_trevni(" + quote(sub) + ")", "1000"},
		{quote(srv.URL + "/primitives.bzip2.crc32.trv"), "500"},
		{"trevni_scan(" + quote(srv.URL+"/primitives.null.crc32-correct.trv") + ")", "500"},
	}
	ctx := context.Background()
	count := func(source string) string {
		ds, err := trevni.Open(ctx, source, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ds.Close()
		var n int64
		for _, p := range ds.Parts() {
			n += p.RowCount()
		}
		return fmt.Sprint(n)
	}
	if m, _ := filepath.Glob(filepath.Join(clmn, "*.clmn")); len(m) > 0 {
		cases = append(cases, struct{ from, want string }{quote(m[0]), count(m[0])})
	}
	if len(trv1) > 0 {
		cases = append(cases, struct{ from, want string }{quote(abs(t, trv1[0])), count(trv1[0])})
	}
	if len(cases) < 8 {
		t.Errorf("testdata lacks a CLMN or a Trevni 1 file: %d cases", len(cases))
	}
	var sqls []string
	for _, c := range cases {
		sqls = append(sqls, "SELECT count(*) FROM "+c.from)
	}
	rs := runDuckDB(t, step{SQLs: append([]string{load(t)}, sqls...)})
	must(t, rs[0])
	for i, c := range cases {
		r := rs[i+1]
		if r.Error != "" || fmt.Sprint(r.Rows) != "[["+c.want+"]]" {
			t.Errorf("%s: %v %s; want %s rows", c.from, r.Rows, r.Error, c.want)
		}
	}
}

// TestFilterAndFilename checks the named parameters filter (the same
// rows as DuckDB's WHERE over the Parquet copy) and filename.
func TestFilterAndFilename(t *testing.T) {
	src := abs(t, interopFile("medium", "medium.null.none.trv"))
	if _, err := os.Stat(src); err != nil {
		m, _ := filepath.Glob(interopFile("medium", "*.trv"))
		src = abs(t, m[0])
	}
	pq := toParquet(t, src, t.TempDir())
	dir := abs(t, filepath.Join("..", "..", "testdata", "interop", "primitives"))
	rs := runDuckDB(t, step{SQLs: []string{load(t),
		fmt.Sprintf("SELECT column_name FROM (DESCRIBE SELECT * FROM read_trevni(%s)) LIMIT 3", quote(src)),
	}})
	// The first column of the medium vector is numeric.
	num := fmt.Sprint(must(t, rs[1]).Rows[0][0])
	rs = runDuckDB(t, step{SQLs: []string{load(t),
		fmt.Sprintf(`SELECT count(*) FROM read_trevni(%s, filter := '%s > 0')`, quote(src), num),
		fmt.Sprintf(`SELECT count(*) FROM read_parquet(%s) WHERE "%s" > 0`, quote(pq), num),
		fmt.Sprintf(`SELECT filename, count(*) FROM read_trevni(%s, filename := true) GROUP BY ALL ORDER BY ALL`, quote(filepath.Join(dir, "primitives.[bd]*.crc32.trv"))),
		fmt.Sprintf(`SELECT count(*) FROM read_trevni(%s, filter := 'no_such_field > 1')`, quote(src)),
	}})
	a, b := must(t, rs[1]), must(t, rs[2])
	if fmt.Sprint(a.Rows) != fmt.Sprint(b.Rows) {
		t.Errorf("filter %s > 0: %v rows; DuckDB's WHERE over Parquet: %v", num, a.Rows, b.Rows)
	}
	want := fmt.Sprintf("[[%s 500] [%s 500]]", filepath.Join(dir, "primitives.bzip2.crc32.trv"), filepath.Join(dir, "primitives.deflate.crc32.trv"))
	if got := fmt.Sprint(must(t, rs[3]).Rows); got != want {
		t.Errorf("filename:\n got %s\nwant %s", got, want)
	}
	if !strings.Contains(rs[4].Error, "no_such_field") {
		t.Errorf("a filter on a missing field: %q", rs[4].Error)
	}
}

// TestHostileFiles reads damaged files: each is a DuckDB error naming the
// file, and the process goes on answering.
func TestHostileFiles(t *testing.T) {
	good, err := os.ReadFile(interopFile("primitives", "primitives.snappy.crc32.trv"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var sqls []string
	var names []string
	for i, off := range []int{0, 4, 16, 40, len(good) / 3, len(good) / 2, len(good) - 20} {
		b := slices.Clone(good)
		for k := off; k < min(off+16, len(b)); k++ {
			b[k] ^= 0x5a
		}
		name := filepath.Join(dir, fmt.Sprintf("bad%d.trv", i))
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
		sqls = append(sqls, "SELECT * FROM "+quote(name))
	}
	trunc := filepath.Join(dir, "short.trv")
	os.WriteFile(trunc, good[:len(good)/2], 0o644)
	names = append(names, trunc)
	sqls = append(sqls, "SELECT sum(i) FROM "+quote(trunc), "SELECT 42")
	rs := runDuckDB(t, step{SQLs: append([]string{load(t)}, sqls...)})
	for i, name := range names {
		r := rs[i+1]
		if r.Error == "" {
			continue // damage the checksums or values may not catch: not an error to find
		}
		if !strings.Contains(r.Error, name) {
			t.Errorf("%s: the error does not name the file: %s", name, r.Error)
		}
	}
	if r := rs[len(rs)-2]; r.Error == "" {
		t.Errorf("a truncated file read without error: %v", r.Rows)
	}
	if fmt.Sprint(must(t, rs[len(rs)-1]).Rows) != "[[42]]" {
		t.Error("DuckDB does not answer after the damaged files")
	}
}

// TestPanicIsAnError makes the scan panic (through its test hook) and
// checks that DuckDB gets an error and goes on.
func TestPanicIsAnError(t *testing.T) {
	t.Setenv("TREVNI_DUCKDB_PANIC_SOURCE", "panic-test.trv")
	rs := runDuckDB(t, step{SQLs: []string{load(t), "SELECT * FROM 'panic-test.trv'", "SELECT 42"}})
	if !strings.Contains(rs[1].Error, "internal error") || !strings.Contains(rs[1].Error, "test panic") {
		t.Errorf("a panic in bind: %q", rs[1].Error)
	}
	if fmt.Sprint(must(t, rs[2]).Rows) != "[[42]]" {
		t.Error("DuckDB does not answer after the panic")
	}
}

// TestTwiceAndConcurrent loads the extension into two databases of one
// process (and twice into one), next to httpfs when DuckDB can load it
// offline, and runs queries on 16 connections at once in each.
func TestTwiceAndConcurrent(t *testing.T) {
	src := abs(t, interopFile("primitives", "primitives.snappy.crc32.trv"))
	q := fmt.Sprintf("SELECT count(*), sum(i) FROM read_trevni(%s)", quote(src))
	var many []string
	for range 16 {
		many = append(many, q)
	}
	rs := runDuckDB(t,
		step{DB: "a", SQLs: []string{load(t), "LOAD httpfs", load(t)}},
		step{DB: "b", SQLs: []string{load(t)}},
		step{DB: "a", SQLs: many, Parallel: true},
		step{DB: "b", SQLs: many, Parallel: true},
	)
	must(t, rs[0])
	if rs[1].Error != "" {
		t.Logf("httpfs is not available offline: %s", rs[1].Error)
	}
	must(t, rs[2])
	must(t, rs[3])
	want := fmt.Sprint(must(t, rs[4]).Rows)
	for _, r := range rs[4:] {
		if got := fmt.Sprint(must(t, r).Rows); got != want {
			t.Errorf("concurrent query: %s, the first %s", got, want)
		}
	}
}
