package clmn

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format"
)

// readSourceValue reads the next value of a column of the source reader.
func readSourceValue(c *format.ColumnReader, t Type) (value, error) {
	var v value
	var err error
	switch t {
	case Int32:
		var x int32
		x, err = c.ReadInt()
		v.i = int64(x)
	case Int64:
		v.i, err = c.ReadLong()
	case Float64:
		v.f, err = c.ReadDouble()
	case String:
		v.s, err = c.ReadString()
	}
	return v, err
}

// TestSourceRandom: random tables read through the Source (a
// format.NewSourceReader of it), block by block in order and after seeks
// back and forth, give the values written, in columns of the Trevni 2
// types, with blocks of many sizes.
func TestSourceRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for iter := 0; iter < 40; iter++ {
		nrows := []int{0, 1, 7, 3000}[iter%4]
		cols, rows := randomTable(r, 1+r.IntN(5), nrows)
		data := writeTable(t, cols, rows, &WriterOptions{TempDir: t.TempDir()})
		rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			t.Fatal(err)
		}
		names := make([]string, len(cols))
		for j := range names {
			names[j] = "f" + string(rune('a'+j))
		}
		var meta format.MetaData
		meta.SetString("avro.schema", "x")
		src, err := NewSource(rd, &SourceOptions{Names: names, Meta: &meta, BlockSize: []int{1, 100, 0}[iter%3]})
		if err != nil {
			t.Fatal(err)
		}
		fr, err := format.NewSourceReader(src, &format.ReaderOptions{ReadAhead: iter%2 == 1})
		if err != nil {
			t.Fatal(err)
		}
		if fr.RowCount() != int64(nrows) || fr.Meta().GetString("avro.schema") != "x" {
			t.Fatalf("iter %d: %d rows, meta %v", iter, fr.RowCount(), fr.Meta())
		}
		for j, c := range cols {
			meta, err := fr.Column(j)
			if err != nil {
				t.Fatal(err)
			}
			if meta.Name != names[j] || meta.Type != trevniType(c.Type) || meta.Array || meta.Parent != "" {
				t.Fatalf("iter %d column %d: %+v", iter, j, meta)
			}
			cr, err := fr.Values(j)
			if err != nil {
				t.Fatal(err)
			}
			check := func(i int) {
				t.Helper()
				if err := cr.StartRow(); err != nil {
					t.Fatalf("iter %d column %d row %d: %v", iter, j, i, err)
				}
				got, err := readSourceValue(cr, c.Type)
				if err != nil {
					t.Fatalf("iter %d column %d row %d: %v", iter, j, i, err)
				}
				if !sameValue(c.Type, got, rows[i][j]) {
					t.Fatalf("iter %d column %d row %d: got %+v, want %+v", iter, j, i, got, rows[i][j])
				}
			}
			for i := range rows {
				check(i)
			}
			if err := cr.StartRow(); err != io.EOF {
				t.Fatalf("iter %d column %d: after the last row: %v", iter, j, err)
			}
			for k := 0; k < 6 && nrows > 0; k++ {
				row := r.IntN(nrows)
				if err := cr.SeekRow(int64(row)); err != nil {
					t.Fatalf("iter %d column %d: seek to %d: %v", iter, j, row, err)
				}
				check(row)
			}
			cr.Close()
		}
		if n := fr.Validate(func(err error) { t.Errorf("iter %d: %v", iter, err) }); n != 0 {
			t.Fatal(n)
		}
	}
}

