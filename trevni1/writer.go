package trevni1

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/avrobin"
)

// BlockSize is Impala's block buffer size, on which its block-cutting rule
// is based.
const BlockSize = 65536

// DefaultMemoryBudget is how many bytes of finished blocks a Writer keeps in
// memory before it spills them to a temporary file.
const DefaultMemoryBudget = 16 << 20

// ColumnSpec declares a column for NewWriter.
type ColumnSpec struct {
	Name   string
	Type   Type
	MaxDef int // 1 for a nullable flat column, as Impala wrote every column
	MaxRep int // 0 for a flat column
}

// WriterOptions configures a Writer. The zero value writes what Impala
// wrote for an uncompressed table.
type WriterOptions struct {
	// Codec is "" or "none", "deflate" (zlib), "gzip", "bzip2" or "snappy".
	Codec string
	// Checksum is "" (none, as Impala) or "crc-32": a little-endian CRC-32
	// of each uncompressed block after its stored bytes.
	Checksum string
	// Meta holds extra file metadata, written after trevni.codec and
	// trevni.checksum.
	Meta Meta
	// MemoryBudget bounds the bytes of finished blocks held in memory
	// until Close; past it they spill to a temporary file in TempDir and
	// are copied after the header at Close. 0 means DefaultMemoryBudget; a
	// negative value means never spill. The file is the same either way.
	MemoryBudget int64
	// TempDir is where the spill file goes; "" means os.TempDir().
	TempDir string
	// MaxBlockSize is the largest block (uncompressed, and stored) the
	// Writer writes; 0 means format.DefaultMaxBlockSize, the largest a
	// Reader accepts by default (ReaderOptions.MaxBlockSize). A value, or
	// a row's entries, that would take a block past it is an error
	// wrapping ErrLimit and ErrUsage, naming the column.
	MaxBlockSize int64
	// BlockSize replaces Impala's block buffer size (the constant
	// BlockSize, 65536 bytes) in the block-cutting rule: a column's block
	// is closed once its values and levels would pass about this many
	// bytes, so a smaller size gives more blocks per column (more places
	// a reader can start at, a little more overhead). 0 means BlockSize.
	// MaxBlockSize still bounds a block that one row's entries fill.
	BlockSize int
}

// Writer writes a version-1 file. Columns are cut into blocks by Impala's
// rule (see the package documentation). Nothing reaches the output before
// Close, since the header gives every column's offset: finished blocks are
// held in memory up to WriterOptions.MemoryBudget and spill to one
// temporary file past it, so memory does not grow with the input (only a
// 24-byte descriptor per block stays). Close or Abort removes that file.
//
// Entries are added column by column with the value methods; a row ends
// with EndRow. Misuse is remembered and returned by EndRow and Close.
type Writer struct {
	out     io.Writer
	opts    WriterOptions
	codec   string
	comp    *codecs
	scratch []byte // compressed block, before it is copied
	cols    []*colWriter
	rows    int64
	err     error
	closed  bool

	held      int64 // bytes of block data held in memory
	spill     *os.File
	spillBuf  *bufio.Writer
	spillSize int64
}

type block struct {
	rows, usize, csize uint32
	data               []byte // stored bytes, with the checksum; nil once spilled
	size               int    // len of the stored bytes
	spillAt            int64  // offset in the spill file, or -1
}

// colWriter is one column's state: its finished blocks and the block it
// fills, with Impala's counters.
type colWriter struct {
	spec    ColumnSpec
	bsize   int // WriterOptions.BlockSize, or BlockSize
	defBits int
	repBits int
	blocks  []block

	vals    []byte // values area (booleans: the bit array)
	defs    []byte // definition array, packed
	reps    []byte // repetition array, packed
	rows    int    // entries in the block
	nonNull int    // values in the block
	size    int    // Impala's size counter
	capRows int    // definition array capacity
	limit   int    // bytes for values
	first   bool   // the current block is the column's first
	rowEnts int    // entries in the current row
	prevAvg int    // values bytes per entry of the previous block
}

