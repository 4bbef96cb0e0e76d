package main

// What the flat-table commands (fromcsv, tocsv, fromclmn, toclmn) share:
// --delimiter, opening a Trevni or CLMN input, copying a table; and the
// CLMN side of tojson and meta.

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/csvtable"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/jsontext"
)

// addDelimiter defines --delimiter.
func addDelimiter(fs *flag.FlagSet) *string {
	return fs.String("delimiter", ",", "CSV cell delimiter: one character, or \\t or tab")
}

// delimiter returns the rune of a --delimiter value.
func delimiter(e *env, s string) (rune, error) {
	switch s {
	case `\t`, "tab", "\t":
		return '\t', nil
	}
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || n != len(s) || r == '"' || r == '\r' || r == '\n' || r == utf8.RuneError {
		return 0, e.usagef("--delimiter %q: want one character other than a quote or a line break", s)
	}
	return r, nil
}

// fieldList splits a --fields value.
func fieldList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// tableSummary prints what a table command wrote.
func (e *env) tableSummary(out *output, rows int64, cols int, isCLMN bool, opts format.WriterOptions) {
	if !isCLMN {
		e.summary(out, rows, opts)
		return
	}
	e.wrote(out, func() string {
		size := int64(0)
		if fi, err := os.Stat(out.Name()); err == nil {
			size = fi.Size()
		}
		return fmt.Sprintf("%s rows, %d columns, %s bytes (CLMN)", formatCount(rows), cols, formatCount(size))
	})
}

// randomAccess opens a file argument for random access: standard input is
// used in place when it is a regular file, and copied to a temporary file
// otherwise. Reads fail once the run is interrupted.
func (e *env) randomAccess(path string) (ra io.ReaderAt, size int64, done func() error, err error) {
	if path == "-" {
		ra, size, done, err = e.stdinReaderAt()
		if err != nil {
			return nil, 0, nil, fmt.Errorf("read standard input: %w", err)
		}
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, 0, nil, err
		}
		fi, err := f.Stat()
		if err == nil && fi.IsDir() {
			err = fmt.Errorf("%s: is a directory", path)
		}
		if err != nil {
			f.Close()
			return nil, 0, nil, err
		}
		ra, size, done = f, fi.Size(), f.Close
		if !fi.Mode().IsRegular() { // a named pipe: copied, as standard input is
			ra, size, done, err = e.spool(f)
			f.Close()
			if err != nil {
				return nil, 0, nil, fmt.Errorf("%s: cannot read: %w", path, err)
			}
		}
	}
	return &countingReaderAt{ctx: e.ctx, ra: ra}, size, done, nil
}

// tableInput is an input file that is Trevni or CLMN.
type tableInput struct {
	name   string
	clmn   *clmn.Reader   // when the file is CLMN
	trevni *format.Reader // otherwise
	done   func() error
}

// isCLMN reports whether the first bytes of ra are CLMN's magic.
func isCLMN(ra io.ReaderAt) bool {
	var m [4]byte
	n, _ := ra.ReadAt(m[:], 0)
	return n == 4 && string(m[:]) == clmn.Magic
}

// openTable opens a Trevni or CLMN input, told apart by its first bytes.
func (e *env) openTable(path string) (*tableInput, error) {
	ra, size, done, err := e.randomAccess(path)
	if err != nil {
		return nil, err
	}
	in := &tableInput{name: displayName(path, false), done: done}
	if isCLMN(ra) {
		in.clmn, err = clmn.NewReader(ra, size, &clmn.ReaderOptions{MaxColumns: e.limits.maxColumns, ColumnMemory: e.limits.blockMemory})
	} else {
		in.trevni, err = format.NewReader(ra, size, &format.ReaderOptions{ReadAhead: true})
	}
	if err != nil {
		done()
		return nil, fmt.Errorf("%s: %w", in.name, err)
	}
	return in, nil
}

// source returns the input's rows, with the fields selected.
func (in *tableInput) source(sel []string) (csvtable.Source, error) {
	var (
		src csvtable.Source
		err error
	)
	if in.clmn != nil {
		src, err = csvtable.NewCLMNSource(in.clmn, sel)
	} else {
		src, err = csvtable.NewTrevniSource(in.trevni, sel)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.name, err)
	}
	return src, nil
}

