package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format"
)

// TestMetaInterop compares meta --blocks with every interop *.meta.json:
// every value Java's tool shows must be there, equal, with object keys in
// the same order.
func TestMetaInterop(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(interopDir, "*", "*.meta.json"))
	if err != nil || len(files) < 10 {
		t.Fatalf("interop meta files: %v, %v", files, err)
	}
	for _, metaFile := range files {
		trv := strings.TrimSuffix(metaFile, ".meta.json") + ".trv"
		t.Run(strings.TrimPrefix(trv, interopDir+"/"), func(t *testing.T) {
			want := string(readFile(t, metaFile))
			r := runIn(t, nil, "meta", "--blocks", trv)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit status %d, stderr %s", r.code, r.stderr)
			}
			if strings.Count(r.stdout, "\n") != 1 {
				t.Errorf("compact output is not one line")
			}
			if d := jsonDiff(decodeJSON(t, r.stdout), decodeJSON(t, want), true, "$"); d != "" {
				t.Fatal(d)
			}
			if got, want := objectKeys(t, r.stdout), objectKeys(t, want); !isSubsequence(want, got) {
				t.Errorf("key order:\n got %q\nwant %q", got, want)
			}
			// Without --blocks, the same but the blocks.
			r = runIn(t, nil, "meta", trv)
			got := decodeJSON(t, r.stdout).(map[string]any)
			for _, c := range got["columns"].([]any) {
				if _, ok := c.(map[string]any)["blocks"]; ok {
					t.Fatal("blocks listed without --blocks")
				}
			}
			// --pretty is the same JSON, indented.
			pretty := runIn(t, nil, "meta", "--pretty", "--blocks", trv)
			var compact bytes.Buffer
			if err := json.Compact(&compact, []byte(pretty.stdout)); err != nil {
				t.Fatal(err)
			}
			if compact.String() != strings.TrimSpace(runIn(t, nil, "meta", "--blocks", trv).stdout) {
				t.Error("--pretty differs from the compact output")
			}
			if !strings.Contains(pretty.stdout, "\n  \"rowCount\": ") {
				t.Error("--pretty is not indented")
			}
		})
	}
}

// objectKeys lists every object key of a JSON text in order of appearance.
func objectKeys(t testing.TB, s string) []string {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	var keys []string
	var inObject []bool // per open container: is it an object
	expectKey := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return keys
		}
		if err != nil {
			t.Fatal(err)
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				inObject = append(inObject, true)
				expectKey = true
				continue
			case '[':
				inObject = append(inObject, false)
				expectKey = false
				continue
			default:
				inObject = inObject[:len(inObject)-1]
			}
		case string:
			if expectKey {
				keys = append(keys, v)
				expectKey = false
				continue
			}
		}
		expectKey = len(inObject) > 0 && inObject[len(inObject)-1]
	}
}

// isSubsequence reports whether sub appears in s in order.
func isSubsequence(sub, s []string) bool {
	i := 0
	for _, x := range s {
		if i < len(sub) && sub[i] == x {
			i++
		}
	}
	return i == len(sub)
}

// writeTrevni writes a small Trevni file with the given metadata and
// columns, and returns its path.
func writeTrevni(t testing.TB, dir string, meta format.MetaData, cols []format.ColumnMeta, rows [][]any) string {
	t.Helper()
	var buf bytes.Buffer
	w, err := format.NewWriter(&buf, cols, &format.WriterOptions{Codec: "deflate", Checksum: "crc32", Meta: meta})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		if err := w.WriteRow(row...); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "test.trv")
	if err := os.WriteFile(name, buf.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestMetaValues checks the representation of metadata that is not UTF-8,
// of first values, and of column flags.
func TestMetaValues(t *testing.T) {
	var meta format.MetaData
	meta.Set("user.bin", []byte{0xff, 0x00, 0x41})
	meta.SetString("user.text", "café <&> \u2028")
	meta.SetString("user.empty", "")
	var colMeta format.MetaData
	colMeta.Set("user.raw", []byte{0xc3})
	cols := []format.ColumnMeta{
		{Name: "b", Type: format.Bytes, Values: true, Meta: colMeta},
		{Name: "d", Type: format.Double, Values: true},
	}
	file := writeTrevni(t, t.TempDir(), meta, cols, [][]any{{[]byte{1, 2}, 1.5}, {[]byte{3}, 2.0}})
	r := runIn(t, nil, "meta", "--blocks", file)
	if r.code != 0 {
		t.Fatalf("exit status %d: %s", r.code, r.stderr)
	}
	got := decodeJSON(t, r.stdout).(map[string]any)
	wantMeta := map[string]any{
		"trevni.codec": "deflate", "trevni.checksum": "crc32",
		"user.bin":  map[string]any{"hex": "ff0041"},
		"user.text": "café <&> \u2028", "user.empty": "",
	}
	if !reflect.DeepEqual(got["metadata"], wantMeta) {
		t.Errorf("metadata: got %v, want %v", got["metadata"], wantMeta)
	}
	c0 := got["columns"].([]any)[0].(map[string]any)
	if m := c0["metadata"].(map[string]any); !reflect.DeepEqual(m["user.raw"], map[string]any{"hex": "c3"}) {
		t.Errorf("column metadata: %v", m)
	}
	if c0["values"] != true || c0["parent"] != nil {
		t.Errorf("column 0: %v", c0)
	}
	if fv := c0["blocks"].([]any)[0].(map[string]any)["firstValue"]; fv != "0102" {
		t.Errorf("bytes first value %v, want hex 0102", fv)
	}
	c1 := got["columns"].([]any)[1].(map[string]any)
	if fv := c1["blocks"].([]any)[0].(map[string]any)["firstValue"]; fv != json.Number("1.5") {
		t.Errorf("double first value %v, want 1.5", fv)
	}
	// Escaped as Java's Jackson escapes (avrojson.AppendString): <, >, &
	// and U+2028 as they are.
	if !strings.Contains(r.stdout, "\"user.text\":\"café <&> \u2028\"") {
		t.Errorf("strings not written as expected: %s", r.stdout)
	}
}

func TestMetaOutputFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "meta.json")
	r := runIn(t, nil, "meta", tinyRLE, out)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("got %+v", r)
	}
	want := runIn(t, nil, "meta", tinyRLE, "-").stdout
	if got := string(readFile(t, out)); got != want {
		t.Errorf("file holds %q, want %q", got, want)
	}
}

// TestMetaStdin reads the file from standard input, both in place and
// through a copy.
func TestMetaStdin(t *testing.T) {
	want := runIn(t, nil, "meta", tinyRLE).stdout
	data := readFile(t, tinyRLE)
	for _, stdin := range []io.Reader{bytes.NewReader(data), io.MultiReader(bytes.NewReader(data))} {
		r := runIn(t, stdin, "meta", "-")
		if r.code != 0 || r.stdout != want {
			t.Errorf("%T: got %+v, want %s", stdin, r, want)
		}
	}
	f, err := os.Open(tinyRLE)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if r := runIn(t, f, "meta", "-"); r.code != 0 || r.stdout != want {
		t.Errorf("file stdin: got %+v", r)
	}
}
