package format

import "fmt"

// A batch is rows written a column at a time, for a caller whose rows
// come as columns (DuckDB's data chunks, say): StartRows begins n rows;
// then, for each column, in any order of the columns, the caller calls
// BatchRow before the lengths and values of each row of the batch, in row
// order, and writes them as it would within StartRow and EndRow; EndRows
// ends the batch. A column's blocks end where they would had the rows been
// written one by one, since a column's block is cut at the first row
// boundary after it reaches the block size, whatever the other columns
// hold: the file is the same, byte for byte.
//
// A batch needs the row checks off (CheckRows(false)): Close still checks
// every column's totals against the structure. Within a batch RowCount
// is the row BatchRow last named.

// StartRows begins a batch of n rows (n ≥ 1), cutting the blocks that
// reached the block size in the rows before, as StartRow does.
func (w *Writer) StartRows(n int) error {
	if n < 1 {
		return fmt.Errorf("%w: StartRows(%d)", ErrUsage, n)
	}
	if !w.unchecked {
		return fmt.Errorf("%w: StartRows with the row checks on", ErrUsage)
	}
	if err := w.StartRow(); err != nil {
		return err
	}
	w.batchFirst, w.batchRows = w.rowCount, n
	return nil
}

// BatchRow says that the lengths and values of column col that follow
// are those of row r of the batch (from 0): if the column's block reached
// the block size in the rows before, it is cut here. It is small enough
// to be inlined into the caller's loop over the rows.
func (w *Writer) BatchRow(col, r int) {
	w.rowCount = w.batchFirst + int64(r)
	if cs := w.cols; uint(r) >= uint(w.batchRows) || uint(col) >= uint(len(cs)) || len(cs[col].enc.b) >= w.opts.BlockSize {
		w.batchRow(col, r)
	}
}

// batchRow is BatchRow for a block to cut, or a misuse: a row outside
// the batch is an error of the file; a column that does not exist is left
// to the write that follows.
func (w *Writer) batchRow(col, r int) {
	switch {
	case w.batchRows == 0:
		w.fail(fmt.Errorf("%w: BatchRow(%d, %d) outside a batch", ErrUsage, col, r))
	case uint(r) >= uint(w.batchRows):
		w.fail(fmt.Errorf("%w: BatchRow(%d, %d) in a batch of %d rows", ErrUsage, col, r, w.batchRows))
	case uint(col) < uint(len(w.cols)):
		if err := w.cutBlock(w.cols[col]); err != nil {
			w.fail(err)
		}
	}
}

// EndRows ends the batch StartRows began.
func (w *Writer) EndRows() error {
	if w.batchRows == 0 {
		return fmt.Errorf("%w: EndRows without StartRows", ErrUsage)
	}
	w.rowCount = w.batchFirst + int64(w.batchRows) - 1
	w.batchRows = 0
	return w.EndRow()
}
