package trevniarrow

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

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
	// reader of the data set.
	trevni.ReadOptions
	// BatchRows is the most rows of a batch (default DefaultBatchRows).
	BatchRows int
	// BatchBytes bounds the memory of a batch's arrays: a batch ends at
	// the first record past it (default DefaultBatchBytes).
	BatchBytes int
	// Schema chooses the mapping (see SchemaOptions).
	Schema SchemaOptions
}

// RecordReader reads a data set's records as Arrow record batches. It is an
// array.RecordReader; it is not safe for concurrent use. Release it (or
// Close it) when done.
type RecordReader struct {
	refs   atomic.Int64
	ctx    context.Context
	r      *trevni.Reader
	schema *arrow.Schema
	avro   *schema.Schema
	top    column // the record's struct, or the one value column
	rows   int
	bytes  int
	buf    []byte
	dec    dec
	cur    arrow.RecordBatch
	err    error
	done   bool
}

var _ array.RecordReader = (*RecordReader)(nil)

// NewRecordReader returns a reader of the data set's records (those opts
// selects) as Arrow record batches of the schema ArrowSchema maps their
// Avro schema to. Memory is bounded by the batch: records are decoded
// from their Avro binary straight into the batch's arrays.
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
	var top column
	if s.Kind == schema.Record {
		top, err = newColumn(s, arrow.StructOf(as.Fields()...), false, &o.Schema)
	} else {
		top, err = newColumn(s, as.Field(0).Type, as.Field(0).Nullable, &o.Schema)
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	rr := &RecordReader{ctx: ctx, r: r, schema: as, avro: s, top: top, rows: o.BatchRows, bytes: o.BatchBytes}
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
	n := 0
	for n < rr.rows {
		if n%256 == 0 {
			if err := rr.ctx.Err(); err != nil {
				rr.fail(err)
				return false
			}
			if n > 0 && rr.top.bytes() >= rr.bytes {
				break
			}
		}
		var err error
		rr.buf, err = rr.r.ReadBinary(rr.buf[:0])
		if err == io.EOF {
			rr.done = true
			break
		}
		if err != nil {
			rr.fail(err)
			return false
		}
		d := &rr.dec // a field: a local would escape, once per row
		d.b, d.pos = rr.buf, 0
		if err := rr.top.decode(d); err != nil {
			rr.fail(fmt.Errorf("row %d: %w", rr.r.Row()-1, err))
			return false
		}
		if d.pos != len(d.b) {
			rr.fail(fmt.Errorf("row %d: %d bytes past the record", rr.r.Row()-1, len(d.b)-d.pos))
			return false
		}
		n++
	}
	if n == 0 {
		rr.r.Close()
		return false
	}
	data := rr.top.finish()
	defer data.Release()
	var cols []arrow.Array
	if rr.avro.Kind == schema.Record {
		cols = make([]arrow.Array, len(data.Children()))
		for i, ch := range data.Children() {
			cols[i] = array.MakeFromData(ch)
		}
	} else {
		cols = []arrow.Array{array.MakeFromData(data)}
	}
	rr.cur = array.NewRecordBatch(rr.schema, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return true
}

func (rr *RecordReader) fail(err error) {
	rr.err, rr.done = err, true
	rr.r.Close()
}

// RecordBatch returns the batch Next read.
func (rr *RecordReader) RecordBatch() arrow.RecordBatch { return rr.cur }

// Record returns the batch Next read.
//
// Deprecated: use RecordBatch, as array.RecordReader says.
func (rr *RecordReader) Record() arrow.RecordBatch { return rr.cur }

// Err returns the error that ended reading, if any.
func (rr *RecordReader) Err() error { return rr.err }

// Report returns what reading has cost so far.
func (rr *RecordReader) Report() []trevni.PartReport { return rr.r.Report() }

// Reader returns the reader of records beneath, for its counts.
func (rr *RecordReader) Reader() *trevni.Reader { return rr.r }

// Retain adds a reference.
func (rr *RecordReader) Retain() { rr.refs.Add(1) }

// Release drops a reference; the last closes the reader.
func (rr *RecordReader) Release() {
	if rr.refs.Add(-1) == 0 {
		rr.Close()
	}
}

// Close releases the current batch and closes the data set's reader.
func (rr *RecordReader) Close() error {
	if rr.cur != nil {
		rr.cur.Release()
		rr.cur = nil
	}
	rr.done = true
	return rr.r.Close()
}
