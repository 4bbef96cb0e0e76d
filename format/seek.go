package format

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math"
	"sort"
)

// SeekRow positions the reader before top-level row row, so that the next
// StartRow begins it; row may equal the row count, to position at the end.
//
// It works for every column, array and child columns included (Java's seek
// skips values rather than rows there and lands in the wrong place). For a
// child column it reads its ancestors' lengths, from the start of the
// column's block up to the row, to learn how many entries to skip.
func (c *ColumnReader) SeekRow(row int64) error {
	if row < 0 || row > c.rd.rowCount {
		return c.fail(fmt.Errorf("%w: seek to row %d of %d", ErrUsage, row, c.rd.rowCount))
	}
	if row == c.rd.rowCount {
		c.row = row - 1
		c.setBlockEnd(row) // a later StartRow reports io.EOF
		return nil
	}
	blocks := c.table.blocks
	b := sort.Search(len(blocks), func(i int) bool { return blocks[i].FirstRow+blocks[i].Rows > row })
	if b == len(blocks) {
		return c.fail(fmt.Errorf("%w: no block holds row %d", ErrFormat, row))
	}
	if b != c.dataBlock || c.data == nil { // not c.block: a block that failed to load is not there
		if err := c.loadBlock(b); err != nil {
			return err
		}
	} else {
		c.block = b // after a block that failed to load, back to the one loaded
		c.dec.reset(c.data)
		c.setBlockEnd(blocks[b].FirstRow + blocks[b].Rows)
	}
	first := blocks[b].FirstRow
	c.row = first - 1
	if row == first {
		return nil
	}
	n, err := c.entriesIn(first, row)
	if err != nil {
		return err
	}
	if c.meta.Array {
		_, err = c.dec.skipEntries(c.typ, n)
	} else {
		err = c.dec.skipValues(c.typ, n)
	}
	if err != nil {
		return c.failData(err)
	}
	c.row = row - 1
	return nil
}

// entriesIn returns how many entries (values, or lengths for an array
// column) the column holds for top-level rows [from, to): one per row for a
// top-level column, one per element of its parent otherwise.
func (c *ColumnReader) entriesIn(from, to int64) (int64, error) {
	if c.meta.Parent == "" {
		return to - from, nil
	}
	if c.aux == nil {
		for p := c.rd.parents[c.index]; p >= 0; p = c.rd.parents[p] {
			a, err := c.rd.Values(p)
			if err != nil {
				return 0, err
			}
			// It reads the rows a seek passes over, seldom past
			// their block: nothing to read ahead.
			a.readAhead = false
			c.aux = append([]*ColumnReader{a}, c.aux...)
		}
	}
	for _, a := range c.aux {
		if err := a.SeekRow(from); err != nil {
			return 0, err
		}
	}
	var total int64
	r := from
	if len(c.aux) == 1 {
		// One level: the rows of each block at once, or, where they
		// fail, one at a time (the loop below) from the first, for the
		// error's row.
		a := c.aux[0]
		for r < to {
			if err := a.StartRow(); err != nil {
				if err == io.EOF {
					return 0, a.fail(fmt.Errorf("%w: column ends before row %d", ErrFormat, r))
				}
				return 0, err
			}
			k := min(to, a.blockEnd) - r // a.row is r, in the block loaded
			saved := a.dec
			sum, err := a.dec.skipEntries(a.typ, k)
			if err != nil {
				a.dec, a.row = saved, r-1
				break
			}
			total += sum
			a.row += k - 1
			r += k
		}
	}
	for ; r < to; r++ {
		entries := int64(1)
		for _, a := range c.aux {
			if err := a.StartRow(); err != nil {
				if err == io.EOF {
					return 0, a.fail(fmt.Errorf("%w: column ends before row %d", ErrFormat, r))
				}
				return 0, err
			}
			sum, err := a.dec.skipEntries(a.typ, entries)
			if err != nil {
				return 0, a.failData(err)
			}
			entries = sum
		}
		total += entries
	}
	return total, nil
}

// SeekValue positions a column with trevni.values before the first row
// whose value is greater than or equal to v, and returns that row: the row
// count when every value is smaller. The column must be sorted. v is
// converted as by Writer.WriteValue. Strings and bytes compare byte by byte.
//
// Unlike Java, it answers correctly for a value before the first block and
// for one falling between the last value of a block and the first of the
// next.
func (c *ColumnReader) SeekValue(v any) (int64, error) {
	if !c.meta.Values {
		return 0, c.fail(fmt.Errorf("%w: column has no value index (trevni.values)", ErrUsage))
	}
	key, err := c.keyOf(v)
	if err != nil {
		return 0, c.fail(err)
	}
	blocks := c.table.blocks
	// The last block whose first value is <= v.
	b := sort.Search(len(blocks), func(i int) bool { return compareValues(c.typ, blocks[i].FirstValue, key) > 0 }) - 1
	if b < 0 {
		return 0, c.SeekRow(0)
	}
	if err := c.SeekRow(blocks[b].FirstRow); err != nil {
		return 0, err
	}
	end := blocks[b].FirstRow + blocks[b].Rows
	for r := blocks[b].FirstRow; r < end; r++ {
		save := c.dec
		got, err := c.dec.readValue(c.typ)
		if err != nil {
			return 0, c.failData(err)
		}
		if compareValues(c.typ, got, key) >= 0 {
			c.dec = save
			c.row = r - 1
			return r, nil
		}
		c.row = r
	}
	return end, c.SeekRow(end)
}

// keyOf converts v to the Go type the column's values read as.
func (c *ColumnReader) keyOf(v any) (any, error) {
	bad := fmt.Errorf("%w: cannot seek a %s column to %T", ErrUsage, c.typ, v)
	switch c.typ {
	case Int, Fixed32:
		n, ok := toInt64(v)
		if !ok || n < math.MinInt32 || n > math.MaxInt32 {
			return nil, bad
		}
		return int32(n), nil
	case Long, Fixed64:
		n, ok := toInt64(v)
		if !ok {
			return nil, bad
		}
		return n, nil
	case Float:
		if f, ok := v.(float32); ok {
			return f, nil
		}
	case Double:
		switch f := v.(type) {
		case float32:
			return float64(f), nil
		case float64:
			return f, nil
		}
	case String:
		switch s := v.(type) {
		case string:
			return s, nil
		case []byte:
			return string(s), nil
		}
	case Bytes:
		switch s := v.(type) {
		case string:
			return []byte(s), nil
		case []byte:
			return s, nil
		}
	case Boolean:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case Null:
		if v == nil {
			return nil, nil
		}
	}
	return nil, bad
}

// compareValues orders two values of type t as read by decoder.readValue.
func compareValues(t ValueType, a, b any) int {
	switch t {
	case Boolean:
		x, y := a.(bool), b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case Int, Fixed32:
		return cmp.Compare(a.(int32), b.(int32))
	case Long, Fixed64:
		return cmp.Compare(a.(int64), b.(int64))
	case Float:
		return cmp.Compare(a.(float32), b.(float32))
	case Double:
		return cmp.Compare(a.(float64), b.(float64))
	case String:
		return cmp.Compare(a.(string), b.(string))
	case Bytes:
		return bytes.Compare(a.([]byte), b.([]byte))
	}
	return 0
}
