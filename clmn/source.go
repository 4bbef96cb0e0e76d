package clmn

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/utf8check"
)

// DefaultSourceBlockSize is about how many bytes of Trevni 2 encoding a
// block of a Source holds unless SourceOptions.BlockSize says otherwise:
// the block size of Trevni 2 files.
const DefaultSourceBlockSize = format.DefaultBlockSize

// SourceOptions configures a Source. The zero value is ready to use.
type SourceOptions struct {
	// Names are the columns' names as the source presents them (the
	// fields of an Avro schema, say); nil means the file's own.
	Names []string
	// Meta is the file metadata the source presents (avro.schema, say);
	// nil means none.
	Meta *format.MetaData
	// BlockSize is about how many bytes of Trevni 2 encoding each block
	// holds: a column is cut into blocks of as many rows as take that
	// much on average. 0 means DefaultSourceBlockSize.
	BlockSize int
	// MaxBlockSize bounds the bytes of one block; 0 means
	// format.DefaultMaxBlockSize. A block whose values take more (long
	// strings gathered in a few rows) is an error wrapping ErrLimit.
	MaxBlockSize int
}

// Source is a CLMN file's columns as a [format.Source]: each column a
// Trevni 2 column of type int (INT32), long (INT64), double (FLOAT64) or
// string (STRING), cut into blocks of rows, each block inflated and
// re-encoded as it is asked for. A [format.NewSourceReader] of it reads
// the file's rows as those of the Trevni 2 file of the same values, with
// no copy: only the columns read are inflated, and each column's zlib
// stream is checked to its end (checksum and sizes) when its last block
// is read.
type Source struct {
	rd     *Reader
	opts   SourceOptions
	meta   []format.MetaData
	blocks [][]format.BlockInfo
}

// NewSource returns the Source of rd's columns. opts may be nil.
func NewSource(rd *Reader, opts *SourceOptions) (*Source, error) {
	s := &Source{rd: rd}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.Names != nil && len(s.opts.Names) != len(rd.cols) {
		return nil, fmt.Errorf("%w: %d names for %d columns", format.ErrUsage, len(s.opts.Names), len(rd.cols))
	}
	if s.opts.BlockSize <= 0 {
		s.opts.BlockSize = DefaultSourceBlockSize
	}
	if s.opts.MaxBlockSize <= 0 {
		s.opts.MaxBlockSize = format.DefaultMaxBlockSize
	}
	if rd.rows == 0 {
		// A file of no rows gives its columns no blocks, so their streams
		// would never be read through the Source: they are read here, as
		// the column readers read them, so that a damaged stream is the
		// same located error whichever way the file is read.
		for j := range rd.cols {
			cr, err := rd.Values(j)
			if err != nil {
				return nil, err
			}
			for cr.Next() {
			}
			if err := cr.Err(); err != nil {
				return nil, err
			}
		}
	}
	s.meta = make([]format.MetaData, len(rd.cols))
	s.blocks = make([][]format.BlockInfo, len(rd.cols))
	for i, c := range rd.cols {
		name := c.Name
		if s.opts.Names != nil {
			name = s.opts.Names[i]
		}
		s.meta[i].SetString(format.KeyName, name)
		s.meta[i].SetString(format.KeyType, trevniType(c.Type).String())
		s.blocks[i] = cut(c, rd.rows, s.opts.BlockSize)
	}
	return s, nil
}

// trevniType returns the Trevni 2 type of a CLMN type.
func trevniType(t Type) format.ValueType {
	switch t {
	case Int32:
		return format.Int
	case Int64:
		return format.Long
	case Float64:
		return format.Double
	}
	return format.String
}

// encodedMax returns the most bytes a value of type t takes in Trevni 2's
// encoding, past a string's bytes.
func encodedMax(t Type) int64 {
	switch t {
	case Int32:
		return 5
	case Int64:
		return 10
	case Float64:
		return 8
	}
	return 3 // a string's length, up to 65535
}

// cut returns the blocks of a column of rows values: as many rows each as
// take about size bytes of Trevni 2 encoding on average, and their size so
// estimated.
func cut(c Column, rows int64, size int) []format.BlockInfo {
	if rows == 0 {
		return nil
	}
	per := encodedMax(c.Type)
	if c.Type == String {
		// The strings' bytes on average, their 2-byte lengths aside.
		per += max(0, c.UncompressedSize-2*rows) / rows
	}
	k := max(1, int64(size)/max(per, 1))
	n := (rows + k - 1) / k
	blocks := make([]format.BlockInfo, 0, n)
	for first := int64(0); first < rows; first += k {
		r := min(k, rows-first)
		blocks = append(blocks, format.BlockInfo{Rows: r, FirstRow: first, UncompressedSize: int(min(r*per, math.MaxInt32)), Offset: c.Offset})
	}
	// The column's stored bytes, shared among its blocks by their rows, so
	// that what a scan reports as read adds up to the column's stream.
	var given int64
	for i := range blocks {
		share := c.CompressedSize * (blocks[i].FirstRow + blocks[i].Rows) / rows
		blocks[i].CompressedSize = int(min(share-given, math.MaxInt32))
		given = share
	}
	return blocks
}

