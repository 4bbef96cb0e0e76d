package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestStdoutIsInput checks that a command whose standard output is one of
// its inputs (trevni tojson g.trv >> g.trv, or < g.trv >> g.trv) refuses
// to run, saying so, and leaves the file as it was; standard output to
// another file works.
func TestStdoutIsInput(t *testing.T) {
	dir := t.TempDir()
	g := copyFile(t, filepath.Join(interopDir, "email", "email.deflate.crc32.trv"), dir, "g.trv")
	before := readFile(t, g)
	appendTo := func(path string) *os.File {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	for _, c := range []struct {
		name  string
		args  []string
		stdin bool // g.trv is standard input
	}{
		{"tojson g.trv >> g.trv", []string{"tojson", g}, false},
		{"dump g.trv >> g.trv", []string{"dump", g}, false},
		{"head g.trv >> g.trv", []string{"head", g}, false},
		{"tojson < g.trv >> g.trv", []string{"tojson"}, true},
		{"meta - < g.trv >> g.trv", []string{"meta", "-"}, true},
	} {
		var stdin io.Reader = strings.NewReader("")
		if c.stdin {
			f, err := os.Open(g)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			stdin = f
		}
		var errOut bytes.Buffer
		code := run(c.args, stdin, appendTo(g), &errOut)
		if code != exitError || !strings.Contains(errOut.String(), "input file is output file") {
			t.Errorf("%s: status %d, stderr %q; want 1 and \"input file is output file\"", c.name, code, errOut.String())
		}
		if !bytes.Equal(readFile(t, g), before) {
			t.Fatalf("%s: the input was written to", c.name)
		}
	}
	// Standard output to another file is fine.
	other := filepath.Join(dir, "other.jsonl")
	var errOut bytes.Buffer
	if code := run([]string{"tojson", g}, strings.NewReader(""), appendTo(other), &errOut); code != exitOK {
		t.Fatalf("tojson g.trv >> other.jsonl: status %d, stderr %q", code, errOut.String())
	}
	want := readFile(t, filepath.Join(interopDir, "email", "expected.jsonl"))
	if got := readFile(t, other); !bytes.Equal(got, want) {
		t.Errorf("tojson g.trv >> other.jsonl wrote %d bytes, want the %d of expected.jsonl", len(got), len(want))
	}
}

// TestValidateTrailingBytes checks that validate fails a file with bytes
// after its last column's data, saying how many and where, and passes
// the same file without them.
func TestValidateTrailingBytes(t *testing.T) {
	dir := t.TempDir()
	good := copyFile(t, filepath.Join(interopDir, "email", "email.deflate.crc32.trv"), dir, "good.trv")
	data := readFile(t, good)
	bad := filepath.Join(dir, "bad.trv")
	writeFileT(t, bad, append(bytes.Clone(data), "junk"...))
	if r := runIn(t, nil, "validate", good); r.code != exitOK {
		t.Fatalf("validate good.trv: status %d, stderr %q", r.code, r.stderr)
	}
	r := runIn(t, nil, "validate", bad)
	want := "offset " + strconv.Itoa(len(data)) + ": 4 bytes after the end of the last column's data"
	if r.code != exitError || !strings.Contains(r.stderr, want) || r.stdout != "" {
		t.Errorf("validate bad.trv: status %d, stdout %q, stderr %q; want 1 and %q", r.code, r.stdout, r.stderr, want)
	}
	// A file appended to itself is the case of cat g.trv >> g.trv.
	writeFileT(t, bad, append(bytes.Clone(data), data...))
	if r := runIn(t, nil, "validate", bad); r.code != exitError || !strings.Contains(r.stderr, "after the end of the last column's data") {
		t.Errorf("validate of a doubled file: status %d, stderr %q", r.code, r.stderr)
	}
}
