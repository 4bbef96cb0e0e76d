package shred

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
)

// LineError is an error of WriteLines about one line of its input.
type LineError struct {
	Line int64 // the line's number, counting from 1
	Err  error
}

// Error formats the error as "line N: cause".
func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns the cause.
func (e *LineError) Unwrap() error { return e.Err }

// progressRows is how many records WriteLines writes on one goroutine
// between calls of Options.Progress.
const progressRows = 4096

// WriteLines writes one record for every line of in that is not blank
// (spaces alone), decoded by decode into a goavro native value that Write
// takes, such as a JSON line decoded with the record's schema. With
// Options.Workers above 1, ranges of whole lines are decoded and shredded
// on that many goroutines, decode among them: it must be safe for
// concurrent use. The records are written in the order of the lines
// either way, and the memory budget is shared as for AppendContainer.
//
// The first line that fails to decode or to be written ends the writing
// with a *LineError naming it (wrapping Write's *schema.Error for a record
// that does not match the schema), as does an error reading in; the
// AvroWriter is then good only for Abort. ctx is checked between lines;
// Options.Progress is called now and then with the records written and
// the bytes of in consumed.
func (aw *AvroWriter) WriteLines(ctx context.Context, in io.Reader, decode func(line []byte) (any, error)) error {
	if in == nil {
		return errors.New("shred: nil input")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("shred: %w", err)
	}
	br := bufio.NewReaderSize(in, 1<<20)
	if n := aw.parallelWorkers(); n > 1 {
		read := func(ctx context.Context, p *pipeline) { readLineRanges(ctx, br, p) }
		return aw.runParallel(ctx, n, true, read, func() func(ctx context.Context, w *worker, rg *workRange) error {
			return func(ctx context.Context, w *worker, rg *workRange) error { return w.shredLines(ctx, rg, decode) }
		})
	}
	var read int64
	for line := int64(1); ; line++ {
		text, err := br.ReadBytes('\n')
		read += int64(len(text))
		if err != nil && err != io.EOF {
			return &LineError{Line: line, Err: err}
		}
		if t := bytes.TrimSpace(text); len(t) > 0 {
			if cerr := ctx.Err(); cerr != nil {
				return &LineError{Line: line, Err: cerr}
			}
			v, derr := decode(t)
			if derr == nil {
				derr = aw.Write(v)
			}
			if derr != nil {
				return &LineError{Line: line, Err: derr}
			}
			if aw.progress != nil && aw.RowCount()%progressRows == 0 {
				aw.progress(aw.RowCount(), read)
			}
		}
		if err == io.EOF {
			if aw.progress != nil {
				aw.progress(aw.RowCount(), read)
			}
			return nil
		}
	}
}

// readLineRanges reads whole lines into ranges of about p.rangeBytes
// bytes, counting the lines and the records (lines not blank) before
// each, until the end of the input, an error or the first failed range.
func readLineRanges(ctx context.Context, br *bufio.Reader, p *pipeline) {
	var row, off int64
	line := int64(1)
	for i := 0; ; i++ {
		buf, ok := p.next(ctx, i)
		if !ok {
			return
		}
		rg := &workRange{index: i, firstRow: row, firstLine: line, parts: make(chan segPart, 2)}
		end := false
		for {
			chunk, err := br.ReadSlice('\n')
			buf = append(buf, chunk...)
			if err == bufio.ErrBufferFull {
				continue // the line goes on
			}
			if err == io.EOF {
				end = true
				break
			}
			if err != nil {
				// Numbered as the line being read.
				rg.err, end = &LineError{Line: line + int64(bytes.Count(buf, []byte{'\n'})), Err: err}, true
				break
			}
			if len(buf) >= p.rangeBytes {
				break
			}
		}
		for data := buf; len(data) > 0; {
			text := data
			if k := bytes.IndexByte(data, '\n'); k >= 0 {
				text, data = data[:k+1], data[k+1:]
			} else {
				data = nil
			}
			line++
			if len(bytes.TrimSpace(text)) > 0 {
				row++
			}
		}
		off += int64(len(buf))
		rg.buf, rg.end = buf, off
		if len(buf) == 0 && rg.err == nil {
			p.slots <- buf
			return
		}
		if row == math.MaxInt64 {
			rg.err, end = &LineError{Line: line, Err: errors.New("too many records")}, true
		}
		if !p.hand(ctx, rg) || end {
			return
		}
	}
}

// shredLines decodes and writes the lines of rg into segments handed to
// the joiner, and returns the error that ends the range, as the
// sequential path words it.
func (w *worker) shredLines(ctx context.Context, rg *workRange, decode func([]byte) (any, error)) error {
	row := rg.firstRow
	if err := w.start(ctx, row); err != nil {
		return err
	}
	line := rg.firstLine
	consumed := rg.end - int64(len(rg.buf))
	for data := rg.buf; len(data) > 0; line++ {
		text := data
		if k := bytes.IndexByte(data, '\n'); k >= 0 {
			text, data = data[:k+1], data[k+1:]
		} else {
			data = nil
		}
		consumed += int64(len(text))
		t := bytes.TrimSpace(text)
		if len(t) == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return &LineError{Line: line, Err: err}
		}
		v, err := decode(t)
		if err == nil {
			err = w.seg.aw.Write(v)
		}
		if err != nil {
			return &LineError{Line: line, Err: err}
		}
		row++
		if len(data) > 0 {
			if err := w.handOver(ctx, rg, consumed, row); err != nil {
				return err
			}
		}
	}
	if err := w.finish(ctx, rg, row, rg.end); err != nil {
		return err
	}
	return rg.err
}
