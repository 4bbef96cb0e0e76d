package format

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/trevni-go/trevni/format/stats"
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
	// 0 means DefaultBlockSize. It may not exceed MaxWriterBlockSize (or
	// half of a MaxBlockSize raised above DefaultMaxBlockSize, for files
	// read with as large a ReaderOptions.MaxBlockSize), and must be less
	// than MaxBlockSize. Block buffers start small and grow
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
	// batchFirst and batchRows are the first row and the rows of the
	// batch StartRows began (batchRows 0 outside one): see
	// writer_batch.go.
	batchFirst int64
	batchRows  int

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
	if w.opts.BlockSize > max(MaxWriterBlockSize, w.opts.MaxBlockSize/2) {
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
