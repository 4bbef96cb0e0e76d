package trevni1

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"strconv"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/avrobin"
	"github.com/trevni-go/trevni/internal/budget"
)

// ReaderOptions configures a Reader. The zero value is the default.
type ReaderOptions struct {
	// MaxBlockSize bounds a block's stored and uncompressed sizes; 0 means
	// format.DefaultMaxBlockSize (64 MiB), as for version 2. A larger
	// block is an error wrapping ErrLimit, reported when the block is
	// read, before anything of it is allocated or decompressed.
	MaxBlockSize int64
	// BlockMemory bounds the bytes that all the ColumnReaders of the
	// Reader hold at once in block buffers, stored and decompressed; 0
	// means format.DefaultBlockMemory (512 MiB) and a negative value
	// means no bound. A block that would take more is an error wrapping
	// ErrLimit, reported before it is read.
	BlockMemory int64
	// ImpalaBooleans reads a boolean block whose values area is too short
	// (Impala's boolean size bug) as Impala's scanner did: the missing bits
	// are taken from the bytes that follow (the definition array). Without
	// it such a block is an error wrapping ErrImpalaBoolean.
	ImpalaBooleans bool
	// SkipChecksums reads blocks without verifying their checksums: a
	// block's CRC-32 and the Adler-32 or CRC-32 of its zlib or gzip
	// stream (bzip2's own block checks stay), to read what a damaged file
	// still holds (the trevni command's --skip-checksums). Its structure is
	// checked all the same.
	SkipChecksums bool
}

// BlockInfo describes one block of a column.
type BlockInfo struct {
	Rows         int64 // entries in the block (rows, for a column without repetition)
	Uncompressed int64 // bytes of values and level arrays
	Compressed   int64 // as stored in the descriptor: 0 when the file has no codec
	Start        int64 // file offset of the stored bytes
	Stored       int64 // bytes stored (not counting a checksum)
}

// Reader reads a version-1 Trevni file.
type Reader struct {
	r      io.ReaderAt
	size   int64
	opts   ReaderOptions
	rows   int64
	meta   Meta
	cols   []Column
	starts []int64
	blocks [][]BlockInfo
	codec  string
	check  string
	codecs *codecs
	budget budget.Budget[ColumnReader]
}

// header reads the header sequentially, knowing its offset.
type header struct {
	br   *bufio.Reader
	off  int64
	size int64
}

func (h *header) fail(what string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = fmt.Errorf("%w: file ends inside %s", ErrFormat, what)
	}
	return &Error{Column: -1, Block: -1, Row: -1, Offset: h.off, Err: err}
}

func (h *header) full(b []byte, what string) error {
	n, err := io.ReadFull(h.br, b)
	h.off += int64(n)
	if err != nil {
		return h.fail(what, err)
	}
	return nil
}

// zlong reads a zigzag varint of at most 64 bits.
func (h *header) zlong(what string) (int64, error) {
	b, err := h.br.Peek(avrobin.MaxVarintLen)
	v, n := avrobin.ConsumeLong(b)
	if n < 0 {
		if errors.Is(avrobin.ParseError(n), avrobin.ErrTruncated) && err != nil {
			return 0, h.fail(what, err) // the file ends inside the varint
		}
		return 0, h.fail(what, fmt.Errorf("%w: %w", ErrFormat, avrobin.ParseError(n)))
	}
	h.br.Discard(n) // peeked: cannot fail
	h.off += int64(n)
	return v, nil
}

// bytes reads a length-prefixed byte string.
func (h *header) bytes(what string) ([]byte, error) {
	at := h.off
	n, err := h.zlong(what)
	if err != nil {
		return nil, err
	}
	if n < 0 || n > h.size-h.off {
		return nil, &Error{Column: -1, Block: -1, Row: -1, Offset: at, Err: fmt.Errorf("%w: %s length %d with %d bytes left", ErrFormat, what, n, h.size-h.off)}
	}
	b := make([]byte, n)
	return b, h.full(b, what)
}

