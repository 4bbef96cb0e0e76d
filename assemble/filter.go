package assemble

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/fieldpath"
	"github.com/trevni-go/trevni/predicate"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

// filter is the state of an AvroReader with Options.Filter: the compiled
// predicate, the runs of rows the statistics leave (predicate.Ranges), and
// a second reader over the columns the predicate reads, which evaluates
// each candidate row before the main reader assembles it.
type filter struct {
	p       *predicate.Predicate
	ranges  []predicate.Run
	ri      int         // the first range that may hold rows at or after the main reader's row
	ev      *AvroReader // reads the predicate's fields, as records of the file's schema
	next    int64       // the next row to evaluate
	scanned int64
	proven  int64 // the rows of scanned that ranges marked All: taken unread

	// The filter evaluated column by column (predicate.Columnar), when
	// it applies: a run of rows at a time, within one block of each
	// column it reads, through ev's readers of those columns.
	col      *predicate.Columnar
	colRd    []*format.ColumnReader
	colAt    int64   // the row colRd are before; -1 if not known
	bounds   []int64 // the rows where a block of a column read begins, ascending
	sel      []bool  // the run's matches
	selFirst int64   // the run's first row
}

// runRows is the most rows a run of the column-by-column filter holds.
const runRows = 4096

// ScanReport says how much of a file an AvroReader read.
type ScanReport struct {
	// RowsScanned is the number of rows whose fields were read: the rows
	// a filter was evaluated on or that the statistics proved it holds
	// on (RowsProven), or without a filter the records read.
	RowsScanned int64
	// RowsMatched is the number of records returned.
	RowsMatched int64
	// Columns lists the columns read, for output or for the filter.
	Columns []ColumnScan
	// BytesRead is the sum of the columns' BytesRead; FileSize the size
	// of the file.
	BytesRead, FileSize int64
	// RowsProven is the number of rows of RowsScanned that the block
	// statistics proved to satisfy the filter (predicate.Run.All): they
	// were taken without reading the filter's columns.
	RowsProven int64
}

// ColumnScan is one column's part of a ScanReport.
type ColumnScan struct {
	// Column is the file column's number and Name its name.
	Column int
	Name   string
	// Blocks is the column's number of blocks, BlocksRead how many were
	// read and decompressed (a block read again after a seek counts
	// again) and BlocksSkipped how many were never read.
	Blocks, BlocksRead, BlocksSkipped int
	// BytesRead is the stored bytes of the blocks read, checksums included.
	BytesRead int64
}

// newFilter compiles src (bindFilter) and judges the file's blocks by
// their statistics.
func newFilter(rd *format.Reader, src string, fileSchema *schema.Schema, lay *layout.Layout, readSchema *schema.Schema, o *Options) (*filter, error) {
	p, onReader, err := bindFilter(src, fileSchema, lay, readSchema, o)
	if err != nil {
		return nil, err
	}
	f := &filter{p: p}
	f.ranges = p.FileRuns(rd)
	eo := &Options{Fields: p.Fields(), Layout: o.Layout, lenient: true}
	if onReader {
		// Records of the reader schema: its defaults, promotions and
		// renamings are what the filter compares.
		eo.ReaderSchema, eo.MatchField = o.ReaderSchema, o.MatchField
	}
	if f.ev, err = NewAvroReader(rd, eo); err != nil {
		return nil, err
	}
	for _, c := range f.ev.used {
		c.SetReadAhead(false) // never fetch a block the ranges leave out
	}
	if !onReader {
		f.columnar(rd)
	}
	return f, nil
}

// columnar sets the filter up to be evaluated column by column, through
// ev's readers, if the predicate allows it.
func (f *filter) columnar(rd *format.Reader) {
	c := f.p.Columnar()
	if c == nil {
		return
	}
	var bounds []int64
	for _, col := range c.Columns() {
		if col < 0 || col >= len(f.ev.cols) || f.ev.cols[col] == nil {
			return
		}
		bs, err := rd.Blocks(col)
		if err != nil {
			return
		}
		for _, b := range bs {
			bounds = append(bounds, b.FirstRow)
		}
		f.colRd = append(f.colRd, f.ev.cols[col])
	}
	slices.Sort(bounds)
	f.bounds = slices.Compact(bounds)
	f.col, f.colAt, f.selFirst = c, 0, 0
}

