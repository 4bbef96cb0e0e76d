package trevni

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"
)

// rangeLog serves data over HTTP and logs the requests: the HEADs, and
// the byte ranges of the GETs.
type rangeLog struct {
	mu     sync.Mutex
	heads  int
	ranges [][2]int64 // first, last
}

func (l *rangeLog) serve(t *testing.T, data []byte) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		if r.Method == http.MethodHead {
			l.heads++
		} else if rg := r.Header.Get("Range"); rg != "" {
			var a, b int64
			fmt.Sscanf(rg, "bytes=%d-%d", &a, &b)
			l.ranges = append(l.ranges, [2]int64{a, b})
		}
		l.mu.Unlock()
		http.ServeContent(w, r, "f.trv", time.Time{}, bytes.NewReader(data))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func (l *rangeLog) take() (int, [][2]int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h, r := l.heads, l.ranges
	l.heads, l.ranges = 0, nil
	return h, r
}

// Units reading a part's rows side by side over HTTP, each opening the
// part and hinting its own rows (File.HintRows): no unit's request for the
// column's blocks runs past its range's last block, the column's blocks
// are fetched once in all (but those holding rows of two units, and those
// fetched with the block table), the block table once for the four opens,
// fewer bytes than without the hints,
// the values are the file's, and the part's size is asked for once (the
// data set's open), not once an open.
func TestHintRowsFetchesTheRangesBlocksOnly(t *testing.T) {
	name, data := fetchFile(t)
	ctx := context.Background()
	local, err := Open(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	lf, err := local.Parts()[0].Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	col, ok := lf.trevni.ColumnIndex("id")
	if !ok {
		t.Fatal("no column id")
	}
	blocks, err := lf.trevni.Blocks(col)
	if err != nil {
		t.Fatal(err)
	}
	rows := lf.RowCount()
	want := make([]int64, rows)
	readLongs(t, lf, col, 0, rows, want)

	var hintedBytes int64
	for _, hinted := range []bool{true, false} {
		var log rangeLog
		srv := log.serve(t, data)
		ds, err := Open(ctx, srv.URL+"/large.trv", nil)
		if err != nil {
			t.Fatal(err)
		}
		if heads, _ := log.take(); heads != 1 {
			t.Errorf("the data set's open sent %d HEADs, want 1", heads)
		}
		const units = 4
		per := (rows + units - 1) / units
		var fetched int64
		seen := map[int64]int{} // block offset: fetches holding it
		for off := int64(0); off < rows; off += per {
			n := min(per, rows-off)
			f, err := ds.Parts()[0].Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if hinted {
				if err := f.HintRows(off, n, []string{"id"}); err != nil {
					t.Fatal(err)
				}
			}
			got := make([]int64, n)
			readLongs(t, f, col, off, n, got)
			f.Close()
			if !slices.Equal(got, want[off:off+n]) {
				t.Fatalf("rows %d to %d over HTTP differ from the file's", off, off+n)
			}
			heads, ranges := log.take()
			if heads != 0 {
				t.Errorf("hinted %v: the open of rows %d to %d sent %d HEADs; the size is the data set's", hinted, off, off+n, heads)
			}
			// The blocks of the rows: the first and the one after the last.
			var first, end int64 = -1, -1
			for _, b := range blocks {
				if b.FirstRow+b.Rows > off && first < 0 {
					first = b.Offset
				}
				if b.FirstRow >= off+n {
					end = b.Offset
					break
				}
			}
			for _, r := range ranges {
				fetched += r[1] - r[0] + 1
				for _, b := range blocks {
					if b.Offset >= r[0] && b.Offset+int64(b.CompressedSize) <= r[1]+1 {
						seen[b.Offset]++
					}
				}
				if hinted && end >= 0 && r[0] >= first && r[1] >= end {
					t.Errorf("rows %d to %d (blocks %d to %d): fetched bytes %d to %d, past the range's last block", off, off+n, first, end, r[0], r[1])
				}
			}
		}
		// Fetched more than once, rightly: a block holding rows of two
		// units, and the blocks in the window each unit fetches with the
		// column's block table (rangeWindow bytes from the column's start).
		twice := 0
		for _, b := range blocks {
			split := (b.FirstRow+b.Rows-1)/per != b.FirstRow/per
			if seen[b.Offset] > 1 && !split && b.Offset+int64(b.CompressedSize) > blocks[0].Offset+rangeWindow {
				twice++
				t.Logf("hinted %v: block at %d (rows %d to %d) fetched %d times", hinted, b.Offset, b.FirstRow, b.FirstRow+b.Rows, seen[b.Offset])
			}
		}
		t.Logf("hinted %v: %d bytes fetched for %d of column id's blocks (%d fetched more than once), file %d bytes", hinted, fetched, len(blocks), twice, len(data))
		if hinted && twice > 0 {
			t.Errorf("%d of column id's %d blocks fetched more than once", twice, len(blocks))
		}
		// In all, with the hints: the column's bytes, its block table
		// fetched once for the four opens (format.SharedTables; its
		// window of rangeWindow bytes may be fetched again by the first
		// unit's hint), and a block holding rows of two units again.
		last := blocks[len(blocks)-1]
		column := last.Offset + int64(last.CompressedSize) + 4 - lf.trevni.ColumnStart(col)
		var largest int64
		for _, b := range blocks {
			largest = max(largest, int64(b.CompressedSize)+4)
		}
		if bound := column + rangeWindow + (units-1)*largest; hinted && fetched > bound {
			t.Errorf("%d bytes fetched for column id (%d bytes, blocks of %d at most): more than %d, its bytes, one window of its block table and a block a unit",
				fetched, column, largest, bound)
		}
		if hinted {
			hintedBytes = fetched
		} else if fetched <= hintedBytes {
			t.Errorf("without hints %d bytes fetched, with them %d", fetched, hintedBytes)
		}
		if !hinted && twice == 0 {
			t.Errorf("without hints no block was fetched twice: the test no longer shows what the hints mend")
		}
	}
}

// readLongs reads rows [first, first+n) of the long column col of f into
// out, as a scan's unit does (read ahead up to its end).
func readLongs(t *testing.T, f *File, col int, first, n int64, out []int64) {
	t.Helper()
	c, err := f.trevni.Values(col)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadAheadEnd(first + n)
	if err := c.SeekRow(first); err != nil {
		t.Fatal(err)
	}
	for k := int64(0); k < n; {
		m, err := c.ReadLongs(out[k:])
		if err != nil {
			t.Fatal(err)
		}
		k += int64(m)
	}
}