func (h *header) meta(m *Meta, what string) error {
	at := h.off
	n, err := h.zlong(what + " count")
	if err != nil {
		return err
	}
	// Every entry takes at least two bytes.
	if n < 0 || n > (h.size-h.off)/2 || n > 1<<31-1 {
		return &Error{Column: -1, Block: -1, Row: -1, Offset: at, Err: fmt.Errorf("%w: %s holds %d entries, impossible in %d bytes", ErrFormat, what, n, h.size-h.off)}
	}
	for range n {
		k, err := h.bytes(what + " key")
		if err != nil {
			return err
		}
		v, err := h.bytes(what + " value")
		if err != nil {
			return err
		}
		m.Add(string(k), v)
	}
	return nil
}

// NewReader reads the header and every block descriptor of a version-1
// file of size bytes.
func NewReader(r io.ReaderAt, size int64, opts *ReaderOptions) (*Reader, error) {
	cs, err := newCodecs()
	if err != nil {
		return nil, err
	}
	rd := &Reader{r: r, size: size, codecs: cs}
	if opts != nil {
		rd.opts = *opts
	}
	cs.skipChecksums = rd.opts.SkipChecksums
	if rd.opts.MaxBlockSize <= 0 {
		rd.opts.MaxBlockSize = format.DefaultMaxBlockSize
	}
	switch {
	case rd.opts.BlockMemory == 0:
		rd.budget.Limit = format.DefaultBlockMemory
	case rd.opts.BlockMemory < 0:
		rd.budget.Limit = -1
	default:
		rd.budget.Limit = rd.opts.BlockMemory
	}
	h := &header{br: bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 64<<10), size: size}
	var fixed [16]byte
	if err := h.full(fixed[:4], "the magic"); err != nil {
		return nil, err
	}
	if string(fixed[:4]) != Magic {
		return nil, &Error{Column: -1, Block: -1, Row: -1, Offset: 0, Err: fmt.Errorf("%w: magic % x is not Trv\\x01", ErrFormat, fixed[:4])}
	}
	if err := h.full(fixed[4:16], "the row and column counts"); err != nil {
		return nil, err
	}
	rows := int64(binary.LittleEndian.Uint64(fixed[4:]))
	ncols := int64(binary.LittleEndian.Uint32(fixed[12:]))
	if rows < 0 {
		return nil, &Error{Column: -1, Block: -1, Row: -1, Offset: 4, Err: fmt.Errorf("%w: negative row count %d", ErrFormat, rows)}
	}
	// A column takes at least a metadata count, a start and a block count.
	if ncols > (size-16)/13 {
		return nil, &Error{Column: -1, Block: -1, Row: -1, Offset: 12, Err: fmt.Errorf("%w: %d columns cannot fit in %d bytes", ErrFormat, ncols, size)}
	}
	rd.rows = rows
	if err := h.meta(&rd.meta, "file metadata"); err != nil {
		return nil, err
	}
	if rd.codec, err = canonicalCodec(rd.meta.GetString(KeyCodec)); err != nil {
		return nil, &Error{Column: -1, Block: -1, Row: -1, Offset: -1, Err: err}
	}
	if rd.check, err = canonicalChecksum(rd.meta.GetString(KeyChecksum)); err != nil {
		return nil, &Error{Column: -1, Block: -1, Row: -1, Offset: -1, Err: err}
	}
	rd.cols = make([]Column, ncols)
	for i := range rd.cols {
		c := &rd.cols[i]
		at := h.off
		if err := h.meta(&c.Meta, fmt.Sprintf("column %d metadata", i)); err != nil {
			return nil, err
		}
		if err := rd.parseColumn(i); err != nil {
			return nil, &Error{Column: i, Name: c.Name, Block: -1, Row: -1, Offset: at, Err: err}
		}
	}
	rd.starts = make([]int64, ncols)
	for i := range rd.starts {
		if err := h.full(fixed[:8], "the column starts"); err != nil {
			return nil, err
		}
		rd.starts[i] = int64(binary.LittleEndian.Uint64(fixed[:8]))
	}
	ends, err := rd.columnEnds(h.off)
	if err != nil {
		return nil, err
	}
	rd.blocks = make([][]BlockInfo, ncols)
	for i := range rd.cols {
		if err := rd.readTable(i, ends[i]); err != nil {
			return nil, err
		}
	}
	return rd, nil
}

