package format

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestWriterMaxBlockSize: the Writer writes no block larger than
// WriterOptions.MaxBlockSize (by default the largest a default Reader
// reads): a value that would take a block past it is refused before it
// is copied, naming its column and row, and the row can be dropped; a row
// of many small values that passes it is refused too; a value that just
// fits is written and read back by a Reader with the same limit.
func TestWriterMaxBlockSize(t *testing.T) {
	const limit = 1 << 20
	cols := []ColumnMeta{{Name: "id", Type: Int}, {Name: "s", Type: String}, {Name: "a", Type: Long, Array: true}}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, cols, &WriterOptions{MaxBlockSize: limit, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	row := func(id int32, str string) error {
		w.StartRow()
		w.WriteInt(0, id)
		w.WriteString(1, str)
		w.WriteLength(2, 0)
		return w.EndRow()
	}
	if err := row(0, "small"); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 2*limit)
	w.StartRow()
	w.WriteInt(0, 1)
	alloc := allocDuring(func() { w.WriteString(1, big) })
	w.WriteLength(2, 0)
	err = w.EndRow()
	var e *Error
	if !errors.Is(err, ErrLimit) || !errors.As(err, &e) || e.Column != "s" || e.Row != 1 ||
		!strings.Contains(err.Error(), "MaxBlockSize") {
		t.Fatalf("a value of %d bytes: %v", len(big), err)
	}
	if alloc > 64<<10 {
		t.Errorf("refusing the value allocated %d KiB", alloc>>10)
	}
	w.AbortRow()
	// Many small values in one row: 200,000 longs of 8 bytes.
	w.StartRow()
	w.WriteInt(0, 1)
	w.WriteString(1, "")
	w.WriteLength(2, 200_000)
	for i := range 200_000 {
		w.WriteLong(2, int64(i)<<40)
	}
	if err := w.EndRow(); !errors.Is(err, ErrLimit) || !errors.As(err, &e) || e.Column != "a" {
		t.Fatalf("a row of 200,000 longs: %v", err)
	}
	w.AbortRow()
	// A string that takes the block to exactly the limit: after the six
	// bytes of row 0's "small" and the three of its own length. One byte
	// more is refused.
	if err := row(2, strings.Repeat("y", limit-8)); !errors.Is(err, ErrLimit) {
		t.Fatalf("one byte past the limit: %v", err)
	}
	w.AbortRow()
	fits := strings.Repeat("y", limit-9)
	if err := row(2, fits); err != nil {
		t.Fatalf("a value that fits: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := NewWriter(&buf, cols, &WriterOptions{MaxBlockSize: DefaultBlockSize}); !errors.Is(err, ErrUsage) {
		t.Fatalf("MaxBlockSize no larger than BlockSize: %v", err)
	}
	rd, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), &ReaderOptions{MaxBlockSize: limit})
	if err != nil {
		t.Fatal(err)
	}
	if n := rd.Validate(func(err error) { t.Error(err) }); n != 0 || rd.RowCount() != 2 {
		t.Fatalf("%d problems, %d rows", n, rd.RowCount())
	}
	blocks, _ := rd.Blocks(1)
	if last := blocks[len(blocks)-1]; last.UncompressedSize != limit {
		t.Fatalf("the last block holds %d bytes, want %d", last.UncompressedSize, limit)
	}
}
