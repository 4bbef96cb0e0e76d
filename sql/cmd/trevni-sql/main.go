// Command trevni-sql runs SQL over Trevni data sets through DuckDB:
//
//	trevni-sql [flags] QUERY
//
// A query names a data set as a table by its path or glob in quotes
// (FROM 'orders/*.trv': names ending in .trv, .trv1 or .clmn), by
// trevni_scan('SOURCE') (any source: a directory, a URL), or by a view
// given with --table NAME=SOURCE. Parquet, CSV and JSON files are read as
// DuckDB reads them, so joins across them work. The result is printed as
// an aligned table on a terminal, or as --format csv, json (one object a
// line) or table. An error (a bad query, a missing file or field, a
// damaged file) is one line on standard error and exit status 1.
//
// It is the trevni command's sql verb in a binary of its own: DuckDB
// needs cgo, and the trevni binary stays pure Go.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, isTerminal(os.Stdout))
	stop()
	os.Exit(code)
}

// run runs the command with the arguments args and returns its exit
// status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, terminal bool) int {
	c, err := parseFlags(args, stderr, terminal)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) { // -h: the usage was printed
			return 0
		}
		fmt.Fprintf(stderr, "trevni-sql: %v\n", err)
		return 2
	}
	if err := c.run(ctx, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "trevni-sql: %s\n", flagWords.Replace(oneLine(err)))
		return 1
	}
	return 0
}

// flagWords turns the scan's words for a limit (read_trevni's parameter
// and its setting) into the flag that sets it here.
var flagWords = strings.NewReplacer("block_memory (or SET trevni_block_memory)", "--block-memory")
