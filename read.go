package trevni

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"sync/atomic"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/predicate"
	"github.com/trevni-go/trevni/remote"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

// ReadOptions selects what a reader returns. A nil *ReadOptions reads every
// field of every record.
type ReadOptions struct {
	// Fields, if set, selects record fields by dotted path ("a.b.c");
	// only their columns are read (see assemble.Options.Fields).
	Fields []string
	// Where, if set, is a filter expression (package predicate's grammar,
	// as "trevni tojson --where" takes it): only the records satisfying
	// it are returned, and blocks whose statistics rule out a match are
	// not read.
	Where string
	// Offset is the number of rows of the data set to pass over first,
	// counted before the filter; seeking to them reads nothing of the
	// rows passed over.
	Offset int64
	// Limit, if positive, is the most records to return: with a filter,
	// the most matching records.
	Limit int64
	// Rows, if positive, ends the rows read: only the rows from Offset to
	// Offset+Rows-1 of the data set are read, matching or not (a range of
	// rows to split work by, where Limit counts records returned).
	Rows int64
	// Progress, if set, is called now and then with the records returned
	// so far and the bytes read from the parts so far.
	Progress func(records, bytes int64)
	// Workers is the number of goroutines that assemble and encode
	// records in the writing methods (Reader.WriteJSON, WriteAvro,
	// Dataset.WriteProto) and ReadStructs: each part's rows are split
	// into ranges, read on the workers, and written in order, the output
	// byte for byte that of one goroutine. 0 or 1 reads on the calling
	// goroutine, the default, so that a library read inside a request
	// handler takes one core unless told otherwise; the trevni command
	// gives runtime.GOMAXPROCS(0). Parts read over HTTP are read by one
	// goroutine whatever it says. Read, ReadBinary and the other
	// iterators always read on the calling goroutine.
	Workers int
	// OutputMemory bounds the encoded records that the writing methods'
	// workers (Workers above 1) hold waiting to be written in order, in
	// all (and the batches of ReadStructs on workers, and those of the
	// Arrow bridge's record reader): each task running or waiting holds at most its share, and aims
	// at twice its share of output (but holds at least four blocks of
	// each column read). 0 means DefaultOutputMemory for each worker and
	// one more (3 MiB on two workers), and then a task that must be
	// larger than twice its share (where a record's output is much larger
	// than its columns' bytes, as JSON's) may hold half its output, up to
	// 8 MiB, so that the next worker need not wait for it. Besides it, each worker
	// holds the block buffers of its reader of the part (see
	// format.ReaderOptions.BlockMemory).
	OutputMemory int64
	// Reuse lets ReadStructs refill its batches of records: each *T it
	// yields is then overwritten, with what its slices and maps hold, by
	// the records of a later batch (up to 4096 records later), and must
	// be copied deeply to be kept. It saves allocating each batch anew.
	Reuse bool

	// taskRows, if positive, is the rows of a worker's task (tests).
	taskRows int64
}

// Reader reads the records of a data set, part after part, as one
// sequence. It is not safe for concurrent use. Close it when done.
type Reader struct {
	ds     *Dataset
	ctx    context.Context
	opts   ReadOptions
	schema *schema.Schema // of the records returned

	k      int   // the next part to open
	span   span  // the rows and records still wanted
	before int64 // rows of the parts before the current one
	bytes  int64 // bytes read from the parts closed

	file *File
	part partReader                                  // the current part's reader: ar or pm
	ar   *assemble.AvroReader                        // for Avro records
	pm   *assemble.ProtoReader                       // for protobuf messages
	open func(rd *format.Reader) (partReader, error) // makes a part's reader, and sets ar or pm
	make func(rd *format.Reader) (partReader, error) // makes a part's reader, and nothing else
	from int64                                       // the current part's first row (SeekRow)
	to   int64                                       // the current part's end (StopAt)
	// taskRows, if positive, is the rows of a worker's task (tests).
	taskRows int64
	n        int64 // records returned

	reports  []PartReport
	counting bool // Count takes its matches off the span itself

	// fetching is the current part's coalescer (of a URL), for
	// fetchedEnd, which may be called while another goroutine reads.
	fetching atomic.Pointer[remote.Coalescer]
}

