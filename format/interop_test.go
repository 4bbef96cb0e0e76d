package format

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

const interopDir = "../testdata/interop"

// readLines returns the lines of a file, gunzipping .gz files.
func readLines(t testing.TB, name string) [][]byte {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = gz
	}
	var lines [][]byte
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			lines = append(lines, append([]byte(nil), sc.Bytes()...))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// decodeJSON parses JSON keeping numbers as json.Number.
func decodeJSON(t testing.TB, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	return v
}

// jsonEqual compares decoded JSON, numbers numerically (and as float32
// where they are equal as such).
func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		bn, ok := b.(json.Number)
		if !ok {
			return false
		}
		if a == bn {
			return true
		}
		fa, err1 := strconv.ParseFloat(string(a), 64)
		fb, err2 := strconv.ParseFloat(string(bn), 64)
		return err1 == nil && err2 == nil && (fa == fb || float32(fa) == float32(fb)) // floats print differently in Java and Go
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, v := range a {
			if !jsonEqual(v, bm[k]) {
				return false
			}
		}
		return true
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], bl[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// interopFiles lists every Java-written .trv file with the dump of its values.
func interopFiles(t testing.TB) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(interopDir, "*", "*.trv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no interop files: %v", err)
	}
	out := map[string]string{}
	for _, f := range files {
		dir := filepath.Dir(f)
		dump := filepath.Join(dir, "dump.jsonl")
		if base := filepath.Base(dir); base == "tiny" {
			dump = strings.TrimSuffix(f, ".trv") + ".dump.jsonl"
		} else if _, err := os.Stat(dump); err != nil {
			dump += ".gz"
		}
		if _, err := os.Stat(dump); err != nil {
			dump = ""
		}
		out[f] = dump
	}
	return out
}

func TestReadInteropDumps(t *testing.T) {
	t.Parallel()
	for file, dump := range interopFiles(t) {
		t.Run(strings.TrimPrefix(file, interopDir+"/"), func(t *testing.T) {
			rc, err := Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			rc.opts.ReadAhead = strings.Contains(file, "snappy") || strings.Contains(file, "medium")
			rows, err := rc.Rows()
			if err != nil {
				t.Fatal(err)
			}
			var got [][]byte
			for {
				row, err := rows.Read()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, row.AppendJSON(nil))
			}
			if int64(len(got)) != rc.RowCount() {
				t.Fatalf("read %d rows, header says %d", len(got), rc.RowCount())
			}
			if dump == "" {
				if !strings.Contains(file, "medium") {
					t.Fatalf("no dump for %s", file)
				}
				return
			}
			// Row.AppendJSON and RowReader.ReadJSON write the dump's
			// text byte for byte, without the spaces after its
			// separators: Java's float digits, its escapes.
			want := readLines(t, dump)
			for i := range want {
				var c bytes.Buffer
				if err := json.Compact(&c, want[i]); err != nil {
					t.Fatalf("%s line %d: %v", dump, i+1, err)
				}
				want[i] = c.Bytes()
			}
			if len(want) != len(got) {
				t.Fatalf("read %d rows, Java dumped %d", len(got), len(want))
			}
			for i := range want {
				if !bytes.Equal(got[i], want[i]) {
					t.Fatalf("row %d:\n got %s\nwant %s", i, got[i], want[i])
				}
			}
			rows, err = rc.Rows()
			if err != nil {
				t.Fatal(err)
			}
			var line []byte
			for i := range want {
				if line, err = rows.ReadJSON(line[:0]); err != nil {
					t.Fatalf("row %d: %v", i, err)
				}
				if !bytes.Equal(line, want[i]) {
					t.Fatalf("ReadJSON, row %d:\n got %s\nwant %s", i, line, want[i])
				}
			}
			if _, err := rows.ReadJSON(nil); err != io.EOF {
				t.Fatalf("after the last row: %v", err)
			}
		})
	}
}

// TestJavaNullCRCTolerated checks the tolerance for Java's zero CRCs, and that
// it can be turned off.
func TestJavaNullCRCTolerated(t *testing.T) {
	file := filepath.Join(interopDir, "primitives", "primitives.null.crc32.trv")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, strict := range []bool{false, true} {
		rd, err := NewReader(bytes.NewReader(data), int64(len(data)), &ReaderOptions{StrictChecksums: strict})
		if err != nil {
			t.Fatal(err)
		}
		c, err := rd.Values(1) // column 0 is null-typed: its empty blocks have a true zero CRC
		if err != nil {
			t.Fatal(err)
		}
		err = c.StartRow()
		if strict && !errors.Is(err, ErrChecksum) {
			t.Fatalf("strict: got %v, want a checksum error", err)
		}
		if !strict && err != nil {
			t.Fatalf("tolerant: %v", err)
		}
	}
}

// TestMagicChecked checks that a file must start with "Trv" and a known
// version, and that an Avro container file is named as such.
func TestMagicChecked(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(interopDir, "tiny", "tiny_int.trv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"Trv\x00", "Trv\x01", "Trv\x02"} {
		copy(data, m)
		if _, err := NewReader(bytes.NewReader(data), int64(len(data)), nil); err != nil {
			t.Errorf("magic %q: %v", m, err)
		}
	}
	for _, m := range []string{"XXXX", "Trv\x03", "Obj\x01"} {
		copy(data, m)
		_, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "not a valid trevni file: it starts with") {
			t.Errorf("magic %q: %v", m, err)
		}
		if m == "Obj\x01" && !strings.Contains(err.Error(), "Avro container") {
			t.Errorf("an Avro file is not named: %v", err)
		}
	}
}
