package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFieldsBySourceName selects fields by the names the data had
// (@timestamp, log.level, http.user-agent: JSON keys that are not Avro
// names) with --fields in every command that takes it and with --where
// (quoted: "log.level"), and checks that each gives what the Avro names
// give; a name that is one field's Avro name and another's source name
// is refused naming both.
func TestFieldsBySourceName(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "log.jsonl")
	writeFileT(t, in, []byte(`{"@timestamp":"2024-03-10T07:00:00.000Z","log.level":"info","http":{"status":200,"user-agent":"curl/8"},"n":1}
{"@timestamp":"2024-03-10T07:00:01.000Z","log.level":"warn","http":{"status":404,"user-agent":"Go"},"n":2}
{"@timestamp":"2024-03-10T07:00:02.000Z","log.level":"warn","http":null,"n":3}
`))
	trv := filepath.Join(dir, "log.trv")
	if r := runBin(t, nil, "fromjson", "--quiet", "--infer", in, trv); r.code != 0 {
		t.Fatal(r)
	}
	run := func(args ...string) string {
		t.Helper()
		r := runBin(t, nil, args...)
		if r.code != 0 {
			t.Fatalf("%v: %+v", args, r)
		}
		return r.stdout
	}
	bySource, byAvro := "@timestamp,log.level,http.user-agent", "_timestamp,log_level,http.user_agent"
	for _, cmd := range [][]string{{"head"}, {"tojson"}, {"tojson", "--plain"}, {"tocsv"}, {"toclmn"}, {"dump"}} {
		var a, b string
		if cmd[0] == "toclmn" {
			a, b = filepath.Join(dir, "a.clmn"), filepath.Join(dir, "b.clmn")
			run(append(cmd, "--quiet", "--fields", "log.level,n", trv, a)...)
			run(append(cmd, "--quiet", "--fields", "log_level,n", trv, b)...)
			a, b = run("tocsv", a), run("tocsv", b)
		} else {
			a = run(append(cmd, "--fields", bySource, trv)...)
			b = run(append(cmd, "--fields", byAvro, trv)...)
		}
		if a != b || a == "" {
			t.Errorf("%v --fields %s:\n%s\nby the Avro names:\n%s", cmd, bySource, a, b)
		}
	}
	if got := run("head", "--fields", bySource, trv); !strings.Contains(got, `{"@timestamp":"2024-03-10T07:00:00.000Z","log.level":"info","http":{"user-agent":"curl/8"}}`) {
		t.Errorf("head --fields %s:\n%s", bySource, got)
	}
	for _, cmd := range []string{"toparquet", "toarrow", "toavro"} {
		a, b := filepath.Join(dir, "a-"+cmd), filepath.Join(dir, "b-"+cmd)
		run(cmd, "--quiet", "--fields", bySource, trv, a)
		run(cmd, "--quiet", "--fields", byAvro, trv, b)
		if cmd == "toavro" {
			// Container files differ in their sync markers: compare records.
			a, b = filepath.Join(dir, "a.trv"), filepath.Join(dir, "b.trv")
			run("fromavro", "--quiet", "--force", filepath.Join(dir, "a-"+cmd), a)
			run("fromavro", "--quiet", "--force", filepath.Join(dir, "b-"+cmd), b)
			if x, y := run("tojson", a), run("tojson", b); x != y {
				t.Errorf("toavro --fields %s: %s\nby the Avro names: %s", bySource, x, y)
			}
			continue
		}
		if string(readFile(t, a)) != string(readFile(t, b)) {
			t.Errorf("%s --fields %s writes another file than by the Avro names", cmd, bySource)
		}
	}
	// --where: a quoted name is one segment, a source name with dots.
	for _, where := range [][2]string{
		{`"log.level" = 'warn'`, `log_level = 'warn'`},
		{`"@timestamp" > '2024-03-10T07:00:00Z'`, `_timestamp > '2024-03-10T07:00:00Z'`},
		{`http."user-agent" = 'Go'`, `http.user_agent = 'Go'`},
	} {
		for _, cmd := range [][]string{{"count"}, {"head", "--fields", "n"}, {"tojson", "--fields", "n"}} {
			a := run(append(cmd, "--where", where[0], trv)...)
			b := run(append(cmd, "--where", where[1], trv)...)
			if a != b || a == "" {
				t.Errorf("%v --where %s: %q, by the Avro names %q", cmd, where[0], a, b)
			}
		}
	}
	if got := run("count", "--where", `"log.level" = 'warn'`, trv); strings.TrimSpace(got) != "2" {
		t.Errorf("count --where: %q", got)
	}
	// _timestamp is one key's Avro name and another's source name.
	amb := filepath.Join(dir, "amb.jsonl")
	writeFileT(t, amb, []byte(`{"@timestamp":"a","_timestamp":"b"}`+"\n"))
	ambTrv := filepath.Join(dir, "amb.trv")
	if r := runBin(t, nil, "fromjson", "--quiet", "--infer", amb, ambTrv); r.code != 0 {
		t.Fatal(r)
	}
	for _, args := range [][]string{{"head", "--fields", "_timestamp"}, {"tocsv", "--fields", "_timestamp"}, {"count", "--where", "_timestamp = 'a'"}} {
		r := runBin(t, nil, append(args, ambTrv)...)
		if r.code == 0 || !strings.Contains(r.stderr, "_timestamp") || !strings.Contains(r.stderr, "_timestamp_2") {
			t.Errorf("%v: %+v, want an error naming _timestamp and _timestamp_2", args, r)
		}
		if args[1] == "--fields" { // --where's errors show the expression with a caret
			checkOneLineError(t, r, args[0])
		}
	}
	if got := run("head", "--fields", "@timestamp", ambTrv); strings.TrimSpace(got) != `{"@timestamp":"a"}` {
		t.Errorf("head --fields @timestamp: %q", got)
	}
}
