package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/predicate"
	"github.com/trevni-go/trevni/schema/layout"
)

const dumpHelp = `
Dump prints every row of any Trevni file as one JSON object per line,
without needing a schema. Keys are the full column names, in column order;
an array column holds a JSON array; the elements of an array column with
child columns are objects holding the children (and the parent's own value,
if it is not null-typed, under "value$"). Bytes are hex strings; floats are
printed as Java prints them (1097.0, -0.0, 1.4E-45), non-finite ones as the
strings "NaN", "Infinity" and "-Infinity"; strings are escaped as Java's
Jackson does, with characters beyond the Basic Multilingual Plane left as
UTF-8. No space follows a comma or a colon ({"id":1}), as in tojson's and
Java's trevni_tojson's output. --plain writes bytes in base64 and floats
as encoding/json does (10000000000, 1e-7), as tojson --plain and head do.

--fields keeps only some columns, and only their bytes are read. Each
comma-separated name is a full column name as dump prints it (to[],
received[]#sigs[]#algo), which keeps the column and the columns nested in
it, or, in a file that stores an Avro schema, a field path as tojson takes
it (received.sigs.algo), which keeps the columns tojson would read for it.
The array columns a kept column is nested in are kept too, since they give
the rows their shape.

--where keeps only the rows satisfying a filter expression, in the grammar
of tojson's --where, over the Avro fields of the schema the file stores (a
file written from Avro: fromavro, fromjson, random); a file without one is
a usage error. Blocks whose statistics rule out a match are not read, in
the filter's columns or in those printed. --limit N prints the first N
rows (with --where, the first N that match) and reads no further.
--report prints the rows scanned and matched, the blocks read and skipped
per column and the bytes read.

The rows go to OUT.jsonl if given, otherwise to standard output.

Examples (the file names stand for your own):

	trevni dump weather.trv | head -3
	trevni dump weather.trv weather.jsonl
	trevni dump --fields 'id,received[]#host' email.trv
	trevni dump --fields id,received.host --where "received.host = 'mx'" --report email.trv
`

// dumpCommand sets up "trevni dump".
func dumpCommand(fs *flag.FlagSet) runFunc {
	sf := addSelectFlags(fs)
	limit := fs.Int64("limit", -1, "print at most `N` rows (with --where, the first N that match); -1 means all")
	plain := fs.Bool("plain", false, "bytes in base64 and floats as encoding/json writes them, as tojson --plain (default: hex, and Java's float digits)")
	impala := addImpalaBooleans(fs)
	return func(e *env, ins []string, out *output) error {
		ds, done, err := e.openDataset(ins, e.openOptions("", *impala))
		if err != nil {
			return err
		}
		defer done()
		p := e.newProgress(ds.RowCount(), ds.Size())
		defer p.done()
		d := &dump{e: e, out: out, sf: sf, left: *limit, p: p, plain: *plain}
		for _, part := range ds.Parts() {
			if d.left == 0 {
				break
			}
			if err := d.part(part); err != nil {
				return err
			}
			d.before += part.RowCount()
		}
		if sf.report {
			p.done()
			d.reports.finish(e)
		}
		return nil
	}
}

// dump is one run of dump over the parts of a data set.
type dump struct {
	e       *env
	out     io.Writer
	sf      *selectFlags
	left    int64 // rows still to print, or -1 for all
	plain   bool  // --plain
	before  int64 // rows of the parts before the current one
	bytes   int64 // bytes read from the parts before the current one
	p       *progress
	buf     []byte
	reports partReports // for --report
}

// part prints the rows of one part, in the form of its format.
func (d *dump) part(part *trevni.Part) error {
	e := d.e
	f, err := part.Open(e.ctx)
	if err != nil {
		return err
	}
	defer func() {
		d.bytes += f.BytesRead()
		f.Close()
	}()
	switch f.Format() {
	case trevni.Trevni1:
		switch {
		case d.sf.fields != "":
			return e.usagef("--fields does not apply to version-1 files")
		case d.sf.where != "":
			return e.usagef("--where does not apply to version-1 files")
		case d.sf.report:
			return e.usagef("--report does not apply to version-1 files")
		}
		n, err := v1Dump(e, d.out, frontdoor.Trevni1Reader(f), d.left)
		if d.left > 0 {
			d.left -= n
		}
		if err != nil {
			return fmt.Errorf("%s: %w", part.Name(), err)
		}
		return nil
	case trevni.CLMN:
		return fmt.Errorf("%s: a CLMN file: dump prints Trevni files' columns (tojson prints its rows)", part.Name())
	}
	in := frontdoor.TrevniReader(f)
	if in == nil {
		// An Avro or Parquet file: the columns a Trevni file of its
		// records would have.
		if in, err = frontdoor.AsTrevni(e.ctx, f); err != nil {
			return fmt.Errorf("%s: %w", part.Name(), err)
		}
	}
	dr, err := e.newDumper(in, part.Name(), d.sf, d.plain)
	if err != nil {
		return err
	}
	defer dr.rows.Close()
	for n := int64(0); d.left != 0; n++ {
		if n%1024 == 0 {
			if err := e.interrupted(); err != nil {
				return err
			}
			d.p.setRows(d.before + dr.rows.Row())
			d.p.setBytes(d.bytes + f.BytesRead())
		}
		d.buf, err = dr.next(d.buf[:0])
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", part.Name(), err)
		}
		d.buf = append(d.buf, '\n')
		if _, err := d.out.Write(d.buf); err != nil {
			return err
		}
		if d.left > 0 {
			d.left--
		}
	}
	if d.sf.report {
		d.p.done()
		fetched := f.Fetched()
		d.reports.add(e, part.Name(), dr.report(in), &fetched)
	}
	return nil
}

