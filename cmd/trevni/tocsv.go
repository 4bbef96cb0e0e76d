package main

import (
	"flag"

	"github.com/trevni-go/trevni/csvtable"
)

const tocsvHelp = `
Tocsv writes the records of a Trevni file written from Avro, of a Trevni 1
file, or of a CLMN file (told by their first bytes), as CSV: a header
row, then one record per row. Fields must be flat (boolean, int, long,
float, double, string, enum, date, time, timestamp, decimal, or a union
of null and one of these); a nested field is an error naming it, unless
--fields selects only flat ones. --fields takes a field of a nested
record by its dotted path (address.city), which names its column, also
through a record that may be null (http.status of a JSON log's
["null", record] field), whose fields are empty cells where it is null.
The header holds the names the fields had in their source (a CSV header's,
a JSON key's, a Parquet column's: @timestamp, not _timestamp). Only
the selected columns are read. Null is an empty cell; doubles are written
in the shortest form that reads back the same number; dates, times and
timestamps in ISO 8601 (timestamps in UTC, 2004-03-05T10:30:00Z);
decimals with all the digits of their scale.

Examples (the file names stand for your own):

	trevni tocsv people.trv people.csv
	trevni tocsv --fields id,salary --delimiter '\t' people.clmn
	trevni tocsv --fields id,address.city people.trv
`

func tocsvCommand(fs *flag.FlagSet) runFunc {
	fieldsFlag := fs.String("fields", "", "write only these comma-separated `FIELDS`, in this order")
	delim := addDelimiter(fs)
	workers := addReadWorkersFlags(fs)
	return func(e *env, ins []string, out *output) error {
		comma, err := delimiter(e, *delim)
		if err != nil {
			return err
		}
		w, err := workers()
		if err != nil {
			return err
		}
		if w.n > 1 {
			if done, err := e.trevniCSV(ins[0], out, fieldList(*fieldsFlag), comma, w); done {
				return err
			}
		}
		_, _, err = e.copyTable(ins[0], out, fieldList(*fieldsFlag), false,
			func(out *output, fields []csvtable.Field) (csvtable.Sink, error) {
				return csvtable.NewCSVSink(out, fields, comma)
			})
		return err
	}
}

// tocsvSpec is the command "trevni tocsv".
func tocsvSpec() *command {
	return &command{
		name: "tocsv", output: optionalOutput, args: "IN [OUT.csv]", minArgs: 1, maxArgs: 2,
		summary: "convert a Trevni or CLMN file of flat records to CSV",
		help:    tocsvHelp, setup: tocsvCommand,
	}
}
