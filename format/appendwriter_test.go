package format_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/trevni-go/trevni/format"
)

var segmentColumns = []format.ColumnMeta{
	{Name: "id", Type: format.Long, Values: true},
	{Name: "s", Type: format.String},
	{Name: "arr", Type: format.Long, Array: true},
}

// writeSegmentRows writes rows [from, to) to w: id i, a string, and an
// array of i%4 longs.
func writeSegmentRows(t *testing.T, w *format.Writer, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		if err := w.StartRow(); err != nil {
			t.Fatal(err)
		}
		w.WriteLong(0, int64(i))
		w.WriteString(1, fmt.Sprintf("row %d", i*7%1000))
		w.WriteLength(2, i%4)
		for k := range i % 4 {
			w.WriteLong(2, int64(i*k))
		}
		if err := w.EndRow(); err != nil {
			t.Fatal(err)
		}
	}
}

// columnValues returns every value of every column of a file, in order,
// as text, array lengths included.
func columnValues(t *testing.T, file []byte) []string {
	t.Helper()
	rd := openBytes(t, file)
	var out []string
	for i := range rd.NumColumns() {
		c, err := rd.Values(i)
		if err != nil {
			t.Fatal(err)
		}
		for {
			if i == 2 {
				if err := c.StartRow(); err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				n, err := c.NextLength()
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, fmt.Sprint("len ", n))
				for range n {
					v, err := c.ReadLong()
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, fmt.Sprint(v))
				}
				continue
			}
			v, err := c.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(v))
		}
	}
	return out
}

// Rows written to segments numbered with SetFirstRow and moved in order
// into a file with AppendWriter, after rows of its own, read back as the
// rows written to one Writer; each column's statistics cover its blocks,
// and a segment is reused after it is emptied. Misuse is ErrUsage.
func TestAppendWriter(t *testing.T) {
	opts := &format.WriterOptions{Codec: "snappy", Checksum: "crc32", BlockSize: 200, MemoryBudget: 4 << 10, TempDir: t.TempDir()}
	var one bytes.Buffer
	w1, err := format.NewWriter(&one, segmentColumns, opts)
	if err != nil {
		t.Fatal(err)
	}
	writeSegmentRows(t, w1, 0, 1000)
	if err := w1.Close(); err != nil {
		t.Fatal(err)
	}

	var joined bytes.Buffer
	w, err := format.NewWriter(&joined, segmentColumns, opts)
	if err != nil {
		t.Fatal(err)
	}
	writeSegmentRows(t, w, 0, 101) // rows of its own, blocks left open
	so := *opts
	so.MemoryBudget = 1 << 10 // the segments spill too: their blocks are read back
	segs := make([]*format.Writer, 2)
	for k := range segs {
		if segs[k], err = format.NewWriter(io.Discard, segmentColumns, &so); err != nil {
			t.Fatal(err)
		}
		if err := segs[k].ShareBuffers(w); err != nil {
			t.Fatal(err)
		}
	}
	bounds := []int{101, 250, 251, 600, 1000}
	for k := 0; k+1 < len(bounds); k++ {
		seg := segs[k%2]
		if err := seg.SetFirstRow(int64(bounds[k])); err != nil {
			t.Fatal(err)
		}
		writeSegmentRows(t, seg, bounds[k], bounds[k+1])
		if seg.RowCount() != int64(bounds[k+1]) {
			t.Fatalf("segment %d: RowCount %d, want %d", k, seg.RowCount(), bounds[k+1])
		}
		if k == 1 {
			// A segment of later rows: refused, nothing moved.
			later, err := format.NewWriter(io.Discard, segmentColumns, &so)
			if err != nil {
				t.Fatal(err)
			}
			if err := later.SetFirstRow(int64(bounds[k+1])); err != nil {
				t.Fatal(err)
			}
			writeSegmentRows(t, later, bounds[k+1], bounds[k+1]+3)
			if err := w.AppendWriter(later); !errors.Is(err, format.ErrUsage) {
				t.Fatalf("a segment of later rows: %v", err)
			}
			if err := later.SetFirstRow(0); !errors.Is(err, format.ErrUsage) {
				t.Fatalf("SetFirstRow on a segment holding rows: %v", err)
			}
			later.Abort()
		}
		if err := w.AppendWriter(seg); err != nil {
			t.Fatalf("segment %d: %v", k, err)
		}
		if w.RowCount() != int64(bounds[k+1]) {
			t.Fatalf("after segment %d: RowCount %d", k, w.RowCount())
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := columnValues(t, one.Bytes())
	got := columnValues(t, joined.Bytes())
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("joined values differ from one writer's: %d values, want %d", len(got), len(want))
	}
	rd := openBytes(t, joined.Bytes())
	for i := range rd.NumColumns() {
		st, err := rd.BlockStats(i)
		if st == nil || err != nil {
			t.Fatalf("column %d: statistics %v, %v", i, st, err)
		}
	}
	if problems := validateStrict(t, joined.Bytes()); len(problems) > 0 {
		t.Fatal(problems)
	}

	// Writers that differ are refused.
	file, _ := format.NewWriter(io.Discard, segmentColumns, opts)
	defer file.Abort()
	for name, c := range map[string]struct {
		cols []format.ColumnMeta
		o    format.WriterOptions
	}{
		"columns":    {segmentColumns[:2], *opts},
		"codec":      {segmentColumns, format.WriterOptions{Codec: "deflate", Checksum: "crc32"}},
		"checksum":   {segmentColumns, format.WriterOptions{Codec: "snappy"}},
		"statistics": {segmentColumns, format.WriterOptions{Codec: "snappy", Checksum: "crc32", DisableStats: true}},
	} {
		seg, err := format.NewWriter(io.Discard, c.cols, &c.o)
		if err != nil {
			t.Fatal(err)
		}
		if err := file.AppendWriter(seg); !errors.Is(err, format.ErrUsage) {
			t.Errorf("%s differ: %v", name, err)
		}
		seg.Abort()
	}
	if err := file.AppendWriter(file); !errors.Is(err, format.ErrUsage) {
		t.Errorf("itself: %v", err)
	}
	if err := file.SetFirstRow(-1); !errors.Is(err, format.ErrUsage) {
		t.Errorf("SetFirstRow(-1): %v", err)
	}
}
