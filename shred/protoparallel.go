package shred

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/trevni-go/trevni/schema"
	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/proto"
)

// This file holds the parallel path of FromProtoStream: the reader
// goroutine cuts the stream into ranges of whole messages (reading the
// length prefixes of delimited messages, or whole lines of protojson);
// the workers parse each message of a range (with the wire-format
// shredder, or protojson) and write it through a ProtoWriter of their own
// into segments (parallel.go).

// streamError is an error of FromProtoStream about one message: its
// number (from 0) and the input byte its framing starts at.
type streamError struct {
	msg   int64
	start int64
	err   error
}

func (e *streamError) Error() string {
	return fmt.Sprintf("message %d (input byte %d): %v", e.msg, e.start, e.err)
}

func (e *streamError) Unwrap() error { return e.err }

// newStreamError returns err met at message msg, whose framing starts at
// input byte start, as FromProtoStream reports it.
func newStreamError(msg, start int64, err error) *streamError {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = fmt.Errorf("truncated message: %w", err)
	}
	return &streamError{msg: msg, start: start, err: err}
}

// protoSegment returns the ProtoWriter of segment s, writing messages of
// pw's type into s's columns; made on the segment's first use, with a
// wire parser of its own.
func (pw *ProtoWriter) protoSegment(s *segment) *ProtoWriter {
	if s.pw == nil {
		s.pw = &ProtoWriter{aw: s.aw, conv: pw.conv, md: pw.md, resolver: pw.resolver}
	}
	return s.pw
}

// fromStreamParallel is FromProtoStream's loop on n workers: read cuts
// the stream into ranges, and newShred makes each worker's function that
// writes a range's messages. It returns the messages written.
func (pw *ProtoWriter) fromStreamParallel(ctx context.Context, n int, read func(ctx context.Context, p *pipeline), newShred func() func(ctx context.Context, w *worker, rg *workRange) error) (int64, error) {
	err := pw.aw.runParallel(ctx, n, true, read, newShred)
	if err == nil {
		return pw.RowCount(), nil
	}
	pw.Abort()
	var se *streamError
	if errors.As(err, &se) {
		return se.msg, err // the messages before it were written, as one worker would have
	}
	if cerr := ctx.Err(); cerr != nil && errors.Is(err, cerr) {
		return pw.RowCount(), fmt.Errorf("shred: stopped at message %d: %w", pw.RowCount(), cerr)
	}
	return pw.RowCount(), err
}

// delimReader reads a varint length prefix from br, keeping its bytes.
type delimReader struct {
	br  *bufio.Reader
	buf []byte
}

func (d *delimReader) ReadByte() (byte, error) {
	c, err := d.br.ReadByte()
	if err == nil {
		d.buf = append(d.buf, c)
	}
	return c, err
}

// readDelimitedRanges reads whole delimited messages, their length
// prefixes included, into ranges of about p.rangeBytes bytes, until the
// end of the input, an error (a range's err, numbered as the sequential
// path numbers it) or the first failed range. A message's bytes grow with
// the data read, not with the length the input claims.
func readDelimitedRanges(ctx context.Context, br *bufio.Reader, p *pipeline) {
	var row, off int64
	d := &delimReader{br: br}
	for i := 0; ; i++ {
		buf, ok := p.next(ctx, i)
		if !ok {
			return
		}
		rg := &workRange{index: i, firstRow: row, parts: make(chan segPart, 2)}
		end := false
		for len(buf) < p.rangeBytes {
			frame := len(buf)
			d.buf = buf
			size, err := binary.ReadUvarint(d)
			buf = d.buf
			if err == nil && size > maxMessageSize {
				err = &protodelim.SizeTooLargeError{Size: size, MaxSize: maxMessageSize}
			}
			if err == nil {
				n := len(buf) + int(size)
				for len(buf) < n && err == nil {
					if len(buf) == cap(buf) {
						buf = slices.Grow(buf, min(n-len(buf), max(len(buf), 64<<10)))
					}
					var k int
					k, err = io.ReadFull(br, buf[len(buf):min(n, cap(buf))])
					buf = buf[:len(buf)+k]
				}
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
			}
			if err == io.EOF && len(buf) == frame {
				end = true
				break
			}
			if err != nil {
				rg.err, end = newStreamError(row, off+int64(frame), err), true
				buf = buf[:frame]
				break
			}
			row++
		}
		off += int64(len(buf))
		rg.buf, rg.end = buf, off
		if len(buf) == 0 && rg.err == nil {
			p.slots <- buf
			return
		}
		if !p.hand(ctx, rg) || end {
			return
		}
	}
}

