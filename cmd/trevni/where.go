package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/trevni-go/trevni/assemble"
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

// printReport writes an AvroReader's scan report to standard error.
func (e *env) printReport(name string, ar *assemble.AvroReader) {
	e.printScanReport(name, ar.Report())
}

// printScanReport writes a scan report to standard error.
func (e *env) printScanReport(name string, r assemble.ScanReport) {
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

const countHelp = `
Count prints the number of records of a Trevni file: from the header alone,
or with --where the number of records satisfying the expression (blocks
whose statistics rule out a match are not read).

Examples (the file names stand for your own):

	trevni count events.trv
	trevni count --where "amount > 4500 AND region = 'EU'" --report orders.trv
`

func countCommand(fs *flag.FlagSet) runFunc {
	where := fs.String("where", "", "count only the records satisfying `EXPR`")
	report := fs.Bool("report", false, "print rows scanned and matched, blocks read and skipped per column, and bytes read to standard error")
	return func(e *env, args []string) error {
		in, err := e.openTrevni(args[0], nil)
		if err != nil {
			return err
		}
		defer in.Close()
		if *where == "" {
			if *report {
				fmt.Fprintf(e.stderr, "trevni: count: %s: 0 rows scanned (the header says %s)\n  read 0 blocks of %d bytes\n", in.Name(), pluralCount(in.RowCount(), "row"), in.Size())
			}
			_, err := fmt.Fprintln(e.stdout, in.RowCount())
			return err
		}
		ar, err := assemble.NewAvroReader(in.Reader, &assemble.Options{Filter: *where})
		if err != nil {
			return e.whereError(fmt.Errorf("%s: %w", in.Name(), err))
		}
		n, err := ar.Count(e.ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", in.Name(), err)
		}
		if *report {
			e.printReport(in.Name(), ar)
		}
		_, err = fmt.Fprintln(e.stdout, n)
		return err
	}
}

const headHelp = `
Head prints the first N records (10 unless -n says otherwise) of a Trevni
file written from Avro as Avro JSON, one per line, as tojson prints them.
Only the blocks holding them are read. --fields keeps only the named
fields, and --where prints the first N records that match (see tojson).

Examples (the file names stand for your own):

	trevni head events.trv
	trevni head -n 3 --fields id,amount --where "amount > 4500" orders.trv
`

func headCommand(fs *flag.FlagSet) runFunc {
	n := fs.Int64("n", 10, "print the first `N` records")
	sf := addSelectFlags(fs)
	return func(e *env, args []string) error {
		if *n < 0 {
			return e.usagef("-n must not be negative")
		}
		return e.writeJSON(args[:1], "-", "", false, &rangeFlags{limit: *n}, sf)
	}
}

// readCommands are count and head.
func readCommands() []*command {
	return []*command{
		{
			name: "count", stdin: true, args: "IN.trv", minArgs: 1, maxArgs: 1,
			summary: "print the number of records, or of those matching --where",
			help:    countHelp, setup: countCommand,
		},
		{
			name: "head", stdin: true, args: "IN.trv", minArgs: 1, maxArgs: 1,
			summary: "print the first records as Avro JSON",
			help:    headHelp, setup: headCommand,
		},
	}
}
