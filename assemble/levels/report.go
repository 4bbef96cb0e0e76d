package levels

import (
	"slices"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
)

// ScanReport returns what reading rows of a part by readers (of its
// leaves) and filter (nil: none) cost, as assemble reports a read: for
// each column, the most blocks any of the readers read (a column on the
// path of several leaves has a reader for each; a nil reader is passed
// over), the filter's included, its name and blocks from rd, the
// columns in order; RowsScanned is the rows the filter was evaluated
// on, or rows without one, and RowsMatched rows. fileCol maps the
// readers' column numbers to rd's (nil: they are rd's).
func ScanReport(rd *format.Reader, readers []*Reader, filter *assemble.AvroReader, rows int64, fileCol func(int) int) assemble.ScanReport {
	cols := map[int]*assemble.ColumnScan{}
	scan := func(c int) *assemble.ColumnScan {
		if cs := cols[c]; cs != nil {
			return cs
		}
		cs := &assemble.ColumnScan{Column: c}
		if m, err := rd.Column(c); err == nil {
			cs.Name = m.Name
		}
		if bs, err := rd.Blocks(c); err == nil {
			cs.Blocks = len(bs)
		}
		cols[c] = cs
		return cs
	}
	read := func(cs *assemble.ColumnScan, blocks int, bytes int64) {
		if blocks > cs.BlocksRead {
			cs.BlocksRead, cs.BytesRead = blocks, bytes
		}
	}
	for _, r := range readers {
		if r == nil {
			continue
		}
		for c, cr := range r.Columns() {
			if fileCol != nil {
				c = fileCol(c)
			}
			blocks, bytes := r.loaded(cr)
			read(scan(c), blocks, bytes)
		}
	}
	rep := assemble.ScanReport{RowsScanned: rows, RowsMatched: rows, FileSize: rd.Size()}
	if filter != nil {
		fr := filter.Report()
		rep.RowsScanned, rep.RowsProven = fr.RowsScanned, fr.RowsProven
		for _, c := range fr.Columns {
			read(scan(c.Column), c.BlocksRead, c.BytesRead)
		}
	}
	keys := make([]int, 0, len(cols))
	for c := range cols {
		keys = append(keys, c)
	}
	slices.Sort(keys)
	for _, c := range keys {
		cs := cols[c]
		cs.BlocksSkipped = cs.Blocks - cs.BlocksRead
		rep.BytesRead += cs.BytesRead
		rep.Columns = append(rep.Columns, *cs)
	}
	return rep
}
