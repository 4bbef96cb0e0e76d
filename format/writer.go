package format

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/trevni-go/trevni/format/stats"
	"github.com/trevni-go/trevni/internal/shortval"
	"github.com/trevni-go/trevni/internal/utf8check"
)

// DefaultBlockSize is the uncompressed size at which a column's block is
// cut, checked at the start of every row, as Java does.
const DefaultBlockSize = 64 << 10

// MaxWriterBlockSize is the largest WriterOptions.BlockSize. A block is cut
// at the start of the first row after it reaches the block size, so it
// holds up to one row more; half of DefaultMaxBlockSize leaves room for
// rows of up to that size in files that every Reader reads with its
// defaults.
const MaxWriterBlockSize = DefaultMaxBlockSize / 2

// DefaultMemoryBudget is how many bytes of finished blocks a Writer keeps in
// memory before it spills them to a temporary file. Spilling goes on
// beside the writing, through the page cache, and costs less than the
// page faults of a larger heap: converting 1,000,000 vec.Large records
// (65 MB of Trevni) took 0.24-0.26 s and 62 MB at 16 MiB against 0.29 s
// and 105 MB at 64 MiB, on two cores.
const DefaultMemoryBudget = 16 << 20

// magic starts every file Java's current writer produces.
var magic = [4]byte{'T', 'r', 'v', 2}

// WriterOptions configures a Writer. The zero value writes no codec or
// checksum metadata (so the null codec and no checksum), with Java's block
// size, the default memory budget and one compressing goroutine per CPU.
type WriterOptions struct {
	// Codec, if set, is stored as the file's trevni.codec: the default
	// codec of every column.
	Codec string
	// Checksum, if set, is stored as the file's trevni.checksum: "null"
	// or "crc32" (the spelling "crc-32" is accepted and stored as "crc32").
	Checksum string
	// Meta holds further file metadata, written in order after the codec
	// and checksum.
	Meta MetaData
	// BlockSize is the uncompressed size at which a column's block is cut;
	// 0 means DefaultBlockSize. It may not exceed MaxWriterBlockSize, and
	// must be less than MaxBlockSize. Block buffers start small and grow
	// as they fill.
	BlockSize int
	// MaxBlockSize is the largest uncompressed block the Writer writes;
	// 0 means DefaultMaxBlockSize, the largest a Reader accepts by default
	// (ReaderOptions.MaxBlockSize), so that the Writer writes nothing its
	// own default Reader refuses. A block holds whole rows, of which those
	// before the current one take less than BlockSize: a value, or a
	// row's values, that would take a column's block past it is an error
	// wrapping ErrLimit, naming the column and row, reported before a
	// large value is copied; AbortRow drops the row and clears it. Raise
	// it only for files read with as large a ReaderOptions.MaxBlockSize;
	// it may not exceed 2 GiB - 1.
	MaxBlockSize int
	// MemoryBudget bounds the finished blocks held in memory, counted at
	// their stored (compressed) size. From seven eighths of it, enough of
	// them to get back to five eighths spill to a temporary file in TempDir
	// (written by another goroutine while writing goes on; the writer waits
	// for it only when the budget itself is reached), and Close copies them
	// into the output. 0 means DefaultMemoryBudget; a negative value means
	// never spill.
	MemoryBudget int64
	// TempDir is where the spill file goes; "" means os.TempDir().
	TempDir string
	// Concurrency is how many blocks may be compressed at once; 0 means
	// runtime.GOMAXPROCS(0), and 1 compresses in the writing goroutine.
	Concurrency int
	// DeflateLevel is the level of the deflate codec, 1 to 9; 0 means
	// DefaultDeflateLevel.
	DeflateLevel int
	// Codecs adds or replaces codecs by name.
	Codecs map[string]Codec
	// DisableStats turns off the per-block statistics (package
	// format/stats) that the Writer otherwise gathers for every column and
	// stores in its metadata under stats.MetaKey, replacing any value
	// ColumnMeta.Meta gives there. With them off, a ColumnMeta's own
	// stats.MetaKey is written as given, and a file written with the null
	// codec is byte for byte what Java's writer produces.
	DisableStats bool
	// StatsMaxLen is the most bytes of a string or bytes bound the
	// statistics keep; 0 means stats.DefaultMaxLen.
	StatsMaxLen int
}

// Writer writes a Trevni file row by row.
//
// For each row, call StartRow, then for each column write its lengths (array
// columns only) and values in the order they occur, then EndRow. A column
// that is not an array gets one value per row, or one per element of its
// parent when it has one; an array column gets one length per row (or per
// parent element) followed by that many values. Values of type null need not
// be written. EndRow checks that every column received the right number of
// lengths and values.
//
// The value methods do not return errors: a misuse is remembered and
// reported by the next EndRow or by Close, like bufio.Writer.
//
// Nothing is written to the output until Close, which writes the header
// (which needs every column's size) and then the columns. Finished blocks
// are held in memory up to the memory budget and spill to one temporary file
// past it.
type Writer struct {
	out      io.Writer
	opts     WriterOptions
	fileMeta MetaData
	cols     []*columnWriter
	rowCount int64
	// firstRow is the number of the first row the Writer holds blocks
	// of: 0, unless SetFirstRow numbered a segment's rows from elsewhere
	// or AppendWriter moved its rows out.
	firstRow int64
	inRow    bool
	// touched lists the columns written to in the current row (after
	// EndRow, in the last row): only they can need a block cut at the
	// next StartRow, and only their row counts are checked at EndRow.
	touched        []*columnWriter
	mandatoryRoots int  // top-level columns every row must write to
	rowErr         bool // no error was recorded before the row began
	// unchecked is set by CheckRows(false): rows are neither checked nor
	// saved for AbortRow, and only the totals are checked, at Close.
	unchecked bool
	// full lists the columns whose block reached the block size during
	// the last row: StartRow cuts them.
	full   []*columnWriter
	err    error
	closed bool

	codecs codecSet

	// Compression of finished blocks.
	sem     chan struct{}
	pending sync.WaitGroup
	bufPool *sync.Pool // *[]byte block buffers; shared by ShareBuffers

	// Memory accounting and spilling. held counts a block's buffer from
	// its cut; compression, which may run on other goroutines, adds to
	// shrunk the bytes it gave back by keeping the compressed block in a
	// buffer of its own size.
	held      int64
	shrunk    atomic.Int64
	spill     *os.File
	spillBuf  *bufio.Writer
	spillSize int64
	// spilling receives the result of the batch of blocks being written
	// to the spill file by another goroutine, nil when none is; inflight
	// counts their buffers, still in memory until written.
	spilling chan error
	inflight int64
}

