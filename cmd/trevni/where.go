package main

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/trevni-go/trevni"
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
	fs.StringVar(&f.where, "where", "", "keep only the records satisfying `EXPR` (see docs/filters.md); blocks whose statistics rule out a match are not read")
	fs.BoolVar(&f.report, "report", false, "print rows scanned and matched, blocks read and skipped per column, and bytes read to standard error")
	return f
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
func (e *env) printReport(name string, r trevni.ScanReport, fetched *trevni.Fetched) {
	w := e.stderr
	proven := ""
	if r.RowsProven > 0 {
		proven = fmt.Sprintf(" (%s proven by block statistics, their filter columns unread)", pluralCount(r.RowsProven, "row"))
	}
	fmt.Fprintf(w, "trevni: %s: %s: %s scanned, %s matched%s\n", e.name, name, pluralCount(r.RowsScanned, "row"), pluralCount(r.RowsMatched, "row"), proven)
	for _, c := range r.Columns {
		fmt.Fprintf(w, "  column %-24s %d of %d blocks read, %d skipped, %d bytes\n", c.Name, c.BlocksRead, c.Blocks, c.BlocksSkipped, c.BytesRead)
	}
	pct := 0.0
	if r.FileSize > 0 {
		pct = 100 * float64(r.BytesRead) / float64(r.FileSize)
	}
	fmt.Fprintf(w, "  read %d of %d bytes (%.1f%%)\n", r.BytesRead, r.FileSize, pct)
	if fetched != nil {
		fmt.Fprintf(w, "  fetched %d bytes from storage in %s\n", fetched.Bytes, pluralCount(fetched.Requests, "request"))
	}
}

// partReports prints the scan report of each part of a data set as it is
// read, and their sum once several parts have been.
type partReports struct {
	total   trevni.ScanReport
	fetched *trevni.Fetched // the sum of the parts', when they say
	parts   int
}

// add prints r, the report of the part called name, and adds it to the
// sum: the rows and bytes, and each column's blocks and bytes, matched by
// name.
func (s *partReports) add(e *env, name string, r trevni.ScanReport, fetched *trevni.Fetched) {
	e.printReport(name, r, fetched)
	s.parts++
	if fetched != nil {
		if s.fetched == nil {
			s.fetched = &trevni.Fetched{}
		}
		s.fetched.Requests += fetched.Requests
		s.fetched.Bytes += fetched.Bytes
	}
	t := &s.total
	t.RowsScanned += r.RowsScanned
	t.RowsMatched += r.RowsMatched
	t.RowsProven += r.RowsProven
	t.BytesRead += r.BytesRead
	t.FileSize += r.FileSize
	for _, c := range r.Columns {
		i := slices.IndexFunc(t.Columns, func(tc trevni.ColumnScan) bool { return tc.Name == c.Name })
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
		e.printReport(fmt.Sprintf("all %d parts read", s.parts), s.total, s.fetched)
	}
}
