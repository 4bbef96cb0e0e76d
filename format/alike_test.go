package format

import (
	"bytes"
	"errors"
	"testing"
)

// TestSkipAlikeRows skips rows of a run of one-lengths (arrays of one null)
// and checks that the
// reader goes on where reading them one by one would, and that it refuses
// to skip past the run or the block.
func TestSkipAlikeRows(t *testing.T) {
	var file bytes.Buffer
	w, err := NewWriter(&file, []ColumnMeta{{Name: "a", Type: Null, Array: true}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	lengths := []int{1, 1, 1, 1, 1, 1, 0, 2}
	for _, n := range lengths {
		w.StartRow()
		w.WriteLength(0, n)
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
	c, err := rd.Values(0)
	if err != nil {
		t.Fatal(err)
	}
	for row := range 2 {
		if err := c.StartRow(); err != nil {
			t.Fatal(err)
		}
		before := c.ReadState()
		if n, err := c.NextLength(); n != 1 || err != nil {
			t.Fatalf("NextLength: %d, %v", n, err)
		}
		// The first length reads the run's code; the second is served
		// from the run without a byte.
		if after := c.ReadState(); row == 1 && (after.Pos != before.Pos || after.Run != before.Run-1 || after.Run != 4) {
			t.Fatalf("a length from the run: state %+v, then %+v", before, after)
		}
	}
	if c.RowsLeftInBlock() != 6 {
		t.Fatalf("RowsLeftInBlock: %d", c.RowsLeftInBlock())
	}
	// The run has 4 lengths left: 5 rows of one each are too many.
	if err := c.SkipAlikeRows(5, 1); !errors.Is(err, ErrUsage) {
		t.Fatalf("SkipAlikeRows past the run: %v", err)
	}
	if err := c.SkipAlikeRows(7, 0); !errors.Is(err, ErrUsage) {
		t.Fatalf("SkipAlikeRows past the block: %v", err)
	}
	// Skipping 3 rows (the caller's promise: their values are not read
	// here) leaves the run's last length for row 5.
	if err := c.SkipAlikeRows(3, 1); err != nil {
		t.Fatal(err)
	}
	if c.Row() != 4 || c.ReadState().Run != 1 {
		t.Fatalf("after the skip: row %d, state %+v", c.Row(), c.ReadState())
	}
}