// columnEnds returns where each column's bytes end: at the start of the
// column stored after it, or at the end of the file. Columns start after
// the header (which ends at dataStart), each at its own offset: two
// columns starting at one offset would share one block table, and their
// block tables together could then claim far more blocks than the file
// holds.
func (rd *Reader) columnEnds(dataStart int64) ([]int64, error) {
	order := make([]int, len(rd.starts))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := cmpInt64(rd.starts[a], rd.starts[b]); c != 0 {
			return c
		}
		return a - b
	})
	ends := make([]int64, len(rd.starts))
	for k, i := range order {
		start := rd.starts[i]
		if start < dataStart || start > rd.size-4 {
			return nil, rd.colErr(i, -1, -1, start, fmt.Errorf("%w: column starts at %d, outside the file's data (%d to %d)", ErrFormat, start, dataStart, rd.size))
		}
		ends[i] = rd.size
		if k+1 < len(order) {
			next := order[k+1]
			if rd.starts[next] == start {
				return nil, rd.colErr(next, -1, -1, start, fmt.Errorf("%w: column starts at %d, where column %d (%q) starts too", ErrFormat, start, i, rd.cols[i].Name))
			}
			ends[i] = rd.starts[next]
		}
	}
	return ends, nil
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func canonicalChecksum(name string) (string, error) {
	switch name {
	case "", "null", "none":
		return "", nil
	case ChecksumCRC32, "crc32":
		return ChecksumCRC32, nil
	}
	return "", fmt.Errorf("%w: unknown checksum %q (version 1 knows null and crc-32)", ErrCodec, name)
}

func (rd *Reader) parseColumn(i int) error {
	c := &rd.cols[i]
	name, ok := c.Meta.Get(KeyName)
	if !ok {
		return fmt.Errorf("%w: no %s", ErrFormat, KeyName)
	}
	c.Name = string(name)
	tn, ok := c.Meta.Get(KeyType)
	if !ok {
		return fmt.Errorf("%w: no %s", ErrFormat, KeyType)
	}
	t, err := ParseType(string(tn))
	if err != nil {
		return err
	}
	c.Type = t
	level := func(key string) (int, error) {
		v, ok := c.Meta.Get(key)
		if !ok {
			return 0, nil
		}
		n, err := strconv.Atoi(string(v))
		if err != nil || n < 0 || n > 1000 {
			return 0, fmt.Errorf("%w: %s %q is not a level from 0 to 1000", ErrFormat, key, v)
		}
		return n, nil
	}
	if c.MaxDef, err = level(KeyDefinition); err != nil {
		return err
	}
	if c.MaxRep, err = level(KeyRepetition); err != nil {
		return err
	}
	if _, ok := c.Meta.Get(KeyValues); ok {
		return fmt.Errorf("%w: %s (first values in block descriptors) is not supported: Impala never wrote it", ErrFormat, KeyValues)
	}
	if _, ok := c.Meta.Get(KeyArray); ok {
		return fmt.Errorf("%w: %s (row-major matrices) is not supported: Impala never wrote it", ErrFormat, KeyArray)
	}
	c.Codec = rd.codec
	if v, ok := c.Meta.Get(KeyCodec); ok {
		if c.Codec, err = canonicalCodec(string(v)); err != nil {
			return err
		}
	}
	c.Checksum = rd.check
	if v, ok := c.Meta.Get(KeyChecksum); ok {
		if c.Checksum, err = canonicalChecksum(string(v)); err != nil {
			return err
		}
	}
	return nil
}

