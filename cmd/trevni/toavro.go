package main

import (
	"flag"
	"fmt"

	"github.com/trevni-go/trevni/format"
)

const toavroHelp = `
Toavro converts a Trevni file written from Avro (by this tool or by Java's
trevni-avro) back to an Avro object container file. With --schema, records
are read as that reader schema: a projection (only the columns it needs
are read) or an evolution of the file's schema, resolved as Avro resolves
schemas. --fields, --where and --report work as for tojson.

Examples (the file names stand for your own):

	trevni toavro events.trv events.avro
	trevni toavro --codec zstandard --schema summary.avsc events.trv summary.avro
	trevni toavro --fields id,amount --where "region = 'EU'" orders.trv eu.avro
`

func toavroCommand(fs *flag.FlagSet) runFunc {
	codecFlag := fs.String("codec", "deflate", "Avro codec `NAME`: "+codecNames(avroCodecs))
	readerSchema := inputFileVar(fs, "schema", "reader schema `FILE.avsc` for projection or evolution")
	rf := addRangeFlags(fs)
	sf := addSelectFlags(fs)
	return func(e *env, args []string) error {
		codec, err := e.checkCodec(*codecFlag, avroCodecs)
		if err != nil {
			return err
		}
		ins, outPath, err := e.datasetArgs(args, lastOutput)
		if err != nil {
			return err
		}
		out, err := e.createOutput(outPath)
		if err != nil {
			return err
		}
		defer out.Abort()
		text, err := e.readerSchemaText(*readerSchema)
		if err != nil {
			return err
		}
		parts, err := e.scanParts(ins, text, &format.ReaderOptions{ReadAhead: true})
		if err != nil {
			return err
		}
		defer closeParts(parts)
		p := e.newProgress(totals(parts))
		defer p.done()
		rows, err := e.toContainer(out, parts, text, rf, sf, codec, p)
		if err != nil {
			return err
		}
		if err := out.Commit(); err != nil {
			return err
		}
		p.done()
		if !e.quiet && out.file != nil {
			fmt.Fprintf(e.stderr, "trevni: toavro: wrote %s: %s (codec %s)\n", out.Name(), pluralCount(rows, "record"), codec)
		}
		return nil
	}
}

// toavroSpec is the command "trevni toavro".
func toavroSpec() *command {
	return &command{
		name: "toavro", writes: true, args: "IN.trv... OUT.avro", minArgs: 2, maxArgs: -1,
		summary: "convert a Trevni file back to an Avro container file",
		help:    toavroHelp, setup: toavroCommand,
	}
}
