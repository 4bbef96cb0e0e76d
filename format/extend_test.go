package format

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// writeFieldsInParts writes the entries of fields as writeFields does, but
// writes the length of every array of a column that holds values in
// random parts: its first part with WriteLength, the others with
// ExtendLength, each before its values.
func writeFieldsInParts(r *rand.Rand, w *Writer, cols []ColumnMeta, row Row) {
	var put func(f Field)
	// parts calls write(i) for each entry of an array of n entries, with
	// the length written in parts.
	parts := func(col, n int, write func(i int)) {
		if n == 0 || cols[col].Type == Null {
			w.WriteLength(col, n)
			for i := range n {
				write(i)
			}
			return
		}
		first := 1 + r.IntN(n)
		w.WriteLength(col, first)
		i := 0
		for ; i < first; i++ {
			write(i)
		}
		for i < n {
			more := 1 + r.IntN(n-i)
			w.ExtendLength(col, more)
			for end := i + more; i < end; i++ {
				write(i)
			}
		}
	}
	put = func(f Field) {
		c := cols[f.Column]
		switch v := f.Value.(type) {
		case []any:
			parts(f.Column, len(v), func(i int) { w.WriteValue(f.Column, v[i]) })
		case []Element:
			parts(f.Column, len(v), func(i int) {
				if c.Type != Null || v[i].Value != nil {
					w.WriteValue(f.Column, v[i].Value)
				}
				for _, kf := range v[i].Fields {
					put(kf)
				}
			})
		default:
			w.WriteValue(f.Column, v)
		}
	}
	for _, f := range row {
		put(f)
	}
}

// TestExtendLength checks that lengths written in parts make the very file
// that whole lengths make, over random layouts and rows, with row checks
// on and off and with small blocks, so that runs of lengths, boolean
// packing, block cuts and statistics all meet extended lengths.
func TestExtendLength(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 9))
	for iter := range 300 {
		cols := randomLayout(r)
		children, roots := layoutTree(cols)
		var rows []Row
		for range r.IntN(60) {
			rows = append(rows, randomRow(r, cols, children, roots))
		}
		opts := &WriterOptions{BlockSize: 16 + r.IntN(200), Concurrency: 1 + r.IntN(2)}
		checked := r.IntN(2) == 0
		write := func(in func(w *Writer, row Row)) []byte {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, cols, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.CheckRows(checked); err != nil {
				t.Fatal(err)
			}
			for i, row := range rows {
				if err := w.StartRow(); err != nil {
					t.Fatalf("iteration %d: row %d: %v", iter, i, err)
				}
				in(w, row)
				if err := w.EndRow(); err != nil {
					t.Fatalf("iteration %d: row %d: %v", iter, i, err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatalf("iteration %d: %v", iter, err)
			}
			return buf.Bytes()
		}
		whole := write(func(w *Writer, row Row) { writeFields(w, cols, row) })
		inParts := write(func(w *Writer, row Row) { writeFieldsInParts(r, w, cols, row) })
		if !bytes.Equal(whole, inParts) {
			t.Fatalf("iteration %d (%+v, checked %v): lengths in parts wrote another file", iter, cols, checked)
		}
	}
}

// TestExtendLengthMisuse checks the cases ExtendLength refuses.
func TestExtendLengthMisuse(t *testing.T) {
	cols := []ColumnMeta{
		{Name: "p", Type: Null, Array: true},
		{Name: "s", Type: String, Array: true},
		{Name: "n", Type: Int},
	}
	cases := []struct {
		name  string
		write func(w *Writer)
	}{
		{"a column of type null", func(w *Writer) { w.WriteLength(0, 2); w.ExtendLength(0, 1) }},
		{"a column that is not an array", func(w *Writer) { w.WriteInt(2, 1); w.ExtendLength(2, 1) }},
		{"no length in the row", func(w *Writer) { w.ExtendLength(1, 1) }},
		{"an empty array", func(w *Writer) { w.WriteLength(1, 0); w.ExtendLength(1, 1) }},
		{"a length not yet written out", func(w *Writer) { w.WriteLength(1, 1); w.ExtendLength(1, 1) }},
		{"a negative count", func(w *Writer) { w.WriteLength(1, 2); w.WriteString(1, "a"); w.ExtendLength(1, -1) }},
		{"beyond the format's limit", func(w *Writer) {
			w.WriteLength(1, 2)
			w.ExtendLength(1, 1<<31-2)
		}},
	}
	for _, checked := range []bool{true, false} {
		for _, c := range cases {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, cols, nil)
			if err != nil {
				t.Fatal(err)
			}
			w.CheckRows(checked)
			w.StartRow()
			c.write(w)
			if err := w.Err(); !errors.Is(err, ErrUsage) {
				t.Errorf("%s (checked %v): got %v, want a usage error", c.name, checked, err)
			}
		}
	}
	// A length from an earlier row cannot be extended.
	var buf bytes.Buffer
	w, err := NewWriter(&buf, cols, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.StartRow()
	w.WriteLength(0, 0)
	w.WriteLength(1, 2)
	w.WriteString(1, "a")
	w.WriteString(1, "b")
	w.WriteInt(2, 1)
	if err := w.EndRow(); err != nil {
		t.Fatal(err)
	}
	w.StartRow()
	if w.ExtendLength(1, 1); !errors.Is(w.Err(), ErrUsage) {
		t.Errorf("extending the last row's length: got %v, want a usage error", w.Err())
	}
}
