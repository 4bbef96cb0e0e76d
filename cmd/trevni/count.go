package main

import (
	"flag"
	"fmt"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
)

const countHelp = `
Count prints the number of records of a Trevni file or data set (several
files, quoted globs, directories of *.trv, *.trv1 and *.clmn files,
http(s) URLs; Trevni 1 and CLMN files too): from the
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
	impala := addImpalaBooleans(fs)
	return func(e *env, ins []string, out *output) error {
		text, err := e.readerSchemaText(*readerSchema)
		if err != nil {
			return err
		}
		ds, done, err := e.openDataset(ins, e.openOptions(text, *impala))
		if err != nil {
			return err
		}
		defer done()
		if *where == "" {
			// The headers hold the row counts: no column is read.
			rows := ds.RowCount()
			if *report {
				parts := ds.Parts()
				name, says := parts[0].Name(), "the header says"
				if len(parts) > 1 {
					name, says = fmt.Sprintf("%d parts", len(parts)), "the headers say"
				}
				fmt.Fprintf(e.stderr, "trevni: count: %s: 0 rows scanned (%s %s)\n  read 0 blocks of %d bytes\n", name, says, pluralCount(rows, "row"), ds.Size())
			}
			_, err = fmt.Fprintln(e.stdout, rows)
			return err
		}
		// Only the filter's fields: a reader reads the block table of
		// every field it selects.
		r, err := e.newReader(ds, &trevni.ReadOptions{Where: *where, Fields: frontdoor.FilterFields(ds, *where)})
		if err != nil {
			r, err = e.newReader(ds, &trevni.ReadOptions{Where: *where})
		}
		if err != nil {
			return err
		}
		defer r.Close()
		n, err := r.Count()
		if err != nil {
			return err
		}
		if *report {
			e.printReports(r.Report())
		}
		_, err = fmt.Fprintln(e.stdout, n)
		return err
	}
}

// countSpec is the command "trevni count".
func countSpec() *command {
	return &command{
		name: "count", dataset: true, stdin: true, args: "IN.trv...", minArgs: 1, maxArgs: -1,
		summary: "print the number of records, or of those matching --where",
		help:    countHelp, setup: countCommand,
	}
}
