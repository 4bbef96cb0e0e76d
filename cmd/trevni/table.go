package main

// The flat-table commands: fromcsv, tocsv, fromclmn, toclmn, and the CLMN
// side of tojson and meta.

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/csvtable"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/jsontext"
	"github.com/trevni-go/trevni/shred"
)

// tableCommands are the flat-table commands, for the command table.
func tableCommands() []*command {
	return []*command{
		{
			name: "fromcsv", args: "IN.csv OUT", minArgs: 2, maxArgs: 2,
			summary: "convert CSV to Trevni or CLMN",
			help:    fromcsvHelp, setup: fromcsvCommand,
		},
		{
			name: "tocsv", args: "IN [OUT.csv]", minArgs: 1, maxArgs: 2,
			summary: "convert a Trevni or CLMN file of flat records to CSV",
			help:    tocsvHelp, setup: tocsvCommand,
		},
		{
			name: "fromclmn", args: "IN.clmn OUT.trv", minArgs: 2, maxArgs: 2,
			summary: "convert a CLMN file to Trevni",
			help:    fromclmnHelp, setup: fromclmnCommand,
		},
		{
			name: "toclmn", args: "IN.trv OUT.clmn", minArgs: 2, maxArgs: 2,
			summary: "convert a Trevni file of flat records to CLMN",
			help:    toclmnHelp, setup: toclmnCommand,
		},
	}
}

const fromcsvHelp = `
Fromcsv converts CSV (RFC 4180: a header row, then one record per row,
cells quoted with " when they hold the delimiter, quotes or line breaks)
to a Trevni file, or to a CLMN file with --format clmn or an output name
ending in .clmn.

Column types are inferred over all rows, not the first: int when every
non-empty cell is a 32-bit integer written without a plus sign or leading
zeros, long for 64 bits, double when they are all decimal numbers (or NaN,
Infinity, -Infinity), boolean when they are all true or false, and string
otherwise. A column with an empty cell is nullable; an empty cell is null.
Inference reads the input twice (standard input is first copied to a
temporary file). With --schema, the types are those of a flat Avro record
schema, matched to the header by field name, and the input is read once.

CLMN has no nulls and no booleans: for a CLMN output, inferred nullable
and boolean columns are strings.

A record with the wrong number of cells, or a cell that does not parse as
its column's type, is an error naming the line and column, and no output
is written.

Examples (the file names stand for your own):

	trevni fromcsv people.csv people.trv
	trevni fromcsv --delimiter ';' --schema people.avsc people.csv people.trv
	trevni fromcsv people.csv people.clmn
`

const tocsvHelp = `
Tocsv writes the records of a Trevni file written from Avro, or of a CLMN
file (told by its first bytes), as CSV: a header row, then one record per
row. Fields must be flat (boolean, int, long, float, double, string, enum,
or a union of null and one of these); a nested field is an error naming
it, unless --fields selects only flat ones. Only the selected columns are
read. Null is an empty cell; doubles are written in the shortest form that
reads back the same number.

Examples (the file names stand for your own):

	trevni tocsv people.trv people.csv
	trevni tocsv --fields id,salary --delimiter '\t' people.clmn
`

const fromclmnHelp = `
Fromclmn converts a CLMN file to a Trevni file: INT32 columns become int
fields, INT64 long, FLOAT64 double and STRING string (column names that are
not Avro names are made into ones, and kept in the field attribute
csv.name).

Examples (the file names stand for your own):

	trevni fromclmn sample.clmn sample.trv
`

const toclmnHelp = `
Toclmn converts a Trevni file of flat records to a CLMN file: int fields
become INT32 columns, long INT64, float and double FLOAT64, string and enum
STRING. Any other field type, a null value and a string over 65,535 bytes
are errors naming the row and the column. --fields selects and orders the
fields written.

Examples (the file names stand for your own):

	trevni toclmn people.trv people.clmn
`

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

// wantCLMN tells whether an output is CLMN: --format, or the name's
// extension.
func wantCLMN(e *env, formatFlag, path string) (bool, error) {
	switch strings.ToLower(formatFlag) {
	case "clmn":
		return true, nil
	case "trevni", "trv":
		return false, nil
	case "":
		return strings.EqualFold(filepath.Ext(path), ".clmn"), nil
	}
	return false, e.usagef("--format %q: want trevni or clmn", formatFlag)
}

