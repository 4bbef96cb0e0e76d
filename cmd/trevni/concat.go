package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
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
		// Each file is opened on its own, so that files of other
		// columns are compared, naming the first column that differs,
		// and joined through the front door (Dataset.Concat's join).
		o := e.openOptions("", false)
		dss := make([]any, 0, len(ins))
		for _, path := range ins {
			ds, done, err := e.openDataset([]string{path}, o)
			if err != nil {
				return err
			}
			defer done()
			dss = append(dss, ds)
		}
		rows, err := frontdoor.ConcatDatasets(e.ctx, out, dss, &trevni.WriteOptions{Workers: n})
		if errors.Is(err, frontdoor.ErrNotTrevni2) {
			return fmt.Errorf("%w; %s", err, convertHint(dss))
		}
		if err != nil {
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

// convertHint says how to make a Trevni 2 file of the first part of the
// data sets dss that is not one, naming it.
func convertHint(dss []any) string {
	for _, d := range dss {
		for _, p := range d.(*trevni.Dataset).Parts() {
			name := hintArg(p.Name())
			switch p.Format() {
			case trevni.Trevni2:
				continue
			case trevni.Avro:
				return fmt.Sprintf("convert it first (trevni fromavro %s x.trv)", name)
			case trevni.Parquet:
				return fmt.Sprintf("convert it first (trevni fromparquet %s x.trv)", name)
			case trevni.CLMN:
				return fmt.Sprintf("convert it first (trevni fromclmn %s x.trv)", name)
			default:
				return fmt.Sprintf("convert it first (trevni toavro %s x.avro, then trevni fromavro x.avro x.trv)", name)
			}
		}
	}
	return "convert it first"
}

// hintArg is a name as a command line takes it: itself when it holds no
// character a shell reads, else quoted.
func hintArg(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@,=") == "" {
		return s
	}
	return shellQuote(s)
}
