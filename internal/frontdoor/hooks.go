package frontdoor

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"iter"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/trevni1"
)

// Hooks are what package trevni hands this package when it is
// initialized: the plumbing that needs the root's unexported state. The
// parameters typed any are the root's types, named in each function's
// doc; another type panics.
type Hooks struct {
	ReadBatches    func(r any, rows int, newBatcher func() (Batcher[any], error)) iter.Seq2[Batch[any], error]
	AsTrevni       func(ctx context.Context, f any) (*format.Reader, error)
	CandidateRows  func(ctx context.Context, p any, where string) ([]RowRange, error)
	FilterFields   func(ds any, where string) []string
	ConcatDatasets func(ctx context.Context, w io.Writer, dss []any, opts any) (int64, error)
	ScanReport     func(s assemble.ScanReport) any
	Schema         func(v any) *schema.Schema
	LayoutColumns  func(ds any) ([]layout.Column, error)
	FileReaders    func(f any) (*format.Reader, *trevni1.Reader, *clmn.Reader)
	FetchedEnd     func(r any, off, end int64) int64
	KeepMapOrder   func(wo any)
}

var hooks Hooks

// Install sets the hooks. Only package trevni calls it, once, as it is
// initialized; the state it sets is this internal package's own.
func Install(h Hooks) { hooks = h }

// Batcher builds batches of records in a form of its own (columnar
// arrays, say) from their Avro binary encoding. ReadBatches gives each of
// its workers a Batcher of its own, so a Batcher need not be safe for
// concurrent use; but a batch it has returned must share no memory with
// the batches it builds after, since it is handed on while they are
// built.
type Batcher[B any] interface {
	// Add adds a record, in the Avro binary encoding of the reader's
	// schema, to the batch being built (rec is valid only during the
	// call) and reports whether the batch is full. After an error the
	// Batcher is dropped.
	Add(rec []byte) (full bool, err error)
	// Flush returns the batch of the records added since the last
	// Flush (at least one), and about the bytes of memory it holds, and
	// begins the next batch.
	Flush() (batch B, bytes int64)
}

// Batch is a batch that ReadBatches yields.
type Batch[B any] struct {
	// Value is what a Batcher's Flush returned.
	Value B
	// Records is how many of Value's records, from its first, the
	// reader returns: all of them, but where the limit falls within the
	// batch.
	Records int
}

// DefaultBatchRows is the most records of a batch when ReadBatches is
// given no positive number.
const DefaultBatchRows = 64 << 10

// ReadBatches returns an iterator over the remaining records of r, a
// *trevni.Reader of Avro records (Dataset.NewReader), in batches of at
// most rows records (0: DefaultBatchRows): each worker
// (ReadOptions.Workers, as for the writing methods) reads ranges of a
// part's rows, as Avro binary, into batches of its own Batcher (made by
// newBatcher), and the batches are yielded in row order. The records, the
// limit's count and the first error are those of one goroutine reading
// them; but a batch never spans two ranges, so that the sizes a Batcher
// and rows give are maxima. On an error the batch being built is dropped
// and the error yielded; an error of Add is wrapped with the part's name
// and the record's row in the part. Breaking out of the loop, or
// cancelling r's context, stops the workers.
//
// On workers, the batches held at once (at most 3 for each worker and 3
// more) take about r's ReadOptions.OutputMemory in all (its default: 1
// MiB for each worker and one more): a batch is also cut once it may take
// more than its share, judged from its records' bytes in the Avro binary
// encoding times the bytes that Flush reported for each such byte of the
// batches before (at first 8). A batch holds at least one record. With
// one worker, or where the writing methods would use one, the records are
// read on the calling goroutine, batches then spanning parts. r is read
// to its end (or until the loop breaks); close it afterwards as ever.
func ReadBatches[B any](r any, rows int, newBatcher func() (Batcher[B], error)) iter.Seq2[Batch[B], error] {
	nb := func() (Batcher[any], error) {
		b, err := newBatcher()
		if err != nil {
			return nil, err
		}
		return anyBatcher[B]{b}, nil
	}
	return func(yield func(Batch[B], error) bool) {
		for b, err := range hooks.ReadBatches(r, rows, nb) {
			var v B
			if b.Value != nil {
				v = b.Value.(B)
			}
			if !yield(Batch[B]{Value: v, Records: b.Records}, err) {
				return
			}
		}
	}
}

