package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
)

// interopDumps maps every interop .trv file that has a Java dump to it.
func interopDumps(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range interopTrv(t) {
		dir := filepath.Dir(f)
		dump := filepath.Join(dir, "dump.jsonl")
		if filepath.Base(dir) == "tiny" {
			dump = strings.TrimSuffix(f, ".trv") + ".dump.jsonl"
		} else if _, err := os.Stat(dump); err != nil {
			dump += ".gz"
		}
		if _, err := os.Stat(dump); err == nil {
			out[f] = dump
		}
	}
	if len(out) < 40 {
		t.Fatalf("only %d interop dumps", len(out))
	}
	return out
}

// TestDumpInterop: dump prints every interop file as the vector's
// dump.jsonl, byte for byte (Java's float digits, raw UTF-8 beyond the
// Basic Multilingual Plane), but for the spaces after its separators,
// which dump leaves out as Java's trevni_tojson and tojson do (the
// vector's lines through json.Compact).
func TestDumpInterop(t *testing.T) {
	for file, dump := range interopDumps(t) {
		t.Run(strings.TrimPrefix(file, interopDir+"/"), func(t *testing.T) {
			r := runIn(t, nil, "dump", file)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit status %d, stderr %s", r.code, r.stderr)
			}
			want := compactLines(t, readFileGunzip(t, dump))
			if r.stdout == want {
				return
			}
			got, wantLines := strings.SplitAfter(r.stdout, "\n"), strings.SplitAfter(want, "\n")
			for i := range min(len(got), len(wantLines)) {
				if got[i] != wantLines[i] {
					t.Fatalf("line %d differs:\n got %q\nwant %q", i+1, got[i], wantLines[i])
				}
			}
			t.Fatalf("dumped %d lines, the vector has %d", len(got), len(wantLines))
		})
	}
}

// compactLines returns the JSON lines of text with insignificant spaces
// taken out (json.Compact), each line ended by a newline.
func compactLines(t testing.TB, text string) string {
	t.Helper()
	var out bytes.Buffer
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if l == "" {
			continue
		}
		if err := json.Compact(&out, []byte(l)); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		out.WriteByte('\n')
	}
	return out.String()
}

// readFileGunzip returns the content of a file, gunzipped if its name
// ends in .gz.
func readFileGunzip(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".gz") {
		gz, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(gz); err != nil {
			t.Fatal(err)
		}
	}
	return string(b)
}

// TestDumpOutputFile writes the dump to a file, from standard input.
func TestDumpOutputFile(t *testing.T) {
	file := filepath.Join(interopDir, "email", "email.snappy.crc32.trv")
	want := runIn(t, nil, "dump", file).stdout
	out := filepath.Join(t.TempDir(), "out.jsonl")
	r := runIn(t, io.MultiReader(bytes.NewReader(readFile(t, file))), "dump", "-", out)
	if r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("got %+v", r)
	}
	if got := string(readFile(t, out)); got != want {
		t.Error("the file differs from standard output")
	}
}

