package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/trevni-go/trevni/trevniparquet"
)

// fromparquet keeps a Parquet MAP's entries in the file's order: Impala's
// nullable.impala.parquet holds {"k3": null, "k1": 1} in its second row,
// which toparquet writes back in that order (sorted, it came back k1, k3).
func TestFromParquetKeepsMapOrder(t *testing.T) {
	dir := t.TempDir()
	trv := filepath.Join(dir, "impala.trv")
	if r := runIn(t, nil, "fromparquet", "../../trevniparquet/testdata/realwriters/parquet-testing/nullable.impala.parquet", trv); r.code != 0 {
		t.Fatalf("fromparquet: %s", r.stderr)
	}
	back := filepath.Join(dir, "impala.parquet")
	if r := runIn(t, nil, "toparquet", trv, back); r.code != 0 {
		t.Fatalf("toparquet: %s", r.stderr)
	}
	f, err := os.Open(back)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pf, err := trevniparquet.Open(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	rr, err := pf.RecordReader(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	if !rr.Next() {
		t.Fatalf("no rows: %v", rr.Err())
	}
	rec := rr.RecordBatch()
	col := rec.Column(int(rec.Schema().FieldIndices("int_Map_Array")[0])).(*array.List)
	maps := col.ListValues().(*array.Map)
	lo, _ := col.ValueOffsets(1) // row 1's first map
	klo, khi := maps.ValueOffsets(int(lo))
	keys := maps.Keys().(*array.String)
	var got []string
	for k := klo; k < khi; k++ {
		got = append(got, keys.Value(int(k)))
	}
	if !slices.Equal(got, []string{"k3", "k1"}) {
		t.Fatalf("row 1's first map has keys %v, want the file's k3, k1", got)
	}
}