// TestSourceDamage: the Source of a damaged file fails with the CLMN
// reader's located error (column and offset), reading its blocks through
// a format reader, never a panic or a silently wrong value; a block
// larger than SourceOptions.MaxBlockSize is an error wrapping ErrLimit.
func TestSourceDamage(t *testing.T) {
	good := small(t)
	sCol := 1
	readAll := func(data []byte, so *SourceOptions) error {
		rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			return err
		}
		src, err := NewSource(rd, so)
		if err != nil {
			return err
		}
		fr, err := format.NewSourceReader(src, nil)
		if err != nil {
			return err
		}
		for i := 0; i < fr.NumColumns(); i++ {
			cr, err := fr.Values(i)
			if err != nil {
				return err
			}
			for {
				if err := cr.StartRow(); err == io.EOF {
					break
				} else if err != nil {
					return err
				}
				if _, err := readSourceValue(cr, rd.Column(i).Type); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := readAll(good, nil); err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(bytes.NewReader(good), int64(len(good)), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := rd.Column(sCol)
	// The last byte of the zlib stream (its checksum) changed: found when
	// the last block is read.
	bad := append([]byte(nil), good...)
	bad[s.Offset+s.CompressedSize-1] ^= 0xff
	var ce *Error
	if err := readAll(bad, nil); !errors.As(err, &ce) || ce.Column != s.Name || !errors.Is(err, ErrFormat) {
		t.Errorf("a bad checksum: %v", err)
	}
	// A string's length past the column's data.
	raw := recompress(t, good, s, func(b []byte) { binary.BigEndian.PutUint16(b, 60000) })
	if err := readAll(raw, nil); !errors.As(err, &ce) || ce.Column != s.Name || !errors.Is(err, ErrFormat) {
		t.Errorf("a long string: %v", err)
	}
	if err := readAll(good, &SourceOptions{MaxBlockSize: 1}); !errors.Is(err, ErrLimit) {
		t.Errorf("MaxBlockSize 1: %v", err)
	}
}

// recompress returns data with column c's inflated bytes changed by
// mutate and compressed again, its sizes set to match.
func recompress(t *testing.T, data []byte, c Column, mutate func([]byte)) []byte {
	t.Helper()
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	cr, err := rd.Values(rd.Lookup(c.Name))
	if err != nil {
		t.Fatal(err)
	}
	var plain []byte
	for cr.Next() {
		var l [2]byte
		binary.BigEndian.PutUint16(l[:], uint16(len(cr.Bytes())))
		plain = append(append(plain, l[:]...), cr.Bytes()...)
	}
	if cr.Err() != nil {
		t.Fatal(cr.Err())
	}
	mutate(plain)
	if c.Offset+c.CompressedSize != int64(len(data)) {
		t.Fatalf("column %q is not the last", c.Name)
	}
	out := append([]byte(nil), data[:c.Offset]...)
	var zb bytes.Buffer
	zw := newZlib(&zb)
	zw.Write(plain)
	zw.Close()
	out = append(out, zb.Bytes()...)
	binary.BigEndian.PutUint32(out[sCsize:], uint32(zb.Len()))
	binary.BigEndian.PutUint32(out[sUsize:], uint32(len(plain)))
	return out
}

// TestSourceShortStringsUTF8: strings of 0 to 20 bytes (ASCII, and two-
// and three-byte characters) and ASCII strings of 0 to 63 bytes read
// through the Source as written; one byte
// 0xff at the end of a string of 1, 8, 9, 16 or 17 bytes (the edges of the
// two words a short string is checked and copied as) is an error naming
// the column and the string's row.
func TestSourceShortStringsUTF8(t *testing.T) {
	cols := []Column{{Name: "n", Type: Int32}, {Name: "s", Type: String}} // small's header layout, for recompress
	var rows [][]value
	for i := range 400 {
		s := strings.Repeat("abcdefghij", 2)[:i%21]
		if i%5 == 3 && len(s) >= 3 {
			s = s[:len(s)-3] + []string{"é", "€"}[i%2] + s[len(s)-1:][:3-len([]string{"é", "€"}[i%2])]
		}
		rows = append(rows, []value{{i: int64(i)}, {s: s}})
	}
	good := writeTable(t, cols, rows, nil)
	readStrings := func(data []byte) ([]string, error) {
		rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			return nil, err
		}
		src, err := NewSource(rd, nil)
		if err != nil {
			return nil, err
		}
		fr, err := format.NewSourceReader(src, nil)
		if err != nil {
			return nil, err
		}
		cr, err := fr.Values(1)
		if err != nil {
			return nil, err
		}
		var out []string
		for {
			if err := cr.StartRow(); err == io.EOF {
				return out, nil
			} else if err != nil {
				return out, err
			}
			s, err := cr.ReadString()
			if err != nil {
				return out, err
			}
			out = append(out, s)
		}
	}
	// And ASCII strings of 0 to 63 bytes, over several of the inflater's
	// buffers: copied with no check of their own.
	var plain [][]value
	letters := strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789", 2)
	for i := range 6000 {
		plain = append(plain, []value{{i: int64(i)}, {s: letters[i%7 : i%7+(i*13)%64]}})
	}
	for _, tab := range [][][]value{rows, plain} {
		got, err := readStrings(writeTable(t, cols, tab, nil))
		if err != nil || len(got) != len(tab) {
			t.Fatalf("%d strings, %v", len(got), err)
		}
		for i, s := range got {
			if s != tab[i][1].s {
				t.Fatalf("row %d: %q, want %q", i, s, tab[i][1].s)
			}
		}
	}
	rd, err := NewReader(bytes.NewReader(good), int64(len(good)), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []int{1, 8, 9, 16, 17} {
		row := 20*21 + l // past the strings with characters of several bytes
		if row >= len(rows) {
			row = l
		}
		at := 0 // the string's last byte in the inflated column
		for i := range row {
			at += 2 + len(rows[i][1].s)
		}
		at += 2 + len(rows[row][1].s) - 1
		bad := recompress(t, good, rd.Column(1), func(b []byte) { b[at] = 0xff })
		_, err := readStrings(bad)
		var ce *Error
		if !errors.As(err, &ce) || ce.Column != "s" || ce.Row != int64(row) || !strings.Contains(err.Error(), "not valid UTF-8") {
			t.Errorf("0xff ending the string of %d bytes at row %d: %v", l, row, err)
		}
	}
}
