package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/ocf"
	"github.com/trevni-go/trevni/remote"
	"github.com/trevni-go/trevni/schema/layout"
)

// The reading commands take a data set: several files, shell-style globs
// (expanded here, so they may be quoted) and directories (their *.trv
// files in name order), local files or http(s) URLs, read one after the
// other as one stream of records.

// isTrevniArg reports whether an argument names Trevni input rather than
// an output: a URL, a glob, a directory, standard input once an input was
// given, or an existing file that starts like a Trevni file.
func isTrevniArg(arg string) bool {
	if remote.IsURL(arg) || hasGlob(arg) {
		return true
	}
	if fi, err := os.Stat(arg); err != nil || !fi.Mode().IsRegular() {
		return err == nil && fi.IsDir() // a named pipe is not read to find out
	}
	f, err := os.Open(arg)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return true
	}
	var magic [3]byte
	_, err = io.ReadFull(f, magic[:])
	return err == nil && string(magic[:]) == "Trv"
}

func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// expandInputs expands globs and directories, keeping the order of the
// arguments; a glob matches in name order, a directory gives its *.trv
// files in name order. A glob or directory that gives no file is an error.
func expandInputs(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		switch {
		case a == "-" || remote.IsURL(a):
			out = append(out, a)
		case hasGlob(a) && !exists(a):
			m, err := filepath.Glob(a)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", a, err)
			}
			if len(m) == 0 {
				return nil, fmt.Errorf("%s: no file matches", a)
			}
			for _, f := range m {
				if fi, err := os.Stat(f); err == nil && fi.IsDir() {
					continue // a glob's directories are not read into
				}
				out = append(out, f)
			}
		default:
			fi, err := os.Stat(a)
			if err != nil || !fi.IsDir() {
				out = append(out, a) // opening it reports the error
				continue
			}
			m, err := filepath.Glob(filepath.Join(globEscape(a), "*.trv"))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", a, err)
			}
			if len(m) == 0 {
				return nil, fmt.Errorf("%s: directory holds no *.trv file", a)
			}
			out = append(out, m...) // Glob sorts its matches
		}
	}
	if slices.Contains(out, "-") && len(out) > 1 {
		return nil, errors.New("standard input (-) cannot be read with other inputs")
	}
	return out, nil
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// globEscape escapes the glob characters of a directory name.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// part is one file of a data set, as scanned before reading.
type part struct {
	path   string
	name   string // for messages
	rows   int64
	size   int64
	schema string // avro.schema, "" when none
	cols   []format.ColumnMeta
	open   *trevniInput // kept open when it is the only part
}

// scanParts opens every input in turn to learn its rows and schema, and
// checks that the parts form one data set: the same Avro schema, or (with
// readerSchema, the text of --schema) schemas that all resolve to it, or,
// for files not written from Avro, the same columns. The error names the
// two files that differ. A single input is kept open, opened with opts,
// for eachPart (standard input cannot be read twice); the caller must
// call closeParts.
func (e *env) scanParts(paths []string, readerSchema string, opts *format.ReaderOptions) ([]part, error) {
	return e.scan(paths, readerSchema, opts, len(paths) == 1)
}

// scanHeaders is scanParts for a command that reads nothing past the
// parts' headers (count): no part is kept open, and a URL is read no
// further than its header.
func (e *env) scanHeaders(paths []string, readerSchema string) ([]part, error) {
	return e.scan(paths, readerSchema, nil, false)
}

// scan is scanParts, keeping the single input open if keep. The parts it
// closes again are opened for their header only.
func (e *env) scan(paths []string, readerSchema string, opts *format.ReaderOptions, keep bool) ([]part, error) {
	parts := make([]part, 0, len(paths))
	for _, p := range paths {
		in, err := e.openTrevniFor(p, opts, !keep)
		if err != nil {
			return nil, err
		}
		pt := part{path: p, name: in.Name(), rows: in.RowCount(), size: in.Size(), schema: in.Meta().GetString(layout.MetaAvroSchema)}
		for i := range in.NumColumns() {
			c, err := in.Column(i)
			if err != nil {
				in.Close()
				return nil, err
			}
			pt.cols = append(pt.cols, *c)
		}
		if len(parts) > 0 {
			err = agree(&parts[0], &pt)
			if err != nil && readerSchema != "" && pt.schema != "" {
				// The reader schema may reconcile them: check that
				// this part resolves to it.
				if _, rerr := assemble.NewAvroReader(in.Reader, &assemble.Options{ReaderSchema: readerSchema, Layout: e.limits.layout()}); rerr != nil {
					err = fmt.Errorf("%s: does not resolve to the --schema: %w", pt.name, rerr)
				} else {
					err = nil
				}
			}
		}
		if keep && err == nil {
			pt.open = in
		} else {
			in.Close()
		}
		if err != nil {
			return nil, err
		}
		parts = append(parts, pt)
	}
	return parts, nil
}

