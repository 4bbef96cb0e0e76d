package trevni

import (
	"context"
	"fmt"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/predicate"
	"github.com/trevni-go/trevni/remote"
)

// Row range hints. A reader of records tells a remote part's coalescer the
// blocks of its rows (fetch.go's hint); a caller that reads a part's
// columns itself through a File (DuckDB's scan, each thread a range of
// rows) says which rows it will read with File.HintRows, so that its
// reads fetch the blocks of those rows only, not windows that run on into
// the next range's blocks. The opens of an http(s) part after its first
// reopen the first (openURL): they ask the server for nothing, where each
// asked for the size again (a HEAD).

// The block tables of a Trevni 2 part are read once for all its opens
// (format.SharedTables): a scan's units, each opening the part for its
// rows, do not each fetch the tables of the columns they read (a remote
// column's first window, 16 KiB, again and again). They are kept while
// the data set is open, maxTableMem bytes of them at most for all its
// parts (past that an open reads its own, as before).
const maxTableMem = 32 << 20

// sharedTables returns the part's block tables shared by its opens of the
// version given (that of the first open to ask; "" for a local file and a
// server that gives none, whose header the opens share too), nil for
// another version.
func (p *Part) sharedTables(version string) *format.SharedTables {
	p.hmu.Lock()
	defer p.hmu.Unlock()
	if p.tables == nil {
		p.tables = format.NewSharedTables(p.ds.tableRoom)
		p.tablesVersion = version
	}
	if version != p.tablesVersion {
		return nil
	}
	return p.tables
}

// tableRoom takes room for a block table of n bytes within maxTableMem.
func (ds *Dataset) tableRoom(n int64) bool {
	if ds.tableMem.Add(n) <= maxTableMem {
		return true
	}
	ds.tableMem.Add(-n)
	return false
}

// HintRows tells f that its next reads of the columns named (by their
// names in the part's Trevni 2 columns, as Dataset.Columns lists them; nil
// for every column) are of the rows [first, first+rows): a part read over
// HTTP or from a store then fetches the blocks that hold those rows, in
// each of the columns, in windows that grow as the reads go on (a reader
// may stop early), and no read of them fetches past the range's last
// block. Readers of a part's row ranges side by side thus each fetch their
// own blocks only. A column's block table is fetched by the part's first
// open that reads it, and shared by the others (sharedTables). HintRows
// may be called again for more rows. For a local file, a part of another
// format than Trevni 2, or rows 0, it does nothing.
func (f *File) HintRows(first, rows int64, columns []string) error {
	if f.trevni == nil || rows <= 0 {
		return nil
	}
	if first < 0 || first > f.trevni.RowCount() {
		return fmt.Errorf("%s: rows from %d: the part has %d", f.part.Name(), first, f.trevni.RowCount())
	}
	var cols []int
	for _, name := range columns {
		c, ok := f.trevni.ColumnIndex(name)
		if !ok {
			return fmt.Errorf("%s: no column %q", f.part.Name(), name)
		}
		cols = append(cols, c)
	}
	if columns == nil {
		cols = make([]int, f.trevni.NumColumns())
		for i := range cols {
			cols[i] = i
		}
	}
	c := f.rangeCoalescer()
	if c == nil {
		return nil
	}
	rows = min(rows, f.trevni.RowCount()-first)
	return hintRows(f.trevni, c, cols, []predicate.Range{{First: first, Rows: rows}})
}

// rangeCoalescer returns the coalescer of a remote part's reads past its
// header: a part opened for records holds it, one opened with Part.Open
// reads through it; nil for a local file.
func (f *File) rangeCoalescer() *remote.Coalescer {
	if f.coalescer != nil {
		return f.coalescer
	}
	if sw, ok := f.ra.ra.(*switchReader); ok {
		return sw.rest
	}
	return nil
}

// reopener is an http(s) file that opens again without a request
// (remote/httpread's File).
type reopener interface {
	Reopen(ctx context.Context) remote.HTTPFile
}

// openURL opens the part's URL: the first open asks the server (open, a
// HEAD), and the next ones reopen it, of the size and version it found,
// where its files can.
func (p *Part) openURL(ctx context.Context, open func() (remote.HTTPFile, error)) (remote.HTTPFile, error) {
	p.hmu.Lock()
	first := p.httpFile
	p.hmu.Unlock()
	if r, ok := first.(reopener); ok {
		return r.Reopen(ctx), nil
	}
	h, err := open()
	if err == nil {
		p.hmu.Lock()
		if p.httpFile == nil {
			p.httpFile = h
		}
		p.hmu.Unlock()
	}
	return h, err
}
