package trevniarrow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/schema"
)

// Default batch bounds.
const (
	DefaultBatchRows  = 64 << 10
	DefaultBatchBytes = 64 << 20
)

// ReadOptions selects the records read and sizes the batches. A nil
// *ReadOptions reads every record in batches of the default size.
type ReadOptions struct {
	// ReadOptions selects fields, filters, and takes a range, as for any
	// reader of the data set; its Workers is the number of goroutines
	// that read the records into batches (see RecordReader).
	trevni.ReadOptions
	// BatchRows is the most rows of a batch (default DefaultBatchRows).
	BatchRows int
	// BatchBytes bounds the memory of a batch's arrays: a batch ends
	// once past it, checked every 256 rows (default DefaultBatchBytes).
	BatchBytes int
	// Schema chooses the mapping (see SchemaOptions).
	Schema SchemaOptions
}

// RecordReader reads a data set's records as Arrow record batches. It is an
// array.RecordReader; it is not safe for concurrent use. Release it (or
// Close it) when done.
//
// The batches are built from the Trevni columns (through the columnar
// read layer, assemble/levels): each leaf column's definition and
// repetition levels and values are read for a batch's rows and its
// arrays built from them, with no records assembled, as pqarrow builds
// arrays from Parquet levels. A batch's rows are those of one part (a
// batch ends where a part ends), its columns read and built on
// ReadOptions.Workers goroutines (0 or 1: the calling one), each
// top-level column by one; the batches are the same whatever the
// workers. Memory is about two batches; on workers the batches are cut
// at a third of ReadOptions.OutputMemory (default 1 MiB for each worker
// and one more), which then holds the batch being built, what it is
// built from and the batch the caller holds. A batch is cut at
// BatchRows rows, and at about BatchBytes of arrays, judged from the
// batches before (at first from the columns' bytes).
//
// A data set whose parts resolve to a reader schema in a way the
// columnar plan does not cover (levels.ErrUnsupported) is read as
// records instead, decoded from their Avro binary straight into the
// arrays, on workers as frontdoor.ReadBatches reads them.
type RecordReader struct {
	refs   atomic.Int64
	col    *colReader // the columnar path; nil when records are read
	r      *trevni.Reader
	schema *arrow.Schema
	avro   *schema.Schema
	rows   int
	first  atomic.Pointer[batcher] // the batcher NewRecordReader made, for the first worker
	opts   *SchemaOptions
	bytes  int

	next   func() (frontdoor.Batch[batch], error, bool)
	stop   func()
	cur    arrow.RecordBatch
	curMem int64 // about the memory of cur's arrays
	err    error
	done   bool
}

var _ array.RecordReader = (*RecordReader)(nil)

// batch is a batch a batcher built: the record batch, and about the
// memory of its arrays.
type batch struct {
	rec arrow.RecordBatch
	mem int64
}

// batcher decodes records, from their Avro binary, straight into the
// arrays of a batch: one for each worker.
type batcher struct {
	schema   *arrow.Schema
	record   bool   // the records' schema is a record: its fields are the columns
	top      column // the record's struct, or the one value column
	maxBytes int
	n        int
	dec      dec
}

func (b *batcher) Add(rec []byte) (bool, error) {
	d := &b.dec // a field: a local would escape, once per row
	d.b, d.pos = rec, 0
	if err := b.top.decode(d); err != nil {
		return false, err
	}
	if d.pos != len(d.b) {
		return false, fmt.Errorf("%d bytes past the record", len(d.b)-d.pos)
	}
	b.n++
	return b.n%256 == 0 && b.top.bytes() >= b.maxBytes, nil
}

func (b *batcher) Flush() (batch, int64) {
	mem := int64(b.top.bytes())
	n := b.n
	b.n = 0
	data := b.top.finish()
	defer data.Release()
	var cols []arrow.Array
	if b.record {
		cols = make([]arrow.Array, len(data.Children()))
		for i, ch := range data.Children() {
			cols[i] = array.MakeFromData(ch)
		}
	} else {
		cols = []arrow.Array{array.MakeFromData(data)}
	}
	rec := array.NewRecordBatch(b.schema, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return batch{rec: rec, mem: mem}, mem
}

// newBatcher returns a batcher of the reader's records.
func (rr *RecordReader) newBatcher() (*batcher, error) {
	s := rr.avro
	b := &batcher{schema: rr.schema, record: s.Kind == schema.Record, maxBytes: rr.bytes}
	var err error
	if b.record {
		b.top, err = newColumn(s, arrow.StructOf(rr.schema.Fields()...), false, rr.opts)
	} else {
		b.top, err = newColumn(s, rr.schema.Field(0).Type, rr.schema.Field(0).Nullable, rr.opts)
	}
	return b, err
}

// NewRecordReader returns a reader of the data set's records (those opts
// selects) as Arrow record batches of the schema ArrowSchema maps their
// Avro schema to. Memory is bounded by the batches (see RecordReader).
func NewRecordReader(ctx context.Context, ds *trevni.Dataset, opts *ReadOptions) (*RecordReader, error) {
	var o ReadOptions
	if opts != nil {
		o = *opts
	}
	if o.BatchRows <= 0 {
		o.BatchRows = DefaultBatchRows
	}
	if o.BatchBytes <= 0 {
		o.BatchBytes = DefaultBatchBytes
	}
	o.Schema.UnionsAsStructs = o.Schema.UnionsAsStructs || o.Schema.Parquet
	var col *colReader
	err := errNotColumnar
	if !recordsOnly {
		col, err = newColReader(ctx, ds, &o)
	}
	if err == nil {
		rr := &RecordReader{col: col, schema: col.schema, avro: col.avro, rows: o.BatchRows, bytes: o.BatchBytes, opts: &o.Schema}
		rr.refs.Store(1)
		return rr, nil
	}
	if !errors.Is(err, errNotColumnar) {
		return nil, err
	}
	r, err := ds.NewReader(ctx, &o.ReadOptions)
	if err != nil {
		return nil, err
	}
	s := r.Schema()
	as, err := ArrowSchema(s, &o.Schema)
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("Arrow schema: %w", err)
	}
	rr := &RecordReader{r: r, schema: as, avro: s, rows: o.BatchRows, bytes: o.BatchBytes, opts: &o.Schema}
	b, err := rr.newBatcher()
	if err != nil {
		r.Close()
		return nil, err
	}
	rr.first.Store(b)
	rr.refs.Store(1)
	return rr, nil
}