// columnWriter holds one column's state.
type columnWriter struct {
	// The fields every write touches come first, to share cache lines.
	typ   ValueType
	fast  ValueType // typ with the row checks off, noType with them on (ready)
	array bool
	enc   encoder

	// Pending run of 0 or 1 lengths, for array columns.
	runLength int32
	runValue  int32 // -1 when no run is pending

	// Per-row counts, checked at EndRow; valid when stamp is the row's
	// number plus one, and zero otherwise.
	stamp      int64
	rowLengths int   // lengths written this row
	rowElems   int64 // sum of those lengths
	rowValues  int64 // values written this row

	// Totals of the rows ended (with checks off, of everything written),
	// checked against the structure at Close.
	lengths, elems, values int64

	meta       ColumnMeta
	index      int
	parent     int // index of the parent column, -1 if none
	codec      Codec
	checksum   int   // bytes of checksum per block: 0 or 4
	blockStart int64 // the row the current block starts at
	blocks     []*block
	mandatory  bool            // holds lengths or values: must be written whenever its entries are due
	kids       []*columnWriter // the mandatory children of an array column

	first    []byte // encoded first value of the current block (trevni.values)
	hasFirst bool
	full     bool // listed in Writer.full

	// lenAt is where in enc.b the last length written stands, or -1 when
	// it is not written out on its own (it is pending, or coded in a run
	// of lengths); lenRow is the row it was written in (see ExtendLength).
	lenAt  int
	lenRow int64

	st *stats.Accumulator // the column's statistics; nil when they are off

	saved rowStart // state at StartRow, restored by AbortRow
}

// rowStart is what AbortRow needs to undo a partly written row.
type rowStart struct {
	size      int
	bitCount  uint8
	runLength int32
	runValue  int32
	hasFirst  bool
}

// noType is no ValueType: columnWriter.fast with the row checks on.
const noType ValueType = 255

// block is a finished block: its descriptor and its stored bytes, either in
// memory or at an offset of the spill file.
type block struct {
	rows       int
	rawSize    int
	first      []byte
	data       []byte // compressed bytes followed by the checksum
	dataLen    int    // len(data), kept once data is spilled
	spillAt    int64  // offset in the spill file, or -1
	err        error
	compressed chan struct{} // closed once data and err are set; nil when done in line
}

// NewWriter returns a Writer of the given columns, which writes the file to
// out at Close. Column names must be unique and a parent must precede its
// children.
func NewWriter(out io.Writer, columns []ColumnMeta, opts *WriterOptions) (*Writer, error) {
	if out == nil {
		return nil, fmt.Errorf("%w: NewWriter to a nil io.Writer", ErrUsage)
	}
	w := &Writer{out: out, bufPool: new(sync.Pool)}
	if opts != nil {
		w.opts = *opts
	}
	if w.opts.BlockSize <= 0 {
		w.opts.BlockSize = DefaultBlockSize
	}
	if w.opts.BlockSize > MaxWriterBlockSize {
		return nil, fmt.Errorf("%w: WriterOptions.BlockSize %d exceeds MaxWriterBlockSize (%d): readers refuse blocks over %d bytes by default (ReaderOptions.MaxBlockSize)", ErrUsage, w.opts.BlockSize, MaxWriterBlockSize, DefaultMaxBlockSize)
	}
	if w.opts.MaxBlockSize <= 0 {
		w.opts.MaxBlockSize = DefaultMaxBlockSize
	}
	if w.opts.MaxBlockSize > math.MaxInt32 || w.opts.BlockSize >= w.opts.MaxBlockSize {
		return nil, fmt.Errorf("%w: WriterOptions.MaxBlockSize %d must exceed BlockSize (%d) and not exceed %d", ErrUsage, w.opts.MaxBlockSize, w.opts.BlockSize, math.MaxInt32)
	}
	if w.opts.MemoryBudget == 0 {
		w.opts.MemoryBudget = DefaultMemoryBudget
	}
	if w.opts.Concurrency <= 0 {
		w.opts.Concurrency = runtime.GOMAXPROCS(0)
	}
	w.codecs = codecSet{custom: w.opts.Codecs, deflateLevel: w.opts.DeflateLevel}
	if w.opts.Concurrency > 1 {
		w.sem = make(chan struct{}, w.opts.Concurrency)
	}
	if err := w.buildFileMeta(); err != nil {
		return nil, err
	}
	fileCodec := w.fileMeta.GetString(KeyCodec)
	fileChecksum := w.fileMeta.GetString(KeyChecksum)
	index := make(map[string]int, len(columns))
	for i, m := range columns {
		if m.Name == "" {
			return nil, fmt.Errorf("%w: column %d has no name", ErrUsage, i)
		}
		if _, dup := index[m.Name]; dup {
			return nil, fmt.Errorf("%w: duplicate column name %q", ErrUsage, m.Name)
		}
		if m.Type > Bytes {
			return nil, fmt.Errorf("%w: column %q has invalid type %d", ErrUsage, m.Name, m.Type)
		}
		c := &columnWriter{typ: m.Type, fast: noType, array: m.Array, meta: m, index: i, parent: -1, runValue: -1, lenAt: -1}
		c.meta.Meta = m.Meta.Clone()
		for j := 0; j < m.Meta.Len(); j++ {
			switch k := m.Meta.Key(j); k {
			case KeyName, KeyType, KeyArray, KeyParent, KeyValues:
				return nil, fmt.Errorf("%w: column %q: set %s through ColumnMeta's fields, not Meta", ErrUsage, m.Name, k)
			}
		}
		if m.Parent != "" {
			p, ok := index[m.Parent]
			if !ok {
				return nil, fmt.Errorf("%w: column %q: parent %q must precede it", ErrUsage, m.Name, m.Parent)
			}
			if !columns[p].Array {
				return nil, fmt.Errorf("%w: column %q: parent %q is not an array", ErrUsage, m.Name, m.Parent)
			}
			c.parent = p
		}
		if m.Values && (m.Array || m.Parent != "") {
			return nil, fmt.Errorf("%w: column %q: trevni.values needs a top-level column that is not an array", ErrUsage, m.Name)
		}
		codecName := c.meta.Codec()
		if codecName == "" {
			codecName = fileCodec
		}
		var err error
		if c.codec, err = w.codecs.lookup(codecName); err != nil {
			return nil, fmt.Errorf("column %q: %w", m.Name, err)
		}
		if ck := c.meta.Checksum(); ck == checksumCRC32 {
			c.meta.Meta.SetString(KeyChecksum, ChecksumCRC32)
		}
		checksumName := c.meta.Checksum()
		if checksumName == "" {
			checksumName = fileChecksum
		}
		if c.checksum, err = checksumSize(checksumName); err != nil {
			return nil, fmt.Errorf("column %q: %w", m.Name, err)
		}
		if !w.opts.DisableStats {
			if c.st, err = stats.NewAccumulator(stats.Type(m.Type), m.Array, &stats.Options{MaxLen: w.opts.StatsMaxLen}); err != nil {
				return nil, fmt.Errorf("%w: column %q: %w", ErrUsage, m.Name, err)
			}
		}
		c.enc.b = w.getBuf()
		c.mandatory = m.Array || m.Type != Null
		if c.mandatory {
			if c.parent >= 0 {
				p := w.cols[c.parent]
				p.kids = append(p.kids, c)
			} else {
				w.mandatoryRoots++
			}
		}
		index[m.Name] = i
		w.cols = append(w.cols, c)
	}
	return w, nil
}

