package trevniparquet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/trevni-go/trevni"

	"github.com/trevni-go/trevni/trevniarrow"
)

// DefaultRowGroupRows is the default most rows of a Parquet row group.
const DefaultRowGroupRows = 128 << 10

// parquetDictionaryLimit is the largest dictionary page a Parquet column
// chunk keeps before its values fall back to plain encoding. pqarrow's
// default (1 MiB) makes a column of many distinct values (measurements,
// identifiers) hash hundreds of thousands of values per row group only to
// fall back, and leaves a dictionary page and dictionary-coded pages that
// are larger than the plain values: on the 1M-record vec.Large job that cost
// half the time and made the file 28% larger. A column of few distinct
// values (enums, codes, flags) stays dictionary-encoded.
const parquetDictionaryLimit = 64 << 10

// parquetPageSize is the size at which a Parquet data page is cut. Every
// column writer of a row group holds its page being built, uncompressed
// and compressed, until the row group ends, so pqarrow's default (1 MiB)
// holds tens of megabytes for a row group of a few dozen columns: 256 KiB
// took the peak anonymous memory of the 1M-record vec.Large job from about
// 110 to 80 MB, for a file 0.3% larger and no more instructions.
const parquetPageSize = 256 << 10

// WriteOptions says how a data set is written as Parquet. A nil
// *WriteOptions writes every record, snappy-compressed, in row groups of
// DefaultRowGroupRows rows at most.
type WriteOptions struct {
	// Read selects the records (fields, filter, range); its BatchRows,
	// if set, bounds the rows of a row group (as RowGroupRows does), and
	// its BatchBytes the memory of one.
	Read trevniarrow.ReadOptions
	// Codec compresses the pages: "snappy" (the default), "zstd",
	// "gzip", "brotli", "lz4" or "none".
	Codec string
	// RowGroupRows is the most rows of a row group (default
	// DefaultRowGroupRows). Through Arrow batches, a row group is made
	// of batches (read on Read.Workers goroutines), its encoded pages
	// held until it ends: it ends early after the batch that brings its
	// arrays to Read.BatchBytes. The direct path (see Write) holds
	// no batch: a row group never spans two files of the data set, and
	// ends early at about Read.BatchBytes (or Read.OutputMemory, if set
	// and less) of compressed pages, which it holds until it ends.
	RowGroupRows int
	// Report, if set, is called once reading ends, on an error too, with
	// what was read from each part of the data set (as
	// trevni.Reader.Report says).
	Report func([]trevni.PartReport)
	// Allocator, if set, allocates the Parquet writer's buffers (pages,
	// levels, dictionaries, statistics; nil: a Go allocator), each freed
	// by the time Write returns. The Arrow batches read are on Go
	// memory (see RecordReader).
	Allocator memory.Allocator
}

// parquetCodec returns the Parquet compression a codec names.
func parquetCodec(name string) (compress.Compression, error) {
	switch strings.ToLower(name) {
	case "", "snappy":
		return compress.Codecs.Snappy, nil
	case "zstd":
		return compress.Codecs.Zstd, nil
	case "gzip":
		return compress.Codecs.Gzip, nil
	case "brotli":
		return compress.Codecs.Brotli, nil
	case "lz4":
		return compress.Codecs.Lz4Raw, nil
	case "none", "uncompressed":
		return compress.Codecs.Uncompressed, nil
	}
	return compress.Codecs.Uncompressed, fmt.Errorf("unknown Parquet codec %q (snappy, zstd, gzip, brotli, lz4, none)", name)
}

