package csvtable

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/trevni-go/trevni/shred"
)

// This file holds the parallel path of Copy from a CSV Source to a Trevni
// Sink (shred.AvroWriter.WriteRanges): one goroutine cuts the CSV after
// its header into ranges of whole records, scanning for newlines outside
// quotes (exact for RFC 4180 quoting, whose state is known from the
// start: a quote opens or closes a quoted cell, and a doubled quote in
// one does both; a quote inside an unquoted cell is text), and counts the
// records and lines of each; the workers parse the ranges with the
// recordReader, convert the cells and shred the rows. Errors name the
// lines and rows one goroutine would name: where the quoting is bad, a
// cut after it may be wrong, but the first error in row order is the one
// in the range that holds the bad quote, which starts where it should.

// recorder passes a reader through, keeping what it reads until stopped:
// the bytes of the CSV that encoding/csv read ahead of its header.
type recorder struct {
	r    io.Reader
	buf  []byte
	stop bool
}

func (rc *recorder) Read(p []byte) (int, error) {
	n, err := rc.r.Read(p)
	if !rc.stop {
		rc.buf = append(rc.buf, p[:n]...)
	}
	return n, err
}

// cuttable reports whether Copy may cut s into ranges: it has read no
// record yet, and keeps every record (RaggedDrop counts the dropped ones
// as it goes, so it stays on one goroutine).
func (s *csvSource) cuttable() bool {
	return s.rest != nil && !s.started && s.rd.ragged != RaggedDrop
}

// newBodyReader returns a Reader of the records of r, which has no
// header, under header, numbering its lines after the first lines ones.
func newBodyReader(r io.Reader, comma rune, header []string, ragged Ragged, lines int) *Reader {
	cr := newRecordReader(r, comma)
	return &Reader{cr: cr, header: header, ragged: ragged, lines: lines}
}

// csvCutter cuts the CSV after the header into ranges of whole records.
type csvCutter struct {
	br      *bufio.Reader
	comma   []byte // the delimiter's UTF-8 bytes
	inQuote bool
	closed  int // where in the range the last quoted cell closed
}

// quotes follows the quotes of buf from from on, as recordReader reads
// them: a quote opens a quoted cell only at a cell's start (after a
// delimiter or a line's start), or again right after the quote that closed
// one (the two an escaped quote); elsewhere it is text (12" pizza), so no
// quote stops the cutting. buf starts at a record's start.
func (c *csvCutter) quotes(buf []byte, from int) {
	for i := from; ; i++ {
		k := bytes.IndexByte(buf[i:], '"')
		if k < 0 {
			return
		}
		i += k
		if c.inQuote {
			c.inQuote, c.closed = false, i
			continue
		}
		if i > 0 && buf[i-1] != '\n' && c.closed != i-1 && !bytes.HasSuffix(buf[:i], c.comma) {
			continue // a quote inside an unquoted cell: text
		}
		c.inQuote = true
	}
}

// cut appends the next records to buf, at least limit bytes of them
// unless the input ends first, and counts them as encoding/csv does: a
// record ends at a newline outside quotes, and one that is only a
// newline (an empty line) is skipped.
func (c *csvCutter) cut(buf []byte, limit int) (shred.Range, error) {
	var r shred.Range
	start := len(buf) // of the record being read
	c.closed = -2
	for {
		chunk, err := c.br.ReadSlice('\n')
		buf = append(buf, chunk...)
		c.quotes(buf, len(buf)-len(chunk))
		switch err {
		case bufio.ErrBufferFull:
			continue // the line goes on
		case nil:
			r.Lines++
			if c.inQuote {
				continue
			}
			if rec := buf[start:]; len(rec) > 2 || (len(rec) == 2 && rec[0] != '\r') {
				r.Rows++
			}
			start = len(buf)
			if len(buf) >= limit {
				r.Data = buf
				return r, nil
			}
		case io.EOF:
			if rec := buf[start:]; len(rec) > 1 || (len(rec) == 1 && rec[0] != '\r') {
				r.Rows++
			}
			r.Data = buf
			return r, io.EOF
		default:
			r.Data = buf[:start] // the records before, then the error
			return r, err
		}
	}
}

// newWorker returns the function one worker of WriteRanges writes a range
// of s's records with: as Next and a trevniSink's Write do. The range's
// lines are numbered after the header's (restLines).
func (s *csvSource) newWorker(comma rune) func() func(ctx context.Context, r *shred.Range, write func([]byte) error) error {
	return func() func(ctx context.Context, r *shred.Range, write func([]byte) error) error {
		cells := make([]Cell, len(s.fields))
		var buf []byte
		return func(ctx context.Context, r *shred.Range, write func([]byte) error) error {
			rd := newBodyReader(bytes.NewReader(r.Data), comma, s.rd.header, s.rd.ragged, s.restLines+int(r.FirstLine-1))
			src := &csvSource{rd: rd, fields: s.fields, col: s.col}
			for n := 0; ; n++ {
				if n%checkEvery == 0 {
					if err := ctx.Err(); err != nil {
						return err
					}
				}
				err := src.Next(cells)
				if err == io.EOF {
					return nil
				}
				if err != nil {
					return err
				}
				buf = buf[:0]
				for i := range s.fields {
					buf = appendAvro(buf, &s.fields[i], &cells[i])
				}
				if err := write(buf); err != nil {
					return err
				}
			}
		}
	}
}