// buildFileMeta orders the file metadata as Java does: codec, checksum, then
// the rest.
func (w *Writer) buildFileMeta() error {
	checksum := w.opts.Checksum
	if checksum == checksumCRC32 {
		checksum = ChecksumCRC32
	}
	if checksum != "" {
		if _, err := checksumSize(checksum); err != nil {
			return err
		}
	}
	if w.opts.Codec != "" {
		w.fileMeta.SetString(KeyCodec, w.opts.Codec)
	}
	if checksum != "" {
		w.fileMeta.SetString(KeyChecksum, checksum)
	}
	m := &w.opts.Meta
	for i := 0; i < m.Len(); i++ {
		k := m.Key(i)
		if (k == KeyCodec && w.opts.Codec != "") || (k == KeyChecksum && checksum != "") {
			return fmt.Errorf("%w: file metadata sets %s and so do the options", ErrUsage, k)
		}
		v := m.Value(i)
		if k == KeyChecksum && string(v) == checksumCRC32 {
			v = []byte(ChecksumCRC32)
		}
		w.fileMeta.Set(k, v)
	}
	return nil
}

// initialBuf is the most a new block buffer starts with: Java's 80 KiB.
// Buffers for larger blocks grow as they fill.
const initialBuf = DefaultBlockSize + DefaultBlockSize/4

func (w *Writer) getBuf() []byte {
	if p, ok := w.bufPool.Get().(*[]byte); ok {
		return (*p)[:0]
	}
	return make([]byte, 0, min(w.opts.BlockSize+w.opts.BlockSize/4, initialBuf))
}

func (w *Writer) putBuf(b []byte) {
	if cap(b) < min(w.opts.BlockSize, initialBuf) || cap(b) > 4*w.opts.BlockSize {
		return // keep only ordinary block buffers
	}
	b = b[:0]
	w.bufPool.Put(&b)
}

// fail records the first misuse or error.
func (w *Writer) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

func (w *Writer) usage(c *columnWriter, format string, args ...any) {
	if w.err == nil {
		e := newError(fmt.Errorf("%w: "+format, append([]any{ErrUsage}, args...)...))
		e.Column, e.Index, e.Row = c.meta.Name, c.index, w.rowCount
		w.err = e
	}
}

// column returns the column numbered i, or nil after recording a misuse.
func (w *Writer) column(i int) *columnWriter {
	if i < 0 || i >= len(w.cols) {
		w.fail(fmt.Errorf("%w: no column %d", ErrUsage, i))
		return nil
	}
	return w.cols[i]
}

// Err returns the first error the Writer met, if any.
func (w *Writer) Err() error { return w.err }

// RowCount returns the number of rows ended so far.
func (w *Writer) RowCount() int64 { return w.rowCount }

// Columns returns the number of columns.
func (w *Writer) Columns() int { return len(w.cols) }

// StartRow begins a row. Columns whose current block has reached the block
// size cut it here, so blocks hold whole rows.
func (w *Writer) StartRow() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return fmt.Errorf("%w: writer is closed", ErrUsage)
	}
	if w.inRow {
		return fmt.Errorf("%w: StartRow before EndRow", ErrUsage)
	}
	if w.rowCount == math.MaxInt64 {
		return fmt.Errorf("%w: too many rows", ErrUsage)
	}
	w.inRow = true
	// A column is listed in full when a write takes its buffer to the
	// block size; an aborted row may have taken it back below.
	for _, c := range w.full {
		c.full = false
		if len(c.enc.b) >= w.opts.BlockSize {
			if err := w.cutBlock(c); err != nil {
				w.fail(err)
				return err
			}
		}
	}
	w.full = w.full[:0]
	w.touched = w.touched[:0]
	w.rowErr = w.err == nil
	return nil
}

// touch readies column c for its first write of the row: its counts start
// at zero and its state is saved for AbortRow.
func (w *Writer) touch(c *columnWriter) {
	if c.stamp == w.rowCount+1 {
		return
	}
	c.stamp = w.rowCount + 1
	w.touched = append(w.touched, c)
	c.rowLengths, c.rowElems, c.rowValues = 0, 0, 0
	c.saved.size, c.saved.bitCount = len(c.enc.b), c.enc.bitCount
	c.saved.runLength, c.saved.runValue, c.saved.hasFirst = c.runLength, c.runValue, c.hasFirst
	if c.st != nil {
		c.st.Mark()
	}
}

// CheckRows turns the per-row checks on (the default) or off. With them
// on, EndRow checks every row's structure and AbortRow can undo a row.
// With them off, for a caller whose rows are right by construction (such
// as a shredder following a schema), rows cost less to write: EndRow
// checks nothing, AbortRow cannot undo the row and ends the file with an
// error instead, and Close still checks every column's totals of lengths
// and values against the structure, so that a misuse fails rather than
// writing an inconsistent file. It may be called between rows only.
func (w *Writer) CheckRows(on bool) error {
	if w.inRow {
		return fmt.Errorf("%w: CheckRows inside a row", ErrUsage)
	}
	w.unchecked = !on
	for _, c := range w.cols {
		c.fast = noType
		if w.unchecked {
			c.fast = c.typ
		}
	}
	return nil
}

// elems returns the array elements column c got in the current row.
func (w *Writer) elems(c *columnWriter) int64 {
	if c.stamp == w.rowCount+1 {
		return c.rowElems
	}
	return 0
}

// AbortRow discards the row begun by the last StartRow, restoring every
// column as it was, and forgets a misuse recorded during the row (such as
// a value of the wrong type), so that writing can go on with the next row.
// Errors from compression or the spill file are kept.
func (w *Writer) AbortRow() {
	if !w.inRow {
		return
	}
	if w.unchecked {
		w.fail(fmt.Errorf("%w: row %d aborted with row checks off: it cannot be undone", ErrUsage, w.rowCount))
		w.inRow = false
		return
	}
	for _, c := range w.touched {
		s := c.saved
		c.enc.b = c.enc.b[:s.size]
		c.lenAt = -1
		c.enc.bitCount, c.runLength, c.runValue, c.hasFirst = s.bitCount, s.runLength, s.runValue, s.hasFirst
		if c.enc.bitCount != 0 {
			// Clear bits a discarded boolean set in the shared last byte.
			c.enc.b[len(c.enc.b)-1] &= 1<<c.enc.bitCount - 1
		}
		if c.st != nil {
			c.st.Rollback()
		}
		c.stamp = 0 // the row will be written again under the same number
	}
	w.touched = w.touched[:0]
	if w.rowErr && (errors.Is(w.err, ErrUsage) || errors.Is(w.err, ErrLimit)) {
		w.err = nil
	}
	w.inRow = false
}