// dumper reads the rows dump prints from one file: those of the selected
// columns, and with a filter only those that match.
type dumper struct {
	rows    *format.RowReader
	filter  *assemble.AvroReader // finds the matching rows; nil without --where
	matched int64
}

// newDumper sets up the reading of one file for dump's flags.
func (e *env) newDumper(in *format.Reader, name string, sf *selectFlags, plain bool) (*dumper, error) {
	opts := format.RowsOptions{Plain: plain}
	if sf.fields != "" {
		cols, err := e.dumpColumns(in, name, sf.fields)
		if err != nil {
			return nil, err
		}
		opts.Columns = cols
	}
	d := &dumper{}
	if sf.where != "" {
		text := in.Meta().GetString(layout.MetaAvroSchema)
		if text == "" {
			return nil, e.usagef("--where: %s stores no Avro schema to resolve field paths against (dump filters only files written from Avro)", name)
		}
		s, err := layout.ParseStored(text, e.limits.layout())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		l, err := layout.New(s, e.limits.layout())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		pr, err := predicate.Compile(sf.where, s, l)
		if err != nil {
			return nil, e.whereError(fmt.Errorf("%s: %w", name, err))
		}
		// Options.Filter judges the blocks by their statistics and
		// evaluates the rows they leave; NextMatch reads nothing for
		// output, so the output fields are the filter's own, for fewer
		// block tables to load, unless a path through a union does not
		// allow them as a selection.
		if d.filter, err = assemble.NewAvroReader(in, &assemble.Options{Fields: pr.Fields(), Filter: sf.where, Layout: e.limits.layout(), MaxRecordBytes: e.limits.maxRecord}); err != nil {
			d.filter, err = assemble.NewAvroReader(in, &assemble.Options{Filter: sf.where, Layout: e.limits.layout(), MaxRecordBytes: e.limits.maxRecord})
		}
		if err != nil {
			return nil, e.whereError(fmt.Errorf("%s: %w", name, err))
		}
	}
	rows, err := in.RowsOf(&opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	rows.MaxBytes = e.limits.maxRecord
	if d.filter != nil {
		for _, i := range rows.Columns() {
			rows.Column(i).SetReadAhead(false) // never fetch a block the filter skips
		}
	}
	d.rows = rows
	return d, nil
}

// next appends the next row to print to dst as JSON, or returns io.EOF.
func (d *dumper) next(dst []byte) ([]byte, error) {
	if d.filter != nil {
		row, err := d.filter.NextMatch()
		if err != nil {
			return dst, err
		}
		if row != d.rows.Row() {
			if err := d.rows.SeekRow(row); err != nil {
				return dst, err
			}
		}
	}
	dst, err := d.rows.ReadJSON(dst)
	if err == nil {
		d.matched++
	}
	return dst, err
}

// report returns what reading the file took: the filter's columns and the
// columns printed, each counted once.
func (d *dumper) report(in *format.Reader) trevni.ScanReport {
	r := trevni.ScanReport{FileSize: in.Size(), RowsScanned: d.matched, RowsMatched: d.matched}
	byCol := map[int]*trevni.ColumnScan{}
	if d.filter != nil {
		fr := d.filter.Report()
		r.RowsScanned, r.RowsProven = fr.RowsScanned, fr.RowsProven
		for _, c := range fr.Columns {
			c := trevni.ColumnScan(c)
			byCol[c.Column] = &c
		}
	}
	for _, i := range d.rows.Columns() {
		c := byCol[i]
		if c == nil {
			meta, _ := in.Column(i)
			blocks, _ := in.Blocks(i)
			c = &trevni.ColumnScan{Column: i, Name: meta.Name, Blocks: len(blocks)}
			byCol[i] = c
		}
		n, b := d.rows.Column(i).Loaded()
		c.BlocksRead += n
		c.BytesRead += b
		c.BlocksSkipped = max(0, c.Blocks-c.BlocksRead)
	}
	for i := range in.NumColumns() {
		if c := byCol[i]; c != nil {
			r.Columns = append(r.Columns, *c)
			r.BytesRead += c.BytesRead
		}
	}
	return r
}

// dumpColumns resolves dump's --fields on a file: each name is a full
// column name, kept with the columns nested in it, or, in a file that
// stores an Avro schema, a field path, kept as the columns tojson reads
// for it. An unknown name is a usage error.
func (e *env) dumpColumns(in *format.Reader, name, fields string) ([]int, error) {
	var cols []int
	avro := in.Meta().Has(layout.MetaAvroSchema)
	for _, name := range strings.Split(fields, ",") {
		if name == "" {
			return nil, e.usagef("--fields: an empty name in %q", fields)
		}
		if i, ok := in.ColumnIndex(name); ok {
			cols = append(cols, in.Subtree(i)...)
			continue
		}
		if !avro {
			return nil, e.usagef("--fields: %s has no column %q (it stores no Avro schema, so names are column names)", name, name)
		}
		ar, err := assemble.NewAvroReader(in, &assemble.Options{Fields: []string{name}, Layout: e.limits.layout()})
		if err != nil {
			return nil, e.usagef("--fields: %s: %q is neither a column nor a field: %v", name, name, err)
		}
		cols = append(cols, ar.ColumnsRead()...)
	}
	return cols, nil
}

// dumpSpec is the command "trevni dump".
func dumpSpec() *command {
	return &command{
		name: "dump", output: optionalOutput, dataset: true, stdin: true, args: "IN.trv... [OUT.jsonl]", minArgs: 1, maxArgs: -1,
		summary: "print every row as a JSON object, one per line",
		help:    dumpHelp,
		setup:   dumpCommand,
	}
}
