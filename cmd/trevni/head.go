package main

import (
	"flag"
)

const headHelp = `
Head prints the first N records (10 unless -n says otherwise) of a Trevni
file or data set (several files, quoted globs, directories of *.trv,
*.trv1 and *.clmn files, Trevni 1 and CLMN files too,
http(s) URLs, read in order as one stream) as plain JSON, one per line,
as "tojson --plain" prints them: unions unwrapped, bytes in base64,
decimals as exact numbers, timestamps and dates as RFC 3339 strings, and
protojson for files written from protobuf (--plain=false prints Avro's
JSON encoding, as tojson does by default). Only the blocks holding them
are read. --fields keeps only the named fields, --where prints the first
N records that match, and --schema reads the records as a reader schema
(which parts of different schemas must all resolve to).

Examples (the file names stand for your own):

	trevni head events.trv
	trevni head -n 3 --fields id,amount --where "amount > 4500" orders.trv
	trevni head -n 20 'parts/part-*.trv'
`

func headCommand(fs *flag.FlagSet) runFunc {
	n := fs.Int64("n", 10, "print the first `N` records (-n 2, -n2 and --limit 2 alike)")
	fs.Int64Var(n, "limit", 10, "the same as -n")
	readerSchema := inputFileVar(fs, "schema", "reader schema `FILE.avsc` for projection or evolution")
	sf := addSelectFlags(fs)
	impala := addImpalaBooleans(fs)
	plain := fs.Bool("plain", true, "plain JSON (see tojson --plain); --plain=false prints Avro's JSON encoding")
	return func(e *env, ins []string, out *output) error {
		if *n < 0 {
			return e.usagef("-n must not be negative")
		}
		return e.writeJSON(ins, out, *readerSchema, *impala, false, *plain, &rangeFlags{limit: *n}, sf, readWorkers{n: 1})
	}
}

// headSpec is the command "trevni head".
func headSpec() *command {
	return &command{
		name: "head", output: stdoutOutput, dataset: true, stdin: true, args: "IN.trv...", minArgs: 1, maxArgs: -1,
		summary: "print the first records as plain JSON",
		help:    headHelp, setup: headCommand,
	}
}
