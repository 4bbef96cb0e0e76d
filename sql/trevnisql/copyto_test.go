package trevnisql

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/trevni-go/trevni"
)

// copyQuery is a COPY source of many chunks (DuckDB's are of 2,048 rows)
// of numbers, strings, NULLs, lists and structs, whose every row the test
// can compute (copyRowJSON); a format of fmt, of the number of rows.
const copyQuery = `SELECT i AS n, 'v' || i::VARCHAR AS s,
	CASE WHEN i %% 3 = 0 THEN NULL ELSE [i, i + 1][1:(i %% 3)] END AS l,
	{'a': (i %% 7)::INTEGER, 'b': CASE WHEN i %% 5 = 0 THEN NULL ELSE (i / 2)::DOUBLE END} AS st
	FROM range(%d) t(i)`

// copyRowJSON is the plain JSON of row i of copyQuery as our reader
// writes it.
func copyRowJSON(i int) string {
	l := "null"
	switch i % 3 {
	case 1:
		l = fmt.Sprintf("[%d]", i)
	case 2:
		l = fmt.Sprintf("[%d,%d]", i, i+1)
	}
	b := "null"
	if i%5 != 0 {
		b = fmt.Sprint(float64(i) / 2)
	}
	return fmt.Sprintf(`{"n":%d,"s":"v%d","l":%s,"st":{"a":%d,"b":%s}}`, i, i, l, i%7, b)
}

// TestCopyToAsWrittenInOrder checks the copy function's sink, which
// writes each chunk's vectors a column at a time: the file COPY writes
// from 20,000 rows (10 chunks, small blocks, with 1 and 2 DuckDB threads)
// holds every row in order, as the query makes it, read back by our
// reader; and it is byte for byte the file a Trevni writer of the same
// options makes when given those records one by one, in order (as the
// sink wrote them before it wrote columns).
func TestCopyToAsWrittenInOrder(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const rows = 20_000
	for _, threads := range []int{1, 2} {
		out := filepath.Join(t.TempDir(), "copy.trv")
		if _, err := db.Exec(fmt.Sprintf("SET threads=%d", threads)); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(fmt.Sprintf("COPY ("+copyQuery+" ORDER BY i) TO %s (FORMAT trevni, CODEC 'snappy', BLOCK_SIZE 4096)", rows, quoteString(out))); err != nil {
			t.Fatal(err)
		}
		again := filepath.Join(t.TempDir(), "again.trv")
		n := rewriteRecords(t, out, again, &trevni.WriteOptions{Codec: trevni.Snappy, BlockSize: 4096, Workers: runtime.GOMAXPROCS(0)})
		if n != rows {
			t.Errorf("threads %d: %d records, want %d", threads, n, rows)
		}
		ds, err := trevni.Open(ctx, out, nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ds.NewReader(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var js []byte
		for i := range n {
			if js, err = r.ReadPlainJSON(js[:0]); err != nil {
				t.Fatal(err)
			}
			if got, want := strings.TrimSpace(string(js)), copyRowJSON(i); got != want {
				t.Fatalf("threads %d: record %d is %s, want %s", threads, i, got, want)
			}
		}
		r.Close()
		ds.Close()
		if a, b := fileSize(t, out), fileSize(t, again); !sameFiles(t, out, again) {
			t.Errorf("threads %d: COPY's file (%d bytes) is not the file its records written one by one make (%d bytes)", threads, a, b)
		}
	}
}

// TestCopyToWriterErrorIsTheCopys checks that an error of the column
// writer is the COPY's error, naming the record, and that the COPY leaves
// no file: a value over the largest block Trevni writes (64 MiB) in the
// third chunk, with and without a MAP of VARCHAR keys (which has the
// sink write records, on a goroutine of its own).
func TestCopyToWriterErrorIsTheCopys(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, &Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "big.trv")
	for _, extra := range []string{"", ", MAP {'k': i} AS m"} {
		_, err = db.Exec(fmt.Sprintf("COPY (SELECT i, CASE WHEN i = 5000 THEN repeat('x', 65 << 20) ELSE 'y' END AS s%s FROM range(8000) t(i) ORDER BY i) TO %s (FORMAT trevni)", extra, quoteString(out)))
		if err == nil || !strings.Contains(err.Error(), "record 5000") {
			t.Errorf("COPY of a value over the largest block (%q): error %v, want one naming record 5000", extra, err)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 0 {
			t.Errorf("the failed COPY (%q) left %d files, want none", extra, len(entries))
		}
	}
}
