package trevniarrow

import (
	"context"
	"io"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/trevni-go/trevni"
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
	// Allocator, if set, holds the batches' buffers: each batch is
	// built in Go memory, as without it, then copied into buffers of
	// the allocator (one copy a batch), which Release of the batch gives
	// back. Nil: the batches are Go memory, built in place, with no
	// copy.
	Allocator memory.Allocator
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
// batches before (at first from the columns' bytes). Parts of other
// schemas are read as the data set's reader schema through the plan's
// resolution (levels.Plan), as Avro's resolution reads them.
type RecordReader struct {
	refs   atomic.Int64
	col    *colReader
	schema *arrow.Schema
	avro   *schema.Schema
	cur    arrow.RecordBatch
	curMem int64            // about the memory of cur's arrays
	mem    memory.Allocator // of ReadOptions; nil: Go memory
	err    error
	done   bool
}

var _ array.RecordReader = (*RecordReader)(nil)

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
	col, err := newColReader(ctx, ds, &o)
	if err != nil {
		return nil, err
	}
	rr := &RecordReader{col: col, schema: col.schema, avro: col.avro, mem: o.Allocator}
	rr.refs.Store(1)
	return rr, nil
}

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
	rec, mem, err := rr.col.next()
	if err != nil {
		if err != io.EOF {
			rr.err = err
		}
		rr.end()
		return false
	}
	if rr.mem != nil {
		rec = copyRecord(rr.mem, rec)
	}
	rr.cur, rr.curMem = rec, mem
	return true
}

// copyRecord returns a copy of rec whose buffers are the allocator's,
// and releases rec.
func copyRecord(mem memory.Allocator, rec arrow.RecordBatch) arrow.RecordBatch {
	defer rec.Release()
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		d := copyData(mem, c.Data())
		cols[i] = array.MakeFromData(d)
		d.Release()
	}
	out := array.NewRecordBatch(rec.Schema(), cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out
}

// copyData returns a copy of d, its children and dictionary included,
// in buffers of the allocator.
func copyData(mem memory.Allocator, d arrow.ArrayData) arrow.ArrayData {
	bufs := make([]*memory.Buffer, len(d.Buffers()))
	for i, b := range d.Buffers() {
		if b == nil {
			continue
		}
		nb := memory.NewResizableBuffer(mem)
		nb.Resize(b.Len())
		copy(nb.Bytes(), b.Bytes())
		bufs[i] = nb
	}
	children := make([]arrow.ArrayData, len(d.Children()))
	for i, c := range d.Children() {
		children[i] = copyData(mem, c)
	}
	var out arrow.ArrayData
	// Dictionary returns a nil *array.Data, not a nil interface, when
	// there is none.
	if dict, ok := d.Dictionary().(*array.Data); ok && dict != nil {
		dc := copyData(mem, dict)
		out = array.NewDataWithDictionary(d.DataType(), d.Len(), bufs, d.NullN(), d.Offset(), dc.(*array.Data))
		dc.Release()
	} else {
		out = array.NewData(d.DataType(), d.Len(), bufs, children, d.NullN(), d.Offset())
	}
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	for _, c := range children {
		c.Release()
	}
	return out
}

// end ends reading: the part being read is closed.
func (rr *RecordReader) end() {
	rr.done = true
	rr.col.close()
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
	return slices.Clone(rr.col.reports)
}

// Retain adds a reference.
func (rr *RecordReader) Retain() { rr.refs.Add(1) }

// Release drops a reference; the last closes the reader.
func (rr *RecordReader) Release() {
	if rr.refs.Add(-1) == 0 {
		rr.Close()
	}
}

// Close releases the current batch and closes the part being read.
func (rr *RecordReader) Close() error {
	if rr.cur != nil {
		rr.cur.Release()
		rr.cur = nil
	}
	rr.done = true
	rr.col.close()
	return nil
}