// Write writes the records of a data set that opts selects as a
// Parquet file to w, and returns the number of records written. Unions
// other than ["null", T] become structs of a field per branch (Parquet has
// no unions), and records of no fields structs of one null field (Parquet
// has no empty groups); the Avro schema is kept in the key-value metadata under
// "avro.schema" (and the Arrow schema under "ARROW:schema"), so that
// ReadParquet restores it. An Avro duration is a FIXED_LEN_BYTE_ARRAY(12)
// annotated INTERVAL, whose bytes (little-endian unsigned months, days and
// milliseconds) are the duration's. Every column chunk and page has
// statistics but those of durations: Parquet defines no order of
// INTERVALs, and arrow-go writes none. A string marked VariantProp (the
// JSON text of a VARIANT that ReadParquet read) is written as a VARIANT
// again, unshredded; text that is not JSON is an error naming the record
// and the column.
//
// A data set (of Trevni 2, Trevni 1 or CLMN files, the last two read
// through their columns as Trevni 2 lays them out) is written straight
// from its columns, whatever its schema and the fields, filter and range
// selected, through the columnar read layer (assemble/levels): the
// columns of a row group on Read.Workers goroutines (0: GOMAXPROCS), each
// row group holding at most about Read.BatchBytes (and Read.OutputMemory,
// if set) of compressed pages. A data set whose parts have schemas of
// their own (resolved to a reader schema) is written through Arrow
// batches. Both write the same schema, metadata and values.
func Write(ctx context.Context, w io.Writer, ds *trevni.Dataset, opts *WriteOptions) (int64, error) {
	return write(ctx, w, ds, opts, true)
}

// write is Write, through the direct path where it applies
// and direct allows it.
func write(ctx context.Context, w io.Writer, ds *trevni.Dataset, opts *WriteOptions, direct bool) (int64, error) {
	var o WriteOptions
	if opts != nil {
		o = *opts
	}
	codec, err := parquetCodec(o.Codec)
	if err != nil {
		return 0, err
	}
	if o.RowGroupRows <= 0 {
		o.RowGroupRows = DefaultRowGroupRows
	}
	if o.Read.BatchRows <= 0 || o.Read.BatchRows > o.RowGroupRows {
		o.Read.BatchRows = o.RowGroupRows
	}
	o.Read.Schema.Parquet = true
	o.Read.Schema.ForeignTypes = true
	props := parquetProps(codec, o.RowGroupRows, o.Allocator)
	// Variants (strings marked VariantProp) are written by the Arrow
	// path (variant_write.go).
	if s := directSchema(ds, &o.Read); direct && s != nil && !hasVariantText(s) {
		if as, err := trevniarrow.ArrowSchema(s, &o.Read.Schema); err == nil {
			if p := planDirect(ds, &o.Read, as, props); p != nil {
				return writeDirect(ctx, w, ds, p, props, &o)
			}
		}
	}
	rr, err := trevniarrow.NewRecordReader(ctx, ds, &o.Read)
	if err != nil {
		return 0, err
	}
	defer rr.Release()
	if o.Report != nil {
		defer func() { o.Report(rr.Report()) }()
	}
	as := rr.Schema()
	vw := planVariantWrite(as, o.Allocator)
	if vw != nil {
		as = vw.schema
	}
	// The writer closes an io.Closer it writes to: w stays the caller's.
	fw, err := pqarrow.NewFileWriter(as, struct{ io.Writer }{w}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return 0, fmt.Errorf("Parquet schema: %w", err)
	}
	// The batches are buffered into row groups of RowGroupRows rows
	// (WriteBuffered starts the next when one is full), a row group
	// ending early after the batch that brings its arrays to BatchBytes:
	// the batches of several workers, cut where their ranges end, make
	// the row groups one worker's batches make.
	var (
		n, groupRows, groupMem int64
		endGroup               bool
		groupBytes             = o.Read.BatchBytes
	)
	if groupBytes <= 0 {
		groupBytes = trevniarrow.DefaultBatchBytes
	}
	for rr.Next() {
		rec := rr.RecordBatch()
		err := error(nil)
		if vw != nil {
			if rec, err = vw.batch(rec, n); err != nil {
				fw.Close()
				return n, fmt.Errorf("Parquet: %w", err)
			}
		}
		if endGroup {
			err = fw.NewBufferedRowGroupChecked()
			groupRows, groupMem, endGroup = 0, 0, false
		}
		if err == nil {
			err = fw.WriteBuffered(rec)
		}
		rows := rec.NumRows()
		if vw != nil {
			rec.Release() // the batch made
		}
		if err != nil {
			fw.Close()
			return n, fmt.Errorf("Parquet: writing rows %d to %d: %w", n, n+rows, err)
		}
		n += rows
		if groupRows += rows; groupRows >= int64(o.RowGroupRows) {
			// WriteBuffered went on in a new row group: the rows past
			// the last full one are in it.
			groupRows %= int64(o.RowGroupRows)
			groupMem = rr.BatchBytes() * groupRows / rows
		} else {
			groupMem += rr.BatchBytes()
		}
		// A full row group, or one whose arrays reach the bound, ends.
		endGroup = groupRows == 0 || groupMem >= int64(groupBytes)
	}
	if err := rr.Err(); err != nil {
		fw.Close()
		return n, err
	}
	if err := fw.Close(); err != nil {
		return n, fmt.Errorf("Parquet: %w", err)
	}
	return n, nil
}