// recordsOnly makes every RecordReader read records as Avro binary
// (tests comparing the columnar path with it).
var recordsOnly bool

// Schema returns the batches' Arrow schema.
func (rr *RecordReader) Schema() *arrow.Schema { return rr.schema }

// AvroSchema returns the Avro schema of the records read.
func (rr *RecordReader) AvroSchema() *schema.Schema { return rr.avro }

// Next reads the next batch; false at the end or on an error (see Err).
// The batch is valid until the next call to Next or Release.
func (rr *RecordReader) Next() bool {
	if rr.cur != nil {
		rr.cur.Release()
		rr.cur = nil
	}
	if rr.done {
		return false
	}
	if rr.col != nil {
		rec, mem, err := rr.col.next()
		if err != nil {
			if err != io.EOF {
				rr.err = err
			}
			rr.end()
			return false
		}
		rr.cur, rr.curMem = rec, mem
		return true
	}
	if rr.next == nil {
		newBatcher := func() (frontdoor.Batcher[batch], error) {
			if b := rr.first.Swap(nil); b != nil {
				return b, nil
			}
			return rr.newBatcher()
		}
		rr.next, rr.stop = iter.Pull2(frontdoor.ReadBatches(rr.r, rr.rows, newBatcher))
	}
	b, err, ok := rr.next()
	if !ok || err != nil {
		rr.err = err
		rr.end()
		return false
	}
	rec := b.Value.rec
	if int64(b.Records) < rec.NumRows() {
		// The limit falls within the batch.
		part := rec.NewSlice(0, int64(b.Records))
		rec.Release()
		rec = part
	}
	rr.cur, rr.curMem = rec, b.Value.mem
	return true
}

// end ends reading: the workers are stopped, the data set's reader
// closed.
func (rr *RecordReader) end() {
	rr.done = true
	if rr.col != nil {
		rr.col.close()
		return
	}
	if rr.stop != nil {
		rr.stop()
	}
	rr.r.Close()
}

// RecordBatch returns the batch Next read.
func (rr *RecordReader) RecordBatch() arrow.RecordBatch { return rr.cur }

// Record returns the batch Next read.
//
// Deprecated: use RecordBatch, as array.RecordReader says.
func (rr *RecordReader) Record() arrow.RecordBatch { return rr.cur }

// BatchBytes returns about the memory of the arrays of the batch Next
// read (what ReadOptions.BatchBytes bounds), for a writer that groups
// batches by their size.
func (rr *RecordReader) BatchBytes() int64 { return rr.curMem }

// Err returns the error that ended reading, if any.
func (rr *RecordReader) Err() error { return rr.err }

// Report returns what reading has cost so far: a report of each part
// read to its end, or closed.
func (rr *RecordReader) Report() []trevni.PartReport {
	if rr.col != nil {
		return slices.Clone(rr.col.reports)
	}
	return rr.r.Report()
}

// Reader returns the reader of records beneath, for its counts; nil when
// the batches are built from the columns (every data set but one whose
// parts resolve to a reader schema in a way the columnar plan does not
// cover, see levels.ErrUnsupported).
func (rr *RecordReader) Reader() *trevni.Reader { return rr.r }

// Retain adds a reference.
func (rr *RecordReader) Retain() { rr.refs.Add(1) }

// Release drops a reference; the last closes the reader.
func (rr *RecordReader) Release() {
	if rr.refs.Add(-1) == 0 {
		rr.Close()
	}
}

// Close releases the current batch, stops the workers and closes the
// data set's reader.
func (rr *RecordReader) Close() error {
	if rr.cur != nil {
		rr.cur.Release()
		rr.cur = nil
	}
	rr.done = true
	if rr.col != nil {
		rr.col.close()
		return nil
	}
	if rr.stop != nil {
		rr.stop()
	}
	return rr.r.Close()
}
