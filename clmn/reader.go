package clmn

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"unicode/utf8"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/budget"
	"github.com/trevni-go/trevni/internal/utf8check"
)

// Magic is the four bytes a CLMN file starts with.
const Magic = "CLMN"

// Version is the only format version this package reads and writes.
const Version = 1

// MaxString is the longest string a STRING column can hold, in bytes.
const MaxString = 65535

const (
	fixedHeaderSize = 18 // magic, version, column count, row count
	entryFixedSize  = 19 // name length, type, two sizes, offset
	maxSize32       = math.MaxUint32
)

// Type is a column's data type.
type Type uint8

// The column types of CLMN 1.0, with their codes.
const (
	Int32   Type = 0
	Int64   Type = 1
	Float64 Type = 2
	String  Type = 3
)

// String returns the type's name in the specification: INT32, INT64,
// FLOAT64 or STRING.
func (t Type) String() string {
	switch t {
	case Int32:
		return "INT32"
	case Int64:
		return "INT64"
	case Float64:
		return "FLOAT64"
	case String:
		return "STRING"
	}
	return fmt.Sprintf("type 0x%02x", uint8(t))
}

// width returns the bytes a value of a fixed-size type takes, or 0.
func (t Type) width() int64 {
	switch t {
	case Int32:
		return 4
	case Int64, Float64:
		return 8
	}
	return 0
}

// Column describes one column of a CLMN file: its header entry.
type Column struct {
	Name string
	Type Type
	// UncompressedSize and CompressedSize are the sizes of the column's
	// data before and after zlib compression; Offset is where its zlib
	// stream starts in the file. A Writer sets them.
	UncompressedSize int64
	CompressedSize   int64
	Offset           int64
}

// Error is a problem with a CLMN file or with values given to a Writer,
// and where it is. Fields that do not apply are -1 (numbers) or empty.
type Error struct {
	Index  int    // column number
	Column string // column name
	Row    int64  // row number, from 0
	Offset int64  // offset in the file
	Err    error  // what went wrong
}

