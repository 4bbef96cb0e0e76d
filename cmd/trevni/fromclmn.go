package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/trevni-go/trevni"
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
		ds, done, err := e.openDataset(ins[:1], e.openOptions("", false))
		if err != nil {
			return err
		}
		defer done()
		name := ds.Parts()[0].Name()
		if ds.Format() != trevni.CLMN {
			return fmt.Errorf("%s: not a CLMN file", name)
		}
		if len(ds.Parts()) != 1 {
			return fmt.Errorf("%s: %d CLMN files: fromclmn converts one", displayName(ins[0], false), len(ds.Parts()))
		}
		if opts.TempDir, err = out.TempDir(); err != nil {
			return err
		}
		// The records of the CLMN columns, read as the front door reads
		// them (a record "Row" of their types), written as Avro binary.
		w, err := trevni.NewWriter(out, ds.SchemaText(), frontWriteOptions(opts, e.limits.layout(), 1))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		defer w.Abort()
		r, err := ds.NewReader(e.ctx, nil)
		if err != nil {
			return err
		}
		defer r.Close()
		p := e.newProgress(ds.RowCount(), 0)
		defer p.done()
		var rec []byte
		for {
			if rec, err = r.ReadBinary(rec[:0]); err == io.EOF {
				break
			} else if err != nil {
				return err
			}
			if err := w.WriteBinary(rec); err != nil {
				return fmt.Errorf("%s: record %d: %w", name, w.Records(), err)
			}
			if n := w.Records(); n%4096 == 0 {
				if err := e.interrupted(); err != nil {
					return err
				}
				p.setRows(n)
			}
		}
		if err := w.Close(); err != nil {
			return fmt.Errorf("%s: %w", out.Name(), err)
		}
		p.done()
		e.summary(out, w.Records(), opts)
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
