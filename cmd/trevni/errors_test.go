package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EBadDataMessages runs every command on bad data: each fails with
// status 1 (bad data is not a usage error), one line "trevni: COMMAND:
// FILE: ..." naming the bad file, no package prefix of the library, no
// stack trace, and no longer than the cap.
func TestE2EBadDataMessages(t *testing.T) {
	dir := t.TempDir()
	email := filepath.Join(interopDir, "email", "email.deflate.crc32.trv")
	avro := filepath.Join(interopDir, "email", "input.avro")
	avsc := filepath.Join(interopDir, "email", "schema.avsc")
	zero := filepath.Join(dir, "zero.trv") // a Trevni file with no columns and no schema
	writeFileT(t, zero, append([]byte("Trv\x02"), 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
	garbage := filepath.Join(dir, "garbage")
	writeFileT(t, garbage, []byte(strings.Repeat("garbage\n", 50)))
	badLine := filepath.Join(dir, "bad.jsonl")
	writeFileT(t, badLine, []byte("{\"nosuch\": 1}\n"))
	deep := filepath.Join(dir, "deep.avsc") // a 10,000-deep bad schema
	writeFileT(t, deep, []byte(`{"type":"record","name":"R","fields":[{"name":"f","type":`+
		strings.Repeat(`{"type":"array","items":`, 10000)+`"nosuch"`+strings.Repeat("}", 10000)+"}]}"))
	badProto := filepath.Join(dir, "bad.proto")
	writeFileT(t, badProto, []byte("syntax = \"proto3\";\nmessage M { nosuch x = 1; }\n"))
	out := func(name string) string { return filepath.Join(dir, name) }
	for _, c := range []struct {
		args []string
		file string // the file the message must name
	}{
		{[]string{"fromavro", email, out("a.trv")}, email},
		{[]string{"fromavro", avro, garbage, out("a.trv")}, garbage},
		{[]string{"toavro", zero, out("a.avro")}, zero},
		{[]string{"toavro", garbage, out("a.avro")}, garbage},
		{[]string{"tojson", zero}, zero},
		{[]string{"tojson", "--schema", garbage, email}, garbage},
		{[]string{"tojson", "--schema", deep, email}, deep},
		{[]string{"fromjson", "--schema", deep, badLine, out("a.trv")}, deep},
		{[]string{"fromjson", "--schema", avsc, badLine, out("a.trv")}, badLine},
		{[]string{"fromjson", "--schema", avsc, garbage, out("a.trv")}, garbage},
		{[]string{"random", deep, "3", out("a.trv")}, deep},
		{[]string{"fromproto", "--proto", badProto, "--message", "M", garbage, out("a.trv")}, "bad.proto:2:"}, // as imported
		{[]string{"fromproto", "--descriptor-set", garbage, "--message", "M", garbage, out("a.trv")}, garbage},
		{[]string{"fromproto", "--message", "google.protobuf.Duration", garbage, out("a.trv")}, garbage},
		{[]string{"toproto", email, out("a.bin")}, email},
		{[]string{"schema", zero}, zero},
		{[]string{"schema", "--proto", email}, email},
		{[]string{"meta", garbage}, garbage},
		{[]string{"dump", garbage}, garbage},
		{[]string{"validate", garbage}, garbage},
		{[]string{"dump", out("missing.trv")}, out("missing.trv") + ": cannot open: "},
		{[]string{"tojson", "--schema", out("missing.avsc"), email}, out("missing.avsc") + ": cannot open: "},
		{[]string{"dump", email, out("nodir/x.jsonl")}, out("nodir/x.jsonl") + ": cannot create: "},
	} {
		r := runBin(t, nil, c.args...)
		t.Logf("%q: %s", c.args, strings.TrimSpace(r.stderr))
		checkOneLineError(t, r, c.args[0])
		if !strings.Contains(r.stderr, c.file) {
			t.Errorf("%q: the message does not name %s", c.args, c.file)
		}
	}
	if names := dirNames(t, dir); len(names) != 5 {
		t.Errorf("files left: %q", names)
	}
}

// TestE2EFromJSONBadText checks that fromjson refuses strings that are not
// UTF-8 or hold a lone surrogate, naming the line and the field, and writes
// nothing.
func TestE2EFromJSONBadText(t *testing.T) {
	dir := t.TempDir()
	avsc := filepath.Join(dir, "s.avsc")
	writeFileT(t, avsc, []byte(`{"type":"record","name":"R","fields":[{"name":"id","type":"int"},{"name":"tags","type":{"type":"array","items":"string"}}]}`))
	for _, c := range []struct{ line, want string }{
		{"{\"id\":1,\"tags\":[\"ok\",\"\xff\"]}", "in.jsonl:2: tags[1]: a string holds byte 0xff"},
		{`{"id":1,"tags":["\ud800"]}`, `in.jsonl:2: tags[0]: the escape \ud800 is a lone surrogate`},
	} {
		in := filepath.Join(dir, "in.jsonl")
		writeFileT(t, in, []byte("{\"id\":0,\"tags\":[\"\\ud83d\\ude00\"]}\n"+c.line+"\n"))
		r := runBin(t, nil, "fromjson", "--schema", avsc, in, filepath.Join(dir, "out.trv"))
		checkOneLineError(t, r, "fromjson")
		if !strings.Contains(r.stderr, c.want) {
			t.Errorf("stderr %q lacks %q", r.stderr, c.want)
		}
		if names := dirNames(t, dir); len(names) != 2 {
			t.Errorf("files: %q", names)
		}
	}
}
