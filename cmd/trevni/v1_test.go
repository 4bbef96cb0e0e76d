package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const v1Dir = "../../testdata/trevni1"

func v1run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// The hand-built Impala vector (trevni1/vectors_test.go) through
// every reading command.
func TestV1Commands(t *testing.T) {
	all := filepath.Join(v1Dir, "impala_all_types.trv")
	code, out, errOut := v1run(t, "tojson", all)
	want := `{"col_1":{"boolean":true},"col_2":{"int":-1},"col_3":{"int":300},"col_4":{"int":1},"col_5":{"long":-2},"col_6":{"float":1.5},"col_7":{"double":-0.0},"col_8":{"trevni1.Timestamp":{"nanosOfDay":31714123456789,"julianDay":2456072}},"col_9":{"string":"hi"}}
{"col_1":null,"col_2":null,"col_3":null,"col_4":null,"col_5":null,"col_6":null,"col_7":null,"col_8":null,"col_9":null}
{"col_1":{"boolean":false},"col_2":{"int":127},"col_3":{"int":-32768},"col_4":{"int":64},"col_5":{"long":1099511627776},"col_6":{"float":"NaN"},"col_7":{"double":2.25},"col_8":{"trevni1.Timestamp":{"nanosOfDay":0,"julianDay":2440588}},"col_9":{"string":""}}
`
	if code != 0 || out != want {
		t.Fatalf("tojson: %d %s\n%s", code, errOut, out)
	}
	if code, out, _ := v1run(t, "tojson", "--offset", "2", "--limit", "5", all); code != 0 || out != strings.Split(want, "\n")[2]+"\n" {
		t.Fatalf("tojson --offset 2: %d\n%s", code, out)
	}
	code, out, _ = v1run(t, "dump", all)
	if code != 0 || !strings.HasPrefix(out, `{"col_1":true,"col_2":-1,"col_3":300,"col_4":1,"col_5":-2,"col_6":1.5,"col_7":-0,"col_8":{"nanosOfDay":31714123456789,"julianDay":2456072},"col_9":"hi"}`) {
		t.Fatalf("dump: %d\n%s", code, out)
	}
	code, out, _ = v1run(t, "meta", "--blocks", filepath.Join(v1Dir, "impala_several_blocks.trv"))
	if code != 0 || !strings.Contains(out, `"blockCount":2,"blocks":[{"rows":3,"uncompressed":4,"compressed":0,"start":174},{"rows":2,"uncompressed":2,"compressed":0,"start":178}]`) {
		t.Fatalf("meta: %d\n%s", code, out)
	}
	code, out, _ = v1run(t, "validate", all)
	if code != 0 || !strings.Contains(out, "ok: 3 rows, 9 columns, 9 blocks checked") {
		t.Fatalf("validate: %d\n%s", code, out)
	}
	code, _, errOut = v1run(t, "validate", filepath.Join(v1Dir, "impala_boolean_quirk.trv"))
	if code != 1 || !strings.Contains(errOut, `column "col_1" (#0), block 0`) || !strings.Contains(errOut, "Impala") {
		t.Fatalf("validate of the boolean quirk: %d\n%s", code, errOut)
	}
	code, out, _ = v1run(t, "schema", all)
	if code != 0 || !strings.Contains(out, `"name":"Timestamp","namespace":"trevni1"`) {
		t.Fatalf("schema: %d\n%s", code, out)
	}
	if code, _, errOut := v1run(t, "tojson", "--schema", "no-such.avsc", all); code == 0 || !strings.Contains(errOut, "no-such.avsc") {
		t.Fatalf("tojson --schema of a missing file on version 1: %d %s", code, errOut)
	}
}

