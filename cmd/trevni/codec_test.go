package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestE2ECodecNames checks that every codec the tool lists writes a file
// that reads back, that zstd and zstandard are both accepted on the Trevni
// and the Avro side, and that a bad codec is the same usage error, listing
// the names, for every command that takes --codec.
func TestE2ECodecNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	avro := filepath.Join(interopDir, "email", "input.avro")
	avsc := filepath.Join(interopDir, "email", "schema.avsc")
	jsonl := filepath.Join(interopDir, "email", "input.jsonl")
	want := readLines(t, filepath.Join(interopDir, "email", "expected.jsonl"))
	checkRecords := func(what, trv string) {
		t.Helper()
		r := runBin(t, nil, "tojson", trv)
		if got := splitLines(t, strings.NewReader(r.stdout)); r.code != 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: tojson: status %d, %d records, stderr %s", what, r.code, len(got), r.stderr)
		}
	}
	for _, name := range append(trevniCodecs, "zstandard") {
		trv := filepath.Join(dir, "t."+name+".trv")
		if r := runBin(t, nil, "fromavro", "--quiet", "--codec", name, avro, trv); r.code != 0 {
			t.Fatalf("fromavro --codec %s: %+v", name, r)
		}
		stored := name
		if name == "zstandard" {
			stored = "zstd"
		}
		if r := runBin(t, nil, "meta", trv); !strings.Contains(r.stdout, `"trevni.codec":"`+stored+`"`) {
			t.Errorf("fromavro --codec %s: stored codec: %s", name, r.stdout)
		}
		checkRecords("fromavro --codec "+name, trv)
	}
	trv := filepath.Join(dir, "t.null.trv")
	for _, name := range append(avroCodecs, "zstd") {
		out := filepath.Join(dir, "a."+name+".avro")
		if r := runBin(t, nil, "toavro", "--quiet", "--codec", name, trv, out); r.code != 0 {
			t.Fatalf("toavro --codec %s: %+v", name, r)
		}
		stored := name
		if name == "zstd" {
			stored = "zstandard"
		}
		// The header's metadata entry: key and value as Avro strings.
		if entry := "\x14avro.codec" + string(byte(2*len(stored))) + stored; !strings.Contains(string(readFile(t, out)), entry) {
			t.Errorf("toavro --codec %s: the header does not name %s", name, stored)
		}
		back := filepath.Join(dir, "back."+name+".trv")
		if r := runBin(t, nil, "fromavro", "--quiet", out, back); r.code != 0 {
			t.Fatalf("fromavro of toavro --codec %s: %+v", name, r)
		}
		checkRecords("toavro --codec "+name, back)
	}

	for _, args := range [][]string{
		{"fromavro", "--codec", "lz4", avro, "x.trv"},
		{"fromjson", "--codec", "lz4", "--schema", avsc, jsonl, "x.trv"},
		{"fromproto", "--codec", "lz4", "--message", "google.protobuf.Empty", "-", "x.trv"},
		{"random", "--codec", "lz4", avsc, "1", "x.trv"},
		{"toavro", "--codec", "lz4", trv, "x.avro"},
	} {
		r := runBin(t, nil, args...)
		if r.code != exitUsage || !strings.HasPrefix(r.stderr, "trevni: "+args[0]+": --codec \"lz4\": unknown codec (want null, deflate, snappy, bzip2, ") ||
			!strings.Contains(r.stderr, "zstd or zstandard)") && !strings.Contains(r.stderr, "zstandard or zstd)") {
			t.Errorf("%q: %+v", args, r)
		}
	}
}
