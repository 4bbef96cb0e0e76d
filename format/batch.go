package format

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"unsafe"
)

// Batch reads. For a top-level column that is not an array (Parent empty,
// Array false) each row holds exactly one value, so the values of many rows
// can be decoded in one tight loop over the block's bytes, without a
// StartRow call and a general decode per row. Each batch read starts at the
// row after the one last started (as StartRow would), reads up to len(dst)
// rows (crossing block boundaries, loading blocks as StartRow does, with
// read-ahead, the memory budget and checksums as set for the reader), and
// leaves the reader on the last row read, so that batch reads, StartRow
// with single-value reads, and SeekRow may be mixed freely. They return how
// many rows were read and io.EOF when none are left; a batch that stops
// at the last row returns its count and a nil error, and the next call
// io.EOF. An error in the data is reported as the single-value reads
// report it (column, block, row), with the values before it in dst and
// their count.

// batchSpan prepares a batch read of up to want rows: it checks that the
// column holds one value per row of type t, moves to the next block when
// the current one is done, and returns how many rows the current block
// holds from the next row on (at most want). It returns io.EOF after the
// last row; when done rows were already read by the call, it leaves the
// reader on the last of them.
func (c *ColumnReader) batchSpan(t ValueType, want, done int) (int, error) {
	if c.typ != t && (t != Bytes || c.typ != String) { // ReadBytesTo reads both
		return 0, c.check(t)
	}
	if c.meta.Array || c.meta.Parent != "" {
		return 0, c.fail(fmt.Errorf("%w: batch reads read only top-level columns that are not arrays", ErrUsage))
	}
	return c.rowSpan(want, done)
}

// batchFail reports err met decoding the value of the k-th row of a span
// that began after row start.
func (c *ColumnReader) batchFail(start int64, k int, err error) error {
	c.row = start + int64(k) + 1
	return c.failData(err)
}

// ReadLongs reads the values of the next rows of a top-level long column
// that is not an array into dst, up to len(dst) of them, and returns how
// many it read; io.EOF when no row is left.
func (c *ColumnReader) ReadLongs(dst []int64) (int, error) {
	return readVarints(c, Long, dst, decodeLongs, (*decoder).readLong)
}

// ReadInts reads the values of the next rows of a top-level int column
// that is not an array into dst, as ReadLongs does.
func (c *ColumnReader) ReadInts(dst []int32) (int, error) {
	return readVarints(c, Int, dst, decodeInts, (*decoder).readInt)
}

// readVarints is ReadLongs and ReadInts: batch decodes the values of the
// block's bytes in runs, and one reads a value singly where batch stops
// (near the block's end, or at an error).
func readVarints[T int32 | int64](c *ColumnReader, typ ValueType, dst []T, batch func(b []byte, pos int, out []T) (int, int), one func(*decoder) (T, error)) (int, error) {
	done := 0
	for done < len(dst) {
		n, err := c.batchSpan(typ, len(dst)-done, done)
		if err != nil {
			return done, eofIfNone(done, err)
		}
		start := c.row
		out := dst[done : done+n]
		b, pos := c.dec.b, c.dec.pos
		for i := 0; i < n; {
			var k int
			pos, k = batch(b, pos, out[i:])
			if i += k; i == n {
				break
			}
			c.dec.pos = pos
			v, err := one(&c.dec)
			if err != nil {
				return done + i, c.batchFail(start, i, err)
			}
			out[i] = v
			pos = c.dec.pos
			i++
		}
		c.dec.pos = pos
		c.row = start + int64(n)
		done += n
	}
	return done, nil
}

// ReadDoubles reads the values of the next rows of a top-level double
// column that is not an array into dst, as ReadLongs does.
func (c *ColumnReader) ReadDoubles(dst []float64) (int, error) {
	done := 0
	for done < len(dst) {
		n, err := c.batchSpan(Double, len(dst)-done, done)
		if err != nil {
			return done, eofIfNone(done, err)
		}
		start := c.row
		b := c.dec.b[c.dec.pos:]
		k := min(n, len(b)/8)
		out := dst[done : done+k]
		if littleEndian() { // the values are the block's bytes
			copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), 8*k), b)
		} else {
			for i := range out {
				out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
			}
		}
		c.dec.pos += 8 * k
		if k < n {
			return done + k, c.batchFail(start, k, errTruncated)
		}
		c.row = start + int64(n)
		done += n
	}
	return done, nil
}

