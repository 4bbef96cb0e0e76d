package clmn

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"unicode/utf8"

	"hash"
	"hash/adler32"

	"github.com/klauspost/compress/flate"

	"github.com/trevni-go/trevni/internal/utf8check"
)

// WriterOptions configures a Writer. The zero value is usable.
type WriterOptions struct {
	// Level is the zlib compression level; 0 means the default (6).
	Level int
	// TempDir is where the temporary file of compressed columns goes;
	// "" means os.TempDir().
	TempDir string
	// SpillSize is the compressed bytes a column keeps in memory before
	// they go to the temporary file; 0 means 256 KiB.
	SpillSize int
	// MemoryBudget bounds the compressors' memory; 0 means 64 MiB. A
	// compressor keeps about 1.2 MiB of state, so when the columns' would
	// pass the budget (past about 50 columns by default), each column's
	// data is compressed in 32 KiB pieces without state between them,
	// which costs some compression.
	MemoryBudget int64
}

// compressorState is about the memory one stateful compressor holds.
const compressorState = 1200 << 10

// flushSize is the uncompressed bytes a column gathers before they are
// handed to its compressor.
const flushSize = 32 << 10

// maxColumnSize is the largest size a column may have: the reference
// implementation reads the 4-byte sizes as signed numbers.
const maxColumnSize = math.MaxInt32

// Writer writes a CLMN file row by row. Values are given column by column
// with the typed methods, then EndRow checks the row and adds it. Memory
// stays bounded whatever the row count: each column is compressed as rows
// come, and its compressed bytes spill to a temporary file, which Close
// copies after the header. A Writer is not safe for concurrent use.
type Writer struct {
	out        io.Writer
	opts       WriterOptions
	cols       []*colWriter
	rows       int64
	rowErr     error // the first problem with the current row
	tmp        *os.File
	tmpSize    int64
	tmpRemoved bool
	err        error // sticky: the Writer is unusable
	closed     bool
}

// colWriter is one column being written.
type colWriter struct {
	Column
	raw      []byte         // uncompressed values not yet compressed
	rowStart int            // len(raw) at the start of the current row
	got      int            // values given in the current row
	z        io.WriteCloser // raw deflate into sink
	adler    hash.Hash32
	sink     spill
}

// spill holds a column's compressed bytes: a buffer in memory and the
// chunks already written to the temporary file.
type spill struct {
	w      *Writer
	buf    []byte
	chunks [][2]int64 // offset and length in the temporary file
	size   int64
}

