package csvtable

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
	"unicode/utf8"
)

// errQuote is the error about a quoted cell followed by something other
// than the delimiter or the line's end; errOpenQuote about one that the
// input ends inside.
var (
	errQuote     = errors.New(`a quoted cell's closing " is followed by something other than the delimiter or the line's end (a quote inside a quoted cell is written "")`)
	errOpenQuote = errors.New(`a quoted cell is not closed: the input ends inside it`)
)

// recordReader reads CSV records as DuckDB's read_csv reads them, where
// RFC 4180 leaves room: a cell that starts with " is quoted, "" in it is
// one quote, and it ends at a " followed by the delimiter, a line break
// or the input's end; the line breaks inside it are kept as they are
// (CR LF stays CR LF); in a cell that does not start with ", quotes are
// text (12" pizza). A record ends at LF or CR LF outside quotes; empty
// lines are skipped. It is what encoding/csv's Reader was here, which
// refuses a quote inside an unquoted cell and turns CR LF inside a quoted
// one into LF.
type recordReader struct {
	r      *bufio.Reader
	comma  []byte // the delimiter's UTF-8 bytes
	line   int    // lines read so far
	offset int64  // bytes consumed by the records returned
	buf    []byte // the record's lines, then its unescaped quoted cells
	esc    []byte // a quoted cell's text being unescaped
	cells  []span // where each cell's text is in buf
	lines  []int  // where each line of the record starts in buf
	first  int    // the line the record starts on
	rec    []string
	raw    []byte // a line longer than the bufio.Reader's buffer
}

// span is where a cell's text is in recordReader.buf (start, end), and
// where the cell starts in the record's lines there (at, its opening
// quote if it has one).
type span struct{ start, end, at int }

func newRecordReader(r io.Reader, comma rune) *recordReader {
	return &recordReader{r: bufio.NewReader(r), comma: utf8.AppendRune(nil, comma)}
}

// Comma returns the delimiter.
func (rr *recordReader) Comma() rune {
	c, _ := utf8.DecodeRune(rr.comma)
	return c
}

// InputOffset returns the bytes of the input the records returned so far
// took, their line breaks included.
func (rr *recordReader) InputOffset() int64 { return rr.offset }

// FieldPos returns the line and column (from 1, in bytes) where cell i of
// the last record returned starts.
func (rr *recordReader) FieldPos(i int) (line, col int) {
	if i < 0 || i >= len(rr.cells) {
		return rr.line, 1
	}
	at := rr.cells[i].at
	k := len(rr.lines) - 1
	for k > 0 && rr.lines[k] > at {
		k--
	}
	return rr.first + k, at - rr.lines[k] + 1
}

// readLine reads one line, its line break included (none at the input's
// end), and counts it. The line is the bufio.Reader's (or rr.raw) until
// the next call.
func (rr *recordReader) readLine() ([]byte, error) {
	line, err := rr.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		rr.raw = append(rr.raw[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = rr.r.ReadSlice('\n')
			rr.raw = append(rr.raw, line...)
		}
		line = rr.raw
	}
	if len(line) > 0 && err == io.EOF {
		err = nil
	}
	if err == nil {
		rr.line++
		rr.offset += int64(len(line))
	}
	return line, err
}

// Read returns the next record, or io.EOF after the last. The slice and
// its strings are the reader's until the next call (the strings are not
// reused: one string holds the record's cells).
//
// The record's line is copied into rr.buf and its cells found there: an
// unquoted cell and a quoted one without "" or line breaks are where they
// stand (one copy of the line, one search for the delimiter a cell); the
// text of other quoted cells is unescaped into rr.esc and appended to
// rr.buf after the line, and the lines a quoted cell goes on to are
// appended as they are read. The cells are then substrings of one string
// of rr.buf.
func (rr *recordReader) Read() ([]string, error) {
	line, err := rr.readLine()
	for err == nil && (len(line) == 1 && line[0] == '\n' || len(line) == 2 && line[0] == '\r' && line[1] == '\n') {
		line, err = rr.readLine() // an empty line
	}
	if err != nil {
		return nil, err
	}
	buf := append(rr.buf[:0], line...)
	cells := rr.cells[:0]
	rr.first, rr.lines = rr.line, append(rr.lines[:0], 0)
	comma := rr.comma
	lineStart, rawEnd := 0, len(buf) // the line being read, its break included
	bodyEnd := len(trimBreak(buf))   // and without it
	p := 0                           // where the next cell starts
	for {
		if p == bodyEnd || buf[p] != '"' {
			// Unquoted: up to the delimiter or the line's end.
			var i int
			if len(comma) == 1 {
				i = bytes.IndexByte(buf[p:bodyEnd], comma[0])
			} else {
				i = bytes.Index(buf[p:bodyEnd], comma)
			}
			if i < 0 {
				cells = append(cells, span{p, bodyEnd, p})
				break
			}
			cells = append(cells, span{p, p + i, p})
			p += i + len(comma)
			continue
		}
		// Quoted: up to a quote not doubled.
		at, startLine, startCol := p, rr.line, p-lineStart+1
		q := p + 1 // the text not yet taken
		esc, escaped := rr.esc[:0], false
		for {
			i := bytes.IndexByte(buf[q:rawEnd], '"')
			if i < 0 {
				// The cell goes on on the next line, its break kept.
				esc, escaped = append(esc, buf[q:rawEnd]...), true
				next, err := rr.readLine()
				if err != nil {
					rr.buf, rr.esc = buf, esc
					if err == io.EOF {
						return nil, &Error{Line: startLine, Column: startCol, Err: errOpenQuote}
					}
					return nil, err
				}
				lineStart = len(buf)
				rr.lines = append(rr.lines, lineStart)
				buf = append(buf, next...)
				rawEnd = len(buf)
				bodyEnd = lineStart + len(trimBreak(next))
				q = lineStart
				continue
			}
			j := q + i
			if j+1 < rawEnd && buf[j+1] == '"' {
				esc, escaped = append(esc, buf[q:j+1]...), true
				q = j + 2
				continue
			}
			if escaped {
				esc = append(esc, buf[q:j]...)
				start := len(buf)
				buf = append(buf, esc...)
				cells = append(cells, span{start, len(buf), at})
			} else {
				cells = append(cells, span{q, j, at})
			}
			p = j + 1
			break
		}
		rr.esc = esc
		switch {
		case bytes.HasPrefix(buf[p:bodyEnd], comma):
			p += len(comma)
			continue
		case p == bodyEnd:
		default:
			rr.buf, rr.cells = buf, cells
			return nil, &Error{Line: rr.line, Column: p - lineStart + 1, Err: errQuote}
		}
		break
	}
	// One string for the record, the cells substrings of it.
	s := string(buf)
	rec := slices.Grow(rr.rec[:0], len(cells))[:len(cells)]
	for i, c := range cells {
		rec[i] = s[c.start:c.end]
	}
	rr.buf, rr.cells, rr.rec = buf, cells, rec
	return rec, nil
}

// trimBreak drops the line break (LF or CR LF) that ends b, or the CR
// that ends the input (as encoding/csv drops it).
func trimBreak(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}