// parquetProps returns the Parquet writer properties of Write.
func parquetProps(codec compress.Compression, rowGroupRows int, mem memory.Allocator) *parquet.WriterProperties {
	if mem == nil {
		mem = memory.NewGoAllocator()
	}
	return parquet.NewWriterProperties(
		parquet.WithAllocator(mem),
		parquet.WithCompression(codec),
		parquet.WithStats(true),
		parquet.WithMaxRowGroupLength(int64(rowGroupRows)),
		parquet.WithCreatedBy("trevni-go"),
		parquet.WithDictionaryPageSizeLimit(parquetDictionaryLimit),
		parquet.WithDataPageSize(parquetPageSize),
	)
}

// File is a Parquet file opened for reading as Arrow batches.
type File struct {
	pf       *file.Reader
	fr       *pqarrow.FileReader
	schema   *arrow.Schema
	avro     string
	progress func(rows int64)
	// shapes reshapes pqarrow's batches (legacy lists; see pqshape.go);
	// nil when none changes.
	shapes []*shape
	// int96 are the top-level INT96 columns read without pqarrow (see
	// pqint96.go), raw the schema of the batches before shaping.
	int96     []int96Col
	raw       *arrow.Schema
	batchRows int
	// src is the file, whose page CRCs are verified before each row
	// group is read; nil when ReadOptions.SkipChecksums.
	src io.ReaderAt
	// pages rewrites the pages arrow-go's codecs cannot read, a row
	// group's before it is read; lz4 are the chunks that were LZ4 (see
	// pqpages.go).
	pages *pageReader
	lz4   map[[2]int]bool
	// variants makes the Variant columns JSON text; nil without any.
	variants *variantPlan
}

// ReadOptions bounds the reading of a Parquet file. A nil
// *ReadOptions takes the defaults.
type ReadOptions struct {
	// BatchRows is the most rows of a batch (default DefaultBatchRows).
	BatchRows int
	// MaxMemory bounds the memory the Parquet reader holds at once:
	// pages, decompressed pages, dictionaries and the batch's arrays
	// (default DefaultMemory). A file whose pages or sizes lie
	// (a decompression bomb, a page larger than its file) fails when it
	// would pass it.
	MaxMemory int64
	// Progress, if set, is called by WriteTo after each batch with the
	// rows of the file written so far.
	Progress func(rows int64)
	// Allocator, if set, allocates the reader's buffers and the batches'
	// arrays (nil: a Go allocator), within MaxMemory; all is freed once
	// the batches are released and the file closed.
	Allocator memory.Allocator
	// SkipChecksums reads pages without verifying the CRC-32 their
	// headers carry. By default WriteTo checks them, before each row
	// group, and a page whose bytes do not match is an error naming the
	// row group, column and page.
	SkipChecksums bool
	// MaxPageBytes bounds the size of one decompressed page (default
	// MaxMemory/4).
	MaxPageBytes int64
}

// DefaultMemory is the default ReadOptions.MaxMemory.
const DefaultMemory = 1 << 30

// errMemory is the panic of a limitedAllocator past its limit, made an
// error by the reader's recover.
var errMemory = errors.New("the Parquet reader would hold more memory than ReadOptions.MaxMemory: the file's sizes lie, or its batches are too large")