// Error returns the problem as one line, place first.
func (e *Error) Error() string {
	s := ""
	if e.Index >= 0 {
		s = fmt.Sprintf("column %q (#%d)", e.Column, e.Index)
	}
	add := func(part string) {
		if s != "" {
			s += ", "
		}
		s += part
	}
	if e.Row >= 0 {
		add(fmt.Sprintf("row %d", e.Row))
	}
	if e.Offset >= 0 {
		add(fmt.Sprintf("offset %d", e.Offset))
	}
	if s == "" {
		return e.Err.Error()
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// ErrFormat is wrapped by every error about a malformed file. It is a
// kind of format.ErrFormat, so that one test finds a damaged file of any
// format.
var ErrFormat = format.KindOf(format.ErrFormat, "malformed CLMN file")

func headerErr(off int64, format string, args ...any) error {
	return &Error{Index: -1, Row: -1, Offset: off, Err: fmt.Errorf("%w: "+format, append([]any{ErrFormat}, args...)...)}
}

// DefaultMaxColumns is the most columns a Reader accepts unless
// ReaderOptions.MaxColumns says otherwise, and the most a Writer writes:
// the default column limit of the project's schemas (layout.DefaultMaxColumns).
const DefaultMaxColumns = 1 << 16

// ErrLimit is wrapped by the error about a file that needs more than a
// ReaderOptions (or SourceOptions) limit allows; the message names the
// option. It is a kind of format.ErrLimit, so that one test finds a limit
// of any format.
var ErrLimit = format.KindOf(format.ErrLimit, "clmn: limit exceeded")

// DefaultColumnMemory is how many bytes the ColumnReaders of one Reader
// may hold at once for inflating unless ReaderOptions.ColumnMemory says
// otherwise: some 4,000 large columns read side by side, and any number
// of small ones up to DefaultMaxColumns.
const DefaultColumnMemory = 512 << 20

// smallColumn is the most uncompressed bytes of a column that a
// ColumnReader inflates at once, letting its inflater go: a file of many
// small columns read side by side then holds their bytes, not an inflater
// (with its 32 KiB window) for each.
const smallColumn = 4 << 10

// inflaterCost is about what one inflater holds: its 32 KiB window and
// its Huffman tables.
const inflaterCost = 48 << 10

// ReaderOptions configures a Reader. The zero value is ready to use.
type ReaderOptions struct {
	// MaxColumns bounds the number of columns; 0 means DefaultMaxColumns.
	// A file with more is an error wrapping ErrLimit, reported from the
	// column count, before any header entry is read.
	MaxColumns int
	// ColumnMemory bounds the bytes that all the ColumnReaders of the
	// Reader hold at once for inflating: a column of up to 4 KiB takes
	// its bytes, inflated when it is first read; a larger one, read as it
	// inflates, takes an inflater (about 48 KiB) and its buffers (up to
	// 32 KiB each) until its last value is read. 0 means
	// DefaultColumnMemory and a negative value means no bound. A column
	// that would take more is an error wrapping ErrLimit.
	ColumnMemory int64
	// SkipChecksums reads the columns without verifying the Adler-32 that
	// ends each zlib stream, to read what a damaged file still holds (the
	// trevni command's --skip-checksums). The streams' structure and sizes
	// are checked all the same.
	SkipChecksums bool
}

// Reader reads a CLMN file. Opening it reads only the header; columns are
// read when asked for. A Reader is safe for concurrent use: each
// ColumnReader has its own state.
type Reader struct {
	ra         io.ReaderAt
	size       int64
	rows       int64
	headerSize int64
	cols       []Column

	budget    budget.Budget[ColumnReader]
	inflaters sync.Pool // zlib readers given back by columns done with them
	skipSums  bool      // ReaderOptions.SkipChecksums
}

// NewReader reads the header of the CLMN file of the given size in r and
// checks it: magic, version, a column count above zero that the file can
// hold, names of valid UTF-8 and distinct, known types, sizes consistent
// with the type and row count, and column blocks after the header, in
// order, not overlapping and inside the file. opts may be nil.
func NewReader(r io.ReaderAt, size int64, opts *ReaderOptions) (*Reader, error) {
	var o ReaderOptions
	if opts != nil {
		o = *opts
	}
	maxColumns := int64(DefaultMaxColumns)
	if o.MaxColumns > 0 {
		maxColumns = int64(o.MaxColumns)
	}
	if size < fixedHeaderSize {
		return nil, headerErr(0, "file of %d bytes is shorter than the %d-byte header", size, fixedHeaderSize)
	}
	br := bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 4096)
	var fixed [fixedHeaderSize]byte
	if _, err := io.ReadFull(br, fixed[:]); err != nil {
		return nil, &Error{Index: -1, Row: -1, Offset: 0, Err: fmt.Errorf("read header: %w", err)}
	}
	if string(fixed[:4]) != Magic {
		return nil, headerErr(0, "bad magic %q, want %q", fixed[:4], Magic)
	}
	if v := binary.BigEndian.Uint16(fixed[4:]); v != Version {
		return nil, headerErr(4, "unsupported version %d, want %d", v, Version)
	}
	n := int64(binary.BigEndian.Uint32(fixed[6:]))
	if n == 0 {
		return nil, headerErr(6, "column count is 0")
	}
	if n > (size-fixedHeaderSize)/entryFixedSize {
		return nil, headerErr(6, "column count %d: the %d-byte file can hold at most %d header entries", n, size, (size-fixedHeaderSize)/entryFixedSize)
	}
	if n > maxColumns {
		return nil, &Error{Index: -1, Row: -1, Offset: 6, Err: fmt.Errorf("%w: %d columns, more than the %d of ReaderOptions.MaxColumns", ErrLimit, n, maxColumns)}
	}
	rows := int64(binary.BigEndian.Uint64(fixed[10:]))
	if rows < 0 {
		return nil, headerErr(10, "negative row count %d", rows)
	}
	rd := &Reader{ra: r, size: size, rows: rows, cols: make([]Column, 0, min(n, 1024))}
	rd.skipSums = o.SkipChecksums
	switch {
	case o.ColumnMemory == 0:
		rd.budget.Limit = DefaultColumnMemory
	case o.ColumnMemory < 0:
		rd.budget.Limit = -1
	default:
		rd.budget.Limit = o.ColumnMemory
	}
	names := make(map[string]int, min(n, 1024))
	off := int64(fixedHeaderSize)
	var entry [entryFixedSize - 2]byte
	for i := 0; i < int(n); i++ {
		var l [2]byte
		if _, err := io.ReadFull(br, l[:]); err != nil {
			return nil, &Error{Index: i, Row: -1, Offset: off, Err: fmt.Errorf("%w: header entry cut short: %v", ErrFormat, err)}
		}
		nameLen := int64(binary.BigEndian.Uint16(l[:]))
		if off+2+nameLen+entryFixedSize-2 > size {
			return nil, &Error{Index: i, Row: -1, Offset: off, Err: fmt.Errorf("%w: header entry with a %d-byte name runs past the end of the %d-byte file", ErrFormat, nameLen, size)}
		}
		name := make([]byte, nameLen)
		if _, err := io.ReadFull(br, name); err != nil {
			return nil, &Error{Index: i, Row: -1, Offset: off + 2, Err: fmt.Errorf("read column name: %w", err)}
		}
		if _, err := io.ReadFull(br, entry[:]); err != nil {
			return nil, &Error{Index: i, Row: -1, Offset: off + 2 + nameLen, Err: fmt.Errorf("read header entry: %w", err)}
		}
		c := Column{
			Name:             string(name),
			Type:             Type(entry[0]),
			UncompressedSize: int64(binary.BigEndian.Uint32(entry[1:])),
			CompressedSize:   int64(binary.BigEndian.Uint32(entry[5:])),
			Offset:           int64(binary.BigEndian.Uint64(entry[9:])),
		}
		cerr := func(at int64, format string, args ...any) error {
			return &Error{Index: i, Column: c.Name, Row: -1, Offset: at, Err: fmt.Errorf("%w: "+format, append([]any{ErrFormat}, args...)...)}
		}
		if !utf8.ValidString(c.Name) {
			return nil, cerr(off+2, "column name is not valid UTF-8")
		}
		if j, dup := names[c.Name]; dup {
			return nil, cerr(off+2, "column name also used by column #%d", j)
		}
		names[c.Name] = i
		if c.Type > String {
			return nil, cerr(off+2+nameLen, "unknown type code 0x%02x", uint8(c.Type))
		}
		if err := checkSizes(c, rows); err != nil {
			return nil, cerr(off+3+nameLen, "%v", err)
		}
		if c.Offset < 0 || c.Offset > size || c.CompressedSize > size-c.Offset {
			return nil, cerr(off+11+nameLen, "block at offset %d of %d bytes is not inside the %d-byte file", uint64(c.Offset), c.CompressedSize, size)
		}
		rd.cols = append(rd.cols, c)
		off += 2 + nameLen + entryFixedSize - 2
	}
	rd.headerSize = off
	end := off
	for i, c := range rd.cols {
		if c.Offset < end {
			what := "the header"
			if i > 0 {
				what = fmt.Sprintf("column #%d's block", i-1)
			}
			return nil, &Error{Index: i, Column: c.Name, Row: -1, Offset: c.Offset, Err: fmt.Errorf("%w: block starts at %d, inside %s (which ends at %d)", ErrFormat, c.Offset, what, end)}
		}
		end = c.Offset + c.CompressedSize
	}
	return rd, nil
}

// checkSizes checks a column's sizes against its type and the row count.
func checkSizes(c Column, rows int64) error {
	u := c.UncompressedSize
	if w := c.Type.width(); w > 0 {
		if rows > maxSize32/w || u != rows*w {
			return fmt.Errorf("uncompressed size %d, but %d rows of %s take %d bytes", u, rows, c.Type, uint64(rows)*uint64(w))
		}
	} else {
		if rows > maxSize32/2 || u < 2*rows {
			return fmt.Errorf("uncompressed size %d is too small for %d strings (2 bytes of length each)", u, rows)
		}
		if rows < maxSize32/(2+MaxString) && u > rows*(2+MaxString) {
			return fmt.Errorf("uncompressed size %d is too large for %d strings of at most %d bytes", u, rows, MaxString)
		}
	}
	if c.CompressedSize == 0 && u != 0 {
		return fmt.Errorf("compressed size 0 for %d bytes of data", u)
	}
	return nil
}

// RowCount returns the number of rows.
func (r *Reader) RowCount() int64 { return r.rows }

// NumColumns returns the number of columns.
func (r *Reader) NumColumns() int { return len(r.cols) }

// Column returns column i's header entry.
func (r *Reader) Column(i int) Column { return r.cols[i] }

// Columns returns a copy of every column's header entry.
func (r *Reader) Columns() []Column { return append([]Column(nil), r.cols...) }

// HeaderSize returns the size of the header, in bytes.
func (r *Reader) HeaderSize() int64 { return r.headerSize }

// Size returns the size of the file.
func (r *Reader) Size() int64 { return r.size }

// Lookup returns the number of the column called name, or -1.
func (r *Reader) Lookup(name string) int {
	for i, c := range r.cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// Values returns a reader of column i's values, which reads and inflates
// the column's block as the values are asked for.
func (r *Reader) Values(i int) (*ColumnReader, error) {
	if i < 0 || i >= len(r.cols) {
		return nil, fmt.Errorf("clmn: no column #%d in a file of %d columns", i, len(r.cols))
	}
	c := r.cols[i]
	cr := &ColumnReader{rd: r, col: c, index: i, rows: r.rows, row: -1}
	cr.share = r.budget.Register(cr)
	return cr, nil
}

// open readies the column's values: a small column is inflated at once and
// its inflater given back; a larger one is inflated as it is read.
func (c *ColumnReader) open() error {
	cost := int64(bufSize(c.col.CompressedSize))
	small := c.col.UncompressedSize <= smallColumn
	if small {
		cost += c.col.UncompressedSize + 1
	} else {
		cost += inflaterCost + int64(bufSize(c.col.UncompressedSize))
	}
	if !c.rd.budget.Take(c.share, cost) {
		return &Error{Index: c.index, Column: c.col.Name, Row: c.row, Offset: c.col.Offset,
			Err: fmt.Errorf("%w: reading the column (%d bytes inflated) would take this reader's columns past the %d bytes of ReaderOptions.ColumnMemory", ErrLimit, c.col.UncompressedSize, c.rd.budget.Limit)}
	}
	// Buffers no larger than the column: a file of many small columns read
	// side by side holds little more than their bytes.
	c.src = newCountingByteReader(io.NewSectionReader(c.rd.ra, c.col.Offset, c.col.CompressedSize), bufSize(c.col.CompressedSize))
	var err error
	if z, ok := c.rd.inflaters.Get().(*inflater); ok {
		c.z = z
		err = z.Reset(c.src.r, nil)
	} else {
		c.z, err = newInflater(c.src.r)
	}
	c.z.skipSum = c.rd.skipSums
	if err != nil {
		c.z = nil // a failed Reset leaves it unusable
		return c.errf("bad zlib stream: %v", err)
	}
	if !small {
		c.in = bufio.NewReaderSize((*limited)(c), bufSize(c.col.UncompressedSize))
		return nil
	}
	// One byte more than the size tells a stream that goes on from one
	// that ends there; limited fails past the size.
	whole := make([]byte, c.col.UncompressedSize+1)
	n := 0
	for n < len(whole) && err == nil {
		var k int
		k, err = (*limited)(c).Read(whole[n:])
		n += k
	}
	c.inflated = 0 // counted again as the values take the bytes
	w := &wholeColumn{c: c, b: whole[:min(n, int(c.col.UncompressedSize))], end: err}
	switch err {
	case io.EOF:
		// The stream ended, its checksum checked: the inflater can go.
		c.release()
	case nil:
		w.end = c.errf("zlib stream inflates past the column's uncompressed size %d", c.col.UncompressedSize)
	}
	c.in = bufio.NewReaderSize(w, 16)
	return nil
}

// release gives the inflater back for another column.
func (c *ColumnReader) release() {
	if c.z != nil {
		c.rd.inflaters.Put(c.z)
		c.z = nil
	}
}

// wholeColumn hands out a column inflated at once, then the error that
// ended its inflating (io.EOF for a stream that ended).
type wholeColumn struct {
	c   *ColumnReader
	b   []byte
	end error
}

func (w *wholeColumn) Read(p []byte) (int, error) {
	if len(w.b) == 0 {
		return 0, w.end
	}
	n := copy(p, w.b)
	w.b = w.b[n:]
	w.c.inflated += int64(n)
	return n, nil
}

// bufSize returns the size of a buffer of a column's n bytes: n, within
// bufio's least size and 32 KiB.
func bufSize(n int64) int { return int(max(16, min(n, 32<<10))) }

// countingByteReader is a column's compressed bytes: a buffered reader,
// which the inflater takes as it is (a *bufio.Reader is an io.ByteReader,
// so the inflater reads no further than its stream, and the inflater's
// fast path), over a reader that counts the bytes it hands out.
type countingByteReader struct {
	r   *bufio.Reader
	sec countingReader
}

// countingReader counts the bytes read from r.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// newCountingByteReader returns a buffered reader of r, size bytes at a
// time.
func newCountingByteReader(r io.Reader, size int) *countingByteReader {
	c := &countingByteReader{sec: countingReader{r: r}}
	c.r = bufio.NewReaderSize(&c.sec, size)
	return c
}

// consumed returns the bytes the inflater took.
func (c *countingByteReader) consumed() int64 { return c.sec.n - int64(c.r.Buffered()) }

// ColumnReader reads one column's values in order. Next moves to the next
// value, which Int, Float and Bytes return according to the column's type.
type ColumnReader struct {
	rd    *Reader
	share *budget.Share // what the column holds of rd's ColumnMemory
	col   Column
	index int
	rows  int64
	row   int64

	src      *countingByteReader
	z        *inflater
	in       *bufio.Reader
	inflated int64 // bytes taken from the inflater
	buf      []byte
	tmp      [8]byte
	i        int64
	f        float64
	s        []byte
	err      error
}

// limited feeds the inflater's output to the value parser, and fails once
// the stream inflates past the column's claimed size.
type limited ColumnReader

func (l *limited) Read(p []byte) (int, error) {
	c := (*ColumnReader)(l)
	n, err := c.z.Read(p)
	c.inflated += int64(n)
	if c.inflated > c.col.UncompressedSize {
		return n, c.errf("zlib stream inflates past the column's uncompressed size %d", c.col.UncompressedSize)
	}
	return n, err
}

// errf returns an error about the column at the current row.
func (c *ColumnReader) errf(format string, args ...any) error {
	return &Error{Index: c.index, Column: c.col.Name, Row: c.row, Offset: c.col.Offset,
		Err: fmt.Errorf("%w: "+format, append([]any{ErrFormat}, args...)...)}
}

// Column returns the column's header entry.
func (c *ColumnReader) Column() Column { return c.col }

// Next moves to the next value. It returns false after the last value, or
// on an error, which Err returns. After the last value it checks that the
// zlib stream ends there, at exactly the column's compressed and
// uncompressed sizes, with a good checksum.
func (c *ColumnReader) Next() bool {
	if c.err != nil || c.row >= c.rows {
		return false
	}
	c.row++
	if c.row == c.rows {
		c.err = c.finish()
		return false
	}
	if c.in == nil {
		if c.err = c.open(); c.err != nil {
			return false
		}
	}
	b := c.tmp[:]
	switch c.col.Type {
	case Int32:
		if c.err = c.readFull(b[:4]); c.err != nil {
			return false
		}
		c.i = int64(int32(binary.BigEndian.Uint32(b[:4])))
	case Int64:
		if c.err = c.readFull(b[:8]); c.err != nil {
			return false
		}
		c.i = int64(binary.BigEndian.Uint64(b[:8]))
	case Float64:
		if c.err = c.readFull(b[:8]); c.err != nil {
			return false
		}
		c.f = math.Float64frombits(binary.BigEndian.Uint64(b[:8]))
	case String:
		if c.err = c.readFull(b[:2]); c.err != nil {
			return false
		}
		n := int(binary.BigEndian.Uint16(b[:2]))
		if int64(n) > c.col.UncompressedSize-c.inflatedUsed() {
			c.err = c.errf("string of %d bytes runs past the end of the column's %d bytes", n, c.col.UncompressedSize)
			return false
		}
		if cap(c.buf) < n {
			c.buf = make([]byte, n, max(n, 2*cap(c.buf)))
		}
		c.s = c.buf[:n]
		if c.err = c.readFull(c.s); c.err != nil {
			return false
		}
		if !utf8check.Valid(c.s) {
			c.err = c.errf("string is not valid UTF-8")
			return false
		}
	}
	return true
}

// inflatedUsed returns how many inflated bytes the values so far took.
func (c *ColumnReader) inflatedUsed() int64 { return c.inflated - int64(c.in.Buffered()) }

// readFull reads p from the inflated data, naming the problem if the data
// ends first.
func (c *ColumnReader) readFull(p []byte) error {
	if _, err := io.ReadFull(c.in, p); err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			return err
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return c.errf("column data ends after %d bytes, before all %d rows (claimed size %d)", c.inflatedUsed(), c.rows, c.col.UncompressedSize)
		}
		return c.errf("bad zlib stream: %v", err)
	}
	return nil
}