// Size returns the size of the CLMN file.
func (s *Source) Size() int64 { return s.rd.size }

// RowCount returns the file's rows.
func (s *Source) RowCount() int64 { return s.rd.rows }

// Meta returns the metadata of SourceOptions.Meta.
func (s *Source) Meta() *format.MetaData { return s.opts.Meta }

// NumColumns returns the number of columns.
func (s *Source) NumColumns() int { return len(s.meta) }

// RawColumnMeta returns column i's Trevni 2 metadata: its name and type.
func (s *Source) RawColumnMeta(i int) *format.MetaData { return &s.meta[i] }

// Blocks returns the blocks column i is cut into.
func (s *Source) Blocks(i int) ([]format.BlockInfo, error) {
	if i < 0 || i >= len(s.blocks) {
		return nil, fmt.Errorf("%w: no column #%d in a file of %d columns", format.ErrUsage, i, len(s.blocks))
	}
	return s.blocks[i], nil
}

// OpenColumn returns a reader of column i's blocks.
func (s *Source) OpenColumn(i int) (format.SourceColumn, error) {
	if i < 0 || i >= len(s.blocks) {
		return nil, fmt.Errorf("%w: no column #%d in a file of %d columns", format.ErrUsage, i, len(s.blocks))
	}
	return &sourceColumn{s: s, i: i, dblock: -1}, nil
}

// sourceColumn reads the blocks of one column in order from one zlib
// stream, opened again for a block before the stream's position.
type sourceColumn struct {
	s    *Source
	i    int
	cr   *ColumnReader
	next int64 // the row of cr's next value

	// The direct route (direct.go): the next row DirectRead reads, the
	// block it last entered (-1: none since the last seek), and the
	// blocks entered and their stored bytes.
	drow    int64
	dblock  int
	dblocks int
	dbytes  int64
}

// Block appends the Trevni 2 encoding of block b's values to dst.
func (sc *sourceColumn) Block(b int, dst []byte) ([]byte, error) {
	blocks := sc.s.blocks[sc.i]
	if b < 0 || b >= len(blocks) {
		return dst, fmt.Errorf("%w: no block %d", format.ErrUsage, b)
	}
	bi := &blocks[b]
	if err := sc.seek(bi.FirstRow); err != nil {
		return dst, err
	}
	dst, err := sc.cr.appendTrevni(dst, bi.Rows, len(dst)+sc.s.opts.MaxBlockSize)
	if err != nil {
		return dst, err
	}
	sc.next += bi.Rows
	return dst, sc.ended()
}

// seek makes row the next value the column's reader reads: the stream
// opened again for a row before its position, the values before row
// skipped.
func (sc *sourceColumn) seek(row int64) error {
	if sc.cr == nil || row < sc.next {
		sc.Close()
		cr, err := sc.s.rd.Values(sc.i)
		if err != nil {
			return err
		}
		sc.cr, sc.next = cr, 0
	}
	if skip := row - sc.next; skip > 0 {
		if _, err := sc.cr.appendTrevni(nil, skip, -1); err != nil {
			return err
		}
		sc.next += skip
	}
	return nil
}

// ended checks, once the reader has read the last value, that the stream
// ends there.
func (sc *sourceColumn) ended() error {
	cr := sc.cr
	if sc.next == cr.rows {
		if cr.Next() {
			return cr.errf("a value after the last row")
		}
		return cr.Err()
	}
	return nil
}

// Close releases the column's inflater and its share of the memory.
func (sc *sourceColumn) Close() {
	if sc.cr != nil {
		sc.cr.Close()
		sc.cr = nil
	}
}

// Close releases the reader's inflater and buffers, giving their bytes
// back to the Reader's ColumnMemory; the reader reads no more.
func (c *ColumnReader) Close() {
	c.z, c.in, c.src = nil, nil, nil
	c.rd.budget.Release(c.share)
	if c.err == nil {
		c.err = fmt.Errorf("%w: column reader closed", format.ErrUsage)
	}
}

