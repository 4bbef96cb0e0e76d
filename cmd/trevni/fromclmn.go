package main

import (
	"flag"

	"github.com/trevni-go/trevni/csvtable"
	"github.com/trevni-go/trevni/shred"
)

const fromclmnHelp = `
Fromclmn converts a CLMN file to a Trevni file: INT32 columns become int
fields, INT64 long, FLOAT64 double and STRING string (column names that are
not Avro names are made into ones, and kept in the field attribute
csv.name).

Examples (the file names stand for your own):

	trevni fromclmn sample.clmn sample.trv
`

func fromclmnCommand(fs *flag.FlagSet) runFunc {
	tf := addTrevniFlags(fs)
	return func(e *env, ins []string, out *output) error {
		opts, err := tf.options(e)
		if err != nil {
			return err
		}
		rows, cols, err := e.copyTable(ins[0], out, nil, true,
			func(out *output, fields []csvtable.Field) (csvtable.Sink, error) {
				var err error
				if opts.TempDir, err = out.TempDir(); err != nil {
					return nil, err
				}
				return csvtable.NewTrevniSink(out, fields, &shred.Options{WriterOptions: opts, Layout: e.limits.layout()})
			})
		if err != nil {
			return err
		}
		e.tableSummary(out, rows, cols, false, opts)
		return nil
	}
}

// fromclmnSpec is the command "trevni fromclmn".
func fromclmnSpec() *command {
	return &command{
		name: "fromclmn", output: lastOutput, args: "IN.clmn OUT.trv", minArgs: 2, maxArgs: 2,
		summary: "convert a CLMN file to Trevni",
		help:    fromclmnHelp, setup: fromclmnCommand,
	}
}
