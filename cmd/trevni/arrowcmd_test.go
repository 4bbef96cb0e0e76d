package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/trevni-go/trevni/internal/s3server"
	"github.com/trevni-go/trevni/internal/testing/rangeserver"
)

// toparquet then fromparquet gives back every record of every interop
// vector, as tojson prints them; toarrow writes an IPC file of every
// record, and a stream to standard output.
func TestParquetArrowCommands(t *testing.T) {
	t.Parallel()
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

// --report on toparquet and toarrow prints the scan report tojson prints
// for the same selection: for the columns written straight to Parquet
// (the direct path), every column and every block read.
func TestParquetArrowReport(t *testing.T) {
	in := filepath.Join(interopDir, "medium", "medium.snappy.crc32.trv")
	dir := t.TempDir()
	// The lines after the first name the part and its columns; the
	// first names the command.
	body := func(stderr string) string {
		var keep []string
		for _, l := range strings.Split(stderr, "\n") {
			if strings.HasPrefix(l, "  ") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	sel := []string{"--fields", "id,name", "--where", "small > 100", "--report"}
	want := runIn(t, nil, append(append([]string{"tojson"}, sel...), in)...)
	if want.code != 0 || !strings.Contains(want.stderr, "rows matched") {
		t.Fatalf("tojson --report: %d %s", want.code, want.stderr)
	}
	for _, cmd := range []string{"toparquet", "toarrow"} {
		r := runIn(t, nil, append(append([]string{cmd}, sel...), in, filepath.Join(dir, cmd+".out"))...)
		if r.code != 0 {
			t.Fatalf("%s: %s", cmd, r.stderr)
		}
		if body(r.stderr) != body(want.stderr) || !strings.Contains(r.stderr, "trevni: "+cmd+": "+in+": 30,000 rows scanned") {
			t.Errorf("%s --report:\n%s\ntojson --report:\n%s", cmd, r.stderr, want.stderr)
		}
	}
	r := runIn(t, nil, "toparquet", "--report", in, filepath.Join(dir, "all.parquet"))
	if r.code != 0 || !strings.Contains(r.stderr, "30,000 rows scanned, 30,000 rows matched") {
		t.Fatalf("toparquet --report: %d %s", r.code, r.stderr)
	}
	// "  column NAME  R of B blocks read, S skipped, N bytes"
	for _, col := range []string{"id", "flag", "score", "small", "name", "tags[]", "opt/int", "pts[]", "pts[]#x", "pts[]#y"} {
		found := false
		for _, l := range strings.Split(r.stderr, "\n") {
			if f := strings.Fields(l); len(f) > 4 && f[0] == "column" && f[1] == col {
				found = true
				if f[2] != f[4] || f[2] == "0" {
					t.Errorf("toparquet --report: column %s: %q", col, l)
				}
			}
		}
		if !found {
			t.Errorf("toparquet --report: no column %s in\n%s", col, r.stderr)
		}
	}
}

// toparquet, toarrow and fromparquet show progress on a terminal.
func TestParquetArrowProgress(t *testing.T) {
	in := filepath.Join(interopDir, "medium", "medium.deflate.crc32.trv")
	dir := t.TempDir()
	pq := filepath.Join(dir, "m.parquet")
	// Each run shows at least so many progress lines.
	for _, c := range []struct {
		lines int
		args  []string
	}{
		{3, []string{"toparquet", "--row-group-rows", "5000", in, pq}},                            // after each row group
		{1, []string{"toparquet", "--where", "small > 100", in, filepath.Join(dir, "w.parquet")}}, // as the reader counts records
		{3, []string{"toarrow", in, filepath.Join(dir, "m.arrow")}},
		{3, []string{"fromparquet", "--batch-rows", "1000", pq, filepath.Join(dir, "back.trv")}}, // after each batch
	} {
		args := c.args
		code, _, stderr := runTTY(args...)
		if code != 0 {
			t.Fatalf("%v: status %d: %s", args, code, stderr)
		}
		if strings.Count(stderr, "\rtrevni: "+args[0]+": ") < c.lines || !strings.Contains(stderr, "/s") || !strings.Contains(stderr, " rows") {
			t.Errorf("%v: no progress as rows are converted in %q", args, stderr)
		}
		if i := strings.LastIndex(stderr, "\r\x1b[K"); i < 0 || strings.Contains(stderr[i:], "\rtrevni") {
			t.Errorf("%v: progress line not erased: %q", args, stderr[max(0, len(stderr)-80):])
		}
	}
}

// fromparquet reads a Parquet file from an http(s) URL by range requests,
// into the records the local file gives.
func TestFromParquetURL(t *testing.T) {
	in := filepath.Join(interopDir, "medium", "medium.deflate.crc32.trv")
	dir := t.TempDir()
	pq := filepath.Join(dir, "m.parquet")
	if r := runIn(t, nil, "toparquet", "--row-group-rows", "5000", in, pq); r.code != 0 {
		t.Fatal(r.stderr)
	}
	srv := rangeserver.Dir(t, dir, nil)
	back := filepath.Join(dir, "back.trv")
	if r := runIn(t, nil, "fromparquet", srv.URL+"/m.parquet", back); r.code != 0 {
		t.Fatalf("fromparquet URL: %s", r.stderr)
	}
	if srv.Requests.Load() < 2 {
		t.Errorf("%d requests", srv.Requests.Load())
	}
	want, got := runIn(t, nil, "tojson", in), runIn(t, nil, "tojson", back)
	if want.code != 0 || got.code != 0 || got.stdout != want.stdout {
		t.Fatalf("tojson of the file from the URL differs (%s %s)", want.stderr, got.stderr)
	}
	if r := runIn(t, nil, "fromparquet", srv.URL+"/missing.parquet", filepath.Join(dir, "x.trv")); r.code == 0 || !strings.Contains(r.stderr, "missing.parquet") {
		t.Errorf("a missing URL: %d %s", r.code, r.stderr)
	}
}

// fromparquet reads a Parquet file from an S3 object (the S3 server of
// internal/s3server on 127.0.0.1) by ranged requests, into the records the
// local file gives; a missing object is an error naming it.
func TestFromParquetObject(t *testing.T) {
	in := filepath.Join(interopDir, "medium", "medium.deflate.crc32.trv")
	dir := t.TempDir()
	pq := filepath.Join(dir, "m.parquet")
	if r := runIn(t, nil, "toparquet", "--row-group-rows", "5000", in, pq); r.code != 0 {
		t.Fatal(r.stderr)
	}
	s := s3server.Start(t, "bkt")
	s.Put(t, "bkt", "pq/m.parquet", readFile(t, pq))
	back := filepath.Join(dir, "back.trv")
	if r := runIn(t, nil, "fromparquet", "s3://bkt/pq/m.parquet", back); r.code != 0 {
		t.Fatalf("fromparquet s3://: %s", r.stderr)
	}
	if s.Requests.Load() < 2 || s.Sent.Load() == 0 {
		t.Errorf("%d requests, %d bytes", s.Requests.Load(), s.Sent.Load())
	}
	want, got := runIn(t, nil, "tojson", in), runIn(t, nil, "tojson", back)
	if want.code != 0 || got.code != 0 || got.stdout != want.stdout {
		t.Fatalf("tojson of the file from the object differs (%s %s)", want.stderr, got.stderr)
	}
	if r := runIn(t, nil, "fromparquet", "s3://bkt/pq/missing.parquet", filepath.Join(dir, "x.trv")); r.code == 0 || !strings.Contains(r.stderr, "missing.parquet") {
		t.Errorf("a missing object: %d %s", r.code, r.stderr)
	}
}
