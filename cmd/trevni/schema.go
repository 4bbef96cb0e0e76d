package main

import (
	"flag"
	"fmt"

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
	return func(e *env, ins []string, out *output) error {
		in, err := e.openTrevni(ins[0], nil)
		if err != nil {
			return err
		}
		defer in.Close()
		meta := in.Meta()
		if *protoName {
			name := meta.GetString(protoload.MetaMessage)
			if name == "" {
				return fmt.Errorf("%s: not written from protobuf (no %s metadata)", in.Name(), protoload.MetaMessage)
			}
			fmt.Fprintln(out, name)
			return nil
		}
		text, ok := meta.Get(layout.MetaAvroSchema)
		if !ok {
			return fmt.Errorf("%s: no %s metadata: not written from Avro or protobuf", in.Name(), layout.MetaAvroSchema)
		}
		if text, err = indentJSON(text, *pretty); err != nil {
			return fmt.Errorf("%s: %s is not JSON: %w", in.Name(), layout.MetaAvroSchema, err)
		}
		out.Write(text)
		out.Write([]byte{'\n'})
		return nil
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
