package format

import (
	"errors"
	"fmt"
)

// Source is a file's columns as Trevni 2 lays them out, whatever the file's
// own format: its rows, its metadata, each column's metadata and block
// descriptors, and a [SourceColumn] per column that hands out whole blocks
// in Trevni 2's value encoding. A [Reader] reads its own file as a Source
// (it implements the interface), and [NewSourceReader] makes a Reader of
// any other, so that everything that reads columns through a Reader (the
// assembler, the filters, the parallel readers) reads every format the
// same way: package trevni1 turns Dremel levels into array lengths as a
// block is read, package clmn cuts its columns into blocks of values.
//
// The interface is one call per block, never per value: a ColumnReader
// decodes the values of the block it is handed as it decodes a block of a
// Trevni 2 file.
type Source interface {
	// RowCount returns the number of top-level rows.
	RowCount() int64
	// Meta returns the file's metadata (avro.schema, say). The caller
	// does not modify it.
	Meta() *MetaData
	// NumColumns returns the number of columns.
	NumColumns() int
	// RawColumnMeta returns column i's metadata as a Trevni 2 file stores
	// it: trevni.name, trevni.type, trevni.array and trevni.parent (a
	// parent precedes its children), and any other key, statistics
	// (package format/stats) included. The caller does not modify it.
	RawColumnMeta(i int) *MetaData
	// Blocks returns column i's block descriptors: the top-level rows of
	// each (FirstRow counting from 0, the blocks together holding every
	// row) and, in UncompressedSize, about how many bytes its Trevni 2
	// encoding takes (what a reader reserves of its block memory before
	// asking for the block). Offset and CompressedSize are the source's
	// own, for messages. The caller does not modify the result.
	Blocks(i int) ([]BlockInfo, error)
	// OpenColumn returns a reader of column i's blocks. Readers of the
	// same or different columns may be used at once, each by one
	// goroutine.
	OpenColumn(i int) (SourceColumn, error)
}

// SourceColumn hands out the blocks of one column of a [Source].
type SourceColumn interface {
	// Block appends block b's values, in Trevni 2's encoding (array
	// lengths before their values, booleans packed), to dst and returns
	// the extended slice. Blocks are asked for mostly in order, but any
	// block may be asked for, again or out of order, after a seek. An
	// error should say what is wrong in the source's terms; the Reader
	// adds the column, block and row.
	Block(b int, dst []byte) ([]byte, error)
	// Close releases the reader's buffers.
	Close()
}

// NewSourceReader returns a Reader of src's columns: the same Reader a
// Trevni 2 file of those columns would have, whose ColumnReaders take their
// blocks from src instead of reading and decompressing them. Codecs,
// checksums and Prefetch of opts do not apply; MaxBlockSize bounds each
// block src hands out and BlockMemory the blocks held at once. The column
// metadata is checked as a file's is (names distinct, parents before their
// children and arrays, known types), and each column's block descriptors,
// when first used, to hold the file's rows.
//
// Methods that concern a file's bytes refuse a source reader (Slice,
// Concat) or describe an empty file (Size, ColumnStart, ColumnRange,
// DataEnd are 0).
func NewSourceReader(src Source, opts *ReaderOptions) (*Reader, error) {
	if src == nil {
		return nil, fmt.Errorf("%w: NewSourceReader of a nil Source", ErrUsage)
	}
	rd := &Reader{src: src, rowCount: src.RowCount()}
	if sz, ok := src.(interface{ Size() int64 }); ok {
		rd.size = sz.Size() // the source's file, for Size and scan reports
	}
	if opts != nil {
		rd.opts = *opts
	}
	rd.opts.Prefetch = nil
	rd.applyOptions()
	if rd.rowCount < 0 {
		return nil, fmt.Errorf("%w: source of a negative row count %d", ErrFormat, rd.rowCount)
	}
	if m := src.Meta(); m != nil {
		rd.meta = m.Clone()
	}
	n := src.NumColumns()
	rd.cols = make([]ColumnMeta, n)
	rd.rawMeta = make([]MetaData, n)
	rd.parents = make([]int, n)
	rd.children = make([][]int, n)
	rd.byName = make(map[string]int, n)
	for i := range rd.cols {
		if m := src.RawColumnMeta(i); m != nil {
			rd.rawMeta[i] = m.Clone()
		}
		if err := rd.parseColumnMeta(i); err != nil {
			e := newError(asFormat(err))
			e.Index, e.Column = i, rd.cols[i].Name
			return nil, e
		}
	}
	rd.starts = make([]int64, n)
	rd.ends = make([]int64, n)
	rd.tables = make([]*blockTable, n)
	return rd, nil
}

// OpenColumn returns a reader of column i's blocks as they are stored
// decompressed and checked: the Reader as a [Source].
func (rd *Reader) OpenColumn(i int) (SourceColumn, error) {
	c, err := rd.Values(i)
	if err != nil {
		return nil, err
	}
	return &fileColumn{c: c}, nil
}