func (rd *Reader) colErr(i, block int, row, off int64, err error) *Error {
	return &Error{Column: i, Name: rd.cols[i].Name, Block: block, Row: row, Offset: off, Err: err}
}

// readTable reads column i's block count and descriptors, which with the
// blocks they describe must end by end.
func (rd *Reader) readTable(i int, end int64) error {
	c := &rd.cols[i]
	start := rd.starts[i]
	var b4 [4]byte
	if err := readAt(rd.r, b4[:], start); err != nil {
		return rd.colErr(i, -1, -1, start, err)
	}
	n := int64(binary.LittleEndian.Uint32(b4[:]))
	if n > (end-start-4)/12 {
		return rd.colErr(i, -1, -1, start, fmt.Errorf("%w: %d blocks cannot fit in the column's %d bytes", ErrFormat, n, end-start-4))
	}
	table := make([]byte, 12*n)
	if err := readAt(rd.r, table, start+4); err != nil {
		return rd.colErr(i, -1, -1, start+4, fmt.Errorf("%w: block descriptors: %v", ErrFormat, err))
	}
	crc := int64(0)
	if c.Checksum != "" {
		crc = 4
	}
	pos := start + 4 + 12*n
	blocks := make([]BlockInfo, n)
	var total int64
	for b := range blocks {
		d := table[12*b:]
		bi := BlockInfo{
			Rows:         int64(binary.LittleEndian.Uint32(d)),
			Uncompressed: int64(binary.LittleEndian.Uint32(d[4:])),
			Compressed:   int64(binary.LittleEndian.Uint32(d[8:])),
			Start:        pos,
		}
		bi.Stored = bi.Uncompressed
		if c.Codec != "" {
			bi.Stored = bi.Compressed
		}
		pos += bi.Stored + crc
		if pos > end {
			what := "the end of the file"
			if end < rd.size {
				what = "the start of the next column"
			}
			return rd.colErr(i, b, -1, bi.Start, fmt.Errorf("%w: block of %d bytes runs past %s (offset %d)", ErrFormat, bi.Stored+crc, what, end))
		}
		// Each level entry takes at least one bit when there are levels.
		if bits := levelBits(c.MaxDef) + levelBits(c.MaxRep); bits > 0 && bi.Rows > bi.Uncompressed*8/int64(bits) {
			return rd.colErr(i, b, -1, start+4+12*int64(b), fmt.Errorf("%w: %d entries cannot have level arrays in %d bytes", ErrFormat, bi.Rows, bi.Uncompressed))
		}
		total += bi.Rows
		blocks[b] = bi
	}
	if c.MaxRep == 0 && total != rd.rows {
		return rd.colErr(i, -1, -1, start, fmt.Errorf("%w: blocks hold %d rows, the file %d", ErrFormat, total, rd.rows))
	}
	if c.MaxRep > 0 && total < rd.rows {
		return rd.colErr(i, -1, -1, start, fmt.Errorf("%w: blocks hold %d entries, fewer than the file's %d rows", ErrFormat, total, rd.rows))
	}
	rd.blocks[i] = blocks
	return nil
}

// RowCount returns the number of rows (records) in the file.
func (rd *Reader) RowCount() int64 { return rd.rows }

// Size returns the file's size.
func (rd *Reader) Size() int64 { return rd.size }

// Meta returns the file's metadata.
func (rd *Reader) Meta() *Meta { return &rd.meta }

// Codec returns the file's codec ("" for none).
func (rd *Reader) Codec() string { return rd.codec }

// Checksum returns the file's checksum ("" for none).
func (rd *Reader) Checksum() string { return rd.check }

// NumColumns returns the number of columns.
func (rd *Reader) NumColumns() int { return len(rd.cols) }

// Column returns column i's description.
func (rd *Reader) Column(i int) *Column { return &rd.cols[i] }

