package main

// Tiny hostile inputs (issue: "Tiny hostile inputs must not exhaust memory,
// time or stack"). Each class of input is rebuilt here in code and given to
// the built tool in a subprocess, which must end within seconds with a
// clean one-line error (or success), in bounded memory, leaving no file
// behind.

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileRSS is the most resident memory a run on a hostile input may use.
const hostileRSS = 300 << 20

// limitedRun is what one bounded run of the tool did.
type limitedRun struct {
	result
	rss     int64 // peak resident set size in bytes
	elapsed time.Duration
}

// runLimited runs the built tool in dir, killing it after timeout, and
// reports its peak memory.
func runLimited(t *testing.T, dir string, timeout time.Duration, stdin []byte, args ...string) limitedRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, trevniBin, args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	r := limitedRun{elapsed: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("%q did not end within %v", args, timeout)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.rss = ru.Maxrss * 1024 // kilobytes on Linux
	}
	r.stdout, r.stderr = out.String(), errOut.String()
	return r
}

// checkHostile checks a run on a hostile input: a clean one-line error
// containing want, bounded memory, and no file left in dir beyond keep.
func checkHostile(t *testing.T, r limitedRun, command, want, dir string, keep ...string) {
	t.Helper()
	checkOneLineError(t, r.result, command)
	if !strings.Contains(r.stderr, want) {
		t.Errorf("%s: error %q does not say %q", command, strings.TrimSpace(r.stderr), want)
	}
	if r.rss > hostileRSS {
		t.Errorf("%s: peak memory %d MiB", command, r.rss>>20)
	}
	checkNoLeftovers(t, dir, keep...)
}

// checkNoLeftovers fails if dir holds any file other than keep.
func checkNoLeftovers(t *testing.T, dir string, keep ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		found := false
		for _, k := range keep {
			found = found || e.Name() == k
		}
		if !found {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// rawColumn is one column of a hand-built Trevni file.
type rawColumn struct {
	meta   [][2]string // column metadata, in order
	blocks []rawBlock
}

// rawBlock is one block: what its descriptor claims and its stored bytes.
type rawBlock struct {
	rows, uncompressed int32
	data               []byte // payload and checksum, as stored
}

// buildTrevni writes a Trevni file byte by byte, claiming whatever it is
// told to: the shape of a hostile file.
func buildTrevni(rows int64, fileMeta [][2]string, cols []rawColumn) []byte {
	varint := func(b []byte, v int64) []byte { return binary.AppendVarint(b, v) }
	meta := func(b []byte, m [][2]string) []byte {
		b = varint(b, int64(len(m)))
		for _, kv := range m {
			b = varint(b, int64(len(kv[0])))
			b = append(b, kv[0]...)
			b = varint(b, int64(len(kv[1])))
			b = append(b, kv[1]...)
		}
		return b
	}
	h := []byte("Trv\x02")
	h = binary.LittleEndian.AppendUint64(h, uint64(rows))
	h = binary.LittleEndian.AppendUint32(h, uint32(len(cols)))
	h = meta(h, fileMeta)
	var bodies [][]byte
	for _, c := range cols {
		h = meta(h, c.meta)
		var body []byte
		body = binary.LittleEndian.AppendUint32(body, uint32(len(c.blocks)))
		for _, b := range c.blocks {
			body = binary.LittleEndian.AppendUint32(body, uint32(b.rows))
			body = binary.LittleEndian.AppendUint32(body, uint32(b.uncompressed))
			body = binary.LittleEndian.AppendUint32(body, uint32(len(b.data)))
		}
		for _, b := range c.blocks {
			body = append(body, b.data...)
		}
		bodies = append(bodies, body)
	}
	start := int64(len(h) + 8*len(cols))
	for _, body := range bodies {
		h = binary.LittleEndian.AppendUint64(h, uint64(start))
		start += int64(len(body))
	}
	for _, body := range bodies {
		h = append(h, body...)
	}
	return h
}

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
