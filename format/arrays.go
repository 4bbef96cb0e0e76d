package format

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"unsafe"
)

// Batch reads of arrays. A top-level array column holds one length per row
// and, unless its type is null, each array's items after its length; a
// column beneath an array (not itself an array) holds the items of its
// ancestors' arrays, row after row. These reads decode the lengths and items
// of many rows in one loop over a block's bytes, as the batch reads of
// batch.go do for top-level columns that are not arrays, with the same
// rules: each starts at the row after the one last started, crosses block
// boundaries as StartRow does, leaves the reader on the last row read (so
// that they mix freely with StartRow and single-value reads), returns io.EOF
// when no row is left, and reports an error in the data as the
// single-value reads do, naming the row. They decode exactly what
// NextLength and the single-value reads would, in the same order, and
// apply the same checks (an array length that the rest of the block cannot
// hold is refused), so nothing is allocated from a length the block's
// bytes do not back.

// Items are the Go types of the values ReadArrays and ReadItems decode:
// bool of a boolean column, int32 of an int column, int64 of a long
// column, float32 of a float column and float64 of a double column.
type Items interface {
	bool | int32 | int64 | float32 | float64
}

// rowSpan is batchSpan for a column of any shape, unchecked: it moves to the next
// block when the current one is done and returns how many rows the
// current block holds from the next row on (at most want). It returns
// io.EOF after the last row.
func (c *ColumnReader) rowSpan(want, done int) (int, error) {
	if want <= 0 {
		return 0, nil
	}
	if c.row+1 >= c.rd.rowCount {
		if done > 0 {
			return 0, io.EOF
		}
		if c.strict && c.row < c.rd.rowCount {
			if err := c.checkConsumed(); err != nil {
				return 0, err
			}
		}
		c.row = c.rd.rowCount
		return 0, io.EOF
	}
	if c.row+1 >= c.blockEnd {
		c.row++ // as StartRow: errors name the row being started
		for c.row >= c.blockEnd {
			if c.strict {
				if err := c.checkConsumed(); err != nil {
					return 0, err
				}
			}
			if err := c.loadBlock(c.block + 1); err != nil {
				return 0, err
			}
		}
		c.row--
	}
	return int(min(int64(want), c.blockEnd-(c.row+1), c.rd.rowCount-(c.row+1))), nil
}

// itemType returns the column type whose values T holds.
func itemType[T Items]() ValueType {
	var z T
	switch any(z).(type) {
	case bool:
		return Boolean
	case int32:
		return Int
	case int64:
		return Long
	case float32:
		return Float
	}
	return Double
}

// ReadLengths reads the array lengths of the next rows, up to len(dst), of
// a top-level array column of nulls (whose items, if any, are in the
// columns beneath it) into dst, and returns how many rows it read.
func (c *ColumnReader) ReadLengths(dst []int32) (int, error) {
	if !c.meta.Array || c.meta.Parent != "" || c.typ != Null {
		return 0, c.fail(fmt.Errorf("%w: ReadLengths reads only top-level array columns of nulls", ErrUsage))
	}
	done := 0
	for done < len(dst) {
		n, err := c.rowSpan(len(dst)-done, done)
		if err != nil {
			return done, eofIfNone(done, err)
		}
		start := c.row
		for i, out := 0, dst[done:done+n]; i < n; i++ {
			k, err := c.dec.nextLength()
			if err == nil && k < 0 {
				err = errNegLen
			}
			if err != nil {
				return done + i, c.batchFail(start, i, err)
			}
			out[i] = k
		}
		c.row = start + int64(n)
		done += n
	}
	return done, nil
}

// MaxArrayItems bounds the items one call of ReadArrays or
// ReadArrayBytesTo reads: a call stops after the row whose items bring
// those it read to MaxArrayItems or more, so that what it holds stays
// bounded however long the arrays (a row holds at most what its block's
// bytes back).
const MaxArrayItems = 1 << 20

// ReadArrays reads the next rows, up to len(lens), of a top-level array
// column of T: each row's array length into lens and its items appended to
// items. It returns how many rows it read and items; fewer than len(lens)
// before the last row when the items reach MaxArrayItems.
func ReadArrays[T Items](c *ColumnReader, lens []int32, items []T) (int, []T, error) {
	t := itemType[T]()
	if !c.meta.Array || c.meta.Parent != "" || c.typ != t {
		return 0, items, c.fail(fmt.Errorf("%w: ReadArrays of %s reads only top-level array columns of %s, not %s", ErrUsage, t, t, c.typ))
	}
	done, stop := 0, len(items)+MaxArrayItems
	for done < len(lens) {
		n, err := c.rowSpan(len(lens)-done, done)
		if err != nil {
			return done, items, eofIfNone(done, err)
		}
		start := c.row
		for i, out := 0, lens[done:done+n]; i < n; i++ {
			k, err := c.arrayLength()
			if err == nil {
				out[i] = int32(k)
				items, err = appendItems(&c.dec, k, items)
			}
			if err != nil {
				return done + i, items, c.batchFail(start, i, err)
			}
			if len(items) >= stop {
				c.row = start + int64(i) + 1
				return done + i + 1, items, nil
			}
		}
		c.row = start + int64(n)
		done += n
	}
	return done, items, nil
}

