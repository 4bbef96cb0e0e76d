package main

import (
	"flag"
	"fmt"
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
	impala := addImpalaBooleans(fs)
	workers := addReadWorkersFlags(fs)
	return func(e *env, ins []string, out *output) error {
		codec, err := e.checkCodec(*codecFlag, avroCodecs)
		if err != nil {
			return err
		}
		w, err := workers()
		if err != nil {
			return err
		}
		text, err := e.readerSchemaText(*readerSchema)
		if err != nil {
			return err
		}
		ds, done, err := e.openDataset(ins, e.openOptions(text, *impala))
		if err != nil {
			return err
		}
		defer done()
		p := e.newProgress(ds.RowCount(), ds.Size())
		defer p.done()
		rows, err := e.toContainer(out, ds, rf, sf, codec, p, w)
		if err != nil {
			return err
		}
		p.done()
		e.wrote(out, func() string { return fmt.Sprintf("%s (codec %s)", pluralCount(rows, "record"), codec) })
		return nil
	}
}

// toavroSpec is the command "trevni toavro".
func toavroSpec() *command {
	return &command{
		name: "toavro", output: lastOutput, dataset: true, args: "IN.trv... OUT.avro", minArgs: 2, maxArgs: -1,
		summary: "convert a Trevni file back to an Avro container file",
		help:    toavroHelp, setup: toavroCommand,
	}
}
