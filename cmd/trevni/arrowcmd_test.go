package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// toparquet then fromparquet gives back every record of every interop
// vector, as tojson prints them; toarrow writes an IPC file of every
// record, and a stream to standard output.
func TestParquetArrowCommands(t *testing.T) {
	vectors, err := filepath.Glob("../../testdata/interop/*/*.deflate.crc32.trv")
	if err != nil || len(vectors) < 8 {
		t.Fatalf("interop vectors: %v %v", vectors, err)
	}
	dir := t.TempDir()
	for _, in := range vectors {
		want := runIn(t, nil, "tojson", in)
		if want.code != 0 {
			t.Fatalf("tojson %s: %s", in, want.stderr)
		}
		pq := filepath.Join(dir, filepath.Base(in)+".parquet")
		if r := runIn(t, nil, "toparquet", "--codec", "zstd", "--row-group-rows", "37", in, pq); r.code != 0 {
			t.Fatalf("toparquet %s: %s", in, r.stderr)
		}
		back := filepath.Join(dir, filepath.Base(in)+".back.trv")
		if r := runIn(t, nil, "fromparquet", pq, back); r.code != 0 {
			t.Fatalf("fromparquet %s: %s", in, r.stderr)
		}
		got := runIn(t, nil, "tojson", back)
		if got.code != 0 || got.stdout != want.stdout {
			t.Fatalf("%s: through Parquet, tojson differs (%s)", in, got.stderr)
		}
		arrowOut := filepath.Join(dir, filepath.Base(in)+".arrow")
		if r := runIn(t, nil, "toarrow", "--batch-rows", "50", in, arrowOut); r.code != 0 {
			t.Fatalf("toarrow %s: %s", in, r.stderr)
		}
		f, err := os.Open(arrowOut)
		if err != nil {
			t.Fatal(err)
		}
		fr, err := ipc.NewFileReader(f)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		var n int64
		for i := range fr.NumRecords() {
			rec, err := fr.RecordBatchAt(i)
			if err != nil {
				t.Fatal(err)
			}
			n += rec.NumRows()
			rec.Release()
		}
		fr.Close()
		f.Close()
		if lines := countLines(want.stdout); n != int64(lines) {
			t.Fatalf("%s: toarrow wrote %d rows, want %d", in, n, lines)
		}
		r := runIn(t, nil, "toarrow", in, "-")
		if r.code != 0 {
			t.Fatalf("toarrow %s -: %s", in, r.stderr)
		}
		sr, err := ipc.NewReader(strings.NewReader(r.stdout))
		if err != nil {
			t.Fatalf("%s: the stream: %v", in, err)
		}
		var m int64
		for sr.Next() {
			m += sr.RecordBatch().NumRows()
		}
		if sr.Err() != nil || m != n {
			t.Fatalf("%s: the stream holds %d rows, want %d: %v", in, m, n, sr.Err())
		}
		sr.Release()
	}
}

func countLines(s string) int {
	n := 0
	for _, c := range s {
		if c == '\n' {
			n++
		}
	}
	return n
}

// --fields, --where, --offset and --limit select on the way out to Parquet
// as they do for tojson.
func TestToParquetSelects(t *testing.T) {
	in := "../../testdata/interop/primitives/primitives.snappy.crc32.trv"
	dir := t.TempDir()
	for i, sel := range [][]string{
		{"--fields", "i,s", "--where", "i > 30"},
		{"--where", "s = 'foo'", "--offset", "7", "--limit", "20"},
		{"--limit", "0"},
	} {
		want := runIn(t, nil, append(append([]string{"tojson"}, sel...), in)...)
		if want.code != 0 {
			t.Fatalf("tojson %v: %s", sel, want.stderr)
		}
		pq := filepath.Join(dir, fmt.Sprintf("%d.parquet", i))
		if r := runIn(t, nil, append(append([]string{"toparquet"}, sel...), in, pq)...); r.code != 0 {
			t.Fatalf("toparquet %v: %s", sel, r.stderr)
		}
		back := filepath.Join(dir, fmt.Sprintf("%d.trv", i))
		if r := runIn(t, nil, "fromparquet", pq, back); r.code != 0 {
			t.Fatalf("fromparquet %v: %s", sel, r.stderr)
		}
		if got := runIn(t, nil, "tojson", back); got.code != 0 || got.stdout != want.stdout {
			t.Fatalf("%v: through Parquet\n%s\nwant\n%s", sel, got.stdout, want.stdout)
		}
	}
}