// NewWriter returns a Writer of the given columns to out.
func NewWriter(out io.Writer, cols []ColumnSpec, opts *WriterOptions) (*Writer, error) {
	w := &Writer{out: out}
	if opts != nil {
		w.opts = *opts
	}
	if w.opts.MemoryBudget == 0 {
		w.opts.MemoryBudget = DefaultMemoryBudget
	}
	var err error
	if w.codec, err = canonicalCodec(w.opts.Codec); err != nil {
		return nil, err
	}
	if w.comp, err = newCodecs(); err != nil {
		return nil, err
	}
	if w.opts.Checksum, err = canonicalChecksum(w.opts.Checksum); err != nil {
		return nil, err
	}
	if int64(len(cols)) > math.MaxUint32 {
		return nil, fmt.Errorf("%w: %d columns", ErrUsage, len(cols))
	}
	if w.opts.MaxBlockSize <= 0 {
		w.opts.MaxBlockSize = format.DefaultMaxBlockSize
	}
	for i, s := range cols {
		if s.Type >= numTypes || s.MaxDef < 0 || s.MaxRep < 0 || s.MaxDef > 1000 || s.MaxRep > 1000 {
			return nil, fmt.Errorf("%w: column %d (%q): bad type or levels", ErrUsage, i, s.Name)
		}
		if s.MaxRep > s.MaxDef {
			return nil, fmt.Errorf("%w: column %d (%q): repetition level %d above definition level %d", ErrUsage, i, s.Name, s.MaxRep, s.MaxDef)
		}
		bsize := BlockSize
		if w.opts.BlockSize > 0 {
			bsize = w.opts.BlockSize
		}
		c := &colWriter{spec: s, bsize: bsize, defBits: levelBits(s.MaxDef), repBits: levelBits(s.MaxRep), first: true}
		c.startBlock()
		w.cols = append(w.cols, c)
	}
	return w, nil
}

// startBlock sets the capacity and space of a new block (Impala's
// CreateNewBlock), with the level arrays' real widths in place of Impala's
// one definition bit.
func (c *colWriter) startBlock() {
	levels := c.defBits + c.repBits
	t := c.spec.Type
	switch {
	case t == Boolean:
		c.capRows = c.bsize * 8 / (1 + levels)
	case t == Null:
		c.capRows = c.bsize * 8 / max(1, levels)
	case t.width() > 0:
		c.capRows = c.bsize / t.width()
	default:
		guess := c.prevAvg
		if c.first {
			switch t {
			case Int:
				guess = 2
			case Long:
				guess = 4
			default:
				guess = 50
			}
		}
		// Impala divided by zero here when the previous block averaged
		// under one byte an entry; we take one byte.
		c.capRows = c.bsize / max(1, guess)
	}
	c.limit = c.bsize - (c.capRows*levels+7)/8
	// With Impala's one level bit the limit is at least 7/8 of the block;
	// wide level arrays of narrow values could leave none.
	c.limit = max(c.limit, c.bsize/2)
	c.vals, c.defs, c.reps = c.vals[:0], c.defs[:0], c.reps[:0]
	c.rows, c.nonNull, c.size = 0, 0, 0
}