// partReader is what the assembling readers of Avro records and of
// protobuf messages have in common, all a Reader needs to walk the parts.
type partReader interface {
	SeekRow(row int64) error
	StopAt(row int64)
	SetLimit(n int64)
	Row() int64
	Count(ctx context.Context) (int64, error)
	ColumnsRead() []int
	Filter() *predicate.Predicate
	Report() assemble.ScanReport
	Schema() *schema.Schema
}

// PartReport is what reading one part cost.
type PartReport struct {
	// Part is the part's name.
	Part string
	// Scan is the assembling reader's report: rows scanned and matched,
	// columns and blocks read (the bytes decoded).
	Scan ScanReport
	// Fetched is what was read from storage for the part: the header
	// included, and over HTTP what the coalescer fetched ahead.
	Fetched Fetched
}

// ScanReport says how much of a part a read scanned and decoded.
type ScanReport struct {
	// RowsScanned is the number of rows whose fields were read: the rows
	// a filter was evaluated on, or without a filter the records read.
	RowsScanned int64
	// RowsMatched is the number of records returned.
	RowsMatched int64
	// Columns lists the columns read, for output or for the filter.
	Columns []ColumnScan
	// BytesRead is the sum of the columns' BytesRead; FileSize the size
	// of the part's file.
	BytesRead, FileSize int64
	// RowsProven is the number of rows of RowsScanned that the blocks'
	// statistics proved to satisfy the filter: they were taken without
	// reading the filter's columns (docs/filters.md).
	RowsProven int64
}

// ColumnScan is one column's part of a ScanReport.
type ColumnScan struct {
	// Column is the file column's number and Name its name.
	Column int
	Name   string
	// Blocks is the column's number of blocks, BlocksRead how many were
	// read and decompressed (a block read again after a seek counts
	// again) and BlocksSkipped how many were never read.
	Blocks, BlocksRead, BlocksSkipped int
	// BytesRead is the stored bytes of the blocks read, checksums included.
	BytesRead int64
}

// scanReport returns the assembling reader's report as the root's.
func scanReport(s assemble.ScanReport) ScanReport {
	r := ScanReport{RowsScanned: s.RowsScanned, RowsMatched: s.RowsMatched, BytesRead: s.BytesRead, FileSize: s.FileSize, RowsProven: s.RowsProven}
	if s.Columns != nil {
		r.Columns = make([]ColumnScan, len(s.Columns))
		for i, c := range s.Columns {
			r.Columns[i] = ColumnScan(c)
		}
	}
	return r
}

// Fetched counts what was read from storage: requests (reads of a local
// file, range requests over HTTP) and bytes.
type Fetched struct {
	Requests, Bytes int64
}

// NewReader returns a reader of the data set's records, as Avro values of
// the data set's schema (or of the projection Fields makes of it). It
// reads the first part's header to learn that schema; a filter or field
// selection that does not fit the schema is an error here.
func (ds *Dataset) NewReader(ctx context.Context, opts *ReadOptions) (*Reader, error) {
	if ds.schemaErr != nil {
		return nil, ds.schemaErr
	}
	if ds.schema == nil {
		return nil, fmt.Errorf("%s: %w", ds.parts[0].Name(), errNoSchema)
	}
	r := &Reader{ds: ds, ctx: ctx}
	if opts != nil {
		r.opts = *opts
	}
	r.make = func(rd *format.Reader) (partReader, error) {
		ar, err := newAvroReader(rd, r.assembleOptions())
		if err != nil {
			return nil, err
		}
		return ar, nil
	}
	r.open = func(rd *format.Reader) (partReader, error) {
		pr, err := r.make(rd)
		if err == nil {
			r.ar = pr.(*assemble.AvroReader)
		}
		return pr, err
	}
	return r, r.start()
}

// start checks the options and opens the first part to read.
func (r *Reader) start() error {
	var err error
	if r.span, err = newSpan(&r.opts); err != nil {
		return err
	}
	if err := r.next(); err != nil && err != io.EOF {
		r.Close()
		return err
	}
	if r.schema == nil {
		// Every part was passed over: learn the records' schema from
		// the first part all the same.
		return r.learnSchema()
	}
	return nil
}

