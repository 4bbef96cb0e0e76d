package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// doublingSchema is a record with two fields of the record before it,
// depth levels deep: a schema of depth*100 bytes with 2^depth columns.
func doublingSchema(depth int) string {
	text := `{"type":"record","name":"R0","fields":[{"name":"x","type":"int"}]}`
	for i := 1; i <= depth; i++ {
		text = fmt.Sprintf(`{"type":"record","name":"R%d","fields":[{"name":"a","type":%s},{"name":"b","type":"R%d"}]}`, i, text, i-1)
	}
	return text
}

// TestHostileExponentialLayout: a small schema claiming 2^26 columns, as a
// file's avro.schema, as an .avsc for fromjson and as a .proto for
// fromproto, is refused at once with the limit named.
func TestHostileExponentialLayout(t *testing.T) {
	dir := t.TempDir()
	text := doublingSchema(26)
	file := buildTrevni(1, [][2]string{{"trevni.codec", "null"}, {"avro.schema", text}}, nil)
	if len(file) > 4096 {
		t.Fatalf("the hostile file is %d bytes", len(file))
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("big.trv", file)
	write("big.avsc", []byte(text))
	write("in.jsonl", []byte("{}\n"))
	var proto strings.Builder
	proto.WriteString("syntax = \"proto3\";\npackage p;\nmessage M0 { int32 x = 1; }\n")
	for i := 1; i <= 26; i++ {
		fmt.Fprintf(&proto, "message M%d { M%d a = 1; M%d b = 2; }\n", i, i-1, i-1)
	}
	write("big.proto", []byte(proto.String()))
	keep := []string{"big.trv", "big.avsc", "in.jsonl", "big.proto"}

	for _, args := range [][]string{
		{"tojson", "big.trv", "out.jsonl"},
		{"toavro", "big.trv", "out.avro"},
		{"validate", "big.trv"},
		{"fromjson", "--schema", "big.avsc", "in.jsonl", "out.trv"},
		{"random", "big.avsc", "1", "out.trv"},
		{"fromproto", "--proto", "big.proto", "--message", "p.M26", "in.jsonl", "out.trv"},
	} {
		r := runLimited(t, dir, 20*time.Second, nil, args...)
		checkHostile(t, r, args[0], "too large", dir, keep...)
	}
}

// deepUnionSchema nests n unions, each the items of an array in the next.
func deepUnionSchema(n int) string {
	return strings.Repeat(`["null",{"type":"array","items":`, n) + `"int"` + strings.Repeat(`}]`, n)
}

// TestHostileDeepSchemas: unions nested 25,000 deep (50 KB) and an ignored
// property nested 30 million deep (60 MB) are refused with a short error,
// without exhausting memory or the stack.
func TestHostileDeepSchemas(t *testing.T) {
	dir := t.TempDir()
	n := 30_000_000
	if testing.Short() {
		n = 1_000_000
	}
	schemas := map[string]string{
		"unions.avsc": deepUnionSchema(25000),
		"prop.avsc":   `{"type":"int","x":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`,
	}
	keep := []string{"in.jsonl"}
	if err := os.WriteFile(filepath.Join(dir, "in.jsonl"), []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, text := range schemas {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		keep = append(keep, name)
	}
	for name := range schemas {
		r := runLimited(t, dir, 20*time.Second, nil, "fromjson", "--schema", name, "in.jsonl", "out.trv")
		checkHostile(t, r, "fromjson", "MaxDepth", dir, keep...)
		if len(r.stderr) > 4096 {
			t.Errorf("%s: error of %d bytes", name, len(r.stderr))
		}
	}
	// The same deep schema stored in a file's metadata.
	file := buildTrevni(1, [][2]string{{"trevni.codec", "null"}, {"avro.schema", deepUnionSchema(25000)}}, nil)
	if err := os.WriteFile(filepath.Join(dir, "deep.trv"), file, 0o644); err != nil {
		t.Fatal(err)
	}
	keep = append(keep, "deep.trv")
	r := runLimited(t, dir, 20*time.Second, nil, "tojson", "deep.trv", "out.jsonl")
	checkHostile(t, r, "tojson", "MaxDepth", dir, keep...)
}

// TestHostileConcatSchemas: files whose column is an Avro int in one and
// an enum in the other are not joined, in either order, and the error
// names both files and the field.
func TestHostileConcatSchemas(t *testing.T) {
	dir := t.TempDir()
	keep := writeFiles(t, dir, map[string][]byte{
		"int.avsc":   []byte(`{"type":"record","name":"R","fields":[{"name":"x","type":"int"}]}`),
		"enum.avsc":  []byte(`{"type":"record","name":"R","fields":[{"name":"x","type":{"type":"enum","name":"E","symbols":["X","Y"]}}]}`),
		"int.jsonl":  []byte(`{"x":1}` + "\n"),
		"enum.jsonl": []byte(`{"x":"Y"}` + "\n"),
	})
	for _, kind := range []string{"int", "enum"} {
		r := runLimited(t, dir, 20*time.Second, nil, "fromjson", "--schema", kind+".avsc", kind+".jsonl", kind+".trv")
		if r.code != 0 {
			t.Fatalf("fromjson: %+v", r.result)
		}
		keep = append(keep, kind+".trv")
	}
	for _, order := range [][2]string{{"int.trv", "enum.trv"}, {"enum.trv", "int.trv"}} {
		r := runLimited(t, dir, 20*time.Second, nil, "concat", order[0], order[1], "out.trv")
		checkHostile(t, r, "concat", `x: `, dir, keep...)
		if !strings.Contains(r.stderr, order[0]) || !strings.Contains(r.stderr, order[1]) || !strings.Contains(r.stderr, "enum E") {
			t.Errorf("concat %s %s: %s", order[0], order[1], r.stderr)
		}
	}
}

// fromproto --input json refuses a message nested deeper than --max-depth
// (what toproto could not give back), and a line over the message size
// bound, in bounded memory; toproto takes the same --max-depth.
func TestHostileProtoJSON(t *testing.T) {
	dir := t.TempDir()
	deep := func(levels int) []byte {
		return []byte(strings.Repeat(`{"v":`, levels) + "1" + strings.Repeat("}", levels) + "\n")
	}
	write := func(name string, b []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("deep.jsonl", deep(4000))
	write("deeper.jsonl", deep(3500))
	var wide bytes.Buffer
	wide.WriteString("{")
	for i := 0; wide.Len() < 5<<20; i++ {
		fmt.Fprintf(&wide, `"k%d":{"a":[1,"x",true]},`, i)
	}
	wide.WriteString(`"end":1}` + "\n")
	write("wide.jsonl", wide.Bytes())
	keep := []string{"deep.jsonl", "deeper.jsonl", "wide.jsonl"}

	r := runLimited(t, dir, 60*time.Second, nil, "fromproto", "--message", "google.protobuf.Struct", "--input", "json", "deep.jsonl", "o.trv")
	checkHostile(t, r, "fromproto", "--max-depth", dir, keep...)
	r = runLimited(t, dir, 60*time.Second, nil, "fromproto", "--message", "google.protobuf.Struct", "--input", "json", "wide.jsonl", "o.trv")
	checkHostile(t, r, "fromproto", "--max-record-size", dir, keep...)

	// Raised on both sides, the limit lets a message through that
	// protobuf's own recursion limit (10,000) would refuse on output.
	r = runLimited(t, dir, 60*time.Second, nil, "fromproto", "--max-depth", "11000", "--message", "google.protobuf.Struct", "--input", "json", "deeper.jsonl", "o.trv")
	if r.code != 0 {
		t.Fatalf("fromproto --max-depth 11000: %s", r.stderr)
	}
	r = runLimited(t, dir, 60*time.Second, nil, "toproto", "--max-depth", "11000", "--output", "json", "o.trv", "-")
	if r.code != 0 || strings.Count(r.stdout, `"v"`) != 3500 {
		t.Errorf("toproto --max-depth 11000: %s", r.stderr)
	}
}
