package trevnisql

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
)

// A scan of a remote file over HTTP by several units (ranges of rows,
// each opened on its own) asks for the file's size once (the bind's open)
// and fetches each block of the column it reads once: no unit's requests
// run on into the next unit's blocks, but for a block holding rows of two
// units and the first bytes of the column (the window its block table
// was read with). The bytes fetched in all are the header's and
// column a's, and little more: the units share the column's block table
// (read once), not each fetching it. The sum is the file's.
func TestScanFetchesEachBlockOnce(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.trv")
	ctx := context.Background()
	const rows = 300_000
	w, err := trevni.Create(ctx, path, `{"type":"record","name":"Big","fields":[{"name":"a","type":"long"},{"name":"b","type":"string"}]}`,
		&trevni.WriteOptions{Codec: trevni.NoCodec, BlockSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if err := w.Write(map[string]any{"a": int64(i), "b": fmt.Sprint("row ", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ds, err := trevni.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := ds.Parts()[0].Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := frontdoor.AsTrevni(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := rd.Blocks(0)
	if err != nil {
		t.Fatal(err)
	}
	bBlocks, err := rd.Blocks(1)
	if err != nil {
		t.Fatal(err)
	}
	header, bStart := rd.ColumnStart(0), rd.ColumnStart(1)
	f.Close()
	ds.Close()

	var mu sync.Mutex
	heads := 0
	var ranges [][2]int64
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if r.Method == http.MethodHead {
			heads++
		} else {
			var a, b int64
			fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-%d", &a, &b)
			ranges = append(ranges, [2]int64{a, b})
		}
		mu.Unlock()
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()

	for _, threads := range []int{1, 2} {
		mu.Lock()
		heads, ranges = 0, nil
		mu.Unlock()
		db, err := Open(ctx, &Options{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		err = db.QueryRow("SELECT sum(a) FROM read_trevni(" + quoteString(srv.URL+"/big.trv") + ")").Scan(&sum)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		if sum != rows*(rows-1)/2 {
			t.Errorf("%d threads: sum(a) %d, want %d", threads, sum, rows*(rows-1)/2)
		}
		mu.Lock()
		if heads != 1 {
			t.Errorf("%d threads: %d HEAD requests, want 1 (the bind's open)", threads, heads)
		}
		var fetched int64
		seen := map[int]int{}
		for _, r := range ranges {
			fetched += r[1] - r[0] + 1
			for k, b := range blocks {
				if b.Offset >= r[0] && b.Offset+int64(b.CompressedSize) <= r[1]+1 {
					seen[k]++
				}
			}
		}
		// The units' row ranges, as the scan makes them (minUnitRows
		// rows at least; 4 units a thread).
		per := max(64<<10, (rows+int64(4*threads)-1)/int64(4*threads))
		again := 0
		for k, b := range blocks {
			split := (b.FirstRow+b.Rows-1)/per != b.FirstRow/per
			if seen[k] > 1 && !split && b.Offset+int64(b.CompressedSize) > blocks[0].Offset+16<<10 {
				again++
				t.Logf("%d threads: block %d (rows %d to %d) fetched %d times", threads, k, b.FirstRow, b.FirstRow+b.Rows, seen[k])
			}
		}
		t.Logf("%d threads: %d requests, %d bytes; column a %d bytes in %d blocks", threads, len(ranges)+heads, fetched,
			blocks[len(blocks)-1].Offset+int64(blocks[len(blocks)-1].CompressedSize)-blocks[0].Offset, len(blocks))
		if again > 0 {
			t.Errorf("%d threads: %d of column a's %d blocks fetched more than once", threads, again, len(blocks))
		}
		// In all: the header (column a is stored first, right after
		// it) and column a (whose block table the header's last window
		// holds), and a block holding rows of two units again: less
		// than 8 KiB more. The table of column b, which the units do
		// not read, is a window of 16 KiB more: 996,233 and 1,016,719
		// bytes in all when each unit hinted, and so fetched, every
		// column's, against bounds of 938,889 and 942,991.
		last := blocks[len(blocks)-1]
		aEnd := last.Offset + int64(last.CompressedSize) + 4
		var largest int64
		for _, b := range blocks {
			largest = max(largest, int64(b.CompressedSize)+4)
		}
		units := int64((rows + per - 1) / per)
		if bound := aEnd + 8<<10 + (units-1)*largest; fetched > bound {
			t.Errorf("%d threads: %d bytes fetched for sum(a), more than %d: the header and column a (%d bytes), 8 KiB and a block (%d bytes at most) for each of %d units but one",
				threads, fetched, bound, aEnd, largest, units)
		}
		mu.Unlock()
	}

	// Column b, stored after a: its block table, apart from the header,
	// is fetched once for all the units (format.SharedTables), with a
	// window of 16 KiB that the first unit's blocks may fetch again.
	// Each unit fetching it (3 windows more) fetched 3,309,090 bytes,
	// against a bound of 3,269,589 (3,259,938 fetched with the table
	// shared).
	mu.Lock()
	heads, ranges = 0, nil
	mu.Unlock()
	db, err := Open(ctx, &Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	err = db.QueryRow("SELECT sum(length(b)) FROM read_trevni(" + quoteString(srv.URL+"/big.trv") + ")").Scan(&n)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var fetched int64
	for _, r := range ranges {
		fetched += r[1] - r[0] + 1
	}
	last := bBlocks[len(bBlocks)-1]
	var largest int64
	for _, b := range bBlocks {
		largest = max(largest, int64(b.CompressedSize)+4)
	}
	per := max(64<<10, (rows+int64(4)-1)/int64(4))
	units := int64((rows + per - 1) / per)
	column := last.Offset + int64(last.CompressedSize) + 4 - bStart
	t.Logf("sum(length(b)): %d requests, %d bytes; header %d, column b %d bytes in %d blocks", len(ranges)+heads, fetched, header, column, len(bBlocks))
	if bound := header + 16<<10 + column + 16<<10 + (units-1)*largest; fetched > bound {
		t.Errorf("%d bytes fetched for sum(length(b)), more than %d: the header (%d bytes) and a window of 16 KiB past it, column b (%d bytes), its table's window again and a block (%d bytes at most) for each of %d units but one",
			fetched, bound, header, column, largest, units)
	}
}
