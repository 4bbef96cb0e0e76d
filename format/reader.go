package format

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"
	"sync"

	"github.com/trevni-go/trevni/format/stats"
	"github.com/trevni-go/trevni/internal/budget"
)

// headerChunk is how much the header is read at a time: opening a file reads
// its header and at most this much more.
const headerChunk = 8 << 10

// ReaderOptions configures a Reader. The zero value is ready to use.
type ReaderOptions struct {
	// Codecs adds or replaces codecs by name.
	Codecs map[string]Codec
	// MaxBlockSize bounds the uncompressed size of a block; 0 means
	// DefaultMaxBlockSize. A larger block is an error wrapping ErrLimit,
	// reported before anything of it is decompressed.
	MaxBlockSize int
	// BlockMemory bounds the bytes that all the ColumnReaders of the
	// Reader hold at once in block buffers, stored and decompressed,
	// read-ahead included; 0 means DefaultBlockMemory and a negative
	// value means no bound. A block that would take more is an error
	// wrapping ErrLimit, reported before it is read.
	BlockMemory int64
	// StrictChecksums rejects the all-zero CRC-32 that Java writes for
	// every block of a null-codec file; by default it is tolerated.
	StrictChecksums bool
	// SkipChecksums reads blocks without verifying their checksums (the
	// trevni command's --skip-checksums), to read what a damaged file
	// still holds; its structure is checked all the same. Concat then
	// writes the checksums of the data as read.
	SkipChecksums bool
	// ReadAhead makes every ColumnReader fetch and decompress its next
	// block in another goroutine (see ColumnReader.SetReadAhead).
	ReadAhead bool
	// Prefetch, when set, is told the byte range [off, off+n) of a column
	// once, just before the column's block table is first read, so that a
	// ReaderAt with a high cost per read (an object store, see package
	// remote) can fetch the column's bytes in a few large reads instead of
	// one read per block. It must not call back into the Reader.
	Prefetch func(off, n int64)
	// Tables, when set, shares the columns' block tables with the other
	// Readers of the same file opened with it (see SharedTables): a
	// table one of them read is not read again.
	Tables *SharedTables
}

// Reader reads a Trevni file. Opening it reads only the header; each column's
// block descriptors are read when the column is first used, and blocks when
// their values are. A Reader is safe for concurrent use; the ColumnReaders it
// returns are not.
type Reader struct {
	src      Source // the columns' source, for NewSourceReader; nil for a file
	ra       io.ReaderAt
	size     int64
	opts     ReaderOptions
	rowCount int64
	meta     MetaData
	cols     []ColumnMeta
	rawMeta  []MetaData
	starts   []int64
	dataAt   int64   // where the header ends and the columns' data begins
	ends     []int64 // where each column's bytes end: the next column's start, or the file's end
	parents  []int
	children [][]int
	byName   map[string]int
	codecs   codecSet

	mu     sync.Mutex
	tables []*blockTable

	budget budget.Budget[ColumnReader]

	// The buffers of stored block bytes, shared by the ColumnReaders: a
	// block's stored bytes are needed only while it is decompressed, so
	// a reader holds as many as it decompresses at once, not one a
	// column. They are counted in budget under rawShare (held by
	// rawOwner, which lives as long as the Reader).
	rawMu    sync.Mutex
	raws     [][]byte
	rawOwner *ColumnReader
	rawShare *budget.Share
}

// takeRaw returns a buffer of n bytes for a block's stored bytes, within
// the block memory, or false; give it back with putRaw.
func (rd *Reader) takeRaw(n int) ([]byte, bool) {
	rd.rawMu.Lock()
	if rd.rawShare == nil {
		rd.rawOwner = &ColumnReader{}
		rd.rawShare = rd.budget.Register(rd.rawOwner)
	}
	best := -1 // the smallest free buffer that fits
	for i, b := range rd.raws {
		if cap(b) >= n && (best < 0 || cap(b) < cap(rd.raws[best])) {
			best = i
		}
	}
	k, i := len(rd.raws), best
	if i < 0 {
		i = k - 1 // none fits: the last free one, grown, if any
	}
	var old []byte
	if i >= 0 {
		old = rd.raws[i]
		rd.raws[i] = rd.raws[k-1]
		rd.raws = rd.raws[:k-1]
	}
	rd.rawMu.Unlock()
	if cap(old) >= n {
		return old[:n], true
	}
	for _, c := range []int{roomy(n), n} {
		if rd.budget.Take(rd.rawShare, int64(c-cap(old))) {
			return make([]byte, n, c), true
		}
	}
	if old != nil {
		rd.putRaw(old)
	}
	return nil, false
}

// putRaw gives back a buffer takeRaw returned.
func (rd *Reader) putRaw(b []byte) {
	rd.rawMu.Lock()
	rd.raws = append(rd.raws, b)
	rd.rawMu.Unlock()
}

// rawHeld returns the bytes of the free buffers of stored bytes.
func (rd *Reader) rawHeld() int64 {
	rd.rawMu.Lock()
	defer rd.rawMu.Unlock()
	var n int64
	for _, b := range rd.raws {
		n += int64(cap(b))
	}
	return n
}

// BlockInfo describes one block of a column.
type BlockInfo struct {
	Rows             int64  // top-level rows in the block
	FirstRow         int64  // number of the block's first top-level row
	UncompressedSize int    // bytes before compression
	CompressedSize   int    // stored bytes, not counting the checksum
	Offset           int64  // file offset of the stored bytes
	FirstValue       any    // the block's first value, for trevni.values columns
	firstValue       []byte // its encoding
}

type blockTable struct {
	blocks    []BlockInfo
	codec     Codec
	codecName string
	checksum  int
	end       int64 // just past the last block, or the table when there is none
	err       error
}

// Open opens the named file for reading.
func Open(name string) (*ReadCloser, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	r, err := NewReader(f, fi.Size(), nil)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &ReadCloser{Reader: r, f: f}, nil
}

// ReadCloser is a Reader of a file it must close.
type ReadCloser struct {
	*Reader
	f *os.File
}

// Close closes the file.
func (rc *ReadCloser) Close() error { return rc.f.Close() }

