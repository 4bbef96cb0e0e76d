package main

// Tiny hostile inputs (issue: "Tiny hostile inputs must not exhaust memory,
// time or stack"). Each class of input is rebuilt here in code and given to
// the built tool in a subprocess, which must end within seconds with a
// clean one-line error (or success), in bounded memory, leaving no file
// behind.

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
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
	err := cmd.Start()
	var hwm atomic.Int64
	stop := make(chan struct{})
	polled := make(chan struct{})
	if err == nil {
		go pollHWM(cmd.Process.Pid, &hwm, stop, polled)
		err = cmd.Wait()
		close(stop)
		<-polled
	}
	r := limitedRun{elapsed: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("%q did not end within %v", args, timeout)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	// The child's own peak: the high-water mark of its memory as polled
	// from /proc while it ran. The rusage of a child counts the parent's
	// resident memory at the fork (the test process is large by then), so
	// it is used only where /proc cannot be read.
	r.rss = hwm.Load()
	if r.rss == 0 {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.rss = ru.Maxrss * 1024 // kilobytes on Linux
		}
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

// intColumns returns n int columns, each of one block claiming rows rows
// and uncompressed bytes, holding data.
func intColumns(n int, rows, uncompressed int32, data []byte) []rawColumn {
	cols := make([]rawColumn, n)
	for i := range cols {
		cols[i] = rawColumn{
			meta:   [][2]string{{"trevni.name", fmt.Sprintf("c%d", i)}, {"trevni.type", "int"}},
			blocks: []rawBlock{{rows: rows, uncompressed: uncompressed, data: data}},
		}
	}
	return cols
}

// TestHostileDecompressionBombs: eight int columns whose bzip2 blocks each
// claim 1 GiB are refused before a byte is inflated; eight deflate blocks
// that really hold 60 MiB of zeros each (a 500 KB file) stay within the
// reader's block memory.
func TestHostileDecompressionBombs(t *testing.T) {
	dir := t.TempDir()
	garbage := bytes.Repeat([]byte("BZh91AY&SY"), 60)
	bomb := buildTrevni(1, [][2]string{{"trevni.codec", "bzip2"}}, intColumns(8, 1, 1<<30, garbage))
	var zeros bytes.Buffer
	fw, err := flate.NewWriter(&zeros, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	for range 60 {
		fw.Write(chunk)
	}
	fw.Close()
	inflating := buildTrevni(60<<20, [][2]string{{"trevni.codec", "deflate"}}, intColumns(8, 60<<20, 60<<20, zeros.Bytes()))
	for name, b := range map[string][]byte{"bomb.trv": bomb, "zeros.trv": inflating} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	keep := []string{"bomb.trv", "zeros.trv"}
	for _, cmd := range []string{"dump", "validate"} {
		r := runLimited(t, dir, 20*time.Second, nil, cmd, "bomb.trv")
		if cmd == "validate" {
			// validate goes on after a problem: one line per column.
			if r.code != exitError || strings.Count(r.stderr, "--max-block-size") != 8 || r.rss > hostileRSS {
				t.Errorf("validate: %+v, %d MiB", r.result, r.rss>>20)
			}
			checkMessages(t, r.stderr, cmd)
			continue
		}
		checkHostile(t, r, cmd, "--max-block-size", dir, keep...)
	}
	// dump holds a block of every column at once: eight 60 MiB blocks do
	// not fit in 128 MiB. validate checks one column at a time, and so
	// reads the file within the same bound.
	r := runLimited(t, dir, 60*time.Second, nil, "dump", "--block-memory", "128MiB", "zeros.trv")
	checkHostile(t, r, "dump", "--block-memory", dir, keep...)
	r = runLimited(t, dir, 60*time.Second, nil, "validate", "--block-memory", "128MiB", "zeros.trv")
	if r.code != 0 || r.rss > hostileRSS {
		t.Errorf("validate within 128MiB: %+v, %d MiB", r.result, r.rss>>20)
	}
}

// TestHostileEndlessRecords: a file of 2^62 empty records validates at
// once (records that read no column cannot be invalid).
func TestHostileEndlessRecords(t *testing.T) {
	dir := t.TempDir()
	file := buildTrevni(1<<62, [][2]string{{"trevni.codec", "null"}, {"avro.schema", `{"type":"record","name":"E","fields":[]}`}}, nil)
	if err := os.WriteFile(filepath.Join(dir, "e.trv"), file, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runLimited(t, dir, 20*time.Second, nil, "validate", "e.trv")
	if r.code != 0 || r.elapsed > 10*time.Second || r.rss > hostileRSS {
		t.Fatalf("validate of 2^62 empty records: %+v, %v, %d MiB", r.result, r.elapsed, r.rss>>20)
	}
}

// TestHostileBlockSize: a block size the reader would refuse is refused by
// the writer, before anything is written.
func TestHostileBlockSize(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.avsc"), []byte(`"int"`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "in.jsonl"), []byte("1\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runLimited(t, dir, 20*time.Second, nil, "fromjson", "--block-size", "1500000000", "--schema", "s.avsc", "in.jsonl", "out.trv")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--block-size") || r.rss > hostileRSS {
		t.Fatalf("--block-size 1500000000: %+v, %d MiB", r.result, r.rss>>20)
	}
	checkNoLeftovers(t, dir, "s.avsc", "in.jsonl")
}

// pollHWM reads the VmHWM (peak resident memory) of process pid from
// /proc every millisecond into hwm until stop is closed, then closes done.
// VmHWM only grows, so the last reading before the process ends is its
// peak up to then.
func pollHWM(pid int, hwm *atomic.Int64, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	path := fmt.Sprintf("/proc/%d/status", pid)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile(path); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
					var kb int64
					if _, err := fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(v), " kB"), &kb); err == nil && kb*1024 > hwm.Load() {
						hwm.Store(kb * 1024)
					}
				}
			}
		}
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}
