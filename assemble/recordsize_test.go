package assemble

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/shred"
)

// bigRecordsSchema has an array of empty records, whose elements cost
// nothing in the file (the items read no column), and an array of longs.
const bigRecordsSchema = `{"type":"record","name":"R","fields":[
 {"name":"id","type":"long"},
 {"name":"empties","type":{"type":"array","items":{"type":"record","name":"E","fields":[]}}},
 {"name":"longs","type":{"type":"array","items":"long"}}]}`

// bigRecordsFile writes three records: small, one with n empty records,
// one with n longs; written from Avro binary, so that the test holds no
// native value of n elements.
func bigRecordsFile(t *testing.T, n int) *format.Reader {
	t.Helper()
	var file bytes.Buffer
	aw, err := shred.NewAvroWriter(&file, bigRecordsSchema, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := func(id int64, empties, longs int) []byte {
		b := binary.AppendVarint(nil, id)
		if empties > 0 {
			b = binary.AppendVarint(b, int64(empties))
		}
		b = append(b, 0)
		if longs > 0 {
			b = binary.AppendVarint(b, int64(longs))
			for i := 0; i < longs; i++ {
				b = binary.AppendVarint(b, int64(i))
			}
		}
		return append(b, 0)
	}
	for _, r := range [][]byte{rec(0, 3, 3), rec(1, n, 0), rec(2, 0, n)} {
		if err := aw.WriteBinary(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	return openBytes(t, file.Bytes())
}

// A record whose assembled form passes the byte budget fails, naming the
// record, in every output, before its memory is spent; the records
// within the budget read.
func TestMaxRecordBytes(t *testing.T) {
	const n = 1 << 20
	rd := bigRecordsFile(t, n)
	const budget = 4 << 20 // n elements cost at least 16 MiB
	outputs := []struct {
		name string
		read func(ar *AvroReader) error
	}{
		{"Read", func(ar *AvroReader) error { _, err := ar.Read(); return err }},
		{"ReadBinary", func(ar *AvroReader) error { _, err := ar.ReadBinary(nil); return err }},
		{"ReadJSON", func(ar *AvroReader) error { _, err := ar.ReadJSON(nil); return err }},
	}
	for _, o := range outputs {
		ar, err := NewAvroReader(rd, &Options{MaxRecordBytes: budget})
		if err != nil {
			t.Fatal(err)
		}
		if err := o.read(ar); err != nil {
			t.Fatalf("%s: the small record: %v", o.name, err)
		}
		for row := int64(1); row <= 2; row++ {
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			err := o.read(ar)
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			var se *schema.Error
			if !errors.Is(err, format.ErrRecordSize) || !errors.Is(err, format.ErrLimit) || !errors.As(err, &se) || se.Record != row {
				t.Errorf("%s: record %d: %v, want ErrRecordSize naming the record", o.name, row, err)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 4*budget {
				t.Errorf("%s: record %d: allocated %d MiB for a budget of %d MiB", o.name, row, grew>>20, budget>>20)
			}
			if err != nil && !strings.Contains(err.Error(), "MaxRecordBytes") {
				t.Errorf("%s: %v does not name the option", o.name, err)
			}
			if err := ar.SeekRow(row + 1); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The default budget (64 MiB) holds a million elements; a larger
	// budget lets the records through.
	for _, o := range outputs {
		ar, err := NewAvroReader(rd, &Options{MaxRecordBytes: 256 << 20})
		if err != nil {
			t.Fatal(err)
		}
		for row := 0; row < 3; row++ {
			if err := o.read(ar); err != nil {
				t.Errorf("%s: record %d with a large budget: %v", o.name, row, err)
			}
		}
	}
	// Validate keeps nothing, and takes no budget.
	ar, err := NewAvroReader(rd, &Options{MaxRecordBytes: budget})
	if err != nil {
		t.Fatal(err)
	}
	if err := ar.Validate(t.Context()); err != nil {
		t.Errorf("Validate: %v", err)
	}
}