// ColumnStart returns the file offset of column i (its block count).
func (rd *Reader) ColumnStart(i int) int64 { return rd.starts[i] }

// Blocks returns column i's blocks.
func (rd *Reader) Blocks(i int) []BlockInfo { return rd.blocks[i] }

// ColumnReader reads one column entry by entry: each entry has a
// repetition level, a definition level and, when the definition level is
// the column's maximum, a value.
type ColumnReader struct {
	rd    *Reader
	col   int
	c     *Column
	block int   // the loaded block, -1 before the first
	entry int64 // entries read in the loaded block
	row   int64 // entries read in the column

	raw     []byte // stored bytes
	body    []byte // uncompressed block
	values  []byte // the values area
	defs    []byte
	reps    []byte
	defBits int
	repBits int
	pos     int   // read position in values
	nonNull int64 // values read in the block (booleans: bit index)
	count   int64 // values in the block: entries of definition level MaxDef
	bools   []byte
	share   *budget.Share // the bytes of raw and body, in rd.budget
	cache   *blockCache   // the column's shared blocks, or nil
	shared  bool          // body is the cache's block cr.block, held
	// levelsOnly marks a reader of a Source that reads the levels only:
	// it takes a block's level arrays the cache keeps, with no values.
	levelsOnly bool
	spare      []byte // the reader's own body buffer while it holds the cache's

	// The current entry.
	Rep, Def int
	i64      int64
	bytesV   []byte
	ts       TimestampValue
}

// Values returns a reader of column i's entries.
func (rd *Reader) Values(i int) *ColumnReader {
	c := &rd.cols[i]
	cr := &ColumnReader{rd: rd, col: i, c: c, block: -1, defBits: levelBits(c.MaxDef), repBits: levelBits(c.MaxRep)}
	cr.share = rd.budget.Register(cr)
	return cr
}

// Close releases the reader's block buffers, giving their bytes back to
// the Reader's ReaderOptions.BlockMemory. A ColumnReader dropped without
// Close gives them back once it is garbage.
func (cr *ColumnReader) Close() {
	cr.unshare()
	cr.spare = nil
	cr.raw, cr.body, cr.values, cr.defs, cr.reps, cr.bools, cr.bytesV = nil, nil, nil, nil, nil, nil, nil
	cr.rd.budget.Release(cr.share)
}

// Column returns the column being read.
func (cr *ColumnReader) Column() *Column { return cr.c }

// Block returns the block being read, -1 before the first.
func (cr *ColumnReader) Block() int { return cr.block }

func (cr *ColumnReader) fail(err error) error {
	off := int64(-1)
	if cr.block >= 0 && cr.block < len(cr.rd.blocks[cr.col]) {
		off = cr.rd.blocks[cr.col][cr.block].Start
	}
	return cr.rd.colErr(cr.col, cr.block, cr.row, off, err)
}

