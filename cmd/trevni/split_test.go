package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format"
)

// TestSplitConcat splits interoperability vectors by rows and by bytes
// and checks that concat of the parts gives the original's records, that
// every part is valid with the rows asked and the input's codec, and
// that existing parts are refused without --force and nothing is left by
// a refused run.
func TestSplitConcat(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "interop", "*", "*.deflate.crc32.trv"))
	if err != nil || len(files) < 3 {
		t.Fatalf("interop vectors: %d, %v", len(files), err)
	}
	for _, in := range files {
		rd, err := format.Open(in)
		if err != nil {
			t.Fatal(err)
		}
		rows := rd.RowCount()
		rd.Close()
		want := runIn(t, nil, "tojson", in)
		if want.code != 0 {
			t.Fatalf("tojson %s: %s", in, want.stderr)
		}
		for _, how := range [][]string{{"--rows", "7"}, {"--rows", "1000000"}, {"--bytes", "2KiB"}} {
			dir := t.TempDir()
			prefix := filepath.Join(dir, "p")
			if r := runIn(t, nil, append(append([]string{"split", "--quiet"}, how...), in, prefix)...); r.code != 0 {
				t.Fatalf("split %v %s: %s", how, in, r.stderr)
			}
			parts, _ := filepath.Glob(prefix + "-*.trv")
			var got int64
			for k, p := range parts {
				if p != filepath.Join(dir, "p-"+pad5(k)+".trv") {
					t.Fatalf("part %d named %s", k, p)
				}
				if r := runIn(t, nil, "validate", "--quiet", p); r.code != 0 {
					t.Fatalf("validate %s: %s", p, r.stderr)
				}
				prd, err := format.Open(p)
				if err != nil {
					t.Fatal(err)
				}
				n := prd.RowCount()
				if prd.Codec() != "deflate" || prd.Checksum() != "crc32" {
					t.Errorf("%s: codec %s, checksum %s", p, prd.Codec(), prd.Checksum())
				}
				prd.Close()
				if how[0] == "--rows" && n != min(7, rows-got) && n != min(1000000, rows-got) {
					t.Errorf("%s: %d rows", p, n)
				}
				got += n
			}
			if got != rows || len(parts) == 0 {
				t.Fatalf("split %v %s: %d parts of %d rows, want %d", how, in, len(parts), got, rows)
			}
			if how[1] == "7" && len(parts) != int((rows+6)/7) && rows > 0 {
				t.Errorf("split --rows 7 of %d rows: %d parts", rows, len(parts))
			}
			all := filepath.Join(dir, "all.trv")
			if r := runIn(t, nil, append(append([]string{"concat", "--quiet"}, parts...), all)...); r.code != 0 {
				t.Fatalf("concat: %s", r.stderr)
			}
			if r := runIn(t, nil, "tojson", all); r.stdout != want.stdout {
				t.Fatalf("split %v %s, then concat: records differ", how, in)
			}
		}
	}

	dir := t.TempDir()
	prefix := filepath.Join(dir, "q")
	in := files[0]
	if r := runIn(t, nil, "split", "--quiet", "--rows", "400", in, prefix); r.code != 0 {
		t.Fatal(r.stderr)
	}
	before, _ := filepath.Glob(prefix + "-*")
	if err := os.Remove(before[len(before)-1]); err != nil {
		t.Fatal(err)
	}
	r := runIn(t, nil, "split", "--rows", "400", in, prefix)
	if r.code != 1 || !strings.Contains(r.stderr, "--force") {
		t.Errorf("existing parts without --force: status %d, %q", r.code, r.stderr)
	}
	if after, _ := filepath.Glob(prefix + "-*"); len(after) != len(before)-1 {
		t.Errorf("refused split left %d files, had %d", len(after), len(before)-1)
	}
	if r := runIn(t, nil, "split", "--quiet", "--force", "--rows", "400", in, prefix); r.code != 0 {
		t.Errorf("--force: %s", r.stderr)
	}
	for _, args := range [][]string{{"split", in, prefix}, {"split", "--rows", "5", "--bytes", "1KiB", in, prefix}, {"split", "--bytes", "lots", in, prefix}} {
		if r := runIn(t, nil, args...); r.code != 2 {
			t.Errorf("%v: status %d, %q", args, r.code, r.stderr)
		}
	}
	raw := filepath.Join("..", "..", "testdata", "interop", "raw_core", "raw_core.trv")
	if r := runIn(t, nil, "split", "--rows", "5", raw, filepath.Join(dir, "raw")); r.code != 1 || !strings.Contains(r.stderr, "avro.schema") {
		t.Errorf("file without avro.schema: status %d, %q", r.code, r.stderr)
	}
}

func pad5(k int) string { return fmt.Sprintf("%05d", k) }