// EndRow ends a row, checking that every column got as many lengths and
// values as the row's structure calls for.
func (w *Writer) EndRow() error {
	if w.err != nil {
		return w.err
	}
	if !w.inRow {
		return fmt.Errorf("%w: EndRow without StartRow", ErrUsage)
	}
	if w.unchecked {
		w.rowCount++
		w.inRow = false
		return nil
	}
	// Columns not written to hold no entries this row: that is right
	// unless they are mandatory roots, or mandatory children of an array
	// that got elements.
	roots := 0
	for _, c := range w.touched {
		entries := int64(1)
		if c.parent >= 0 {
			entries = w.elems(w.cols[c.parent])
		} else if c.mandatory {
			roots++
		}
		if c.meta.Array {
			if int64(c.rowLengths) != entries {
				w.usage(c, "wrote %d lengths in the row, want %d", c.rowLengths, entries)
				return w.err
			}
			entries = c.rowElems
			if entries > 0 {
				for _, k := range c.kids {
					if k.stamp != w.rowCount+1 {
						w.usage(k, "wrote nothing in the row, want %d entries", entries)
						return w.err
					}
				}
			}
		}
		if c.meta.Type != Null && c.rowValues != entries {
			w.usage(c, "wrote %d values in the row, want %d", c.rowValues, entries)
			return w.err
		}
	}
	if roots < w.mandatoryRoots {
		for _, c := range w.cols {
			if c.parent < 0 && c.mandatory && c.stamp != w.rowCount+1 {
				w.usage(c, "wrote nothing in the row, want 1 entry")
				return w.err
			}
		}
	}
	for _, c := range w.touched {
		c.lengths += int64(c.rowLengths)
		c.elems += c.rowElems
		c.values += c.rowValues
	}
	w.rowCount++
	w.inRow = false
	return nil
}

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

// ready returns column col when a value of type t can be written to it
// straight away, the common case of a shredder's writes: the column has
// that type, the row checks are off and no run of lengths is pending. It
// counts the value. Otherwise it returns nil, and the write goes through
// begin. It is small enough to be inlined into every write.
func (w *Writer) ready(col int, t ValueType) *columnWriter {
	if cs := w.cols; uint(col) < uint(len(cs)) {
		if c := cs[col]; c.fast == t && c.runLength == 0 {
			c.values++
			return c
		}
	}
	return nil
}

// begin prepares column col for one value of type t and returns it, or
// nil after recording a misuse.
func (w *Writer) begin(col int, t ValueType) *columnWriter {
	if uint(col) >= uint(len(w.cols)) {
		w.column(col) // records the misuse
		return nil
	}
	c := w.cols[col]
	if c.typ != t {
		w.usage(c, "writing a %s value to a %s column", t, c.typ)
		return nil
	}
	if w.unchecked {
		c.values++
	} else {
		if c.stamp != w.rowCount+1 {
			w.touch(c)
		}
		c.rowValues++
	}
	if c.runLength != 0 && t != Null {
		c.flushRun()
	}
	return c
}

// end records the first value of a block for columns with trevni.values,
// and notes a block that has reached the block size. It is small enough
// to be inlined into every write.
func (w *Writer) end(c *columnWriter, start int) {
	if len(c.enc.b) >= w.opts.BlockSize || c.meta.Values && !c.hasFirst {
		w.endSlow(c, start)
	}
}

// endSlow is end for a block to keep the first value of or to list as
// filled.
func (w *Writer) endSlow(c *columnWriter, start int) {
	if c.meta.Values && !c.hasFirst {
		c.first = append(c.first[:0], c.enc.b[start:]...)
		c.hasFirst = true
	}
	w.filled(c)
}

// filled lists column c in full, to be cut at the next StartRow, if its
// block has reached the block size, and fails the row if it has passed
// the largest block.
// One comparison with the block size, which is less than the largest
// block (NewWriter checks), keeps it small enough to inline into every
// write.
func (w *Writer) filled(c *columnWriter) {
	if len(c.enc.b) >= w.opts.BlockSize {
		w.filledPast(c)
	}
}

// filledPast is filled for a block that has reached the block size.
func (w *Writer) filledPast(c *columnWriter) {
	if len(c.enc.b) > w.opts.MaxBlockSize {
		w.tooLarge(c, len(c.enc.b))
	}
	if len(c.enc.b) >= w.opts.BlockSize && !c.full {
		c.full = true
		w.full = append(w.full, c)
	}
}

// fits reports whether a value of n bytes, its length's varint included,
// fits in column c's block, and fails the row if not: checked before a
// large value is copied.
func (w *Writer) fits(c *columnWriter, n int) bool {
	if len(c.enc.b)+n+binary.MaxVarintLen32 <= w.opts.MaxBlockSize {
		return true // the common case, inlined
	}
	return w.fitsLength(c, n)
}

// fitsLength is fits for a value near the largest block: its length's
// varint counted exactly.
func (w *Writer) fitsLength(c *columnWriter, n int) bool {
	if n > math.MaxInt32 {
		w.usage(c, "value of %d bytes is too long", n)
		return false
	}
	size := 1
	for u := uint32(n) << 1; u >= 0x80; u >>= 7 {
		size++
	}
	if after := len(c.enc.b) + size + n; after > w.opts.MaxBlockSize {
		w.tooLarge(c, after)
		return false
	}
	return true
}

// tooLarge records that column c's block would take n bytes, past
// WriterOptions.MaxBlockSize.
func (w *Writer) tooLarge(c *columnWriter, n int) {
	if w.err == nil {
		e := newError(fmt.Errorf("%w: the row would take the column's block to %d bytes, past the %d of WriterOptions.MaxBlockSize (readers refuse larger blocks unless ReaderOptions.MaxBlockSize is raised)", ErrLimit, n, w.opts.MaxBlockSize))
		e.Column, e.Index, e.Row = c.meta.Name, c.index, w.rowCount
		w.err = e
	}
}

// WriteNull writes a null value. Writing nulls is optional: columns of type
// null store nothing, and their values are not counted.
func (w *Writer) WriteNull(col int) {
	if c := w.begin(col, Null); c != nil {
		// Not counted in the statistics either: whether nulls are
		// written must not change the file.
		w.end(c, len(c.enc.b))
	}
}

// WriteBool writes a boolean value.
func (w *Writer) WriteBool(col int, v bool) {
	c := w.ready(col, Boolean)
	if c == nil {
		if c = w.begin(col, Boolean); c == nil {
			return
		}
	}
	if c.meta.Values && !c.hasFirst {
		c.first = append(c.first[:0], 0)
		if v {
			c.first[0] = 1
		}
		c.hasFirst = true
	}
	if c.st != nil {
		c.st.AddBool(v)
	}
	c.enc.writeBool(v)
	w.filled(c)
}

// WriteInt writes an int value.
func (w *Writer) WriteInt(col int, v int32) {
	c := w.ready(col, Int)
	if c == nil {
		if c = w.begin(col, Int); c == nil {
			return
		}
	}
	if c.st != nil {
		c.st.AddInt(v)
	}
	start := len(c.enc.b)
	c.enc.writeInt(v)
	w.end(c, start)
}

// WriteLong writes a long value.
func (w *Writer) WriteLong(col int, v int64) {
	c := w.ready(col, Long)
	if c == nil {
		if c = w.begin(col, Long); c == nil {
			return
		}
	}
	if c.st != nil {
		c.st.AddLong(v)
	}
	start := len(c.enc.b)
	c.enc.writeLong(v)
	w.end(c, start)
}

// WriteFixed32 writes a fixed32 value.
func (w *Writer) WriteFixed32(col int, v int32) {
	c := w.ready(col, Fixed32)
	if c == nil {
		if c = w.begin(col, Fixed32); c == nil {
			return
		}
	}
	if c.st != nil {
		c.st.AddInt(v)
	}
	start := len(c.enc.b)
	c.enc.writeFixed32(uint32(v))
	w.end(c, start)
}

