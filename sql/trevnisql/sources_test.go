package trevnisql

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/trevni-go/trevni"
)

// TestSources reads one data set named in each way a query can name it,
// from each kind of source trevni.Open opens, and checks the row count
// (500, the primitives vector's) and a sum against the same file read
// plainly.
func TestSources(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "interop", "primitives")
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	ctx := context.Background()
	db, err := Open(ctx, &Options{Tables: []Table{{"v", filepath.Join(dir, "primitives.null.none.trv")}}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var want int64
	if err := db.QueryRow("SELECT sum(i) FROM v").Scan(&want); err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{
		"v",
		quoteString(filepath.Join(dir, "primitives.snappy.crc32.trv")),
		"trevni_scan(" + quoteString(filepath.Join(dir, "primitives.deflate.crc32.trv")) + ")",
		quoteString(srv.URL + "/primitives.bzip2.crc32.trv"),
		"trevni_scan(" + quoteString(srv.URL+"/primitives.null.crc32-correct.trv") + ")",
	} {
		var n, sum int64
		if err := db.QueryRow("SELECT count(*), sum(i) FROM "+from).Scan(&n, &sum); err != nil {
			t.Errorf("%s: %v", from, err)
			continue
		}
		if n != 500 || sum != want {
			t.Errorf("%s: %d rows, sum %d; want 500 rows, sum %d", from, n, sum, want)
		}
	}
	// A glob (the bzip2, deflate and snappy files) and a directory (of
	// two copies).
	var n int64
	if err := db.QueryRow("SELECT count(*) FROM " + quoteString(filepath.Join(dir, "primitives.[bds]*.crc32.trv"))).Scan(&n); err != nil || n != 1500 {
		t.Errorf("glob: %d rows, %v; want 1500", n, err)
	}
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
	if err := db.QueryRow("SELECT count(*) FROM trevni_scan(" + quoteString(sub) + ")").Scan(&n); err != nil || n != 1000 {
		t.Errorf("directory: %d rows, %v; want 1000", n, err)
	}
	// Trevni 1 and CLMN parts: every row read (count(*) scans a column)
	// as many as their headers say.
	for _, f := range []string{filepath.Join("..", "..", "testdata", "trevni1", "impala_all_types.trv"), filepath.Join("..", "..", "testdata", "clmn", "sample.clmn")} {
		ds, err := trevni.Open(ctx, f, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := ds.RowCount()
		ds.Close()
		if err := db.QueryRow("SELECT count(*) FROM trevni_scan(" + quoteString(f) + ")").Scan(&n); err != nil || n != want || n == 0 {
			t.Errorf("%s: %d rows, %v; want %d", f, n, err, want)
		}
	}
}