// headerReader decodes the header from a buffered view of the file, keeping
// the offset for errors and the bytes left for bounding counts.
type headerReader struct {
	br   *bufio.Reader
	off  int64
	size int64
}

func (h *headerReader) fail(err error) error {
	e := newError(fmt.Errorf("%w: %w", ErrFormat, err))
	e.Offset = h.off
	return e
}

func (h *headerReader) full(b []byte) error {
	n, err := io.ReadFull(h.br, b)
	h.off += int64(n)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return h.fail(fmt.Errorf("header truncated: %w", io.ErrUnexpectedEOF))
		}
		// The source failed (a remote read, a disk): not a format error.
		e := newError(fmt.Errorf("reading: %w", err))
		e.Offset = h.off
		return e
	}
	return nil
}

func (h *headerReader) varint() (int32, error) {
	var u uint32
	for i := 0; i < 5; i++ {
		c, err := h.br.ReadByte()
		if err != nil {
			return 0, h.fail(fmt.Errorf("header truncated: %w", io.ErrUnexpectedEOF))
		}
		h.off++
		u |= uint32(c&0x7f) << (7 * i)
		if c < 0x80 {
			return int32(u>>1) ^ -int32(u&1), nil
		}
	}
	return 0, h.fail(errIntVarint)
}

// count reads a count of items of at least minBytes each and checks it
// against the bytes left in the file.
func (h *headerReader) count(what string, minBytes int64) (int, error) {
	n, err := h.varint()
	if err != nil {
		return 0, err
	}
	if n < 0 || int64(n)*minBytes > h.size-h.off {
		return 0, h.fail(fmt.Errorf("%s %d out of range for the %d bytes left", what, n, h.size-h.off))
	}
	return int(n), nil
}

func (h *headerReader) bytes(what string) ([]byte, error) {
	n, err := h.count(what+" length", 1)
	if err != nil {
		return nil, err
	}
	b := make([]byte, n)
	return b, h.full(b)
}

func (h *headerReader) meta(m *MetaData) error {
	n, err := h.count("metadata entry count", 2)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		k, err := h.bytes("metadata key")
		if err != nil {
			return err
		}
		v, err := h.bytes("metadata value")
		if err != nil {
			return err
		}
		if m.Has(string(k)) {
			return h.fail(fmt.Errorf("duplicate metadata key %q", k))
		}
		m.Set(string(k), v)
	}
	return nil
}

// NewReader reads the header of the Trevni file held by r, which is size
// bytes long. opts may be nil.
//
// The file must start with "Trv" and a version byte of 0, 1 or 2 (Java has
// written 1 and 2). Java's reader, through a bug, accepts any four bytes;
// checking them turns a wrong file into a clear error.
func NewReader(r io.ReaderAt, size int64, opts *ReaderOptions) (*Reader, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: NewReader of a nil io.ReaderAt", ErrUsage)
	}
	if size < 0 {
		return nil, fmt.Errorf("%w: NewReader of a negative size %d", ErrUsage, size)
	}
	rd := &Reader{ra: r, size: size}
	if opts != nil {
		rd.opts = *opts
	}
	rd.applyOptions()
	h := &headerReader{br: bufio.NewReaderSize(io.NewSectionReader(r, 0, size), headerChunk), size: size}
	var fixed [16]byte
	if err := h.full(fixed[:16]); err != nil {
		return nil, err
	}
	if string(fixed[:3]) != "Trv" || fixed[3] > magic[3] {
		hint := ""
		if string(fixed[:4]) == "Obj\x01" {
			hint = " (it is an Avro container file)"
		}
		h.off = 0
		return nil, h.fail(fmt.Errorf("it starts with %q, not \"Trv\" and a version up to %d%s", fixed[:4], magic[3], hint))
	}
	rd.rowCount = int64(binary.LittleEndian.Uint64(fixed[4:12]))
	if rd.rowCount < 0 {
		h.off = 4
		return nil, h.fail(fmt.Errorf("negative row count %d", rd.rowCount))
	}
	ncols := binary.LittleEndian.Uint32(fixed[12:16])
	// Every column needs at least a metadata count, a start and a block count.
	if int64(ncols)*13 > size-h.off {
		h.off = 12
		return nil, h.fail(fmt.Errorf("column count %d out of range for a file of %d bytes", ncols, size))
	}
	if err := h.meta(&rd.meta); err != nil {
		return nil, err
	}
	rd.cols = make([]ColumnMeta, ncols)
	rd.rawMeta = make([]MetaData, ncols)
	rd.parents = make([]int, ncols)
	rd.children = make([][]int, ncols)
	rd.byName = make(map[string]int, ncols)
	for i := range rd.cols {
		at := h.off
		if err := h.meta(&rd.rawMeta[i]); err != nil {
			return nil, columnError(err, i, "")
		}
		if err := rd.parseColumnMeta(i); err != nil {
			e := newError(asFormat(err))
			e.Index, e.Column, e.Offset = i, rd.cols[i].Name, at
			return nil, e
		}
	}
	rd.starts = make([]int64, ncols)
	// The columns' data begins after the table of their starts.
	dataStart := h.off + 8*int64(ncols)
	rd.dataAt = dataStart
	for i := range rd.starts {
		at := h.off
		if err := h.full(fixed[:8]); err != nil {
			return nil, err
		}
		rd.starts[i] = int64(binary.LittleEndian.Uint64(fixed[:8]))
		if rd.starts[i] < dataStart || rd.starts[i] > size-4 {
			h.off = at
			e := h.fail(fmt.Errorf("column start %d outside the file's data (%d to %d)", rd.starts[i], dataStart, size))
			return nil, columnError(e, i, rd.cols[i].Name)
		}
	}
	if err := rd.findEnds(); err != nil {
		return nil, err
	}
	rd.tables = make([]*blockTable, ncols)
	return rd, nil
}