func (s *spill) Write(p []byte) (int, error) {
	s.buf = append(s.buf, p...)
	s.size += int64(len(p))
	if len(s.buf) >= s.w.spillSize() {
		if err := s.flush(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

func (s *spill) flush() error {
	if len(s.buf) == 0 {
		return nil
	}
	w := s.w
	if w.tmp == nil {
		f, err := os.CreateTemp(w.opts.TempDir, ".clmn-*.tmp")
		if err != nil {
			return err
		}
		w.tmp = f
		// Where the system allows it, the name goes at once, so that
		// nothing is left behind however the process ends.
		w.tmpRemoved = os.Remove(f.Name()) == nil
	}
	if _, err := w.tmp.Write(s.buf); err != nil {
		return err
	}
	s.chunks = append(s.chunks, [2]int64{w.tmpSize, int64(len(s.buf))})
	w.tmpSize += int64(len(s.buf))
	s.buf = s.buf[:0]
	return nil
}

func (w *Writer) spillSize() int {
	if w.opts.SpillSize > 0 {
		return w.opts.SpillSize
	}
	return 256 << 10
}

// NewWriter returns a Writer of a file with the given columns (only Name
// and Type are used) to out, which receives the whole file at Close.
func NewWriter(out io.Writer, cols []Column, opts *WriterOptions) (*Writer, error) {
	w := &Writer{out: out}
	if opts != nil {
		w.opts = *opts
	}
	if len(cols) == 0 {
		return nil, errors.New("clmn: a file needs at least one column")
	}
	if len(cols) > DefaultMaxColumns {
		return nil, fmt.Errorf("%w: %d columns, more than the %d a Reader accepts by default (ReaderOptions.MaxColumns)", ErrLimit, len(cols), DefaultMaxColumns)
	}
	level := w.opts.Level
	if level == 0 {
		level = flate.DefaultCompression
	}
	budget := w.opts.MemoryBudget
	if budget <= 0 {
		budget = 64 << 20
	}
	stateless := int64(len(cols))*compressorState > budget
	seen := make(map[string]int, len(cols))
	for i, c := range cols {
		if c.Type > String {
			return nil, fmt.Errorf("clmn: column %q (#%d): unknown type %v", c.Name, i, c.Type)
		}
		if len(c.Name) > math.MaxUint16 {
			return nil, fmt.Errorf("clmn: column #%d: name of %d bytes is longer than %d", i, len(c.Name), math.MaxUint16)
		}
		if !utf8.ValidString(c.Name) {
			return nil, fmt.Errorf("clmn: column #%d: name %q is not valid UTF-8", i, c.Name)
		}
		if j, dup := seen[c.Name]; dup {
			return nil, fmt.Errorf("clmn: column %q (#%d): name also used by column #%d", c.Name, i, j)
		}
		seen[c.Name] = i
		cw := &colWriter{Column: Column{Name: c.Name, Type: c.Type}}
		cw.sink.w = w
		// The zlib header: deflate, 32 KiB window, default level, check
		// bits making it a multiple of 31.
		cw.sink.buf = append(cw.sink.buf, 0x78, 0x9c)
		cw.sink.size = 2
		cw.adler = adler32.New()
		if stateless {
			cw.z = flate.NewStatelessWriter(&cw.sink)
		} else {
			z, err := flate.NewWriter(&cw.sink, level)
			if err != nil {
				return nil, fmt.Errorf("clmn: %w", err)
			}
			cw.z = z
		}
		w.cols = append(w.cols, cw)
	}
	return w, nil
}

// RowCount returns the number of rows added so far.
func (w *Writer) RowCount() int64 { return w.rows }

func (w *Writer) col(i int, t Type) *colWriter {
	if i < 0 || i >= len(w.cols) {
		w.rowFail(&Error{Index: i, Row: w.rows, Offset: -1, Err: fmt.Errorf("no column #%d", i)})
		return nil
	}
	c := w.cols[i]
	if c.Type != t {
		w.rowFail(&Error{Index: i, Column: c.Name, Row: w.rows, Offset: -1, Err: fmt.Errorf("a %v value for a %v column", t, c.Type)})
		return nil
	}
	c.got++
	return c
}

func (w *Writer) rowFail(err error) {
	if w.rowErr == nil {
		w.rowErr = err
	}
}

// WriteInt32 gives the current row's value of INT32 column i.
func (w *Writer) WriteInt32(i int, v int32) {
	if c := w.col(i, Int32); c != nil {
		c.raw = binary.BigEndian.AppendUint32(c.raw, uint32(v))
	}
}

// WriteInt64 gives the current row's value of INT64 column i.
func (w *Writer) WriteInt64(i int, v int64) {
	if c := w.col(i, Int64); c != nil {
		c.raw = binary.BigEndian.AppendUint64(c.raw, uint64(v))
	}
}

// WriteFloat64 gives the current row's value of FLOAT64 column i.
func (w *Writer) WriteFloat64(i int, v float64) {
	if c := w.col(i, Float64); c != nil {
		c.raw = binary.BigEndian.AppendUint64(c.raw, math.Float64bits(v))
	}
}

// WriteString gives the current row's value of STRING column i, which
// must be valid UTF-8 of at most MaxString bytes.
func (w *Writer) WriteString(i int, s []byte) {
	c := w.col(i, String)
	if c == nil {
		return
	}
	if len(s) > MaxString {
		w.rowFail(&Error{Index: i, Column: c.Name, Row: w.rows, Offset: -1, Err: fmt.Errorf("string of %d bytes is longer than %d", len(s), MaxString)})
		return
	}
	if !utf8check.Valid(s) {
		w.rowFail(&Error{Index: i, Column: c.Name, Row: w.rows, Offset: -1, Err: errors.New("string is not valid UTF-8")})
		return
	}
	c.raw = binary.BigEndian.AppendUint16(c.raw, uint16(len(s)))
	c.raw = append(c.raw, s...)
}

// AbortRow discards the values given for the current row.
func (w *Writer) AbortRow() {
	for _, c := range w.cols {
		c.raw = c.raw[:c.rowStart]
		c.got = 0
	}
	w.rowErr = nil
}

// EndRow adds the current row. If a value was missing, doubled, of the
// wrong type or not storable, it returns an *Error naming the row and the
// column, and the row is discarded; writing may go on.
func (w *Writer) EndRow() error {
	if w.err != nil {
		return w.err
	}
	if w.rowErr == nil {
		for i, c := range w.cols {
			if c.got != 1 {
				w.rowErr = &Error{Index: i, Column: c.Name, Row: w.rows, Offset: -1, Err: fmt.Errorf("%d values in one row", c.got)}
				break
			}
			if c.UncompressedSize+int64(len(c.raw)) > maxColumnSize {
				w.rowErr = &Error{Index: i, Column: c.Name, Row: w.rows, Offset: -1, Err: fmt.Errorf("column data would pass %d bytes", maxColumnSize)}
				break
			}
		}
	}
	if err := w.rowErr; err != nil {
		w.AbortRow()
		return err
	}
	w.rows++
	for _, c := range w.cols {
		c.got = 0
		if len(c.raw) >= flushSize {
			if err := c.compress(); err != nil {
				w.err = err
				return err
			}
		}
		c.rowStart = len(c.raw)
	}
	return nil
}

// compress hands the column's gathered values to its compressor.
func (c *colWriter) compress() error {
	c.UncompressedSize += int64(len(c.raw))
	c.adler.Write(c.raw)
	if _, err := c.z.Write(c.raw); err != nil {
		return fmt.Errorf("clmn: column %q: %w", c.Name, err)
	}
	c.raw = c.raw[:0]
	c.rowStart = 0
	return nil
}

// Close finishes every column, writes the header and copies the columns'
// compressed data after it, and removes the temporary file.
func (w *Writer) Close() error {
	if w.closed {
		return errors.New("clmn: writer already closed")
	}
	w.closed = true
	defer w.removeTemp()
	if w.err != nil {
		return w.err
	}
	headerSize := int64(fixedHeaderSize)
	for _, c := range w.cols {
		c.raw = c.raw[:c.rowStart] // a row begun but not ended is dropped
		if err := c.compress(); err != nil {
			return err
		}
		if err := c.z.Close(); err != nil {
			return fmt.Errorf("clmn: column %q: %w", c.Name, err)
		}
		if _, err := c.sink.Write(c.adler.Sum(nil)); err != nil {
			return fmt.Errorf("clmn: column %q: %w", c.Name, err)
		}
		if c.sink.size > maxColumnSize {
			return fmt.Errorf("clmn: column %q: compressed data of %d bytes is larger than %d", c.Name, c.sink.size, maxColumnSize)
		}
		headerSize += entryFixedSize + int64(len(c.Name))
	}
	hdr := make([]byte, 0, headerSize)
	hdr = append(hdr, Magic...)
	hdr = binary.BigEndian.AppendUint16(hdr, Version)
	hdr = binary.BigEndian.AppendUint32(hdr, uint32(len(w.cols)))
	hdr = binary.BigEndian.AppendUint64(hdr, uint64(w.rows))
	off := headerSize
	for _, c := range w.cols {
		c.CompressedSize = c.sink.size
		c.Offset = off
		off += c.CompressedSize
		hdr = binary.BigEndian.AppendUint16(hdr, uint16(len(c.Name)))
		hdr = append(hdr, c.Name...)
		hdr = append(hdr, byte(c.Type))
		hdr = binary.BigEndian.AppendUint32(hdr, uint32(c.UncompressedSize))
		hdr = binary.BigEndian.AppendUint32(hdr, uint32(c.CompressedSize))
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(c.Offset))
	}
	if _, err := w.out.Write(hdr); err != nil {
		return err
	}
	var copyBuf []byte
	for _, c := range w.cols {
		for _, ch := range c.sink.chunks {
			if copyBuf == nil {
				copyBuf = make([]byte, 256<<10)
			}
			if _, err := io.CopyBuffer(onlyWriter{w.out}, io.NewSectionReader(w.tmp, ch[0], ch[1]), copyBuf); err != nil {
				return fmt.Errorf("clmn: column %q: copy from temporary file: %w", c.Name, err)
			}
		}
		if _, err := w.out.Write(c.sink.buf); err != nil {
			return err
		}
	}
	return nil
}

// onlyWriter hides a writer's ReadFrom, so that CopyBuffer uses the buffer.
type onlyWriter struct{ io.Writer }

// Abort abandons the file and removes the temporary file. Nothing more is
// written to out.
func (w *Writer) Abort() {
	w.closed = true
	w.removeTemp()
}

func (w *Writer) removeTemp() {
	if w.tmp != nil {
		name := w.tmp.Name()
		w.tmp.Close()
		if !w.tmpRemoved {
			os.Remove(name)
		}
		w.tmp = nil
	}
}

// Columns returns the columns' header entries; after Close, with their
// sizes and offsets.
func (w *Writer) Columns() []Column {
	out := make([]Column, len(w.cols))
	for i, c := range w.cols {
		out[i] = c.Column
	}
	return out
}
