package format

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
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
	done := 0
	for done < len(dst) {
		n, err := c.batchSpan(Long, len(dst)-done, done)
		if err != nil {
			return done, eofIfNone(done, err)
		}
		start := c.row
		out := dst[done : done+n]
		b, pos := c.dec.b, c.dec.pos
		for i := range out {
			// One- and two-byte values first.
			if pos < len(b) && b[pos] < 0x80 {
				u := uint64(b[pos])
				out[i] = int64(u>>1) ^ -int64(u&1)
				pos++
				continue
			}
			if pos+1 < len(b) && b[pos+1] < 0x80 {
				u := uint64(b[pos]&0x7f) | uint64(b[pos+1])<<7
				out[i] = int64(u>>1) ^ -int64(u&1)
				pos += 2
				continue
			}
			// Longer ones, unrolled where the block holds 10 more
			// bytes; by readLong near its end (or for its error).
			var u uint64
			var k int
			if len(b)-pos >= 10 {
				u, k = uvarint64(b[pos:])
			}
			if k == 0 {
				c.dec.pos = pos
				v, err := c.dec.readLong()
				if err != nil {
					return done + i, c.batchFail(start, i, err)
				}
				out[i] = v
				pos = c.dec.pos
				continue
			}
			out[i] = int64(u>>1) ^ -int64(u&1)
			pos += k
		}
		c.dec.pos = pos
		c.row = start + int64(n)
		done += n
	}
	return done, nil
}

// ReadInts reads the values of the next rows of a top-level int column
// that is not an array into dst, as ReadLongs does.
func (c *ColumnReader) ReadInts(dst []int32) (int, error) {
	done := 0
	for done < len(dst) {
		n, err := c.batchSpan(Int, len(dst)-done, done)
		if err != nil {
			return done, eofIfNone(done, err)
		}
		start := c.row
		out := dst[done : done+n]
		b, pos := c.dec.b, c.dec.pos
		for i := range out {
			if pos < len(b) && b[pos] < 0x80 {
				u := uint32(b[pos])
				out[i] = int32(u>>1) ^ -int32(u&1)
				pos++
				continue
			}
			if pos+1 < len(b) && b[pos+1] < 0x80 {
				u := uint32(b[pos]&0x7f) | uint32(b[pos+1])<<7
				out[i] = int32(u>>1) ^ -int32(u&1)
				pos += 2
				continue
			}
			// Longer ones, as in ReadLongs.
			var u uint32
			var k int
			if len(b)-pos >= 5 {
				u, k = uvarint32(b[pos:])
			}
			if k == 0 {
				c.dec.pos = pos
				v, err := c.dec.readInt()
				if err != nil {
					return done + i, c.batchFail(start, i, err)
				}
				out[i] = v
				pos = c.dec.pos
				continue
			}
			out[i] = int32(u>>1) ^ -int32(u&1)
			pos += k
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
		for i := range out {
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
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
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
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

// uvarint64 decodes the varint of a long from b, which holds at least 10
// bytes, as decoder.readUvarint(10) does, unrolled: the value and its
// length, or a length of 0 when 10 bytes do not end it.
func uvarint64(b []byte) (uint64, int) {
	b = b[:10]
	y := uint64(b[0])
	if y < 0x80 {
		return y, 1
	}
	u := y & 0x7f
	if y = uint64(b[1]); y < 0x80 {
		return u | y<<7, 2
	}
	u |= (y & 0x7f) << 7
	if y = uint64(b[2]); y < 0x80 {
		return u | y<<14, 3
	}
	u |= (y & 0x7f) << 14
	if y = uint64(b[3]); y < 0x80 {
		return u | y<<21, 4
	}
	u |= (y & 0x7f) << 21
	if y = uint64(b[4]); y < 0x80 {
		return u | y<<28, 5
	}
	u |= (y & 0x7f) << 28
	if y = uint64(b[5]); y < 0x80 {
		return u | y<<35, 6
	}
	u |= (y & 0x7f) << 35
	if y = uint64(b[6]); y < 0x80 {
		return u | y<<42, 7
	}
	u |= (y & 0x7f) << 42
	if y = uint64(b[7]); y < 0x80 {
		return u | y<<49, 8
	}
	u |= (y & 0x7f) << 49
	if y = uint64(b[8]); y < 0x80 {
		return u | y<<56, 9
	}
	u |= (y & 0x7f) << 56
	if y = uint64(b[9]); y < 0x80 {
		return u | y<<63, 10
	}
	return 0, 0
}

// uvarint32 decodes the varint of an int from b, which holds at least 5
// bytes, as decoder.readUvarint(5) and readInt do (the low 32 bits kept):
// the value and its length, or a length of 0 when 5 bytes do not end it.
func uvarint32(b []byte) (uint32, int) {
	b = b[:5]
	y := uint32(b[0])
	if y < 0x80 {
		return y, 1
	}
	u := y & 0x7f
	if y = uint32(b[1]); y < 0x80 {
		return u | y<<7, 2
	}
	u |= (y & 0x7f) << 7
	if y = uint32(b[2]); y < 0x80 {
		return u | y<<14, 3
	}
	u |= (y & 0x7f) << 14
	if y = uint32(b[3]); y < 0x80 {
		return u | y<<21, 4
	}
	u |= (y & 0x7f) << 21
	if y = uint32(b[4]); y < 0x80 {
		return u | y<<28, 5
	}
	return 0, 0
}
