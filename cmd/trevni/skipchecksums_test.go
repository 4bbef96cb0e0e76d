package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/internal/testing/ducktest"
)

// --skip-checksums, on every command that verifies checksums: a Trevni
// file (Java's, null codec, CRC-32) with one string changed in place is
// refused for its checksum, and read with the flag as the file it was,
// that string changed; validate takes no such flag.
func TestSkipChecksumsTrevni(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(interopDir, "primitives", "primitives.null.crc32-correct.trv")
	good := copyFile(t, src, dir, "good.trv")
	data := readFile(t, src)
	if bytes.Count(data, []byte("oxsovwmamcezoa")) != 1 {
		t.Fatal("the test's string is not in the file once")
	}
	bad := filepath.Join(dir, "bad.trv")
	writeFileT(t, bad, bytes.Replace(data, []byte("oxsovwmamcezoa"), []byte("OXSOVWMAMCEZOA"), 1))
	for _, args := range [][]string{
		{"tojson"}, {"head", "-n", "600"}, {"tocsv", "--fields", "s,i"}, {"dump"}, {"count", "--where", "s = 'OXSOVWMAMCEZOA'"},
	} {
		want := runIn(t, nil, append(args, good)...)
		if want.code != 0 {
			t.Fatalf("%q of the undamaged file: %s", args, want.stderr)
		}
		r := runIn(t, nil, append(args, bad)...)
		if r.code != exitError || !strings.Contains(r.stderr, "checksum") {
			t.Errorf("%q of the damaged file: status %d, %s; want a checksum error", args, r.code, r.stderr)
		}
		r = runIn(t, nil, append(append([]string{args[0], "--skip-checksums"}, args[1:]...), bad)...)
		wantOut := strings.ReplaceAll(want.stdout, "oxsovwmamcezoa", "OXSOVWMAMCEZOA")
		if args[0] == "count" {
			wantOut = "1\n"
		}
		if r.code != 0 || r.stdout != wantOut {
			t.Errorf("%q --skip-checksums: status %d, %d bytes, want %d: %s", args, r.code, len(r.stdout), len(wantOut), r.stderr)
		}
	}
	// Concat copies null-codec blocks, checking them: with the flag it
	// writes the checksums of the data as read, so the output validates.
	out := filepath.Join(dir, "joined.trv")
	if r := runIn(t, nil, "concat", bad, out); r.code != exitError || !strings.Contains(r.stderr, "checksum") {
		t.Errorf("concat: status %d, %s", r.code, r.stderr)
	}
	if r := runIn(t, nil, "concat", "--quiet", "--skip-checksums", bad, good, out); r.code != 0 {
		t.Fatalf("concat --skip-checksums: %s", r.stderr)
	}
	if r := runIn(t, nil, "validate", out); r.code != 0 {
		t.Errorf("validate of concat's output: %d %s", r.code, r.stderr)
	}
	if r := runIn(t, nil, "validate", "--skip-checksums", bad); r.code == 0 || !strings.Contains(r.stderr, "skip-checksums") {
		t.Errorf("validate --skip-checksums: status %d, %s; want a usage error", r.code, r.stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
}

// A Parquet file with a damaged page (parquet-testing's) is refused by
// the reading commands, naming the page, and read with --skip-checksums
// as DuckDB reads it.
func TestSkipChecksumsParquet(t *testing.T) {
	pq := filepath.Join("..", "..", "trevniparquet", "testdata", "realwriters", "parquet-testing", "datapage_v1-corrupt-checksum.parquet")
	r := runIn(t, nil, "count", "--where", "a is not null", pq)
	if r.code != exitError || !strings.Contains(r.stderr, "page 0: its CRC-32 is") {
		t.Errorf("count: status %d, %s; want a page checksum error", r.code, r.stderr)
	}
	duck := ducktest.Query(t, "select count(*)::varchar from read_parquet("+sqlString(pq)+") where a is not null")
	if duck[0].Error != "" {
		t.Fatal(duck[0].Error)
	}
	r = runIn(t, nil, "count", "--skip-checksums", "--where", "a is not null", pq)
	if r.code != 0 || r.stdout != duck[0].Rows[0][0].(string)+"\n" {
		t.Errorf("count --skip-checksums: status %d, %q, DuckDB counts %v: %s", r.code, r.stdout, duck[0].Rows[0][0], r.stderr)
	}
}