// loadBlock reads, checks and decompresses block b.
func (cr *ColumnReader) loadBlock(b int) error {
	if cr.cache != nil {
		cr.unshare()
		if cr.levelsOnly {
			if lv, ok := cr.cache.levelsOf(b); ok {
				// Checked when first inflated; no value is read.
				cr.block, cr.entry, cr.pos, cr.nonNull = b, 0, 0, 0
				cr.reps, cr.defs, cr.values, cr.bools, cr.count = lv.reps, lv.defs, nil, nil, lv.count
				return nil
			}
		}
		if cr.body == nil {
			cr.body, cr.spare = cr.spare, nil
		}
		if body := cr.cache.get(b); body != nil {
			cr.spare = cr.body // the reader's own buffer, kept for a miss
			cr.body, cr.shared = body, true
			cr.block, cr.entry, cr.pos, cr.nonNull = b, 0, 0, 0
			return cr.split(cr.rd.blocks[cr.col][b])
		}
	}
	cr.block, cr.entry, cr.pos, cr.nonNull = b, 0, 0, 0
	bi := cr.rd.blocks[cr.col][b]
	crc := 0
	if cr.c.Checksum != "" {
		crc = 4
	}
	if limit := cr.rd.opts.MaxBlockSize; bi.Uncompressed > limit || bi.Stored > limit {
		return cr.fail(fmt.Errorf("%w: block of %d bytes (%d stored) exceeds the %d bytes of ReaderOptions.MaxBlockSize", ErrLimit, bi.Uncompressed, bi.Stored, limit))
	}
	// Reserve what the buffers must grow by before they do; settle on
	// what they really took afterwards. Decompression grows the body only
	// as data arrives, and never past the block's stated size.
	n := int(bi.Stored) + crc
	before := int64(cap(cr.raw) + cap(cr.body))
	reserved := int64(max(0, n-cap(cr.raw)) + max(0, int(bi.Uncompressed)+1-cap(cr.body)))
	bud := &cr.rd.budget
	if !bud.Take(cr.share, reserved) {
		return cr.fail(fmt.Errorf("%w: block of %d stored and %d uncompressed bytes would take the block buffers of this reader past the %d bytes of ReaderOptions.BlockMemory", ErrLimit, n, bi.Uncompressed, bud.Limit))
	}
	defer func() { bud.Adjust(cr.share, int64(cap(cr.raw)+cap(cr.body))-before-reserved) }()
	cr.raw = growTo(cr.raw, n)
	if err := readAt(cr.rd.r, cr.raw, bi.Start); err != nil {
		return cr.fail(fmt.Errorf("%w: reading %d bytes: %v", ErrFormat, len(cr.raw), err))
	}
	stored := cr.raw[:bi.Stored]
	// The whole block is reserved: take it at once rather than grow to it,
	// where the stored bytes can decompress to that much.
	if want := int(min(bi.Uncompressed, maxExpansion(cr.c.Codec, bi.Stored))) + 1; cap(cr.body) < want {
		cr.body = make([]byte, 0, want)
	}
	var err error
	cr.body, err = cr.rd.codecs.decompress(cr.c.Codec, cr.body[:0], stored, int(bi.Uncompressed))
	if err != nil {
		return cr.fail(err)
	}
	if crc > 0 && !cr.rd.opts.SkipChecksums {
		want := binary.LittleEndian.Uint32(cr.raw[bi.Stored:])
		if got := crc32.ChecksumIEEE(cr.body); got != want {
			return cr.fail(fmt.Errorf("%w: stored CRC-32 %08x, data has %08x", ErrChecksum, want, got))
		}
	}
	if cr.cache != nil && cr.cache.put(b, cr.body) {
		// The cache holds the body's bytes now.
		cr.shared = true
		before += int64(cap(cr.body))
	}
	if err := cr.split(bi); err != nil {
		return err
	}
	if cr.cache != nil {
		cr.cache.keepLevels(b, cr.reps, cr.defs, cr.count)
	}
	return nil
}

// unshare lets go of a body held from the cache: the next block is
// inflated into a buffer of the reader's own.
func (cr *ColumnReader) unshare() {
	if cr.shared {
		cr.cache.release(cr.block)
		cr.body, cr.shared = nil, false
	}
}

