package main

import (
	"flag"
	"fmt"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/schema/protoload"
)

const schemaHelp = `
Schema prints the Avro schema stored in a Trevni file written from Avro or
from protobuf (its avro.schema metadata), as one line of JSON, or indented
with --pretty. For a file written from protobuf, --proto prints the full
name of the message type instead.

Examples (the file names stand for your own):

	trevni schema --pretty events.trv
	trevni schema events.trv > events.avsc
`

// schemaCommand sets up "trevni schema".
func schemaCommand(fs *flag.FlagSet) runFunc {
	pretty := fs.Bool("pretty", false, "indent the JSON")
	protoName := fs.Bool("proto", false, "print the protobuf message name instead")
	impala := addImpalaBooleans(fs)
	return func(e *env, ins []string, out *output) error {
		ds, done, err := e.openDataset(ins, e.openOptions("", *impala))
		if err != nil {
			return err
		}
		defer done()
		part := ds.Parts()[0]
		if *protoName {
			return e.withPart(part, func(f *trevni.File) error {
				var name string
				if rd := frontdoor.TrevniReader(f); rd != nil {
					name = rd.Meta().GetString(protoload.MetaMessage)
				}
				if name == "" {
					return fmt.Errorf("%s: not written from protobuf (no %s metadata)", part.Name(), protoload.MetaMessage)
				}
				_, err := fmt.Fprintln(out, name)
				return err
			})
		}
		// The schema of the part's records: a Trevni file's avro.schema,
		// the schema a Trevni 1 file's records read as, the record of a
		// CLMN file's columns.
		text := part.SchemaText()
		if text == "" {
			return fmt.Errorf("%s: no %s metadata: not written from Avro or protobuf", part.Name(), layout.MetaAvroSchema)
		}
		b, err := indentJSON([]byte(text), *pretty)
		if err != nil {
			return fmt.Errorf("%s: %s is not JSON: %w", part.Name(), layout.MetaAvroSchema, err)
		}
		_, err = out.Write(append(b, '\n'))
		return err
	}
}

// schemaSpec is the command "trevni schema".
func schemaSpec() *command {
	return &command{
		name: "schema", output: optionalOutput, stdin: true, args: "IN.trv [OUT.avsc]", minArgs: 1, maxArgs: 2,
		summary: "print the Avro schema stored in a file",
		help:    schemaHelp, setup: schemaCommand,
	}
}
