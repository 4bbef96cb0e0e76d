package format

import "fmt"

// ReadState tells where a ColumnReader is in its current block. A caller
// that reads rows of several columns can compare the states before and
// after a row: if no column consumed a byte (only lengths from runs of 0
// or 1 lengths), the rows after it read the same values as long as the
// runs last, and SkipAlikeRows can pass over them in one step.
type ReadState struct {
	Block int   // the current block
	Pos   int   // bytes consumed of the block's data
	Bits  uint8 // bits consumed of the current byte of booleans
	Run   int64 // lengths left in the current run
}

// ReadState returns where the reader is in its current block.
func (c *ColumnReader) ReadState() ReadState {
	return ReadState{Block: c.block, Pos: c.dec.pos, Bits: c.dec.bitCount, Run: c.dec.runLength}
}

// SkipAlikeRows moves the reader k rows ahead within its current block,
// taking per lengths of the current run for each row: for rows the caller
// knows to read only that from the column (see ReadState). It fails,
// moving nothing, if the block ends first or the run is too short.
func (c *ColumnReader) SkipAlikeRows(k, per int64) error {
	if k < 0 || per < 0 || c.row+k >= c.blockEnd || per > 0 && c.dec.runLength/per < k {
		return c.fail(fmt.Errorf("%w: cannot skip %d rows of %d run lengths each", ErrUsage, k, per))
	}
	c.row += k
	c.dec.runLength -= k * per
	return nil
}

// RowsLeftInBlock returns how many rows of the current block follow the
// current one.
func (c *ColumnReader) RowsLeftInBlock() int64 { return c.blockEnd - 1 - c.row }
