package trevni1

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// benchRows is an Impala-like table: a nullable int, string and double.
func benchRows(n int) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		var s any = "row value " + string(rune('a'+i%26))
		if i%10 == 3 {
			s = nil
		}
		rows[i] = []any{int32(i * 7), s, float64(i) / 3}
	}
	return rows
}

var benchCols = []ColumnSpec{{Name: "col_1", Type: Int, MaxDef: 1}, {Name: "col_2", Type: String, MaxDef: 1}, {Name: "col_3", Type: Double, MaxDef: 1}}

func BenchmarkWrite(b *testing.B) {
	rows := benchRows(100000)
	for _, codec := range []string{"", "snappy", "deflate"} {
		b.Run("codec="+codec, func(b *testing.B) {
			var size int64
			b.ReportAllocs()
			for b.Loop() {
				var buf bytes.Buffer
				w, _ := NewWriter(&buf, benchCols, &WriterOptions{Codec: codec})
				for _, r := range rows {
					w.Int(0, 0, int64(r[0].(int32)))
					if s, ok := r[1].(string); ok {
						w.Bytes(1, 0, []byte(s))
					} else {
						w.Null(1, 0, 0)
					}
					w.Float64(2, 0, r[2].(float64))
					w.EndRow()
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
				size = int64(buf.Len())
			}
			b.SetBytes(size)
		})
	}
}

func BenchmarkRead(b *testing.B) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, benchCols, nil)
	for _, r := range benchRows(100000) {
		w.WriteRow(r...)
	}
	w.Close()
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.Run("columns", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				b.Fatal(err)
			}
			for c := range rd.NumColumns() {
				cr := rd.Values(c)
				for cr.Next() == nil {
				}
			}
		}
	})
	b.Run("records", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			rd, _ := NewReader(bytes.NewReader(data), int64(len(data)), nil)
			rr, err := NewRecordReader(rd)
			if err != nil {
				b.Fatal(err)
			}
			var rec []byte
			for {
				if rec, err = rr.ReadBinary(rec[:0]); err != nil {
					if !errors.Is(err, io.EOF) {
						b.Fatal(err)
					}
					break
				}
			}
		}
	})
}
