package format

import (
	"errors"
	"fmt"
	"math"
)

// StartRow begins a row. Columns whose current block has reached the block
// size cut it here, so blocks hold whole rows.
func (w *Writer) StartRow() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return fmt.Errorf("%w: writer is closed", ErrUsage)
	}
	if w.inRow {
		return fmt.Errorf("%w: StartRow before EndRow", ErrUsage)
	}
	if w.rowCount == math.MaxInt64 {
		return fmt.Errorf("%w: too many rows", ErrUsage)
	}
	w.inRow = true
	// A column is listed in full when a write takes its buffer to the
	// block size; an aborted row may have taken it back below.
	for _, c := range w.full {
		c.full = false
		if len(c.enc.b) >= w.opts.BlockSize {
			if err := w.cutBlock(c); err != nil {
				w.fail(err)
				return err
			}
		}
	}
	w.full = w.full[:0]
	w.touched = w.touched[:0]
	w.rowErr = w.err == nil
	return nil
}

// touch readies column c for its first write of the row: its counts start
// at zero and its state is saved for AbortRow.
func (w *Writer) touch(c *columnWriter) {
	if c.stamp == w.rowCount+1 {
		return
	}
	c.stamp = w.rowCount + 1
	w.touched = append(w.touched, c)
	c.rowLengths, c.rowElems, c.rowValues = 0, 0, 0
	c.saved.size, c.saved.bitCount = len(c.enc.b), c.enc.bitCount
	c.saved.runLength, c.saved.runValue, c.saved.hasFirst = c.runLength, c.runValue, c.hasFirst
	if c.st != nil {
		c.st.Mark()
	}
}

// CheckRows turns the per-row checks on (the default) or off. With them
// on, EndRow checks every row's structure and AbortRow can undo a row.
// With them off, for a caller whose rows are right by construction (such
// as a shredder following a schema), rows cost less to write: EndRow
// checks nothing, AbortRow cannot undo the row and ends the file with an
// error instead, and Close still checks every column's totals of lengths
// and values against the structure, so that a misuse fails rather than
// writing an inconsistent file. It may be called between rows only.
func (w *Writer) CheckRows(on bool) error {
	if w.inRow {
		return fmt.Errorf("%w: CheckRows inside a row", ErrUsage)
	}
	w.unchecked = !on
	for _, c := range w.cols {
		c.fast = noType
		if w.unchecked {
			c.fast = c.typ
		}
	}
	return nil
}

// elems returns the array elements column c got in the current row.
func (w *Writer) elems(c *columnWriter) int64 {
	if c.stamp == w.rowCount+1 {
		return c.rowElems
	}
	return 0
}

// AbortRow discards the row begun by the last StartRow, restoring every
// column as it was, and forgets a misuse recorded during the row (such as
// a value of the wrong type), so that writing can go on with the next row.
// Errors from compression or the spill file are kept.
func (w *Writer) AbortRow() {
	if !w.inRow {
		return
	}
	if w.unchecked {
		w.fail(fmt.Errorf("%w: row %d aborted with row checks off: it cannot be undone", ErrUsage, w.rowCount))
		w.inRow = false
		return
	}
	for _, c := range w.touched {
		s := c.saved
		c.enc.b = c.enc.b[:s.size]
		c.lenAt = -1
		c.enc.bitCount, c.runLength, c.runValue, c.hasFirst = s.bitCount, s.runLength, s.runValue, s.hasFirst
		if c.enc.bitCount != 0 {
			// Clear bits a discarded boolean set in the shared last byte.
			c.enc.b[len(c.enc.b)-1] &= 1<<c.enc.bitCount - 1
		}
		if c.st != nil {
			c.st.Rollback()
		}
		c.stamp = 0 // the row will be written again under the same number
	}
	w.touched = w.touched[:0]
	if w.rowErr && (errors.Is(w.err, ErrUsage) || errors.Is(w.err, ErrLimit)) {
		w.err = nil
	}
	w.inRow = false
}

// EndRow ends a row, checking that every column got as many lengths and
// values as the row's structure calls for.
func (w *Writer) EndRow() error {
	if w.err != nil {
		return w.err
	}
	if !w.inRow {
		return fmt.Errorf("%w: EndRow without StartRow", ErrUsage)
	}
	if w.unchecked {
		w.rowCount++
		w.inRow = false
		return nil
	}
	// Columns not written to hold no entries this row: that is right
	// unless they are mandatory roots, or mandatory children of an array
	// that got elements.
	roots := 0
	for _, c := range w.touched {
		entries := int64(1)
		if c.parent >= 0 {
			entries = w.elems(w.cols[c.parent])
		} else if c.mandatory {
			roots++
		}
		if c.meta.Array {
			if int64(c.rowLengths) != entries {
				w.usage(c, "wrote %d lengths in the row, want %d", c.rowLengths, entries)
				return w.err
			}
			entries = c.rowElems
			if entries > 0 {
				for _, k := range c.kids {
					if k.stamp != w.rowCount+1 {
						w.usage(k, "wrote nothing in the row, want %d entries", entries)
						return w.err
					}
				}
			}
		}
		if c.meta.Type != Null && c.rowValues != entries {
			w.usage(c, "wrote %d values in the row, want %d", c.rowValues, entries)
			return w.err
		}
	}
	if roots < w.mandatoryRoots {
		for _, c := range w.cols {
			if c.parent < 0 && c.mandatory && c.stamp != w.rowCount+1 {
				w.usage(c, "wrote nothing in the row, want 1 entry")
				return w.err
			}
		}
	}
	for _, c := range w.touched {
		c.lengths += int64(c.rowLengths)
		c.elems += c.rowElems
		c.values += c.rowValues
	}
	w.rowCount++
	w.inRow = false
	return nil
}