// ReadFloats reads the values of the next rows of a top-level float column
// that is not an array into dst, as ReadLongs does.
func (c *ColumnReader) ReadFloats(dst []float32) (int, error) {
	done := 0
	for done < len(dst) {
		n, err := c.batchSpan(Float, len(dst)-done, done)
		if err != nil {
			return done, eofIfNone(done, err)
		}
		start := c.row
		b := c.dec.b[c.dec.pos:]
		k := min(n, len(b)/4)
		out := dst[done : done+k]
		if littleEndian() {
			copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), 4*k), b)
		} else {
			for i := range out {
				out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
			}
		}
		c.dec.pos += 4 * k
		if k < n {
			return done + k, c.batchFail(start, k, errTruncated)
		}
		c.row = start + int64(n)
		done += n
	}
	return done, nil
}

// ReadBools reads the values of the next rows of a top-level boolean
// column that is not an array into dst, as ReadLongs does.
func (c *ColumnReader) ReadBools(dst []bool) (int, error) {
	done := 0
	for done < len(dst) {
		n, err := c.batchSpan(Boolean, len(dst)-done, done)
		if err != nil {
			return done, eofIfNone(done, err)
		}
		start := c.row
		out := dst[done : done+n]
		d := &c.dec
		i := 0
		// The rest of a byte begun by an earlier read.
		for d.bitCount != 0 && i < len(out) {
			out[i] = d.b[d.pos-1]>>d.bitCount&1 != 0
			d.bitCount = (d.bitCount + 1) & 7
			i++
		}
		// Whole bytes.
		whole := min((len(out)-i)/8, d.remaining())
		for _, x := range d.b[d.pos : d.pos+whole] {
			o := out[i : i+8 : i+8]
			o[0] = x&1 != 0
			o[1] = x&2 != 0
			o[2] = x&4 != 0
			o[3] = x&8 != 0
			o[4] = x&16 != 0
			o[5] = x&32 != 0
			o[6] = x&64 != 0
			o[7] = x&128 != 0
			i += 8
		}
		d.pos += whole
		// The first bits of one more byte.
		for ; i < len(out); i++ {
			v, err := d.readBool()
			if err != nil {
				return done + i, c.batchFail(start, i, err)
			}
			out[i] = v
		}
		c.row = start + int64(n)
		done += n
	}
	return done, nil
}

// ReadBytesTo reads the values of up to n next rows of a top-level string
// or bytes column that is not an array, calling fn with each row's index
// in the batch (0 for the first row read) and its value, and returns how
// many rows it read; io.EOF when no row is left. The value aliases the
// reader's block buffer and is valid only during the call of fn: copy it
// to keep it. Strings are not checked for valid UTF-8 (as ReadBytes).
// Nothing is allocated per value.
func (c *ColumnReader) ReadBytesTo(n int, fn func(i int, b []byte)) (int, error) {
	done := 0
	for done < n {
		k, err := c.batchSpan(Bytes, n-done, done)
		if err != nil {
			return done, eofIfNone(done, err)
		}
		start := c.row
		b, pos := c.dec.b, c.dec.pos
		for i := range k {
			var l int
			if pos < len(b) && b[pos] < 0x80 {
				l = int(b[pos] >> 1)
				if b[pos]&1 != 0 {
					return done + i, c.batchFail(start, i, errNegLen)
				}
				pos++
			} else {
				c.dec.pos = pos
				v, err := c.dec.readInt()
				if err != nil {
					return done + i, c.batchFail(start, i, err)
				}
				if v < 0 {
					return done + i, c.batchFail(start, i, errNegLen)
				}
				l, pos = int(v), c.dec.pos
			}
			if l > len(b)-pos {
				c.dec.pos = pos
				return done + i, c.batchFail(start, i, errTruncated)
			}
			c.dec.pos = pos + l
			fn(done+i, b[pos:pos+l:pos+l])
			pos += l
		}
		c.dec.pos = pos
		c.row = start + int64(k)
		done += k
	}
	return done, nil
}

// eofIfNone returns err, except that io.EOF after some rows were read is
// nil: the next call reports it.
func eofIfNone(done int, err error) error {
	if err == io.EOF && done > 0 {
		return nil
	}
	return err
}

// pack7 packs the low 7 bits of each byte of w, lowest byte first, into
// the low 56 bits of the result.
func pack7(w uint64) uint64 {
	w = w&0x007f007f007f007f | w>>1&0x3f803f803f803f80
	w = w&0x00003fff00003fff | w>>2&0x0fffc0000fffc000
	return w&0x000000000fffffff | w>>4&0x00fffffff0000000
}

// littleEndian reports whether the machine stores numbers as Trevni does,
// least significant byte first, so that fixed-width values can be copied
// as they are.
func littleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}
