package clmn_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/format"
)

// BenchmarkSourceRows reads 100,000 rows of four columns (INT64, FLOAT64,
// INT32 and STRING, as the flat fields of vec.Large) through a CLMN file's
// Source, each column in batches of its type, and through the column readers alone (the
// inflating and parsing that any reading of the file pays).
func BenchmarkSourceRows(b *testing.B) {
	data := benchFile(b, nil)
	open := func(b *testing.B) *clmn.Reader {
		rd, err := clmn.NewReader(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			b.Fatal(err)
		}
		return rd
	}
	b.Run("source", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			src, err := clmn.NewSource(open(b), nil)
			if err != nil {
				b.Fatal(err)
			}
			fr, err := format.NewSourceReader(src, nil)
			if err != nil {
				b.Fatal(err)
			}
			readColumns(b, fr)
		}
	})
	b.Run("columns", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			rd := open(b)
			for i := range rd.Columns() {
				cr, err := rd.Values(i)
				if err != nil {
					b.Fatal(err)
				}
				for cr.Next() {
				}
				if err := cr.Err(); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// readColumns reads every value of the four columns of fr in batches.
func readColumns(b *testing.B, fr *format.Reader) {
	longs, doubles, ints := make([]int64, 1024), make([]float64, 1024), make([]int32, 1024)
	for i := range 4 {
		c, err := fr.Values(i)
		if err != nil {
			b.Fatal(err)
		}
		for left := fr.RowCount(); left > 0; {
			var n int
			switch i {
			case 0:
				n, err = c.ReadLongs(longs)
			case 1:
				n, err = c.ReadDoubles(doubles)
			case 2:
				n, err = c.ReadInts(ints)
			case 3:
				n, err = c.ReadBytesTo(1024, func(int, []byte) {})
			}
			if err != nil && !errors.Is(err, io.EOF) {
				b.Fatal(err)
			}
			if n == 0 {
				b.Fatalf("column %d: %d values left, none read", i, left)
			}
			left -= int64(n)
		}
		c.Close()
	}
}

// benchFile writes the CLMN file of the benchmarks: 100,000 rows of four
// columns (INT64, FLOAT64, INT32 and STRING, as the flat fields of
// vec.Large) from one seed. row, when not nil, is given each row's values
// as they are written.
func benchFile(b *testing.B, row func(id int64, score float64, small int32, name []byte)) []byte {
	b.Helper()
	cols := []clmn.Column{{Name: "id", Type: clmn.Int64}, {Name: "score", Type: clmn.Float64}, {Name: "small", Type: clmn.Int32}, {Name: "name", Type: clmn.String}}
	var buf bytes.Buffer
	w, err := clmn.NewWriter(&buf, cols, nil)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	name := make([]byte, 12)
	for i := range 100000 {
		id, score, small := int64(i)*7919-int64(r.IntN(1000)), r.NormFloat64()*100, int32(r.IntN(1000)-500)
		w.WriteInt64(0, id)
		w.WriteFloat64(1, score)
		w.WriteInt32(2, small)
		n := r.IntN(13)
		for k := range n {
			name[k] = byte('a' + r.IntN(26))
		}
		w.WriteString(3, name[:n])
		if err := w.EndRow(); err != nil {
			b.Fatal(err)
		}
		if row != nil {
			row(id, score, small, name[:n])
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}
