package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/format/stats"
	"github.com/trevni-go/trevni/internal/testing/longtest"
)

// TestRecodecInterop rewrites every interoperability vector (Java's files)
// with every codec and checks the result against the original: the same
// records (tojson), checksums right (validate), the codec and checksum
// asked in every column, and the statistics kept or dropped as asked.
// With TREVNI_LONG_TESTS=1 (.ci/run) every file goes to every codec; a
// plain go test sends each file to 2 of the 5, turning with the file, so
// that each vector (but raw_core, a single file) still goes to every
// codec and each codec gets every checksum with statistics kept and
// dropped.
func TestRecodecInterop(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "interop", "*", "*.trv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no interop vectors: %v", err)
	}
	dir := t.TempDir()
	for n, in := range files {
		// tojson for the files written from Avro; dump (every column's
		// values, no schema needed) for the others.
		show := "tojson"
		if rd, err := format.Open(in); err != nil {
			t.Fatal(err)
		} else {
			if !rd.Meta().Has("avro.schema") {
				show = "dump"
			}
			rd.Close()
		}
		want := runIn(t, nil, show, in)
		if want.code != 0 {
			t.Fatalf("%s %s: %s", show, in, want.stderr)
		}
		for k, codec := range trevniCodecs {
			if (2*n+k)%len(trevniCodecs) >= longtest.Rounds(2, len(trevniCodecs)) {
				continue
			}
			checksum := checksumNames[(n+k)%len(checksumNames)]
			drop := (n+k)%3 == 0
			out := filepath.Join(dir, filepath.Base(in)+"."+codec+".trv")
			args := []string{"recodec", "--quiet", "--force", "--codec", codec, "--checksum", checksum}
			if drop {
				args = append(args, "--stats=false")
			}
			if r := runIn(t, nil, append(args, in, out)...); r.code != 0 {
				t.Fatalf("recodec %s to %s: %s", in, codec, r.stderr)
			}
			if r := runIn(t, nil, "validate", "--quiet", out); r.code != 0 {
				t.Fatalf("validate %s recoded to %s: %s", in, codec, r.stderr)
			}
			if got := runIn(t, nil, show, out); got.stdout != want.stdout {
				t.Fatalf("%s recoded to %s: records differ", in, codec)
			}
			checkRecoded(t, in, out, codec, checksum, drop)
		}
	}
}

// checkRecoded checks that out has the columns, metadata but for codec,
// checksum and statistics, and block row counts of in, and codec and
// checksum in every column.
func checkRecoded(t *testing.T, in, out, codec, checksum string, dropped bool) {
	t.Helper()
	a, err := format.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := format.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if a.RowCount() != b.RowCount() || a.NumColumns() != b.NumColumns() {
		t.Fatalf("%s: %d rows, %d columns; recoded %d, %d", in, a.RowCount(), a.NumColumns(), b.RowCount(), b.NumColumns())
	}
	for _, key := range []string{"avro.schema"} {
		if a.Meta().GetString(key) != b.Meta().GetString(key) {
			t.Errorf("%s: metadata %s changed", in, key)
		}
	}
	for i := range a.NumColumns() {
		if got := b.ColumnCodec(i); got != codec {
			t.Errorf("%s recoded: column %d codec %q, want %q", in, i, got, codec)
		}
		if got := b.ColumnChecksum(i); got != checksum {
			t.Errorf("%s recoded: column %d checksum %q, want %q", in, i, got, checksum)
		}
		ab, err := a.Blocks(i)
		if err != nil {
			t.Fatal(err)
		}
		bb, err := b.Blocks(i)
		if err != nil {
			t.Fatal(err)
		}
		if len(ab) != len(bb) {
			t.Fatalf("%s column %d: %d blocks, recoded %d", in, i, len(ab), len(bb))
		}
		for j := range ab {
			if ab[j].Rows != bb[j].Rows || ab[j].UncompressedSize != bb[j].UncompressedSize {
				t.Errorf("%s column %d block %d: %d rows of %d bytes, recoded %d of %d", in, i, j, ab[j].Rows, ab[j].UncompressedSize, bb[j].Rows, bb[j].UncompressedSize)
			}
		}
		as, _ := a.BlockStats(i)
		bs, err := b.BlockStats(i)
		if err != nil {
			t.Fatalf("%s recoded: column %d statistics: %v", in, i, err)
		}
		if dropped && bs != nil {
			t.Errorf("%s recoded with --stats=false: column %d has statistics", in, i)
		}
		if !dropped && (as == nil) != (bs == nil) {
			t.Errorf("%s recoded: column %d statistics present %v, originally %v", in, i, bs != nil, as != nil)
		}
	}
}

