package clmn

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"testing"
)

// FuzzReader reads every column of arbitrary bytes: no panic, no hang, and
// every failure an *Error. A file that reads is written again from its
// values and must read back the same.
func FuzzReader(f *testing.F) {
	if b, err := os.ReadFile("../testdata/clmn/sample.clmn"); err == nil {
		f.Add(b)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 4; n++ {
		cols, rows := randomTable(r, 1+n, n*3)
		f.Add(writeTable(f, cols, rows, nil))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("not an *Error: %v", err)
			}
			return
		}
		cols := rd.Columns()
		if rd.RowCount() > 1<<16 {
			// Read without keeping the values: the rows need not fit in memory.
			for j := range cols {
				cr, _ := rd.Values(j)
				for cr.Next() {
				}
				if err := cr.Err(); err != nil {
					var ce *Error
					if !errors.As(err, &ce) {
						t.Fatalf("not an *Error: %v", err)
					}
				}
			}
			return
		}
		table := make([][]value, rd.RowCount())
		for j := range cols {
			vals, err := readColumn(rd, j)
			if err != nil {
				var ce *Error
				if !errors.As(err, &ce) {
					t.Fatalf("not an *Error: %v", err)
				}
				return
			}
			for i, v := range vals {
				if table[i] == nil {
					table[i] = make([]value, len(cols))
				}
				table[i][j] = v
			}
		}
		again := writeTable(t, cols, table, nil)
		rd2, err := NewReader(bytes.NewReader(again), int64(len(again)), nil)
		if err != nil {
			t.Fatal(err)
		}
		for j, c := range cols {
			vals, err := readColumn(rd2, j)
			if err != nil {
				t.Fatal(err)
			}
			for i := range vals {
				if !sameValue(c.Type, vals[i], table[i][j]) {
					t.Fatalf("column %d row %d changed", j, i)
				}
			}
		}
	})
}
