package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/internal/testing/protorand"
	"github.com/trevni-go/trevni/schema/protoload"
	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
)

// avroVectors lists the interop vectors with an Avro input.
func avroVectors(t *testing.T) []string {
	files, _ := filepath.Glob(filepath.Join(interopDir, "*", "input.avro"))
	if len(files) < 9 {
		t.Fatalf("only %d vectors", len(files))
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(filepath.Dir(f)))
	}
	return names
}

// TestE2EAvroRoundTrip runs fromavro, tojson and toavro through the binary on
// every vector: fromavro with the null codec gives Java's bytes, tojson gives
// Java's reader output, toavro gives records equal to the input's.
func TestE2EAvroRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range avroVectors(t) {
		in := filepath.Join(interopDir, name, "input.avro")
		trv := filepath.Join(dir, name+".trv")
		r := runBin(t, nil, "fromavro", "--codec", "null", "--checksum", "null", "--stats=false", in, trv)
		if r.code != 0 || !strings.Contains(r.stderr, "wrote "+trv) {
			t.Fatalf("fromavro %s: %+v", name, r)
		}
		if !bytes.Equal(readFile(t, trv), readFile(t, filepath.Join(interopDir, name, name+".null.none.trv"))) {
			t.Errorf("fromavro %s: bytes differ from Java's", name)
		}
		expected := filepath.Join(interopDir, name, "expected.jsonl")
		if _, err := os.Stat(expected); err == nil {
			r = runBin(t, nil, "tojson", trv)
			if r.code != 0 || r.stdout != string(readFile(t, expected)) {
				t.Errorf("tojson %s: status %d, output differs from Java's (%d vs %d bytes)", name, r.code, len(r.stdout), len(readFile(t, expected)))
			}
		}
		back := filepath.Join(dir, name+".avro")
		if r = runBin(t, nil, "toavro", "--codec", "snappy", trv, back); r.code != 0 {
			t.Fatalf("toavro %s: %+v", name, r)
		}
		got, want := avroRecords(t, back), avroRecords(t, in)
		if len(got) != len(want) {
			t.Fatalf("toavro %s: %d records, want %d", name, len(got), len(want))
		}
		for i := range want {
			if !avrorand.EqualNative(got[i], want[i]) {
				t.Fatalf("toavro %s: record %d differs from the input's", name, i)
			}
		}
	}
}

// avroRecords returns every record of a container file, read with goavro.
func avroRecords(t *testing.T, name string) []any {
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := goavro.NewOCFReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	for r.Scan() {
		v, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// TestE2EFromJSON converts Avro JSON lines and compares with fromavro.
func TestE2EFromJSON(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"email", "unions", "maps", "enum_fixed_bytes"} {
		a, b := filepath.Join(dir, name+".a.trv"), filepath.Join(dir, name+".b.trv")
		if r := runBin(t, nil, "fromavro", "--quiet", filepath.Join(interopDir, name, "input.avro"), a); r.code != 0 {
			t.Fatal(r)
		}
		r := runBin(t, nil, "fromjson", "--quiet", "--schema", filepath.Join(interopDir, name, "schema.avsc"), filepath.Join(interopDir, name, "input.jsonl"), b)
		if r.code != 0 {
			t.Fatalf("fromjson %s: %+v", name, r)
		}
		if runBin(t, nil, "tojson", a).stdout != runBin(t, nil, "tojson", b).stdout {
			t.Errorf("fromjson %s: records differ from fromavro's", name)
		}
	}
	// A bad line is reported with its number, and nothing is written.
	bad := filepath.Join(dir, "bad.jsonl")
	writeFileT(t, bad, []byte("{\"id\":1}\n"))
	out := filepath.Join(dir, "bad.trv")
	r := runBin(t, nil, "fromjson", "--schema", filepath.Join(interopDir, "email", "schema.avsc"), bad, out)
	checkOneLineError(t, r, "fromjson")
	if !strings.Contains(r.stderr, "bad.jsonl:1") {
		t.Errorf("the error does not name the line: %s", r.stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("a failed fromjson left its output")
	}
}

// TestE2EBadAvroInput feeds truncated and corrupted Avro files: one line,
// status 1, no output, an existing output untouched.
func TestE2EBadAvroInput(t *testing.T) {
	dir := t.TempDir()
	data := readFile(t, filepath.Join(interopDir, "email", "input.avro"))
	out := filepath.Join(dir, "out.trv")
	writeFileT(t, out, []byte("precious"))
	for _, n := range []int{0, 3, 10, 200, len(data) / 2, len(data) - 1} {
		in := filepath.Join(dir, "cut.avro")
		writeFileT(t, in, data[:n])
		r := runBin(t, nil, "fromavro", in, out)
		checkOneLineError(t, r, "fromavro")
		if got := string(readFile(t, out)); got != "precious" {
			t.Fatalf("cut at %d: the existing output was changed", n)
		}
	}
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)/2] ^= 0xff
	in := filepath.Join(dir, "flipped.avro")
	writeFileT(t, in, flipped)
	if r := runBin(t, nil, "fromavro", in, out); r.code != 0 {
		checkOneLineError(t, r, "fromavro")
	}
	// A missing output directory is an error, like cp's, not created.
	r := runBin(t, nil, "fromavro", filepath.Join(interopDir, "email", "input.avro"), filepath.Join(dir, "no", "out.trv"))
	checkOneLineError(t, r, "fromavro")
	if names := dirNames(t, dir); len(names) != 3 {
		t.Errorf("files left behind: %v", names)
	}
}

