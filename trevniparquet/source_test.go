package trevniparquet_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/internal/testing/ducktest"
	"github.com/trevni-go/trevni/trevniparquet"
)

// Every file of the suites that DuckDB reads, opened as a data set by
// trevni.Open (the Parquet source this package registers) and read
// through the front door, gives the values DuckDB reads: the same rows,
// in order, the same nested shapes; with row groups cut into slices of a
// few rows (so that records come from many blocks) and on three workers
// (so that slices are asked for out of order), the same again, and what
// fromparquet's Trevni file gives. The files DuckDB refuses, or we do,
// are refused by the source too.
func TestParquetSourceReadsAsDuckDB(t *testing.T) {
	ctx := context.Background()
	files := realWriterFiles(t, "testdata/realwriters")
	var inSuite []string
	for _, f := range files {
		if !strings.Contains(f, "fuzzing") {
			inSuite = append(inSuite, f)
		}
	}
	reads := ducktest.ReadParquetEach(t, inSuite...)
	wkbRows(t, reads)
	old := trevniparquet.SetSliceBytes(64)
	defer trevniparquet.SetSliceBytes(old)
	compared := 0
	for _, f := range inSuite {
		d, ok := reads[f]
		ok = ok && d.Error == ""
		_, trv, cerr := fromParquetSuiteFile(t, f, nil)
		ds, err := trevni.Open(ctx, f, nil)
		var got []any
		if err == nil {
			got, err = readRecords(ctx, ds, 1)
		}
		if (err == nil) != (cerr == nil) {
			t.Errorf("%s: the source says %v, fromparquet %v", f, err, cerr)
			continue
		}
		if err != nil || !ok {
			continue
		}
		if ex, ok := suiteExceptions[filepath.Base(f)]; ok {
			for _, r := range ex.rows {
				if r < len(got) && r < len(d.Rows) {
					got = append(got[:r:r], got[r+1:]...)
					d.Rows = append(d.Rows[:r:r], d.Rows[r+1:]...)
					d.Count--
				}
			}
		}
		if err := ducktest.Diff(frontdoor.Schema(ds), got, d); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		// Three workers, and fromparquet's file, print the same.
		one, err := jsonOf(ctx, ds, 1)
		if err != nil {
			t.Fatal(err)
		}
		three, err := jsonOf(ctx, ds, 3)
		if err != nil {
			t.Fatalf("%s, 3 workers: %v", f, err)
		}
		dst, err := trevni.Open(ctx, trv, nil)
		if err != nil {
			t.Fatal(err)
		}
		conv, err := jsonOf(ctx, dst, 1)
		if err != nil {
			t.Fatal(err)
		}
		if one != three || one != conv {
			t.Errorf("%s: 1 worker, 3 workers and fromparquet's file print differently", f)
		}
		compared++
		ds.Close()
		dst.Close()
	}
	t.Logf("%d files read as DuckDB reads them", compared)
	if compared < 40 {
		t.Fatalf("only %d files compared", compared)
	}
}

func readRecords(ctx context.Context, ds *trevni.Dataset, workers int) ([]any, error) {
	var out []any
	for rec, err := range ds.All(ctx, &trevni.ReadOptions{Workers: workers}) {
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
	return out, nil
}

func jsonOf(ctx context.Context, ds *trevni.Dataset, workers int) (string, error) {
	var b strings.Builder
	_, err := ds.WriteJSON(ctx, &b, &trevni.ReadOptions{Workers: workers}, nil)
	return b.String(), err
}