func fromcsvCommand(fs *flag.FlagSet) runFunc {
	schemaFile := fs.String("schema", "", "the columns' types as a flat Avro record schema `FILE.avsc` (default: inferred)")
	delim := addDelimiter(fs)
	formatFlag := fs.String("format", "", "output format: trevni or clmn (default: clmn for a name ending in .clmn)")
	tf := addTrevniFlags(fs)
	return func(e *env, args []string) error {
		comma, err := delimiter(e, *delim)
		if err != nil {
			return err
		}
		toCLMN, err := wantCLMN(e, *formatFlag, args[1])
		if err != nil {
			return err
		}
		opts, err := tf.options(e)
		if err != nil {
			return err
		}
		var fields []csvtable.Field
		if *schemaFile != "" {
			_, s, err := e.readSchemaFile(*schemaFile)
			if err != nil {
				return err
			}
			if fields, err = csvtable.FieldsOf(s); err != nil {
				return fmt.Errorf("%s: %w", *schemaFile, err)
			}
		}
		out, err := e.createOutput(args[1])
		if err != nil {
			return err
		}
		defer out.Abort()
		if opts.TempDir, err = out.TempDir(); err != nil {
			return err
		}
		inName := displayName(args[0], false)
		// The input: read once with a schema, twice without.
		var open func() (io.Reader, error)
		if fields != nil {
			in, err := e.openInput(args[0])
			if err != nil {
				return err
			}
			defer in.Close()
			open = func() (io.Reader, error) { return &ctxReader{ctx: e.ctx, r: in}, nil }
		} else {
			ra, size, done, err := e.randomAccess(args[0])
			if err != nil {
				return err
			}
			defer done()
			open = func() (io.Reader, error) {
				return &ctxReader{ctx: e.ctx, r: io.NewSectionReader(ra, 0, size)}, nil
			}
			r, _ := open()
			if fields, _, err = csvtable.Infer(r, comma); err != nil {
				return fmt.Errorf("%s: %w", inName, err)
			}
			if toCLMN {
				fields = csvtable.ForCLMN(fields)
			}
		}
		r, err := open()
		if err != nil {
			return err
		}
		src, err := csvtable.NewCSVSource(r, fields, comma)
		if err != nil {
			return fmt.Errorf("%s: %w", inName, err)
		}
		p := e.newProgress(0, inputSize(args[0]))
		defer p.done()
		var sink csvtable.Sink
		if toCLMN {
			sink, err = csvtable.NewCLMNSink(out, fields, &clmn.WriterOptions{TempDir: opts.TempDir})
		} else {
			sink, err = csvtable.NewTrevniSink(out, fields, &shred.Options{WriterOptions: opts, Layout: e.limits.layout()})
		}
		if err != nil {
			return err
		}
		rows, err := csvtable.Copy(e.ctx, sink, src, &csvtable.CopyOptions{Progress: p.setRows})
		if err != nil {
			return fmt.Errorf("%s: %w", inName, err)
		}
		return e.finishTable(out, p, rows, len(fields), toCLMN, opts)
	}
}

// finishTable commits an output and prints the summary line.
func (e *env) finishTable(out *output, p *progress, rows int64, cols int, isCLMN bool, opts format.WriterOptions) error {
	if err := out.Commit(); err != nil {
		return err
	}
	p.done()
	e.tableSummary(out, rows, cols, isCLMN, opts)
	return nil
}

