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

	"github.com/trevni-go/trevni/trevniparquet"
)

// A string that is not UTF-8 among the items of an array (in the array's
// own column, and in a column beneath an array of records), read by the
// direct path's batch reads, fails the write with an error naming its
// Parquet column and its row: a string of bytes that are never UTF-8, and
// one that ends with the first byte of a character whose other byte
// begins the next string (the two end to end are UTF-8).
func TestParquetDirectBadItemNamesRow(t *testing.T) {
	for _, to := range []string{"v1\xff\xfeQQ\x04QZ", "v1QQQ\xc3\x04\xa9Z"} {
		testBadItem(t, to)
	}
}

// testBadItem writes the items "v1QQQQ" and "QZ" in row 219 and replaces
// their bytes in the file (the first's, the second's length, 2 zig-zag
// coded, and the second's) with to.
func testBadItem(t *testing.T, to string) {
	const text = `{"type":"record","name":"r","fields":[
		{"name":"tags","type":{"type":"array","items":"string"}},
		{"name":"pts","type":{"type":"array","items":{"type":"record","name":"p","fields":[{"name":"s","type":"string"}]}}}]}`
	const rows, bad = 300, 219
	for _, c := range []struct{ field, path string }{{"tags", "tags.list.element"}, {"pts", "pts.list.element.s"}} {
		name := filepath.Join(t.TempDir(), "bad.trv")
		w, err := trevni.Create(context.Background(), name, text, &trevni.WriteOptions{Codec: trevni.NoCodec, Checksum: trevni.NoChecksum})
		if err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			item := func(j int) string {
				switch {
				case i == bad && j == 1:
					return "v1QQQQ" // neither the least nor the greatest: not in the statistics
				case i == bad && j == 2:
					return "QZ"
				}
				return fmt.Sprintf("v%d.%d", i, j)
			}
			var tags, pts []any
			for j := range i % 4 {
				tags = append(tags, item(j))
				pts = append(pts, map[string]any{"s": item(j)})
			}
			rec := map[string]any{"tags": tags, "pts": []any{}}
			if c.field == "pts" {
				rec = map[string]any{"tags": []any{}, "pts": pts}
			}
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		mark := []byte("v1QQQQ\x04QZ")
		at := bytes.Index(b, mark)
		if at < 0 || bytes.Count(b, mark) != 1 {
			t.Fatal("the marked items are not in the file once")
		}
		copy(b[at:], to)
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ds, err := trevni.Open(context.Background(), name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !trevniparquet.DirectApplies(ds, nil) {
			t.Fatal("the direct path does not apply")
		}
		_, err = trevniparquet.Write(context.Background(), io.Discard, ds, nil)
		ds.Close()
		if err == nil {
			t.Fatalf("%s: a string that is not UTF-8 was written", c.field)
		}
		for _, want := range []string{c.path, fmt.Sprintf("row %d:", bad), "not UTF-8"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: the error %q does not say %q", c.field, err, want)
			}
		}
	}
}

// Arrays long enough that a batch of rows holds more values than the
// direct path reads at once (in the array's own column and beneath an
// array of records) are written as the Arrow path writes them.
func TestParquetDirectLongArrays(t *testing.T) {
	const text = `{"type":"record","name":"r","fields":[
		{"name":"tags","type":{"type":"array","items":"string"}},
		{"name":"n","type":["null",{"type":"array","items":"long"}]},
		{"name":"pts","type":{"type":"array","items":{"type":"record","name":"p","fields":[{"name":"x","type":"float"},{"name":"s","type":"string"}]}}}]}`
	name := filepath.Join(t.TempDir(), "long.trv")
	w, err := trevni.Create(context.Background(), name, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3000 {
		var tags, pts, n []any
		for j := range (i * 7) % 120 {
			tags = append(tags, fmt.Sprintf("t%d", j%13))
			pts = append(pts, map[string]any{"x": float32(i) / float32(j+1), "s": fmt.Sprint(i - j)})
			n = append(n, int64(i*j))
		}
		rec := map[string]any{"tags": tags, "pts": pts, "n": map[string]any{"array": n}}
		if i%5 == 0 {
			rec["n"] = nil
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ds, err := trevni.Open(context.Background(), name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	opts := &trevniparquet.WriteOptions{RowGroupRows: 2500}
	if !trevniparquet.DirectApplies(ds, opts) {
		t.Fatal("the direct path does not apply")
	}
	var direct, viaArrow bytes.Buffer
	if _, err := trevniparquet.Write(context.Background(), &direct, ds, opts); err != nil {
		t.Fatal(err)
	}
	if _, err := trevniparquet.WriteArrow(context.Background(), &viaArrow, ds, opts); err != nil {
		t.Fatal(err)
	}
	sameParquet(t, "long arrays", direct.Bytes(), viaArrow.Bytes())
}
