package trevni1_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/trevni-go/trevni/trevni1"
)

// FuzzSourceAgainstRecords reads a version-1 file through its Source (the
// path of every reader above it) and through RecordReader, which turns the
// levels into records on its own: a record both read must be the same
// bytes, and a file the Source reads to its end without an error must read
// to its end through RecordReader too, so that damage the record reader
// finds is never read past by the Source (columns that disagree record by
// record, say).
func FuzzSourceAgainstRecords(f *testing.F) {
	for _, b := range differentialSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rd, err := trevni1.NewReader(bytes.NewReader(data), int64(len(data)), &trevni1.ReaderOptions{MaxBlockSize: 1 << 20, BlockMemory: 16 << 20})
		if err != nil || rd.RowCount() > 1<<16 {
			return
		}
		if _, err := trevni1.NewSource(rd); err != nil {
			return // a schema that does not lay out the file's columns
		}
		fromSource, srcErr := readSourceRecords(data)
		rr, err := trevni1.NewRecordReader(rd)
		if err != nil {
			t.Fatalf("the Source reads a file RecordReader refuses: %v", err)
		}
		for i := 0; ; i++ {
			b, err := rr.ReadBinary(nil)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				if srcErr == nil {
					t.Fatalf("record %d: RecordReader: %v; the Source read %d records without an error", i, err, len(fromSource))
				}
				break
			}
			if i < len(fromSource) && !bytes.Equal(b, fromSource[i]) {
				t.Fatalf("record %d: through the Source % x, RecordReader % x", i, fromSource[i], b)
			}
		}
	})
}

// differentialSeeds returns files of arrays, maps and unions whose columns
// lie under one another, and the file of two columns that disagree.
func differentialSeeds(t testing.TB) [][]byte {
	files := [][]byte{
		siblingsFile(t, [][]int64{{1, 2}, {3}, {}}, [][]int64{{10, 20}, {30}, {}}),
		siblingsFile(t, [][]int64{{1, 2}, {3}, {}}, [][]int64{{10}, {20, 30}, {}}),
	}
	schemas := []struct {
		avsc string
		recs [][]byte
	}{
		{`{"type":"record","name":"R","fields":[{"name":"pts","type":{"type":"array","items":{"type":"record","name":"P","fields":[{"name":"x","type":"int"},{"name":"y","type":["null","string"]}]}}}]}`,
			[][]byte{{0x04, 0x02, 0x00, 0x04, 0x02, 0x02, 'a', 0x00}, {0x00}, {0x02, 0x06, 0x00, 0x00}}},
		{`{"type":"record","name":"R","fields":[{"name":"m","type":{"type":"map","values":{"type":"array","items":"long"}}},{"name":"u","type":["null",{"type":"record","name":"Q","fields":[{"name":"a","type":"int"},{"name":"b","type":"int"}]}]}]}`,
			[][]byte{{0x02, 0x02, 'k', 0x04, 0x02, 0x04, 0x00, 0x00, 0x02, 0x02, 0x04}, {0x00, 0x00}, {0x04, 0x02, 'a', 0x00, 0x02, 'b', 0x02, 0x06, 0x00, 0x00, 0x00}}},
	}
	for _, s := range schemas {
		for _, opts := range []*trevni1.WriterOptions{nil, {Codec: trevni1.CodecSnappy}} {
			var buf bytes.Buffer
			rw, err := trevni1.NewRecordWriter(&buf, s.avsc, opts)
			if err != nil {
				t.Fatal(err)
			}
			for i, rec := range s.recs {
				if _, err := rw.WriteBinary(rec); err != nil {
					t.Fatal(fmt.Errorf("record %d: %w", i, err))
				}
			}
			if err := rw.Close(); err != nil {
				t.Fatal(err)
			}
			files = append(files, buf.Bytes())
		}
	}
	return files
}

// The seeds read alike both ways, but for the disagreeing columns, which
// both refuse.
func TestDifferentialSeeds(t *testing.T) {
	for i, b := range differentialSeeds(t) {
		recs, err := readSourceRecords(b)
		if (err != nil) != (i == 1) {
			t.Fatalf("seed %d: %d records, %v", i, len(recs), err)
		}
	}
}