// finish checks the end of the column's data.
func (c *ColumnReader) finish() error {
	err := c.checkEnd()
	// The column is done: its buffers and its share of the budget go.
	if c.z != nil && err == nil {
		err = c.z.Close()
		if err == nil {
			c.release()
		}
	}
	c.z, c.in, c.src = nil, nil, nil
	c.rd.budget.Release(c.share)
	return err
}

// checkEnd checks that the stream ends after the last value.
func (c *ColumnReader) checkEnd() error {
	if c.col.CompressedSize == 0 {
		return nil // checkSizes made sure there is no data
	}
	if c.in == nil {
		if err := c.open(); err != nil {
			return err
		}
	}
	var b [1]byte
	n, err := io.ReadFull(c.in, b[:])
	if c.inflated > c.col.UncompressedSize {
		return c.errf("zlib stream inflates past the column's uncompressed size %d", c.col.UncompressedSize)
	}
	if n > 0 || (err != io.EOF && err != nil) {
		var ce *Error
		if errors.As(err, &ce) {
			return err
		}
		if err != nil && err != io.EOF {
			return c.errf("bad zlib stream: %v", err)
		}
		return c.errf("data continues after the last of %d rows", c.rows)
	}
	if c.inflated != c.col.UncompressedSize {
		return c.errf("zlib stream inflates to %d bytes, but the uncompressed size is %d", c.inflated, c.col.UncompressedSize)
	}
	if n := c.src.consumed(); n != c.col.CompressedSize {
		return c.errf("zlib stream ends after %d bytes, but the compressed size is %d", n, c.col.CompressedSize)
	}
	return nil
}

// Err returns the error that stopped Next, or nil at a good end.
func (c *ColumnReader) Err() error { return c.err }

// Row returns the number of the current value's row.
func (c *ColumnReader) Row() int64 { return c.row }

// Int returns the current value of an INT32 or INT64 column.
func (c *ColumnReader) Int() int64 { return c.i }

// Float returns the current value of a FLOAT64 column.
func (c *ColumnReader) Float() float64 { return c.f }

// Bytes returns the current value of a STRING column. The slice is valid
// until the next call to Next.
func (c *ColumnReader) Bytes() []byte { return c.s }
