package format

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// WriteLength writes the length of the next array in array column col.
func (w *Writer) WriteLength(col, n int) {
	var c *columnWriter
	if cs := w.cols; uint(col) < uint(len(cs)) && uint(n) <= math.MaxInt32 && cs[col].array && cs[col].fast != noType {
		// The common case, a shredder's: counted in the totals.
		c = cs[col]
		c.lengths++
		c.elems += int64(n)
	} else if c = w.beginLength(col, n); c == nil {
		return
	}
	if c.st != nil {
		c.st.AddLength(n)
	}
	c.lenRow = w.rowCount
	l := int32(n)
	if l == c.runValue {
		c.runLength++
		return
	}
	if c.runLength != 0 {
		c.flushRun()
	}
	if l == 0 || l == 1 {
		c.runLength, c.runValue = 1, l
	} else {
		c.lenAt = len(c.enc.b)
		c.enc.writeLength(l)
	}
	w.filled(c)
}

// beginLength is WriteLength's checks and counts for every case but the
// common one: it returns the column, or nil after recording a misuse.
func (w *Writer) beginLength(col, n int) *columnWriter {
	c := w.column(col)
	if c == nil {
		return nil
	}
	if !c.array {
		w.usage(c, "not an array column")
		return nil
	}
	if n < 0 || n > math.MaxInt32 {
		w.usage(c, "array length %d out of range", n)
		return nil
	}
	if w.unchecked {
		c.lengths++
		c.elems += int64(n)
	} else {
		if c.stamp != w.rowCount+1 {
			w.touch(c)
		}
		c.rowLengths++
		c.rowElems += int64(n)
	}
	return c
}

// ExtendLength adds n to the length last written to array column col, for
// a caller that learns an array's length in parts after writing its first
// values (Avro encodes arrays in blocks, each with its own count): the
// length is rewritten where it stands, as if it had been written whole.
// The length must have been written in the current row, be at least 1, and
// be the column's last; the column must hold values (its type is not
// null). The caller then writes the n further values (or the n further
// entries of the column's children).
func (w *Writer) ExtendLength(col, n int) {
	c := w.column(col)
	if c == nil {
		return
	}
	switch {
	case !c.array || c.typ == Null:
		w.usage(c, "ExtendLength needs an array column that holds values")
		return
	case !w.inRow || c.lenRow != w.rowCount || c.lenAt < 0 || c.runLength != 0:
		w.usage(c, "ExtendLength without a length of at least 1 last written in the row")
		return
	case n < 0:
		w.usage(c, "ExtendLength by %d", n)
		return
	}
	b := c.enc.b
	old, size := binary.Uvarint(b[c.lenAt:])
	if size <= 0 {
		w.fail(fmt.Errorf("trevni: column %q: no length at byte %d of the block", c.meta.Name, c.lenAt))
		return
	}
	if old == 0 {
		// The statistics counted it as empty.
		w.usage(c, "ExtendLength of an empty array")
		return
	}
	l := (int64(old>>1) ^ -int64(old&1)) + int64(n)
	if l > math.MaxInt32 {
		w.usage(c, "array length %d out of range", l)
		return
	}
	var buf [binary.MaxVarintLen32]byte
	code := binary.AppendUvarint(buf[:0], uint64(l)<<1)
	if grow := len(code) - size; grow > 0 {
		b = slices.Insert(b, c.lenAt+size, code[:grow]...)
		c.enc.b = b
	}
	copy(b[c.lenAt:], code)
	if w.unchecked {
		c.elems += int64(n)
	} else {
		c.rowElems += int64(n)
	}
	w.filled(c)
}

// flushRun writes a pending run of 0 or 1 lengths: a single one literally,
// longer runs as Java's negative run code.
func (c *columnWriter) flushRun() {
	switch {
	case c.runLength == 0:
		return
	case c.runLength == 1:
		c.lenAt = len(c.enc.b)
		c.enc.writeLength(c.runValue)
	default:
		c.lenAt = -1
		c.enc.writeLength((3 - c.runValue) - c.runLength<<1)
	}
	c.runLength, c.runValue = 0, -1
}