func (in *tableInput) rowCount() int64 {
	if in.clmn != nil {
		return in.clmn.RowCount()
	}
	return in.trevni.RowCount()
}

// copyTable converts the Trevni or CLMN file at inPath, with the fields in
// sel (all when nil), to out through the sink newSink makes. It returns
// the rows and columns written.
func (e *env) copyTable(inPath string, out *output, sel []string, clmnOnly bool,
	newSink func(out *output, fields []csvtable.Field) (csvtable.Sink, error)) (rows int64, cols int, err error) {
	in, err := e.openTable(inPath)
	if err != nil {
		return 0, 0, err
	}
	defer in.done()
	if clmnOnly && in.clmn == nil {
		return 0, 0, fmt.Errorf("%s: not a CLMN file", in.name)
	}
	src, err := in.source(sel)
	if err != nil {
		return 0, 0, err
	}
	sink, err := newSink(out, src.Fields())
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", in.name, err)
	}
	p := e.newProgress(in.rowCount(), 0)
	rows, err = csvtable.Copy(e.ctx, sink, src, &csvtable.CopyOptions{Progress: p.setRows})
	p.done()
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", in.name, err)
	}
	return rows, len(src.Fields()), nil
}

// clmnToJSON runs "trevni tojson" on a CLMN file: one JSON record per row,
// of the columns in sel, in that order (all when nil).
func clmnToJSON(e *env, inPath string, out *output, readerSchema string, pretty bool, rf *rangeFlags, sel []string) error {
	if readerSchema != "" {
		return e.usagef("--schema does not apply to a CLMN file")
	}
	in, err := e.openTable(inPath)
	if err != nil {
		return err
	}
	defer in.done()
	if rf.offset < 0 {
		return e.usagef("--offset must not be negative")
	}
	src, err := in.source(sel)
	if err != nil {
		return err
	}
	fields := src.Fields()
	names := csvtable.AvroNames(fields)
	cells := make([]csvtable.Cell, len(fields))
	var b []byte
	for row := int64(0); rf.limit < 0 || row < rf.offset+rf.limit; row++ {
		err := src.Next(cells)
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", in.name, err)
		}
		if row < rf.offset {
			continue
		}
		b = append(b[:0], '{')
		for i := range fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsontext.AppendString(b, names[i])
			b = append(b, ':')
			switch c := &cells[i]; fields[i].Type {
			case csvtable.Int, csvtable.Long:
				b = strconv.AppendInt(b, c.I, 10)
			case csvtable.Double:
				b = jsontext.AppendFloat(b, c.F, 64)
			default:
				b = jsontext.AppendStringBytes(b, c.S)
			}
		}
		b = append(b, '}')
		line, err := indentJSON(b, pretty)
		if err != nil {
			return err // cannot happen: the record is written as valid JSON
		}
		if _, err := out.Write(append(line, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// clmnMeta runs "trevni meta" on a CLMN file: its header as JSON.
func clmnMeta(e *env, inPath string, out *output, pretty bool) error {
	in, err := e.openTable(inPath)
	if err != nil {
		return err
	}
	defer in.done()
	rd := in.clmn
	var w jsonWriter
	w.beginObject()
	w.key("format")
	w.str("CLMN")
	w.key("version")
	w.int(clmn.Version)
	w.key("fileLength")
	w.int(rd.Size())
	w.key("rowCount")
	w.int(rd.RowCount())
	w.key("columnCount")
	w.int(int64(rd.NumColumns()))
	w.key("headerSize")
	w.int(rd.HeaderSize())
	w.key("columns")
	w.beginArray()
	for i, c := range rd.Columns() {
		w.beginObject()
		w.key("number")
		w.int(int64(i))
		w.key("name")
		w.str(c.Name)
		w.key("type")
		w.str(c.Type.String())
		w.key("uncompressedSize")
		w.int(c.UncompressedSize)
		w.key("compressedSize")
		w.int(c.CompressedSize)
		w.key("offset")
		w.int(c.Offset)
		w.endObject()
	}
	w.endArray()
	w.endObject()
	b, err := indentJSON(w.b, pretty)
	if err != nil {
		return err // cannot happen: the writer writes valid JSON
	}
	if _, err := out.Write(append(b, '\n')); err != nil {
		return err
	}
	return nil
}