// findEnds sets where each column's bytes end: at the start of the column
// stored after it (columns need not be stored in order), or at the end of
// the file. Each column starts at its own offset: two columns starting at
// one offset would share one block table, and the block tables of the
// columns together could then claim far more blocks than the file holds.
// With distinct starts the columns' byte ranges do not overlap, so their
// block descriptors together take at most the file's bytes.
func (rd *Reader) findEnds() error {
	order := make([]int, len(rd.starts))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := cmp.Compare(rd.starts[a], rd.starts[b]); c != 0 {
			return c
		}
		return a - b
	})
	rd.ends = make([]int64, len(rd.starts))
	for k, i := range order {
		rd.ends[i] = rd.size
		if k+1 < len(order) {
			next := order[k+1]
			if rd.starts[next] == rd.starts[i] {
				return rd.colErr(next, -1, rd.starts[i], fmt.Errorf("%w: column starts at %d, where column %d (%q) starts too", ErrFormat, rd.starts[i], i, rd.cols[i].Name))
			}
			rd.ends[i] = rd.starts[next]
		}
	}
	return nil
}

func columnError(err error, index int, name string) error {
	var e *Error
	if errors.As(err, &e) {
		e.Index = index
		if name != "" {
			e.Column = name
		}
	}
	return err
}

// parseColumnMeta fills cols[i] from its raw metadata.
func (rd *Reader) parseColumnMeta(i int) error {
	raw := &rd.rawMeta[i]
	c := &rd.cols[i]
	rd.parents[i] = -1
	for j := 0; j < raw.Len(); j++ {
		k, v := raw.Key(j), raw.Value(j)
		switch k {
		case KeyName:
			c.Name = string(v)
		case KeyType:
			t, err := ParseValueType(string(v))
			if err != nil {
				return err
			}
			c.Type = t
		case KeyArray:
			c.Array = true
		case KeyValues:
			c.Values = true
		case KeyParent:
			c.Parent = string(v)
		default:
			c.Meta.Set(k, v)
		}
	}
	if !raw.Has(KeyName) {
		return errors.New("column has no trevni.name")
	}
	if !raw.Has(KeyType) {
		return errors.New("column has no trevni.type")
	}
	if _, dup := rd.byName[c.Name]; dup {
		return fmt.Errorf("duplicate column name %q", c.Name)
	}
	if c.Parent != "" {
		p, ok := rd.byName[c.Parent]
		if !ok {
			return fmt.Errorf("no column named %q precedes it as its parent", c.Parent)
		}
		if !rd.cols[p].Array {
			return fmt.Errorf("parent %q is not an array", c.Parent)
		}
		if c.Values {
			return errors.New("a child column cannot have trevni.values")
		}
		rd.parents[i] = p
		rd.children[p] = append(rd.children[p], i)
	}
	if c.Values && c.Array {
		return errors.New("an array column cannot have trevni.values")
	}
	rd.byName[c.Name] = i
	return nil
}

// RowCount returns the number of top-level rows.
func (rd *Reader) RowCount() int64 { return rd.rowCount }

// SetReadAhead sets ReaderOptions.ReadAhead for the ColumnReaders made
// from now on; those made before keep theirs. A caller reading on as many
// goroutines as there are cores has no core left for reading ahead, which
// then only costs each column a second block of memory. It must not be
// called while another goroutine makes a ColumnReader of rd.
func (rd *Reader) SetReadAhead(on bool) { rd.opts.ReadAhead = on }

// applyOptions fills in the defaults of rd's options (the largest block,
// the block memory) and sets up its budget and codecs from them: the same
// for a file's reader and a source's.
func (rd *Reader) applyOptions() {
	if rd.opts.MaxBlockSize <= 0 {
		rd.opts.MaxBlockSize = DefaultMaxBlockSize
	}
	switch {
	case rd.opts.BlockMemory == 0:
		rd.budget.Limit = DefaultBlockMemory
	case rd.opts.BlockMemory < 0:
		rd.budget.Limit = -1
	default:
		rd.budget.Limit = rd.opts.BlockMemory
	}
	rd.codecs = codecSet{custom: rd.opts.Codecs}
}

// Size returns the size of the file in bytes.
func (rd *Reader) Size() int64 { return rd.size }

// Meta returns the file metadata. It must not be modified.
func (rd *Reader) Meta() *MetaData { return &rd.meta }

// Codec returns the file's default codec name ("null" when unset).
func (rd *Reader) Codec() string {
	if c := rd.meta.GetString(KeyCodec); c != "" {
		return c
	}
	return CodecNull
}

// Checksum returns the file's default checksum name ("null" when unset).
func (rd *Reader) Checksum() string {
	if c := rd.meta.GetString(KeyChecksum); c != "" {
		return c
	}
	return ChecksumNull
}

// NumColumns returns the number of columns.
func (rd *Reader) NumColumns() int { return len(rd.cols) }

// Column returns the metadata of column i, or an error wrapping ErrUsage
// when there is no column i. The result must not be modified. The other
// accessors taking a column number without returning an error (Parent,
// Children, ColumnStart, ...) expect one in [0, NumColumns()), as a slice
// index does.
func (rd *Reader) Column(i int) (*ColumnMeta, error) {
	if i < 0 || i >= len(rd.cols) {
		return nil, fmt.Errorf("%w: no column %d of %d", ErrUsage, i, len(rd.cols))
	}
	return &rd.cols[i], nil
}

// RawColumnMeta returns every metadata entry of column i as stored, in
// order, reserved keys included. It must not be modified.
func (rd *Reader) RawColumnMeta(i int) *MetaData { return &rd.rawMeta[i] }

// ColumnIndex returns the number of the column with the given name.
func (rd *Reader) ColumnIndex(name string) (int, bool) {
	i, ok := rd.byName[name]
	return i, ok
}

// Parent returns the number of column i's parent, or -1.
func (rd *Reader) Parent(i int) int { return rd.parents[i] }

// Children returns the numbers of column i's direct children.
func (rd *Reader) Children(i int) []int { return rd.children[i] }

// Subtree returns column i and the columns nested in it, in column order.
func (rd *Reader) Subtree(i int) []int { return rd.appendSubtree(nil, i) }

func (rd *Reader) appendSubtree(out []int, i int) []int {
	out = append(out, i)
	for _, k := range rd.children[i] {
		out = rd.appendSubtree(out, k)
	}
	return out
}

// ColumnStart returns the file offset where column i begins.
func (rd *Reader) ColumnStart(i int) int64 { return rd.starts[i] }

