package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
)

const concatHelp = `
Concat joins Trevni files with the same columns into one, in the order
given, by copying their compressed blocks column by column: no value is
decoded. The output takes the first file's metadata, codec and checksum; a
file with another codec has its blocks decompressed and compressed again,
one with only another checksum has the checksum dropped or computed, and
every other block is copied as stored. The CRC-32s of null-codec blocks are
checked as they are copied, and the all-zero ones Java writes for them are
replaced by the right ones. The records are those of the files read one
after the other, and Java reads the result. Blocks compressed again are
compressed on --workers goroutines (one per core by default) and written
in order: the output is the same whatever the number.

The inputs may be globs (quoted: the tool expands them) and directories
(their *.trv, *.trv1 and *.clmn files in name order), as for the reading commands. Only
Trevni 2 files are joined: a Trevni 1 or CLMN input is refused, naming it
(convert it first: toavro, then fromavro).

Examples (the file names stand for your own):

	trevni concat part-00000.trv part-00001.trv all.trv
	trevni concat 'parts/*.trv' all.trv
`

// concatCommand sets up "trevni concat".
func concatCommand(fs *flag.FlagSet) runFunc {
	workers := addWorkersFlag(fs)
	return func(e *env, ins []string, out *output) error {
		n, err := workers()
		if err != nil {
			return err
		}
		for _, in := range ins {
			if in == "-" {
				return e.usagef("concat reads files, not standard input")
			}
		}
		var rds []*format.Reader
		var names []string
		o := e.openOptions("", false)
		for _, path := range ins {
			// Each file is opened on its own: their columns are
			// compared here, naming the first that differs.
			ds, done, err := e.openDataset([]string{path}, o)
			if err != nil {
				return err
			}
			defer done()
			part := ds.Parts()[0]
			if part.Format() != trevni.Trevni2 {
				return fmt.Errorf("%s: a %s file: concat joins Trevni 2 files; convert it first (trevni toavro %s x.avro, then trevni fromavro x.avro x.trv)", part.Name(), part.Format(), part.Name())
			}
			f, err := part.Open(e.ctx)
			if err != nil {
				return err
			}
			defer f.Close()
			if len(rds) > 0 {
				if err := format.SameColumns(names[0], rds[0], part.Name(), f.Trevni()); err != nil {
					return err
				}
			}
			rds = append(rds, f.Trevni())
			names = append(names, part.Name())
		}
		rows, err := format.Concat(e.ctx, out, rds, &format.ConcatOptions{SameSchema: trevni.SameAvroSchema, Workers: n})
		if err != nil {
			var pe *format.PartError
			if errors.As(err, &pe) {
				if errors.Is(pe.Err, format.ErrUsage) {
					return fmt.Errorf("%s and %s cannot be joined: %w", names[0], names[pe.Part], pe.Err)
				}
				return fmt.Errorf("%s: %w", names[pe.Part], pe.Err)
			}
			return err
		}
		e.wrote(out, func() string { return pluralCount(rows, "row") + " from " + plural(int64(len(ins)), "file") })
		return nil
	}
}

// concatSpec is the command "trevni concat".
func concatSpec() *command {
	return &command{
		name: "concat", output: lastOutput, dataset: true, args: "IN.trv... OUT.trv", minArgs: 2, maxArgs: -1,
		summary: "join Trevni files of the same columns by copying their blocks",
		help:    concatHelp, setup: concatCommand,
	}
}