// finishBlock closes the current block into c.blocks.
func (w *Writer) finishBlock(c *colWriter) error {
	vlen := len(c.vals)
	if c.spec.Type == Boolean {
		// Impala wrote only its size counter's bytes of the bit array; when
		// that is too few (NULLs at block positions 0, 8, 16...) bits were
		// lost. We write at least the bytes the bits need.
		vlen = max(c.size, (c.nonNull+7)/8)
		for len(c.vals) < vlen {
			c.vals = append(c.vals, 0)
		}
	}
	body := make([]byte, 0, vlen+len(c.defs)+len(c.reps))
	body = append(append(append(body, c.vals[:vlen]...), c.defs...), c.reps...)
	if uint64(len(body)) > math.MaxUint32 || uint64(c.rows) > math.MaxUint32 {
		return fmt.Errorf("%w: column %q: block of %d bytes is too large", ErrUsage, c.spec.Name, len(body))
	}
	if int64(len(body)) > w.opts.MaxBlockSize {
		return w.tooLarge(c, int64(len(body)))
	}
	b := block{rows: uint32(c.rows), usize: uint32(len(body))}
	if w.codec != "" {
		// Compressed into a reused buffer, then copied once to a block of
		// its exact size (with room for the checksum).
		var err error
		w.scratch, err = w.comp.compress(w.codec, w.scratch[:0], body)
		if err != nil {
			return fmt.Errorf("trevni1: column %q: %s: %w", c.spec.Name, w.codec, err)
		}
		data := make([]byte, len(w.scratch), len(w.scratch)+4)
		copy(data, w.scratch)
		b.csize, b.data = uint32(len(data)), data
		// Impala had added the level arrays to the size counter before
		// compressing, so the next block's estimate includes them.
		c.size += len(c.defs) + len(c.reps)
	} else {
		b.data = body
	}
	if w.opts.Checksum != "" {
		b.data = binary.LittleEndian.AppendUint32(b.data, crc32.ChecksumIEEE(body))
	}
	b.size, b.spillAt = len(b.data), -1
	c.blocks = append(c.blocks, b)
	if c.rows > 0 {
		c.prevAvg = c.size / c.rows
	}
	c.first = false
	w.held += int64(cap(b.data))
	if w.opts.MemoryBudget > 0 && w.held > w.opts.MemoryBudget {
		return w.spillBlocks()
	}
	return nil
}

// spillBlocks moves every finished block held in memory to the spill file,
// in column order (the order does not matter: each block keeps its offset).
func (w *Writer) spillBlocks() error {
	if w.spill == nil {
		f, err := os.CreateTemp(w.opts.TempDir, "trevni1-spill-*")
		if err != nil {
			return fmt.Errorf("trevni1: creating spill file: %w", err)
		}
		w.spill = f
		w.spillBuf = bufio.NewWriterSize(f, 1<<20)
	}
	for _, c := range w.cols {
		for i := range c.blocks {
			b := &c.blocks[i]
			if b.spillAt >= 0 {
				continue
			}
			if _, err := w.spillBuf.Write(b.data); err != nil {
				return fmt.Errorf("trevni1: writing spill file: %w", err)
			}
			b.spillAt = w.spillSize
			w.spillSize += int64(b.size)
			b.data = nil
		}
	}
	w.held = 0
	if err := w.spillBuf.Flush(); err != nil {
		return fmt.Errorf("trevni1: writing spill file: %w", err)
	}
	return nil
}

// release drops the blocks and removes the spill file.
func (w *Writer) release() {
	for _, c := range w.cols {
		c.blocks = nil
	}
	w.held = 0
	if w.spill != nil {
		name := w.spill.Name()
		w.spill.Close()
		os.Remove(name)
		w.spill, w.spillBuf = nil, nil
	}
}

// Abort discards everything written and removes the spill file. Nothing
// has reached the output. The Writer cannot be used afterwards.
func (w *Writer) Abort() {
	w.closed = true
	if w.err == nil {
		w.err = fmt.Errorf("%w: write after Abort", ErrUsage)
	}
	w.release()
}

// tooLarge returns the error about a block of column c of n bytes, past
// WriterOptions.MaxBlockSize.
func (w *Writer) tooLarge(c *colWriter, n int64) error {
	return fmt.Errorf("%w: %w: column %q, row %d: a block of %d bytes would pass the %d of WriterOptions.MaxBlockSize (readers refuse larger blocks unless ReaderOptions.MaxBlockSize is raised)",
		ErrUsage, ErrLimit, c.spec.Name, w.rows, n, w.opts.MaxBlockSize)
}

// newBlock finishes the current block and starts the next.
func (w *Writer) newBlock(c *colWriter) {
	if err := w.finishBlock(c); err != nil && w.err == nil {
		w.err = err
	}
	c.startBlock()
}