// findRun is findMatch through the column-by-column filter: the rows of
// a run are evaluated together, and their matches yielded in turn.
func (ar *AvroReader) findRun() (int64, error) {
	f := ar.filter
	row := max(ar.row, f.next)
	for {
		for f.ri < len(f.ranges) && f.ranges[f.ri].First+f.ranges[f.ri].Rows <= row {
			f.ri++
		}
		if f.ri == len(f.ranges) || row >= ar.end {
			f.next = row
			return 0, io.EOF
		}
		rg := f.ranges[f.ri]
		row = max(row, rg.First)
		stop := min(rg.First+rg.Rows, ar.end)
		if row >= stop {
			f.next = row
			if row >= ar.end {
				return 0, io.EOF
			}
			continue
		}
		if rg.All {
			f.scanned++
			f.proven++
			return row, nil
		}
		if row >= f.selFirst && row < f.selFirst+int64(len(f.sel)) {
			end := min(f.selFirst+int64(len(f.sel)), stop)
			sel := f.sel[row-f.selFirst : end-f.selFirst]
			if i := slices.Index(sel, true); i >= 0 {
				f.scanned += int64(i) + 1
				return row + int64(i), nil
			}
			f.scanned += end - row
			row = end
			continue
		}
		// A new run, from row to the next block boundary of the
		// columns read, within the range.
		k := min(stop-row, runRows)
		if i, _ := slices.BinarySearch(f.bounds, row+1); i < len(f.bounds) {
			k = min(k, f.bounds[i]-row)
		}
		if f.colAt != row {
			for _, c := range f.colRd {
				if err := c.SeekRow(row); err != nil {
					return 0, err
				}
			}
		}
		f.colAt = -1
		f.sel = slices.Grow(f.sel[:0], int(k))[:k]
		if err := f.col.Eval(f.colRd, int(k), f.sel); err != nil {
			f.sel = f.sel[:0]
			return 0, fmt.Errorf("the filter on records %d to %d: %w", row, row+k-1, err)
		}
		f.selFirst, f.colAt = row, row+k
	}
}

// bindFilter compiles src. With a reader schema readSchema (and unless
// o.internalSchema), src names the reader schema's fields (onReader): a
// field it adds is its default, a renamed one goes by its new name and a
// promoted one compares as the reader's type, and a reader column is
// judged by the statistics of the file column holding exactly its values
// (readerColumns); an expression that does not bind to the reader schema
// but does to the file's is bound to the file's.
func bindFilter(src string, fileSchema *schema.Schema, lay *layout.Layout, readSchema *schema.Schema, o *Options) (p *predicate.Predicate, onReader bool, err error) {
	if o.ReaderSchema != "" && !o.internalSchema {
		p, rerr := bindReaderFilter(src, lay, readSchema, o)
		if rerr == nil {
			return p, true, nil
		}
		if _, err := predicate.Compile(src, fileSchema, lay); err != nil {
			var pe *predicate.Error
			if errors.As(rerr, &pe) {
				return nil, false, rerr // the reader schema's complaint
			}
			return nil, false, err
		}
	}
	p, err = predicate.Compile(src, fileSchema, lay)
	return p, false, err
}

// bindReaderFilter compiles src against the reader schema rs, its columns
// mapped to the file's (lay) by readerColumns.
func bindReaderFilter(src string, lay *layout.Layout, rs *schema.Schema, o *Options) (*predicate.Predicate, error) {
	rlay, err := layout.New(rs, o.Layout)
	if err != nil {
		return nil, fmt.Errorf("assemble: the reader schema's layout: %w", err)
	}
	c := &compiler{cols: map[int]bool{}, match: o.MatchField}
	whole, err := c.compile(lay.Root, rs, "", nil)
	if err != nil {
		return nil, err
	}
	m := readerColumns(whole, rlay)
	return predicate.CompileWith(src, rs, rlay, &predicate.BindOptions{FileColumn: func(col int) int {
		if col < 0 || col >= len(m) {
			return -1
		}
		return m[col]
	}})
}

