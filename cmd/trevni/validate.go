package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/csvtable"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/schema/layout"
)

const validateHelp = `
Validate reads the whole of a Trevni file and checks its structure and
every checksum: the header, every column's block descriptors, that every
block decompresses and matches its checksum, that every block holds
exactly the rows it claims, nested columns included, and that no bytes
follow the last column's data. Each column and its
children are checked on their own, so one damaged column does not hide
problems in the others.

Each problem is reported on standard error as one line naming the column,
block, row and file offset where known, and a last line counts them if
there are several; the exit status is then 1. On success, one line on
standard output sums up what was checked.

For a file written from Avro or protobuf (one with avro.schema metadata),
it also checks the Avro layer: that the columns are those the schema lays
out, and that every record reads: union branch lengths, enum ordinals,
fixed sizes, valid UTF-8, map keys. The first bad record is reported.

The all-zero CRC-32s that Java writes for every block of a file with the
null codec and the crc32 checksum are accepted, as Java's bug; --strict
rejects them.

Examples (the file names stand for your own):

	trevni validate weather.trv
	weather.trv: ok: 1000 rows, 7 columns, 7 blocks checked
`

// validateCommand sets up "trevni validate".
func validateCommand(fs *flag.FlagSet) runFunc {
	strict := fs.Bool("strict", false, "reject the all-zero CRC-32s Java writes with the null codec")
	impala := addImpalaBooleans(fs)
	return func(e *env, ins []string, out *output) error {
		o := e.openOptions("", *impala)
		o.StrictChecksums = *strict
		// Several inputs are checked one after the other, each reported
		// on its own line; the run fails if any of them does.
		failed := 0
		for _, path := range ins {
			if err := e.withWholeFile(path, o, func(f *trevni.File) error { return validateOne(e, f) }); err != nil {
				if ierr := e.interrupted(); ierr != nil {
					return ierr
				}
				if len(ins) == 1 {
					return err
				}
				if err != errReported {
					e.report(err)
				}
				failed++
			}
		}
		if failed > 0 {
			return fmt.Errorf("%d of %d files failed", failed, len(ins))
		}
		return nil
	}
}

// withWholeFile calls fn with the file in opened for reading whole
// (trevni.Part.OpenWhole): validate reads every block more than once, and
// a file over a store or HTTP is fetched once, in large requests, into a
// temporary copy.
func (e *env) withWholeFile(in string, o *trevni.OpenOptions, fn func(f *trevni.File) error) error {
	ds, done, err := e.openDataset([]string{in}, o)
	if err != nil {
		return err
	}
	defer done()
	f, err := ds.Parts()[0].OpenWhole(e.ctx)
	if err != nil {
		return err
	}
	defer f.Close()
	return fn(f)
}

// validateOne checks one file, in the way of its format, and prints its
// "ok" line.
func validateOne(e *env, f *trevni.File) error {
	name := f.Part().Name()
	switch f.Format() {
	case trevni.Trevni1:
		return v1Validate(e, name, frontdoor.Trevni1Reader(f))
	case trevni.CLMN:
		return clmnValidate(e, f)
	case trevni.Avro, trevni.Parquet:
		return recordsValidate(e, f)
	}
	in := frontdoor.TrevniReader(f)
	p := e.newProgress(0, in.Size())
	defer p.done()
	blocks := 0
	for i := range in.NumColumns() {
		if bl, err := in.Blocks(i); err == nil {
			blocks += len(bl) // Validate reports the tables it cannot read
		}
	}
	stop := p.follow(f.BytesRead)
	defer stop()
	problems := in.Validate(func(err error) {
		if e.interrupted() != nil {
			return // the reads fail because the run is stopping
		}
		p.done()
		e.report(fmt.Errorf("%s: %w", name, err))
	})
	if err := e.interrupted(); err != nil {
		return err
	}
	// Bytes after the last column's data belong to nothing: a file
	// appended to, or two files run together.
	if end, err := in.DataEnd(); err == nil && end < in.Size() {
		p.done()
		e.report(fmt.Errorf("%s: offset %d: %s after the end of the last column's data", name, end, plural(in.Size()-end, "byte")))
		problems++
	}
	if problems == 0 && in.Meta().Has(layout.MetaAvroSchema) {
		if err := checkRecords(e, in); err != nil {
			if ierr := e.interrupted(); ierr != nil {
				return ierr
			}
			p.done()
			e.report(fmt.Errorf("%s: %w", name, err))
			problems++
		}
	}
	stop()
	p.done()
	switch {
	case problems == 1:
		return errReported // its one line says it all
	case problems > 1:
		return fmt.Errorf("%s: %d problems found", name, problems)
	}
	_, err := fmt.Fprintf(e.stdout, "%s: ok: %s, %s, %s checked\n", name,
		plural(in.RowCount(), "row"), plural(int64(in.NumColumns()), "column"), plural(int64(blocks), "block"))
	return err
}

// recordsValidate checks an Avro or Parquet file by reading every record,
// as the front door reads them (every block read, decompressed and
// decoded), and prints its "ok" line.
func recordsValidate(e *env, f *trevni.File) error {
	name := f.Part().Name()
	in, err := frontdoor.AsTrevni(e.ctx, f)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := checkRecords(e, in); err != nil {
		if ierr := e.interrupted(); ierr != nil {
			return ierr
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	what := "Avro"
	if f.Format() == trevni.Parquet {
		what = "Parquet"
	}
	_, err = fmt.Fprintf(e.stdout, "%s: ok: %s checked (%s)\n", name, plural(f.RowCount(), "record"), what)
	return err
}

// clmnValidate checks a CLMN file by reading every row, as the front door
// reads its records, and prints its "ok" line.
func clmnValidate(e *env, f *trevni.File) error {
	name := f.Part().Name()
	src, err := csvtable.NewCLMNSource(frontdoor.CLMNReader(f), nil)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	cells := make([]csvtable.Cell, len(src.Fields()))
	var rows int64
	for {
		err := src.Next(cells)
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		rows++
		if rows%4096 == 0 {
			if err := e.interrupted(); err != nil {
				return err
			}
		}
	}
	if rows != f.RowCount() {
		return fmt.Errorf("%s: %s read of the %s the header claims", name, plural(rows, "row"), plural(f.RowCount(), "row"))
	}
	_, err = fmt.Fprintf(e.stdout, "%s: ok: %s, %s checked (CLMN)\n", name,
		plural(rows, "row"), plural(int64(frontdoor.CLMNReader(f).NumColumns()), "column"))
	return err
}

// plural formats a count of things: "1 row", "2 rows".
func plural(n int64, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// pluralCount is plural with thousands separators: "1 row", "1,000 rows".
func pluralCount(n int64, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return formatCount(n) + " " + thing + "s"
}

// checkRecords checks every record of a file written from Avro, in time
// linear in the bytes stored rather than in the records claimed.
func checkRecords(e *env, in *format.Reader) error {
	ar, err := assemble.NewAvroReader(in, &assemble.Options{Layout: e.limits.layout()})
	if err != nil {
		return err
	}
	return ar.Validate(e.ctx)
}

// validateSpec is the command "trevni validate".
func validateSpec() *command {
	return &command{
		name: "validate", dataset: true, stdin: true, args: "IN.trv...", minArgs: 1, maxArgs: -1,
		summary: "check a file's structure and every checksum",
		help:    validateHelp,
		setup:   validateCommand,
	}
}