// learnSchema sets the records' schema from the first part.
func (r *Reader) learnSchema() error {
	f, err := r.ds.parts[0].Open(r.ctx)
	if err != nil {
		return err
	}
	defer f.Close()
	rd, err := f.records(r.ctx)
	if err != nil {
		return err
	}
	pr, err := r.open(rd)
	if err != nil {
		return partErr(f.part.Name(), err)
	}
	r.schema = pr.Schema()
	r.ar, r.pm = nil, nil
	return nil
}

func (r *Reader) assembleOptions() *assemble.Options {
	return &assemble.Options{
		ReaderSchema:   r.ds.opts.ReaderSchema,
		Fields:         r.opts.Fields,
		Filter:         r.opts.Where,
		Layout:         r.ds.opts.layout(),
		MaxRecordBytes: r.ds.opts.MaxRecordBytes,
	}
}

// newAvroReader is assemble.NewAvroReader, except that when a selection
// of several fields fails, the error is that of the first field, in the
// order given, that fails on its own: the reader may check the fields in
// any order, and a message should not change from one run to the next.
func newAvroReader(rd *format.Reader, opts *assemble.Options) (*assemble.AvroReader, error) {
	ar, err := assemble.NewAvroReader(rd, opts)
	if err == nil || len(opts.Fields) < 2 {
		return ar, err
	}
	for _, f := range opts.Fields {
		one := *opts
		one.Fields = []string{f}
		if _, ferr := assemble.NewAvroReader(rd, &one); ferr != nil {
			return nil, ferr
		}
	}
	return nil, err
}

// next closes the current part and opens the next one holding records to
// read; io.EOF when none is left.
func (r *Reader) next() error {
	r.closePart()
	for r.k < len(r.ds.parts) && !r.span.done() {
		p := r.ds.parts[r.k]
		r.k++
		from, to, read := r.span.next(p.rows)
		if !read {
			r.before += p.rows
			continue
		}
		f, err := p.openFor(r.ctx, openRecords)
		if err != nil {
			return err
		}
		if f.RowCount() != p.rows {
			f.Close()
			return fmt.Errorf("%s: changed while being read (%d rows, then %d)", p.Name(), p.rows, f.RowCount())
		}
		rd, err := f.records(r.ctx)
		if err != nil {
			f.Close()
			return err
		}
		pr, err := r.open(rd)
		if err == nil && f.coalescer != nil {
			// Before the seek, which reads the first blocks wanted.
			err = hint(rd, f.coalescer, pr.ColumnsRead(), pr.Filter(), from, to, r.span.remaining)
		}
		// The end and the limit before the seek: they bound what the
		// seek's first blocks read ahead.
		if err == nil {
			pr.StopAt(to)
			pr.SetLimit(r.span.remaining)
		}
		if err == nil && from > 0 {
			err = pr.SeekRow(from)
		}
		if err != nil {
			f.Close()
			r.ar, r.pm = nil, nil
			return partErr(p.Name(), err)
		}
		r.from, r.to = from, to
		if r.schema == nil {
			r.schema = pr.Schema()
		}
		r.file, r.part = f, pr
		r.fetching.Store(f.coalescer)
		return nil
	}
	return io.EOF
}

// closePart closes the current part, keeping its report.
func (r *Reader) closePart() {
	if r.file == nil {
		return
	}
	rep := r.part.Report()
	r.file.Close() // first: what the read-ahead fetched is counted too
	r.reports = append(r.reports, PartReport{Part: r.file.part.Name(), Scan: scanReport(rep), Fetched: r.file.Fetched()})
	if !r.counting {
		r.span.took(rep.RowsMatched)
	}
	r.before += r.file.part.rows
	r.bytes += r.file.BytesRead()
	r.file, r.part, r.ar, r.pm = nil, nil, nil, nil
	r.fetching.Store(nil)
}

