package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/internal/testing/ducktest"
)

// The reading commands take Avro container files as data sets: for every
// interop vector, what they print of Java's input.avro (written by Avro
// 1.8.2) is what they print of the Trevni file Java wrote of the same
// records, whose reading other tests compare with Java's own; with
// --fields, --where, --limit and --offset, on one worker and on several.
func TestReadingCommandsTakeAvroFiles(t *testing.T) {
	vectors, err := filepath.Glob(filepath.Join(interopDir, "*", "input.avro"))
	if err != nil || len(vectors) < 8 {
		t.Fatalf("%d vectors: %v", len(vectors), err)
	}
	for _, avro := range vectors {
		dir := filepath.Dir(avro)
		name := filepath.Base(dir)
		trv := filepath.Join(dir, name+".null.none.trv")
		for _, args := range [][]string{
			{"tojson"},
			{"tojson", "--plain", "--workers", "3"},
			{"tojson", "--limit", "7", "--offset", "5"},
			{"head", "-n", "3"},
			{"count"},
			{"schema"},
			{"tocsv"},
			{"dump"},
			{"toavro", "-"},
		} {
			want := runIn(t, nil, append(args, trv)...)
			got := runIn(t, nil, append(args, avro)...)
			if args[0] == "toavro" {
				// Container files of random sync markers: their
				// records are compared through tojson below.
				if got.code != want.code {
					t.Errorf("%s %q: status %d, the Trevni file's %d: %s", name, args, got.code, want.code, got.stderr)
				}
				continue
			}
			if got.code != want.code || got.stdout != want.stdout {
				t.Errorf("%s %q: status %d (%d bytes), the Trevni file's %d (%d bytes): %s", name, args, got.code, len(got.stdout), want.code, len(want.stdout), got.stderr)
			}
		}
	}
	// Fields, filters and a data set of an Avro file and a Trevni file of
	// the same schema, in a directory.
	dir := t.TempDir()
	copyFile(t, filepath.Join(interopDir, "primitives", "input.avro"), dir, "a.avro")
	copyFile(t, filepath.Join(interopDir, "primitives", "primitives.deflate.crc32.trv"), dir, "b.trv")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"count", dir}, "1000\n"},
		{[]string{"count", "--where", "i > 10", filepath.Join(dir, "a.avro")}, "246\n"},
		{[]string{"count", "--where", "i > 10", dir}, "492\n"},
		{[]string{"tojson", "--fields", "s,i", "--limit", "2", "--offset", "3", filepath.Join(dir, "*.avro")}, "{\"i\":59,\"s\":\"bar\"}\n{\"i\":62,\"s\":\"baz\"}\n"},
		{[]string{"tocsv", "--fields", "i,s", filepath.Join(dir, "a.avro")}, "i,s\n58,oxsovwmamcezoa\n44,foo\n"},
		{[]string{"validate", filepath.Join(dir, "a.avro")}, filepath.Join(dir, "a.avro") + ": ok: 500 records checked (Avro)\n"},
	} {
		r := runIn(t, nil, c.args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, c.want) || c.args[0] != "tocsv" && r.stdout != c.want {
			t.Errorf("%q: status %d, %q, want %q; %s", c.args, r.code, r.stdout, c.want, r.stderr)
		}
	}
	// meta prints the container's header.
	r := runIn(t, nil, "meta", filepath.Join(dir, "a.avro"))
	if r.code != 0 || !strings.HasPrefix(r.stdout, `{"format":"avro","fileLength":17958,"rowCount":500,"metadata":{"avro.schema":"{\"type\":\"record\",\"name\":\"Primitives\"`) {
		t.Errorf("meta: %d %s %s", r.code, r.stdout, r.stderr)
	}
	// What an Avro file has not: block statistics.
	for _, args := range [][]string{{"columns"}, {"inspect"}} {
		r := runIn(t, nil, append(args, filepath.Join(dir, "a.avro"))...)
		if r.code != exitError || !strings.Contains(r.stderr, "a.avro: an Avro file: "+args[0]+" ") {
			t.Errorf("%q: %d %s", args, r.code, r.stderr)
		}
	}
}

