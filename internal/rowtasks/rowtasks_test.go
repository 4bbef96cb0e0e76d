package rowtasks

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format"
)

// TestMeasure: on a file of a narrow and a wide column in small blocks,
// the tasks end where the wide column's blocks begin, a row's bytes are
// those of both columns over the rows, and a task holds MinBlocks of the
// blocks of each (or MinRows rows, if more).
func TestMeasure(t *testing.T) {
	var buf bytes.Buffer
	w, err := format.NewWriter(&buf, []format.ColumnMeta{{Name: "n", Type: format.Int}, {Name: "s", Type: format.String}}, &format.WriterOptions{BlockSize: 512})
	if err != nil {
		t.Fatal(err)
	}
	const rows = 5000
	for i := range rows {
		w.StartRow()
		w.WriteInt(0, int32(i))
		w.WriteString(1, strings.Repeat("x", i%40))
		if err := w.EndRow(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	narrow, _ := rd.Blocks(0)
	wide, _ := rd.Blocks(1)
	var total int64
	var firsts []int64
	for _, b := range wide {
		total += int64(b.UncompressedSize)
		firsts = append(firsts, b.FirstRow)
	}
	var narrowBytes int64
	for _, b := range narrow {
		narrowBytes += int64(b.UncompressedSize)
	}
	if total <= narrowBytes || len(wide) < 10 {
		t.Fatalf("the file: %d bytes in %d blocks against %d", total, len(wide), narrowBytes)
	}
	s, err := Measure(rd, []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Cuts, firsts) {
		t.Errorf("cuts %v, want the wide column's first rows %v", s.Cuts, firsts)
	}
	if want := (total + narrowBytes) / rows; s.InPerRow != want {
		t.Errorf("%d bytes a row, want %d", s.InPerRow, want)
	}
	perBlock := narrowBytes/int64(len(narrow)) + total/int64(len(wide))
	if want := max(MinBlocks*perBlock/s.InPerRow, MinRows); s.MinRows != want {
		t.Errorf("at least %d rows a task, want %d", s.MinRows, want)
	}
	if s, err := Measure(rd, nil); err != nil || s.Cuts != nil || s.MinRows != MinRows || s.InPerRow != 1 {
		t.Errorf("no columns: %+v, %v", s, err)
	}
}

// TestDeepAhead: half the task's output in chunks beyond the one it has,
// never more than MaxDeepOutput.
func TestDeepAhead(t *testing.T) {
	for _, c := range []struct {
		rows, per, chunk int64
		want             int
	}{
		{100, 10, 100, 4},          // 500 bytes: 5 chunks, one its own
		{100, 10, 1000, 0},         // less than a chunk
		{1 << 30, 100, 1 << 20, 7}, // MaxDeepOutput's 8 chunks
	} {
		if got := DeepAhead(c.rows, c.per, c.chunk); got != c.want {
			t.Errorf("DeepAhead(%d, %d, %d) = %d, want %d", c.rows, c.per, c.chunk, got, c.want)
		}
	}
}