// appendTrevni reads the next n values and appends their Trevni 2
// encoding to dst (none when dst is nil and limit is negative: the values
// are skipped), failing once dst would pass limit bytes (limit >= 0).
func (c *ColumnReader) appendTrevni(dst []byte, n int64, limit int) ([]byte, error) {
	if c.err != nil {
		return dst, c.err
	}
	if n > c.rows-1-c.row {
		return dst, c.errf("%d values asked for after row %d of %d", n, c.row, c.rows)
	}
	if n == 0 {
		return dst, nil
	}
	if c.in == nil {
		if c.err = c.open(); c.err != nil {
			return dst, c.err
		}
	}
	skip := dst == nil && limit < 0
	if w := c.col.Type.width(); w > 0 {
		// Fixed-size values: read in runs of whole values.
		if !skip {
			dst = growFor(dst, int(n*encodedMax(c.col.Type)))
		}
		for n > 0 {
			k := min(n, int64(len(c.chunk(w)))/w)
			var b []byte
			if b, c.err = c.next(int(k * w)); c.err != nil {
				return dst, c.err
			}
			if !skip {
				dst = appendFixed(dst, c.col.Type, b)
			}
			c.row += k
			n -= k
		}
		if limit >= 0 && len(dst) > limit {
			c.err = c.limitErr("the block's values take %d bytes, past the %d of SourceOptions.MaxBlockSize", len(dst), limit)
			return dst, c.err
		}
		return dst, nil
	}
	for n > 0 {
		if !skip {
			// The strings whole in the inflater's buffer, parsed where
			// they lie.
			var k int64
			if dst, k, c.err = c.bufferedStrings(dst, n, limit); c.err != nil {
				return dst, c.err
			}
			if n -= k; n == 0 {
				break
			}
		}
		n--
		c.row++
		var lb []byte
		if lb, c.err = c.next(2); c.err != nil {
			return dst, c.err
		}
		l := int(binary.BigEndian.Uint16(lb))
		if int64(l) > c.col.UncompressedSize-c.inflatedUsed() {
			c.err = c.errf("string of %d bytes runs past the end of the column's %d bytes", l, c.col.UncompressedSize)
			return dst, c.err
		}
		if skip {
			if cap(c.buf) < l {
				c.buf = make([]byte, l, max(l, 2*cap(c.buf)))
			}
			s := c.buf[:l]
			if c.err = c.readFull(s); c.err != nil {
				return dst, c.err
			}
			if !utf8check.Valid(s) {
				c.err = c.errf("string is not valid UTF-8")
				return dst, c.err
			}
			continue
		}
		if limit >= 0 && len(dst)+3+l > limit {
			c.err = c.limitErr("the block's strings pass the %d bytes of SourceOptions.MaxBlockSize", limit)
			return dst, c.err
		}
		dst = binary.AppendUvarint(dst, uint64(l)<<1)
		at := len(dst)
		if b, err := c.in.Peek(l); err == nil {
			// The string straight from the inflater's buffer.
			dst = append(dst, b...)
			c.in.Discard(l) // peeked: cannot fail
		} else {
			dst = growFor(dst, l)[:at+l]
			if c.err = c.readFull(dst[at:]); c.err != nil {
				return dst[:at], c.err
			}
		}
		if !utf8check.Valid(dst[at:]) {
			c.err = c.errf("string is not valid UTF-8")
			return dst[:at], c.err
		}
	}
	return dst, nil
}

// bufferedStrings appends the Trevni 2 encoding of up to n strings that lie
// whole in the inflater's buffer to dst, and returns how many it took.
// Where those strings are shorter than 64 bytes and their bytes all ASCII
// (looked at eight bytes at a time), each is copied with no check of its
// own, as 16 bytes at once where it is of 16 bytes or fewer and 16 are in
// the buffer.
func (c *ColumnReader) bufferedStrings(dst []byte, n int64, limit int) ([]byte, int64, error) {
	win, _ := c.in.Peek(c.in.Buffered()) // what is buffered: cannot fail
	end, k, lens := 0, int64(0), 0
	for ; k < n && end+2 <= len(win); k++ {
		l := int(win[end])<<8 | int(win[end+1])
		if end+2+l > len(win) {
			break
		}
		lens |= l
		end += 2 + l
	}
	if k == 0 {
		return dst, 0, nil
	}
	if lens < 64 && (limit < 0 || len(dst)+end+3 <= limit) {
		if ascii(win[:end]) {
			// Lengths below 64, a byte as varints: the encoding is a
			// byte shorter a string than the buffer's.
			dst = slices.Grow(dst, end+16)
			out := dst[len(dst) : len(dst)+end+16]
			p, q := 0, 0
			for p < end {
				w, o := win[p:], out[q:]
				l := int(w[1])
				if l <= 16 && len(w) >= 18 && len(o) >= 17 {
					o[0] = byte(l << 1)
					*(*[16]byte)(o[1:17]) = *(*[16]byte)(w[2:18])
				} else {
					o[0] = byte(l << 1)
					copy(o[1:], w[2:2+l])
				}
				p += 2 + l
				q += 1 + l
			}
			c.in.Discard(end) // buffered: cannot fail
			c.row += k
			return dst[:len(dst)+q], k, nil
		}
	}
	p := 0
	for k = 0; k < n && p+2 <= len(win); k++ {
		l := int(binary.BigEndian.Uint16(win[p:]))
		if p+2+l > len(win) {
			break
		}
		if limit >= 0 && len(dst)+3+l > limit {
			c.in.Discard(p)
			c.row += k + 1
			return dst, k, c.limitErr("the block's strings pass the %d bytes of SourceOptions.MaxBlockSize", limit)
		}
		s := win[p+2 : p+2+l]
		if !utf8check.Valid(s) {
			c.in.Discard(p)
			c.row += k + 1
			return dst, k, c.errf("string is not valid UTF-8")
		}
		dst = binary.AppendUvarint(dst, uint64(l)<<1)
		dst = append(dst, s...)
		p += 2 + l
	}
	c.in.Discard(p) // buffered: cannot fail
	c.row += k
	return dst, k, nil
}