// CompileFilter compiles the filter src for the Trevni file rd as an
// AvroReader with opts (nil for none) binds it (see Options.Filter: with
// opts.ReaderSchema, on the reader schema's fields), without opening any
// column: its Columns and the statistics its FileRanges reads are rd's.
// It is for judging a file's blocks before reading them.
func CompileFilter(rd *format.Reader, src string, opts *Options) (*predicate.Predicate, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	_, fileSchema, err := storedSchema(rd, o.Layout)
	if err != nil {
		return nil, err
	}
	lay, err := layout.New(fileSchema, o.Layout)
	if err != nil {
		return nil, fmt.Errorf("assemble: the file's schema: %w", err)
	}
	rs := fileSchema
	if o.ReaderSchema != "" {
		if rs, err = schema.Parse(o.ReaderSchema); err != nil {
			return nil, fmt.Errorf("assemble: reader schema: %w", err)
		}
	}
	p, _, err := bindFilter(src, fileSchema, lay, rs, &o)
	return p, err
}

// readerColumns maps each column of the reader schema's layout rlay to
// the file column holding exactly its values, as the plan p (of the whole
// reader schema) reads them, or -1: for a field read from its default, a
// value promoted or mapped on reading (enum symbols that differ), a union
// branch fed by several of the file's, and a branch the file has no
// column for.
func readerColumns(p *plan, rlay *layout.Layout) []int {
	const unset = -3
	m := make([]int, len(rlay.Columns))
	for i := range m {
		m[i] = unset
	}
	set := func(rc, wc int) {
		switch {
		case rc < 0:
		case m[rc] == unset:
			m[rc] = wc
		case m[rc] != wc:
			m[rc] = -1 // fed by two columns: neither's statistics are its own
		}
	}
	var walk func(p *plan, rn *layout.Node, depth int)
	walk = func(p *plan, rn *layout.Node, depth int) {
		if p == nil || rn == nil || depth > maxSelectionDepth {
			return
		}
		switch p.op {
		case opSimple:
			if sameValues(p.w.Schema, p.rs) && p.w.Type == rn.Type {
				set(rn.Col, p.w.Col)
			} else {
				set(rn.Col, -1)
			}
		case opEnum:
			if slicesEqual(p.w.Schema.Symbols, p.rs.Symbols) {
				set(rn.Col, p.w.Col)
			} else {
				set(rn.Col, -1)
			}
		case opRecord:
			// The plan's fields are the reader record's, in order, less
			// those a selection leaves out (none here): match by name,
			// moving forward.
			j := 0
			for _, f := range p.fields {
				for j < len(rn.Schema.Fields) && rn.Schema.Fields[j].Name != f.name {
					j++
				}
				if j < len(rn.Fields) {
					walk(f.p, rn.Fields[j], depth+1)
				}
			}
		case opArray, opMap:
			set(rn.Col, p.w.Col)
			if p.op == opMap {
				set(rn.KeyCol, p.w.KeyCol)
			}
			walk(p.items, rn.Items, depth+1)
		case opWriterUnion:
			for i, bp := range p.branches {
				if bp == nil {
					continue
				}
				if rn.Kind == schema.Union {
					j := p.readerIdx[i]
					if j < 0 || j >= len(rn.Branches) {
						continue
					}
					set(rn.BranchCols[j], p.w.BranchCols[i])
					walk(bp, rn.Branches[j], depth+1)
				} else {
					walk(bp, rn, depth+1)
				}
			}
		case opReaderUnion:
			if p.branch < len(rn.Branches) {
				walk(p.items, rn.Branches[p.branch], depth+1)
			}
		}
	}
	walk(p, rlay.Root, 0)
	for i := range m {
		if m[i] == unset {
			m[i] = -1
		}
	}
	return m
}