// split finds the level arrays and the values area of the block just
// decompressed into cr.body and checks them.
func (cr *ColumnReader) split(bi BlockInfo) error {
	// The level arrays are found from the end: repetition last, then
	// definition, as Impala's scanner located them.
	repLen := (bi.Rows*int64(cr.repBits) + 7) / 8
	defLen := (bi.Rows*int64(cr.defBits) + 7) / 8
	if repLen+defLen > int64(len(cr.body)) {
		return cr.fail(fmt.Errorf("%w: level arrays of %d entries need %d bytes, the block holds %d", ErrFormat, bi.Rows, repLen+defLen, len(cr.body)))
	}
	end := int64(len(cr.body))
	cr.reps = cr.body[end-repLen : end]
	cr.defs = cr.body[end-repLen-defLen : end-repLen]
	cr.values = cr.body[:end-repLen-defLen]
	// Count the values and check that the values area is the right size
	// where that can be known without decoding.
	nonNull, err := cr.checkLevels(bi.Rows)
	if err != nil {
		return err
	}
	cr.count = nonNull
	cr.bools = cr.values
	switch w := int64(cr.c.Type.width()); {
	case cr.c.Type == Boolean:
		if need := (nonNull + 7) / 8; need > int64(len(cr.values)) {
			if !cr.rd.opts.ImpalaBooleans || need > end {
				return cr.fail(fmt.Errorf("%w: %d values need %d bytes, the values area holds %d", ErrImpalaBoolean, nonNull, need, len(cr.values)))
			}
			cr.bools = cr.body[:need]
		}
	case cr.c.Type == Null:
		if len(cr.values) != 0 {
			return cr.fail(fmt.Errorf("%w: null column has %d bytes of values", ErrFormat, len(cr.values)))
		}
	case w > 0:
		if nonNull*w != int64(len(cr.values)) {
			return cr.fail(fmt.Errorf("%w: %d %s values need %d bytes, the values area holds %d", ErrFormat, nonNull, cr.c.Type, nonNull*w, len(cr.values)))
		}
	default:
		if nonNull > int64(len(cr.values)) {
			return cr.fail(fmt.Errorf("%w: %d values cannot fit in %d bytes", ErrFormat, nonNull, len(cr.values)))
		}
	}
	return nil
}

// readAt fills b from offset off.
func readAt(r io.ReaderAt, b []byte, off int64) error {
	if len(b) == 0 {
		return nil
	}
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return err
}

