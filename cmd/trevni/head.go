package main

import (
	"flag"
)

const headHelp = `
Head prints the first N records (10 unless -n says otherwise) of a Trevni
file or data set (several files, quoted globs, directories of *.trv,
*.trv1 and *.clmn files, Trevni 1 and CLMN files too,
http(s) URLs, read in order as one stream) written from Avro, as Avro
JSON, one per line, as tojson prints them. Only the blocks holding them
are read. --fields keeps only the named fields, --where prints the first
N records that match, and --schema reads the records as a reader schema
(which parts of different schemas must all resolve to).

Examples (the file names stand for your own):

	trevni head events.trv
	trevni head -n 3 --fields id,amount --where "amount > 4500" orders.trv
	trevni head -n 20 'parts/part-*.trv'
`

func headCommand(fs *flag.FlagSet) runFunc {
	n := fs.Int64("n", 10, "print the first `N` records")
	readerSchema := inputFileVar(fs, "schema", "reader schema `FILE.avsc` for projection or evolution")
	sf := addSelectFlags(fs)
	impala := addImpalaBooleans(fs)
	return func(e *env, ins []string, out *output) error {
		if *n < 0 {
			return e.usagef("-n must not be negative")
		}
		return e.writeJSON(ins, out, *readerSchema, *impala, false, &rangeFlags{limit: *n}, sf)
	}
}

// headSpec is the command "trevni head".
func headSpec() *command {
	return &command{
		name: "head", output: stdoutOutput, dataset: true, stdin: true, args: "IN.trv...", minArgs: 1, maxArgs: -1,
		summary: "print the first records as Avro JSON",
		help:    headHelp, setup: headCommand,
	}
}
