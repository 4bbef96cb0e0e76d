package levels_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/assemble/levels"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/shred"
)

// A part's scan report from the readers of its leaves is the one the
// row interpreter gives reading the same rows: each column's blocks read
// and skipped, the bytes read; with a filter, its columns and the rows
// it scanned count too.
func TestScanReportAsAssemble(t *testing.T) {
	ctx := context.Background()
	const text = `{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"s","type":"string"},
		{"name":"arr","type":{"type":"array","items":"int"}}]}`
	var buf bytes.Buffer
	w, err := shred.NewAvroWriter(&buf, text, &shred.Options{WriterOptions: format.WriterOptions{BlockSize: 256}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		if err := w.Write(map[string]any{"a": int64(i), "s": fmt.Sprint("s", i*i), "arr": []any{int32(i), int32(i % 3)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	open := func() *format.Reader {
		rd, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
		if err != nil {
			t.Fatal(err)
		}
		return rd
	}
	const first, n = 700, 600
	// The row interpreter's report of rows first to first+n.
	ard := open()
	ar, err := assemble.NewAvroReader(ard, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ar.SeekRow(first); err != nil {
		t.Fatal(err)
	}
	ar.StopAt(first + n)
	for range n {
		if _, err := ar.Read(); err != nil {
			t.Fatal(err)
		}
	}
	want := ar.Report()
	// The leaves' readers' of the same rows.
	rd := open()
	lay := mustLayout(t, text)
	plan, err := levels.NewPlan(lay, nil)
	if err != nil {
		t.Fatal(err)
	}
	var readers []*levels.Reader
	for i := range plan.Leaves {
		lr, err := levels.NewReader(&plan.Leaves[i], func(c int) (*format.ColumnReader, error) { return rd.Values(c) })
		if err != nil {
			t.Fatal(err)
		}
		defer lr.Close()
		if err := lr.Read(ctx, []levels.Segment{{First: first, N: n}}, func(*levels.Run) error { return nil }); err != nil {
			t.Fatal(err)
		}
		readers = append(readers, lr, nil)
	}
	got := levels.ScanReport(rd, readers, nil, n, nil)
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Fatalf("leaves' report\n%+v\nrow interpreter's\n%+v", got, want)
	}
	if got.Columns[0].BlocksSkipped == 0 || got.Columns[0].BlocksRead == 0 {
		t.Fatalf("no block skipped or read: %+v", got.Columns[0])
	}
	// The readers' columns numbered otherwise: mapped to the file's.
	if m := levels.ScanReport(rd, readers, nil, n, func(c int) int { return c }); fmt.Sprint(m) != fmt.Sprint(got) {
		t.Fatalf("mapped %+v", m)
	}
	// A filter's report alone, of the rows it matched.
	frd := open()
	fr, err := assemble.NewAvroReader(frd, &assemble.Options{Filter: "a >= 1500", Fields: []string{"s"}})
	if err != nil {
		t.Fatal(err)
	}
	matched := int64(0)
	for _, err := range fr.All() {
		if err != nil {
			t.Fatal(err)
		}
		matched++
	}
	f := levels.ScanReport(frd, nil, fr, matched, nil)
	fw := fr.Report()
	if matched != 500 || f.RowsMatched != matched || f.RowsScanned != fw.RowsScanned || fmt.Sprint(f.Columns) != fmt.Sprint(fw.Columns) || f.BytesRead != fw.BytesRead {
		t.Fatalf("with a filter %+v, its own %+v", f, fw)
	}
}