// WriteFixed64 writes a fixed64 value.
func (w *Writer) WriteFixed64(col int, v int64) {
	c := w.ready(col, Fixed64)
	if c == nil {
		if c = w.begin(col, Fixed64); c == nil {
			return
		}
	}
	if c.st != nil {
		c.st.AddLong(v)
	}
	start := len(c.enc.b)
	c.enc.writeFixed64(uint64(v))
	w.end(c, start)
}

// WriteFloat writes a float value, keeping its exact bits (NaN payloads
// included).
func (w *Writer) WriteFloat(col int, v float32) {
	c := w.ready(col, Float)
	if c == nil {
		if c = w.begin(col, Float); c == nil {
			return
		}
	}
	if c.st != nil {
		c.st.AddFloat(v)
	}
	start := len(c.enc.b)
	c.enc.writeFixed32(math.Float32bits(v))
	w.end(c, start)
}

// WriteDouble writes a double value, keeping its exact bits.
func (w *Writer) WriteDouble(col int, v float64) {
	c := w.ready(col, Double)
	if c == nil {
		if c = w.begin(col, Double); c == nil {
			return
		}
	}
	if c.st != nil {
		c.st.AddDouble(v)
	}
	start := len(c.enc.b)
	c.enc.writeFixed64(math.Float64bits(v))
	w.end(c, start)
}

// WriteString writes a string value, which must be valid UTF-8: Trevni
// strings are UTF-8, and readers (Java's and ours) reject anything else, so
// an invalid string is refused here rather than written into a file that
// cannot be read.
func (w *Writer) WriteString(col int, v string) {
	if c := w.begin(col, String); c != nil {
		if len(v) > math.MaxInt32 {
			w.usage(c, "string of %d bytes is too long", len(v))
			return
		}
		if !utf8.ValidString(v) {
			w.usage(c, "string is not valid UTF-8")
			return
		}
		if !w.fits(c, len(v)) {
			return
		}
		if c.st != nil {
			c.st.AddString(v)
		}
		start := len(c.enc.b)
		c.enc.writeString(v)
		w.end(c, start)
	}
}

// WriteStringBytes writes a string value given as its UTF-8 bytes, which
// must be valid UTF-8 (see WriteString).
func (w *Writer) WriteStringBytes(col int, v []byte) {
	c := w.ready(col, String)
	if c == nil {
		if c = w.begin(col, String); c == nil {
			return
		}
	}
	if w.writeShort(c, v, true) {
		return
	}
	if !utf8check.Valid(v) {
		w.usage(c, "string is not valid UTF-8")
		return
	}
	w.writeBytesTo(c, v)
}

// WriteBytes writes a bytes value.
func (w *Writer) WriteBytes(col int, v []byte) {
	c := w.ready(col, Bytes)
	if c == nil {
		if c = w.begin(col, Bytes); c == nil {
			return
		}
	}
	if w.writeShort(c, v, false) {
		return
	}
	w.writeBytesTo(c, v)
}

func (w *Writer) writeBytesTo(c *columnWriter, v []byte) {
	if !w.fits(c, len(v)) { // among them a value too long for any block
		return
	}
	if c.st != nil && !c.st.AddBytesWithin(v) {
		c.st.AddBytes(v)
	}
	start := len(c.enc.b)
	c.enc.writeBytes(v)
	w.end(c, start)
}

// writeShort is writeBytesTo for a value of at most 16 bytes, the common
// case, where the block's buffer has room for 17 more bytes: the value is
// loaded a word or two at a time (overlapping loads cover every length)
// and stored after its one-byte length, with no call to memmove. For a
// string (str) the same words show whether it is ASCII, and so valid
// UTF-8, which saves checking it apart. It makes no call, so that nothing
// is spilled around one, and reports false, having done nothing, for
// anything else: a longer value, a buffer without the room, a block near
// its largest size, a string that is not ASCII, or a value that moves the
// statistics' bounds; the caller then checks and writes it the usual way.
func (w *Writer) writeShort(c *columnWriter, v []byte, str bool) bool {
	n := len(v)
	start := len(c.enc.b)
	if n > shortval.Max || cap(c.enc.b)-start <= shortval.Max || start+1+n > w.opts.MaxBlockSize {
		return false
	}
	lo, hi := shortval.Load(v)
	if str && !shortval.ASCII(lo, hi) {
		return false
	}
	if c.st != nil && !c.st.AddBytesWithin(v) {
		return false
	}
	c.enc.b = c.enc.b[:start+1+n] // the length alone stored: see encoder
	b := c.enc.b
	b[start] = byte(n << 1)
	shortval.Store(b[start+1:start+1+n], lo, hi)
	w.end(c, start)
	return true
}

// WriteValue writes v to column col, converting it to the column's type:
// nil for null; bool; any Go integer for int, long, fixed32 and fixed64 when
// it fits; float32 or float64 for float and double; string or []byte for
// string and bytes. It is the convenient, slower path; the typed methods do
// not box their values.
func (w *Writer) WriteValue(col int, v any) {
	c := w.column(col)
	if c == nil {
		return
	}
	switch c.meta.Type {
	case Null:
		if v != nil {
			w.usage(c, "writing %T to a null column", v)
			return
		}
		w.WriteNull(col)
	case Boolean:
		b, ok := v.(bool)
		if !ok {
			w.usage(c, "writing %T to a boolean column", v)
			return
		}
		w.WriteBool(col, b)
	case Int, Fixed32:
		n, ok := toInt64(v)
		if !ok || n < math.MinInt32 || n > math.MaxInt32 {
			w.usage(c, "writing %T (%v) to a %s column", v, v, c.meta.Type)
			return
		}
		if c.meta.Type == Int {
			w.WriteInt(col, int32(n))
		} else {
			w.WriteFixed32(col, int32(n))
		}
	case Long, Fixed64:
		n, ok := toInt64(v)
		if !ok {
			w.usage(c, "writing %T (%v) to a %s column", v, v, c.meta.Type)
			return
		}
		if c.meta.Type == Long {
			w.WriteLong(col, n)
		} else {
			w.WriteFixed64(col, n)
		}
	case Float:
		f, ok := v.(float32)
		if !ok {
			w.usage(c, "writing %T to a float column", v)
			return
		}
		w.WriteFloat(col, f)
	case Double:
		switch f := v.(type) {
		case float64:
			w.WriteDouble(col, f)
		case float32:
			w.WriteDouble(col, float64(f))
		default:
			w.usage(c, "writing %T to a double column", v)
		}
	case String:
		switch s := v.(type) {
		case string:
			w.WriteString(col, s)
		case []byte:
			w.WriteStringBytes(col, s)
		default:
			w.usage(c, "writing %T to a string column", v)
		}
	case Bytes:
		switch s := v.(type) {
		case []byte:
			w.WriteBytes(col, s)
		case string:
			w.WriteBytes(col, []byte(s))
		default:
			w.usage(c, "writing %T to a bytes column", v)
		}
	}
}

func toInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int8:
		return int64(n), true
	case int16:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case uint8:
		return int64(n), true
	case uint16:
		return int64(n), true
	case uint32:
		return int64(n), true
	case uint:
		return int64(n), n <= math.MaxInt64
	case uint64:
		return int64(n), n <= math.MaxInt64
	}
	return 0, false
}

// WriteRow writes one row of a file whose columns are all top-level and not
// arrays: one value per column, converted as by WriteValue.
func (w *Writer) WriteRow(values ...any) error {
	if len(values) != len(w.cols) {
		return fmt.Errorf("%w: WriteRow got %d values for %d columns", ErrUsage, len(values), len(w.cols))
	}
	if err := w.StartRow(); err != nil {
		return err
	}
	for i, v := range values {
		if c := w.cols[i]; c.meta.Array || c.parent >= 0 {
			w.usage(c, "WriteRow needs flat columns; use WriteLength and the value methods")
			return w.err
		}
		w.WriteValue(i, v)
	}
	return w.EndRow()
}

// cutBlock finishes column c's current block and hands it to compression.
func (w *Writer) cutBlock(c *columnWriter) error {
	c.flushRun()
	rows := w.rowCount - c.blockStart
	if rows == 0 {
		return nil
	}
	if len(c.enc.b) > math.MaxInt32 {
		return &Error{Offset: -1, Column: c.meta.Name, Index: c.index, Block: len(c.blocks), Row: w.rowCount,
			Err: fmt.Errorf("%w: block of %d bytes exceeds the format's 2 GiB limit", ErrUsage, len(c.enc.b))}
	}
	if rows > math.MaxUint32 {
		return &Error{Offset: -1, Column: c.meta.Name, Index: c.index, Block: len(c.blocks), Row: w.rowCount,
			Err: fmt.Errorf("%w: block of %d rows exceeds the format's limit; write fewer rows or lower BlockSize", ErrUsage, rows)}
	}
	b := &block{rows: int(rows), rawSize: len(c.enc.b), spillAt: -1}
	if c.st != nil {
		c.st.EndBlock(rows)
	}
	if c.hasFirst {
		b.first = append([]byte(nil), c.first...)
	}
	raw := c.enc.b
	c.enc.reset(w.getBuf())
	c.lenAt = -1
	c.blockStart, c.hasFirst = w.rowCount, false
	c.blocks = append(c.blocks, b)
	w.held += int64(cap(raw)) // the buffer is held until the block is written or spilled
	if w.sem == nil {
		w.compress(c, b, raw)
		if b.err != nil {
			return b.err
		}
	} else {
		b.compressed = make(chan struct{})
		w.sem <- struct{}{}
		w.pending.Add(1)
		go func() {
			defer w.pending.Done()
			w.compress(c, b, raw)
			close(b.compressed)
			<-w.sem
		}()
	}
	if b := w.opts.MemoryBudget; b > 0 && w.held+w.inflight > b-b/8 && w.held-w.shrunk.Load()+w.inflight > b-b/8 {
		return w.spillBlocks()
	}
	return nil
}

// compress fills b.data with the compressed raw bytes and their checksum.
func (w *Writer) compress(c *columnWriter, b *block, raw []byte) {
	var data []byte
	var err error
	isNull := isNullCodec(c.codec)
	if isNull {
		data = raw // stored as is: the buffer becomes the block
	} else {
		data, err = c.codec.Compress(w.getBuf(), raw)
		if err != nil {
			b.err = &Error{Offset: -1, Column: c.meta.Name, Index: c.index, Block: -1, Row: -1, Err: fmt.Errorf("compressing block: %w", err)}
			return
		}
		if int64(len(data)) > math.MaxInt32 {
			b.err = &Error{Offset: -1, Column: c.meta.Name, Index: c.index, Block: -1, Row: -1, Err: fmt.Errorf("%w: compressed block exceeds 2 GiB", ErrUsage)}
			return
		}
	}
	if c.checksum == 4 {
		data = binary.BigEndian.AppendUint32(data, crc32.Checksum(raw, crcTable))
	}
	if !isNull {
		w.putBuf(raw)
	}
	if cap(data) >= 2*len(data)+4096 {
		// A well compressed block keeps a buffer of its own size, not a
		// block buffer: the memory budget then holds as many blocks as
		// their compressed bytes allow.
		exact := make([]byte, len(data))
		copy(exact, data)
		w.putBuf(data)
		data = exact
	}
	w.shrunk.Add(int64(cap(raw) - cap(data)))
	b.data = data
	b.dataLen = len(data)
}

// wait blocks until every block handed to compression is done and returns
// the first compression error.
func (w *Writer) wait() error {
	w.pending.Wait()
	for _, c := range w.cols {
		for _, b := range c.blocks {
			if b.err != nil {
				return b.err
			}
		}
	}
	return nil
}

// spillBlocks is called when the blocks held, with those being spilled,
// pass seven eighths of the memory budget. Unless a batch is still being
// written and the budget itself is not reached yet, it moves finished
// blocks to the spill file until those left take five eighths of it: it
// chooses them here and hands them to a goroutine that writes them while
// the rows go on. So the bytes spilled, which Close copies again, are
// about what exceeds the budget, and memory stays within it unless the
// disk is slower than the rows.
func (w *Writer) spillBlocks() error {
	budget := w.opts.MemoryBudget
	if w.spilling != nil {
		select {
		case err := <-w.spilling: // the last batch is written
			w.spilling, w.inflight = nil, 0
			if err != nil {
				return err
			}
		default:
			if w.held-w.shrunk.Load()+w.inflight <= budget {
				return nil
			}
			if err := w.spillWait(); err != nil {
				return err
			}
		}
	}
	if err := w.wait(); err != nil {
		return err
	}
	var held int64
	for _, c := range w.cols {
		for _, b := range c.blocks {
			if b.spillAt < 0 {
				held += int64(cap(b.data))
			}
		}
	}
	w.held = held
	w.shrunk.Store(0)
	if held <= budget-budget/8 {
		return nil
	}
	if w.spill == nil {
		f, err := os.CreateTemp(w.opts.TempDir, "trevni-spill-*")
		if err != nil {
			return fmt.Errorf("trevni: creating spill file: %w", err)
		}
		w.spill = f
		w.spillBuf = bufio.NewWriterSize(f, 1<<20)
	}
	target := budget - 3*(budget/8)
	var batch []*block
spill:
	for _, c := range w.cols {
		for _, b := range c.blocks {
			if held <= target {
				break spill
			}
			if b.spillAt >= 0 {
				continue
			}
			b.spillAt = w.spillSize
			w.spillSize += int64(len(b.data))
			held -= int64(cap(b.data))
			w.inflight += int64(cap(b.data))
			batch = append(batch, b)
		}
	}
	w.held = held
	done := make(chan error, 1)
	w.spilling = done
	go func() { done <- w.writeSpill(batch) }()
	return nil
}