// IsSource reports whether the Reader reads a Source (NewSourceReader)
// rather than a Trevni 2 file.
func (rd *Reader) IsSource() bool { return rd.src != nil }

// fileColumn is a column of a Trevni 2 file as a SourceColumn.
type fileColumn struct {
	c *ColumnReader
	f fetched
}

func (fc *fileColumn) Block(b int, dst []byte) ([]byte, error) {
	c := fc.c
	if b < 0 || b >= len(c.table.blocks) {
		return dst, c.fail(fmt.Errorf("%w: no block %d", ErrUsage, b))
	}
	c.fetch(b, &fc.f)
	if fc.f.err != nil {
		return dst, fc.f.err
	}
	return append(dst, fc.f.data...), nil
}

func (fc *fileColumn) Close() {
	fc.f.data = nil
	fc.c.Close()
}

// sourceTable reads column i's block descriptors from the source.
func (rd *Reader) sourceTable(i int, t *blockTable) error {
	t.codecName = CodecNull
	t.codec, _ = rd.codecs.lookup(CodecNull)
	blocks, err := rd.src.Blocks(i)
	if err != nil {
		return rd.colErr(i, -1, -1, err)
	}
	t.blocks = make([]BlockInfo, len(blocks))
	copy(t.blocks, blocks)
	var row int64
	for b := range t.blocks {
		bi := &t.blocks[b]
		if bi.Rows < 0 || bi.FirstRow != row || bi.UncompressedSize < 0 {
			return rd.colErr(i, b, bi.Offset, fmt.Errorf("%w: block of %d rows from row %d (%d bytes), where row %d is next", ErrFormat, bi.Rows, bi.FirstRow, bi.UncompressedSize, row))
		}
		row += bi.Rows
	}
	if row != rd.rowCount {
		return rd.colErr(i, -1, -1, fmt.Errorf("%w: blocks hold %d rows, the file %d", ErrFormat, row, rd.rowCount))
	}
	return nil
}

// fetchSource asks the column's source for block b, within the reader's
// block memory: what the descriptor says is reserved before, what the
// block really takes settled after.
func (c *ColumnReader) fetchSource(b int, f *fetched) {
	f.block, f.err = b, nil
	bi := &c.table.blocks[b]
	fail := func(err error) {
		f.err = c.rd.colErr(c.index, b, bi.Offset, err)
	}
	limit := c.rd.opts.MaxBlockSize
	if bi.UncompressedSize > limit {
		fail(fmt.Errorf("%w: block of %d bytes exceeds the %d bytes of ReaderOptions.MaxBlockSize", ErrLimit, bi.UncompressedSize, limit))
		return
	}
	budget := &c.rd.budget
	before := int64(cap(f.data))
	want := bi.UncompressedSize + blockSlack
	reserved := int64(max(0, want-cap(f.data)))
	if !budget.Take(c.share, reserved) {
		fail(fmt.Errorf("%w: block of %d bytes would take the block buffers of this reader past the %d bytes of ReaderOptions.BlockMemory", ErrLimit, bi.UncompressedSize, budget.Limit))
		return
	}
	if cap(f.data) < want {
		f.data = make([]byte, 0, want)
	}
	data, err := c.src.Block(b, f.data[:0])
	// Settle what the buffer really took; a source that grew it past
	// what was reserved must fit in the budget still.
	grown := int64(cap(data)) - before - reserved
	if grown > 0 && !budget.Take(c.share, grown) {
		budget.Adjust(c.share, -reserved)
		f.data = f.data[:0]
		fail(fmt.Errorf("%w: block of %d bytes would take the block buffers of this reader past the %d bytes of ReaderOptions.BlockMemory", ErrLimit, len(data), budget.Limit))
		return
	}
	if grown < 0 {
		budget.Adjust(c.share, grown)
	}
	f.data = data
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Index == c.index {
			f.err = e
			return
		}
		// The source's own error says where in its file; the Error
		// keeps the column, block and row for a caller that asks.
		fail(err)
		f.err.own = true
		return
	}
	if len(data) > limit {
		fail(fmt.Errorf("%w: block of %d bytes exceeds the %d bytes of ReaderOptions.MaxBlockSize", ErrLimit, len(data), limit))
		return
	}
}

// errSourceFile is the error of a method that needs a file's bytes,
// called on a source reader.
func errSourceFile(what string) error {
	return fmt.Errorf("%w: %s needs a Trevni 2 file, not a reader of another format's columns", ErrUsage, what)
}

// Source returns the column of the [Source] the reader takes its blocks
// from (a reader of [NewSourceReader]), or nil for a column of a Trevni 2
// file: for a caller that reads the source column's records another way
// its own interface offers (package assemble/levels reads Trevni 1
// levels so), leaving the ColumnReader unread.
func (c *ColumnReader) Source() SourceColumn { return c.src }
