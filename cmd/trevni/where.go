package main

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/predicate"
)

// selectFlags are the reading commands' --fields, --where and --report.
type selectFlags struct {
	fields, where string
	report        bool
}

// addSelectFlags defines --fields, --where and --report on fs.
func addSelectFlags(fs *flag.FlagSet) *selectFlags {
	f := &selectFlags{}
	fs.StringVar(&f.fields, "fields", "", "keep only these comma-separated field `PATHS` (a.b.c: dots through records); only their columns are read")
	fs.StringVar(&f.where, "where", "", "keep only the records satisfying `EXPR` (see \"Filters\" in the README); blocks whose statistics rule out a match are not read")
	fs.BoolVar(&f.report, "report", false, "print rows scanned and matched, blocks read and skipped per column, and bytes read to standard error")
	return f
}

// options adds the flags' selection and filter to o.
func (f *selectFlags) options(o *assemble.Options) {
	if f == nil {
		return
	}
	if f.fields != "" {
		o.Fields = strings.Split(f.fields, ",")
	}
	o.Filter = f.where
}

// whereError turns a bad --where expression into a usage error that shows
// the expression with a caret under the character at fault.
func (e *env) whereError(err error) error {
	var pe *predicate.Error
	if !errors.As(err, &pe) {
		return err
	}
	msg, detail, _ := strings.Cut(pe.Error(), "\n")
	return &usageError{msg: "--where: " + msg, detail: detail}
}

// printReport writes a scan report (AvroReader.Report, or the sum of
// several) to standard error.
func (e *env) printReport(name string, r assemble.ScanReport) {
	w := e.stderr
	fmt.Fprintf(w, "trevni: %s: %s: %s scanned, %s matched\n", e.name, name, pluralCount(r.RowsScanned, "row"), pluralCount(r.RowsMatched, "row"))
	for _, c := range r.Columns {
		fmt.Fprintf(w, "  column %-24s %d of %d blocks read, %d skipped, %d bytes\n", c.Name, c.BlocksRead, c.Blocks, c.BlocksSkipped, c.BytesRead)
	}
	pct := 0.0
	if r.FileSize > 0 {
		pct = 100 * float64(r.BytesRead) / float64(r.FileSize)
	}
	fmt.Fprintf(w, "  read %d of %d bytes (%.1f%%)\n", r.BytesRead, r.FileSize, pct)
}

// partReports prints the scan report of each part of a data set as it is
// read, and their sum once several parts have been.
type partReports struct {
	total assemble.ScanReport
	parts int
}

// add prints r, the report of the part called name, and adds it to the
// sum: the rows and bytes, and each column's blocks and bytes, matched by
// name.
func (s *partReports) add(e *env, name string, r assemble.ScanReport) {
	e.printReport(name, r)
	s.parts++
	t := &s.total
	t.RowsScanned += r.RowsScanned
	t.RowsMatched += r.RowsMatched
	t.BytesRead += r.BytesRead
	t.FileSize += r.FileSize
	for _, c := range r.Columns {
		i := slices.IndexFunc(t.Columns, func(tc assemble.ColumnScan) bool { return tc.Name == c.Name })
		if i < 0 {
			t.Columns = append(t.Columns, c)
			continue
		}
		tc := &t.Columns[i]
		tc.Blocks += c.Blocks
		tc.BlocksRead += c.BlocksRead
		tc.BlocksSkipped += c.BlocksSkipped
		tc.BytesRead += c.BytesRead
	}
}

// finish prints the sum when more than one part was read.
func (s *partReports) finish(e *env) {
	if s.parts > 1 {
		e.printReport(fmt.Sprintf("all %d parts read", s.parts), s.total)
	}
}

