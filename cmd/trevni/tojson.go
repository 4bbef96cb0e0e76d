package main

import (
	"flag"
)

const tojsonHelp = `
Tojson prints the records of a Trevni file written from Avro (or of a
Trevni 1 or CLMN file, read as the Trevni file of the same records) as Avro JSON,
one record per line (or indented with --pretty): record fields in schema
order, map keys sorted, unions as {"branch": value}, bytes as strings of
code points 0-255. The text is that of Java's Avro JSON encoder. With
--schema, records are read as that reader schema (projection, evolution).

--offset and --limit select a range of records; the records skipped are not
read, since every column seeks straight to the first one wanted.

--fields keeps only the named fields (dotted paths) and reads only their
columns. --where keeps only the records satisfying a filter expression
(amount > 4500 AND region IN ('EU', 'US'); see docs/filters.md),
and reads no block whose statistics rule out a match; with it, --limit
counts the records written. --report prints what was read to standard error.

--plain prints plain JSON instead, for jq and the like: unions unwrapped,
bytes and fixed in base64, decimals as exact numbers, timestamps as RFC
3339 UTC strings at their precision, dates as YYYY-MM-DD, times as
HH:MM:SS.fff, NaN and infinities as strings; files written from protobuf
print as protojson does. It is for reading: fromjson cannot read it back
as the same records (see docs/commands.md, Plain JSON). head prints plain
JSON by default.

Examples (the file names stand for your own):

	trevni tojson --limit 10 events.trv
	trevni tojson --schema ids.avsc events.trv ids.jsonl
	trevni tojson --fields id,customer.name --where "amount > 4500" --report orders.trv
	trevni tojson --plain events.trv | jq .amount
`

func tojsonCommand(fs *flag.FlagSet) runFunc {
	readerSchema := inputFileVar(fs, "schema", "reader schema `FILE.avsc` for projection or evolution")
	pretty := fs.Bool("pretty", false, "indent each record over several lines")
	plain := fs.Bool("plain", false, "plain JSON: unions unwrapped, bytes in base64, exact decimals, timestamps and dates as RFC 3339 strings; protojson for files written from protobuf")
	rf := addRangeFlags(fs)
	sf := addSelectFlags(fs)
	impala := addImpalaBooleans(fs)
	workers := addReadWorkersFlags(fs)
	return func(e *env, ins []string, out *output) error {
		w, err := workers()
		if err != nil {
			return err
		}
		return e.writeJSON(ins, out, *readerSchema, *impala, *pretty, *plain, rf, sf, w)
	}
}

// tojsonSpec is the command "trevni tojson".
func tojsonSpec() *command {
	return &command{
		name: "tojson", output: optionalOutput, dataset: true, stdin: true, args: "IN.trv... [OUT.jsonl]", minArgs: 1, maxArgs: -1,
		summary: "print records as Avro JSON, one per line",
		help:    tojsonHelp, setup: tojsonCommand,
	}
}
