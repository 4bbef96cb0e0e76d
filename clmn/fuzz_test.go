package clmn

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/trevni-go/trevni/format"
)

// FuzzReader reads every column of arbitrary bytes, itself and through the
// Source: no panic, no hang, every failure an *Error, the same values. A file that reads is written again from its
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
			svals, serr := readSourceColumn(rd, j)
			if err != nil {
				var ce *Error
				if !errors.As(err, &ce) {
					t.Fatalf("not an *Error: %v", err)
				}
				if !errors.As(serr, &ce) {
					t.Fatalf("through the Source: %v, where the column reads with %v", serr, err)
				}
				return
			}
			if serr != nil || len(svals) != len(vals) {
				t.Fatalf("through the Source: %d values, %v; the column %d", len(svals), serr, len(vals))
			}
			for i := range vals {
				if !sameValue(cols[j].Type, vals[i], svals[i]) {
					t.Fatalf("column %d row %d: %+v through the Source, %+v", j, i, svals[i], vals[i])
				}
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

// readSourceColumn reads every value of column j through the file's
// Source, in blocks of 64 bytes.
func readSourceColumn(rd *Reader, j int) ([]value, error) {
	src, err := NewSource(rd, &SourceOptions{BlockSize: 64})
	if err != nil {
		return nil, err
	}
	fr, err := format.NewSourceReader(src, nil)
	if err != nil {
		return nil, err
	}
	cr, err := fr.Values(j)
	if err != nil {
		return nil, err
	}
	defer cr.Close()
	var out []value
	for {
		if err := cr.StartRow(); err == io.EOF {
			return out, nil
		} else if err != nil {
			return out, err
		}
		v, err := readSourceValue(cr, rd.Column(j).Type)
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
}

// FuzzHeader parses headers whose entries are arbitrary, after a fixed
// header (magic, version, column count, row count) that gets that far:
// the column count and row count come from the input, and MaxColumns is
// small. Parsing never panics and fails with an *Error; a header that
// parses has at most MaxColumns distinct columns whose blocks follow the
// header in order, inside the file.
func FuzzHeader(f *testing.F) {
	f.Add(uint16(2), uint8(1), []byte("\x00\x01a\x00\x00\x00\x00\x04\x00\x00\x00\x0c\x00\x00\x00\x00\x00\x00\x00\x3c\x00\x01b\x03\x00\x00\x00\x02\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x48"))
	f.Add(uint16(3), uint8(0), bytes.Repeat([]byte("\x00\x01x\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"), 3))
	f.Add(uint16(40), uint8(2), []byte{})
	f.Fuzz(func(t *testing.T, ncols uint16, rows uint8, entries []byte) {
		const maxColumns = 16
		h := binary.BigEndian.AppendUint16([]byte(Magic), Version)
		h = binary.BigEndian.AppendUint32(h, uint32(ncols))
		h = binary.BigEndian.AppendUint64(h, uint64(rows))
		h = append(h, entries...)
		rd, err := NewReader(bytes.NewReader(h), int64(len(h)), &ReaderOptions{MaxColumns: maxColumns})
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("not an *Error: %v", err)
			}
			if int(ncols) > maxColumns && !errors.Is(err, ErrLimit) && !errors.Is(err, ErrFormat) {
				t.Fatalf("%d columns: %v", ncols, err)
			}
			return
		}
		if rd.NumColumns() != int(ncols) || ncols > maxColumns {
			t.Fatalf("%d columns read, %d stated, limit %d", rd.NumColumns(), ncols, maxColumns)
		}
		end := rd.HeaderSize()
		names := map[string]bool{}
		for _, c := range rd.Columns() {
			if c.Offset < end || c.Offset+c.CompressedSize > rd.Size() || names[c.Name] {
				t.Fatalf("column %+v: header or previous block ends at %d, file at %d", c, end, rd.Size())
			}
			names[c.Name] = true
			end = c.Offset + c.CompressedSize
		}
	})
}
