package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema/protoschema"
)

const toprotoHelp = `
Toproto turns a Trevni file written by fromproto back into protobuf
messages, using the descriptors stored in the file (no .proto needed):
length-delimited binary (--output delimited) or protojson lines
(--output json). --fields keeps only the named fields (dotted paths of
protobuf field names, comma-separated); only their columns are read.

The messages go to OUT if given, otherwise to standard output.

Examples (the file names stand for your own):

	trevni toproto spans.trv spans.bin
	trevni toproto --output json --fields resource_spans.scope_spans.spans.name spans.trv
`

func toprotoCommand(fs *flag.FlagSet) runFunc {
	outForm := fs.String("output", "delimited", "output `FORM`: delimited or json")
	fields := fs.String("fields", "", "comma-separated field `PATHS` to keep")
	rf := addRangeFlags(fs)
	return func(e *env, ins []string, out *output) error {
		var form protoschema.Framing
		switch *outForm {
		case "delimited":
			form = protoschema.Delimited
		case "json":
			form = protoschema.JSONLines
		default:
			return e.usagef("--output %q: want delimited or json", *outForm)
		}
		var sel []string
		if *fields != "" {
			sel = strings.Split(*fields, ",")
		}
		opts := &format.ReaderOptions{ReadAhead: true}
		parts, err := e.scanParts(ins, "", opts)
		if err != nil {
			return err
		}
		defer closeParts(parts)
		p := e.newProgress(totals(parts))
		defer p.done()
		err = e.eachPart(parts, opts, rf, p, func(in *trevniInput, from, to, before int64) error {
			pr, err := assemble.NewProtoReader(in.Reader, &assemble.ProtoOptions{Fields: sel, Layout: e.limits.layout(), MaxRecordBytes: e.limits.maxRecord})
			if err == nil && from > 0 {
				err = pr.SeekRow(from)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", in.Name(), err)
			}
			pr.StopAt(to)
			progress := func(n int64) { p.setRows(before + from + n) }
			if _, err := assemble.ToProtoStream(e.ctx, out, pr, form, &assemble.ProtoStreamOptions{Progress: progress}); err != nil {
				return fmt.Errorf("%s: %w", in.Name(), err)
			}
			return nil
		})
		if err != nil {
			return err
		}
		return nil
	}
}

// toprotoSpec is the command "trevni toproto".
func toprotoSpec() *command {
	return &command{
		name: "toproto", output: optionalOutput, dataset: true, args: "IN.trv... [OUT]", minArgs: 1, maxArgs: -1,
		summary: "convert a Trevni file made from protobuf back to messages",
		help:    toprotoHelp, setup: toprotoCommand,
	}
}