// TestRecodecStats checks --stats on a file written with statistics (kept,
// the same encoded bytes), on one of Java's without (records rewritten,
// statistics in every column), on one without avro.schema (refused,
// naming a column), and the usage errors.
func TestRecodecStats(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "in.json")
	if err := os.WriteFile(src, []byte(`{"a": 3, "s": "x"}`+"\n"+`{"a": -1, "s": "yy"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	schema := filepath.Join(dir, "s.avsc")
	if err := os.WriteFile(schema, []byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"s","type":"string"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	trv := filepath.Join(dir, "in.trv")
	if r := runIn(t, nil, "fromjson", "--quiet", "--schema", schema, src, trv); r.code != 0 {
		t.Fatalf("fromjson: %s", r.stderr)
	}
	out := filepath.Join(dir, "out.trv")
	if r := runIn(t, nil, "recodec", "--quiet", "--codec", "snappy", "--stats", trv, out); r.code != 0 {
		t.Fatalf("recodec --stats: %s", r.stderr)
	}
	a, err := format.Open(trv)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := format.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for i := range a.NumColumns() {
		want, _ := a.RawColumnMeta(i).Get(stats.MetaKey)
		got, _ := b.RawColumnMeta(i).Get(stats.MetaKey)
		if len(want) == 0 || string(got) != string(want) {
			t.Errorf("column %d: statistics %x, originally %x", i, got, want)
		}
	}

	// Java's files have no statistics: --stats rewrites the records.
	java := filepath.Join("..", "..", "testdata", "interop", "primitives", "primitives.deflate.crc32.trv")
	jout := filepath.Join(dir, "j.trv")
	if r := runIn(t, nil, "recodec", "--quiet", "--codec", "zstd", "--stats", java, jout); r.code != 0 {
		t.Fatalf("--stats on Java's file: %s", r.stderr)
	}
	if r := runIn(t, nil, "validate", "--quiet", jout); r.code != 0 {
		t.Fatalf("validate: %s", r.stderr)
	}
	if a, b := runIn(t, nil, "tojson", java), runIn(t, nil, "tojson", jout); a.code != 0 || a.stdout != b.stdout {
		t.Fatalf("--stats on Java's file: records differ")
	}
	j, err := format.Open(jout)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for i := range j.NumColumns() {
		st, err := j.BlockStats(i)
		blocks, _ := j.Blocks(i)
		if err != nil || (st == nil && len(blocks) > 0) || j.ColumnCodec(i) != "zstd" || j.ColumnChecksum(i) != "crc32" {
			t.Errorf("--stats on Java's file: column %d: statistics %v, %v; %s/%s", i, st != nil, err, j.ColumnCodec(i), j.ColumnChecksum(i))
		}
	}
	// Without avro.schema, statistics cannot be added.
	raw := filepath.Join("..", "..", "testdata", "interop", "raw_core", "raw_core.trv")
	r := runIn(t, nil, "recodec", "--codec", "zstd", "--stats", raw, filepath.Join(dir, "r.trv"))
	if r.code != 1 || !strings.Contains(r.stderr, "has no statistics") {
		t.Errorf("--stats on a file without avro.schema: status %d, %q", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "r.trv")); !os.IsNotExist(err) {
		t.Errorf("refused recodec left its output: %v", err)
	}
	if r := runIn(t, nil, "recodec", trv, filepath.Join(dir, "x.trv")); r.code != 2 || !strings.Contains(r.stderr, "--codec") {
		t.Errorf("no --codec: status %d, %q", r.code, r.stderr)
	}
	if r := runIn(t, nil, "recodec", "--codec", "lz4", trv, filepath.Join(dir, "x.trv")); r.code != 2 {
		t.Errorf("unknown codec: status %d, %q", r.code, r.stderr)
	}
	if r := runIn(t, nil, "recodec", "--codec", "null", trv, out); r.code == 0 || !strings.Contains(r.stderr, "force") {
		t.Errorf("existing output without --force: status %d, %q", r.code, r.stderr)
	}
}