// appendParallel is Append from a CSV source to a Trevni sink on the
// sink's workers.
func appendParallel(ctx context.Context, dst *trevniSink, src *csvSource, progress func(int64)) (int64, error) {
	base := dst.aw.RowCount()
	var ro *shred.RangeOptions
	if progress != nil {
		ro = &shred.RangeOptions{Progress: func(rows, _ int64) { progress(rows - base) }}
	}
	src.started = true
	c := &csvCutter{br: bufio.NewReaderSize(io.MultiReader(bytes.NewReader(src.rest), src.in), 1<<20), comma: utf8.AppendRune(nil, src.rd.cr.Comma())}
	rows, err := dst.aw.WriteRanges(ctx, c.cut, src.newWorker(src.rd.cr.Comma()), ro)
	if err != nil {
		// A record's error is counted from this call's first row, a
		// cancelled run by the writer's rows.
		if cerr := ctx.Err(); cerr != nil && errors.Is(err, cerr) {
			rows -= base
			return rows, fmt.Errorf("csvtable: copy stopped at row %d: %w", rows, cerr)
		}
		return rows, err
	}
	return rows - base, nil
}

// afterHeader returns the bytes of the records that rd's encoding/csv
// reader read ahead with the header (recorded, all the bytes it read),
// and the lines before them; with noHeader, the first record read is one
// of the records, and they start at the input's start.
func afterHeader(rd *Reader, recorded []byte, noHeader bool) ([]byte, int) {
	if noHeader {
		return append([]byte{}, recorded...), 0
	}
	h := rd.cr.InputOffset()
	return append([]byte{}, recorded[h:]...), bytes.Count(recorded[:h], []byte{'\n'})
}

// inferJob is a range of records that a worker of inferParallel infers
// the types of.
type inferJob struct {
	index     int
	data      []byte
	firstLine int64 // after the header's lines, from 1
	cutErr    error // the cutter's error after the range
	done      chan inferResult
}

// inferResult is what a range's records have shown: the types of its
// cells and its records, up to its first error.
type inferResult struct {
	ins  []inference
	rows int64
	err  error
}

// inferRangeBytes is the size of the ranges Infer cuts for its workers.
const inferRangeBytes = 1 << 20

// inferParallel infers the types of the records of rest and in, which
// follow rd's header after lines lines, on n workers: one goroutine cuts
// them into ranges of whole records of about rangeBytes, the workers infer each range's
// types, and the results are merged in order, up to the first error.
func inferParallel(rd *Reader, rest []byte, lines int, in io.Reader, n, rangeBytes int) ([]inference, int64, error) {
	c := &csvCutter{br: bufio.NewReaderSize(io.MultiReader(bytes.NewReader(rest), in), 1<<20), comma: utf8.AppendRune(nil, rd.cr.Comma())}
	jobs := make(chan *inferJob, n)
	order := make(chan *inferJob, 2*n)
	slots := make(chan []byte, 2*n) // range buffers, one per range in flight
	for range 2 * n {
		slots <- nil
	}
	stop := make(chan struct{})
	var failed atomic.Int64 // the first range that failed
	failed.Store(math.MaxInt64)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(stop) // runs first: stops the goroutines before waiting

	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(order)
		defer close(jobs)
		line := int64(1)
		for i := 0; ; i++ {
			var buf []byte
			select {
			case buf = <-slots:
			case <-stop:
				return
			}
			if int64(i) > failed.Load() {
				return
			}
			r, err := c.cut(buf[:0], rangeBytes)
			j := &inferJob{index: i, data: r.Data, firstLine: line, done: make(chan inferResult, 1)}
			line += r.Lines
			if err != nil && err != io.EOF {
				j.cutErr = err
			}
			for _, ch := range []chan *inferJob{order, jobs} {
				select {
				case ch <- j:
				case <-stop:
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if int64(j.index) > failed.Load() {
					j.done <- inferResult{}
					continue
				}
				body := newBodyReader(bytes.NewReader(j.data), rd.cr.Comma(), rd.header, rd.ragged, lines+int(j.firstLine-1))
				res := inferResult{ins: make([]inference, len(rd.header))}
				res.rows, res.err = inferRecords(body, res.ins)
				if res.err != nil {
					for old := failed.Load(); int64(j.index) < old && !failed.CompareAndSwap(old, int64(j.index)); old = failed.Load() {
					}
				}
				j.done <- res
			}
		}()
	}

	ins := make([]inference, len(rd.header))
	var rows int64
	for j := range order {
		res := <-j.done
		for i := range res.ins {
			ins[i].merge(&res.ins[i])
		}
		rows += res.rows
		if res.err != nil {
			return nil, rows, res.err
		}
		if j.cutErr != nil {
			return nil, rows, j.cutErr
		}
		slots <- j.data[:0]
	}
	return ins, rows, nil
}