// ReadArrayBytesTo is ReadArrays for a top-level array column of strings
// or bytes: it calls fn with each item, which aliases the reader's block
// buffer and is valid only during the call, and stops early as ReadArrays
// does. Strings are not checked for valid UTF-8 (as ReadBytes).
func (c *ColumnReader) ReadArrayBytesTo(lens []int32, fn func(b []byte)) (int, error) {
	if !c.meta.Array || c.meta.Parent != "" || c.typ != String && c.typ != Bytes {
		return 0, c.fail(fmt.Errorf("%w: ReadArrayBytesTo reads only top-level array columns of strings or bytes", ErrUsage))
	}
	done, items := 0, 0
	for done < len(lens) {
		n, err := c.rowSpan(len(lens)-done, done)
		if err != nil {
			return done, eofIfNone(done, err)
		}
		start := c.row
		for i, out := 0, lens[done:done+n]; i < n; i++ {
			k, err := c.arrayLength()
			if err == nil {
				out[i] = int32(k)
				_, err = eachBytes(&c.dec, k, fn)
			}
			if err != nil {
				return done + i, c.batchFail(start, i, err)
			}
			if items += k; items >= MaxArrayItems {
				c.row = start + int64(i) + 1
				return done + i + 1, nil
			}
		}
		c.row = start + int64(n)
		done += n
	}
	return done, nil
}

// ReadItems reads the values of the next len(counts) rows of a column of T
// beneath an array, counts[i] of them for the i-th row (the lengths its
// ancestors give that row), appending them to items, and returns items. It
// reads every row of counts or fails.
func ReadItems[T Items](c *ColumnReader, counts []int32, items []T) ([]T, error) {
	t := itemType[T]()
	if c.meta.Array || c.meta.Parent == "" || c.typ != t {
		return items, c.fail(fmt.Errorf("%w: ReadItems of %s reads only columns of %s beneath an array that are not arrays, not %s", ErrUsage, t, t, c.typ))
	}
	done := 0
	for done < len(counts) {
		n, err := c.rowSpan(len(counts)-done, done)
		if err != nil {
			if err == io.EOF {
				err = c.fail(fmt.Errorf("%w: %d rows wanted past the last", ErrUsage, len(counts)-done))
			}
			return items, err
		}
		// The items of the span's rows follow one another in the block:
		// they are decoded in one run.
		start := c.row
		span := counts[done : done+n]
		total, bad := spanItems(span)
		if bad >= 0 {
			return items, c.batchFail(start, bad, errNegLen)
		}
		at := len(items)
		if items, err = appendItems(&c.dec, total, items); err != nil {
			return items, c.batchFail(start, rowOf(span, len(items)-at), err)
		}
		c.row = start + int64(n)
		done += n
	}
	return items, nil
}

// spanItems returns the sum of counts, and the index of the first negative
// one (-1 if none).
func spanItems(counts []int32) (int, int) {
	total := 0
	for i, k := range counts {
		if k < 0 {
			return total, i
		}
		total += int(k)
	}
	return total, -1
}

// rowOf returns the index of the row of counts that holds item j (counted
// from the first row's first item); the last row if none does.
func rowOf(counts []int32, j int) int {
	for i, k := range counts {
		if j < int(k) {
			return i
		}
		j -= int(k)
	}
	return max(len(counts)-1, 0)
}

// ReadItemBytesTo is ReadItems for a column of strings or bytes beneath an
// array: it calls fn with each value, which aliases the reader's block
// buffer and is valid only during the call.
func (c *ColumnReader) ReadItemBytesTo(counts []int32, fn func(b []byte)) error {
	if c.meta.Array || c.meta.Parent == "" || c.typ != String && c.typ != Bytes {
		return c.fail(fmt.Errorf("%w: ReadItemBytesTo reads only columns of strings or bytes beneath an array that are not arrays", ErrUsage))
	}
	done := 0
	for done < len(counts) {
		n, err := c.rowSpan(len(counts)-done, done)
		if err != nil {
			if err == io.EOF {
				err = c.fail(fmt.Errorf("%w: %d rows wanted past the last", ErrUsage, len(counts)-done))
			}
			return err
		}
		start := c.row
		span := counts[done : done+n]
		total, bad := spanItems(span)
		if bad >= 0 {
			return c.batchFail(start, bad, errNegLen)
		}
		if got, err := eachBytes(&c.dec, total, fn); err != nil {
			return c.batchFail(start, rowOf(span, got), err)
		}
		c.row = start + int64(n)
		done += n
	}
	return nil
}

