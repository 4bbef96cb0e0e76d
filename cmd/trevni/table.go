package main

// What the flat-table commands (fromcsv, tocsv, fromclmn, toclmn) share:
// --delimiter, opening a Trevni or CLMN input, copying a table; and the
// CLMN side of meta.

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/csvtable"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/frontdoor"
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
		size, _ := out.written()
		return fmt.Sprintf("%s rows, %d columns, %s bytes (CLMN)", formatCount(rows), cols, formatCount(size))
	})
}

// randomAccess opens a file argument for random access through the front
// door (trevni.OpenObject): a file, an http(s) URL or an object of a store,
// read as trevni.Open reads a part; standard input in place when it is a
// regular file, else copied to a temporary file, as a named pipe is. Reads
// fail once the run is interrupted. done closes it and removes a copy, as
// the signal handler does.
func (e *env) randomAccess(path string) (ra io.ReaderAt, size int64, done func() error, err error) {
	var o *trevni.Object
	if path == "-" {
		o, err = trevni.OpenObjectStream(e.ctx, e.stdin, "standard input", e.openOptions("", false))
	} else {
		o, err = trevni.OpenObject(e.ctx, path, e.openOptions("", false))
	}
	if err != nil {
		return nil, 0, nil, err
	}
	unregister := e.app.addCleanup(func() { o.Close() })
	return o, o.Size(), func() error { unregister(); return o.Close() }, nil
}

// inferInputs opens each of ins once for random access (a name given
// twice is opened once), hands first each input's bytes in the order
// given (a name given twice, twice: the pass that infers a schema), and
// returns reread, which reads an input again from its start for the
// conversion, and done, which closes what was opened.
func (e *env) inferInputs(ins []string, first func(name string, r io.Reader) error) (reread func(string) (io.Reader, func() error, error), done func(), err error) {
	type input struct {
		ra   io.ReaderAt
		size int64
	}
	from := func(r input) io.Reader {
		return frontdoor.ContextReader(e.ctx, io.NewSectionReader(r.ra, 0, r.size))
	}
	read := map[string]input{}
	var closes []func() error
	done = func() {
		for _, c := range closes {
			c()
		}
	}
	for _, in := range ins {
		r, ok := read[in]
		if !ok {
			ra, size, c, err := e.randomAccess(in)
			if err != nil {
				done()
				return nil, nil, err
			}
			closes = append(closes, c)
			r = input{ra, size}
			read[in] = r
		}
		if err := first(in, from(r)); err != nil {
			done()
			return nil, nil, err
		}
	}
	reread = func(in string) (io.Reader, func() error, error) {
		return from(read[in]), func() error { return nil }, nil
	}
	return reread, done, nil
}

// tableInput is an input file read as Trevni or CLMN.
type tableInput struct {
	name   string
	clmn   *clmn.Reader   // when the file is CLMN
	trevni *format.Reader // otherwise
	done   func()
}

// openTable opens a Trevni, Trevni 1 or CLMN input through the front door:
// a CLMN file is read as it is, a Trevni 1 file through its Trevni 2
// copy.
func (e *env) openTable(path string) (*tableInput, error) {
	o := e.openOptions("", false)
	ds, done, err := e.openDataset([]string{path}, o)
	if err != nil {
		return nil, err
	}
	part := ds.Parts()[0]
	f, err := part.Open(e.ctx)
	if err != nil {
		done()
		return nil, err
	}
	in := &tableInput{name: part.Name(), clmn: frontdoor.CLMNReader(f), trevni: frontdoor.TrevniReader(f), done: func() { f.Close(); done() }}
	if f.Format() != trevni.Trevni2 && f.Format() != trevni.CLMN {
		// Its records, through the front door's Trevni 2 copy.
		if in.trevni, err = frontdoor.AsTrevni(e.ctx, f); err != nil {
			in.done()
			return nil, err
		}
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

// trevniCSV writes a Trevni (or Trevni 1) input as CSV on workers.n
// goroutines holding at most workers.memory of rows waiting
// (csvtable.WriteTrevniCSV), as copyTable into a CSV sink does; it
// reports false, having written nothing, for a CLMN input, which
// copyTable reads.
func (e *env) trevniCSV(inPath string, out *output, sel []string, comma rune, workers readWorkers) (bool, error) {
	in, err := e.openTable(inPath)
	if err != nil {
		return true, err
	}
	defer in.done()
	if in.clmn != nil {
		return false, nil
	}
	p := e.newProgress(in.rowCount(), 0)
	_, err = csvtable.WriteTrevniCSV(e.ctx, out, in.trevni, sel, comma, &csvtable.ParallelOptions{Workers: workers.n, OutputMemory: workers.memory, Progress: p.setRows})
	p.done()
	if err != nil {
		return true, fmt.Errorf("%s: %w", in.name, err)
	}
	return true, nil
}

// clmnMeta describes a CLMN file's header as compact JSON (meta).
func clmnMeta(rd *clmn.Reader) []byte {
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
	return w.b
}
