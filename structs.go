package trevni

import (
	"context"
	"errors"
	"io"
	"iter"
	"unsafe"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/ordered"
)

// ReadStructs returns an iterator over the records of ds read into Go
// structs of type T (see assemble.StructReader for the types that fit):
// T's fields are the projection, so only their columns are read. opts may
// give a filter, an offset and a limit; its Fields must be empty. Each *T
// yielded is the caller's, sharing no memory with the reader or with the
// other records (unless opts.Reuse, under which the next batch of records
// overwrites it and what its slices and maps hold: copy what you keep).
// The iterator stops after the last record or the first error, which it
// yields.
//
// opts.Workers goroutines (0 or 1: the calling goroutine) read the records: each part's
// rows are cut into ranges, each worker reads a range into batches of T,
// and the batches are yielded in row order, so the records, the limit's
// count and the first error are those of one goroutine. The batches held
// at once take about opts.OutputMemory in all (its default: 1 MiB for
// each worker and one more), judged from the size of T and the bytes of
// the columns read per row; a batch holds at least one record. Breaking
// out of the loop stops the workers.
func ReadStructs[T any](ctx context.Context, ds *Dataset, opts *ReadOptions) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		var o ReadOptions
		if opts != nil {
			o = *opts
		}
		if len(o.Fields) > 0 {
			yield(nil, errors.New("trevni: ReadStructs: the struct type is the selection: give no Fields"))
			return
		}
		if ds.opts.ReaderSchema != "" {
			yield(nil, errors.New("trevni: ReadStructs: the struct type is the reader schema: open the data set without one"))
			return
		}
		sp, err := newSpan(&o)
		if err != nil {
			yield(nil, err)
			return
		}
		if readStructsParallel[T](ctx, ds, &o, sp, yield) {
			return
		}
		for _, p := range ds.parts {
			if sp.done() {
				return
			}
			from, to, read := sp.next(p.rows)
			if !read {
				continue
			}
			matched, ok := readStructsPart[T](ctx, p, &o, from, to, sp.remaining, yield)
			if !ok {
				return
			}
			sp.took(matched)
		}
	}
}

// readStructsPart yields the records of one part and returns how many
// matched, and false when iteration must stop.
func readStructsPart[T any](ctx context.Context, p *Part, o *ReadOptions, from, to, remaining int64, yield func(*T, error) bool) (int64, bool) {
	f, err := p.openFor(ctx, openRecords)
	if err != nil {
		yield(nil, err)
		return 0, false
	}
	defer f.Close()
	var rd *format.Reader
	rd, err = f.records(ctx)
	if err != nil {
		yield(nil, err)
		return 0, false
	}
	sr, err := assemble.NewStructReader[T](rd, &assemble.Options{Filter: o.Where, Layout: p.ds.opts.layout(), MaxRecordBytes: p.ds.opts.MaxRecordBytes})
	if err == nil && from > 0 {
		err = sr.Reader().SeekRow(from)
	}
	if err != nil {
		yield(nil, partErr(p.Name(), err))
		return 0, false
	}
	sr.Reader().StopAt(to)
	sr.Reader().SetLimit(remaining)
	// Batches: the struct reader's batch path, and the records and the
	// error of reading one at a time.
	size := int64(unsafe.Sizeof(*new(T))) + 1
	batch := make([]T, min(max(structBatchBytes/size, structBatchMin), structBatchMax))
	var n int64
	for first := true; ; first = false {
		if err := ctx.Err(); err != nil {
			yield(nil, err)
			return n, false
		}
		if !first && !o.Reuse {
			// The records yielded are the caller's: a new batch,
			// whose slices and maps the reader fills anew.
			batch = make([]T, len(batch))
		}
		k, err := sr.Read(batch)
		for i := range k {
			n++
			if !yield(&batch[i], nil) {
				return n, false
			}
		}
		if errors.Is(err, io.EOF) {
			return n, true
		}
		if err != nil {
			yield(nil, partErr(p.Name(), err))
			return n, false
		}
	}
}

// Reading structs on several workers: a Reader that makes StructReaders
// for its parts runs the workers of the writing methods (parallel.go),
// each task's records read into batches of T handed on as values, each
// batch a chunk of the output memory's (ordered.Sizes).

// structBatchBytes is about the memory of one batch of T (with what its
// fields point to) on one goroutine; a batch holds structBatchMin to
// structBatchMax records (on workers, 1 to structBatchMax).
const (
	structBatchBytes = 1 << 20
	structBatchMin   = 64
	structBatchMax   = 4096
)