// anyBatcher is a Batcher[B] as a Batcher[any]: a batch is boxed once.
type anyBatcher[B any] struct{ b Batcher[B] }

func (a anyBatcher[B]) Add(rec []byte) (bool, error) { return a.b.Add(rec) }
func (a anyBatcher[B]) Flush() (any, int64) {
	v, n := a.b.Flush()
	return v, n
}

// AsTrevni returns a Trevni 2 reader of the records of f, a
// *trevni.File, for the code that reads Trevni 2 columns only (the
// command's CSV sources, trevniarrow's direct Parquet path): the file's
// own reader for a Trevni 2 file, otherwise a reader of its columns as
// Trevni 2 lays them out (format.NewSourceReader), read in place, the one
// a Dataset reads records through. It belongs to f: closing f closes it.
func AsTrevni(ctx context.Context, f any) (*format.Reader, error) { return hooks.AsTrevni(ctx, f) }

// RowRange is a run of rows: Rows rows starting at First.
type RowRange struct {
	First, Rows int64
}

// CandidateRows returns the runs of the rows of p, a *trevni.Part, that
// may hold a record satisfying the filter where, by the block statistics
// of a Trevni 2 part (reading its header and the filter's statistics
// only); the whole part for other formats or without a filter. A runner
// splitting the part's rows into work (beam's trevniio) need make no work
// of the others.
func CandidateRows(ctx context.Context, p any, where string) ([]RowRange, error) {
	return hooks.CandidateRows(ctx, p, where)
}

// FilterFields returns the fields the filter where reads in the records
// of ds, a *trevni.Dataset, as ReadOptions.Fields takes them, for a
// reader that only counts: a reader opens a column reader, and reads the
// block table, of every field it selects, so that one selecting all of
// them would fetch a block table of every column over HTTP. With a reader
// schema they are the reader schema's. It returns nil (all fields) when
// the filter does not compile against the records' schema (with a reader
// schema, a filter on fields only the files have). A selection of them
// that a reader refuses (a path into an array) is best retried with nil.
func FilterFields(ds any, where string) []string { return hooks.FilterFields(ds, where) }

// ConcatDatasets writes to w one Trevni file of the rows of the data sets
// dss (each a *trevni.Dataset, opened on its own so that files of other
// columns may be named and compared) in order, as Dataset.Concat does for
// the parts of one, with opts a *trevni.WriteOptions (nil for none). A
// part that is not Trevni 2 is an error wrapping ErrNotTrevni2; parts of
// other columns are named with the first column that differs.
func ConcatDatasets(ctx context.Context, w io.Writer, dss []any, opts any) (int64, error) {
	return hooks.ConcatDatasets(ctx, w, dss, opts)
}

// ErrNotTrevni2 is wrapped by the error of a concat of a part of another
// format than Trevni 2.
var ErrNotTrevni2 = errors.New("concat joins Trevni 2 files only")

// TrevniHeader returns the rows and columns of a Trevni 2 file from its
// first 16 bytes (Output.Head), or false when they are not a Trevni 2
// header.
func TrevniHeader(head []byte) (rows int64, columns int, ok bool) {
	if len(head) < 16 || string(head[:4]) != "Trv\x02" {
		return 0, 0, false
	}
	return int64(binary.LittleEndian.Uint64(head[4:12])), int(binary.LittleEndian.Uint32(head[12:16])), true
}
