package trevnisql

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/trevni-go/trevni"
)

// TestScanReportAsReader checks the parts' reports of the scan (one unit
// reads the file: fewer rows than a unit holds) against the report of
// our reader of records reading the same fields: the columns read, their
// blocks, the blocks and bytes read, for a query over a column of the
// scan's fast path (a long), one of the levels path (a string) and one of
// both kinds at once, with a filter too (filter :=) that leaves blocks out.
func TestScanReportAsReader(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "report.trv")
	w, err := trevni.Create(ctx, path, `{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"s","type":"string"},{"name":"o","type":["null","int"]},{"name":"d","type":"double"}]}`,
		&trevni.WriteOptions{Codec: trevni.NoCodec, BlockSize: 1024})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20_000 {
		var o any
		if i%3 != 0 {
			o = map[string]any{"int": int32(i % 100)}
		}
		if err := w.Write(map[string]any{"a": int64(i), "s": fmt.Sprintf("row %d", i), "o": o, "d": float64(i) / 4}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, &Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ds, err := trevni.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	for _, c := range []struct {
		sql    string
		fields []string
		where  string
	}{
		{"SELECT sum(a) FROM read_trevni(%s)", []string{"a"}, ""},
		{"SELECT max(s) FROM read_trevni(%s)", []string{"s"}, ""},
		{"SELECT sum(a), max(s), sum(o) FROM read_trevni(%s)", []string{"a", "s", "o"}, ""},
		{"SELECT sum(d), max(s) FROM read_trevni(%s, filter := 'a >= 15000')", []string{"d", "s"}, "a >= 15000"},
	} {
		q := fmt.Sprintf(c.sql, quoteString(path))
		db.Reports()
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		reps := db.Reports()
		if len(reps) != 1 {
			t.Fatalf("%s: %d reports, want 1", q, len(reps))
		}
		got := reps[0].Scan
		want := readerReport(t, ds, c.fields, c.where)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: the scan reports\n%+v\nour reader of records\n%+v", q, got, want)
		}
		if c.where != "" && got.Columns[0].BlocksSkipped == 0 {
			t.Errorf("%s: no block of column %s skipped: %+v", q, got.Columns[0].Name, got)
		}
	}
}

// readerReport reads every record of fields (matching where) with our
// reader of records and returns its report of the one part.
func readerReport(t *testing.T, ds *trevni.Dataset, fields []string, where string) trevni.ScanReport {
	t.Helper()
	r, err := ds.NewReader(context.Background(), &trevni.ReadOptions{Fields: fields, Where: where})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b []byte
	for {
		if b, err = r.ReadBinary(b[:0]); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	reps := r.Report()
	if len(reps) != 1 {
		t.Fatalf("our reader: %d reports, want 1", len(reps))
	}
	return reps[0].Scan
}