// step reads the next record with read, moving on to the next part at the
// end of one.
func step[T any](r *Reader, read func() (T, error)) (T, error) {
	for {
		if r.part == nil {
			var zero T
			if err := r.next(); err != nil {
				return zero, err
			}
		}
		v, err := read()
		if err == nil {
			r.n++
			if r.opts.Progress != nil && r.n%4096 == 0 {
				r.opts.Progress(r.n, r.BytesRead())
			}
			return v, nil
		}
		if !errors.Is(err, io.EOF) {
			return v, partErr(r.file.part.Name(), err)
		}
		if err := r.ctx.Err(); err != nil {
			return v, err
		}
		r.closePart()
	}
}

// SchemaText returns the Avro schema of the records returned, as JSON
// text: the data set's, or its projection on Fields.
func (r *Reader) SchemaText() string { return r.schema.String() }

// Read returns the next record as a goavro native value of SchemaText, or
// io.EOF after the last.
func (r *Reader) Read() (any, error) {
	return step(r, func() (any, error) { return r.ar.Read() })
}

// ReadBinary appends the next record, in the Avro binary encoding of
// SchemaText, to dst, or returns io.EOF after the last. It is the fast path.
func (r *Reader) ReadBinary(dst []byte) ([]byte, error) {
	return step(r, func() ([]byte, error) { return r.ar.ReadBinary(dst) })
}

// ReadJSON appends the next record, in Avro's JSON encoding of SchemaText, to
// dst, or returns io.EOF after the last.
func (r *Reader) ReadJSON(dst []byte) ([]byte, error) {
	return step(r, func() ([]byte, error) { return r.ar.ReadJSON(dst) })
}

// ReadPlainJSON appends the next record, in plain JSON (see
// assemble.AvroReader.ReadPlainJSON: unions unwrapped, bytes in base64,
// decimals exact, times as strings), to dst, or returns io.EOF after the
// last.
func (r *Reader) ReadPlainJSON(dst []byte) ([]byte, error) {
	return step(r, func() ([]byte, error) { return r.ar.ReadPlainJSON(dst) })
}

// All returns an iterator over the remaining records, as Read returns
// them. It stops after the last, or after yielding an error.
func (r *Reader) All() iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		for {
			v, err := r.Read()
			if err == io.EOF {
				return
			}
			if !yield(v, err) || err != nil {
				return
			}
		}
	}
}

// Row returns the data set's row number of the record Read returned last
// plus one: the row after it.
func (r *Reader) Row() int64 {
	if r.part == nil {
		return r.before
	}
	return r.before + r.part.Row()
}

// Records returns the number of records returned so far.
func (r *Reader) Records() int64 { return r.n }

// BytesRead returns the bytes read from the parts so far.
func (r *Reader) BytesRead() int64 {
	n := r.bytes
	if r.file != nil {
		n += r.file.BytesRead()
	}
	return n
}

// Report returns what reading has cost so far, part by part (the part being
// read included).
func (r *Reader) Report() []PartReport {
	out := append([]PartReport(nil), r.reports...)
	if r.part != nil {
		out = append(out, PartReport{Part: r.file.part.Name(), Scan: scanReport(r.part.Report()), Fetched: r.file.Fetched()})
	}
	return out
}

// fetchedEnd returns where the bytes of the byte range [off, end) of the
// part being read that the reader has fetched from a store or over HTTP
// end (the end of the furthest of them, read already or held ahead), or
// off when it has fetched none of them, or the part is a local file or
// there is none. A column's range (format.Reader's ColumnRange) tells how
// far the reader has fetched ahead in that column: a runner that splits
// the rows left of a read (Beam's) places the split where the reader has
// fetched nothing, so that no byte is fetched twice. Unlike the other
// methods of a Reader, it may be called while another goroutine reads.
func (r *Reader) fetchedEnd(off, end int64) int64 {
	if c := r.fetching.Load(); c != nil {
		return c.FetchedEnd(off, end)
	}
	return off
}

// Close closes the part being read.
func (r *Reader) Close() error {
	r.fetching.Store(nil)
	if r.file == nil {
		return nil
	}
	err := r.file.Close()
	r.file, r.part, r.ar, r.pm = nil, nil, nil, nil
	return err
}

