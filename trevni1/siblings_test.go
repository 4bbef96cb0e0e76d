package trevni1_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/trevni1"
)

// siblingsFile writes a version-1 file of an array of records {x, y}
// whose columns pts.x and pts.y hold items per record as given: the
// columns of one array that disagree when the counts differ.
func siblingsFile(t testing.TB, xs, ys [][]int64) []byte {
	t.Helper()
	const avsc = `{"type":"record","name":"R","fields":[{"name":"pts","type":{"type":"array","items":{"type":"record","name":"P","fields":[{"name":"x","type":"int"},{"name":"y","type":"int"}]}}}]}`
	cols := []trevni1.ColumnSpec{{Name: "pts.x", Type: trevni1.Int, MaxDef: 1, MaxRep: 1}, {Name: "pts.y", Type: trevni1.Int, MaxDef: 1, MaxRep: 1}}
	var buf bytes.Buffer
	w, err := trevni1.NewWriter(&buf, cols, &trevni1.WriterOptions{Meta: trevni1.Meta{Keys: []string{trevni1.KeyAvroSchema}, Values: [][]byte{[]byte(avsc)}}})
	if err != nil {
		t.Fatal(err)
	}
	for r := range xs {
		for c, items := range [][]int64{xs[r], ys[r]} {
			if len(items) == 0 {
				w.Null(c, 0, 0)
			}
			for i, v := range items {
				w.Int(c, min(i, 1), v)
			}
		}
		if err := w.EndRow(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readSourceRecords reads every record of a version-1 file through its
// Source, as the front door does.
func readSourceRecords(data []byte) ([][]byte, error) {
	rd, err := trevni1.NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		return nil, err
	}
	src, err := trevni1.NewSource(rd)
	if err != nil {
		return nil, err
	}
	fr, err := format.NewSourceReader(src, nil)
	if err != nil {
		return nil, err
	}
	ar, err := assemble.NewAvroReader(fr, nil)
	if err != nil {
		return nil, err
	}
	var recs [][]byte
	for {
		b, err := ar.ReadBinary(nil)
		if errors.Is(err, io.EOF) {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
		recs = append(recs, b)
	}
}

// Sibling columns that hold as many items per block but not per record
// are a located error, not values shifted from record to record.
func TestSiblingsDisagree(t *testing.T) {
	good := siblingsFile(t, [][]int64{{1, 2}, {3}, {}}, [][]int64{{10, 20}, {30}, {}})
	recs, err := readSourceRecords(good)
	if err != nil || len(recs) != 3 {
		t.Fatalf("agreeing columns: %d records, %v", len(recs), err)
	}
	// Record 0 has two x and one y; record 1 one x and two y.
	bad := siblingsFile(t, [][]int64{{1, 2}, {3}, {}}, [][]int64{{10}, {20, 30}, {}})
	recs, err = readSourceRecords(bad)
	var e *trevni1.Error
	if !errors.Is(err, trevni1.ErrFormat) || !errors.As(err, &e) {
		t.Fatalf("disagreeing columns: %d records, %v", len(recs), err)
	}
	if e.Name != "pts.y" || e.Block != 0 || e.Row != 0 || !strings.Contains(err.Error(), `"pts.x"`) {
		t.Fatalf("error names column %q, block %d, row %d: %v", e.Name, e.Block, e.Row, err)
	}
	// The record reader does not read it either.
	rd, err := trevni1.NewReader(bytes.NewReader(bad), int64(len(bad)), nil)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := trevni1.NewRecordReader(rd)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err = rr.ReadBinary(nil); err != nil {
			break
		}
	}
	if errors.Is(err, io.EOF) {
		t.Fatalf("the record reader reads the disagreeing columns")
	}
	t.Logf("source: %v; record reader: %v", recs, err)
}