// ColumnCodec returns the name of the codec column i uses.
func (rd *Reader) ColumnCodec(i int) string {
	if c := rd.cols[i].Codec(); c != "" {
		return c
	}
	return rd.Codec()
}

// ColumnChecksum returns the name of the checksum column i uses.
func (rd *Reader) ColumnChecksum(i int) string {
	if c := rd.cols[i].Checksum(); c != "" {
		return c
	}
	return rd.Checksum()
}

// Blocks returns the block descriptors of column i, reading them on first
// use. The result must not be modified.
func (rd *Reader) Blocks(i int) ([]BlockInfo, error) {
	t, err := rd.table(i)
	if err != nil {
		return nil, err
	}
	return t.blocks, nil
}

func (rd *Reader) table(i int) (*blockTable, error) {
	if i < 0 || i >= len(rd.cols) {
		return nil, fmt.Errorf("%w: no column %d", ErrUsage, i)
	}
	rd.mu.Lock()
	defer rd.mu.Unlock()
	if t := rd.tables[i]; t != nil {
		return t, t.err
	}
	if rd.src != nil {
		t := &blockTable{}
		t.err = rd.sourceTable(i, t)
		rd.tables[i] = t
		return t, t.err
	}
	read := func() *blockTable {
		if rd.opts.Prefetch != nil {
			rd.opts.Prefetch(rd.starts[i], rd.columnEnd(i)-rd.starts[i])
		}
		t := &blockTable{}
		t.err = rd.readTable(i, t)
		return t
	}
	var t *blockTable
	if rd.opts.Tables != nil {
		st, shared := rd.opts.Tables.table(rd, i, read)
		t = st
		if shared {
			// The descriptors are shared, not changed once read; the
			// codec is this Reader's (its options may add codecs).
			c := *st
			if c.codec, c.err = rd.codecs.lookup(c.codecName); c.err != nil {
				c.err = rd.colErr(i, -1, -1, c.err)
			}
			t = &c
		}
	} else {
		t = read()
	}
	rd.tables[i] = t
	return t, t.err
}

func (rd *Reader) colErr(i, block int, off int64, err error) *Error {
	e := newError(err)
	e.Index, e.Column, e.Block, e.Offset = i, rd.cols[i].Name, block, off
	return e
}

func (rd *Reader) readTable(i int, t *blockTable) error {
	var err error
	t.codecName = rd.ColumnCodec(i)
	if t.codec, err = rd.codecs.lookup(t.codecName); err != nil {
		return rd.colErr(i, -1, -1, err)
	}
	if t.checksum, err = checksumSize(rd.ColumnChecksum(i)); err != nil {
		return rd.colErr(i, -1, -1, err)
	}
	start, end := rd.starts[i], rd.columnEnd(i)
	// Read the block table without straying into the next column, with a
	// buffer no larger than the column (a file of many small columns
	// would otherwise make 16 KiB of garbage for each).
	h := &headerReader{br: bufio.NewReaderSize(io.NewSectionReader(rd.ra, start, end-start), int(min(16<<10, max(end-start, 16)))), off: start, size: rd.size}
	var fixed [12]byte
	if err := h.full(fixed[:4]); err != nil {
		return columnError(err, i, rd.cols[i].Name)
	}
	n := binary.LittleEndian.Uint32(fixed[:4])
	if int64(n)*12 > end-h.off {
		return rd.colErr(i, -1, start, fmt.Errorf("%w: block count %d out of range for the column's %d bytes", ErrFormat, n, end-h.off))
	}
	col := &rd.cols[i]
	// Grow the table as descriptors are actually read, rather than trust
	// the count for one large allocation.
	t.blocks = make([]BlockInfo, 0, min(n, 1024))
	var firstRow int64
	for b := 0; b < int(n); b++ {
		at := h.off
		if err := h.full(fixed[:12]); err != nil {
			return rd.colErr(i, b, at, err)
		}
		t.blocks = append(t.blocks, BlockInfo{})
		bi := &t.blocks[b]
		bi.Rows = int64(binary.LittleEndian.Uint32(fixed[0:]))
		bi.UncompressedSize = int(binary.LittleEndian.Uint32(fixed[4:]))
		bi.CompressedSize = int(binary.LittleEndian.Uint32(fixed[8:]))
		bi.FirstRow = firstRow
		firstRow += bi.Rows
		if bi.UncompressedSize > math.MaxInt32 || bi.CompressedSize > math.MaxInt32 {
			return rd.colErr(i, b, at, fmt.Errorf("%w: block sizes out of range (uncompressed %d, compressed %d)", ErrFormat, bi.UncompressedSize, bi.CompressedSize))
		}
		if col.Values {
			v, raw, err := readFirstValue(h, col.Type)
			if err != nil {
				return rd.colErr(i, b, at, fmt.Errorf("first value: %w", asFormat(unwrapLocation(err))))
			}
			bi.FirstValue, bi.firstValue = v, raw
		}
	}
	if firstRow != rd.rowCount {
		return rd.colErr(i, -1, start, fmt.Errorf("%w: blocks hold %d rows, the file %d", ErrFormat, firstRow, rd.rowCount))
	}
	off := h.off
	for b := range t.blocks {
		bi := &t.blocks[b]
		bi.Offset = off
		off += int64(bi.CompressedSize) + int64(t.checksum)
		if off > end {
			if end < rd.size {
				return rd.colErr(i, b, bi.Offset, fmt.Errorf("%w: block of %d bytes runs past the start of the next column (offset %d)", ErrFormat, bi.CompressedSize+t.checksum, end))
			}
			return rd.colErr(i, b, bi.Offset, fmt.Errorf("%w: block of %d bytes runs past the end of the file (%d bytes)", ErrFormat, bi.CompressedSize+t.checksum, rd.size))
		}
	}
	t.end = off
	return nil
}

// DataEnd returns the offset just past the last byte the file's columns
// use: the end of the last block (with its checksum) of the column stored
// last, or of its block table when it has no block; for a file of no
// columns, the end of the header. A well-formed file ends there: bytes
// after it belong to no column (validate reports them). It reads that
// column's block table, and fails as Blocks does.
func (rd *Reader) DataEnd() (int64, error) {
	if len(rd.starts) == 0 {
		return rd.dataAt, nil
	}
	last := 0
	for i, s := range rd.starts {
		if s > rd.starts[last] {
			last = i
		}
	}
	t, err := rd.table(last)
	if err != nil {
		return 0, err
	}
	return t.end, nil
}

