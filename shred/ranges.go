package shred

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
)

// Range is a run of whole records of an input, which WriteRanges hands
// to one of its workers.
type Range struct {
	// Data holds the records' bytes, as the input has them.
	Data []byte
	// Rows is how many records Data holds, and Lines how many newlines
	// (for inputs whose errors name lines; 0 otherwise): the cutter
	// counts them, and WriteRanges adds them up for the ranges after.
	Rows, Lines int64
	// FirstRow is the number of the range's first record, counting the
	// input's first as 0; FirstLine the number of its first line,
	// counting from 1; Offset the input bytes before it. WriteRanges sets
	// them.
	FirstRow, FirstLine, Offset int64
}

// RangeOptions configures WriteRanges. A nil *RangeOptions means the
// defaults.
type RangeOptions struct {
	// Progress, if not nil, is called after every segment joined with the
	// records written so far and the input bytes consumed; nil means
	// Options.Progress.
	Progress func(rows, bytesIn int64)
}

// rangeError is an error a worker of WriteRanges met at record row.
type rangeError struct {
	row int64
	err error
}

func (e *rangeError) Error() string { return e.err.Error() }
func (e *rangeError) Unwrap() error { return e.err }

// Workers returns the number of goroutines AppendContainer, WriteLines
// and WriteRanges write on: Options.Workers, fewer when the memory budget
// is too small to share, and 1 for the files that promise Java's bytes.
func (aw *AvroWriter) Workers() int { return aw.parallelWorkers() }

// WriteRanges writes the records of an input cut into ranges of whole
// records, on Workers goroutines, into segments joined in the order of
// the ranges (as AppendContainer does with container blocks), and returns
// the records written. It is for inputs that a cheap scan can cut but
// whose records cost more to turn into Avro (CSV text, say).
//
// cut, called on one goroutine, appends the next range's bytes to buf
// (at least limit bytes, unless the input ends first) and returns the
// range, counting its records and lines; io.EOF with an empty range
// after the last, or any other error, which is returned after the
// records of the range it comes with are written. newWorker is called
// once per worker; the function it returns writes the records of one
// range, in order, each through write as one record of Avro's binary
// encoding (see WriteBinary), and returns the error that stops it, which
// WriteRanges returns as it is if no earlier range failed. write returns
// the error of WriteBinary, or of the run being stopped.
//
// On an error the count is that of the records before the failing one;
// cancelling ctx stops every goroutine, with an error wrapping ctx's. The
// AvroWriter is then good only for Abort.
func (aw *AvroWriter) WriteRanges(ctx context.Context, cut func(buf []byte, limit int) (Range, error), newWorker func() func(ctx context.Context, r *Range, write func(rec []byte) error) error, opts *RangeOptions) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("shred: %w", err)
	}
	if opts != nil && opts.Progress != nil {
		saved := aw.progress
		aw.progress = opts.Progress
		defer func() { aw.progress = saved }()
	}
	read := func(ctx context.Context, p *pipeline) { readCutRanges(ctx, cut, p) }
	err := aw.runParallel(ctx, max(aw.parallelWorkers(), 1), true, read, func() func(ctx context.Context, w *worker, rg *workRange) error {
		write := newWorker()
		return func(ctx context.Context, w *worker, rg *workRange) error { return w.shredRange(ctx, rg, write) }
	})
	if err == nil {
		return aw.RowCount(), nil
	}
	var re *rangeError
	if errors.As(err, &re) {
		return re.row, re.err
	}
	return aw.RowCount(), err
}

// readCutRanges cuts the input with cut into ranges of about
// p.rangeBytes bytes, until the end of the input, an error or the first
// failed range.
func readCutRanges(ctx context.Context, cut func([]byte, int) (Range, error), p *pipeline) {
	var row, off int64
	line := int64(1)
	for i := 0; ; i++ {
		buf, ok := p.next(ctx, i)
		if !ok {
			return
		}
		r, err := cut(buf[:0], p.rangeBytes)
		end := err != nil
		if err == io.EOF {
			err = nil
		}
		rg := &workRange{index: i, firstRow: row, firstLine: line, parts: make(chan segPart, 2), buf: r.Data}
		if err != nil {
			rg.err = &rangeError{row: row + r.Rows, err: err}
		}
		if r.Rows < 0 || r.Rows > math.MaxInt64-row {
			rg.err, end = &rangeError{row: row, err: errors.New("shred: too many records")}, true
		}
		row += r.Rows
		line += r.Lines
		off += int64(len(r.Data))
		rg.end = off
		if len(r.Data) == 0 && rg.err == nil {
			p.slots <- r.Data
			return
		}
		if !p.hand(ctx, rg) || end {
			return
		}
	}
}

// shredRange writes the records of rg with write into segments handed to
// the joiner, and returns the error that ends the range.
func (w *worker) shredRange(ctx context.Context, rg *workRange, write func(context.Context, *Range, func([]byte) error) error) error {
	row := rg.firstRow
	if err := w.start(ctx, row); err != nil {
		return err
	}
	start := rg.end - int64(len(rg.buf))
	r := &Range{Data: rg.buf, FirstRow: rg.firstRow, FirstLine: rg.firstLine, Offset: start}
	err := write(ctx, r, func(rec []byte) error {
		if err := w.seg.aw.WriteBinary(rec); err != nil {
			return err
		}
		row++
		return w.handOver(ctx, rg, start, row)
	})
	if err != nil {
		return &rangeError{row: row, err: err}
	}
	if err := w.finish(ctx, rg, row, rg.end); err != nil {
		return err
	}
	return rg.err
}
