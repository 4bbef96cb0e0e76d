package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestConcatCommand(t *testing.T) {
	dir, parts, want := emailParts(t)
	out := filepath.Join(t.TempDir(), "all.trv")
	if r := runIn(t, nil, "concat", "--quiet", filepath.Join(dir, "*.trv"), out); r.code != 0 {
		t.Fatalf("concat: %+v", r)
	}
	if r := runIn(t, nil, "tojson", out); !slices.Equal(lines(r.stdout), want) {
		t.Fatalf("concat: %d records, want %d", len(lines(r.stdout)), len(want))
	}
	if r := runIn(t, nil, "validate", out); r.code != 0 {
		t.Fatalf("validate: %+v", r)
	}
	// Files of other columns: an error naming both, and no output.
	other := filepath.Join(interopDir, "maps", "maps.null.none.trv")
	out2 := filepath.Join(filepath.Dir(out), "bad.trv")
	r := runIn(t, nil, "concat", parts[0], other, out2)
	if r.code != 1 || !strings.Contains(r.stderr, parts[0]) || !strings.Contains(r.stderr, other) {
		t.Fatalf("different columns: %+v", r)
	}
	if names := dirNames(t, filepath.Dir(out)); !slices.Equal(names, []string{"all.trv"}) {
		t.Fatalf("files left: %q", names)
	}
}

// TestConcatJavaZeroCRC: concat of Java's null-codec file, whose CRC-32s
// are all zero, gives a file whose checksums are right (validate --strict
// finds none wrong) holding the parts' records.
func TestConcatJavaZeroCRC(t *testing.T) {
	dir := filepath.Join(interopDir, "email")
	java := filepath.Join(dir, "email.null.crc32.trv")
	if r := runIn(t, nil, "validate", "--strict", java); r.code == 0 {
		t.Fatalf("validate --strict accepts Java's zero CRC-32s: %+v", r)
	}
	want := readLines(t, filepath.Join(dir, "expected.jsonl"))
	out := filepath.Join(t.TempDir(), "all.trv")
	if r := runIn(t, nil, "concat", "--quiet", java, filepath.Join(dir, "email.snappy.crc32.trv"), out); r.code != 0 {
		t.Fatalf("concat: %+v", r)
	}
	if r := runIn(t, nil, "validate", "--strict", out); r.code != 0 {
		t.Fatalf("validate --strict: %+v", r)
	}
	if r := runIn(t, nil, "tojson", out); !slices.Equal(lines(r.stdout), append(slices.Clone(want), want...)) {
		t.Fatalf("concat: %d records, want %d", len(lines(r.stdout)), 2*len(want))
	}
}

// TestConcatSchemasDiffer checks that concat of files of different
// schemas says so and names the first differing column and both parts.
func TestConcatSchemasDiffer(t *testing.T) {
	a := filepath.Join(interopDir, "email", "email.deflate.crc32.trv")
	b := filepath.Join(interopDir, "primitives", "primitives.null.crc32.trv")
	r := runIn(t, nil, "concat", a, b, filepath.Join(t.TempDir(), "out.trv"))
	want := a + " and " + b + ` cannot be joined: their schemas differ at column 0: "id" (int) in the first, "n" (null) in the second`
	if r.code != exitError || !strings.Contains(r.stderr, want) {
		t.Errorf("status %d, stderr %q; want %q", r.code, r.stderr, want)
	}
	// A part with the first part's columns and more: the first extra
	// column is named, absent from the first part.
	dir := t.TempDir()
	short, long := filepath.Join(dir, "short.avsc"), filepath.Join(dir, "long.avsc")
	writeFileT(t, short, []byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`))
	writeFileT(t, long, []byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"long"}]}`))
	for _, s := range []string{short, long} {
		if r := runIn(t, nil, "random", "--quiet", s, "2", strings.TrimSuffix(s, ".avsc")+".trv"); r.code != exitOK {
			t.Fatalf("random: %+v", r)
		}
	}
	r = runIn(t, nil, "concat", filepath.Join(dir, "short.trv"), filepath.Join(dir, "long.trv"), filepath.Join(dir, "out.trv"))
	if r.code != exitError || !strings.Contains(r.stderr, `differ at column 1: absent in the first, "b" (long) in the second`) {
		t.Errorf("status %d, stderr %q", r.code, r.stderr)
	}
}

// TestConcatRefusesOtherFormats: concat of a Trevni 1 file fails, naming
// it and the way to convert it, and writes nothing (it once wrote a file
// validate found ten problems in).
func TestConcatRefusesOtherFormats(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.trv")
	v1 := filepath.Join(v1Dir, "impala_all_types.trv")
	cl := filepath.Join("..", "..", "testdata", "clmn", "sample.clmn")
	// A version-1 file fromavro writes: its header once passed for a
	// Trevni 2 file's.
	mine := filepath.Join(t.TempDir(), "email.v1.trv")
	if r := runIn(t, nil, "fromavro", "--quiet", "--version", "1", filepath.Join(interopDir, "email", "input.avro"), mine); r.code != 0 {
		t.Fatal(r.stderr)
	}
	avro := filepath.Join(interopDir, "email", "input.avro")
	for _, c := range []struct {
		ins  []string
		hint string // the way to convert the first file not Trevni 2, named
	}{
		{[]string{mine, mine}, "trevni toavro " + mine + " x.avro, then"},
		{[]string{v1, v1}, "trevni toavro " + v1 + " x.avro, then"},
		{[]string{filepath.Join(interopDir, "tiny", "tiny_rle.trv"), v1}, "trevni toavro " + v1 + " x.avro"},
		{[]string{cl, cl}, "trevni fromclmn " + cl + " x.trv"},
		{[]string{filepath.Join(interopDir, "tiny", "tiny_rle.trv"), avro}, "trevni fromavro " + avro + " x.trv"},
	} {
		ins := c.ins
		r := runIn(t, nil, append(append([]string{"concat"}, ins...), out)...)
		if r.code != exitError || !strings.Contains(r.stderr, "concat joins Trevni 2 files") || !strings.Contains(r.stderr, "convert it first ("+c.hint) {
			t.Errorf("%q: %d %s", ins, r.code, r.stderr)
		}
		if names := dirNames(t, dir); len(names) != 0 {
			t.Errorf("%q: left %q", ins, names)
		}
	}
	if r := runIn(t, nil, "concat", v1, v1, out); !strings.Contains(r.stderr, v1+": a Trevni 1 file") {
		t.Errorf("the file is not named first: %s", r.stderr)
	}
}
