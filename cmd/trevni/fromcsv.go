package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/csvtable"
	"github.com/trevni-go/trevni/internal/frontdoor"
)

const fromcsvHelp = `
Fromcsv converts CSV (RFC 4180: a header row, then one record per row,
cells quoted with " when they hold the delimiter, quotes or line breaks,
kept as they are; a quote inside an unquoted cell, 12" pizza, is text, as
DuckDB reads it) to a Trevni file, or to a CLMN file with --format clmn or an output name
ending in .clmn.

Column types are inferred over all rows, not the first: int when every
non-empty cell is a 32-bit integer written without a plus sign or leading
zeros, long for 64 bits, decimal (bytes, the cells' scale, the most
digits any has, up to 38) when they are all plain decimals with the same
number of digits after the point (4.10, -0.05: no plus sign or leading
zeros), so that they come back as written, double when they are all
decimal numbers otherwise (or NaN, Infinity, -Infinity), boolean when
they are all true or false in any case (or T, F), date when they are all dates as
2004-03-05, time-millis (or time-micros) when they are times as
10:30:00[.fff], timestamp-millis (or -micros) when they are timestamps
(2004-03-05T10:30:00 or 2004-03-05 10:30:00) and any has Z or an offset
(+02, +0200, +02:00; those without one are UTC),
local-timestamp-millis (or -micros) when none has (-nanos for seven to
nine fraction digits, which DuckDB truncates), and string otherwise,
as DuckDB's read_csv_auto reads them. As DuckDB reads a header, the
spaces around a name are trimmed, an empty one is named column and its
index from 0 (a,,c: a, column1, c), and a name that repeats an earlier
one is renamed (a, a: a, a_1). tocsv writes these back as ISO 8601, timestamps in UTC.
--print-schema writes the inferred schema to OUT and converts nothing:
change a column's type and give it back with --schema. A column with an empty cell is nullable; an empty cell is null.
Inference reads the input twice (standard input is first copied to a
temporary file). With --schema, the types are those of a flat Avro record
schema, matched to the header by field name, and the input is read once.

Several inputs (the parts of one table; a quoted glob gives the files it
matches, a directory its *.csv, *.tsv and *.txt files but those whose name
starts with _ or ., in name order) make one file, their records in that
order. Their headers are matched by name, as DuckDB's read_csv_auto with
union_by_name=true matches them: the columns are those of the first
file, then those a later file adds, and a column a file lacks is null in
its records (so nullable); the types are inferred over every file's
cells.

CLMN has no nulls, booleans, decimals, dates or times: for a CLMN output,
inferred columns of those are strings.

A record with the wrong number of cells, or a cell that does not parse as
its column's type, is an error naming the line and column, and no output
is written.

For a Trevni output, the records are parsed, converted and shredded on
--workers goroutines (one per core by default), each taking ranges of
whole records that one goroutine cuts at the line breaks outside quotes;
the rows are written in the order of the input, --memory bounding them
all together, and errors name the line one goroutine would. --ragged drop
and CLMN outputs are written on one goroutine. The inference pass runs on
--workers goroutines whatever the output.

Examples (the file names stand for your own):

	trevni fromcsv people.csv people.trv
	trevni fromcsv --delimiter ';' --schema people.avsc people.csv people.trv
	trevni fromcsv people.csv people.clmn
	trevni fromcsv --ragged pad /usr/share/distro-info/ubuntu.csv ubuntu.trv
	trevni fromcsv --no-header --delimiter tab rows.tsv rows.trv
`