// limitedAllocator is a Go allocator that panics with errMemory past a
// limit: arrow-go's allocators cannot return an error.
type limitedAllocator struct {
	mem   memory.Allocator
	used  atomic.Int64
	limit int64
}

func (a *limitedAllocator) charge(n int64) {
	if a.used.Add(n) > a.limit && n > 0 {
		a.used.Add(-n)
		panic(errMemory)
	}
}

func (a *limitedAllocator) Allocate(size int) []byte {
	a.charge(int64(size))
	return a.mem.Allocate(size)
}

func (a *limitedAllocator) Reallocate(size int, b []byte) []byte {
	a.charge(int64(size) - int64(len(b)))
	return a.mem.Reallocate(size, b)
}

func (a *limitedAllocator) Free(b []byte) {
	a.used.Add(-int64(len(b)))
	a.mem.Free(b)
}

// Open opens a Parquet file for reading: its footer is read and its
// Avro schema found (the "avro.schema" key-value metadata) or inferred from
// its Arrow schema (see AvroSchema).
func Open(r parquet.ReaderAtSeeker, opts *ReadOptions) (pf *File, err error) {
	defer func() {
		if p := recover(); p != nil {
			pf, err = nil, fmt.Errorf("Parquet: bad file: %s", panicText(p))
			if p == errMemory {
				pf, err = nil, fmt.Errorf("Parquet footer: %w", errMemory)
			}
		}
	}()
	var o ReadOptions
	if opts != nil {
		o = *opts
	}
	if o.BatchRows <= 0 {
		o.BatchRows = trevniarrow.DefaultBatchRows
	}
	if o.MaxMemory <= 0 {
		o.MaxMemory = DefaultMemory
	}
	if o.Allocator == nil {
		o.Allocator = memory.NewGoAllocator()
	}
	mem := &limitedAllocator{mem: o.Allocator, limit: o.MaxMemory}
	props := parquet.NewReaderProperties(mem)
	props.BufferedStreamEnabled = true
	props.MaxUncompressedPageSize = max(o.MaxMemory/4, 1)
	if o.MaxPageBytes > 0 {
		props.MaxUncompressedPageSize = o.MaxPageBytes
	}
	r, fix, err := fixFooter(r, o.MaxMemory, props.MaxUncompressedPageSize, !o.SkipChecksums)
	if err != nil {
		return nil, err
	}
	// The CRCs are verified on the file as the footer says it is (moved
	// chunks where they were moved), before pages are rewritten.
	src := r
	pages := &pageReader{ReaderAtSeeker: r, done: map[int]bool{}, maxPage: props.MaxUncompressedPageSize}
	r = pages
	rd, err := file.NewParquetReader(r, file.WithReadProps(props))
	if err != nil {
		return nil, footerError(err)
	}
	if err := checkFooterCodes(rd); err != nil {
		rd.Close()
		return nil, err
	}
	if err := checkFooter(rd); err != nil {
		rd.Close()
		return nil, err
	}
	if mislabelledV2(rd) {
		flips, err := v2FlagOffsets(r, rd)
		if err != nil {
			rd.Close()
			return nil, err
		}
		if len(flips) > 0 {
			// The first reader is dropped, not closed: closing it would
			// close r, which the second reads (and closes).
			r = &flagReader{ReaderAtSeeker: r, flips: flips}
			if rd, err = file.NewParquetReader(r, file.WithReadProps(props)); err != nil {
				return nil, footerError(err)
			}
		}
	}
	if v := rd.MetaData().KeyValueMetadata().FindValue("ARROW:schema"); v != nil {
		if err := checkArrowSchema(*v); err != nil {
			rd.Close()
			return nil, fmt.Errorf("Parquet key-value metadata ARROW:schema: %w", err)
		}
	}
	if err := checkVariantGroups(rd.MetaData().Schema.Root(), "", 0); err != nil {
		rd.Close()
		return nil, err
	}
	fr, err := pqarrow.NewFileReader(rd, pqarrow.ArrowReadProperties{BatchSize: int64(o.BatchRows)}, mem)
	if err != nil {
		rd.Close()
		return nil, schemaError(err)
	}
	as, err := fr.Schema()
	if err != nil {
		rd.Close()
		return nil, schemaError(err)
	}
	int96, err := findInt96(rd, fr.Manifest)
	if err != nil {
		rd.Close()
		return nil, err
	}
	shapes := fileShapes(fr.Manifest, rd.MetaData().Schema, fix)
	hinted := shapeSchema(withInt96(textHints(as, fr.Manifest, rd.MetaData()), int96), shapes)
	raw := withInt96(as, int96)
	as = shapeSchema(raw, shapes)
	// Variant columns are read as their JSON text (variant.go).
	vp, err := planVariants(as)
	if err != nil {
		rd.Close()
		return nil, err
	}
	var avro string
	if vp != nil {
		as, hinted = vp.schema, vp.textSchema(hinted)
		avro, err = variantAvroSchema(rd, hinted, vp)
	} else {
		avro, err = storedAvroSchema(rd, hinted)
	}
	if err != nil {
		rd.Close()
		return nil, err
	}
	pfile := &File{pf: rd, fr: fr, schema: as, avro: avro, progress: o.Progress, shapes: shapes,
		int96: int96, raw: raw, batchRows: o.BatchRows, pages: pages, variants: vp}
	if fix != nil {
		pfile.lz4 = fix.lz4
	}
	if !o.SkipChecksums {
		pfile.src = src
	}
	return pfile, nil
}