const countHelp = `
Count prints the number of records of a Trevni file or data set (several
files, quoted globs, directories of *.trv files, http(s) URLs): from the
headers alone, reading no column, or with --where the number of records
satisfying the expression, summed over the parts (blocks whose statistics
rule out a match are not read). --report prints what was read, for each
part and in sum.

Parts whose schemas differ are counted together only through --schema, a
reader schema each of them resolves to; otherwise the error names the two
files.

Examples (the file names stand for your own):

	trevni count events.trv
	trevni count 'parts/part-*.trv'
	trevni count --where "amount > 4500 AND region = 'EU'" --report orders/
`

func countCommand(fs *flag.FlagSet) runFunc {
	readerSchema := inputFileVar(fs, "schema", "reader schema `FILE.avsc` that parts of different schemas all resolve to")
	where := fs.String("where", "", "count only the records satisfying `EXPR`")
	report := fs.Bool("report", false, "print rows scanned and matched, blocks read and skipped per column, and bytes read to standard error")
	return func(e *env, args []string) error {
		ins, _, err := e.datasetArgs(args, noOutput)
		if err != nil {
			return err
		}
		text, err := e.readerSchemaText(*readerSchema)
		if err != nil {
			return err
		}
		if *where == "" {
			// The headers hold the row counts: no column is read.
			parts, err := e.scanHeaders(ins, text)
			if err != nil {
				return err
			}
			rows, size := totals(parts)
			if *report {
				name, says := parts[0].name, "the header says"
				if len(parts) > 1 {
					name, says = fmt.Sprintf("%d parts", len(parts)), "the headers say"
				}
				fmt.Fprintf(e.stderr, "trevni: count: %s: 0 rows scanned (%s %s)\n  read 0 blocks of %d bytes\n", name, says, pluralCount(rows, "row"), size)
			}
			_, err = fmt.Fprintln(e.stdout, rows)
			return err
		}
		parts, err := e.scanParts(ins, text, &format.ReaderOptions{})
		if err != nil {
			return err
		}
		defer closeParts(parts)
		var n int64
		sf := &selectFlags{where: *where, report: *report}
		err = e.eachAvro(parts, text, nil, sf, nil, func(ar *assemble.AvroReader, in *trevniInput, _ int64) error {
			k, err := ar.Count(e.ctx)
			if err != nil {
				return fmt.Errorf("%s: %w", in.Name(), err)
			}
			n += k
			return nil
		})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(e.stdout, n)
		return err
	}
}

const headHelp = `
Head prints the first N records (10 unless -n says otherwise) of a Trevni
file or data set (several files, quoted globs, directories of *.trv files,
http(s) URLs, read in order as one stream) written from Avro, as Avro
JSON, one per line, as tojson prints them. Only the blocks holding them
are read. --fields keeps only the named fields, --where prints the first
N records that match, and --schema reads the records as a reader schema
(which parts of different schemas must all resolve to).

Examples (the file names stand for your own):

	trevni head events.trv
	trevni head -n 3 --fields id,amount --where "amount > 4500" orders.trv
	trevni head -n 20 'parts/part-*.trv'
`

func headCommand(fs *flag.FlagSet) runFunc {
	n := fs.Int64("n", 10, "print the first `N` records")
	readerSchema := inputFileVar(fs, "schema", "reader schema `FILE.avsc` for projection or evolution")
	sf := addSelectFlags(fs)
	return func(e *env, args []string) error {
		if *n < 0 {
			return e.usagef("-n must not be negative")
		}
		ins, _, err := e.datasetArgs(args, noOutput)
		if err != nil {
			return err
		}
		return e.writeJSON(ins, "-", *readerSchema, false, &rangeFlags{limit: *n}, sf)
	}
}

// readCommands are count and head.
func readCommands() []*command {
	return []*command{
		{
			name: "count", stdin: true, args: "IN.trv...", minArgs: 1, maxArgs: -1,
			summary: "print the number of records, or of those matching --where",
			help:    countHelp, setup: countCommand,
		},
		{
			name: "head", stdin: true, args: "IN.trv...", minArgs: 1, maxArgs: -1,
			summary: "print the first records as Avro JSON",
			help:    headHelp, setup: headCommand,
		},
	}
}