func fromcsvCommand(fs *flag.FlagSet) runFunc {
	schemaFile := fs.String("schema", "", "the columns' types as a flat Avro record schema `FILE.avsc` (default: inferred)")
	delim := addDelimiter(fs)
	raggedFlag := fs.String("ragged", "error", "records whose number of cells is not the header's: `pad` (missing cells are null), drop, or error")
	noHeader := fs.Bool("no-header", false, "the first row is a record: columns are named c1, c2, ... (or by the --schema's fields, in order)")
	formatFlag := fs.String("format", "", "output format: trevni or clmn (default: clmn for a name ending in .clmn)")
	printSchema := fs.Bool("print-schema", false, "write the inferred Avro schema to OUT (- for standard output) instead of converting: edit a type and pass it back with --schema")
	tf := addTrevniFlags(fs)
	workers := addWorkersFlag(fs)
	return func(e *env, ins []string, out *output) error {
		comma, err := delimiter(e, *delim)
		if err != nil {
			return err
		}
		ragged, err := csvtable.ParseRagged(*raggedFlag)
		if err != nil {
			return e.usagef("--ragged: %v", err)
		}
		ropts := &csvtable.ReaderOptions{MaxColumns: e.limits.maxColumns, Ragged: ragged, NoHeader: *noHeader}
		toCLMN, err := wantCLMN(e, *formatFlag, out.Name())
		if err != nil {
			return err
		}
		opts, err := tf.options(e)
		if err != nil {
			return err
		}
		n, err := workers()
		if err != nil {
			return err
		}
		ropts.Workers = n // the inference pass
		if *printSchema && *schemaFile != "" {
			return e.usagef("--print-schema and --schema exclude each other")
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
		if opts.TempDir, err = out.TempDir(); err != nil {
			return err
		}
		if ins, err = converterInputs(ins, ".csv", ".tsv", ".txt"); err != nil {
			return err
		}
		if len(ins) > 1 && slices.Contains(ins, "-") {
			return e.usagef("standard input can only be the one input")
		}
		// The inputs: read once with a schema, twice without (the first
		// pass over all of them).
		open := func(in string) (io.Reader, func() error, error) {
			f, err := e.openInput(in)
			if err != nil {
				return nil, nil, err
			}
			return frontdoor.ContextReader(e.ctx, f), f.Close, nil
		}
		if fields == nil {
			var inf csvtable.Inferrer
			reread, done, err := e.inferInputs(ins, func(in string, r io.Reader) error {
				if _, err := inf.Add(r, comma, ropts); err != nil {
					return fmt.Errorf("%s: %w", displayName(in, false), raggedHint(err))
				}
				return nil
			})
			if err != nil {
				return err
			}
			defer done()
			fields = inf.Fields()
			if *printSchema {
				var b bytes.Buffer
				if err := json.Indent(&b, []byte(csvtable.AvroSchema("Row", fields)), "", "  "); err != nil {
					return err
				}
				b.WriteByte('\n')
				_, err := out.Write(b.Bytes())
				return err
			}
			if toCLMN {
				fields = csvtable.ForCLMN(fields)
			}
			open = reread
		}
		var total, done int64 // the inputs' bytes, those of the inputs converted
		for _, in := range ins {
			total += inputSize(in)
		}
		p := e.newProgress(0, total)
		defer p.done()
		// A CLMN output is written through csvtable's sink, a Trevni one
		// through the front door's writer (Writer.AppendCSV).
		var sink csvtable.Sink
		var tw *trevni.Writer
		if toCLMN {
			sink, err = csvtable.NewCLMNSink(out, fields, &clmn.WriterOptions{TempDir: opts.TempDir})
		} else {
			wo := frontWriteOptions(opts, e.limits.layout(), n)
			wo.Progress = func(rows, read int64) {
				p.setRows(rows)
				p.setBytes(done + read)
			}
			tw, err = trevni.NewWriter(out, csvtable.AvroSchema("Row", fields), wo)
		}
		if err != nil {
			return fileError(displayName(ins[0], false), err) // the schema is the input's header's
		}
		abort := func() {
			if tw != nil {
				tw.Abort()
			} else {
				sink.Abort()
			}
		}
		var rows int64
		for _, in := range ins {
			inName := displayName(in, false)
			err := func() error {
				r, closeIn, err := open(in)
				if err != nil {
					return err
				}
				defer closeIn()
				var dropped int64
				if tw != nil {
					dropped, err = tw.AppendCSV(e.ctx, r, &trevni.CSVOptions{Comma: comma, NoHeader: *noHeader, Ragged: frontRagged(ragged)})
					rows = tw.Records()
				} else {
					var src csvtable.Source
					if src, err = csvtable.NewCSVSource(r, fields, comma, ropts); err != nil {
						return fmt.Errorf("%s: %w", inName, err)
					}
					before := rows
					var n int64
					n, err = csvtable.Append(e.ctx, sink, src, &csvtable.CopyOptions{Progress: func(n int64) { p.setRows(before + n) }})
					rows += n
					if d, ok := src.(interface{ Dropped() int64 }); ok {
						dropped = d.Dropped()
					}
				}
				if err != nil {
					return fmt.Errorf("%s: %w", inName, raggedHint(err))
				}
				if dropped > 0 && !e.quiet {
					fmt.Fprintf(e.stderr, "trevni: fromcsv: %s: dropped %s of the wrong width (--ragged drop)\n", inName, pluralCount(dropped, "record"))
				}
				done += inputSize(in)
				p.setBytes(done)
				return nil
			}()
			if err != nil {
				abort()
				return err
			}
		}
		if tw != nil {
			err = tw.Close()
		} else {
			err = sink.Close()
		}
		if err != nil {
			return err
		}
		p.done()
		e.tableSummary(out, rows, len(fields), toCLMN, opts)
		return nil
	}
}

// frontRagged returns the front door's form of r.
func frontRagged(r csvtable.Ragged) trevni.Ragged {
	switch r {
	case csvtable.RaggedPad:
		return trevni.RaggedPad
	case csvtable.RaggedDrop:
		return trevni.RaggedDrop
	}
	return trevni.RaggedError
}

// raggedHint adds to an error about a record of the wrong width the flag
// that reads such records.
func raggedHint(err error) error {
	if errors.Is(err, csvtable.ErrRagged) {
		return fmt.Errorf("%w (--ragged pad reads a short record's missing cells as null, --ragged drop skips records of the wrong width)", err)
	}
	return err
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

// fromcsvSpec is the command "trevni fromcsv".
func fromcsvSpec() *command {
	return &command{
		name: "fromcsv", output: lastOutput, args: "IN.csv... OUT", minArgs: 2, maxArgs: -1,
		summary: "convert CSV to Trevni or CLMN",
		help:    fromcsvHelp, setup: fromcsvCommand,
	}
}
