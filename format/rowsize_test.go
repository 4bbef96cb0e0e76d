package format

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// A row whose assembled form passes RowReader.MaxBytes fails with
// ErrRecordSize naming the row, in Read and ReadJSON; the rows around it
// read.
func TestRowReaderMaxBytes(t *testing.T) {
	var file bytes.Buffer
	// An array of null-typed parents, each with a child array: elements
	// that cost nothing in the file.
	w, err := NewWriter(&file, []ColumnMeta{
		{Name: "a", Type: Null, Array: true},
		{Name: "b", Type: Null, Array: true, Parent: "a"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 1 << 17
	for _, k := range []int{2, n, 2} {
		w.StartRow()
		w.WriteLength(0, k)
		for range k {
			w.WriteLength(1, 0)
		}
		if err := w.EndRow(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(bytes.NewReader(file.Bytes()), int64(file.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, json := range []bool{false, true} {
		rr, err := rd.Rows()
		if err != nil {
			t.Fatal(err)
		}
		rr.MaxBytes = 1 << 20 // n elements cost at least 2 MiB either way
		read := func() error {
			if json {
				_, err := rr.ReadJSON(nil)
				return err
			}
			_, err := rr.Read()
			return err
		}
		if err := read(); err != nil {
			t.Fatalf("json %v: row 0: %v", json, err)
		}
		err = read()
		var fe *Error
		if !errors.Is(err, ErrRecordSize) || !errors.Is(err, ErrLimit) || !errors.As(err, &fe) || fe.Row != 1 {
			t.Errorf("json %v: row 1: %v, want ErrRecordSize at row 1", json, err)
		}
		if err := rr.SeekRow(2); err != nil {
			t.Fatal(err)
		}
		if err := read(); err != nil {
			t.Errorf("json %v: row 2: %v", json, err)
		}
		if err := read(); err != io.EOF {
			t.Errorf("json %v: after the last row: %v", json, err)
		}
		// The default budget holds the row.
		rr.MaxBytes = 0
		if err := rr.SeekRow(1); err != nil {
			t.Fatal(err)
		}
		if err := read(); err != nil {
			t.Errorf("json %v: row 1 with the default budget: %v", json, err)
		}
		rr.Close()
	}
}