// TestE2ERandom writes random records and checks the file.
func TestE2ERandom(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.trv")
	schema := filepath.Join(interopDir, "unions", "schema.avsc")
	if r := runBin(t, nil, "random", "--seed", "3", "--codec", "zstd", schema, "500", out); r.code != 0 {
		t.Fatal(r)
	}
	if r := runBin(t, nil, "validate", out); r.code != 0 {
		t.Fatal(r)
	}
	r := runBin(t, nil, "tojson", out)
	if r.code != 0 || len(splitLines(t, strings.NewReader(r.stdout))) != 500 {
		t.Fatalf("tojson: status %d, %s", r.code, r.stderr)
	}
	again := filepath.Join(dir, "again.trv")
	runBin(t, nil, "random", "--seed", "3", "--codec", "zstd", schema, "500", again)
	if !bytes.Equal(readFile(t, out), readFile(t, again)) {
		t.Error("the same seed gave a different file")
	}
}

// TestE2EProto converts delimited messages of a .proto compiled from source
// to Trevni and back, and reads the file as Avro JSON.
func TestE2EProto(t *testing.T) {
	dir := t.TempDir()
	protoDir := filepath.Join("..", "..", "testdata", "proto")
	files, err := protoload.CompileProto(context.Background(), []string{protoDir}, "trevni/test/proto3.proto")
	if err != nil {
		t.Fatal(err)
	}
	md, err := protoload.FindMessage(files, "trevni.test.p3.Everything")
	if err != nil {
		t.Fatal(err)
	}
	var in bytes.Buffer
	opts := protodelim.MarshalOptions{MarshalOptions: proto.MarshalOptions{Deterministic: true}}
	for seed := uint64(0); seed < 50; seed++ {
		m := dynamicpb.NewMessage(md)
		protorand.New(seed).Fill(m)
		if _, err := opts.MarshalTo(&in, m); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "in.bin")
	writeFileT(t, bin, in.Bytes())
	trv := filepath.Join(dir, "p.trv")
	r := runBin(t, nil, "fromproto", "--proto", filepath.Join(protoDir, "trevni/test/proto3.proto"), "-I", protoDir,
		"--message", "trevni.test.p3.Everything", bin, trv)
	if r.code != 0 {
		t.Fatalf("fromproto: %+v", r)
	}
	back := filepath.Join(dir, "back.bin")
	if r := runBin(t, nil, "toproto", trv, back); r.code != 0 {
		t.Fatalf("toproto: %+v", r)
	}
	if !bytes.Equal(readFile(t, back), in.Bytes()) {
		t.Error("toproto: messages differ from the input")
	}
	// With no output named, the messages go to standard output.
	if r := runBin(t, nil, "toproto", trv); r.code != 0 || r.stdout != in.String() {
		t.Errorf("toproto to standard output: status %d, %d bytes, want the %d of the input; %s", r.code, len(r.stdout), in.Len(), r.stderr)
	}
	if r := runBin(t, nil, "tojson", trv); r.code != 0 || len(splitLines(t, strings.NewReader(r.stdout))) != 50 {
		t.Errorf("tojson of a protobuf file: %+v", r.stderr)
	}
	r = runBin(t, nil, "toproto", "--output", "json", "--fields", "s", trv, "-")
	if r.code != 0 || len(splitLines(t, strings.NewReader(r.stdout))) != 50 {
		t.Errorf("toproto --fields: %+v", r.stderr)
	}
	r = runBin(t, nil, "fromproto", "--message", "no.Such", bin, filepath.Join(dir, "x.trv"))
	checkOneLineError(t, r, "fromproto")
}

// TestE2ERange reads ranges of records with --offset and --limit.
func TestE2ERange(t *testing.T) {
	file := filepath.Join(interopDir, "email", "email.snappy.crc32.trv")
	want := readLines(t, filepath.Join(interopDir, "email", "expected.jsonl"))
	for _, r := range [][2]int{{0, 1}, {120, 7}, {295, 10}, {300, 3}} {
		res := runBin(t, nil, "tojson", "--offset", fmt.Sprint(r[0]), "--limit", fmt.Sprint(r[1]), file)
		got := splitLines(t, strings.NewReader(res.stdout))
		end := min(r[0]+r[1], len(want))
		if res.code != 0 || !slices.Equal(got, want[r[0]:end]) {
			t.Errorf("range %v: status %d, %d lines, want %d", r, res.code, len(got), end-r[0])
		}
	}
	if r := runBin(t, nil, "tojson", "--offset", "-1", file); r.code != exitUsage || !strings.Contains(r.stderr, "--offset") {
		t.Errorf("negative offset: status %d, %s", r.code, r.stderr)
	}
}