// Schema returns the file's Arrow schema.
func (p *File) Schema() *arrow.Schema { return p.schema }

// AvroSchema returns the Avro schema the file's records are written to
// Trevni as.
func (p *File) AvroSchema() string { return p.avro }

// NumRows returns the file's number of rows.
func (p *File) NumRows() int64 { return p.pf.NumRows() }

// Close closes the file.
func (p *File) Close() error { return p.pf.Close() }

// RecordReader returns a reader of the file's batches.
func (p *File) RecordReader(ctx context.Context) (array.RecordReader, error) {
	for g := range p.pf.NumRowGroups() {
		if err := p.preparePages(g); err != nil {
			return nil, err
		}
		if err := p.checkPages(g); err != nil {
			return nil, err
		}
	}
	rr, err := p.fr.GetRecordReader(ctx, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("Parquet: %w", err)
	}
	if p.variants != nil {
		// Variants as text (variant.go); rows counted for its errors.
		var rows int64
		return &shapedReader{RecordReader: rr, schema: p.schema, shape: func(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
			out, err := p.outBatch(rec, -1, rows)
			rows += rec.NumRows()
			return out, err
		}}, nil
	}
	if p.shapes == nil {
		return rr, nil
	}
	return &shapedReader{RecordReader: rr, schema: p.schema, shapes: p.shapes}, nil
}

// WriteTo writes every row of the file into a Trevni writer (of the file's
// AvroSchema, or of one its columns map to) and returns the number
// written. A bad file is an error naming the row group and column where
// reading failed, never a panic.
func (p *File) WriteTo(ctx context.Context, w *trevni.Writer) (n int64, err error) {
	tw, err := trevniarrow.NewWriter(w, p.schema)
	if err != nil {
		return 0, err
	}
	for g := range p.pf.NumRowGroups() {
		if err := p.writeRowGroup(ctx, tw, g); err != nil {
			return tw.Rows(), err
		}
	}
	return tw.Rows(), nil
}

// writeRowGroup writes row group g.
func (p *File) writeRowGroup(ctx context.Context, tw *trevniarrow.Writer, g int) error {
	return p.rowGroupBatches(ctx, g, func(rec arrow.RecordBatch) error {
		if err := tw.Write(rec); err != nil {
			return err
		}
		if p.progress != nil {
			p.progress(tw.Rows())
		}
		return nil
	})
}

