package format

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// batchRow is one row of the columns of TestBatchAsRows: an id (with
// first values), an optional string (an array column of 0 or 1 values),
// a flag, and a list of doubles (an array column and its child).
type batchRow struct {
	id   int64
	name []byte // nil: none
	flag bool
	list []float64
}

var batchColumns = []ColumnMeta{
	{Name: "id", Type: Long, Values: true},
	{Name: "name", Type: String, Array: true},
	{Name: "flag", Type: Boolean},
	{Name: "list", Type: Null, Array: true},
	{Name: "list#item", Type: Double, Parent: "list"},
}

// writeBatchRow writes the lengths and values of row x in column col.
func writeBatchRow(w *Writer, col int, x *batchRow) {
	switch col {
	case 0:
		w.WriteLong(0, x.id)
	case 1:
		if x.name == nil {
			w.WriteLength(1, 0)
		} else {
			w.WriteLength(1, 1)
			w.WriteStringBytes(1, x.name)
		}
	case 2:
		w.WriteBool(2, x.flag)
	case 3:
		w.WriteLength(3, len(x.list))
	case 4:
		for _, v := range x.list {
			w.WriteDouble(4, v)
		}
	}
}

// TestBatchAsRows checks that rows written a column at a time in batches
// of random sizes (StartRows, BatchRow, EndRows), the columns in a random
// order, make the file that writing them one by one makes, byte for byte,
// over random rows, block sizes and codecs, and that the file reads back
// as those rows.
func TestBatchAsRows(t *testing.T) {
	for seed := range uint64(24) {
		rng := rand.New(rand.NewPCG(seed, 35))
		rows := make([]batchRow, 1+rng.IntN(3000))
		for i := range rows {
			x := &rows[i]
			x.id = rng.Int64N(1<<40) - 1<<39
			if rng.IntN(4) != 0 {
				x.name = fmt.Appendf(nil, "n%d", rng.IntN(1<<rng.IntN(30)))
			}
			x.flag = rng.IntN(2) == 0
			for range rng.IntN(4) {
				x.list = append(x.list, rng.NormFloat64())
			}
		}
		opts := &WriterOptions{Codec: []string{CodecNull, CodecDeflate, CodecSnappy}[seed%3], Checksum: ChecksumCRC32,
			BlockSize: 16 + rng.IntN(600), DisableStats: seed%4 == 3}
		var one bytes.Buffer
		w, err := NewWriter(&one, batchColumns, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			if err := w.StartRow(); err != nil {
				t.Fatal(err)
			}
			for col := range batchColumns {
				writeBatchRow(w, col, &rows[i])
			}
			if err := w.EndRow(); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		var batched bytes.Buffer
		if w, err = NewWriter(&batched, batchColumns, opts); err != nil {
			t.Fatal(err)
		}
		if err := w.CheckRows(false); err != nil {
			t.Fatal(err)
		}
		for start := 0; start < len(rows); {
			n := min(1+rng.IntN(700), len(rows)-start)
			if err := w.StartRows(n); err != nil {
				t.Fatal(err)
			}
			for _, col := range rng.Perm(len(batchColumns)) {
				for r := range n {
					w.BatchRow(col, r)
					writeBatchRow(w, col, &rows[start+r])
				}
			}
			if err := w.EndRows(); err != nil {
				t.Fatal(err)
			}
			start += n
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(one.Bytes(), batched.Bytes()) {
			t.Fatalf("seed %d: %d rows in batches make %d bytes, not the %d bytes of the rows one by one", seed, len(rows), batched.Len(), one.Len())
		}
		r, err := NewReader(bytes.NewReader(batched.Bytes()), int64(batched.Len()), nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.RowCount() != int64(len(rows)) {
			t.Fatalf("seed %d: %d rows read, want %d", seed, r.RowCount(), len(rows))
		}
		ids := make([]int64, len(rows))
		c, err := r.Values(0)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := c.ReadLongs(ids); err != nil || n != len(rows) {
			t.Fatalf("seed %d: read %d ids (%v), want %d", seed, n, err, len(rows))
		}
		for i := range rows {
			if ids[i] != rows[i].id {
				t.Fatalf("seed %d: id %d is %d, want %d", seed, i, ids[i], rows[i].id)
			}
		}
	}
}

// TestBatchMisuse checks that a batch is refused with the row checks on,
// and that BatchRow outside a batch or past its rows is an error of the
// file.
func TestBatchMisuse(t *testing.T) {
	cols := []ColumnMeta{{Name: "id", Type: Long}}
	w, err := NewWriter(&bytes.Buffer{}, cols, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.StartRows(2); !errors.Is(err, ErrUsage) {
		t.Errorf("StartRows with the row checks on: %v, want ErrUsage", err)
	}
	if err := w.CheckRows(false); err != nil {
		t.Fatal(err)
	}
	if err := w.StartRows(0); !errors.Is(err, ErrUsage) {
		t.Errorf("StartRows(0): %v, want ErrUsage", err)
	}
	if err := w.StartRows(2); err != nil {
		t.Fatal(err)
	}
	w.BatchRow(0, 2)
	if err := w.EndRows(); !errors.Is(err, ErrUsage) {
		t.Errorf("BatchRow past the batch: EndRows says %v, want ErrUsage", err)
	}
	w2, _ := NewWriter(&bytes.Buffer{}, cols, nil)
	w2.BatchRow(0, 0)
	if err := w2.Close(); !errors.Is(err, ErrUsage) {
		t.Errorf("BatchRow outside a batch: Close says %v, want ErrUsage", err)
	}
}