func putBits(b []byte, pos, w, v int) []byte {
	for need := (pos + w + 7) / 8; len(b) < need; {
		b = append(b, 0)
	}
	for i := 0; i < w; i++ {
		if v>>i&1 != 0 {
			p := pos + i
			b[p>>3] |= 1 << (p & 7)
		}
	}
	return b
}

func (w *Writer) col(i int) *colWriter {
	if w.err != nil {
		return nil
	}
	if w.closed {
		w.err = fmt.Errorf("%w: write after Close", ErrUsage)
		return nil
	}
	if i < 0 || i >= len(w.cols) {
		w.err = fmt.Errorf("%w: no column %d", ErrUsage, i)
		return nil
	}
	return w.cols[i]
}

// entry adds an entry's levels, cutting a block first where Impala's rule
// says so. need is the bytes the value may take (-1 for a NULL).
func (w *Writer) entry(c *colWriter, rep, def, need int) bool {
	if rep < 0 || rep > c.spec.MaxRep || def < 0 || def > c.spec.MaxDef || (c.rowEnts == 0) != (rep == 0) {
		w.err = fmt.Errorf("%w: column %q: entry with repetition %d, definition %d (maximum %d, %d) as entry %d of the row",
			ErrUsage, c.spec.Name, rep, def, c.spec.MaxRep, c.spec.MaxDef, c.rowEnts)
		return false
	}
	// A block is cut only where a row starts, and never left empty.
	canCut := rep == 0 && c.rows > 0
	switch {
	case def < c.spec.MaxDef:
	case c.spec.Type == Boolean:
		if c.rows%8 == 0 {
			if canCut && 1+c.size > c.limit {
				w.newBlock(c)
			}
			c.size++
		}
	default:
		if canCut && need+c.size > c.limit {
			w.newBlock(c)
		}
	}
	if rep == 0 && c.rows > 0 && c.rows >= c.capRows {
		w.newBlock(c)
	}
	if c.defBits > 0 {
		c.defs = putBits(c.defs, c.rows*c.defBits, c.defBits, def)
	}
	if c.repBits > 0 {
		c.reps = putBits(c.reps, c.rows*c.repBits, c.repBits, rep)
	}
	c.rows++
	c.rowEnts++
	return true
}

// Null adds an entry without a value: def must be below the column's
// maximum definition level.
func (w *Writer) Null(col, rep, def int) {
	c := w.col(col)
	if c == nil {
		return
	}
	if def >= c.spec.MaxDef {
		w.err = fmt.Errorf("%w: column %q is not nullable at definition level %d", ErrUsage, c.spec.Name, def)
		return
	}
	w.entry(c, rep, def, -1)
}

func (w *Writer) value(col, rep int, t Type, need int) *colWriter {
	c := w.col(col)
	if c == nil {
		return nil
	}
	if int64(need) > w.opts.MaxBlockSize {
		// Refused before it is copied.
		w.err = w.tooLarge(c, int64(need))
		return nil
	}
	ok := c.spec.Type == t || (t == Long && c.spec.Type.isInteger()) || (t == Bytes && c.spec.Type == String)
	if !ok {
		w.err = fmt.Errorf("%w: column %q holds %s, not %s", ErrUsage, c.spec.Name, c.spec.Type, t)
		return nil
	}
	if !w.entry(c, rep, c.spec.MaxDef, need) {
		return nil
	}
	c.nonNull++
	return c
}

// Bool adds a boolean value.
func (w *Writer) Bool(col, rep int, v bool) {
	if c := w.value(col, rep, Boolean, 1); c != nil {
		k := c.nonNull - 1
		for len(c.vals) <= k>>3 {
			c.vals = append(c.vals, 0)
		}
		if v {
			c.vals[k>>3] |= 1 << (k & 7)
		}
	}
}

// NullValue adds a value of a null column.
func (w *Writer) NullValue(col, rep int) { w.value(col, rep, Null, 0) }