// writeSpill writes a batch of blocks to the spill file at the offsets
// chosen for them and frees their buffers. It runs on its own goroutine;
// the Writer touches neither the blocks' data nor the spill file until
// spillWait has its result.
func (w *Writer) writeSpill(batch []*block) error {
	for _, b := range batch {
		if _, err := w.spillBuf.Write(b.data); err != nil {
			return fmt.Errorf("trevni: writing spill file: %w", err)
		}
	}
	if err := w.spillBuf.Flush(); err != nil {
		return fmt.Errorf("trevni: writing spill file: %w", err)
	}
	for _, b := range batch {
		w.putBuf(b.data)
		b.data = nil
	}
	return nil
}

// spillWait waits for the batch being spilled, if any, and returns its
// error.
func (w *Writer) spillWait() error {
	if w.spilling == nil {
		return nil
	}
	err := <-w.spilling
	w.spilling, w.inflight = nil, 0
	return err
}

// Buffered returns the bytes of finished blocks the Writer holds in
// memory, as WriterOptions.MemoryBudget counts them (blocks being
// compressed at their buffer's size, compressed ones at theirs); the
// blocks still being filled are not counted.
func (w *Writer) Buffered() int64 { return w.held - w.shrunk.Load() + w.inflight }

// MemoryBudget returns the memory budget in force (see
// WriterOptions.MemoryBudget): negative when the Writer never spills.
func (w *Writer) MemoryBudget() int64 { return w.opts.MemoryBudget }

// SetMemoryBudget changes the memory budget from the next block on: 0
// means DefaultMemoryBudget and a negative value never spill, as for
// WriterOptions.MemoryBudget. A caller sharing one budget between this
// Writer and others (the segments of AppendWriter) gives it its share.
func (w *Writer) SetMemoryBudget(n int64) {
	if n == 0 {
		n = DefaultMemoryBudget
	}
	w.opts.MemoryBudget = n
}

// SetFirstRow numbers the next row the Writer gets row, for a Writer that
// writes a segment of a file's rows on its own goroutine, to be moved into
// the file's Writer by AppendWriter: the errors its rows get then name the
// rows as the file numbers them, and RowCount counts from row. The Writer
// must hold no rows: it is new, or AppendWriter has just emptied it.
func (w *Writer) SetFirstRow(row int64) error {
	switch {
	case w.err != nil:
		return w.err
	case w.closed:
		return fmt.Errorf("%w: writer is closed", ErrUsage)
	case w.inRow:
		return fmt.Errorf("%w: SetFirstRow inside a row", ErrUsage)
	case w.rowCount != w.firstRow:
		return fmt.Errorf("%w: SetFirstRow on a writer holding %d rows", ErrUsage, w.rowCount-w.firstRow)
	case row < 0:
		return fmt.Errorf("%w: SetFirstRow(%d)", ErrUsage, row)
	}
	w.rowCount, w.firstRow = row, row
	for _, c := range w.cols {
		c.blockStart = row
		c.stamp = 0
	}
	return nil
}

// ShareBuffers makes w take its block buffers from those of file, and
// give them back there: a segment's blocks (AppendWriter) move into file,
// which frees their buffers as it writes or spills them, and the segment
// then fills them again rather than new ones. The two must have the same
// BlockSize. Call it before writing to w; both may then be used on
// different goroutines.
func (w *Writer) ShareBuffers(file *Writer) error {
	if w.opts.BlockSize != file.opts.BlockSize {
		return fmt.Errorf("%w: ShareBuffers of writers of block sizes %d and %d", ErrUsage, w.opts.BlockSize, file.opts.BlockSize)
	}
	w.bufPool = file.bufPool
	return nil
}

// AppendWriter moves the rows written to seg to the end of w's, as whole
// blocks, and leaves seg empty, ready for SetFirstRow and more rows. It is
// how rows shredded on several goroutines, each into its own Writer,
// are joined in row order: seg's first row must be numbered w.RowCount()
// (SetFirstRow). Both must have the same columns (names, types, parents,
// arrays, values flags, codecs and checksums) and both gather statistics
// or neither does.
//
// The open blocks of both are cut first, so a column's block ends where
// each segment ends (Trevni lets a column's blocks end at any row); the
// blocks themselves, already compressed by seg, move without a copy, and
// their statistics move with them exactly as gathered. The moved blocks
// count against w's memory budget from then on, and spill to w's
// temporary file past it; blocks seg had spilled are read back first.
// Neither may be inside a row; seg must not be used by another goroutine
// during the call.
func (w *Writer) AppendWriter(seg *Writer) error {
	switch {
	case w.err != nil:
		return w.err
	case w.closed:
		return fmt.Errorf("%w: writer is closed", ErrUsage)
	case seg == w:
		return fmt.Errorf("%w: AppendWriter of a writer to itself", ErrUsage)
	case w.inRow || seg.inRow:
		return fmt.Errorf("%w: AppendWriter inside a row", ErrUsage)
	case seg.err != nil:
		return fmt.Errorf("the segment: %w", seg.err)
	case seg.closed:
		return fmt.Errorf("%w: the segment is closed", ErrUsage)
	case seg.firstRow != w.rowCount:
		return fmt.Errorf("%w: AppendWriter of a segment starting at row %d to a writer of %d rows", ErrUsage, seg.firstRow, w.rowCount)
	}
	if err := w.sameColumnsAs(seg); err != nil {
		return err
	}
	if seg.rowCount == seg.firstRow {
		return nil
	}
	for _, c := range seg.cols {
		if err := seg.cutBlock(c); err != nil {
			seg.fail(err)
			return err
		}
	}
	if err := seg.wait(); err != nil {
		seg.fail(err)
		return err
	}
	if err := seg.spillWait(); err != nil {
		seg.fail(err)
		return err
	}
	for _, c := range w.cols {
		if err := w.cutBlock(c); err != nil {
			w.fail(err)
			return err
		}
	}
	var moved int64
	for i, c := range w.cols {
		s := seg.cols[i]
		for _, b := range s.blocks {
			if b.spillAt >= 0 {
				data := make([]byte, b.dataLen)
				if _, err := seg.spill.ReadAt(data, b.spillAt); err != nil {
					err = fmt.Errorf("trevni: reading spill file: %w", err)
					seg.fail(err)
					return err
				}
				b.data, b.spillAt = data, -1
			}
			moved += int64(cap(b.data))
		}
		if len(c.blocks)+len(s.blocks) > math.MaxInt32 {
			err := &Error{Offset: -1, Column: c.meta.Name, Index: c.index, Block: len(c.blocks), Row: w.rowCount,
				Err: fmt.Errorf("%w: column would have more than %d blocks", ErrLimit, math.MaxInt32)}
			w.fail(err)
			return err
		}
		c.blocks = append(c.blocks, s.blocks...)
		clear(s.blocks)
		s.blocks = s.blocks[:0]
		if c.st != nil {
			if err := c.st.MoveBlocks(s.st); err != nil {
				w.fail(err)
				return err
			}
		}
		c.lengths += s.lengths
		c.elems += s.elems
		c.values += s.values
		s.lengths, s.elems, s.values = 0, 0, 0
	}
	w.rowCount = seg.rowCount
	for _, c := range w.cols {
		c.blockStart = w.rowCount
		c.stamp = 0
	}
	seg.firstRow = seg.rowCount
	seg.held = 0
	seg.shrunk.Store(0)
	w.held += moved
	if b := w.opts.MemoryBudget; b > 0 && w.held+w.inflight > b-b/8 && w.held-w.shrunk.Load()+w.inflight > b-b/8 {
		if err := w.spillBlocks(); err != nil {
			w.fail(err)
			return err
		}
	}
	return nil
}

