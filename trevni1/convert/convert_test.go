package convert

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/trevni1"
)

// readV2 decodes every record of a version-2 file with assemble.
func readV2(t *testing.T, data []byte) []any {
	t.Helper()
	rd, err := format.NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	ar, err := assemble.NewAvroReader(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	for {
		r, err := ar.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
}

// An Impala file (no avro.schema) reads as records of ["null", T] fields,
// with the timestamp record and the fixedN annotations, and survives
// v1 -> v2 -> v1 byte for byte.
func TestImpalaFileAsAvro(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("..", "..", "testdata", "trevni1", "impala_all_types.trv"))
	if err != nil {
		t.Fatal(err)
	}
	rd, err := trevni1.NewReader(bytes.NewReader(orig), int64(len(orig)), nil)
	if err != nil {
		t.Fatal(err)
	}
	text, err := rd.AvroSchema()
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"type":"record","name":"Row","namespace":"trevni1","fields":[{"name":"col_1","type":["null","boolean"]},{"name":"col_2","type":["null",{"type":"int","trevni1.type":"fixed8"}]},{"name":"col_3","type":["null",{"type":"int","trevni1.type":"fixed16"}]},{"name":"col_4","type":["null","int"]},{"name":"col_5","type":["null","long"]},{"name":"col_6","type":["null","float"]},{"name":"col_7","type":["null","double"]},{"name":"col_8","type":["null",{"type":"record","name":"Timestamp","namespace":"trevni1","fields":[{"name":"nanosOfDay","type":"long"},{"name":"julianDay","type":"int"}]}]},{"name":"col_9","type":["null","string"]}]}`
	if text != want {
		t.Fatalf("schema\n%s\nwant\n%s", text, want)
	}
	var v2 bytes.Buffer
	if _, err := ToV2(context.Background(), &v2, rd, nil); err != nil {
		t.Fatal(err)
	}
	recs := readV2(t, v2.Bytes())
	ts := recs[0].(map[string]any)["col_8"].(map[string]any)["trevni1.Timestamp"].(map[string]any)
	if ts["nanosOfDay"] != int64(31714123456789) || ts["julianDay"] != int32(2456072) {
		t.Fatalf("timestamp %v", ts)
	}
	if recs[1].(map[string]any)["col_1"] != nil {
		t.Fatalf("row 1 %v", recs[1])
	}
	rd2, err := format.NewReader(bytes.NewReader(v2.Bytes()), int64(v2.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	var back bytes.Buffer
	if _, err := FromV2(context.Background(), &back, rd2, nil); err != nil {
		t.Fatal(err)
	}
	// The same columns and blocks; the file now carries avro.schema.
	rb, err := trevni1.NewReader(bytes.NewReader(back.Bytes()), int64(back.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := rb.AvroSchema(); got != text {
		t.Fatalf("schema after the round trip %s", got)
	}
	tail := func(b []byte, rd *trevni1.Reader) []byte { return b[rd.ColumnStart(0):] }
	if !bytes.Equal(tail(back.Bytes(), rb), tail(orig, rd)) {
		t.Fatalf("columns differ after v1 -> v2 -> v1")
	}
}

// countdownCtx is a context whose Err reports cancellation from its
// (live+1)th call on, to stop a conversion in the middle of its loop.
type countdownCtx struct {
	context.Context
	live int
}

func (c *countdownCtx) Err() error {
	if c.live == 0 {
		return context.Canceled
	}
	c.live--
	return nil
}

// Both conversions stop with the context's error, wrapped, at the first
// look after it ends: before anything when it has already ended, and
// after checkEvery-1 records when it ends during the loop.
func TestCancel(t *testing.T) {
	const n = 3 * checkEvery
	const text = `{"type":"record","name":"R","fields":[{"name":"a","type":"long"}]}`
	var v1 bytes.Buffer
	rw, err := trevni1.NewRecordWriter(&v1, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := rw.WriteBinary([]byte{byte(i%64) << 1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	rd1, err := trevni1.NewReader(bytes.NewReader(v1.Bytes()), int64(v1.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	var v2 bytes.Buffer
	if rows, err := ToV2(context.Background(), &v2, rd1, nil); err != nil || rows != n {
		t.Fatalf("ToV2: %d rows, %v", rows, err)
	}
	if got := readV2(t, v2.Bytes()); len(got) != n || got[n-1].(map[string]any)["a"] != int64((n-1)%64) {
		t.Fatalf("ToV2 gave %d records, last %v", len(got), got[len(got)-1])
	}
	rd2, err := format.NewReader(bytes.NewReader(v2.Bytes()), int64(v2.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, live := range []int{0, 1, 2} {
		want := int64(0)
		if live > 0 {
			want = int64(live*checkEvery - 1)
		}
		rows, err := ToV2(&countdownCtx{context.Background(), live}, io.Discard, rd1, nil)
		if !errors.Is(err, context.Canceled) || rows != want {
			t.Errorf("ToV2 with %d live looks: %d rows, %v; want %d rows and context.Canceled", live, rows, err, want)
		}
		rows, err = FromV2(&countdownCtx{context.Background(), live}, io.Discard, rd2, nil)
		if !errors.Is(err, context.Canceled) || rows != want {
			t.Errorf("FromV2 with %d live looks: %d rows, %v; want %d rows and context.Canceled", live, rows, err, want)
		}
	}
}
