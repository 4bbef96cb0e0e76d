package format

import (
	"fmt"
	"math"
)

// SetFirstRow numbers the next row the Writer gets row, for a Writer that
// writes a segment of a file's rows on its own goroutine, to be moved into
// the file's Writer by AppendWriter: the errors its rows get then name the
// rows as the file numbers them, and RowCount counts from row. The Writer
// must hold no rows: it is new, or AppendWriter has just emptied it.
func (w *Writer) SetFirstRow(row int64) error {
	switch {
	case w.err != nil:
		return w.err
	case w.closed:
		return fmt.Errorf("%w: writer is closed", ErrUsage)
	case w.inRow:
		return fmt.Errorf("%w: SetFirstRow inside a row", ErrUsage)
	case w.rowCount != w.firstRow:
		return fmt.Errorf("%w: SetFirstRow on a writer holding %d rows", ErrUsage, w.rowCount-w.firstRow)
	case row < 0:
		return fmt.Errorf("%w: SetFirstRow(%d)", ErrUsage, row)
	}
	w.rowCount, w.firstRow = row, row
	for _, c := range w.cols {
		c.blockStart = row
		c.stamp = 0
	}
	return nil
}

// ShareBuffers makes w take its block buffers from those of file, and
// give them back there: a segment's blocks (AppendWriter) move into file,
// which frees their buffers as it writes or spills them, and the segment
// then fills them again rather than new ones. The two must have the same
// BlockSize. Call it before writing to w; both may then be used on
// different goroutines.
func (w *Writer) ShareBuffers(file *Writer) error {
	if w.opts.BlockSize != file.opts.BlockSize {
		return fmt.Errorf("%w: ShareBuffers of writers of block sizes %d and %d", ErrUsage, w.opts.BlockSize, file.opts.BlockSize)
	}
	w.bufPool = file.bufPool
	return nil
}

// AppendWriter moves the rows written to seg to the end of w's, as whole
// blocks, and leaves seg empty, ready for SetFirstRow and more rows. It is
// how rows shredded on several goroutines, each into its own Writer,
// are joined in row order: seg's first row must be numbered w.RowCount()
// (SetFirstRow). Both must have the same columns (names, types, parents,
// arrays, values flags, codecs and checksums) and both gather statistics
// or neither does.
//
// The open blocks of both are cut first, so a column's block ends where
// each segment ends (Trevni lets a column's blocks end at any row); the
// blocks themselves, already compressed by seg, move without a copy, and
// their statistics move with them exactly as gathered. The moved blocks
// count against w's memory budget from then on, and spill to w's
// temporary file past it; blocks seg had spilled are read back first.
// Neither may be inside a row; seg must not be used by another goroutine
// during the call.
func (w *Writer) AppendWriter(seg *Writer) error {
	switch {
	case w.err != nil:
		return w.err
	case w.closed:
		return fmt.Errorf("%w: writer is closed", ErrUsage)
	case seg == w:
		return fmt.Errorf("%w: AppendWriter of a writer to itself", ErrUsage)
	case w.inRow || seg.inRow:
		return fmt.Errorf("%w: AppendWriter inside a row", ErrUsage)
	case seg.err != nil:
		return fmt.Errorf("the segment: %w", seg.err)
	case seg.closed:
		return fmt.Errorf("%w: the segment is closed", ErrUsage)
	case seg.firstRow != w.rowCount:
		return fmt.Errorf("%w: AppendWriter of a segment starting at row %d to a writer of %d rows", ErrUsage, seg.firstRow, w.rowCount)
	}
	if err := w.sameColumnsAs(seg); err != nil {
		return err
	}
	if seg.rowCount == seg.firstRow {
		return nil
	}
	for _, c := range seg.cols {
		if err := seg.cutBlock(c); err != nil {
			seg.fail(err)
			return err
		}
	}
	if err := seg.wait(); err != nil {
		seg.fail(err)
		return err
	}
	if err := seg.spillWait(); err != nil {
		seg.fail(err)
		return err
	}
	for _, c := range w.cols {
		if err := w.cutBlock(c); err != nil {
			w.fail(err)
			return err
		}
	}
	var moved int64
	for i, c := range w.cols {
		s := seg.cols[i]
		for _, b := range s.blocks {
			if b.spillAt >= 0 {
				data := make([]byte, b.dataLen)
				if _, err := seg.spill.ReadAt(data, b.spillAt); err != nil {
					err = fmt.Errorf("trevni: reading spill file: %w", err)
					seg.fail(err)
					return err
				}
				b.data, b.spillAt = data, -1
			}
			moved += int64(cap(b.data))
		}
		if len(c.blocks)+len(s.blocks) > math.MaxInt32 {
			err := &Error{Offset: -1, Column: c.meta.Name, Index: c.index, Block: len(c.blocks), Row: w.rowCount,
				Err: fmt.Errorf("%w: column would have more than %d blocks", ErrLimit, math.MaxInt32)}
			w.fail(err)
			return err
		}
		c.blocks = append(c.blocks, s.blocks...)
		clear(s.blocks)
		s.blocks = s.blocks[:0]
		if c.st != nil {
			if err := c.st.MoveBlocks(s.st); err != nil {
				w.fail(err)
				return err
			}
		}
		c.lengths += s.lengths
		c.elems += s.elems
		c.values += s.values
		s.lengths, s.elems, s.values = 0, 0, 0
	}
	w.rowCount = seg.rowCount
	for _, c := range w.cols {
		c.blockStart = w.rowCount
		c.stamp = 0
	}
	seg.firstRow = seg.rowCount
	seg.held = 0
	seg.shrunk.Store(0)
	w.held += moved
	if b := w.opts.MemoryBudget; b > 0 && w.held+w.inflight > b-b/8 && w.held-w.shrunk.Load()+w.inflight > b-b/8 {
		if err := w.spillBlocks(); err != nil {
			w.fail(err)
			return err
		}
	}
	return nil
}

// sameColumnsAs checks that seg's columns are stored as w's, so that
// AppendWriter can move its blocks into w.
func (w *Writer) sameColumnsAs(seg *Writer) error {
	if len(seg.cols) != len(w.cols) {
		return fmt.Errorf("%w: AppendWriter of a segment of %d columns to a writer of %d", ErrUsage, len(seg.cols), len(w.cols))
	}
	for i, c := range w.cols {
		s := seg.cols[i]
		a, b := &c.meta, &s.meta
		switch {
		case a.Name != b.Name || a.Type != b.Type || a.Parent != b.Parent || a.Array != b.Array || a.Values != b.Values:
			return fmt.Errorf("%w: AppendWriter: the segment's column %d is %s, the writer's %s", ErrUsage, i, describeColumn(b), describeColumn(a))
		case canonicalCodec(w.codecName(c)) != canonicalCodec(seg.codecName(s)) || c.checksum != s.checksum:
			return fmt.Errorf("%w: AppendWriter: the segment's column %q is stored with codec %q and %d checksum bytes, the writer's with %q and %d", ErrUsage, a.Name, seg.codecName(s), s.checksum, w.codecName(c), c.checksum)
		case (c.st == nil) != (s.st == nil):
			return fmt.Errorf("%w: AppendWriter: statistics are on in one writer and off in the other", ErrUsage)
		}
	}
	return nil
}
