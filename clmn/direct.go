package clmn

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/utf8check"
)

// The direct route: a reader of a leaf's levels and values (package
// assemble/levels) reads a column's rows straight from the inflated
// stream into Go values, big-endian integers and doubles decoded where
// they lie, with no Trevni 2 block made (its varints written, and decoded
// again) between.

// Direct reports whether DirectRead reads the column's values as Go
// values of Trevni 2 type t: the column's own type (every CLMN column is a
// top-level field).
func (sc *sourceColumn) Direct(t format.ValueType) bool {
	return t == trevniType(sc.s.rd.cols[sc.i].Type)
}

// DirectSeek makes row the next row DirectRead reads.
func (sc *sourceColumn) DirectSeek(row int64) {
	blocks := sc.s.blocks[sc.i]
	if b := sc.dblock; b < 0 || row < blocks[b].FirstRow || row >= blocks[b].FirstRow+blocks[b].Rows {
		sc.dblock = -1
	}
	sc.drow = row
}

// DirectLoaded returns the blocks DirectRead entered (each once a pass: a
// seek back enters them again) and their stored bytes: what a reader of
// the blocks Block makes would have loaded.
func (sc *sourceColumn) DirectLoaded() (int, int64) { return sc.dblocks, sc.dbytes }

// DirectRead reads the values of the next len(lens) rows, setting each
// lens[i] to 1 (a value a row) and appending the values to vals: a
// *[]int32, *[]int64 or *[]float64 of the column's type, or a
// func([]byte) handed each string (valid during the call). Strings are
// checked for UTF-8 and the stream's end as Block checks them; most does
// not apply (a row holds one value). It returns the rows read.
func (sc *sourceColumn) DirectRead(lens []int32, vals any, _ int) (int, error) {
	n := int64(len(lens))
	if n == 0 {
		return 0, nil
	}
	rows := sc.s.rd.rows
	if sc.drow < 0 || sc.drow+n > rows {
		return 0, fmt.Errorf("%w: rows %d to %d of %d", format.ErrUsage, sc.drow, sc.drow+n-1, rows)
	}
	blocks := sc.s.blocks[sc.i]
	b := max(sc.dblock, 0)
	for ; b < len(blocks) && blocks[b].FirstRow <= sc.drow+n-1; b++ {
		if b > sc.dblock && blocks[b].FirstRow+blocks[b].Rows > sc.drow {
			sc.dblocks++
			sc.dbytes += int64(blocks[b].CompressedSize)
			sc.dblock = b
		}
	}
	if err := sc.seek(sc.drow); err != nil {
		return 0, err
	}
	if err := sc.cr.readDirect(n, vals); err != nil {
		return 0, err
	}
	for i := range lens {
		lens[i] = 1
	}
	sc.next += n
	sc.drow += n
	return len(lens), sc.ended()
}

// readDirect reads the next n values into vals (see DirectRead).
func (c *ColumnReader) readDirect(n int64, vals any) error {
	if c.err != nil {
		return c.err
	}
	if n > c.rows-1-c.row {
		return c.errf("%d values asked for after row %d of %d", n, c.row, c.rows)
	}
	if c.in == nil {
		if c.err = c.open(); c.err != nil {
			return c.err
		}
	}
	t := c.col.Type
	if dst, ok := vals.(func([]byte)); ok && t == String {
		return c.directStrings(n, dst)
	}
	w := t.width()
	if !(t == Int32 && is[*[]int32](vals) || t == Int64 && is[*[]int64](vals) || t == Float64 && is[*[]float64](vals)) {
		return fmt.Errorf("%w: %s values read as %T", format.ErrUsage, t, vals)
	}
	for n > 0 {
		k := min(n, int64(len(c.chunk(w)))/w)
		var b []byte
		if b, c.err = c.next(int(k * w)); c.err != nil {
			return c.err
		}
		switch dst := vals.(type) {
		case *[]int32:
			out, at := extend(*dst, k)
			for j := range out[at:] {
				out[at+j] = int32(binary.BigEndian.Uint32(b[4*j:]))
			}
			*dst = out
		case *[]int64:
			out, at := extend(*dst, k)
			for j := range out[at:] {
				out[at+j] = int64(binary.BigEndian.Uint64(b[8*j:]))
			}
			*dst = out
		case *[]float64:
			out, at := extend(*dst, k)
			for j := range out[at:] {
				out[at+j] = math.Float64frombits(binary.BigEndian.Uint64(b[8*j:]))
			}
			*dst = out
		}
		c.row += k
		n -= k
	}
	return nil
}

// is says whether v is of type T.
func is[T any](v any) bool {
	_, ok := v.(T)
	return ok
}

// extend returns s lengthened by n and its length before.
func extend[T any](s []T, n int64) ([]T, int) {
	at := len(s)
	return slices.Grow(s, int(n))[:at+int(n)], at
}

// directStrings hands the next n strings to dst, each checked for UTF-8:
// those whole in the inflater's buffer where they lie (all at once where
// their bytes, lengths included, are ASCII), any other read alone.
func (c *ColumnReader) directStrings(n int64, dst func([]byte)) error {
	for n > 0 {
		win, _ := c.in.Peek(c.in.Buffered()) // what is buffered: cannot fail
		end, k := 0, int64(0)
		for ; k < n && end+2 <= len(win); k++ {
			l := int(win[end])<<8 | int(win[end+1])
			if end+2+l > len(win) {
				break
			}
			end += 2 + l
		}
		if k > 0 {
			checked := ascii(win[:end])
			for p, i := 0, int64(0); i < k; i++ {
				l := int(win[p])<<8 | int(win[p+1])
				s := win[p+2 : p+2+l]
				if !checked && !utf8check.Valid(s) {
					c.in.Discard(p)
					c.row += i + 1
					c.err = c.errf("string is not valid UTF-8")
					return c.err
				}
				dst(s)
				p += 2 + l
			}
			c.in.Discard(end) // buffered: cannot fail
			c.row += k
			n -= k
			continue
		}
		// A string not whole in the buffer: its length, then its bytes.
		c.row++
		n--
		var lb []byte
		if lb, c.err = c.next(2); c.err != nil {
			return c.err
		}
		l := int(binary.BigEndian.Uint16(lb))
		if int64(l) > c.col.UncompressedSize-c.inflatedUsed() {
			c.err = c.errf("string of %d bytes runs past the end of the column's %d bytes", l, c.col.UncompressedSize)
			return c.err
		}
		if cap(c.buf) < l {
			c.buf = make([]byte, l, max(l, 2*cap(c.buf)))
		}
		s := c.buf[:l]
		if c.err = c.readFull(s); c.err != nil {
			return c.err
		}
		if !utf8check.Valid(s) {
			c.err = c.errf("string is not valid UTF-8")
			return c.err
		}
		dst(s)
	}
	return nil
}
