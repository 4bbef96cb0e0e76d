package csvtable

import (
	"bufio"
	"bytes"
	"io"
	"unicode/utf8"
)

// refRecordReader is the record reader as it was before it scanned a
// record's lines in one buffer (records.go): kept as the reference that
// TestRecordReaderAsBefore compares the reader with on random inputs. It
// reads records as DuckDB's read_csv does (the command's TestCSVAsDuckDB).
type refRecordReader struct {
	r      *bufio.Reader
	comma  []byte // the delimiter's UTF-8 bytes
	line   int    // lines read so far
	offset int64  // bytes consumed by the records returned
	buf    []byte // the cells' text, back to back
	ends   []int  // where each cell ends in buf
	pos    []pos  // where each cell starts in the input
	rec    []string
	raw    []byte // the line being parsed
}

type pos struct{ line, col int }

func newRefRecordReader(r io.Reader, comma rune) *refRecordReader {
	return &refRecordReader{r: bufio.NewReader(r), comma: utf8.AppendRune(nil, comma)}
}

// Comma returns the delimiter.
func (rr *refRecordReader) Comma() rune {
	c, _ := utf8.DecodeRune(rr.comma)
	return c
}

// InputOffset returns the bytes of the input the records returned so far
// took, their line breaks included.
func (rr *refRecordReader) InputOffset() int64 { return rr.offset }

// FieldPos returns the line and column (from 1, in bytes) where cell i of
// the last record returned starts.
func (rr *refRecordReader) FieldPos(i int) (line, col int) {
	if i < 0 || i >= len(rr.pos) {
		return rr.line, 1
	}
	return rr.pos[i].line, rr.pos[i].col
}

// readLine reads one line, its line break included (none at the input's
// end), and counts it.
func (rr *refRecordReader) readLine() ([]byte, error) {
	rr.raw = rr.raw[:0]
	for {
		chunk, err := rr.r.ReadSlice('\n')
		rr.raw = append(rr.raw, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(rr.raw) > 0 && err == io.EOF {
			err = nil
		}
		if err == nil {
			rr.line++
			rr.offset += int64(len(rr.raw))
		}
		return rr.raw, err
	}
}

// Read returns the next record, or io.EOF after the last. The slice and
// its strings are the reader's until the next call (the strings are not
// reused: one string holds the record's cells).
func (rr *refRecordReader) Read() ([]string, error) {
	line, err := rr.readLine()
	for err == nil && (len(line) == 1 && line[0] == '\n' || len(line) == 2 && line[0] == '\r' && line[1] == '\n') {
		line, err = rr.readLine() // an empty line
	}
	if err != nil {
		return nil, err
	}
	rr.buf, rr.ends, rr.pos = rr.buf[:0], rr.ends[:0], rr.pos[:0]
	col := 1 // of the cell's start in the line
	lineNo := rr.line
	for {
		rr.pos = append(rr.pos, pos{lineNo, col})
		if len(line) == 0 || line[0] != '"' {
			// Unquoted: up to the delimiter or the line's end.
			i := bytes.Index(line, rr.comma)
			if i >= 0 {
				rr.buf = append(rr.buf, line[:i]...)
				rr.ends = append(rr.ends, len(rr.buf))
				col += i + len(rr.comma)
				line = line[i+len(rr.comma):]
				continue
			}
			rr.buf = append(rr.buf, refTrimBreak(line)...)
			rr.ends = append(rr.ends, len(rr.buf))
			break
		}
		// Quoted: up to a quote not doubled.
		line = line[1:]
		col++
		startLine := rr.line
		for {
			i := bytes.IndexByte(line, '"')
			if i < 0 {
				// The cell goes on on the next line, its break kept.
				rr.buf = append(rr.buf, line...)
				var err error
				if line, err = rr.readLine(); err != nil {
					if err == io.EOF {
						return nil, &Error{Line: startLine, Column: rr.pos[len(rr.pos)-1].col, Err: errOpenQuote}
					}
					return nil, err
				}
				col = 1
				continue
			}
			rr.buf = append(rr.buf, line[:i]...)
			line = line[i+1:]
			col += i + 1
			if len(line) > 0 && line[0] == '"' {
				rr.buf = append(rr.buf, '"')
				line = line[1:]
				col++
				continue
			}
			break
		}
		rr.ends = append(rr.ends, len(rr.buf))
		switch {
		case bytes.HasPrefix(line, rr.comma):
			col += len(rr.comma)
			line = line[len(rr.comma):]
			lineNo = rr.line
			continue
		case len(refTrimBreak(line)) == 0:
		default:
			return nil, &Error{Line: rr.line, Column: col, Err: errQuote}
		}
		break
	}
	// One string for the record, the cells slices of it.
	s := string(rr.buf)
	rr.rec = rr.rec[:0]
	start := 0
	for _, end := range rr.ends {
		rr.rec = append(rr.rec, s[start:end])
		start = end
	}
	return rr.rec, nil
}

// trimBreak drops the line break (LF or CR LF) that ends b, or the CR
// that ends the input (as encoding/csv drops it).
func refTrimBreak(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}
