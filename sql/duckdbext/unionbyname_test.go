package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni"
)

// writePart writes a Trevni file of the given schema and records.
func writePart(t *testing.T, path, schemaText string, recs []map[string]any) {
	t.Helper()
	w, err := trevni.Create(context.Background(), path, schemaText, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestUnionByName reads parts that differ in nullable fields some lack
// with union_by_name := true (the missing fields NULL), and checks the
// errors without it and for parts whose fields differ in type.
func TestUnionByName(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	bad := filepath.Join(dir, "bad")
	for _, d := range []string{good, bad} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	nullStr := func(s string) any { return map[string]any{"string": s} }
	nullDbl := func(f float64) any { return map[string]any{"double": f} }
	writePart(t, filepath.Join(good, "1.trv"), `{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"b","type":["null","string"]}]}`,
		[]map[string]any{{"a": int64(1), "b": nullStr("one")}, {"a": int64(2), "b": nil}})
	writePart(t, filepath.Join(good, "2.trv"), `{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"b","type":["null","string"]},{"name":"c","type":["null","double"]}]}`,
		[]map[string]any{{"a": int64(3), "b": nullStr("three"), "c": nullDbl(3.5)}})
	writePart(t, filepath.Join(good, "3.trv"), `{"type":"record","name":"R","fields":[{"name":"c","type":["null","double"]},{"name":"a","type":"long"}]}`,
		[]map[string]any{{"a": int64(4), "c": nullDbl(4.5)}})
	writePart(t, filepath.Join(bad, "1.trv"), `{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"b","type":["null","string"]}]}`,
		[]map[string]any{{"a": int64(1), "b": nullStr("one")}})
	writePart(t, filepath.Join(bad, "2.trv"), `{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"b","type":["null","long"]}]}`,
		[]map[string]any{{"a": int64(2), "b": map[string]any{"long": int64(2)}}})
	glob := quote(filepath.Join(good, "*.trv"))
	rs := runDuckDB(t, step{SQLs: []string{
		load(t),
		fmt.Sprintf("SELECT a, b, c FROM read_trevni(%s, union_by_name := true) ORDER BY a", glob),
		fmt.Sprintf("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_trevni(%s, union_by_name := true))", glob),
		fmt.Sprintf("SELECT count(*) FROM read_trevni(%s)", glob),
		fmt.Sprintf("SELECT count(*) FROM read_trevni(%s, union_by_name := true)", quote(filepath.Join(bad, "*.trv"))),
		fmt.Sprintf("SELECT count(*), count(c) FROM read_trevni(%s, union_by_name := true, filter := 'a >= 2')", glob),
	}})
	must(t, rs[0])
	if s := fmt.Sprint(must(t, rs[1]).Rows); s != "[[1 one <nil>] [2 <nil> <nil>] [3 three 3.5] [4 <nil> 4.5]]" {
		t.Errorf("union_by_name: %s", s)
	}
	if s := fmt.Sprint(must(t, rs[2]).Rows); s != "[[a BIGINT] [b VARCHAR] [c DOUBLE]]" {
		t.Errorf("union_by_name's columns: %s", s)
	}
	if !strings.Contains(rs[3].Error, "different schemas") {
		t.Errorf("without union_by_name: %q, want the parts' different schemas", rs[3].Error)
	}
	if !strings.Contains(rs[4].Error, "field b is") || !strings.Contains(rs[4].Error, "differ only in nullability and in numbers of wider types") {
		t.Errorf("fields of different types: %q", rs[4].Error)
	}
	if s := fmt.Sprint(must(t, rs[5]).Rows); s != "[[3 2]]" {
		t.Errorf("union_by_name with a filter: %s", s)
	}
}

// TestLimitSettings sets the readers' limits as DuckDB settings and checks
// that a scan keeps to them, and that a named parameter wins over them.
func TestLimitSettings(t *testing.T) {
	dir := t.TempDir()
	path, _, _, _ := bigFile(t, dir, 20000)
	src := quote(path)
	rs := runDuckDB(t, step{SQLs: []string{
		load(t),
		"SET trevni_block_memory = 1000; SELECT sum(a), max(b) FROM read_trevni(" + src + ")",
		"SET trevni_block_memory = 1000; SELECT sum(a), max(b) FROM read_trevni(" + src + ", block_memory := 67108864)",
		"SET trevni_max_block_size = 1000; SELECT sum(a) FROM read_trevni(" + src + ")",
		"SET trevni_block_memory = 0; SET trevni_max_block_size = 0; SET trevni_max_record_bytes = 30; SELECT max(b) FROM read_trevni(" + src + ")",
		"SELECT current_setting('trevni_block_memory'), current_setting('trevni_max_record_bytes')",
		"SELECT max(b) FROM read_trevni(" + src + ", max_record_bytes := 64)",
		"SET trevni_max_record_bytes = 0; SELECT max(b) FROM read_trevni(" + src + ")",
	}})
	must(t, rs[0])
	if !strings.Contains(rs[1].Error, "1000 bytes of block_memory (or SET trevni_block_memory)") {
		t.Errorf("trevni_block_memory = 1000: %q", rs[1].Error)
	}
	if s := fmt.Sprint(must(t, rs[2]).Rows); !strings.HasPrefix(s, "[[199990000 ") {
		t.Errorf("block_memory := 64 MiB over the setting: %s", s)
	}
	if !strings.Contains(rs[3].Error, "the 1000 bytes of max_block_size (or SET trevni_max_block_size)") {
		t.Errorf("trevni_max_block_size = 1000: %q", rs[3].Error)
	}
	// A record of this file is about 16 bytes of each fixed-size value
	// read and the bytes of its string (28): max(b) reads b only, 44
	// bytes a record.
	if !strings.Contains(rs[4].Error, "record too large") || !strings.Contains(rs[4].Error, "the 30 of max_record_bytes") {
		t.Errorf("trevni_max_record_bytes = 30: %q", rs[4].Error)
	}
	// Each statement runs on a connection of its own: the settings are
	// their defaults here.
	if s := fmt.Sprint(must(t, rs[5]).Rows); s != "[[0 0]]" {
		t.Errorf("the settings' defaults: %s", s)
	}
	want := "[[row 00019999 of the big file]]"
	if s := fmt.Sprint(must(t, rs[6]).Rows); s != want {
		t.Errorf("max_record_bytes := 64 over the setting's 30: %s", s)
	}
	if s := fmt.Sprint(must(t, rs[7]).Rows); s != want {
		t.Errorf("trevni_max_record_bytes = 0 (the default): %s", s)
	}
	t.Logf("block size: %s; record bytes: %s; defaults %v", rs[3].Error, rs[4].Error, rs[5].Rows)
}