// arrayLength reads an array's length as NextLength does, with its checks:
// the rest of the block must be able to hold the items.
func (c *ColumnReader) arrayLength() (int, error) {
	n, err := c.dec.nextLength()
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, errNegLen
	}
	if min := c.typ.minSize(); min > 0 && int64(n)*int64(min) > int64(c.dec.remaining()) ||
		c.typ == Boolean && int64(n) > 8*int64(c.dec.remaining())+8 {
		return 0, fmt.Errorf("%w: array length %d exceeds the block's remaining %d bytes", ErrFormat, n, c.dec.remaining())
	}
	return int(n), nil
}

// appendItems decodes k values of T from d, appending them to items. It
// checks that the block can hold them before it grows items.
func appendItems[T Items](d *decoder, k int, items []T) ([]T, error) {
	if k == 0 {
		return items, nil
	}
	switch p := any(&items).(type) {
	case *[]float32:
		return items, appendFixed(d, k, p)
	case *[]float64:
		return items, appendFixed(d, k, p)
	case *[]int32:
		if k > d.remaining() {
			return items, errTruncated
		}
		return items, appendEach(d, k, p, (*decoder).readInt)
	case *[]int64:
		if k > d.remaining() {
			return items, errTruncated
		}
		return items, appendEach(d, k, p, (*decoder).readLong)
	case *[]bool:
		if int64(k) > 8*int64(d.remaining())+8 {
			return items, errTruncated
		}
		return items, appendEach(d, k, p, (*decoder).readBool)
	}
	return items, nil
}

// appendEach decodes k values from d with one, appending them to *items;
// on an error, *items holds those decoded before it.
func appendEach[T Items](d *decoder, k int, items *[]T, one func(*decoder) (T, error)) error {
	at := len(*items)
	s := slices.Grow(*items, k)[:at+k]
	for i := range s[at:] {
		v, err := one(d)
		if err != nil {
			*items = s[:at+i]
			return err
		}
		s[at+i] = v
	}
	*items = s
	return nil
}

// appendFixed decodes k little-endian floats or doubles from d, appending
// them to *items.
func appendFixed[F float32 | float64](d *decoder, k int, items *[]F) error {
	size := int(unsafe.Sizeof(F(0)))
	if k > d.remaining()/size {
		return errTruncated
	}
	b := d.b[d.pos : d.pos+k*size]
	at := len(*items)
	s := slices.Grow(*items, k)[:at+k]
	out := s[at:]
	if littleEndian() { // the values are the block's bytes
		copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), len(b)), b)
	} else {
		for i := range out {
			if size == 4 {
				out[i] = F(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
			} else {
				out[i] = F(math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])))
			}
		}
	}
	d.pos += len(b)
	*items = s
	return nil
}

// eachBytes decodes k strings or bytes values from d, calling fn with
// each, and returns how many it decoded.
func eachBytes(d *decoder, k int, fn func(b []byte)) (int, error) {
	if k > d.remaining() {
		return 0, errTruncated
	}
	b, pos := d.b, d.pos
	for i := range k {
		var l int
		if pos < len(b) && b[pos] < 0x80 && b[pos]&1 == 0 { // a one-byte length
			l = int(b[pos] >> 1)
			pos++
		} else {
			d.pos = pos
			v, err := d.readInt()
			if err != nil {
				return i, err
			}
			if v < 0 {
				return i, errNegLen
			}
			l, pos = int(v), d.pos
		}
		if l > len(b)-pos {
			d.pos = pos
			return i, errTruncated
		}
		fn(b[pos : pos+l : pos+l])
		pos += l
	}
	d.pos = pos
	return k, nil
}

// nextLength is readLength with the common case inline: no run being
// served and a length of one byte that is not a run's code.
func (d *decoder) nextLength() (int32, error) {
	if d.runLength == 0 && d.pos < len(d.b) {
		if c := d.b[d.pos]; c < 0x80 && c&1 == 0 {
			d.pos++
			d.bitCount = 0
			return int32(c >> 1), nil
		}
	}
	return d.readLength()
}