// Parquet files too: what the reading commands print of a Parquet file
// is what they print of the Trevni file fromparquet makes of it; meta
// prints its size, rows, schema and columns.
func TestReadingCommandsTakeParquetFiles(t *testing.T) {
	dir := t.TempDir()
	pq := filepath.Join("..", "..", "trevniparquet", "testdata", "realwriters", "parquet-testing", "alltypes_plain.parquet")
	trv := filepath.Join(dir, "a.trv")
	if r := runIn(t, nil, "fromparquet", "--quiet", pq, trv); r.code != 0 {
		t.Fatal(r.stderr)
	}
	for _, args := range [][]string{
		{"tojson"}, {"head", "-n", "2", "--fields", "id,string_col"}, {"count", "--where", "id > 3"},
		{"schema"}, {"tocsv", "--fields", "id,bool_col"}, {"tojson", "--workers", "3", "--offset", "2", "--limit", "3"},
	} {
		want := runIn(t, nil, append(args, trv)...)
		got := runIn(t, nil, append(args, pq)...)
		if got.code != 0 || got.stdout != want.stdout {
			t.Errorf("%q: status %d, %q; the Trevni file's %q: %s", args, got.code, got.stdout, want.stdout, got.stderr)
		}
	}
	checkParquetMeta(t, pq, trv)
}

// checkParquetMeta checks what meta prints of the Parquet file pq against
// independent truths: its size on disk, DuckDB's count of its rows, the
// schema the schema command prints of it, and the columns meta prints of
// the Trevni file trv that fromparquet made of it through Arrow (a path
// apart from the front door's Parquet source).
func checkParquetMeta(t *testing.T, pq, trv string) {
	t.Helper()
	r := runIn(t, nil, "meta", pq)
	if r.code != 0 {
		t.Fatalf("meta: %d %s", r.code, r.stderr)
	}
	var got struct {
		Format      string            `json:"format"`
		FileLength  int64             `json:"fileLength"`
		RowCount    int64             `json:"rowCount"`
		Metadata    map[string]string `json:"metadata"`
		ColumnCount int               `json:"columnCount"`
		Columns     []map[string]any  `json:"columns"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("meta: %v: %s", err, r.stdout)
	}
	st, err := os.Stat(pq)
	if err != nil {
		t.Fatal(err)
	}
	duck := ducktest.Query(t, "select count(*)::varchar from read_parquet("+sqlString(pq)+")")
	if duck[0].Error != "" {
		t.Fatal(duck[0].Error)
	}
	if got.Format != "parquet" || got.FileLength != st.Size() || fmt.Sprint(got.RowCount) != duck[0].Rows[0][0] {
		t.Errorf("meta: format %q, %d bytes, %d rows; want parquet, %d bytes, DuckDB's %v rows", got.Format, got.FileLength, got.RowCount, st.Size(), duck[0].Rows[0][0])
	}
	schemaOut := runIn(t, nil, "schema", pq)
	var a, b any
	if json.Unmarshal([]byte(schemaOut.stdout), &a) != nil || json.Unmarshal([]byte(got.Metadata["avro.schema"]), &b) != nil || !reflect.DeepEqual(a, b) {
		t.Errorf("meta's avro.schema %s, schema prints %s", got.Metadata["avro.schema"], schemaOut.stdout)
	}
	var want struct {
		Columns []map[string]any `json:"columns"`
	}
	r = runIn(t, nil, "meta", trv)
	if err := json.Unmarshal([]byte(r.stdout), &want); err != nil {
		t.Fatalf("meta of the Trevni file: %v: %s", err, r.stderr)
	}
	if len(want.Columns) == 0 || got.ColumnCount != len(want.Columns) || len(got.Columns) != len(want.Columns) {
		t.Fatalf("meta: %d columns (%d listed), the Trevni file's %d", got.ColumnCount, len(got.Columns), len(want.Columns))
	}
	for i, c := range got.Columns {
		for _, k := range []string{"number", "name", "type", "array", "parent"} {
			if fmt.Sprint(c[k]) != fmt.Sprint(want.Columns[i][k]) {
				t.Errorf("column %d: %s %v, the Trevni file's %v", i, k, c[k], want.Columns[i][k])
			}
		}
	}
}
