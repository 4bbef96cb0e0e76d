package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni"
)

// TestSchemaLimits sets the limits of a schema's layout (its columns,
// the nesting of its types) as named parameters of read_trevni and as
// DuckDB settings, which trevni_schema keeps to as well: a schema past
// them is refused naming the parameter and the setting, a named parameter
// wins over the setting, and a schema within them is read whole.
// trevni_metadata describes the file's columns as they are, whatever the
// limits of a layout.
func TestSchemaLimits(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "nested.trv")
	// Five columns (a, r#x, r#s#y, r#s#z, tags[]), types three deep.
	w, err := trevni.Create(ctx, path, `{"type":"record","name":"N","fields":[
		{"name":"a","type":"long"},
		{"name":"r","type":{"type":"record","name":"R","fields":[
			{"name":"x","type":"int"},
			{"name":"s","type":{"type":"record","name":"S","fields":[{"name":"y","type":"int"},{"name":"z","type":"string"}]}}]}},
		{"name":"tags","type":{"type":"array","items":"string"}}]}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if err := w.Write(map[string]any{"a": int64(i), "r": map[string]any{"x": int32(i), "s": map[string]any{"y": int32(2 * i), "z": fmt.Sprint(i)}}, "tags": []any{"t"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	src := quote(path)
	count := "SELECT count(*), sum(r.s.y) FROM read_trevni(" + src
	rs := runDuckDB(t, step{SQLs: []string{
		load(t),
		count + ")",
		count + ", max_columns := 4)",
		"SET trevni_max_columns = 4; " + count + ")",
		"SET trevni_max_columns = 4; " + count + ", max_columns := 5)",
		count + ", max_depth := 2)",
		"SET trevni_max_depth = 2; SELECT count(*) FROM trevni_schema(" + src + ")",
		"SET trevni_max_columns = 4; SELECT count(*) FROM trevni_metadata(" + src + ")",
		"SET trevni_max_depth = 3; " + count + ")",
		count + ", max_columns := -1)",
		"SELECT current_setting('trevni_max_columns'), current_setting('trevni_max_depth')",
	}})
	want := "[[100 9900]]"
	for _, i := range []int{1, 4, 8} {
		if s := fmt.Sprint(must(t, rs[i]).Rows); s != want {
			t.Errorf("%s: %s, want %s", rs[i].SQL, s, want)
		}
	}
	for _, c := range []struct {
		i    int
		want string
	}{
		{2, "more than 4 columns (max_columns (or SET trevni_max_columns))"},
		{3, "more than 4 columns (max_columns (or SET trevni_max_columns))"},
		{5, "nest more than 2 deep"},
		{5, "(max_depth (or SET trevni_max_depth))"},
		{6, "(max_depth (or SET trevni_max_depth))"},
		{9, "max_columns := -1: want a positive number"},
	} {
		if !strings.Contains(rs[c.i].Error, c.want) {
			t.Errorf("%s: error %q, want %q", rs[c.i].SQL, rs[c.i].Error, c.want)
		}
	}
	if s := fmt.Sprint(must(t, rs[7]).Rows); s != "[[5]]" {
		t.Errorf("trevni_metadata under trevni_max_columns = 4: %s, want the file's 5 columns", s)
	}
	if s := fmt.Sprint(must(t, rs[10]).Rows); s != "[[0 0]]" {
		t.Errorf("the settings' defaults: %s", s)
	}
}