// fromavro --version 1 and back: the email vector (arrays of records in
// arrays) reads the same from version 1 as from version 2, and toavro of
// the version-1 file makes the same records again.
func TestV1FromAvro(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(interopDir, "email", "input.avro")
	v1 := filepath.Join(dir, "email.v1.trv")
	v2 := filepath.Join(dir, "email.v2.trv")
	for _, args := range [][]string{
		{"fromavro", "--quiet", "--version", "1", "--codec", "bzip2", "--checksum", "crc32", in, v1},
		{"fromavro", "--quiet", in, v2},
	} {
		if code, _, errOut := v1run(t, args...); code != 0 {
			t.Fatalf("%q: %s", args, errOut)
		}
	}
	b, _ := os.ReadFile(v1)
	if !bytes.HasPrefix(b, []byte("Trv\x01")) {
		t.Fatalf("not a version-1 file")
	}
	_, j1, _ := v1run(t, "tojson", v1)
	_, j2, _ := v1run(t, "tojson", v2)
	if j1 == "" || j1 != j2 {
		t.Fatalf("version 1 reads differently:\n%.300s\n%.300s", j1, j2)
	}
	back := filepath.Join(dir, "back.avro")
	if code, _, errOut := v1run(t, "toavro", "--quiet", v1, back); code != 0 {
		t.Fatal(errOut)
	}
	v2b := filepath.Join(dir, "back.v2.trv")
	if code, _, errOut := v1run(t, "fromavro", "--quiet", back, v2b); code != 0 {
		t.Fatal(errOut)
	}
	if _, j3, _ := v1run(t, "tojson", v2b); j3 != j2 {
		t.Fatalf("toavro of version 1 lost records")
	}
	code, out, errOut := v1run(t, "dump", v1)
	if lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); code != 0 || len(lines) != 300 ||
		!strings.HasPrefix(lines[0], `{"id":`) || !strings.Contains(lines[0], `"received.sigs.algo":[`) {
		t.Fatalf("dump: %d %s\n%.400s", code, errOut, out)
	}
	if code, out, _ := v1run(t, "validate", v1); code != 0 || !strings.Contains(out, "ok: 300 rows") {
		t.Fatalf("validate: %s", out)
	}
	// A schema version 1 cannot express: the field is named.
	code, _, errOut = v1run(t, "fromavro", "--version", "1", filepath.Join(interopDir, "unions", "input.avro"), filepath.Join(dir, "u.trv"))
	if code != 1 || !strings.Contains(errOut, "union of") {
		t.Fatalf("unions: %d %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "u.trv")); err == nil {
		t.Fatalf("a failed conversion left its output")
	}
	if code, out, _ := v1run(t, "help", "fromavro"); code != 0 || !strings.Contains(out, "--version int") {
		t.Fatalf("help fromavro does not show --version:\n%s", out)
	}
	if code, _, _ := v1run(t, "fromavro", "--version", "1", "--block-size", "100", in, filepath.Join(dir, "x.trv")); code != exitUsage {
		t.Fatalf("--block-size with --version 1: %d", code)
	}
}

// v1runStdin runs the tool with stdin as given.
func v1runStdin(t *testing.T, stdin io.Reader, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, stdin, &out, &errOut)
	return code, out.String(), errOut.String()
}

