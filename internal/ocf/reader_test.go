package ocf

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/internal/codec"
)

// allCodecs lists every codec the package supports.
var allCodecs = []string{codec.Null, codec.Deflate, codec.Snappy, codec.Bzip2, codec.XZ, codec.Zstandard}

// block is one block as read back: its record count and a copy of its data.
type block struct {
	count int64
	data  []byte
}

// interopFiles returns the Java-written input.avro files of the interop
// vectors, keyed by vector name.
func interopFiles(t testing.TB) map[string]string {
	t.Helper()
	paths, err := filepath.Glob("../../testdata/interop/*/input.avro")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no interop input.avro files found")
	}
	files := make(map[string]string, len(paths))
	for _, p := range paths {
		files[filepath.Base(filepath.Dir(p))] = p
	}
	return files
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readBlocks reads a whole container, copying every block.
func readBlocks(t testing.TB, file []byte, opts ...ReaderOption) (*Reader, []block) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(file), opts...)
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	var blocks []block
	for {
		n, data, err := r.NextBlock()
		if err == io.EOF {
			return r, blocks
		}
		if err != nil {
			t.Fatalf("NextBlock %d: %v", len(blocks), err)
		}
		blocks = append(blocks, block{n, bytes.Clone(data)})
	}
}

// splitRecords cuts a block's data into its records with goavro, checking
// that exactly count records use up all of data.
func splitRecords(t testing.TB, codec *goavro.Codec, count int64, data []byte) [][]byte {
	t.Helper()
	recs := make([][]byte, 0, count)
	rest := data
	for i := int64(0); i < count; i++ {
		_, next, err := codec.NativeFromBinary(rest)
		if err != nil {
			t.Fatalf("record %d of %d: %v", i, count, err)
		}
		recs = append(recs, rest[:len(rest)-len(next)])
		rest = next
	}
	if len(rest) != 0 {
		t.Fatalf("%d bytes left after %d records", len(rest), count)
	}
	return recs
}

// interopRecords returns the schema and records of an interop input.avro.
func interopRecords(t testing.TB, path string) (string, [][]byte) {
	t.Helper()
	r, blocks := readBlocks(t, readFile(t, path))
	codec, err := goavro.NewCodec(r.Schema())
	if err != nil {
		t.Fatal(err)
	}
	var recs [][]byte
	for _, b := range blocks {
		recs = append(recs, splitRecords(t, codec, b.count, b.data)...)
	}
	return r.Schema(), recs
}

// countLines counts the lines of a text file, gunzipping .gz files.
func countLines(t testing.TB, path string) int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var in io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		in = zr
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 16<<20)
	var n int64
	for sc.Scan() {
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// storedSchema finds the avro.schema value in a raw header independently
// of the Reader.
func storedSchema(t testing.TB, file []byte) []byte {
	t.Helper()
	key := []byte("\x16" + MetaSchema) // length 11, zig-zag encoded
	i := bytes.Index(file, key)
	if i < 0 {
		t.Fatal("avro.schema key not found in header")
	}
	rest := file[i+len(key):]
	n, k, err := readLong(bytes.NewReader(rest))
	if err != nil {
		t.Fatal(err)
	}
	return rest[k : k+int(n)]
}

func TestInteropFiles(t *testing.T) {
	for name, path := range interopFiles(t) {
		t.Run(name, func(t *testing.T) {
			file := readFile(t, path)
			r, blocks := readBlocks(t, file)

			if want := storedSchema(t, file); r.Schema() != string(want) {
				t.Errorf("Schema() = %q, stored %q", r.Schema(), want)
			}
			if r.Codec() != codec.Null {
				t.Errorf("Codec() = %q, want null", r.Codec())
			}
			if m := r.Meta(); string(m[MetaSchema]) != r.Schema() || string(m[MetaCodec]) != codec.Null {
				t.Errorf("Meta() = %q", m)
			}
			if r.InputOffset() != int64(len(file)) {
				t.Errorf("InputOffset() = %d, file has %d bytes", r.InputOffset(), len(file))
			}

			codec, err := goavro.NewCodec(r.Schema())
			if err != nil {
				t.Fatalf("goavro rejects the schema: %v", err)
			}
			var total int64
			for _, b := range blocks {
				splitRecords(t, codec, b.count, b.data)
				total += b.count
			}

			dir := filepath.Dir(path)
			lines := filepath.Join(dir, "input.jsonl")
			if _, err := os.Stat(lines); err != nil {
				lines = filepath.Join(dir, "expected.jsonl.gz")
			}
			if want := countLines(t, lines); total != want {
				t.Errorf("read %d records in %d blocks, %s has %d lines", total, len(blocks), filepath.Base(lines), want)
			}
			if name == "medium" && total != 30000 {
				t.Errorf("medium: %d records, want 30000", total)
			}
		})
	}
}

// TestRewriteIdentical writes the blocks of each Java file back with the
// same sync marker: Java lays the header out as this package does, so the
// output must match byte for byte.
func TestRewriteIdentical(t *testing.T) {
	for name, path := range interopFiles(t) {
		t.Run(name, func(t *testing.T) {
			file := readFile(t, path)
			r, blocks := readBlocks(t, file)
			var buf bytes.Buffer
			w, err := NewWriter(&buf, r.Schema(), WriterOptions{SyncMarker: r.Sync()})
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range blocks {
				if err := w.WriteBlock(b.count, b.data); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), file) {
				t.Errorf("rewritten file differs from input.avro (%d vs %d bytes)", buf.Len(), len(file))
			}
		})
	}
}

// TestErrorsSayWhere checks the shape of block errors.
func TestErrorsSayWhere(t *testing.T) {
	file := smallFile(t, codec.Null, 4)
	_, blocks := readBlocks(t, file)
	if len(blocks) < 3 {
		t.Fatalf("want at least 3 blocks, got %d", len(blocks))
	}
	// Find the offset of block 2 and break its sync marker.
	rd, _ := NewReader(bytes.NewReader(file))
	rd.NextBlock()
	rd.NextBlock()
	off := rd.InputOffset()
	rd.NextBlock()
	end := rd.InputOffset()
	bad := bytes.Clone(file)
	bad[end-1] ^= 0xff

	rd, err := NewReader(bytes.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	for {
		_, _, err = rd.NextBlock()
		if err != nil {
			break
		}
	}
	want := "ocf: block 2 at offset " + strconv.FormatInt(off, 10) + ": sync marker mismatch"
	if err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
	if !errors.Is(err, ErrSyncMarker) {
		t.Errorf("error does not wrap ErrSyncMarker")
	}
	var e *Error
	if !errors.As(err, &e) || e.Block != 2 || e.Offset != off {
		t.Errorf("error = %#v", err)
	}
	// The error is sticky.
	if _, _, err2 := rd.NextBlock(); err2 != err {
		t.Errorf("second NextBlock error = %v, want %v", err2, err)
	}
}