// ColumnRange returns the byte range of column i in the file: its block
// table and blocks start at off and take n bytes.
func (rd *Reader) ColumnRange(i int) (off, n int64) {
	return rd.starts[i], rd.columnEnd(i) - rd.starts[i]
}

// columnEnd returns where column i's bytes end: at the next column's start
// (columns need not be stored in order), or at the end of the file.
func (rd *Reader) columnEnd(i int) int64 { return rd.ends[i] }

// readFirstValue reads one value of type t from the header stream.
func readFirstValue(h *headerReader, t ValueType) (any, []byte, error) {
	var raw []byte
	switch t {
	case Null:
	case Boolean:
		raw = make([]byte, 1)
	case Int, Long:
		for {
			c, err := h.br.ReadByte()
			if err != nil {
				return nil, nil, io.ErrUnexpectedEOF
			}
			h.off++
			raw = append(raw, c)
			if c < 0x80 {
				break
			}
			if len(raw) >= 10 {
				return nil, nil, errLongVarint
			}
		}
	case String, Bytes:
		n, err := h.count("first value length", 1)
		if err != nil {
			return nil, nil, err
		}
		var e encoder
		e.writeInt(int32(n))
		raw = append(e.b, make([]byte, n)...)
		if err := h.full(raw[len(e.b):]); err != nil {
			return nil, nil, err
		}
	default:
		raw = make([]byte, t.fixedSize())
	}
	if (t == Boolean || t.fixedSize() > 0) && len(raw) > 0 {
		if err := h.full(raw); err != nil {
			return nil, nil, err
		}
	}
	var d decoder
	d.reset(raw)
	v, err := d.readValue(t)
	return v, raw, err
}

// ColumnReader reads the values of one column in order, row by row. It
// holds one decompressed block at a time in buffers it reuses.
//
// For each row call StartRow; then, for an array column, NextLength gives
// the number of values that follow. A column with a parent has one value (or
// one length and its values) per element of its parent in the row.
type ColumnReader struct {
	rd    *Reader
	index int
	meta  *ColumnMeta
	typ   ValueType
	table *blockTable
	src   SourceColumn // the column's blocks, for a source reader

	block    int   // current block, -1 before the first
	row      int64 // the row last started, -1 before the first
	blockEnd int64 // first row after the current block (setBlockEnd)
	rowEnd   int64 // min(blockEnd, the file's rows): StartRow's inlined test

	data []byte // decompressed block
	dec  decoder

	aux []*ColumnReader // readers of the ancestors, for seeking

	strict bool // check that every block is consumed exactly (Validate)

	readAhead bool
	aheadEnd  int64 // no block starting at or past this row is read ahead

	loadedBlocks int           // blocks loaded, for Loaded
	loadedBytes  int64         // their stored bytes
	ahead        chan *fetched // the next block, being fetched
	spare        *fetched      // a buffer for the next fetch

	share *budget.Share // the bytes of block buffers held, in rd.budget

	peer      *ColumnReader // ShareBlocks: a reader ahead of this one on the same column
	dataBlock int           // the block data holds, -1 for none
	shared    int           // blocks copied from peer
}

// Values returns a reader positioned before the first row of column i.
func (rd *Reader) Values(i int) (*ColumnReader, error) {
	t, err := rd.table(i)
	if err != nil {
		return nil, err
	}
	c := &ColumnReader{rd: rd, index: i, meta: &rd.cols[i], typ: rd.cols[i].Type, table: t, block: -1, row: -1, dataBlock: -1, readAhead: rd.opts.ReadAhead, aheadEnd: math.MaxInt64}
	if rd.src != nil {
		if c.src, err = rd.src.OpenColumn(i); err != nil {
			return nil, rd.colErr(i, -1, -1, err)
		}
	}
	c.share = rd.budget.Register(c)
	return c, nil
}

// ValuesByName returns a reader of the named column.
func (rd *Reader) ValuesByName(name string) (*ColumnReader, error) {
	i, ok := rd.byName[name]
	if !ok {
		return nil, fmt.Errorf("%w: no column named %q", ErrUsage, name)
	}
	return rd.Values(i)
}

// Meta returns the column's metadata.
func (c *ColumnReader) Meta() *ColumnMeta { return c.meta }

// Row returns the number of the row last started, or -1.
func (c *ColumnReader) Row() int64 { return c.row }

// Block returns the number of the current block, or -1.
func (c *ColumnReader) Block() int { return c.block }

func (c *ColumnReader) fail(err error) *Error {
	e := c.rd.colErr(c.index, c.block, -1, err)
	e.Row = c.row
	return e
}

func (c *ColumnReader) failData(err error) error {
	if errors.Is(err, errTruncated) || errors.Is(err, errIntVarint) || errors.Is(err, errLongVarint) ||
		errors.Is(err, errNegLen) || errors.Is(err, errBadUTF8) {
		err = fmt.Errorf("%w: %w", ErrFormat, err)
	}
	return c.fail(err)
}

// StartRow moves to the next top-level row. It returns io.EOF after the
// last row.
func (c *ColumnReader) StartRow() error {
	if r := c.row + 1; r < c.rowEnd {
		c.row = r // the common case, inlined: within the block
		return nil
	}
	return c.startRow()
}

// setBlockEnd sets the first row after the current block.
func (c *ColumnReader) setBlockEnd(row int64) {
	c.blockEnd = row
	c.rowEnd = min(row, c.rd.rowCount)
}

// startRow is StartRow at the end of a block or of the file.
func (c *ColumnReader) startRow() error {
	if c.row+1 >= c.rd.rowCount {
		if c.strict && c.row < c.rd.rowCount {
			if err := c.checkConsumed(); err != nil {
				return err
			}
		}
		c.row = c.rd.rowCount
		return io.EOF
	}
	c.row++
	for c.row >= c.blockEnd {
		if c.strict {
			if err := c.checkConsumed(); err != nil {
				return err
			}
		}
		if err := c.loadBlock(c.block + 1); err != nil {
			return err
		}
	}
	return nil
}