func growTo(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// getBits returns the w-bit entry at bit offset pos of a little-endian bit
// stream (Impala's IntegerArray on a little-endian machine).
func getBits(b []byte, pos int64, w int) int {
	v := 0
	for i := 0; i < w; i++ {
		p := pos + int64(i)
		if b[p>>3]>>(p&7)&1 != 0 {
			v |= 1 << i
		}
	}
	return v
}

// Next moves to the column's next entry, setting Rep and Def and, when Def
// is the column's MaxDef, the value (see Int64, Float64, Bytes, Bool,
// Timestamp). It returns io.EOF after the last entry.
func (cr *ColumnReader) Next() error {
	blocks := cr.rd.blocks[cr.col]
	for cr.block < 0 || cr.entry >= blocks[cr.block].Rows {
		if cr.block >= 0 {
			if err := cr.finishBlock(); err != nil {
				return err
			}
		}
		if cr.block+1 >= len(blocks) {
			cr.block = len(blocks)
			return io.EOF
		}
		if err := cr.loadBlock(cr.block + 1); err != nil {
			return err
		}
	}
	cr.Rep, cr.Def = cr.level(cr.entry)
	if cr.Def == cr.c.MaxDef {
		if err := cr.readValue(); err != nil {
			return cr.fail(err)
		}
	}
	cr.entry++
	cr.row++
	return nil
}

// finishBlock checks that the values area was used up.
func (cr *ColumnReader) finishBlock() error {
	if cr.block >= len(cr.rd.blocks[cr.col]) {
		return nil
	}
	switch cr.c.Type {
	case Boolean:
		return nil // Impala's writer may leave zero bytes after the bits
	}
	if cr.pos != len(cr.values) {
		return cr.fail(fmt.Errorf("%w: %d bytes left in the values area after the last value", ErrFormat, len(cr.values)-cr.pos))
	}
	return nil
}

func (cr *ColumnReader) readValue() error {
	v := cr.values[cr.pos:]
	switch t := cr.c.Type; t {
	case Null:
	case Boolean:
		k := cr.nonNull
		cr.i64 = int64(cr.bools[k>>3] >> (k & 7) & 1)
	case Fixed8:
		cr.i64 = int64(int8(v[0]))
		cr.pos++
	case Fixed16:
		cr.i64 = int64(int16(binary.LittleEndian.Uint16(v)))
		cr.pos += 2
	case Fixed32:
		cr.i64 = int64(int32(binary.LittleEndian.Uint32(v)))
		cr.pos += 4
	case Fixed64:
		cr.i64 = int64(binary.LittleEndian.Uint64(v))
		cr.pos += 8
	case Float:
		cr.i64 = int64(binary.LittleEndian.Uint32(v))
		cr.pos += 4
	case Double:
		cr.i64 = int64(binary.LittleEndian.Uint64(v))
		cr.pos += 8
	case Timestamp:
		cr.ts = TimestampValue{NanosOfDay: int64(binary.LittleEndian.Uint64(v)), JulianDay: binary.LittleEndian.Uint32(v[8:])}
		cr.pos += 12
	case Int, Long:
		x, n := avrobin.ConsumeLong(v)
		if n < 0 {
			return valuesErr(n)
		}
		lo, hi := t.intRange()
		if x < lo || x > hi {
			return fmt.Errorf("%w: %s value %d out of range", ErrFormat, t, x)
		}
		cr.i64 = x
		cr.pos += n
	case String, Bytes:
		b, n := avrobin.ConsumeBytes(v)
		if n < 0 {
			return fmt.Errorf("%s: %w", t, valuesErr(n))
		}
		cr.bytesV = b
		cr.pos += n
	}
	cr.nonNull++
	return nil
}

// valuesErr returns the error of avrobin's error code n, met in a block's
// values area.
func valuesErr(n int) error {
	return fmt.Errorf("%w: in the values area: %w", ErrFormat, avrobin.ParseError(n))
}

// Null reports whether the current entry has no value.
func (cr *ColumnReader) Null() bool { return cr.Def < cr.c.MaxDef }

// Int64 returns the current integer value (fixed8, fixed16, int, long,
// fixed32, fixed64), or a boolean as 0 or 1.
func (cr *ColumnReader) Int64() int64 { return cr.i64 }

// Bool returns the current boolean value.
func (cr *ColumnReader) Bool() bool { return cr.i64 != 0 }

// Float32Bits returns the bits of the current float value.
func (cr *ColumnReader) Float32Bits() uint32 { return uint32(cr.i64) }

// Float64Bits returns the bits of the current double value.
func (cr *ColumnReader) Float64Bits() uint64 { return uint64(cr.i64) }

// Bytes returns the current string or bytes value. It stays valid until
// the next call to Next.
func (cr *ColumnReader) Bytes() []byte { return cr.bytesV }

// Timestamp returns the current timestamp value.
func (cr *ColumnReader) Timestamp() TimestampValue { return cr.ts }

// Verify reads every entry of every column, checking block sizes, codecs,
// checksums (unless ReaderOptions.SkipChecksums), level arrays and values, and that each column holds the file's
// row count. It reports the first problem of each column, joined.
func (rd *Reader) Verify() error {
	var errs []error
	for i := range rd.cols {
		c := &rd.cols[i]
		if c.Type == Null && c.MaxDef == 0 && c.MaxRep == 0 {
			// Its entries carry nothing: the descriptors said it all.
			continue
		}
		cr := rd.Values(i)
		var rows int64
		var err error
		for {
			if err = cr.Next(); err != nil {
				break
			}
			if cr.Rep == 0 {
				rows++
			}
		}
		cr.Close() // its block memory goes back to the budget
		if !errors.Is(err, io.EOF) {
			errs = append(errs, err)
			continue
		}
		if rows != rd.rows {
			errs = append(errs, rd.colErr(i, -1, -1, rd.starts[i], fmt.Errorf("%w: column holds %d rows, the file %d", ErrFormat, rows, rd.rows)))
		}
	}
	return errors.Join(errs...)
}