// sameValues reports whether a simple value of writer schema ws read as
// reader schema rs is the same stored value, so that the file's statistics
// describe it: the same type, logical type and, for fixed, size.
func sameValues(ws, rs *schema.Schema) bool {
	return ws.Kind == rs.Kind && ws.Logical == rs.Logical && ws.Size == rs.Size &&
		ws.Precision == rs.Precision && ws.Scale == rs.Scale
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Filter returns the compiled Options.Filter, or nil.
func (ar *AvroReader) Filter() *predicate.Predicate {
	if ar.filter == nil {
		return nil
	}
	return ar.filter.p
}

// nextMatch positions the reader's columns at the next record, from its
// row on, that satisfies the filter, or returns io.EOF.
func (ar *AvroReader) nextMatch() error {
	row, err := ar.findMatch()
	if err != nil {
		return err
	}
	ar.filter.next = row + 1
	return ar.advanceTo(row)
}

// findMatch returns the next row, from the reader's row on, that satisfies
// the filter, evaluating only the rows the ranges leave; io.EOF if none.
func (ar *AvroReader) findMatch() (int64, error) {
	f := ar.filter
	if f.col != nil {
		return ar.findRun()
	}
	row := max(ar.row, f.next)
	for {
		for f.ri < len(f.ranges) && f.ranges[f.ri].First+f.ranges[f.ri].Rows <= row {
			f.ri++
		}
		if f.ri == len(f.ranges) || row >= ar.end {
			f.next = row
			return 0, io.EOF
		}
		row = max(row, f.ranges[f.ri].First)
		if row >= ar.end {
			f.next = row
			return 0, io.EOF
		}
		if f.ranges[f.ri].All {
			f.scanned++
			f.proven++
			return row, nil
		}
		if f.ev.row != row {
			if err := f.ev.SeekRow(row); err != nil {
				return 0, err
			}
		}
		rec, err := f.ev.Read()
		if err != nil {
			if err == io.EOF {
				err = fmt.Errorf("%w: the filter's columns end before row %d", format.ErrFormat, row)
			}
			return 0, err
		}
		f.scanned++
		ok, err := f.p.Match(rec)
		if err != nil {
			return 0, fieldpath.Record(err, row)
		}
		if ok {
			return row, nil
		}
		row++
	}
}

// Count returns how many records from the reader's position to its end
// (see StopAt) satisfy the filter, reading only the filter's columns (and
// no column at all without a filter), and leaves the reader at its end.
// It checks ctx every few thousand records.
func (ar *AvroReader) Count(ctx context.Context) (int64, error) {
	var n int64
	if ar.filter == nil {
		n = max(0, ar.end-ar.row)
	} else {
		for k := 0; ; k++ {
			if k%checkEvery == 0 && ctx.Err() != nil {
				return n, fmt.Errorf("assemble: count stopped at record %d: %w", max(ar.row, ar.filter.next), ctx.Err())
			}
			row, err := ar.findMatch()
			if err == io.EOF {
				break
			}
			if err != nil {
				return n, err
			}
			k := ar.matchRun(row, math.MaxInt64)
			n += k
			ar.filter.next = row + k
		}
	}
	ar.row = max(ar.row, ar.end) // the output columns stay behind: SeekRow repositions them
	ar.returned += n
	ar.counted += n
	return n, nil
}

// NextMatch returns the number of the next record, from the reader's
// position up to its end (see StopAt), that satisfies the filter, reading
// only the filter's columns and only the blocks the statistics leave, and
// moves the reader past it without assembling it; io.EOF when none is left
// or the limit (SetLimit) is reached. As with Count, the columns read for
// output stay behind (SeekRow repositions them), and Report counts the
// rows scanned and matched. It is for a caller that reads the matching
// rows some other way (trevni dump reads them schema-less); without a
// filter it is an error.
func (ar *AvroReader) NextMatch() (int64, error) {
	if ar.filter == nil {
		return 0, fmt.Errorf("assemble: NextMatch without Options.Filter")
	}
	if ar.limit == 0 {
		return 0, io.EOF
	}
	row, err := ar.findMatch()
	if err != nil {
		return 0, err
	}
	ar.filter.next = row + 1
	ar.returned++
	ar.counted++
	if ar.limit > 0 {
		ar.limit--
	}
	return row, nil
}

// NextMatches is NextMatch for a run of records: it returns the number of
// the next record that satisfies the filter and how many records from it
// on, at least 1 and at most most, all satisfy it (those of a run of rows
// the statistics prove, or of a run the filter evaluated together), and
// moves the reader past them; io.EOF when none is left or the limit is
// reached. levels.Selector takes its matches from it.
func (ar *AvroReader) NextMatches(most int64) (int64, int64, error) {
	if ar.filter == nil {
		return 0, 0, fmt.Errorf("assemble: NextMatches without Options.Filter")
	}
	if ar.limit == 0 {
		return 0, 0, io.EOF
	}
	row, err := ar.findMatch()
	if err != nil {
		return 0, 0, err
	}
	if ar.limit > 0 {
		most = min(most, ar.limit)
	}
	n := ar.matchRun(row, most)
	ar.filter.next = row + n
	ar.returned += n
	ar.counted += n
	if ar.limit > 0 {
		ar.limit -= n
	}
	return row, n, nil
}

// matchRun returns how many rows from row, a match findMatch has just
// returned and counted, on satisfy the filter, at most most and at least
// 1: the rest of its range where the statistics prove it, or of its
// evaluated run's consecutive matches; it counts the rows after the first
// as scanned.
func (ar *AvroReader) matchRun(row, most int64) int64 {
	f := ar.filter
	n := int64(1)
	if f.ri < len(f.ranges) {
		if rg := f.ranges[f.ri]; rg.All && row >= rg.First && row < rg.First+rg.Rows {
			n = min(rg.First+rg.Rows, ar.end) - row
			f.proven += max(0, min(n, most)-1)
		} else if f.col != nil && row >= f.selFirst && row < f.selFirst+int64(len(f.sel)) {
			end := min(f.selFirst+int64(len(f.sel)), rg.First+rg.Rows, ar.end)
			sel := f.sel[row-f.selFirst : end-f.selFirst]
			if i := slices.Index(sel, false); i >= 0 {
				sel = sel[:i]
			}
			n = int64(len(sel))
		}
	}
	n = max(1, min(n, most))
	f.scanned += n - 1
	return n
}

// advanceTo moves the columns read for output from ar.row to row: by
// reading the rows between when every column has them in its current
// block, else by seeking, so that no block in between is read.
func (ar *AvroReader) advanceTo(row int64) error {
	k := row - ar.row
	if k == 0 {
		return nil
	}
	near := k > 0
	for _, c := range ar.used {
		if c.RowsLeftInBlock() <= k {
			near = false
			break
		}
	}
	if !near {
		return ar.seekColumns(row)
	}
	for ; ar.row < row; ar.row++ {
		if err := ar.startRow(); err != nil {
			return err
		}
		if _, err := ar.walk(nil, ar.root, toCheck, 0); err != nil {
			return fieldpath.Record(err, ar.row)
		}
	}
	return nil
}

// seekColumns seeks every column read for output to row.
func (ar *AvroReader) seekColumns(row int64) error {
	for _, c := range ar.used {
		if err := c.SeekRow(row); err != nil {
			return err
		}
	}
	ar.row = row
	return nil
}

// Report returns how much of the file the reader has read so far.
func (ar *AvroReader) Report() ScanReport {
	r := ScanReport{FileSize: ar.rd.Size(), RowsScanned: ar.returned, RowsMatched: ar.returned}
	readers := [][]*format.ColumnReader{ar.cols}
	if ar.filter != nil {
		r.RowsScanned, r.RowsProven = ar.filter.scanned, ar.filter.proven
		if ar.counted > 0 && ar.returned == ar.counted {
			readers = nil // only counted: the output columns were never read
		}
		readers = append(readers, ar.filter.ev.cols)
	}
	for i := range ar.cols {
		var cs *ColumnScan
		for _, rs := range readers {
			c := rs[i]
			if c == nil {
				continue
			}
			if cs == nil {
				blocks, _ := ar.rd.Blocks(i)
				cs = &ColumnScan{Column: i, Name: c.Meta().Name, Blocks: len(blocks)}
			}
			n, b := c.Loaded()
			cs.BlocksRead += n
			cs.BytesRead += b
		}
		if cs == nil {
			continue
		}
		cs.BlocksSkipped = max(0, cs.Blocks-cs.BlocksRead)
		r.BytesRead += cs.BytesRead
		r.Columns = append(r.Columns, *cs)
	}
	return r
}