// loadBlock reads, decompresses and checks block b.
func (c *ColumnReader) loadBlock(b int) error {
	if b >= len(c.table.blocks) {
		c.block = b
		return c.fail(fmt.Errorf("%w: no block %d", ErrFormat, b))
	}
	var f *fetched
	if c.ahead != nil {
		f = <-c.ahead
		c.ahead = nil
		if f.block != b { // a seek went elsewhere: fetch the block wanted
			c.spare = f
			f = nil
		}
	}
	copied := false
	if f == nil {
		f = c.spare
		if f == nil {
			f = &fetched{}
		}
		c.spare = nil
		if f.data == nil && !c.readsAhead(b) {
			// Nothing reads ahead into a second buffer: the block
			// left behind gives its own, so that a column holds one.
			f.data, c.data, c.dataBlock = c.data, nil, -1
		}
		if p := c.peer; p != nil && p.dataBlock == b {
			c.copyBlock(b, f, p.data)
			copied = true
		} else {
			c.fetch(b, f)
		}
	}
	c.block = b
	if f.err != nil {
		c.spare = f
		f.err.Row = c.row
		return f.err
	}
	if copied {
		c.shared++
	} else {
		c.loadedBlocks++
		c.loadedBytes += int64(c.table.blocks[b].CompressedSize + c.table.checksum)
	}
	// The buffer of the block left behind takes the next fetch, in f,
	// which nothing else holds now.
	c.data, f.data = f.data, c.data
	old := f
	c.dataBlock = b
	bi := &c.table.blocks[b]
	c.dec.reset(c.data)
	c.setBlockEnd(bi.FirstRow + bi.Rows)
	if err := c.checkRows(bi); err != nil {
		return err
	}
	if c.readsAhead(b) {
		ch := make(chan *fetched, 1)
		c.ahead = ch
		go func() {
			c.fetch(b+1, old)
			ch <- old
		}()
	} else {
		c.spare = old
	}
	return nil
}

// readsAhead reports whether, block b loaded, the next one is read ahead.
func (c *ColumnReader) readsAhead(b int) bool {
	return c.readAhead && c.peer == nil && b+1 < len(c.table.blocks) && c.table.blocks[b+1].FirstRow < c.aheadEnd
}

// blockSlack is the room a block's buffer has past its size: a codec
// reads one byte more to check that nothing follows, and zstd decodes
// faster with a little room to spare.
const blockSlack = 64

// fetched is a block read and decompressed, or the error met doing so.
type fetched struct {
	block int
	data  []byte
	err   *Error
}

// fetch reads, decompresses and checks block b into f's buffer. It touches
// nothing else of c but what does not change, so it may run in another
// goroutine.
func (c *ColumnReader) fetch(b int, f *fetched) {
	if c.src != nil {
		c.fetchSource(b, f)
		return
	}
	f.block, f.err = b, nil
	bi := &c.table.blocks[b]
	fail := func(err error) {
		e := c.rd.colErr(c.index, b, bi.Offset, err)
		f.err = e
	}
	if bi.UncompressedSize > c.rd.opts.MaxBlockSize {
		fail(fmt.Errorf("%w: block of %d uncompressed bytes exceeds the %d bytes of ReaderOptions.MaxBlockSize", ErrLimit, bi.UncompressedSize, c.rd.opts.MaxBlockSize))
		return
	}
	n := bi.CompressedSize + c.table.checksum
	// A block of the null codec is read straight into the data buffer,
	// its checksum after it; another into a buffer of the reader's
	// (takeRaw), and decompressed from there.
	null := isNullCodec(c.table.codec)
	dataWant := min(bi.UncompressedSize, maxExpansion(c.table.codec, bi.CompressedSize)) + blockSlack
	if null {
		dataWant = max(dataWant, n)
	}
	budget := &c.rd.budget
	limitErr := func() {
		fail(fmt.Errorf("%w: block of %d stored and %d uncompressed bytes would take the block buffers of this reader past the %d bytes of ReaderOptions.BlockMemory", ErrLimit, n, bi.UncompressedSize, budget.Limit))
	}
	// Reserve what the buffer must grow by before it does; settle on
	// what it really took afterwards. A buffer that grows takes some
	// room more, so that the next blocks, of about the same size, find
	// it large enough instead of leaving one buffer after another to
	// the garbage collector.
	before := int64(cap(f.data))
	dataCap := cap(f.data)
	if dataCap < dataWant {
		dataCap = roomy(dataWant)
	}
	reserved := int64(max(0, dataCap-cap(f.data)))
	if !budget.Take(c.share, reserved) {
		// Without the room more, if that fits.
		dataCap = max(dataWant, cap(f.data))
		reserved = int64(max(0, dataCap-cap(f.data)))
		if !budget.Take(c.share, reserved) {
			limitErr()
			return
		}
	}
	defer func() { budget.Adjust(c.share, int64(cap(f.data))-before-reserved) }()
	// The whole block is reserved: take it at once rather than grow to it.
	if cap(f.data) < dataCap {
		f.data = make([]byte, 0, dataCap)
	}
	var stored []byte
	if null {
		stored = f.data[:n]
	} else {
		raw, ok := c.rd.takeRaw(n)
		if !ok {
			limitErr()
			return
		}
		defer c.rd.putRaw(raw)
		stored = raw
	}
	// ReadAt may report io.EOF along with a full read at the end of input.
	if k, err := c.rd.ra.ReadAt(stored, bi.Offset); k < n {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		fail(fmt.Errorf("reading block: %w", err))
		return
	}
	var want uint32
	if c.table.checksum == 4 {
		want = binary.BigEndian.Uint32(stored[bi.CompressedSize:])
	}
	var err error
	switch {
	case !null:
		f.data, err = c.table.codec.Decompress(f.data[:0], stored[:bi.CompressedSize], bi.UncompressedSize)
	case bi.CompressedSize == bi.UncompressedSize:
		f.data = f.data[:bi.CompressedSize] // in place: nothing to decompress
	default:
		// Sizes that disagree: the codec's error.
		if _, err = c.table.codec.Decompress(nil, stored[:bi.CompressedSize], bi.UncompressedSize); err == nil {
			err = fmt.Errorf("block holds %d bytes, stated size %d", bi.CompressedSize, bi.UncompressedSize)
		}
	}
	if err != nil {
		if _, ok := c.table.codec.(builtinCodec); !ok {
			err = fmt.Errorf("%s codec: %w", c.table.codecName, err)
		}
		fail(asFormat(err))
		return
	}
	if c.table.checksum == 4 && !c.rd.opts.SkipChecksums {
		got := crc32.Checksum(f.data, crcTable)
		if !c.rd.crcAccepted(want, got, c.table.codecName == CodecNull) {
			fail(fmt.Errorf("%w: stored CRC-32 %08x, data has %08x", ErrChecksum, want, got))
		}
	}
}

