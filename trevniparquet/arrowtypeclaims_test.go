package trevniparquet_test

import (
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

// An "arrow.type" mark on an Avro int is a claim of the schema, as
// written by hand or by another tool: toparquet, on both paths, writes
// the integer type it names (DuckDB reads it so) while every value fits,
// and refuses a value outside its range rather than cut it.
func TestArrowTypeMarkIsAClaim(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		mark, duck string
		lo, hi     int32
	}{
		{"int8", "TINYINT", -128, 127},
		{"uint8", "UTINYINT", 0, 255},
		{"int16", "SMALLINT", -32768, 32767},
		{"uint16", "USMALLINT", 0, 65535},
	} {
		text := fmt.Sprintf(`{"type":"record","name":"R","fields":[{"name":"x","type":{"type":"int","arrow.type":"%s"}}]}`, c.mark)
		write := func(vals ...int32) *trevni.Dataset {
			name := filepath.Join(t.TempDir(), c.mark+".trv")
			w, err := trevni.Create(ctx, name, text, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				if err := w.Write(map[string]any{"x": v}); err != nil {
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
		ds := write(c.lo, 0, c.hi)
		if !trevniparquet.DirectApplies(ds, nil) {
			t.Fatalf("%s: not written on the direct path", c.mark)
		}
		var files []string
		for path, wr := range map[string]func(context.Context, io.Writer, *trevni.Dataset) error{
			"direct": func(ctx context.Context, f io.Writer, ds *trevni.Dataset) error {
				_, err := trevniparquet.Write(ctx, f, ds, nil)
				return err
			},
			"arrow": func(ctx context.Context, f io.Writer, ds *trevni.Dataset) error {
				_, err := trevniparquet.WriteArrow(ctx, f, ds, nil)
				return err
			},
		} {
			name := filepath.Join(t.TempDir(), c.mark+"-"+path+".parquet")
			f, err := os.Create(name)
			if err != nil {
				t.Fatal(err)
			}
			if err := wr(ctx, f, ds); err != nil {
				t.Fatalf("%s, %s path: %v", c.mark, path, err)
			}
			f.Close()
			files = append(files, name)
			for _, v := range []int32{c.lo - 1, c.hi + 1} {
				bad := write(0, v)
				err := wr(ctx, io.Discard, bad)
				if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%d out of the range", v)) || !strings.Contains(err.Error(), "arrow.type") {
					t.Errorf("%s, %s path, value %d: %v, want an error naming the value and the mark", c.mark, path, v, err)
				} else if c.mark == "int8" {
					t.Logf("%s path: %v", path, err)
				}
			}
		}
		reads := ducktest.ReadParquet(t, files...)
		for _, f := range files {
			r := reads[f]
			want := fmt.Sprintf(`[{"x":%d} {"x":0} {"x":%d}]`, c.lo, c.hi)
			if strings.Join(r.Columns, ",") != "x "+c.duck || fmt.Sprint(r.Rows) != want {
				t.Errorf("%s: DuckDB reads %v %v, want x %s %s", f, r.Columns, r.Rows, c.duck, want)
			}
		}
	}
}
