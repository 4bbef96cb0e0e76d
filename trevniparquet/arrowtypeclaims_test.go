package trevniparquet_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/testing/ducktest"
	"github.com/trevni-go/trevni/trevniparquet"
)

// An "arrow.type" mark on an Avro int or long is a claim of the schema,
// as written by hand or by another tool: toparquet writes the type it
// names straight from the columns (DuckDB reads it so), the same file as
// through Arrow batches, while every value fits, and refuses an integer
// outside its type's range on both paths rather than cut it.
func TestArrowTypeMarkIsAClaim(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		avro, mark, duck string
		lo, hi           int64
		show             func(int64) string // DuckDB's to_json of a value
	}{
		{"int", "int8", "TINYINT", -128, 127, nil},
		{"int", "uint8", "UTINYINT", 0, 255, nil},
		{"int", "int16", "SMALLINT", -32768, 32767, nil},
		{"int", "uint16", "USMALLINT", 0, 65535, nil},
		{"long", "uint32", "UINTEGER", 0, 1<<32 - 1, nil},
		{"long", "time64[ns]", "TIME_NS", 0, 86400e9 - 1, func(v int64) string {
			if v%1e9 == 0 {
				return fmt.Sprintf(`"%02d:%02d:%02d"`, v/3600e9, v/60e9%60, v/1e9%60)
			}
			return fmt.Sprintf(`"%02d:%02d:%02d.%09d"`, v/3600e9, v/60e9%60, v/1e9%60, v%1e9)
		}},
	} {
		text := fmt.Sprintf(`{"type":"record","name":"R","fields":[{"name":"x","type":{"type":%q,"arrow.type":%q}}]}`, c.avro, c.mark)
		write := func(vals ...int64) *trevni.Dataset {
			name := filepath.Join(t.TempDir(), "marked.trv")
			w, err := trevni.Create(ctx, name, text, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				var x any = v
				if c.avro == "int" {
					x = int32(v)
				}
				if err := w.Write(map[string]any{"x": x}); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			ds, err := trevni.Open(ctx, name, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ds.Close() })
			return ds
		}
		ds := write(c.lo, 1, c.hi)
		if !trevniparquet.DirectApplies(ds, nil) {
			t.Fatalf("%s: not written on the direct path", c.mark)
		}
		var direct, arrowPath bytes.Buffer
		if _, err := trevniparquet.Write(ctx, &direct, ds, nil); err != nil {
			t.Fatalf("%s, direct path: %v", c.mark, err)
		}
		if _, err := trevniparquet.WriteArrow(ctx, &arrowPath, ds, nil); err != nil {
			t.Fatalf("%s, Arrow path: %v", c.mark, err)
		}
		sameParquet(t, c.mark, direct.Bytes(), arrowPath.Bytes())
		name := filepath.Join(t.TempDir(), "marked.parquet")
		if err := os.WriteFile(name, direct.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		show := c.show
		if show == nil {
			show = func(v int64) string { return fmt.Sprint(v) }
		}
		r := ducktest.ReadParquet(t, name)[name]
		want := fmt.Sprintf(`[{"x":%s} {"x":%s} {"x":%s}]`, show(c.lo), show(1), show(c.hi))
		if strings.Join(r.Columns, ",") != "x "+c.duck || fmt.Sprint(r.Rows) != want {
			t.Errorf("%s: DuckDB reads %v %v, want x %s %s", c.mark, r.Columns, r.Rows, c.duck, want)
		}
		if c.show != nil {
			continue // a time's range is not checked, as for time-millis and time-micros
		}
		for _, v := range []int64{c.lo - 1, c.hi + 1} {
			bad := write(0, v)
			for path, wr := range map[string]func(context.Context, io.Writer, *trevni.Dataset, *trevniparquet.WriteOptions) (int64, error){
				"direct": trevniparquet.Write, "Arrow": trevniparquet.WriteArrow,
			} {
				_, err := wr(ctx, io.Discard, bad, nil)
				if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%d out of the range", v)) || !strings.Contains(err.Error(), "arrow.type") {
					t.Errorf("%s, %s path, value %d: %v, want an error naming the value and the mark", c.mark, path, v, err)
				} else if c.mark == "int8" || c.mark == "uint32" {
					t.Logf("%s path: %v", path, err)
				}
			}
		}
	}
}