// Version-1 and CLMN files read from standard input, whether it allows
// random access (a file, a reader) or not (a pipe), give what the named
// file gives.
func TestV1AndCLMNOnStdin(t *testing.T) {
	v1 := filepath.Join(v1Dir, "impala_all_types.trv")
	cl := filepath.Join("..", "..", "testdata", "clmn", "sample.clmn")
	cases := [][]string{
		{"tojson", v1}, {"dump", v1}, {"meta", "--blocks", v1}, {"schema", v1},
		{"tojson", "--offset", "1", v1},
		{"tojson", cl}, {"meta", cl}, {"tojson", "--fields", "city,id", "--limit", "3", cl},
	}
	for _, c := range cases {
		file := c[len(c)-1]
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		code, want, errOut := v1run(t, c...)
		if code != 0 || want == "" {
			t.Fatalf("%q: %d %s", c, code, errOut)
		}
		if c[0] == "meta" {
			// The file length is the same; only a name could differ.
			want = strings.ReplaceAll(want, file, "-")
		}
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, in := range []io.Reader{bytes.NewReader(b), struct{ io.Reader }{bytes.NewReader(b)}, f} {
			args := append(slices.Clone(c[:len(c)-1]), "-")
			code, got, errOut := v1runStdin(t, in, args...)
			if code != 0 || got != want {
				t.Fatalf("%q from %T: %d %s\n%.300s\nwant\n%.300s", args, in, code, errOut, got, want)
			}
		}
	}
	// toavro makes a container of the file's records (its sync marker is
	// random, so the bytes differ from run to run).
	b, _ := os.ReadFile(v1)
	outAvro := filepath.Join(t.TempDir(), "out.avro")
	if code, _, errOut := v1runStdin(t, struct{ io.Reader }{bytes.NewReader(b)}, "toavro", "--quiet", "-", outAvro); code != 0 {
		t.Fatalf("toavro -: %d %s", code, errOut)
	}
	if a, _ := os.ReadFile(outAvro); !bytes.HasPrefix(a, []byte("Obj\x01")) || !bytes.Contains(a, []byte("col_9")) {
		t.Fatalf("toavro -: not a container of the file's schema")
	}
	// validate names standard input in its report.
	code, out, errOut := v1runStdin(t, struct{ io.Reader }{bytes.NewReader(b)}, "validate", "-")
	if code != 0 || !strings.Contains(out, "ok: 3 rows, 9 columns, 9 blocks checked (version 1)") {
		t.Fatalf("validate -: %d %s %s", code, out, errOut)
	}
}

// tojson --fields selects CLMN columns, and keeps them in column order as
// for any other format; on version-1 input it selects fields as it does
// on the version-2 file of the same records.
func TestCLMNToJSONFields(t *testing.T) {
	cl := filepath.Join("..", "..", "testdata", "clmn", "sample.clmn")
	code, out, errOut := v1run(t, "tojson", "--fields", "name,id", "--limit", "2", cl)
	want := `{"id":1,"name":"Catlee Haswall"}
{"id":2,"name":"Lazarus Brasseur"}
`
	if code != 0 || out != want {
		t.Fatalf("%d %s\n%s", code, errOut, out)
	}
	if code, _, errOut := v1run(t, "tojson", "--fields", "nope", cl); code != 1 || !strings.Contains(errOut, "nope") {
		t.Fatalf("unknown field: %d %s", code, errOut)
	}
	code, out, errOut = v1run(t, "tojson", "--fields", "col_9,col_2", filepath.Join(v1Dir, "impala_all_types.trv"))
	want = `{"col_2":{"int":-1},"col_9":{"string":"hi"}}
{"col_2":null,"col_9":null}
{"col_2":{"int":127},"col_9":{"string":""}}
`
	if code != 0 || out != want {
		t.Fatalf("--fields on a version-1 file: %d %s\n%s", code, errOut, out)
	}
	// A version-2 file not written from Avro has no fields to select.
	if code, _, errOut := v1run(t, "tojson", "--fields", "id", filepath.Join(interopDir, "tiny", "tiny_rle.trv")); code != exitError || !strings.Contains(errOut, "avro.schema") {
		t.Fatalf("--fields on a file without a schema: %d %s", code, errOut)
	}
}

// --impala-booleans reads Impala's short boolean blocks as its scanner
// did; without it they are an error naming the column and block.
func TestV1ImpalaBooleansFlag(t *testing.T) {
	quirk := filepath.Join(v1Dir, "impala_boolean_quirk.trv")
	if code, _, errOut := v1run(t, "tojson", quirk); code != 1 || !strings.Contains(errOut, `column "col_1" (#0), block 0`) {
		t.Fatalf("without the flag: %d %s", code, errOut)
	}
	code, out, errOut := v1run(t, "tojson", "--impala-booleans", quirk)
	if code != 0 || out != "{\"col_1\":null}\n{\"col_1\":{\"boolean\":false}}\n{\"col_1\":{\"boolean\":true}}\n" {
		t.Fatalf("with the flag: %d %s\n%s", code, errOut, out)
	}
	for _, cmd := range []string{"dump", "validate", "meta", "schema", "toavro"} {
		args := []string{cmd, "--impala-booleans", quirk}
		if cmd == "toavro" {
			args = append(args, filepath.Join(t.TempDir(), "out.avro"))
		}
		if code, _, errOut := v1run(t, args...); code != 0 {
			t.Fatalf("%s --impala-booleans: %d %s", cmd, code, errOut)
		}
	}
	// On other formats it changes nothing: a data set may mix them.
	tiny := filepath.Join(interopDir, "tiny", "tiny_rle.trv")
	_, want, _ := v1run(t, "dump", tiny)
	if code, out, errOut := v1run(t, "dump", "--impala-booleans", tiny); code != 0 || out != want || want == "" {
		t.Fatalf("on version 2: %d %s\n%s", code, errOut, out)
	}
}

