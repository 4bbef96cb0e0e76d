package format

import (
	"errors"
	"fmt"
	"io"
)

// Validate reads the whole file and reports every problem it finds to report:
// unreadable block tables, blocks that fail to decompress or whose checksum
// does not match, and blocks whose data does not match the rows they claim
// (values missing, or bytes left over at the end of a block). Each top-level
// column and its children are checked independently, so one damaged column
// does not hide problems in others. It returns the number of problems found.
func (rd *Reader) Validate(report func(error)) int {
	problems := 0
	fail := func(err error) {
		problems++
		if report != nil {
			report(err)
		}
	}
	broken := make([]bool, len(rd.cols))
	leafErr := make([]error, len(rd.cols))
	for i := range rd.cols {
		c, err := rd.Values(i)
		if err != nil {
			fail(err)
			broken[i] = true
			continue
		}
		// A top-level column without children is checked block by block as
		// its blocks are loaded, rather than loaded again by a row walk.
		leaf := rd.parents[i] < 0 && len(rd.children[i]) == 0
		for b := range c.table.blocks {
			// A block that fails names its own first row, as a read
			// reaching it does (not the row of the block before).
			c.row = c.table.blocks[b].FirstRow
			if err := c.loadBlock(b); err != nil {
				fail(err)
				broken[i] = true
				continue
			}
			if leaf && !broken[i] && leafErr[i] == nil {
				leafErr[i] = c.checkLeafBlock(b)
			}
		}
		c.Close() // its block memory goes back to the budget
	}
	for i := range rd.cols {
		if rd.parents[i] >= 0 {
			continue
		}
		tree := rd.Subtree(i)
		skip := false
		for _, k := range tree {
			skip = skip || broken[k]
		}
		if skip {
			continue // already reported
		}
		if len(tree) == 1 {
			if leafErr[i] != nil {
				fail(leafErr[i])
			}
			continue
		}
		if err := rd.validateTree(tree); err != nil {
			fail(err)
		}
	}
	return problems
}

// checkLeafBlock checks that block b, just loaded, of a top-level column
// without children holds exactly its rows' entries. Runs of zero lengths
// are skipped whole, so a block claiming billions of empty rows costs
// nothing.
func (c *ColumnReader) checkLeafBlock(b int) error {
	rows := c.table.blocks[b].Rows
	c.row = c.table.blocks[b].FirstRow
	var err error
	if c.meta.Array {
		_, err = c.dec.skipEntries(c.typ, rows)
	} else {
		err = c.dec.skipValues(c.typ, rows)
	}
	if err != nil {
		return c.failData(err)
	}
	return c.checkConsumed()
}

// validateTree checks a top-level column with children and its descendants,
// skipping values, and checks that every block is consumed exactly.
//
// It costs time in proportion to the bytes stored, not to the rows or
// elements they claim: columns are separate streams, so the entries of
// many rows, or of many elements, can be skipped in one step per column,
// and runs of lengths are skipped whole. Rows are taken in spans within
// which no column of the tree changes block.
func (rd *Reader) validateTree(tree []int) error {
	readers := make(map[int]*ColumnReader, len(tree))
	for _, i := range tree {
		c, err := rd.Values(i)
		if err != nil {
			return err
		}
		defer c.Close()
		c.strict = true
		readers[i] = c
	}
	// walk skips the given number of entries of column i and, for an
	// array column, the entries its elements hold in its descendants.
	var walk func(i int, entries int64) error
	walk = func(i int, entries int64) error {
		c := readers[i]
		if !c.meta.Array {
			if err := c.dec.skipValues(c.typ, entries); err != nil {
				return c.failData(err)
			}
			return nil
		}
		elems, err := c.dec.skipEntries(c.typ, entries)
		if err != nil {
			return c.failData(err)
		}
		for _, k := range rd.children[i] {
			if err := walk(k, elems); err != nil {
				return err
			}
		}
		return nil
	}
	for row := int64(0); row < rd.rowCount; {
		end := rd.rowCount
		for _, i := range tree {
			c := readers[i]
			if err := c.StartRow(); err != nil {
				return err
			}
			end = min(end, c.blockEnd)
		}
		if err := walk(tree[0], end-row); err != nil {
			return err
		}
		for _, i := range tree {
			readers[i].row = end - 1
		}
		row = end
	}
	for _, i := range tree {
		if err := readers[i].StartRow(); !errors.Is(err, io.EOF) {
			if err == nil {
				err = readers[i].fail(fmt.Errorf("%w: rows beyond the row count", ErrFormat))
			}
			return err
		}
	}
	return nil
}

// checkConsumed reports a block whose data was not read exactly.
func (c *ColumnReader) checkConsumed() error {
	if c.block < 0 || c.data == nil {
		return nil
	}
	if r := c.dec.remaining(); r != 0 || c.dec.runLength != 0 {
		return c.fail(fmt.Errorf("%w: block has %d bytes and %d run lengths left after its %d rows", ErrFormat, r, c.dec.runLength, c.table.blocks[c.block].Rows))
	}
	return nil
}
