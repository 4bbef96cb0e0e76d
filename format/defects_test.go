package format

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestColumnStartInStartTable points a column's start into the table of
// column starts, which is not column data: the file must be refused.
func TestColumnStartInStartTable(t *testing.T) {
	cols := []ColumnMeta{{Name: "a", Type: Int}, {Name: "b", Type: Int}}
	one := []rawBlock{{rows: 1, size: 1, data: []byte{2}}}
	data := buildFile(t, 1, MetaData{}, cols, [][]rawBlock{one, one})
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	table := rd.ColumnStart(0) - 16 // where the two starts are stored
	for _, bad := range []int64{table + 8, table, table - 1, int64(len(data))} {
		damaged := bytes.Clone(data)
		binary.LittleEndian.PutUint64(damaged[table:], uint64(bad))
		_, err := NewReader(bytes.NewReader(damaged), int64(len(damaged)), nil)
		var e *Error
		if !errors.Is(err, ErrFormat) || !errors.As(err, &e) || e.Index != 0 || e.Offset != table ||
			!strings.Contains(err.Error(), "outside the file's data") {
			t.Errorf("start %d (table at %d): err = %v", bad, table, err)
		}
	}
}

// TestSeekValueConvertsAsWriteValue checks, for every column type and a
// range of Go values, that SeekValue accepts exactly the values that
// WriteValue accepts, as its documentation says.
func TestSeekValueConvertsAsWriteValue(t *testing.T) {
	values := []any{nil, true, int(1), int8(1), int16(1), int32(1), int64(1), int64(1 << 40), uint(1), uint8(1),
		uint16(1), uint32(1), uint64(1), uint64(1 << 63), float32(1.5), float64(1.5), "s", []byte("b"), struct{}{}}
	for _, typ := range []ValueType{Null, Boolean, Int, Long, Fixed32, Fixed64, Float, Double, String, Bytes} {
		for _, v := range values {
			w, err := NewWriter(io.Discard, []ColumnMeta{{Name: "c", Type: typ}}, &WriterOptions{Concurrency: 1})
			if err != nil {
				t.Fatal(err)
			}
			w.StartRow()
			w.WriteValue(0, v)
			writeErr := w.Err()
			c := &ColumnReader{typ: typ}
			_, seekErr := c.keyOf(v)
			if (writeErr == nil) != (seekErr == nil) {
				t.Errorf("%s column, %T(%v): WriteValue error %v, SeekValue error %v", typ, v, v, writeErr, seekErr)
			}
		}
	}
	// And through the public method, on a real file.
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, []ColumnMeta{{Name: "f", Type: Float, Values: true}}, nil)
	for _, f := range []float32{1, 2, 3} {
		w.WriteRow(f)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, _ := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	c, _ := rd.Values(0)
	if _, err := c.SeekValue(float64(2)); !errors.Is(err, ErrUsage) {
		t.Errorf("SeekValue(float64) on a float column: err = %v, want ErrUsage", err)
	}
	if row, err := c.SeekValue(float32(2)); err != nil || row != 1 {
		t.Errorf("SeekValue(float32(2)) = %d, %v", row, err)
	}
}

// TestErrorTextNotRepeated checks that no error says "not a valid trevni
// file" twice, for damage found in the header and in block descriptors.
func TestErrorTextNotRepeated(t *testing.T) {
	bogusType := []ColumnMeta{{Name: "a", Type: Int}}
	data := buildFile(t, 1, MetaData{}, bogusType, [][]rawBlock{{{rows: 1, size: 1, data: []byte{2}}}})
	data = bytes.Replace(data, []byte("\x06int"), []byte("\x06iny"), 1)
	// A trevni.values column whose first value's length runs past the end.
	values := []ColumnMeta{{Name: "s", Type: String, Values: true}}
	short := buildFile(t, 1, MetaData{}, values, [][]rawBlock{{{rows: 1, size: 2, data: []byte{2, 'x'}}}})
	desc := int(binary.LittleEndian.Uint64(short[len(short)-2-4-12-8:])) + 4 + 12
	short = append(short[:desc], 0x7e) // a length of 63 and nothing after it
	for name, file := range map[string][]byte{"type": data, "first value": short} {
		rd, err := NewReader(bytes.NewReader(file), int64(len(file)), nil)
		if err == nil {
			_, err = rd.Blocks(0)
		}
		if !errors.Is(err, ErrFormat) {
			t.Fatalf("%s: err = %v, want ErrFormat", name, err)
		}
		if n := strings.Count(err.Error(), ErrFormat.Error()); n != 1 {
			t.Errorf("%s: %q says %q %d times", name, err, ErrFormat, n)
		}
		if n := strings.Count(err.Error(), "trevni:"); n != 1 {
			t.Errorf("%s: %q repeats its location", name, err)
		}
	}
}

// TestNilAndOutOfRange checks that misuse through nil arguments and
// column numbers out of range gives errors, not panics.
func TestNilAndOutOfRange(t *testing.T) {
	if _, err := NewReader(nil, 100, nil); !errors.Is(err, ErrUsage) {
		t.Errorf("NewReader(nil): %v", err)
	}
	if _, err := NewReader(bytes.NewReader(nil), -1, nil); !errors.Is(err, ErrUsage) {
		t.Errorf("NewReader of size -1: %v", err)
	}
	if _, err := NewWriter(nil, []ColumnMeta{{Name: "a", Type: Int}}, nil); !errors.Is(err, ErrUsage) {
		t.Errorf("NewWriter(nil): %v", err)
	}
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, []ColumnMeta{{Name: "a", Type: Int}}, nil)
	w.WriteRow(1)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{-1, 1, 999} {
		if _, err := rd.Column(i); !errors.Is(err, ErrUsage) {
			t.Errorf("Column(%d): %v", i, err)
		}
		if _, err := rd.Values(i); !errors.Is(err, ErrUsage) {
			t.Errorf("Values(%d): %v", i, err)
		}
		if _, err := rd.Blocks(i); !errors.Is(err, ErrUsage) {
			t.Errorf("Blocks(%d): %v", i, err)
		}
	}
	if c, err := rd.Column(0); err != nil || c.Name != "a" {
		t.Errorf("Column(0) = %v, %v", c, err)
	}
}

// TestZstandardName checks that "zstandard", the Avro specification's
// name, works as a name of the zstd codec in Trevni files too.
func TestZstandardName(t *testing.T) {
	for _, name := range []string{CodecZstd, CodecZstandard} {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, []ColumnMeta{{Name: "s", Type: String}}, &WriterOptions{Codec: name, Checksum: ChecksumCRC32})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 1000 {
			w.WriteRow(strings.Repeat("x", i%50))
		}
		if err := w.Close(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rd, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
		if err != nil {
			t.Fatal(err)
		}
		if rd.Codec() != name {
			t.Errorf("codec %q stored as %q", name, rd.Codec())
		}
		if n := rd.Validate(func(err error) { t.Error(err) }); n != 0 {
			t.Errorf("%s: %d problems", name, n)
		}
	}
}
