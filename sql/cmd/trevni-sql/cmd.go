package main

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
	"golang.org/x/term"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/sql/trevnisql"
)

// command is a parsed command line.
type command struct {
	query   string
	tables  []trevnisql.Table
	format  string
	report  bool
	threads int
	open    trevni.OpenOptions
}

// tableFlags collects the repeatable --table flag.
type tableFlags []trevnisql.Table

func (t *tableFlags) String() string { return "" }

func (t *tableFlags) Set(s string) error {
	tb, err := trevnisql.ParseTable(s)
	if err != nil {
		return err
	}
	*t = append(*t, tb)
	return nil
}

// parseFlags parses the command line.
func parseFlags(args []string, stderr io.Writer, terminal bool) (*command, error) {
	fs := flag.NewFlagSet("trevni-sql", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var tables tableFlags
	c := &command{}
	var maxRecord, blockMemory string
	fs.Var(&tables, "table", "`NAME=SOURCE`: the data set SOURCE (a file, glob, directory or URL, as trevni opens it) as the table NAME (repeatable)")
	fs.StringVar(&c.format, "format", "", "print the result as `csv`, json (one object a line) or table (default: table on a terminal, else csv)")
	fs.BoolVar(&c.report, "report", false, "print the columns and blocks each Trevni part read to standard error")
	fs.IntVar(&c.threads, "threads", 0, "read each data set on at most `N` threads (0: DuckDB's choice)")
	fs.StringVar(&maxRecord, "max-record-size", "", "fail a record larger than `SIZE` (such as 64MiB) as assembled")
	fs.StringVar(&blockMemory, "block-memory", "", "bound the memory of a reader's block buffers to `SIZE`")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: trevni-sql [flags] QUERY\n\nRuns QUERY (DuckDB's SQL) with Trevni data sets as tables: FROM 'data/*.trv', FROM read_trevni('SOURCE'),\nFROM read_trevni('SOURCE', filter := 'EXPR') (EXPR as trevni's --where: blocks are skipped), or a --table view.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return nil, errors.New("want one QUERY argument (quote it)")
	}
	c.query = fs.Arg(0)
	c.tables = tables
	switch c.format {
	case "":
		c.format = "csv"
		if terminal {
			c.format = "table"
		}
	case "csv", "json", "table":
	default:
		return nil, fmt.Errorf("--format %q: want csv, json or table", c.format)
	}
	if c.threads < 0 {
		return nil, errors.New("--threads must not be negative")
	}
	for _, f := range []struct {
		name, text string
		set        func(int64)
	}{
		{"--max-record-size", maxRecord, func(n int64) { c.open.MaxRecordBytes = n }},
		{"--block-memory", blockMemory, func(n int64) { c.open.BlockMemory = n }},
	} {
		if f.text == "" {
			continue
		}
		n, err := parseSize(f.text)
		if err != nil {
			return nil, fmt.Errorf("%s %q: want a size such as 64MiB", f.name, f.text)
		}
		f.set(n)
	}
	return c, nil
}

// parseSize reads a size: a number of bytes with an optional suffix KiB,
// MiB, GiB (or K, M, G, KB, MB, GB, meaning the same powers of two).
func parseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}

// run runs the query and prints its result.
func (c *command) run(ctx context.Context, stdout, stderr io.Writer) error {
	db, err := trevnisql.Open(ctx, &trevnisql.Options{Tables: c.tables, Open: &c.open, Threads: c.threads})
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, c.query)
	if err != nil {
		return c.nameSources(ctx, db, err)
	}
	w := bufio.NewWriterSize(stdout, 64<<10)
	err = printRows(w, rows, c.format)
	err = errors.Join(err, rows.Close(), w.Flush())
	if c.report {
		printReports(stderr, db.Reports())
	}
	return err
}

// nameSources adds to a query's error the tables the query reads, with
// the sources of --table views, unless it names a source already (the
// scan's errors do): "column x not found" then says where it was looked
// for.
func (c *command) nameSources(ctx context.Context, db *trevnisql.DB, err error) error {
	if strings.Contains(err.Error(), trevnisql.FunctionName+"(") {
		return err
	}
	conn, cerr := db.Conn(ctx)
	if cerr != nil {
		return err
	}
	defer conn.Close()
	names, nerr := duckdb.GetTableNames(conn, c.query, false)
	if nerr != nil || len(names) == 0 {
		return err
	}
	for i, n := range names {
		for _, t := range c.tables {
			if strings.EqualFold(t.Name, n) {
				names[i] = n + "=" + t.Source
			}
		}
	}
	return fmt.Errorf("%s (reading %s)", oneLine(err), strings.Join(names, ", "))
}

// printRows prints the rows in the format f.
func printRows(w io.Writer, rows *sql.Rows, f string) error {
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	var out rowWriter
	switch f {
	case "csv":
		out = newCSVWriter(w, cols)
	case "json":
		out = &jsonWriter{w: w, cols: cols}
	default:
		out = &tableWriter{w: w, cols: cols}
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if err := out.row(vals); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return out.end()
}

// printReports prints what each part read cost, summed over the reads of
// the same part (the row ranges of a part read on several threads).
func printReports(w io.Writer, reps []trevni.PartReport) {
	var names []string
	sums := map[string]*trevni.ScanReport{}
	for _, r := range reps {
		s, ok := sums[r.Part]
		if !ok {
			s = &trevni.ScanReport{FileSize: r.Scan.FileSize}
			sums[r.Part] = s
			names = append(names, r.Part)
		}
		s.RowsScanned += r.Scan.RowsScanned
		s.RowsMatched += r.Scan.RowsMatched
		s.RowsProven += r.Scan.RowsProven
		s.BytesRead += r.Scan.BytesRead
		for _, c := range r.Scan.Columns {
			i := slices.IndexFunc(s.Columns, func(sc trevni.ColumnScan) bool { return sc.Name == c.Name })
			if i < 0 {
				s.Columns = append(s.Columns, c)
				continue
			}
			sc := &s.Columns[i]
			sc.Blocks = max(sc.Blocks, c.Blocks) // each range counts the part's blocks
			sc.BlocksRead += c.BlocksRead
			sc.BlocksSkipped += c.BlocksSkipped
			sc.BytesRead += c.BytesRead
		}
	}
	for _, name := range names {
		s := sums[name]
		proven := ""
		if s.RowsProven > 0 {
			proven = fmt.Sprintf(" (%d proven by block statistics)", s.RowsProven)
		}
		fmt.Fprintf(w, "trevni-sql: %s: %d rows scanned%s\n", name, s.RowsScanned, proven)
		for _, c := range s.Columns {
			fmt.Fprintf(w, "  column %-24s %d of %d blocks read, %d bytes\n", c.Name, c.BlocksRead, c.Blocks, c.BytesRead)
		}
		pct := 0.0
		if s.FileSize > 0 {
			pct = 100 * float64(s.BytesRead) / float64(s.FileSize)
		}
		fmt.Fprintf(w, "  read %d of %d bytes (%.1f%%)\n", s.BytesRead, s.FileSize, pct)
	}
}

// oneLine returns the first line of an error's text (DuckDB's messages
// go on with the query and a caret under the fault).
func oneLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return strings.TrimSpace(s)
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	return term.IsTerminal(int(f.Fd()))
}