// tableSummary prints what a table command wrote.
func (e *env) tableSummary(out *output, rows int64, cols int, isCLMN bool, opts format.WriterOptions) {
	if !isCLMN {
		e.summary(out, rows, opts)
	} else if !e.quiet && out.file != nil {
		size := int64(0)
		if fi, err := os.Stat(out.Name()); err == nil {
			size = fi.Size()
		}
		fmt.Fprintf(e.stderr, "trevni: %s: wrote %s: %s rows, %d columns, %s bytes (CLMN)\n",
			e.name, out.Name(), formatCount(rows), cols, formatCount(size))
	}
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
		in.clmn, err = clmn.NewReader(ra, size)
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
// sel (all when nil), to outPath through the sink newSink makes, and
// commits the output. It returns the rows and columns written.
func (e *env) copyTable(inPath, outPath string, sel []string, clmnOnly bool,
	newSink func(out *output, fields []csvtable.Field) (csvtable.Sink, error)) (out *output, rows int64, cols int, err error) {
	out, err = e.createOutput(outPath)
	if err != nil {
		return nil, 0, 0, err
	}
	defer out.Abort()
	in, err := e.openTable(inPath)
	if err != nil {
		return nil, 0, 0, err
	}
	defer in.done()
	if clmnOnly && in.clmn == nil {
		return nil, 0, 0, fmt.Errorf("%s: not a CLMN file", in.name)
	}
	src, err := in.source(sel)
	if err != nil {
		return nil, 0, 0, err
	}
	sink, err := newSink(out, src.Fields())
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%s: %w", in.name, err)
	}
	p := e.newProgress(in.rowCount(), 0)
	rows, err = csvtable.Copy(e.ctx, sink, src, &csvtable.CopyOptions{Progress: p.setRows})
	if err == nil {
		err = out.Commit()
	}
	p.done()
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%s: %w", in.name, err)
	}
	return out, rows, len(src.Fields()), nil
}

func tocsvCommand(fs *flag.FlagSet) runFunc {
	fieldsFlag := fs.String("fields", "", "write only these comma-separated `FIELDS`, in this order")
	delim := addDelimiter(fs)
	return func(e *env, args []string) error {
		comma, err := delimiter(e, *delim)
		if err != nil {
			return err
		}
		_, _, _, err = e.copyTable(args[0], argOr(args, 1, "-"), fieldList(*fieldsFlag), false,
			func(out *output, fields []csvtable.Field) (csvtable.Sink, error) {
				return csvtable.NewCSVSink(out, fields, comma)
			})
		return err
	}
}

func fromclmnCommand(fs *flag.FlagSet) runFunc {
	tf := addTrevniFlags(fs)
	return func(e *env, args []string) error {
		opts, err := tf.options(e)
		if err != nil {
			return err
		}
		out, rows, cols, err := e.copyTable(args[0], args[1], nil, true,
			func(out *output, fields []csvtable.Field) (csvtable.Sink, error) {
				var err error
				if opts.TempDir, err = out.TempDir(); err != nil {
					return nil, err
				}
				return csvtable.NewTrevniSink(out, fields, &shred.Options{WriterOptions: opts, Layout: e.limits.layout()})
			})
		if err != nil {
			return err
		}
		e.tableSummary(out, rows, cols, false, opts)
		return nil
	}
}

func toclmnCommand(fs *flag.FlagSet) runFunc {
	fieldsFlag := fs.String("fields", "", "write only these comma-separated `FIELDS`, in this order")
	return func(e *env, args []string) error {
		out, rows, cols, err := e.copyTable(args[0], args[1], fieldList(*fieldsFlag), false,
			func(out *output, fields []csvtable.Field) (csvtable.Sink, error) {
				tmpDir, err := out.TempDir()
				if err != nil {
					return nil, err
				}
				return csvtable.NewCLMNSink(out, fields, &clmn.WriterOptions{TempDir: tmpDir})
			})
		if err != nil {
			return err
		}
		e.tableSummary(out, rows, cols, true, format.WriterOptions{})
		return nil
	}
}

// clmnToJSON runs "trevni tojson" on a CLMN file: one JSON record per row,
// of the columns in sel, in that order (all when nil).
func clmnToJSON(e *env, args []string, readerSchema string, pretty bool, rf *rangeFlags, sel []string) error {
	if readerSchema != "" {
		return e.usagef("--schema does not apply to a CLMN file")
	}
	out, err := e.createOutput(argOr(args, 1, "-"))
	if err != nil {
		return err
	}
	defer out.Abort()
	in, err := e.openTable(args[0])
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
	return out.Commit()
}

// clmnMeta runs "trevni meta" on a CLMN file: its header as JSON.
func clmnMeta(e *env, args []string, pretty bool) error {
	out, err := e.createOutput(argOr(args, 1, "-"))
	if err != nil {
		return err
	}
	defer out.Abort()
	in, err := e.openTable(args[0])
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
	return out.Commit()
}
