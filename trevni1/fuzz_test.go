package trevni1

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/trevni-go/trevni/format"
)

// seedFiles returns version-1 files covering every feature: the hand-built
// vectors and files of nested records.
func seedFiles(t testing.TB) [][]byte {
	var files [][]byte
	files = append(files, allTypesVec(t, "").b)
	for _, c := range []string{"deflate", "gzip", "bzip2", "snappy"} {
		files = append(files, allTypesVec(t, c).b)
	}
	files = append(files, build(3, "", []string{"boolean"}, [][]vecBlock{{{rows: 3, body: []byte{0x06}}}}).b)
	const full = `{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"array","items":["null","int"]}},{"name":"m","type":["null",{"type":"map","values":"string"}]},{"name":"n","type":"null"}]}`
	for _, opts := range []*WriterOptions{nil, {Checksum: ChecksumCRC32}, {Codec: CodecSnappy, BlockSize: 16}} {
		var buf bytes.Buffer
		rw, err := NewRecordWriter(&buf, full, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range [][]byte{
			{0x04, 0x02, 0x02, 0x00, 0x00, 0x00},           // a [1, null], m null
			{0x00, 0x02, 0x02, 0x02, 'k', 0x02, 'v', 0x00}, // a [], m {k: v}
			{0x02, 0x00, 0x00, 0x00},                       // a [null], m null
		} {
			if _, err := rw.WriteBinary(rec); err != nil {
				t.Fatal(err)
			}
		}
		if err := rw.Close(); err != nil {
			t.Fatal(err)
		}
		files = append(files, buf.Bytes())
	}
	return files
}

// readAll reads a file every way it can be read, returning the first
// error, and never more than limit records.
func readAll(data []byte, limit int) error {
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), &ReaderOptions{MaxBlockSize: 1 << 20})
	if err != nil {
		var e *Error
		if !errors.As(err, &e) && !errors.Is(err, ErrCodec) {
			return errors.New("untyped error: " + err.Error())
		}
		return err
	}
	if rd.RowCount() < 1<<20 {
		if err := rd.Verify(); err != nil {
			return err
		}
	}
	if err := readSource(rd, limit); err != nil {
		var fe *format.Error
		var e *Error
		if !errors.As(err, &fe) && !errors.As(err, &e) {
			return errors.New("untyped error through the Source: " + err.Error())
		}
	}
	rr, err := NewRecordReader(rd)
	if err != nil {
		return err
	}
	var buf []byte
	for range limit {
		if buf, err = rr.ReadBinary(buf[:0]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
	return nil
}

// readSource reads up to limit rows of every column of rd through its
// Source, as format's rows.
func readSource(rd *Reader, limit int) error {
	src, err := NewSource(rd)
	if err != nil {
		return nil // a file whose schema does not lay out its columns
	}
	fr, err := format.NewSourceReader(src, &format.ReaderOptions{MaxBlockSize: 1 << 22})
	if err != nil {
		return err
	}
	rr, err := fr.Rows()
	if err != nil {
		return err
	}
	defer rr.Close()
	for range limit {
		if _, err := rr.Read(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
	return nil
}

func FuzzReader(f *testing.F) {
	for _, b := range seedFiles(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := readAll(data, 10000); err != nil && bytes.Contains([]byte(err.Error()), []byte("untyped")) {
			t.Fatal(err)
		}
	})
}

// Every truncation and every single-byte change of the seeds reads without
// a panic, and a truncated file is an error.
func TestCorruption(t *testing.T) {
	for fi, b := range seedFiles(t) {
		if err := readAll(b, 1<<20); err != nil && fi != 5 {
			t.Fatalf("seed %d: %v", fi, err)
		}
		// bzip2 blocks are slow to open: every 11th byte of that seed.
		step := 1
		if fi == 3 {
			step = 11
		}
		for n := 0; n < len(b); n += step {
			err := readAll(b[:n], 1<<20)
			if err == nil {
				t.Fatalf("seed %d cut to %d bytes reads", fi, n)
			}
			if len(err.Error()) > 0 && bytes.Contains([]byte(err.Error()), []byte("untyped")) {
				t.Fatalf("seed %d cut to %d: %v", fi, n, err)
			}
		}
		for i := 0; i < len(b); i += step {
			for _, x := range []byte{0xff, b[i] ^ 0x01} {
				c := bytes.Clone(b)
				c[i] = x
				if err := readAll(c, 1<<20); err != nil && bytes.Contains([]byte(err.Error()), []byte("untyped")) {
					t.Fatalf("seed %d byte %d = %02x: %v", fi, i, x, err)
				}
			}
		}
	}
}

// Counts from the file are checked before anything is allocated for them.
func TestHostileCounts(t *testing.T) {
	v := &vec{}
	v.add("magic", 'T', 'r', 'v', 1)
	v.add("rows", le64(1)...)
	v.add("2^32-1 columns", 0xff, 0xff, 0xff, 0xff)
	v.add("meta", 0x00)
	_, err := NewReader(bytes.NewReader(v.b), int64(len(v.b)), nil)
	var e *Error
	if !errors.As(err, &e) || e.Offset != 12 {
		t.Fatalf("got %v", err)
	}
	// A block count of 2^32-1 in a small file.
	good := allTypesVec(t, "").b
	rd, _ := NewReader(bytes.NewReader(good), int64(len(good)), nil)
	bad := bytes.Clone(good)
	copy(bad[rd.ColumnStart(3):], []byte{0xff, 0xff, 0xff, 0xff})
	_, err = NewReader(bytes.NewReader(bad), int64(len(bad)), nil)
	if !errors.As(err, &e) || e.Column != 3 || e.Name != "col_4" || e.Offset != rd.ColumnStart(3) {
		t.Fatalf("got %v", err)
	}
	// An uncompressed size past the limit.
	bad = bytes.Clone(good)
	copy(bad[rd.ColumnStart(1)+8:], []byte{0xff, 0xff, 0xff, 0x7f})
	_, err = NewReader(bytes.NewReader(bad), int64(len(bad)), &ReaderOptions{MaxBlockSize: 1 << 20})
	if !errors.As(err, &e) || e.Column != 1 || e.Block != 0 {
		t.Fatalf("got %v", err)
	}
}
