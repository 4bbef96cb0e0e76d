package main

import (
	"bufio"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tojson --plain prints bytes in base64 where Java's dump of the same file
// (testdata/interop/primitives/dump.jsonl, bytes in hex) has hex; every
// other field of the vector equals Java's Avro JSON (no unions, no
// logical types). head prints the same by default.
func TestPlainJSON(t *testing.T) {
	const dir = "../../testdata/interop/primitives/"
	r := runIn(t, nil, "tojson", "--plain", dir+"primitives.snappy.crc32.trv")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	f, err := os.Open(dir + "dump.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	got := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	k := 0
	for ; sc.Scan(); k++ {
		var java, plain map[string]any
		if err := json.Unmarshal(sc.Bytes(), &java); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(got[k]), &plain); err != nil {
			t.Fatalf("line %d: %v: %s", k, err, got[k])
		}
		raw, err := hex.DecodeString(java["by"].(string))
		if err != nil {
			t.Fatal(err)
		}
		if plain["by"] != base64.StdEncoding.EncodeToString(raw) {
			t.Fatalf("line %d: by %v, want base64 of %x", k, plain["by"], raw)
		}
		for _, f := range []string{"n", "b", "i", "l", "s"} {
			if jf, _ := json.Marshal(java[f]); string(jf) != mustJSON(plain[f]) {
				t.Fatalf("line %d: %s %v, Java %v", k, f, plain[f], java[f])
			}
		}
	}
	if k != len(got) || k == 0 {
		t.Fatalf("%d plain lines, Java dumped %d", len(got), k)
	}
	h := runIn(t, nil, "head", "-n", "5", dir+"primitives.snappy.crc32.trv")
	if h.code != 0 || h.stdout != strings.Join(got[:5], "\n")+"\n" {
		t.Fatalf("head differs from tojson --plain: %+v", h)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// fromjson --plain reads back what tojson --plain writes of Java's files:
// the plain JSON of the records read back is the same, and their Avro JSON
// equals that of Java's files, but for the union of "unions" whose string,
// enum, fixed and bytes branches plain JSON cannot tell apart.
func TestFromJSONPlainInterop(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"email", "unions", "maps", "enum_fixed_bytes", "nested_records", "primitives", "booleans", "medium"} {
		trvs, err := filepath.Glob(filepath.Join(interopDir, name, "*.snappy.crc32.trv"))
		if err != nil || len(trvs) == 0 {
			t.Fatalf("%s: no file: %v", name, err)
		}
		plain := filepath.Join(dir, name+".jsonl")
		r := runIn(t, nil, "tojson", "--plain", trvs[0], plain)
		if r.code != 0 {
			t.Fatalf("%s: %+v", name, r)
		}
		back := filepath.Join(dir, name+".trv")
		r = runIn(t, nil, "fromjson", "--quiet", "--plain", "--schema", filepath.Join(interopDir, name, "schema.avsc"), plain, back)
		if r.code != 0 {
			t.Fatalf("fromjson --plain %s: %+v", name, r)
		}
		if again := runIn(t, nil, "tojson", "--plain", back); again.code != 0 || again.stdout != string(mustRead(t, plain)) {
			t.Errorf("fromjson --plain %s: plain JSON differs:\n%.300s", name, again.stdout)
		}
		if name == "unions" {
			continue
		}
		want, got := runIn(t, nil, "tojson", trvs[0]), runIn(t, nil, "tojson", back)
		if want.code != 0 || got.stdout != want.stdout {
			t.Errorf("fromjson --plain %s: records differ:\n%.300s\nwant\n%.300s", name, got.stdout, want.stdout)
		}
	}
}

// fromjson --infer infers a schema from plain JSON lines (from standard
// input too), --print-schema prints it, and the file written reads back
// as the lines with absent fields null.
func TestFromJSONInfer(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	lines := "{\"id\":1,\"name\":\"ann\",\"score\":2.5,\"tags\":[\"a\"]}\n\n" +
		"{\"id\":2,\"score\":3,\"tags\":[],\"addr\":{\"city\":\"Oslo\"}}\n"
	writeFileT(t, in, []byte(lines))
	r := runIn(t, nil, "fromjson", "--infer", "--print-schema", in, "-")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	var s struct {
		Fields []struct {
			Name string
			Type any
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	var names []string
	for _, f := range s.Fields {
		names = append(names, f.Name+":"+mustJSON(f.Type))
	}
	want := `id:"long" name:["null","string"] score:"double" tags:{"items":"string","type":"array"} ` +
		`addr:["null",{"fields":[{"name":"city","type":"string"}],"name":"Row_addr","type":"record"}]`
	if strings.Join(names, " ") != want {
		t.Errorf("schema fields\n%s\nwant\n%s", strings.Join(names, " "), want)
	}
	wantLines := "{\"id\":1,\"name\":\"ann\",\"score\":2.5,\"tags\":[\"a\"],\"addr\":null}\n" +
		"{\"id\":2,\"name\":null,\"score\":3,\"tags\":[],\"addr\":{\"city\":\"Oslo\"}}\n"
	for _, stdin := range []bool{false, true} {
		out := filepath.Join(dir, "out.trv")
		var r result
		if stdin {
			r = runIn(t, strings.NewReader(lines), "fromjson", "--quiet", "--force", "--infer", "-", out)
		} else {
			r = runIn(t, nil, "fromjson", "--quiet", "--infer", in, out)
		}
		if r.code != 0 {
			t.Fatalf("%+v", r)
		}
		if got := runIn(t, nil, "tojson", "--plain", out); got.stdout != wantLines {
			t.Errorf("stdin %v: read back\n%s\nwant\n%s", stdin, got.stdout, wantLines)
		}
	}
	for _, args := range [][]string{
		{"fromjson", "--infer", "--schema", in, in, filepath.Join(dir, "x.trv")},
		{"fromjson", "--print-schema", "--schema", in, in, filepath.Join(dir, "x.trv")},
		{"fromjson", in, filepath.Join(dir, "x.trv")},
	} {
		if r := runIn(t, nil, args...); r.code != 2 {
			t.Errorf("%q: %+v", args, r)
		}
	}
	bad := filepath.Join(dir, "bad.jsonl")
	writeFileT(t, bad, []byte("{\"a\":1}\n[1]\n"))
	r = runIn(t, nil, "fromjson", "--infer", bad, filepath.Join(dir, "x.trv"))
	if r.code != 1 || !strings.Contains(r.stderr, "bad.jsonl:2") {
		t.Errorf("%+v", r)
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