// All returns an iterator over the data set's records as goavro native
// values (see Reader.Read), as Reader.All does over a reader's. It stops
// after the last record or the first error, which it yields.
func (ds *Dataset) All(ctx context.Context, opts *ReadOptions) iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		r, err := ds.NewReader(ctx, opts)
		if err != nil {
			yield(nil, err)
			return
		}
		defer r.Close()
		for v, err := range r.All() {
			if !yield(v, err) {
				return
			}
		}
	}
}

// Count returns how many records a reader with opts would return, reading
// only the filter's columns, and no column at all without a filter.
func (ds *Dataset) Count(ctx context.Context, opts *ReadOptions) (int64, error) {
	var o ReadOptions
	if opts != nil {
		o = *opts
	}
	if o.Where == "" {
		if _, err := newSpan(&o); err != nil {
			return 0, err
		}
		n := max(ds.RowCount()-o.Offset, 0)
		if o.Rows > 0 {
			n = min(n, o.Rows)
		}
		if o.Limit > 0 {
			n = min(n, o.Limit)
		}
		return n, nil
	}
	o.Fields = ds.filterFields(o.Where)
	r, err := ds.NewReader(ctx, &o)
	if err != nil && o.Fields != nil {
		o.Fields = nil // every field, as the filter reads them
		r, err = ds.NewReader(ctx, &o)
	}
	if err != nil {
		return 0, err
	}
	defer r.Close()
	return r.Count()
}

// filterFields returns the fields the filter where reads, as
// ReadOptions.Fields takes them (see frontdoor.FilterFields), nil for all.
func (ds *Dataset) filterFields(where string) []string {
	if where == "" || ds.schema == nil {
		return nil
	}
	l, err := layout.New(ds.schema, ds.opts.layout())
	if err != nil {
		return nil
	}
	p, err := predicate.Compile(where, ds.schema, l)
	if err != nil {
		return nil
	}
	return p.Fields()
}

// Count counts the records the reader has still to return, and reads
// past them: only the filter's columns are read, block statistics ruling
// out whole blocks, and with no filter no column at all. Report then tells
// what each part cost.
func (r *Reader) Count() (int64, error) {
	if r.part != nil && !r.counting {
		// The records already read from this part count against the
		// limit now: the part's closing will not take them.
		r.span.took(r.part.Report().RowsMatched)
	}
	r.counting = true
	var n int64
	for {
		if r.part == nil {
			if err := r.next(); err == io.EOF {
				return n, nil
			} else if err != nil {
				return n, err
			}
		}
		c, err := r.part.Count(r.ctx)
		if err != nil {
			return n, partErr(r.file.part.Name(), err)
		}
		if r.span.remaining >= 0 {
			c = min(c, r.span.remaining) // Count does not stop at the limit
		}
		r.span.took(c)
		n += c
		r.n += c
		r.closePart()
	}
}

// Validate checks every part: the Trevni structure of Trevni 2 parts
// (checksums, blocks holding their rows) and every record as a reader
// would read it. It returns the first problem, naming the part. A part
// over a store or HTTP is fetched once, whole, into a temporary copy (see
// Part.OpenWhole).
func (ds *Dataset) Validate(ctx context.Context) error {
	for _, p := range ds.parts {
		if err := p.validate(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (p *Part) validate(ctx context.Context) error {
	// Every block is read more than once: a remote part is fetched once,
	// whole, into a temporary copy.
	f, err := p.OpenWhole(ctx)
	if err != nil {
		return err
	}
	defer f.Close()
	if f.trevni != nil {
		var first error
		f.trevni.Validate(func(err error) {
			if first == nil {
				first = err
			}
		})
		if first != nil {
			return partErr(p.Name(), first)
		}
		if p.text == "" {
			return nil // not written from Avro: the structure is all
		}
	}
	rd, err := f.records(ctx)
	if err != nil {
		return err
	}
	ar, err := assemble.NewAvroReader(rd, &assemble.Options{Layout: p.ds.opts.layout(), MaxRecordBytes: p.ds.opts.MaxRecordBytes})
	if err == nil {
		err = ar.Validate(ctx)
	}
	if err != nil {
		return partErr(p.Name(), err)
	}
	return nil
}