// structPart is a part's reader of structs: the StructReader's
// AvroReader for seeking, and the StructReader.
type structPart[T any] struct {
	*assemble.AvroReader
	sr *assemble.StructReader[T]
}

// structOut passes the workers' batches of T to yield.
type structOut[T any] struct {
	yield func(*T, error) bool
	chunk int64 // about the memory of a batch
	task  int64 // the output a task aims at
	broke bool  // yield returned false
	rec   []T   // the fallback's record
	reuse bool  // ReadOptions.Reuse: batches are refilled
}

// errBreak ends a run whose consumer broke out of its loop.
var errBreak = errors.New("trevni: iteration stopped")

// readStructsParallel reads ds's records on several workers and yields
// them, reporting false when one goroutine should read them instead.
func readStructsParallel[T any](ctx context.Context, ds *Dataset, o *ReadOptions, sp span, yield func(*T, error) bool) bool {
	r := &Reader{ds: ds, ctx: ctx, opts: *o, span: sp}
	r.opts.Progress = nil // ReadStructs reports none, on one goroutine or several
	r.make = func(rd *format.Reader) (partReader, error) {
		sr, err := assemble.NewStructReader[T](rd, &assemble.Options{Filter: o.Where, Layout: ds.opts.layout(), MaxRecordBytes: ds.opts.MaxRecordBytes})
		if err != nil {
			return nil, err
		}
		return &structPart[T]{AvroReader: sr.Reader(), sr: sr}, nil
	}
	r.taskRows = o.taskRows
	workers := r.workers()
	if workers <= 1 {
		return false
	}
	memory := o.OutputMemory
	if memory <= 0 {
		memory = int64(workers+1) * DefaultOutputMemory
	}
	chunk, ahead, task := ordered.Sizes(workers, memory)
	out := &structOut[T]{yield: yield, chunk: int64(chunk), task: task, reuse: o.Reuse}
	_, err := r.runParallel(workers, out, &ordered.Options{ChunkBytes: chunk, Ahead: ahead, Values: true})
	if err != nil && !out.broke {
		yield(nil, err)
	}
	return true
}

// batchRows returns the records of a batch of pp's, and about the memory
// of one record: a T and the bytes of its columns.
func (s *structOut[T]) batchRows(pp *ppart) (rows int, bytes int64) {
	per := int64(unsafe.Sizeof(*new(T))) + pp.inPerRow
	return int(min(max(s.chunk/per, 1), structBatchMax)), per
}

func (s *structOut[T]) fill(ctx context.Context, pp *ppart, rd partReader, out *ordered.Out) error {
	sr := rd.(*structPart[T]).sr
	rows, per := s.batchRows(pp)
	for {
		c := out.Chunk()
		b, _ := c.Items.(*[]T)
		if b == nil {
			b = new([]T)
			c.Items = b
		}
		if cap(*b) < rows || !s.reuse {
			// Without Reuse each batch is new: the records handed
			// on are the caller's.
			*b = make([]T, rows)
		}
		*b = (*b)[:rows]
		n, err := sr.Read(*b)
		if n > 0 && !out.Send(n, int64(n)*per) {
			return nil
		}
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}

// taskBytes is what a task aims at: twice its share of the output
// memory (ordered.Sizes).
func (s *structOut[T]) taskBytes(*ppart) int64 { return s.task }

func (s *structOut[T]) records(c *ordered.Chunk) int { return c.N }

func (s *structOut[T]) write(c *ordered.Chunk, n int) error {
	b := *c.Items.(*[]T)
	for i := range n {
		if !s.yield(&b[i], nil) {
			s.broke = true
			return errBreak
		}
	}
	return nil
}

func (s *structOut[T]) one(rd partReader) (read, put func() error) {
	sr := rd.(*structPart[T]).sr
	if s.rec == nil {
		s.rec = make([]T, 1)
	}
	read = func() error {
		if !s.reuse {
			s.rec = make([]T, 1)
		}
		_, err := sr.Read(s.rec)
		return err
	}
	put = func() error {
		if !s.yield(&s.rec[0], nil) {
			s.broke = true
			return errBreak
		}
		return nil
	}
	return read, put
}

// trustFirst is false: a worker reads a batch at a time, the sequential
// reader one record at a time.
func (s *structOut[T]) trustFirst() bool { return false }