// rowGroupBatches calls each with the batches of row group g in order,
// shaped as the file's schema says (legacy lists, INT96), after the row
// group's page checksums are verified; a batch is released after the
// call, which retains it to keep it. An error of each ends the reading
// and is returned (wrapped with the row group but for INT96 files).
func (p *File) rowGroupBatches(ctx context.Context, g int, each func(arrow.RecordBatch) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if r == errMemory {
				err = fmt.Errorf("Parquet row group %d: %w", g, errMemory)
				return
			}
			err = fmt.Errorf("Parquet row group %d: bad data: %s", g, panicText(r))
		}
	}()
	if err := p.verifyChecksums(g); err != nil {
		return err
	}
	if err := p.preparePages(g); err != nil {
		return err
	}
	if err := p.checkPages(g); err != nil {
		return err
	}
	if len(p.int96) > 0 {
		var row int64
		return p.int96Batches(ctx, g, p.raw, func(b arrow.RecordBatch) error {
			rec, err := p.outBatch(b, g, row)
			if err != nil {
				return err
			}
			row += b.NumRows()
			defer rec.Release()
			return each(rec)
		})
	}
	rr, err := p.fr.GetRecordReader(ctx, nil, []int{g})
	if err != nil {
		return fmt.Errorf("Parquet row group %d: %w", g, err)
	}
	defer rr.Release()
	var row int64
	for rr.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := p.outBatch(rr.RecordBatch(), g, row)
		if err != nil {
			return fmt.Errorf("Parquet row group %d: %w", g, err)
		}
		row += rr.RecordBatch().NumRows()
		err = each(rec)
		rec.Release()
		if err != nil {
			return fmt.Errorf("Parquet row group %d: %w", g, err)
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return p.pageError(g, err)
	}
	return nil
}

// pageError returns the error of reading row group g: the first column
// chunk whose pages fail to read, named with the page, when there is one,
// and else err with the row group.
func (p *File) pageError(g int, err error) (out error) {
	out = fmt.Errorf("Parquet row group %d: %w", g, err)
	defer func() {
		if recover() != nil {
			out = fmt.Errorf("Parquet row group %d: %w", g, err)
		}
	}()
	rg := p.pf.RowGroup(g)
	for c := range rg.NumColumns() {
		name := p.pf.MetaData().Schema.Column(c).Path()
		pr, perr := rg.GetColumnPageReader(c)
		if perr != nil {
			return fmt.Errorf("Parquet row group %d, column %s: %w", g, name, perr)
		}
		page := 0
		for pr.Next() {
			page++
		}
		perr = pr.Err()
		pr.Close()
		if perr != nil {
			return fmt.Errorf("Parquet row group %d, column %s, page %d: %w", g, name, page, perr)
		}
	}
	return out
}

// checkFooter checks that every column chunk of the footer lies within
// the file, before arrow-go sizes buffers by them (some of its readers
// run where a panic cannot be recovered).
func checkFooter(rd *file.Reader) error {
	md := rd.MetaData()
	size := md.GetSourceFileSize()
	for g := range rd.NumRowGroups() {
		rg := md.RowGroup(g)
		if rg.NumRows() < 0 {
			return fmt.Errorf("Parquet footer: row group %d has %d rows", g, rg.NumRows())
		}
		if rg.NumColumns() != md.Schema.NumColumns() {
			return fmt.Errorf("Parquet footer: row group %d has %d columns of the schema's %d", g, rg.NumColumns(), md.Schema.NumColumns())
		}
		for c := range rg.NumColumns() {
			col, err := rg.ColumnChunk(c)
			if err != nil {
				return fmt.Errorf("Parquet footer: row group %d, column %d: %w", g, c, err)
			}
			start := col.DataPageOffset()
			if col.HasDictionaryPage() && col.DictionaryPageOffset() > 0 && start > col.DictionaryPageOffset() {
				start = col.DictionaryPageOffset()
			}
			n := col.TotalCompressedSize()
			if start < 0 || n < 0 || start > size || n > size-start || col.NumValues() < 0 {
				return fmt.Errorf("Parquet footer: row group %d, column %s: %d bytes at %d (%d values) do not lie in the file's %d bytes",
					g, md.Schema.Column(c).Path(), n, start, col.NumValues(), size)
			}
			if err := checkEncodings(g, md.Schema.Column(c).Path(), col.Type(), col.Encodings()); err != nil {
				return err
			}
		}
	}
	return nil
}
