package main

import (
	"flag"

	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/csvtable"
	"github.com/trevni-go/trevni/format"
)

const toclmnHelp = `
Toclmn converts a Trevni file of flat records to a CLMN file: int fields
become INT32 columns, long INT64, float and double FLOAT64, string and enum
STRING. Any other field type, a null value and a string over 65,535 bytes
are errors naming the row and the column. --fields selects and orders the
fields written.

Examples (the file names stand for your own):

	trevni toclmn people.trv people.clmn
`

func toclmnCommand(fs *flag.FlagSet) runFunc {
	fieldsFlag := fs.String("fields", "", "write only these comma-separated `FIELDS`, in this order")
	return func(e *env, ins []string, out *output) error {
		rows, cols, err := e.copyTable(ins[0], out, fieldList(*fieldsFlag), false,
			func(out *output, fields []csvtable.Field) (csvtable.Sink, error) {
				tmpDir, err := out.TempDir()
				if err != nil {
					return nil, err
				}
				return csvtable.NewCLMNSink(out, fields, &clmn.WriterOptions{TempDir: tmpDir})
			})
		if err != nil {
			return err
		}
		e.tableSummary(out, rows, cols, true, format.WriterOptions{})
		return nil
	}
}

// toclmnSpec is the command "trevni toclmn".
func toclmnSpec() *command {
	return &command{
		name: "toclmn", output: lastOutput, args: "IN.trv OUT.clmn", minArgs: 2, maxArgs: 2,
		summary: "convert a Trevni file of flat records to CLMN",
		help:    toclmnHelp, setup: toclmnCommand,
	}
}
