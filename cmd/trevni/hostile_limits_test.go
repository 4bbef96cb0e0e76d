package main

import (
	"bytes"
	"encoding/binary"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni/shred"
)

// TestHostileLimitFlags: a limit's error names the flag that raises it,
// and the flag does raise it.
func TestHostileLimitFlags(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.avsc"), []byte(doublingSchema(10)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "in.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runLimited(t, dir, 20*time.Second, nil, "fromjson", "--max-columns", "1000", "--schema", "s.avsc", "in.jsonl", "out.trv")
	checkHostile(t, r, "fromjson", "--max-columns", dir, "s.avsc", "in.jsonl")
	r = runLimited(t, dir, 20*time.Second, nil, "fromjson", "--max-columns", "2000", "--schema", "s.avsc", "in.jsonl", "out.trv")
	if r.code != 0 {
		t.Fatalf("with --max-columns 2000: %+v", r.result)
	}
	// Reading the 1,024-column file under a lower limit fails the same way.
	r = runLimited(t, dir, 20*time.Second, nil, "tojson", "--max-columns", "1000", "out.trv")
	checkHostile(t, r, "tojson", "--max-columns", dir, "s.avsc", "in.jsonl", "out.trv")
	if r := runLimited(t, dir, 20*time.Second, nil, "fromjson", "--max-block-size", "lots", "--schema", "s.avsc", "in.jsonl", "o.trv"); r.code != exitUsage {
		t.Errorf("a bad size: %+v", r.result)
	}
}

// A file-valued flag naming an endless or huge file fails at the size
// limit, naming it, in bounded memory; an import climbing out of the -I
// directories is refused.
func TestHostileFileFlags(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"fromjson", "--schema", "/dev/zero", "in.jsonl", "o.trv"},
		{"random", "/dev/zero", "1", "o.trv"},
		{"fromproto", "--descriptor-set", "/dev/zero", "--message", "a.B", "in.jsonl", "o.trv"},
	} {
		r := runLimited(t, dir, 30*time.Second, nil, args...)
		checkHostile(t, r, args[0], "64 MiB", dir, "in.jsonl")
		if !strings.Contains(r.stderr, "--schema") {
			t.Errorf("%q: error %q does not name the flags", args, r.stderr)
		}
	}
	inc := filepath.Join(dir, "inc")
	if err := os.Mkdir(inc, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(inc, "m.proto"), []byte(`syntax = "proto3"; import "../../../../../../../../dev/zero"; message M { int32 x = 1; }`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runLimited(t, dir, 30*time.Second, nil, "fromproto", "-I", "inc", "--proto", "inc/m.proto", "--message", "M", "in.jsonl", "o.trv")
	checkHostile(t, r, "fromproto", "leads out of the import paths", dir, "in.jsonl", "inc")
}

// A tiny file whose record holds 2^24 empty records (within the bound on
// elements) fails in dump and tojson at the byte budget, naming the
// record and --max-record-size, in bounded memory; the record before it
// is printed.
func TestHostileRecordSize(t *testing.T) {
	dir := t.TempDir()
	const text = `{"type":"record","name":"R","fields":[{"name":"id","type":"long"},` +
		`{"name":"e","type":{"type":"array","items":{"type":"record","name":"E","fields":[]}}}]}`
	var file bytes.Buffer
	aw, err := shred.NewAvroWriter(&file, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{2, 1 << 24} {
		b := binary.AppendVarint(nil, n)
		b = append(binary.AppendVarint(b, n), 0)
		if err := aw.WriteBinary(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	if file.Len() > 4096 {
		t.Fatalf("the file has %d bytes", file.Len())
	}
	if err := os.WriteFile(filepath.Join(dir, "big.trv"), file.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"dump", "big.trv"},
		{"tojson", "big.trv"},
		{"toavro", "big.trv", "-"},
		{"dump", "--max-record-size", "1MiB", "big.trv"},
	} {
		r := runLimited(t, dir, 60*time.Second, nil, args...)
		// dump holds the row as Go values up to the default 64 MiB
		// budget before it refuses it: measured 161-315 MiB peak, by
		// the garbage collector's timing (the machine's load), where it
		// took 4 GB before the budget. Its bound is its own; the other
		// runs keep hostileRSS.
		if len(args) == 2 && args[0] == "dump" {
			if r.rss > 400<<20 {
				t.Errorf("%q: peak memory %d MiB", args, r.rss>>20)
			}
			r.rss = 0 // checked above
		}
		checkHostile(t, r, args[0], "--max-record-size", dir, "big.trv")
		if !strings.Contains(r.stderr, "row 1") && !strings.Contains(r.stderr, "record 1") {
			t.Errorf("%q: error %q does not name the record", args, r.stderr)
		}
		if args[0] == "dump" && !strings.Contains(r.stdout, "2") {
			t.Errorf("%q: the record before was not printed: %.200q", args, r.stdout)
		}
		t.Logf("%q: %v, %d MiB: %s", args, r.elapsed, r.rss>>20, strings.TrimSpace(r.stderr))
	}
}

// A server that stops answering fails a read after --http-timeout, not
// never.
func TestHostileHTTPStall(t *testing.T) {
	done := make(chan struct{})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.Header().Set("Accept-Ranges", "bytes")
			w.Header().Set("Content-Length", "1000")
			return
		}
		if strings.Contains(r.URL.Path, "trickle") {
			w.Header().Set("Content-Range", "bytes 0-999/1000")
			w.Header().Set("Content-Length", "1000")
			w.WriteHeader(http.StatusPartialContent)
			w.Write([]byte("Trv"))
			w.(http.Flusher).Flush()
		}
		select {
		case <-done:
		case <-r.Context().Done():
		}
	}))
	defer s.Close()
	defer close(done)
	dir := t.TempDir()
	for _, path := range []string{"/stall.trv", "/trickle.trv"} {
		start := time.Now()
		r := runLimited(t, dir, 20*time.Second, nil, "dump", "--http-timeout", "500ms", s.URL+path)
		checkHostile(t, r, "dump", "timed out", dir)
		if !strings.Contains(r.stderr, "--http-timeout") {
			t.Errorf("%s: error %q does not name --http-timeout", path, r.stderr)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: took %v", path, d)
		}
	}
}