// fromavro --version 1 --memory spills finished blocks to the output's
// private temporary directory: the file is the same, and nothing is left.
func TestV1FromAvroMemory(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(interopDir, "email", "input.avro")
	mem, spilled := filepath.Join(dir, "mem.trv"), filepath.Join(dir, "spilled.trv")
	if code, _, errOut := v1run(t, "fromavro", "--quiet", "--version", "1", "--codec", "snappy", in, mem); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := v1run(t, "fromavro", "--quiet", "--version", "1", "--codec", "snappy", "--memory", "1", in, spilled); code != 0 {
		t.Fatal(errOut)
	}
	a, _ := os.ReadFile(mem)
	b, _ := os.ReadFile(spilled)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("spilled output differs: %d and %d bytes", len(a), len(b))
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Fatalf("left in the output's directory: %v", ents)
	}
	if code, _, errOut := v1run(t, "fromavro", "--version", "1", "--memory", "lots", in, filepath.Join(dir, "x.trv")); code != exitUsage || !strings.Contains(errOut, "--memory") {
		t.Fatalf("bad --memory: %d %s", code, errOut)
	}
}

// tojson and toavro --schema on a version-1 file read its records through
// the reader schema (projection, promotion, defaults) exactly as from the
// version-2 file with the same records.
func TestV1ReaderSchema(t *testing.T) {
	dir := t.TempDir()
	v1 := filepath.Join(v1Dir, "impala_all_types.trv")
	rs := filepath.Join(dir, "r.avsc")
	os.WriteFile(rs, []byte(`{"type":"record","name":"Row","namespace":"trevni1","fields":[
		{"name":"col_9","type":["null","string"]},{"name":"col_2","type":["null","long"]},
		{"name":"extra","type":"string","default":"x"}]}`), 0o666)
	avro, v2 := filepath.Join(dir, "all.avro"), filepath.Join(dir, "all.v2.trv")
	for _, args := range [][]string{{"toavro", "--quiet", v1, avro}, {"fromavro", "--quiet", avro, v2}} {
		if code, _, errOut := v1run(t, args...); code != 0 {
			t.Fatalf("%q: %s", args, errOut)
		}
	}
	for _, extra := range [][]string{nil, {"--offset", "1", "--limit", "1"}, {"--pretty"}} {
		args := append(append([]string{"tojson", "--schema", rs}, extra...), v2)
		_, want, _ := v1run(t, args...)
		args[len(args)-1] = v1
		code, got, errOut := v1run(t, args...)
		if code != 0 || got != want || !strings.Contains(want, `"extra"`) {
			t.Fatalf("%q: %d %s\n%s\nwant\n%s", args, code, errOut, got, want)
		}
	}
	if !strings.HasPrefix(func() string { _, o, _ := v1run(t, "tojson", "--schema", rs, v1); return o }(), `{"col_9":{"string":"hi"},"col_2":{"long":-1},"extra":"x"}`) {
		t.Fatal("projection")
	}
	back := filepath.Join(dir, "back.avro")
	if code, _, errOut := v1run(t, "toavro", "--quiet", "--schema", rs, v1, back); code != 0 {
		t.Fatal(errOut)
	}
	v2b := filepath.Join(dir, "back.v2.trv")
	if code, _, errOut := v1run(t, "fromavro", "--quiet", back, v2b); code != 0 {
		t.Fatal(errOut)
	}
	_, got, _ := v1run(t, "tojson", v2b)
	_, want, _ := v1run(t, "tojson", "--schema", rs, v2)
	if got != want {
		t.Fatalf("toavro --schema:\n%s\nwant\n%s", got, want)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 5 {
		t.Fatalf("files left: %v", ents)
	}
	// A reader schema that does not match is an error, and leaves nothing.
	os.WriteFile(rs, []byte(`{"type":"record","name":"Row","namespace":"trevni1","fields":[{"name":"col_9","type":"int"}]}`), 0o666)
	out := filepath.Join(dir, "bad.jsonl")
	if code, _, errOut := v1run(t, "tojson", "--schema", rs, v1, out); code != 1 || !strings.Contains(errOut, "col_9") {
		t.Fatalf("mismatch: %d %s", code, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("output left")
	}
}

// tojson --where and --report work on CLMN input as on the Trevni file
// fromclmn makes of it: the same records, and a scan report.
func TestCLMNToJSONWhere(t *testing.T) {
	cl := filepath.Join("..", "..", "testdata", "clmn", "sample.clmn")
	trv := filepath.Join(t.TempDir(), "sample.trv")
	if code, _, errOut := v1run(t, "fromclmn", "--quiet", cl, trv); code != 0 {
		t.Fatal(errOut)
	}
	args := []string{"tojson", "--where", "age > 80 AND city = 'Stockholm'", "--report"}
	code, got, errOut := v1run(t, append(args, cl)...)
	_, want, _ := v1run(t, append(args, trv)...)
	if code != 0 || got != want || strings.Count(got, "\n") != 2 || !strings.Contains(got, `"name":"Salli Edgson"`) {
		t.Fatalf("%d %s\n%s\nwant\n%s", code, errOut, got, want)
	}
	if !strings.Contains(errOut, "1,000 rows scanned, 2 rows matched") {
		t.Fatalf("no scan report: %s", errOut)
	}
}

// The commands read every format through the front door. The truth for a
// Trevni 1 file is the Trevni 2 file of the same records (toavro then
// fromavro: TestV1FromAvro shows that round trip keeps them), read by the
// same commands.

// v1AndV2 returns the Trevni 1 vector and the Trevni 2 file of its
// records, made in a temporary directory.
func v1AndV2(t *testing.T) (v1, v2 string) {
	t.Helper()
	dir := t.TempDir()
	v1 = filepath.Join(v1Dir, "impala_all_types.trv")
	avro, v2 := filepath.Join(dir, "all.avro"), filepath.Join(dir, "all.trv")
	for _, args := range [][]string{{"toavro", "--quiet", v1, avro}, {"fromavro", "--quiet", avro, v2}} {
		if r := runIn(t, nil, args...); r.code != 0 {
			t.Fatalf("%q: %s", args, r.stderr)
		}
	}
	return v1, v2
}

// TestV1RecordCommands: count, head, tojson --where and --fields on a
// Trevni 1 file give what they give on the Trevni 2 file of its records.
// (count failed with "unknown value type fixed8", head with "no
// avro.schema", and tojson --where wrote every record.)
func TestV1RecordCommands(t *testing.T) {
	v1, v2 := v1AndV2(t)
	for _, args := range [][]string{
		{"count"},
		{"count", "--where", "col_2 > 0"},
		{"count", "--where", "col_9 = 'hi' OR col_5 < 0"},
		{"head", "--plain=false", "-n", "2"},
		{"head", "--plain=false", "-n", "1", "--where", "col_1 = false"},
		{"tojson", "--where", "col_2 > 0"},
		{"tojson", "--where", "col_2 IS NULL", "--fields", "col_3,col_9"},
		{"tojson", "--offset", "1", "--limit", "1", "--fields", "col_6"},
		{"tojson", "--limit", "0"},
	} {
		want := runIn(t, nil, append(args, v2)...)
		got := runIn(t, nil, append(args, v1)...)
		if want.code != 0 || got.code != 0 || got.stdout != want.stdout {
			t.Errorf("%q: status %d %s\n%s\nwant (version 2: %d %s)\n%s", args, got.code, got.stderr, got.stdout, want.code, want.stderr, want.stdout)
		}
	}
	// The values themselves, against the vector's known records.
	if r := runIn(t, nil, "count", v1); r.stdout != "3\n" {
		t.Errorf("count: %q %s", r.stdout, r.stderr)
	}
	if r := runIn(t, nil, "count", "--where", "col_2 > 0", v1); r.stdout != "1\n" {
		t.Errorf("count --where: %q %s", r.stdout, r.stderr)
	}
	r := runIn(t, nil, "tojson", "--where", "col_2 > 0", v1)
	if len(lines(r.stdout)) != 1 || !strings.Contains(r.stdout, `"col_2":{"int":127}`) {
		t.Errorf("tojson --where: %q %s", r.stdout, r.stderr)
	}
	// A bad --where is a usage error with its caret, as on version 2.
	if r := runIn(t, nil, "tojson", "--where", "col_2 >", v1); r.code != exitUsage || !strings.Contains(r.stderr, "--where") {
		t.Errorf("bad --where: %d %s", r.code, r.stderr)
	}
}

// TestCLMNSchemaAndValidate: schema prints a CLMN file's record, the one
// its Trevni copy stores; validate reads every row, and a file cut short
// fails, naming it.
func TestCLMNSchemaAndValidate(t *testing.T) {
	cl := filepath.Join("..", "..", "testdata", "clmn", "sample.clmn")
	dir := t.TempDir()
	trv := filepath.Join(dir, "sample.trv")
	if r := runIn(t, nil, "fromclmn", "--quiet", cl, trv); r.code != 0 {
		t.Fatal(r.stderr)
	}
	got, want := runIn(t, nil, "schema", cl), runIn(t, nil, "schema", trv)
	if got.code != 0 || got.stdout != want.stdout || !strings.Contains(got.stdout, `"salary"`) {
		t.Errorf("schema: %d %s\n%s\nwant\n%s", got.code, got.stderr, got.stdout, want.stdout)
	}
	if r := runIn(t, nil, "validate", cl); r.code != 0 || r.stdout != cl+": ok: 1000 rows, 6 columns checked (CLMN)\n" {
		t.Errorf("validate: %d %s %q", r.code, r.stderr, r.stdout)
	}
	b := readFile(t, cl)
	cut := filepath.Join(dir, "cut.clmn")
	writeFileT(t, cut, b[:len(b)-100])
	if r := runIn(t, nil, "validate", cut); r.code != exitError || !strings.Contains(r.stderr, cut) {
		t.Errorf("validate of a cut file: %d %s %q", r.code, r.stderr, r.stdout)
	}
}

// TestFlagsReachFrontDoor: --max-record-size reaches the front door's
// readers for every format (a budget below the first record stops it,
// naming the flag), and without it the same records read.
func TestFlagsReachFrontDoor(t *testing.T) {
	for _, in := range []string{
		filepath.Join(interopDir, "email", "email.deflate.crc32.trv"),
		filepath.Join(v1Dir, "impala_all_types.trv"),
		filepath.Join("..", "..", "testdata", "clmn", "sample.clmn"),
	} {
		r := runIn(t, nil, "tojson", "--max-record-size", "16", in)
		if r.code != exitError || r.stdout != "" || !strings.Contains(r.stderr, in+": record 0") || !strings.Contains(r.stderr, "--max-record-size") {
			t.Errorf("%s: %d %q %s", in, r.code, r.stdout, r.stderr)
		}
		if r := runIn(t, nil, "tojson", "--max-record-size", "1MiB", in); r.code != 0 || r.stdout == "" {
			t.Errorf("%s with room: %d %s", in, r.code, r.stderr)
		}
	}
}