// ascii reports whether every byte of b is below 0x80.
func ascii(b []byte) bool {
	var or uint64
	for len(b) >= 8 {
		or |= binary.LittleEndian.Uint64(b)
		b = b[8:]
	}
	for _, c := range b {
		or |= uint64(c)
	}
	return or&0x8080808080808080 == 0
}

// next returns the next n bytes of the inflated data, valid until the
// next read: from the inflater's buffer where they are there, else read
// into the reader's scratch buffer (which the fixed-size runs use too).
func (c *ColumnReader) next(n int) ([]byte, error) {
	if b, err := c.in.Peek(n); err == nil {
		c.in.Discard(n) // peeked: cannot fail
		return b, nil
	}
	if cap(c.buf) < n {
		c.buf = make([]byte, n)
	}
	b := c.buf[:n]
	return b, c.readFull(b)
}

// limitErr returns an error wrapping ErrLimit about the column at the
// current row.
func (c *ColumnReader) limitErr(format string, args ...any) error {
	return &Error{Index: c.index, Column: c.col.Name, Row: c.row, Offset: c.col.Offset,
		Err: fmt.Errorf("%w: "+format, append([]any{ErrLimit}, args...)...)}
}

// chunk returns the reader's scratch buffer for runs of fixed-size
// values: 4 KiB, a whole number of values of width w.
func (c *ColumnReader) chunk(w int64) []byte {
	if cap(c.buf) < 4<<10 {
		c.buf = make([]byte, 4<<10)
	}
	return c.buf[:(4<<10)/w*w]
}

// growFor returns dst with room for n more bytes.
func growFor(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		return dst
	}
	out := make([]byte, len(dst), len(dst)+max(n, cap(dst)))
	copy(out, dst)
	return out
}

// appendFixed appends the Trevni 2 encoding of the big-endian values b of
// type t to dst: zig-zag varints for INT32 and INT64, little-endian for
// FLOAT64, the room for them made once (the varints written into it a
// byte at a time, the words swapped in place).
func appendFixed(dst []byte, t Type, b []byte) []byte {
	switch t {
	case Int32:
		dst = slices.Grow(dst, len(b)/4*5)
		out, q := dst[len(dst):cap(dst)], 0
		for ; len(b) >= 4; b = b[4:] {
			v := int32(binary.BigEndian.Uint32(b))
			q = putUvarint(out, q, uint64(uint32(v<<1^v>>31)))
		}
		return dst[:len(dst)+q]
	case Int64:
		dst = slices.Grow(dst, len(b)/8*10)
		out, q := dst[len(dst):cap(dst)], 0
		for ; len(b) >= 8; b = b[8:] {
			v := int64(binary.BigEndian.Uint64(b))
			q = putUvarint(out, q, uint64(v<<1^v>>63))
		}
		return dst[:len(dst)+q]
	case Float64:
		n := len(b) / 8 * 8
		dst = slices.Grow(dst, n)
		out := dst[len(dst) : len(dst)+n]
		for i := 0; i+8 <= n; i += 8 {
			binary.LittleEndian.PutUint64(out[i:i+8], binary.BigEndian.Uint64(b[i:i+8]))
		}
		return dst[:len(dst)+n]
	}
	return dst
}

// putUvarint writes u as a varint at out[q:], which has room for it, and
// returns the position after it.
func putUvarint(out []byte, q int, u uint64) int {
	for ; u >= 0x80; u >>= 7 {
		out[q] = byte(u) | 0x80
		q++
	}
	out[q] = byte(u)
	return q + 1
}

var _ format.Source = (*Source)(nil)