// TestE2ESchema prints a file's schema, which must equal the Avro input's.
func TestE2ESchema(t *testing.T) {
	file := filepath.Join(interopDir, "email", "email.null.none.trv")
	var compact bytes.Buffer
	if err := json.Compact(&compact, readFile(t, filepath.Join(interopDir, "email", "schema.avsc"))); err != nil {
		t.Fatal(err)
	}
	want := compact.String() // the file stores the schema as Java wrote it: compact
	if r := runBin(t, nil, "schema", file); r.code != 0 || strings.TrimSpace(r.stdout) != want {
		t.Errorf("schema: status %d, %q", r.code, r.stdout)
	}
	if r := runBin(t, nil, "schema", "--pretty", file); r.code != 0 || !strings.Contains(r.stdout, "\n  \"fields\"") {
		t.Errorf("schema --pretty: %+v", r)
	}
	checkOneLineError(t, runBin(t, nil, "schema", "--proto", file), "schema")
	checkOneLineError(t, runBin(t, nil, "schema", filepath.Join(interopDir, "raw_core", "raw_core.trv")), "schema")
}

// TestE2EFromAvroParts converts a data set split into parts, of different
// codecs, into one file, equal to converting the whole.
func TestE2EFromAvroParts(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(interopDir, "email", "input.avro")
	whole := filepath.Join(dir, "whole.trv")
	if r := runBin(t, nil, "fromavro", "--quiet", src, whole); r.code != 0 {
		t.Fatal(r)
	}
	// Split the records in three parts with toavro --offset/--limit.
	var parts []string
	for i, r := range [][2]string{{"0", "100"}, {"100", "150"}, {"250", "50"}} {
		part := filepath.Join(dir, fmt.Sprintf("part-%d.avro", i))
		codec := []string{"null", "deflate", "snappy"}[i]
		if res := runBin(t, nil, "toavro", "--quiet", "--codec", codec, "--offset", r[0], "--limit", r[1], whole, part); res.code != 0 {
			t.Fatal(res)
		}
		parts = append(parts, part)
	}
	joined := filepath.Join(dir, "joined.trv")
	if r := runBin(t, nil, append(append([]string{"fromavro"}, parts...), joined)...); r.code != 0 || !strings.Contains(r.stderr, "300 rows") {
		t.Fatalf("fromavro of the parts: %+v", r)
	}
	// On several workers the blocks end where the parts (and ranges) do:
	// the same records. On one, the same bytes.
	jsonOf := func(file string) string {
		r := runBin(t, nil, "tojson", file)
		if r.code != 0 {
			t.Fatal(r)
		}
		return r.stdout
	}
	if jsonOf(joined) != jsonOf(whole) {
		t.Error("the parts make different records from the whole")
	}
	joined1 := filepath.Join(dir, "joined1.trv")
	if r := runBin(t, nil, append(append([]string{"fromavro", "--quiet", "--workers", "1"}, parts...), joined1)...); r.code != 0 {
		t.Fatalf("fromavro --workers 1 of the parts: %+v", r)
	}
	whole1 := filepath.Join(dir, "whole1.trv")
	if r := runBin(t, nil, "fromavro", "--quiet", "--workers", "1", src, whole1); r.code != 0 {
		t.Fatal(r)
	}
	if !bytes.Equal(readFile(t, joined1), readFile(t, whole1)) {
		t.Error("on one worker, the parts make a different file from the whole")
	}
	// A part of another schema is refused, and nothing is written.
	other := filepath.Join(interopDir, "maps", "input.avro")
	bad := filepath.Join(dir, "bad.trv")
	r := runBin(t, nil, "fromavro", parts[0], other, bad)
	checkOneLineError(t, r, "fromavro")
	if !strings.Contains(r.stderr, "schema differs") {
		t.Errorf("the schema clash is not named: %s", r.stderr)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Error("a failed fromavro left its output")
	}
}

// TestRangeOverflow: an --offset and a --limit whose sum overflows read to
// the end (once they printed nothing).
func TestRangeOverflow(t *testing.T) {
	file := filepath.Join(interopDir, "email", "email.null.crc32.trv")
	want := readLines(t, filepath.Join(interopDir, "email", "expected.jsonl"))
	r := runIn(t, nil, "tojson", "--offset", "1", "--limit", "9223372036854775807", file)
	got := splitLines(t, strings.NewReader(r.stdout))
	if r.code != 0 || len(got) != len(want)-1 {
		t.Fatalf("status %d, %d lines, want %d; stderr %s", r.code, len(got), len(want)-1, r.stderr)
	}
	if got[0] != want[1] {
		t.Fatalf("first line %s, want %s", got[0], want[1])
	}
}