// closeParts closes the input scanParts kept open, if eachPart did not.
func closeParts(parts []part) {
	for i := range parts {
		if parts[i].open != nil {
			parts[i].open.Close()
			parts[i].open = nil
		}
	}
}

// agree checks that part b may be read with part a.
func agree(a, b *part) error {
	if a.schema != "" || b.schema != "" {
		if a.schema == b.schema {
			return nil
		}
		return fmt.Errorf("%s and %s have different schemas: give --schema a reader schema both resolve to", a.name, b.name)
	}
	if len(a.cols) != len(b.cols) {
		return fmt.Errorf("%s and %s have different columns (%d and %d)", a.name, b.name, len(a.cols), len(b.cols))
	}
	for i := range a.cols {
		x, y := &a.cols[i], &b.cols[i]
		if x.Name != y.Name || x.Type != y.Type || x.Parent != y.Parent || x.Array != y.Array {
			return fmt.Errorf("%s and %s have different columns: column %d is %q (%s) and %q (%s)", a.name, b.name, i, x.Name, x.Type, y.Name, y.Type)
		}
	}
	return nil
}

// totals returns the rows and bytes of the parts.
func totals(parts []part) (rows, size int64) {
	for _, p := range parts {
		rows += p.rows
		size += p.size
	}
	return rows, size
}

// eachPart opens the parts one at a time and calls fn with each part that
// holds records of the range rf selects (all of them when rf is nil),
// with the first record of the part to read and the record after the
// last; before is the number of the data set's records before the part.
// The bytes read count towards p from one part to the next.
func (e *env) eachPart(parts []part, opts *format.ReaderOptions, rf *rangeFlags, p *progress, fn func(in *trevniInput, from, to, before int64) error) error {
	var offset, limit int64 = 0, -1
	if rf != nil {
		if rf.offset < 0 {
			return e.usagef("--offset must not be negative")
		}
		offset, limit = rf.offset, rf.limit
	}
	var before, bytesBefore int64
	for k := range parts {
		pt := &parts[k]
		if limit == 0 {
			break
		}
		if offset >= pt.rows && pt.rows > 0 {
			offset -= pt.rows
			before += pt.rows
			bytesBefore += pt.size
			continue
		}
		in := pt.open
		if in == nil {
			var err error
			if in, err = e.openTrevni(pt.path, opts); err != nil {
				return err
			}
		}
		if in.RowCount() != pt.rows {
			in.Close()
			return fmt.Errorf("%s: changed while being read (%d rows, then %d)", in.Name(), pt.rows, in.RowCount())
		}
		in.ra.base = bytesBefore
		if p != nil {
			in.track(p)
		}
		from := min(offset, pt.rows)
		to := pt.rows
		if limit >= 0 {
			if limit < to-from { // compared so, from+limit cannot overflow
				to = from + limit
			}
			limit -= to - from
		}
		err := fn(in, from, to, before)
		in.Close()
		pt.open = nil
		if err != nil {
			return err
		}
		offset = 0
		before += pt.rows
		bytesBefore += pt.size
	}
	return nil
}