// sameColumnsAs checks that seg's columns are stored as w's, so that
// AppendWriter can move its blocks into w.
func (w *Writer) sameColumnsAs(seg *Writer) error {
	if len(seg.cols) != len(w.cols) {
		return fmt.Errorf("%w: AppendWriter of a segment of %d columns to a writer of %d", ErrUsage, len(seg.cols), len(w.cols))
	}
	for i, c := range w.cols {
		s := seg.cols[i]
		a, b := &c.meta, &s.meta
		switch {
		case a.Name != b.Name || a.Type != b.Type || a.Parent != b.Parent || a.Array != b.Array || a.Values != b.Values:
			return fmt.Errorf("%w: AppendWriter: the segment's column %d is %s, the writer's %s", ErrUsage, i, describeColumn(b), describeColumn(a))
		case canonicalCodec(w.codecName(c)) != canonicalCodec(seg.codecName(s)) || c.checksum != s.checksum:
			return fmt.Errorf("%w: AppendWriter: the segment's column %q is stored with codec %q and %d checksum bytes, the writer's with %q and %d", ErrUsage, a.Name, seg.codecName(s), s.checksum, w.codecName(c), c.checksum)
		case (c.st == nil) != (s.st == nil):
			return fmt.Errorf("%w: AppendWriter: statistics are on in one writer and off in the other", ErrUsage)
		}
	}
	return nil
}

// codecName returns the name of the codec column c is stored with.
func (w *Writer) codecName(c *columnWriter) string {
	if n := c.meta.Codec(); n != "" {
		return n
	}
	return w.fileMeta.GetString(KeyCodec)
}

// Close finishes the last blocks, writes the whole file to the output and
// releases the spill file. It does not close the output.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	defer w.release()
	if w.err == nil && w.inRow {
		w.fail(fmt.Errorf("%w: Close inside a row", ErrUsage))
	}
	if w.err == nil {
		w.checkTotals()
	}
	if w.err != nil {
		w.closed = true
		return w.err
	}
	for _, c := range w.cols {
		if err := w.cutBlock(c); err != nil {
			w.fail(err)
			return err
		}
	}
	if err := w.wait(); err != nil {
		w.fail(err)
		return err
	}
	if err := w.spillWait(); err != nil {
		w.fail(err)
		return err
	}
	for _, c := range w.cols {
		if c.st != nil {
			c.meta.Meta.Set(stats.MetaKey, c.st.Encode())
		}
	}
	err := w.writeFile()
	w.fail(err)
	return err
}

// checkTotals checks every column's totals of lengths and values against
// the structure: a top-level column holds one entry per row, a child one
// per element of its parent, and an array column as many values as its
// lengths add up to. With row checks on, EndRow has checked each row
// already; with them off, this is the check that remains.
func (w *Writer) checkTotals() {
	for _, c := range w.cols {
		if !c.mandatory {
			continue
		}
		due := w.rowCount
		if c.parent >= 0 {
			due = w.cols[c.parent].elems
		}
		if c.meta.Array {
			if c.lengths != due {
				w.usage(c, "wrote %d lengths in all, want %d", c.lengths, due)
				return
			}
			due = c.elems
		}
		if c.meta.Type != Null && c.values != due {
			w.usage(c, "wrote %d values in all, want %d", c.values, due)
			return
		}
	}
}

// Abort discards everything written and releases the spill file.
func (w *Writer) Abort() {
	if !w.closed {
		w.fail(errors.New("trevni: writer aborted"))
	}
	w.release()
}

func (w *Writer) release() {
	w.closed = true
	w.pending.Wait()
	w.spillWait()
	if w.spill != nil {
		name := w.spill.Name()
		w.spill.Close()
		os.Remove(name)
		w.spill = nil
	}
	for _, c := range w.cols {
		c.blocks = nil
		c.enc.b = nil
	}
}

// columnSize returns the bytes column c occupies in the file.
func (c *columnWriter) size() int64 {
	n := int64(4)
	for _, b := range c.blocks {
		n += 12 + int64(len(b.first)) + int64(b.dataLen)
	}
	return n
}

func (w *Writer) writeFile() error {
	bw := bufio.NewWriterSize(w.out, 256<<10)
	var h encoder
	h.b = append(h.b, magic[:]...)
	h.writeFixed64(uint64(w.rowCount))
	h.writeFixed32(uint32(len(w.cols)))
	writeMeta(&h, &w.fileMeta)
	for _, c := range w.cols {
		writeColumnMeta(&h, &c.meta)
	}
	start := int64(len(h.b)) + 8*int64(len(w.cols))
	for _, c := range w.cols {
		h.writeFixed64(uint64(start))
		start += c.size()
	}
	if _, err := bw.Write(h.b); err != nil {
		return err
	}
	var copyBuf []byte
	for _, c := range w.cols {
		h.reset(h.b)
		h.writeFixed32(uint32(len(c.blocks)))
		for _, b := range c.blocks {
			h.writeFixed32(uint32(b.rows))
			h.writeFixed32(uint32(b.rawSize))
			h.writeFixed32(uint32(b.dataLen - c.checksum))
			h.b = append(h.b, b.first...)
		}
		if _, err := bw.Write(h.b); err != nil {
			return err
		}
		for _, b := range c.blocks {
			if b.spillAt < 0 {
				if _, err := bw.Write(b.data); err != nil {
					return err
				}
				continue
			}
			if copyBuf == nil {
				copyBuf = make([]byte, 256<<10)
			}
			sr := io.NewSectionReader(w.spill, b.spillAt, int64(b.dataLen))
			if _, err := io.CopyBuffer(bw, sr, copyBuf); err != nil {
				return fmt.Errorf("trevni: reading spill file: %w", err)
			}
		}
	}
	return bw.Flush()
}

func writeMeta(e *encoder, m *MetaData) {
	e.writeInt(int32(m.Len()))
	for i := 0; i < m.Len(); i++ {
		e.writeString(m.Key(i))
		e.writeBytes(m.Value(i))
	}
}

// writeColumnMeta writes a column's metadata in Java's order: name, type,
// values, parent, array, then the rest.
func writeColumnMeta(e *encoder, c *ColumnMeta) {
	n := 2 + c.Meta.Len()
	for _, b := range []bool{c.Values, c.Parent != "", c.Array} {
		if b {
			n++
		}
	}
	e.writeInt(int32(n))
	e.writeString(KeyName)
	e.writeString(c.Name)
	e.writeString(KeyType)
	e.writeString(c.Type.String())
	if c.Values {
		e.writeString(KeyValues)
		e.writeString("")
	}
	if c.Parent != "" {
		e.writeString(KeyParent)
		e.writeString(c.Parent)
	}
	if c.Array {
		e.writeString(KeyArray)
		e.writeString("")
	}
	for i := 0; i < c.Meta.Len(); i++ {
		e.writeString(c.Meta.Key(i))
		e.writeBytes(c.Meta.Value(i))
	}
}