// Int adds an integer value to a fixed8, fixed16, int, long, fixed32 or
// fixed64 column; it must fit the column's type.
func (w *Writer) Int(col, rep int, v int64) {
	c := w.col(col)
	if c == nil {
		return
	}
	t := c.spec.Type
	if lo, hi := t.intRange(); t.isInteger() && (v < lo || v > hi) {
		w.err = fmt.Errorf("%w: column %q: %d does not fit %s", ErrUsage, c.spec.Name, v, t)
		return
	}
	need := t.width()
	switch t {
	case Int:
		need = 5
	case Long:
		need = 10
	}
	if c = w.value(col, rep, Long, need); c == nil {
		return
	}
	switch t {
	case Fixed8:
		c.vals = append(c.vals, byte(v))
	case Fixed16:
		c.vals = binary.LittleEndian.AppendUint16(c.vals, uint16(v))
	case Fixed32:
		c.vals = binary.LittleEndian.AppendUint32(c.vals, uint32(v))
	case Fixed64:
		c.vals = binary.LittleEndian.AppendUint64(c.vals, uint64(v))
	default:
		c.vals = avrobin.AppendLong(c.vals, v)
	}
	c.size = len(c.vals)
}

// Float32 adds a float value, bit for bit.
func (w *Writer) Float32(col, rep int, v float32) {
	if c := w.value(col, rep, Float, 4); c != nil {
		c.vals = avrobin.AppendFloat(c.vals, v)
		c.size = len(c.vals)
	}
}

// Float64 adds a double value, bit for bit.
func (w *Writer) Float64(col, rep int, v float64) {
	if c := w.value(col, rep, Double, 8); c != nil {
		c.vals = avrobin.AppendDouble(c.vals, v)
		c.size = len(c.vals)
	}
}

// Bytes adds a string or bytes value: its length as a zigzag varint, then
// its bytes.
func (w *Writer) Bytes(col, rep int, v []byte) {
	if c := w.value(col, rep, Bytes, 5+len(v)); c != nil {
		c.vals = avrobin.AppendBytes(c.vals, v)
		c.size = len(c.vals)
	}
}

// Timestamp adds a timestamp value.
func (w *Writer) Timestamp(col, rep int, v TimestampValue) {
	if c := w.value(col, rep, Timestamp, 12); c != nil {
		c.vals = binary.LittleEndian.AppendUint64(c.vals, uint64(v.NanosOfDay))
		c.vals = binary.LittleEndian.AppendUint32(c.vals, v.JulianDay)
		c.size = len(c.vals)
	}
}

// EndRow ends a row: every column must have received at least one entry.
func (w *Writer) EndRow() error {
	if w.err != nil {
		return w.err
	}
	for _, c := range w.cols {
		if c.rowEnts == 0 {
			w.err = fmt.Errorf("%w: row %d has no entry in column %q", ErrUsage, w.rows, c.spec.Name)
			return w.err
		}
	}
	for _, c := range w.cols {
		c.rowEnts = 0
	}
	w.rows++
	return nil
}

// WriteRow writes a flat row, one value per column (max repetition 0): nil
// is NULL; otherwise bool, an integer type, float32, float64, string,
// []byte or TimestampValue as the column's type takes.
func (w *Writer) WriteRow(values ...any) error {
	if w.err != nil {
		return w.err
	}
	if len(values) != len(w.cols) {
		return fmt.Errorf("%w: %d values for %d columns", ErrUsage, len(values), len(w.cols))
	}
	for i, v := range values {
		switch v := v.(type) {
		case nil:
			w.Null(i, 0, 0)
		case bool:
			w.Bool(i, 0, v)
		case int:
			w.Int(i, 0, int64(v))
		case int8:
			w.Int(i, 0, int64(v))
		case int16:
			w.Int(i, 0, int64(v))
		case int32:
			w.Int(i, 0, int64(v))
		case int64:
			w.Int(i, 0, v)
		case float32:
			w.Float32(i, 0, v)
		case float64:
			w.Float64(i, 0, v)
		case string:
			w.Bytes(i, 0, []byte(v))
		case []byte:
			w.Bytes(i, 0, v)
		case TimestampValue:
			w.Timestamp(i, 0, v)
		default:
			return fmt.Errorf("%w: value %d of type %T", ErrUsage, i, v)
		}
	}
	return w.EndRow()
}

