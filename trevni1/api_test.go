package trevni1

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/internal/avrobin"
	"github.com/trevni-go/trevni/schema"
)

// Misuse of the Writer is remembered and reported.
func TestWriterMisuse(t *testing.T) {
	cols := []ColumnSpec{{Name: "a", Type: Int, MaxDef: 1}, {Name: "b", Type: String}}
	for name, f := range map[string]func(w *Writer){
		"wrong type":         func(w *Writer) { w.Bytes(0, 0, nil) },
		"null, not nullable": func(w *Writer) { w.Int(0, 0, 1); w.Null(1, 0, 0) },
		"missing column":     func(w *Writer) { w.Int(0, 0, 1) },
		"out of range":       func(w *Writer) { w.Int(0, 0, 1<<40) },
		"repetition":         func(w *Writer) { w.Int(0, 1, 1) },
		"no such column":     func(w *Writer) { w.Int(5, 0, 1) },
	} {
		w, err := NewWriter(io.Discard, cols, nil)
		if err != nil {
			t.Fatal(err)
		}
		f(w)
		if err := w.EndRow(); !errors.Is(err, ErrUsage) {
			t.Errorf("%s: EndRow returned %v", name, err)
		}
		if err := w.Close(); !errors.Is(err, ErrUsage) {
			t.Errorf("%s: Close returned %v", name, err)
		}
	}
	if _, err := NewWriter(io.Discard, cols, &WriterOptions{Codec: "zstd"}); !errors.Is(err, ErrCodec) {
		t.Errorf("codec zstd: %v", err)
	}
}

// A bad record is refused with its number and field, and is not written;
// the records around it are.
func TestRecordWriterBadRecord(t *testing.T) {
	const avsc = `{"type":"record","name":"R","fields":[{"name":"id","type":"int"},{"name":"tags","type":{"type":"array","items":{"type":"enum","name":"E","symbols":["A","B"]}}}]}`
	var buf bytes.Buffer
	rw, err := NewRecordWriter(&buf, avsc, nil)
	if err != nil {
		t.Fatal(err)
	}
	good := []byte{0x02, 0x04, 0x00, 0x02, 0x00} // id 1, tags [A, B]
	bad := []byte{0x04, 0x02, 0x08, 0x00}        // id 2, tags [ordinal 4]
	short := []byte{0x06, 0x04, 0x00}            // id 3, tags ends early
	if _, err := rw.WriteBinary(good); err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{bad, short} {
		_, err := rw.WriteBinary(b)
		var se *schema.Error
		if !errors.As(err, &se) || se.Record != 1 || se.Path != "tags" {
			t.Fatalf("got %v", err)
		}
	}
	if _, err := rw.WriteBinary(good); err != nil {
		t.Fatal(err)
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rd.RowCount() != 2 {
		t.Fatalf("%d rows", rd.RowCount())
	}
	rr, err := NewRecordReader(rd)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		rec, err := rr.ReadBinary(nil)
		if err != nil || !bytes.Equal(rec, good) {
			t.Fatalf("% x, %v", rec, err)
		}
	}
}

// Inconsistent levels between the columns of one record are errors naming
// the column, not wrong records.
func TestInconsistentLevels(t *testing.T) {
	const avsc = `{"type":"record","name":"R","fields":[{"name":"o","type":["null",{"type":"record","name":"S","fields":[{"name":"a","type":"int"},{"name":"b","type":"int"}]}]}]}`
	var buf bytes.Buffer
	cols, err := Layout(avsc)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := NewWriter(&buf, cols, &WriterOptions{Meta: Meta{Keys: []string{KeyAvroSchema}, Values: [][]byte{[]byte(avsc)}}})
	w.Int(0, 0, 1)  // o.a present
	w.Null(1, 0, 0) // o.b says o is absent
	if err := w.EndRow(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	rd, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := NewRecordReader(rd)
	if err != nil {
		t.Fatal(err)
	}
	_, err = rr.ReadBinary(nil)
	var e *Error
	if !errors.As(err, &e) || e.Name != "o.b" || !strings.Contains(err.Error(), "definition") {
		t.Fatalf("got %v", err)
	}
}

// Items of null take no bytes: a short record cannot claim billions.
func TestRecordWriterZeroSizeItems(t *testing.T) {
	const avsc = `{"type":"record","name":"R","fields":[{"name":"n","type":{"type":"array","items":"null"}}]}`
	rw, err := NewRecordWriter(io.Discard, avsc, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 40 blocks of 2^23 items each.
	var rec []byte
	for range 40 {
		rec = append(rec, 0x80, 0x80, 0x80, 0x08) // zigzag 2^23
	}
	rec = append(rec, 0)
	if _, err := rw.WriteBinary(rec); err == nil || !strings.Contains(err.Error(), "items in one record") {
		t.Fatalf("got %v", err)
	}
	if _, err := rw.WriteBinary([]byte{0x04, 0x00}); err != nil {
		t.Fatal(err)
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
}

// A trevni1.Timestamp field is a timestamp column: 12 bytes, every bit of
// both parts kept (boost's special day numbers near 2^32 read as negative
// ints).
func TestTimestampRecords(t *testing.T) {
	avsc := `{"type":"record","name":"R","fields":[{"name":"t","type":` + TimestampSchema + `}]}`
	var buf bytes.Buffer
	rw, err := NewRecordWriter(&buf, avsc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rw.Columns()[0].Type != Timestamp {
		t.Fatalf("column %+v", rw.Columns()[0])
	}
	recs := [][]byte{
		avrobin.AppendLong(avrobin.AppendLong(nil, 31714123456789), 2456072),
		avrobin.AppendLong(avrobin.AppendLong(nil, -1), -2), // 0xFFFFFFFE
		avrobin.AppendLong(avrobin.AppendLong(nil, math.MaxInt64), math.MinInt32),
	}
	for _, r := range recs {
		if _, err := rw.WriteBinary(r); err != nil {
			t.Fatal(err)
		}
	}
	rw.Close()
	rd, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	cr := rd.Values(0)
	for i, want := range []TimestampValue{{31714123456789, 2456072}, {-1, 0xFFFFFFFE}, {math.MaxInt64, 1 << 31}} {
		if err := cr.Next(); err != nil || cr.Timestamp() != want {
			t.Fatalf("entry %d: %+v, %v", i, cr.Timestamp(), err)
		}
	}
	// The body: three 12-byte values, no definition array (not nullable).
	if b := rd.Blocks(0)[0]; b.Uncompressed != 36 {
		t.Fatalf("block %+v", b)
	}
	rr, _ := NewRecordReader(rd)
	for i, want := range recs {
		got, err := rr.ReadBinary(nil)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("record %d: % x, %v", i, got, err)
		}
	}
}
