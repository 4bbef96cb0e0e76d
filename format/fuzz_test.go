package format

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"testing"
)

// FuzzReader opens arbitrary bytes as a Trevni file and exercises
// everything the reader offers: it must never panic, hang or allocate
// without bound, only return errors.
func FuzzReader(f *testing.F) {
	for file := range interopFiles(f) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) <= 64<<10 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rd, err := NewReader(bytes.NewReader(data), int64(len(data)), &ReaderOptions{MaxBlockSize: 1 << 20})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		rd.Verify(nil)
		rows, err := rd.Rows()
		if err != nil {
			return
		}
		rows.MaxElems = 1 << 12
		for n := 0; n < 2000; n++ {
			if _, err := rows.Read(); err != nil {
				if err != io.EOF {
					var e *Error
					if !errors.As(err, &e) {
						t.Fatalf("error of type %T: %v", err, err)
					}
				}
				break
			}
		}
		for i := 0; i < rd.NumColumns(); i++ {
			c, err := rd.Values(i)
			if err != nil {
				continue
			}
			for _, row := range []int64{rd.RowCount() / 2, rd.RowCount() - 1, 0} {
				if row >= 0 && row < 1<<20 {
					c.SeekRow(row)
				}
			}
			if c.meta.Values {
				c.SeekValue(c.meta.Type.zero())
			}
		}
	})
}

// TestCorruptFilesFail truncates and damages Java's files and checks that
// every failure is an error, never a panic.
func TestCorruptFilesFail(t *testing.T) {
	for file := range interopFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > 64<<10 {
			continue
		}
		step := max(1, len(data)/40)
		for cut := 0; cut < len(data); cut += step {
			rd, err := NewReader(bytes.NewReader(data[:cut]), int64(cut), nil)
			if err == nil && rd.Verify(nil) == 0 && rd.RowCount() > 0 {
				t.Fatalf("%s cut at %d of %d: no error", file, cut, len(data))
			}
		}
		for pos := 0; pos < len(data); pos += step {
			bad := append([]byte(nil), data...)
			bad[pos] ^= 0x5a
			if rd, err := NewReader(bytes.NewReader(bad), int64(len(bad)), nil); err == nil {
				rd.Verify(nil)
			}
		}
	}
}

// TestVerifyHugeRunIsQuick verifies a tiny file whose array column claims
// a billion empty rows through a single run of zero lengths: a legitimate
// encoding, which must not take a billion steps to check.
func TestVerifyHugeRunIsQuick(t *testing.T) {
	const rows = 1 << 30
	var buf bytes.Buffer
	cols := []ColumnMeta{{Name: "a", Type: Null, Array: true}, {Name: "a#x", Type: Int, Parent: "a"}, {Name: "n", Type: Null}}
	w, err := NewWriter(&buf, cols, &WriterOptions{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Writing a billion rows would take minutes: set the state they would
	// leave, one run of a billion zero lengths in column a.
	w.rowCount = rows
	w.cols[0].runLength, w.cols[0].runValue = rows, 0
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	if len(data) > 300 {
		t.Fatalf("the file has %d bytes", len(data))
	}
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rd.RowCount() != rows {
		t.Fatalf("%d rows", rd.RowCount())
	}
	if n := rd.Verify(func(err error) { t.Error(err) }); n != 0 {
		t.Fatalf("%d problems", n)
	}
	// The same file with a child value where the run says there is none is
	// caught.
	bad := append([]byte(nil), data...)
	binary.LittleEndian.PutUint32(bad[rd.ColumnStart(1)+8:], 1) // a#x: uncompressed size 1
	rd, err = NewReader(bytes.NewReader(bad), int64(len(bad)), nil)
	if err == nil && rd.Verify(nil) == 0 {
		t.Fatal("a damaged child column passed")
	}
}
