package trevni1_test

import (
	"bytes"
	"io"
	"maps"
	"sync"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/trevni1"
)

// countingReaderAt counts the reads at each offset.
type countingReaderAt struct {
	r  *bytes.Reader
	mu sync.Mutex
	at map[int64]int
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.mu.Lock()
	c.at[off]++
	c.mu.Unlock()
	return c.r.ReadAt(p, off)
}

// readArrayLeaf reads every row of an array column's lengths (lens) and
// the floats of a column beneath it (vals) in batches, as a columnar
// reader of one leaf does, and returns the items read.
func readArrayLeaf(t testing.TB, lens, vals *format.ColumnReader, rows int) []float32 {
	t.Helper()
	var items []float32
	buf := make([]int32, 256)
	for done := 0; done < rows; {
		n, err := lens.ReadLengths(buf[:min(len(buf), rows-done)])
		if err != nil || n == 0 {
			t.Fatalf("lengths of rows from %d: %d, %v", done, n, err)
		}
		if items, err = format.ReadItems(vals, buf[:n], items); err != nil {
			t.Fatalf("items of rows from %d: %v", done, err)
		}
		done += n
	}
	return items
}

// TestSourceSharedColumnInflatedOncePerPass reads the two leaves of an
// array of records {x, y} one after the other, as toparquet writes a row
// group's column chunks, each leaf's readers kept open to the end: the
// array's lengths and the sibling check of y both come from column
// pts.x, so pts.x's blocks are read by four readers in two passes. The
// first pass must read each of pts.x's blocks from the file once (its
// readers share them), the second none of them (it needs their levels
// only, which the cache keeps) and each of pts.y's once; the values must
// be those written.
//
// With a BlockMemory whose sixteenth cannot hold pts.x's levels, the
// cache keeps only some, and the second pass inflates the other blocks
// again: the values are the same.
func TestSourceSharedColumnInflatedOnce(t *testing.T) {
	t.Run("levels kept", func(t *testing.T) { sharedColumnPasses(t, 0) })
	t.Run("BlockMemory too small to keep them all", func(t *testing.T) { sharedColumnPasses(t, 16<<10) })
}

func sharedColumnPasses(t *testing.T, blockMemory int64) {
	const avsc = `{"type":"record","name":"R","fields":[{"name":"pts","type":{"type":"array","items":{"type":"record","name":"P","fields":[{"name":"x","type":"float"},{"name":"y","type":"float"}]}}}]}`
	cols := []trevni1.ColumnSpec{{Name: "pts.x", Type: trevni1.Float, MaxDef: 1, MaxRep: 1}, {Name: "pts.y", Type: trevni1.Float, MaxDef: 1, MaxRep: 1}}
	var buf bytes.Buffer
	w, err := trevni1.NewWriter(&buf, cols, &trevni1.WriterOptions{Codec: "deflate", BlockSize: 1024, Meta: trevni1.Meta{Keys: []string{trevni1.KeyAvroSchema}, Values: [][]byte{[]byte(avsc)}}})
	if err != nil {
		t.Fatal(err)
	}
	const rows = 3000
	var wantX, wantY []float32
	for r := range rows {
		n := r % 4
		for c := range 2 {
			if n == 0 {
				w.Null(c, 0, 0)
			}
			for i := range n {
				v := float32(r*10+i) + float32(c)/2
				w.Float32(c, min(i, 1), v)
				if c == 0 {
					wantX = append(wantX, v)
				} else {
					wantY = append(wantY, v)
				}
			}
		}
		if err := w.EndRow(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	ra := &countingReaderAt{r: bytes.NewReader(data), at: map[int64]int{}}
	rd := openSource(t, ra, int64(len(data)), &trevni1.ReaderOptions{BlockMemory: blockMemory})
	open := func(name string) *format.ColumnReader {
		i, ok := rd.ColumnIndex(name)
		if !ok {
			t.Fatalf("no column %s", name)
		}
		c, err := rd.Values(i)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}
	var passes []map[int64]int
	for _, leaf := range []struct {
		col  string
		want []float32
	}{{"pts[]#x", wantX}, {"pts[]#y", wantY}} {
		clear(ra.at)
		lens, vals := open("pts[]"), open(leaf.col)
		got := readArrayLeaf(t, lens, vals, rows)
		if len(got) != len(leaf.want) {
			t.Fatalf("%s: %d items, want %d", leaf.col, len(got), len(leaf.want))
		}
		for i := range got {
			if got[i] != leaf.want[i] {
				t.Fatalf("%s: item %d is %v, want %v", leaf.col, i, got[i], leaf.want[i])
			}
		}
		passes = append(passes, maps.Clone(ra.at))
	}
	// The first pass reads pts.x's blocks, each once; the second reads
	// pts.y's, each once, and none of pts.x's: its lengths and its sibling
	// check read levels only, which the cache keeps.
	if len(passes[0]) < 5 {
		t.Fatalf("the first pass read %d blocks; the file should have several", len(passes[0]))
	}
	again := 0
	for off := range passes[1] {
		if passes[0][off] > 0 {
			again++
		}
	}
	if blockMemory == 0 && again > 0 {
		t.Errorf("the second pass read %d blocks of pts.x again", again)
	}
	if blockMemory > 0 && again == 0 {
		t.Errorf("the second pass read no block of pts.x again: the levels kept take more than a sixteenth of BlockMemory %d", blockMemory)
	}
	for p, at := range passes {
		for off, n := range at {
			if n > 1 {
				t.Errorf("pass %d read the block at offset %d %d times", p+1, off, n)
			}
		}
	}
}

// openSource opens the version-1 file of size bytes that ra reads as a
// format.Reader of its Source.
func openSource(t testing.TB, ra io.ReaderAt, size int64, opts *trevni1.ReaderOptions) *format.Reader {
	t.Helper()
	rd1, err := trevni1.NewReader(ra, size, opts)
	if err != nil {
		t.Fatal(err)
	}
	src, err := trevni1.NewSource(rd1)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := format.NewSourceReader(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rd
}
