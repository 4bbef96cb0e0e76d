package trevniarrow_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// realWriterFiles returns the Parquet files of the public test suites
// under dir (apache/parquet-testing's data/, arrow-testing's
// data/parquet/), but for the encrypted ones.
func realWriterFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".parquet") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// Every file of the suites that DuckDB reads, fromparquet converts into
// the values DuckDB reads: the same rows, in order, the same nested
// shapes.
func TestParquetRealWritersReadAsDuckDB(t *testing.T) {
	dir := os.Getenv("TREVNI_PARQUET_SUITE")
	if dir == "" {
		dir = "testdata/realwriters"
	}
	files := realWriterFiles(t, dir)
	reads := readDuckDBWith(t, "testdata/duckdb_suite.mjs", files)
	for _, f := range files {
		d, ok := reads[f]
		ok = ok && d.Error == ""
		s, got, err := fromParquetFile(t, f, 7)
		switch {
		case !ok && err != nil:
			t.Logf("%s: DuckDB refuses it, and so do we: %v", f, err)
			continue
		case err != nil:
			t.Errorf("%s: DuckDB reads %d rows, we refuse it: %v", f, d.Count, err)
			continue
		case !ok:
			t.Logf("%s: DuckDB refuses it, we read %d rows", f, len(got))
			continue
		}
		if err := duckDiff(s, got, d); err != nil {
			t.Errorf("%s: %v\nschema %s", f, err, s)
		}
	}
}