// TestDumpFailureLeavesNoFile checks atomic output through a command: a
// failure leaves no file, and an existing file untouched.
func TestDumpFailureLeavesNoFile(t *testing.T) {
	data := readFile(t, filepath.Join(interopDir, "medium", "medium.deflate.crc32.trv"))
	corrupt := append([]byte(nil), data...)
	corrupt[len(corrupt)-100] ^= 0xff // in the last block of the last column
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.trv")
	if err := os.WriteFile(bad, corrupt, 0o666); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "new.jsonl")
	r := runIn(t, nil, "dump", bad, out)
	checkOneLineError(t, r, "dump")
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("failed dump left %s: %v", out, err)
	}
	old := filepath.Join(dir, "old.jsonl")
	if err := os.WriteFile(old, []byte("old\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	checkOneLineError(t, runIn(t, nil, "dump", bad, old), "dump")
	if got := string(readFile(t, old)); got != "old\n" {
		t.Errorf("existing file changed to %q", got)
	}
	if names := dirNames(t, dir); len(names) != 2 {
		t.Errorf("files left: %q", names)
	}
}

// cancellingReaderAt is standard input with random access that cancels the
// run after a number of reads.
type cancellingReaderAt struct {
	*bytes.Reader
	reads  atomic.Int32
	after  int32
	cancel context.CancelFunc
}

func (c *cancellingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if c.reads.Add(1) == c.after {
		c.cancel()
	}
	return c.Reader.ReadAt(p, off)
}

// TestDumpInterrupted cancels a dump midway: it reports the interruption
// and leaves no file.
func TestDumpInterrupted(t *testing.T) {
	data := readFile(t, filepath.Join(interopDir, "medium", "medium.deflate.crc32.trv"))
	for _, after := range []int32{1, 5, 20} {
		dir := t.TempDir()
		out := filepath.Join(dir, "out.jsonl")
		ctx, cancel := context.WithCancel(t.Context())
		stdin := &cancellingReaderAt{Reader: bytes.NewReader(data), after: after, cancel: cancel}
		var stdout, stderr bytes.Buffer
		code := newApp(stdin, &stdout, &stderr).run(ctx, []string{"dump", "-", out})
		cancel()
		if code != exitError || stderr.String() != "trevni: dump: interrupted\n" {
			t.Errorf("after %d reads: status %d, stderr %q", after, code, stderr.String())
		}
		if names := dirNames(t, dir); len(names) != 0 {
			t.Errorf("after %d reads: files left: %q", after, names)
		}
	}
}

// TestDumpPlain: dump --plain prints what tojson --plain prints for a flat
// file of every primitive type, and, for every interop file, the values of
// the default dump with bytes in base64 instead of hex and floats in
// shorter digits of the same value.
func TestDumpPlain(t *testing.T) {
	t.Parallel()
	prim := filepath.Join(interopDir, "primitives", "primitives.deflate.crc32.trv")
	d, j := runIn(t, nil, "dump", "--plain", prim), runIn(t, nil, "tojson", "--plain", prim)
	if d.code != 0 || d.stdout != j.stdout || d.stdout == "" {
		t.Fatalf("dump --plain:\n%s\ntojson --plain:\n%s", d.stdout, j.stdout)
	}
	var differ int
	var same func(a, b any) bool
	same = func(a, b any) bool {
		switch a := a.(type) {
		case map[string]any:
			bm, ok := b.(map[string]any)
			if !ok || len(a) != len(bm) {
				return false
			}
			for k, v := range a {
				if !same(v, bm[k]) {
					return false
				}
			}
			return true
		case []any:
			ba, ok := b.([]any)
			if !ok || len(a) != len(ba) {
				return false
			}
			for i := range a {
				if !same(a[i], ba[i]) {
					return false
				}
			}
			return true
		case json.Number:
			bn, ok := b.(json.Number)
			if !ok {
				return false
			}
			if a != bn {
				differ++
			}
			x, err1 := a.Float64()
			y, err2 := bn.Float64()
			// A float column's value: the shortest digits of the float32.
			return err1 == nil && err2 == nil && (x == y || float32(x) == float32(y))
		case string:
			bs, ok := b.(string)
			if !ok {
				return false
			}
			if a == bs {
				return true
			}
			differ++
			h, err1 := hex.DecodeString(a)
			b64, err2 := base64.StdEncoding.DecodeString(bs)
			return err1 == nil && err2 == nil && bytes.Equal(h, b64)
		}
		return reflect.DeepEqual(a, b)
	}
	for file := range interopDumps(t) {
		if strings.Contains(file, "medium") {
			continue // large: the others cover its types
		}
		def, pl := runIn(t, nil, "dump", file), runIn(t, nil, "dump", "--plain", file)
		if def.code != 0 || pl.code != 0 {
			t.Fatalf("%s: %+v %+v", file, def, pl)
		}
		a, b := jsonLines(t, def.stdout), jsonLines(t, pl.stdout)
		if len(a) != len(b) {
			t.Fatalf("%s: %d rows, --plain %d", file, len(a), len(b))
		}
		for i := range a {
			if !same(map[string]any(a[i]), map[string]any(b[i])) {
				t.Fatalf("%s row %d:\n%v\n--plain:\n%v", file, i, a[i], b[i])
			}
		}
	}
	if differ == 0 {
		t.Fatal("--plain changed nothing")
	}
}