// roomy returns the capacity a block buffer growing to hold n bytes takes:
// an eighth more, up to 64 KiB more, in whole pages.
func roomy(n int) int {
	const page = 4 << 10
	m := n + min(n/8, 64<<10)
	if m > math.MaxInt32-page {
		return n
	}
	return (m + page - 1) &^ (page - 1)
}

// crcAccepted reports whether a block's stored CRC-32 want is accepted for
// data whose CRC-32 is got: when they are equal, or when want is the zero
// Java's writer stores for every block of the null codec, unless the
// reader was asked to be strict (ReaderOptions.StrictChecksums); always
// under ReaderOptions.SkipChecksums.
func (rd *Reader) crcAccepted(want, got uint32, nullCodec bool) bool {
	return want == got || want == 0 && nullCodec && !rd.opts.StrictChecksums || rd.opts.SkipChecksums
}

// copyBlock puts a copy of data, block b as another reader of the column
// decompressed and checked it, into f's buffers, within the reader's
// block memory.
func (c *ColumnReader) copyBlock(b int, f *fetched, data []byte) {
	f.block, f.err = b, nil
	before := int64(cap(f.data))
	reserved := int64(max(0, len(data)+blockSlack-cap(f.data)))
	budget := &c.rd.budget
	if !budget.Take(c.share, reserved) {
		bi := &c.table.blocks[b]
		f.err = c.rd.colErr(c.index, b, bi.Offset, fmt.Errorf("%w: block of %d uncompressed bytes would take the block buffers of this reader past the %d bytes of ReaderOptions.BlockMemory", ErrLimit, len(data), budget.Limit))
		return
	}
	if cap(f.data) < len(data)+blockSlack {
		f.data = make([]byte, 0, len(data)+blockSlack)
	}
	f.data = append(f.data[:0], data...)
	budget.Adjust(c.share, int64(cap(f.data))-before-reserved)
}

// ShareBlocks makes c take each block it needs from peer, another reader
// of the same column of the same file, when peer holds that block at the
// time: a copy of the decompressed, checked bytes instead of a second
// read from storage, decompression and checksum. It is for a caller that
// reads the same rows of a column twice, peer first (a filter evaluating
// a row before the record is assembled): both readers must be used by one
// goroutine. c then reads no block ahead. ShareBlocks(nil) ends the
// sharing. Blocks taken from peer are counted by Shared, not Loaded.
func (c *ColumnReader) ShareBlocks(peer *ColumnReader) error {
	if peer != nil && (peer.rd != c.rd || peer.index != c.index || peer == c) {
		return fmt.Errorf("%w: ShareBlocks needs another reader of the same column of the same file", ErrUsage)
	}
	c.peer = peer
	return nil
}

// Shared returns how many blocks c took from its peer (ShareBlocks)
// instead of reading them.
func (c *ColumnReader) Shared() int { return c.shared }

// SetReadAhead turns on reading and decompressing the next block in
// another goroutine while the current one is read, so that reading many
// columns uses several cores. It costs one more block of memory. Close the
// reader (or read to the end) to let the last fetch finish.
func (c *ColumnReader) SetReadAhead(on bool) { c.readAhead = on }

// SetReadAheadEnd bounds reading ahead (SetReadAhead) to the blocks that
// start before top-level row end: a reader that will stop there fetches
// no block it will not read. math.MaxInt64 removes the bound.
func (c *ColumnReader) SetReadAheadEnd(end int64) { c.aheadEnd = end }

// Loaded returns how many blocks the ColumnReader has read and
// decompressed, counting a block again each time a seek or a pass reads it
// again, and their stored bytes (checksums included). Blocks fetched ahead
// (SetReadAhead) count when they are used.
func (c *ColumnReader) Loaded() (blocks int, bytes int64) { return c.loadedBlocks, c.loadedBytes }

// Close waits for a block being read ahead and releases the buffers.
func (c *ColumnReader) Close() {
	if c.ahead != nil {
		<-c.ahead
		c.ahead = nil
	}
	c.data, c.spare, c.dataBlock = nil, nil, -1
	if c.src != nil {
		c.src.Close()
	}
	c.rd.budget.Release(c.share)
	for _, a := range c.aux {
		a.Close()
	}
}

// checkRows rejects a block claiming more rows than its bytes can hold, so
// that a hostile descriptor cannot make iteration spin.
func (c *ColumnReader) checkRows(bi *BlockInfo) error {
	if c.meta.Array || c.meta.Parent != "" {
		return nil
	}
	size := int64(len(c.data))
	var ok bool
	switch c.typ {
	case Null:
		ok = size == 0
	case Boolean:
		ok = bi.Rows <= 8*size && size <= (bi.Rows+7)/8
	default:
		ok = bi.Rows*int64(c.typ.minSize()) <= size
	}
	if !ok {
		return c.fail(fmt.Errorf("%w: block of %d bytes cannot hold %d %s values", ErrFormat, size, bi.Rows, c.typ))
	}
	return nil
}

