package ducktest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestPackagesAsCI checks that .ci/run installs the packages, at the
// versions, that the skip messages name.
func TestPackagesAsCI(t *testing.T) {
	run, err := os.ReadFile(filepath.Join(Root(t), ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(run), " "+Packages+"\n") {
		t.Errorf(".ci/run does not install %q: change Packages here or the npm install line there", Packages)
	}
}

// TestQuery runs queries in one DuckDB: their columns, types and rows,
// a refused query's error, and the queries after it.
func TestQuery(t *testing.T) {
	res := Query(t,
		"create table t as select * from (values (1, 'a'), (2, 'b''c')) v(n, s)",
		"select n, s from t order by n",
		"select * from no_such_table",
		"select count(*)::INTEGER as c from t",
	)
	if got := res[1]; strings.Join(got.Names, ",") != "n,s" || strings.Join(got.Types, ",") != "INTEGER,VARCHAR" ||
		len(got.Rows) != 2 || got.Rows[1][1] != "b'c" || got.Rows[0][0] != float64(1) {
		t.Errorf("select: %+v", got)
	}
	if !strings.Contains(res[2].Error, "no_such_table") {
		t.Errorf("a missing table: error %q", res[2].Error)
	}
	if got := res[3]; got.Error != "" || len(got.Rows) != 1 || got.Rows[0][0] != float64(2) {
		t.Errorf("the query after a refused one: %+v", got)
	}
}

// TestReadParquet writes a Parquet file with DuckDB and reads it back in
// the same run; ReadParquetEach reports a file DuckDB refuses and reads
// the next.
func TestReadParquet(t *testing.T) {
	dir := t.TempDir()
	pq := filepath.Join(dir, "it's.parquet")
	copySQL := "sql:COPY (SELECT i AS n, 'x' || i AS s, [i, i] AS l FROM range(3) r(i)) TO '" + strings.ReplaceAll(pq, "'", "''") + "' (FORMAT parquet)"
	got := ReadParquet(t, copySQL, pq)[pq]
	want := []string{`{"n":0,"s":"x0","l":[0,0]}`, `{"n":1,"s":"x1","l":[1,1]}`, `{"n":2,"s":"x2","l":[2,2]}`}
	if got.Count != 3 || strings.Join(got.Rows, "\n") != strings.Join(want, "\n") || got.Error != "" {
		t.Errorf("read %+v, want 3 rows %q", got, want)
	}
	bad := filepath.Join(dir, "bad.parquet")
	if err := os.WriteFile(bad, []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	reads := ReadParquetEach(t, bad, pq)
	if reads[bad].Error == "" || reads[bad].Count != 0 {
		t.Errorf("a file that is no Parquet: %+v", reads[bad])
	}
	if reads[pq].Count != 3 {
		t.Errorf("the file after a refused one: %+v", reads[pq])
	}
}

// TestNodeMissing checks that a package that is not installed skips the
// test when CI is not set.
func TestNodeMissing(t *testing.T) {
	t.Setenv("TREVNI_DUCKDB_NODE", t.TempDir())
	t.Setenv("CI", "")
	var sub *testing.T
	reached := false
	t.Run("missing", func(t *testing.T) {
		sub = t
		Node(t, DuckDB)
		reached = true
	})
	if reached || !sub.Skipped() {
		t.Errorf("a missing package: went on %v, skipped %v; want the test skipped", reached, sub.Skipped())
	}
}

// TestServed checks that the calls of a test binary share a DuckDB
// process but not a DuckDB: a table one call made is not there in the
// next, and calls at the same time are each answered in full.
func TestServed(t *testing.T) {
	if res := Query(t, "create table kept as select 1 as a", "select a from kept"); res[1].Error != "" {
		t.Fatalf("a table made in the same call: %s", res[1].Error)
	}
	if res := Query(t, "select a from kept"); !strings.Contains(res[0].Error, "kept") {
		t.Errorf("a table of an earlier call: %+v, want an error naming it", res[0])
	}
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			q := fmt.Sprintf("select (%d + range)::INTEGER as n from range(1000)", i)
			if res := Query(t, q); len(res[0].Rows) != 1000 || res[0].Rows[999][0] != float64(i+999) {
				t.Errorf("call %d: %d rows", i, len(res[0].Rows))
			}
		})
	}
	wg.Wait()
	idle.Lock()
	n := len(idle.servers["query"])
	idle.Unlock()
	if n < 1 || n > 3 {
		t.Errorf("%d idle query servers after three calls at once, want 1 to 3", n)
	}
}