// eachAvro is eachPart for records read as Avro: fn gets a reader of the
// part's records in the range, through the reader schema (its text) if
// given, with the fields and filter of sf (nil for none). With a filter,
// --limit counts the records that match, across the parts; --report
// prints each part's scan report after it, and when several parts were
// read their sum at the end.
func (e *env) eachAvro(parts []part, readerSchema string, rf *rangeFlags, sf *selectFlags, p *progress, fn func(ar *assemble.AvroReader, in *trevniInput, before int64) error) error {
	var reports partReports // for --report
	remaining := int64(-1)  // matches still wanted, with a filter and a limit
	if sf != nil && sf.where != "" && rf != nil && rf.limit >= 0 {
		byRows := *rf
		remaining, byRows.limit = rf.limit, -1
		rf = &byRows
	}
	err := e.eachPart(parts, &format.ReaderOptions{ReadAhead: true}, rf, p, func(in *trevniInput, from, to, before int64) error {
		if remaining == 0 {
			return errEnough
		}
		opts := assemble.Options{ReaderSchema: readerSchema, Layout: e.limits.layout(), MaxRecordBytes: e.limits.maxRecord}
		sf.options(&opts)
		ar, err := newAvroReader(in.Reader, &opts)
		if err == nil && from > 0 {
			err = ar.SeekRow(from)
		}
		if err != nil {
			return e.whereError(fmt.Errorf("%s: %w", in.Name(), err))
		}
		ar.StopAt(to)
		ar.SetLimit(remaining)
		if err := fn(ar, in, before+from); err != nil {
			return err
		}
		if remaining > 0 {
			remaining -= ar.Report().RowsMatched
		}
		if sf != nil && sf.report {
			reports.add(e, in.Name(), ar.Report())
		}
		return nil
	})
	if errors.Is(err, errEnough) {
		err = nil
	}
	if err == nil {
		reports.finish(e)
	}
	return err
}

// newAvroReader is assemble.NewAvroReader, except that when a selection
// of several fields fails, the error is that of the first field, in the
// order given, that fails on its own: the reader may check the fields in
// any order, and a message should not change from one run to the next.
func newAvroReader(rd *format.Reader, opts *assemble.Options) (*assemble.AvroReader, error) {
	ar, err := assemble.NewAvroReader(rd, opts)
	if err == nil || len(opts.Fields) < 2 {
		return ar, err
	}
	for _, f := range opts.Fields {
		one := *opts
		one.Fields = []string{f}
		if _, ferr := assemble.NewAvroReader(rd, &one); ferr != nil {
			return nil, ferr
		}
	}
	return nil, err
}

// errEnough stops eachAvro once a limit on matches is reached.
var errEnough = errors.New("enough records")

// readerSchemaText reads the --schema file, if one is given.
func (e *env) readerSchemaText(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	text, _, err := e.readSchemaFile(path)
	return text, err
}

// toContainer writes the records of the parts in the range rf selects to
// out as one Avro object container file of the reader schema (its text),
// or of the parts' schema, and returns the records written.
func (e *env) toContainer(out io.Writer, parts []part, readerSchema string, rf *rangeFlags, sf *selectFlags, codec string, p *progress) (int64, error) {
	text := cmp.Or(readerSchema, parts[0].schema)
	if text == "" {
		return 0, fmt.Errorf("%s: the file has no %s metadata: it was not written from Avro", parts[0].name, layout.MetaAvroSchema)
	}
	// Records of a --fields selection are of the projected schema, which
	// the first reader tells.
	projected := sf != nil && sf.fields != "" && readerSchema == ""
	var cw *ocf.Writer
	start := func(text string) (err error) {
		cw, err = ocf.NewWriter(out, text, ocf.WriterOptions{Codec: codec})
		return err
	}
	var n int64
	err := e.eachAvro(parts, readerSchema, rf, sf, p, func(ar *assemble.AvroReader, in *trevniInput, before int64) error {
		if cw == nil {
			t := text
			if projected {
				t = ar.Schema().String()
			}
			if err := start(t); err != nil {
				return err
			}
		}
		var rec []byte
		for {
			var err error
			rec, err = ar.ReadBinary(rec[:0])
			if err == io.EOF {
				return nil
			}
			if err == nil {
				err = cw.Append(rec)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", in.Name(), err)
			}
			n++
			if n%4096 == 0 {
				if err := e.interrupted(); err != nil {
					return err
				}
				p.setRows(n)
			}
		}
	})
	if err != nil {
		return n, err
	}
	if cw == nil { // no record in the range: an empty container
		if projected {
			in, err := e.openTrevni(parts[0].path, nil)
			if err != nil {
				return 0, err
			}
			defer in.Close()
			opts := assemble.Options{Layout: e.limits.layout(), MaxRecordBytes: e.limits.maxRecord}
			sf.options(&opts)
			ar, err := newAvroReader(in.Reader, &opts)
			if err != nil {
				return 0, e.whereError(fmt.Errorf("%s: %w", in.Name(), err))
			}
			text = ar.Schema().String()
		}
		if err := start(text); err != nil {
			return 0, err
		}
	}
	p.setRows(n)
	return n, cw.Close()
}