// NextLength reads the length of the next array of an array column.
func (c *ColumnReader) NextLength() (int, error) {
	if !c.meta.Array {
		return 0, c.fail(fmt.Errorf("%w: not an array column", ErrUsage))
	}
	n, err := c.dec.readLength()
	if err != nil {
		return 0, c.failData(err)
	}
	if n < 0 {
		return 0, c.failData(errNegLen)
	}
	if min := c.typ.minSize(); min > 0 && int64(n)*int64(min) > int64(c.dec.remaining()) ||
		c.typ == Boolean && int64(n) > 8*int64(c.dec.remaining())+8 {
		return 0, c.fail(fmt.Errorf("%w: array length %d exceeds the block's remaining %d bytes", ErrFormat, n, c.dec.remaining()))
	}
	return int(n), nil
}

func (c *ColumnReader) check(t ValueType) error {
	if c.typ != t {
		return c.fail(fmt.Errorf("%w: reading %s from a %s column", ErrUsage, t, c.typ))
	}
	return nil
}

// ReadBool reads a boolean value.
func (c *ColumnReader) ReadBool() (bool, error) {
	if c.typ != Boolean {
		return false, c.check(Boolean)
	}
	v, err := c.dec.readBool()
	if err != nil {
		return false, c.failData(err)
	}
	return v, nil
}

// ReadInt reads an int value.
func (c *ColumnReader) ReadInt() (int32, error) {
	if c.typ != Int {
		return 0, c.check(Int)
	}
	v, err := c.dec.readInt()
	if err != nil {
		return 0, c.failData(err)
	}
	return v, nil
}

// ReadLong reads a long value.
func (c *ColumnReader) ReadLong() (int64, error) {
	if c.typ != Long {
		return 0, c.check(Long)
	}
	v, err := c.dec.readLong()
	if err != nil {
		return 0, c.failData(err)
	}
	return v, nil
}

// ReadFixed32 reads a fixed32 value.
func (c *ColumnReader) ReadFixed32() (int32, error) {
	if c.typ != Fixed32 {
		return 0, c.check(Fixed32)
	}
	v, err := c.dec.readFixed32()
	if err != nil {
		return 0, c.failData(err)
	}
	return int32(v), nil
}

// ReadFixed64 reads a fixed64 value.
func (c *ColumnReader) ReadFixed64() (int64, error) {
	if c.typ != Fixed64 {
		return 0, c.check(Fixed64)
	}
	v, err := c.dec.readFixed64()
	if err != nil {
		return 0, c.failData(err)
	}
	return int64(v), nil
}

// ReadFloat reads a float value.
func (c *ColumnReader) ReadFloat() (float32, error) {
	if c.typ != Float {
		return 0, c.check(Float)
	}
	v, err := c.dec.readFixed32()
	if err != nil {
		return 0, c.failData(err)
	}
	return math.Float32frombits(v), nil
}

// ReadDouble reads a double value.
func (c *ColumnReader) ReadDouble() (float64, error) {
	if c.typ != Double {
		return 0, c.check(Double)
	}
	v, err := c.dec.readFixed64()
	if err != nil {
		return 0, c.failData(err)
	}
	return math.Float64frombits(v), nil
}

// ReadBytes reads a bytes or string value without copying it: the result
// aliases the reader's block buffer and is valid only until the reader moves
// to another block. Strings are not checked for valid UTF-8.
func (c *ColumnReader) ReadBytes() ([]byte, error) {
	if c.typ != Bytes && c.typ != String {
		return nil, c.check(Bytes)
	}
	v, err := c.dec.readBytes()
	if err != nil {
		return nil, c.failData(err)
	}
	return v, nil
}

// ReadString reads a string value, which must be valid UTF-8 (Java rejects
// invalid UTF-8 too).
func (c *ColumnReader) ReadString() (string, error) {
	if c.typ != String {
		return "", c.check(String)
	}
	v, err := c.dec.readValue(String)
	if err != nil {
		return "", c.failData(err)
	}
	return v.(string), nil
}

// Value reads the next value as a Go value: nil, bool, int32 (int and
// fixed32), int64 (long and fixed64), float32, float64, string or []byte (a
// copy).
func (c *ColumnReader) Value() (any, error) {
	v, err := c.dec.readValue(c.typ)
	if err != nil {
		return nil, c.failData(err)
	}
	return v, nil
}

// Skip skips the next value.
func (c *ColumnReader) Skip() error {
	if err := c.dec.skip(c.typ); err != nil {
		return c.failData(err)
	}
	return nil
}

// Next starts the next row of a top-level, non-array column and returns its
// value. It returns io.EOF after the last row.
func (c *ColumnReader) Next() (any, error) {
	if c.meta.Array || c.meta.Parent != "" {
		return nil, c.fail(fmt.Errorf("%w: Next reads only top-level columns that are not arrays", ErrUsage))
	}
	if err := c.StartRow(); err != nil {
		return nil, err
	}
	return c.Value()
}

// BlockStats returns the per-block statistics stored for column i (package
// format/stats, under stats.MetaKey), checked against the column's block
// descriptors: the same type and array flag, as many blocks, the same rows
// in each. It returns nil and no error when the column has none, and nil
// with an error that says why when they do not agree with the file (a
// reader may report it and read every block).
func (rd *Reader) BlockStats(i int) (*stats.Column, error) {
	t, err := rd.table(i)
	if err != nil {
		return nil, err
	}
	meta := &rd.cols[i]
	raw, ok := rd.rawMeta[i].Get(stats.MetaKey)
	if !ok {
		return nil, nil
	}
	c, err := stats.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("column %q: %s: %w", meta.Name, stats.MetaKey, err)
	}
	switch {
	case c.Type != stats.Type(meta.Type) || c.Array != meta.Array:
		return nil, fmt.Errorf("column %q: %s describes a %v column (array %v), not %v (array %v)",
			meta.Name, stats.MetaKey, c.Type, c.Array, meta.Type, meta.Array)
	case len(c.Blocks) != len(t.blocks):
		return nil, fmt.Errorf("column %q: %s has %d blocks, the column %d", meta.Name, stats.MetaKey, len(c.Blocks), len(t.blocks))
	}
	for b := range t.blocks {
		if c.Blocks[b].Rows != t.blocks[b].Rows {
			return nil, fmt.Errorf("column %q block %d: %s says %d rows, the block %d",
				meta.Name, b, stats.MetaKey, c.Blocks[b].Rows, t.blocks[b].Rows)
		}
	}
	return c, nil
}