// Close finishes the last blocks and writes the file. The spill file is
// removed whatever the outcome.
func (w *Writer) Close() error {
	if w.err != nil {
		w.release()
		return w.err
	}
	if w.closed {
		return nil
	}
	w.closed = true
	defer w.release()
	for _, c := range w.cols {
		if c.rowEnts != 0 {
			w.err = fmt.Errorf("%w: Close inside row %d", ErrUsage, w.rows)
			return w.err
		}
		if err := w.finishBlock(c); err != nil {
			w.err = err
			return err
		}
	}
	var h []byte
	h = append(h, Magic...)
	h = binary.LittleEndian.AppendUint64(h, uint64(w.rows))
	h = binary.LittleEndian.AppendUint32(h, uint32(len(w.cols)))
	var fm Meta
	if w.codec != "" {
		fm.Add(KeyCodec, []byte(w.codec))
	}
	if w.opts.Checksum != "" {
		fm.Add(KeyChecksum, []byte(w.opts.Checksum))
	}
	for i, k := range w.opts.Meta.Keys {
		fm.Add(k, w.opts.Meta.Values[i])
	}
	h = appendMeta(h, &fm)
	for _, c := range w.cols {
		var cm Meta
		cm.Add(KeyName, []byte(c.spec.Name))
		cm.Add(KeyType, []byte(c.spec.Type.String()))
		if c.spec.MaxDef > 0 {
			cm.Add(KeyDefinition, []byte(strconv.Itoa(c.spec.MaxDef)))
		}
		if c.spec.MaxRep > 0 {
			cm.Add(KeyRepetition, []byte(strconv.Itoa(c.spec.MaxRep)))
		}
		h = appendMeta(h, &cm)
	}
	pos := int64(len(h)) + 8*int64(len(w.cols))
	for _, c := range w.cols {
		h = binary.LittleEndian.AppendUint64(h, uint64(pos))
		pos += 4 + 12*int64(len(c.blocks))
		for _, b := range c.blocks {
			pos += int64(b.size)
		}
	}
	if _, err := w.out.Write(h); err != nil {
		w.err = err
		return err
	}
	var buf []byte
	for _, c := range w.cols {
		t := binary.LittleEndian.AppendUint32(nil, uint32(len(c.blocks)))
		for _, b := range c.blocks {
			t = binary.LittleEndian.AppendUint32(t, b.rows)
			t = binary.LittleEndian.AppendUint32(t, b.usize)
			t = binary.LittleEndian.AppendUint32(t, b.csize)
		}
		if _, err := w.out.Write(t); err != nil {
			w.err = err
			return err
		}
		for _, b := range c.blocks {
			data := b.data
			if b.spillAt >= 0 {
				if cap(buf) < b.size {
					buf = make([]byte, b.size)
				}
				data = buf[:b.size]
				if _, err := w.spill.ReadAt(data, b.spillAt); err != nil {
					if errors.Is(err, io.EOF) {
						err = io.ErrUnexpectedEOF
					}
					w.err = fmt.Errorf("trevni1: reading spill file: %w", err)
					return w.err
				}
			}
			if _, err := w.out.Write(data); err != nil {
				w.err = err
				return err
			}
		}
		c.blocks = nil
	}
	return nil
}

func appendMeta(b []byte, m *Meta) []byte {
	b = avrobin.AppendLong(b, int64(m.Len()))
	for i, k := range m.Keys {
		b = avrobin.AppendString(b, k)
		b = avrobin.AppendBytes(b, m.Values[i])
	}
	return b
}