// shredDelimited writes the messages of rg through pw's wire parser into
// segments handed to the joiner, and returns the error that ends the
// range, as the sequential path words it.
func (w *worker) shredDelimited(ctx context.Context, rg *workRange, pw *ProtoWriter) error {
	row := rg.firstRow
	if err := w.start(ctx, row); err != nil {
		return err
	}
	done := ctx.Done()
	base := rg.end - int64(len(rg.buf))
	for pos := 0; pos < len(rg.buf); {
		select {
		case <-done:
			return fmt.Errorf("shred: stopped at message %d: %w", row, ctx.Err())
		default:
		}
		start := pos
		size, k := binary.Uvarint(rg.buf[pos:]) // checked by the reader
		pos += k
		msg := rg.buf[pos : pos+int(size)]
		pos += int(size)
		if err := pw.protoSegment(w.seg).WriteWire(msg); err != nil {
			return newStreamError(row, base+int64(start), err)
		}
		row++
		if pos < len(rg.buf) {
			if err := w.handOver(ctx, rg, base+int64(pos), row); err != nil {
				return err
			}
		}
	}
	if err := w.finish(ctx, rg, row, rg.end); err != nil {
		return err
	}
	return rg.err
}

// readJSONRanges reads whole lines into ranges of about p.rangeBytes
// bytes, counting the messages (lines not blank) before each, until the
// end of the input, an error (a line longer than limit, or the input's)
// or the first failed range.
func readJSONRanges(ctx context.Context, br *bufio.Reader, p *pipeline, limit int64) {
	var row, off int64
	for i := 0; ; i++ {
		buf, ok := p.next(ctx, i)
		if !ok {
			return
		}
		rg := &workRange{index: i, firstRow: row, parts: make(chan segPart, 2)}
		end := false
		for len(buf) < p.rangeBytes {
			at := len(buf)
			var err error
			buf, err = readLine(br, buf, at, limit)
			if err != nil && err != io.EOF {
				rg.err, end = newStreamError(row, off+int64(at), err), true
				buf = buf[:at]
				break
			}
			if len(bytes.TrimSpace(buf[at:])) > 0 {
				row++
			}
			if err == io.EOF {
				end = true
				break
			}
		}
		off += int64(len(buf))
		rg.buf, rg.end = buf, off
		if len(buf) == 0 && rg.err == nil {
			p.slots <- buf
			return
		}
		if !p.hand(ctx, rg) || end {
			return
		}
	}
}

// shredJSON decodes the protojson lines of rg with js into m, the
// worker's message, and writes them through pw's type into segments
// handed to the joiner; a message nested deeper than maxDepth is an
// error, as on the sequential path, whose wording it keeps.
func (w *worker) shredJSON(ctx context.Context, rg *workRange, pw *ProtoWriter, js jsonDecoder, m proto.Message, maxDepth int) error {
	row := rg.firstRow
	if err := w.start(ctx, row); err != nil {
		return err
	}
	done := ctx.Done()
	base := rg.end - int64(len(rg.buf))
	for pos := 0; pos < len(rg.buf); {
		start := pos
		line := rg.buf[pos:]
		if k := bytes.IndexByte(line, '\n'); k >= 0 {
			line = line[:k+1]
		}
		pos += len(line)
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		select {
		case <-done:
			return fmt.Errorf("shred: stopped at message %d: %w", row, ctx.Err())
		default:
		}
		proto.Reset(m)
		err := js.Unmarshal(line, m)
		if err == nil {
			if tooDeep(m.ProtoReflect(), 1, maxDepth) {
				err = fmt.Errorf("%w: message nested more than %d deep (as its binary encoding nests it; layout.Options.MaxDepth)", schema.ErrTooLarge, maxDepth)
			} else {
				err = pw.protoSegment(w.seg).Write(m)
			}
		}
		if err != nil {
			return newStreamError(row, base+int64(start), err)
		}
		row++
		if pos < len(rg.buf) {
			if err := w.handOver(ctx, rg, base+int64(pos), row); err != nil {
				return err
			}
		}
	}
	if err := w.finish(ctx, rg, row, rg.end); err != nil {
		return err
	}
	return rg.err
}
