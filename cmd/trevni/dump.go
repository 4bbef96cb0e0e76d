package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
)

const dumpHelp = `
Dump prints every row of any Trevni file as one JSON object per line,
without needing a schema. Keys are the full column names, in column order;
an array column holds a JSON array; the elements of an array column with
child columns are objects holding the children (and the parent's own value,
if it is not null-typed, under "value$"). Bytes are hex strings; non-finite
floats are the strings "NaN", "Infinity" and "-Infinity". The output is that
of the interop dump.jsonl files.

The rows go to OUT.jsonl if given, otherwise to standard output.

Examples (the file names stand for your own):

	trevni dump weather.trv | head -3
	trevni dump weather.trv weather.jsonl
`

// dumpCommand sets up "trevni dump".
func dumpCommand(fs *flag.FlagSet) runFunc {
	return func(e *env, args []string) error {
		// The output is opened first, so that a bad output name fails
		// before a large standard input is read.
		ins, outPath, err := e.datasetArgs(args, optionalOutput)
		if err != nil {
			return err
		}
		out, err := e.createOutput(cmp.Or(outPath, "-"))
		if err != nil {
			return err
		}
		defer out.Abort()
		parts, err := e.scanParts(ins, "", nil)
		if err != nil {
			return err
		}
		defer closeParts(parts)
		p := e.newProgress(totals(parts))
		defer p.done()
		var buf []byte
		err = e.eachPart(parts, nil, nil, p, func(in *trevniInput, _, _, before int64) error {
			rows, err := in.Rows()
			if err != nil {
				return fmt.Errorf("%s: %w", in.Name(), err)
			}
			for n := int64(0); ; n++ {
				if n%1024 == 0 {
					if err := e.interrupted(); err != nil {
						return err
					}
					p.setRows(before + n)
				}
				row, err := rows.Read()
				if errors.Is(err, io.EOF) {
					return nil
				}
				if err != nil {
					return fmt.Errorf("%s: %w", in.Name(), err)
				}
				buf = append(row.AppendJSON(buf[:0]), '\n')
				if _, err := out.Write(buf); err != nil {
					return err
				}
			}
		})
		if err != nil {
			return err
		}
		return out.Commit()
	}
}
