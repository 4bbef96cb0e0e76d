package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/stores/storetest/s3server"
)

// The summary of a write names the rows, columns and bytes written, the
// same for an object of a store as for a local file (it once said "?
// columns, 0 bytes" for s3://): the bytes are the object's and the file's
// sizes, the columns those the written file's header holds, read back
// independently (format.NewReader of the local file). Nothing is read back
// from the store to say it (a program may hold write-only credentials):
// the server sends no byte of an object during a write from local input.
func TestWriteSummaryEveryPlace(t *testing.T) {
	s := s3server.Start(t, "bkt")
	email := filepath.Join(interopDir, "email")
	dir := t.TempDir()
	summary := regexp.MustCompile(`wrote (\S+): ([\d,]+) rows?, ([\d,]+) columns?, ([\d,]+) bytes?`)
	num := func(s string) int64 {
		n, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, c := range []struct {
		name string
		args []string // the output is appended
		ext  string
	}{
		{"fromavro", []string{"fromavro", filepath.Join(email, "input.avro")}, ".trv"},
		{"fromavro-parts", []string{"fromavro", filepath.Join(email, "input.avro"), filepath.Join(email, "input.avro")}, ".trv"},
		{"random", []string{"random", "--seed", "5", filepath.Join(email, "schema.avsc"), "700"}, ".trv"},
		{"fromcsv", []string{"fromcsv", filepath.Join("..", "..", "testdata", "clmn", "sample.csv")}, ".trv"},
		{"fromclmn", []string{"fromclmn", filepath.Join("..", "..", "testdata", "clmn", "sample.clmn")}, ".trv"},
		{"fromjson", []string{"fromjson", "--schema", filepath.Join(email, "schema.avsc"), filepath.Join(email, "input.jsonl")}, ".trv"},
		{"concat", []string{"concat", filepath.Join(email, "email.deflate.crc32.trv"), filepath.Join(email, "email.deflate.crc32.trv")}, ".trv"},
		{"toclmn", []string{"toclmn", "--fields", "id,date,from", filepath.Join(email, "email.deflate.crc32.trv")}, ".clmn"},
	} {
		local := filepath.Join(dir, c.name+c.ext)
		remote := "s3://bkt/" + c.name + c.ext
		var got [2][]string
		for i, out := range []string{local, remote} {
			settleCount(&s.Sent)
			s.Reset()
			r := runIn(t, nil, append(c.args, out)...)
			if r.code != 0 {
				t.Fatalf("%s to %s: %+v", c.name, out, r)
			}
			settleCount(&s.Sent)
			if n := s.Sent.Load(); n != 0 {
				t.Errorf("%s to %s: the store sent %d bytes of objects during a write", c.name, out, n)
			}
			m := summary.FindStringSubmatch(r.stderr)
			if m == nil || m[1] != out {
				if c.name == "concat" && m == nil {
					// concat says rows and files only; its size is checked below.
					got[i] = nil
					continue
				}
				t.Fatalf("%s to %s: no summary naming it: %q", c.name, out, r.stderr)
			}
			got[i] = m[2:]
		}
		fi, err := os.Stat(local)
		if err != nil {
			t.Fatal(err)
		}
		obj, _ := s.Get(t, "bkt", c.name+c.ext)
		if int64(len(obj)) != fi.Size() {
			t.Errorf("%s: the object has %d bytes, the file %d", c.name, len(obj), fi.Size())
		}
		if got[0] == nil {
			continue
		}
		if strings.Join(got[0], "|") != strings.Join(got[1], "|") {
			t.Errorf("%s: summaries differ: local %q, s3 %q", c.name, got[0], got[1])
		}
		if n := num(got[1][2]); n != fi.Size() {
			t.Errorf("%s: the summary says %d bytes, the object has %d", c.name, n, fi.Size())
		}
		if c.ext != ".trv" {
			continue
		}
		f, err := os.Open(local)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := format.NewReader(f, fi.Size(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if cols, rows := num(got[1][1]), num(got[1][0]); cols != int64(rd.NumColumns()) || rows != rd.RowCount() {
			t.Errorf("%s: the summary says %d rows, %d columns; the file has %d, %d", c.name, rows, cols, rd.RowCount(), rd.NumColumns())
		}
		f.Close()
	}
}
