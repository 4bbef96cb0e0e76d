package main

import (
	"flag"

	"github.com/trevni-go/trevni"
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
	workers := addReadWorkersFlags(fs)
	return func(e *env, ins []string, out *output) error {
		w, err := workers()
		if err != nil {
			return err
		}
		var form trevni.Framing
		switch *outForm {
		case "delimited":
			form = trevni.Delimited
		case "json":
			form = trevni.JSONLines
		default:
			return e.usagef("--output %q: want delimited or json", *outForm)
		}
		ds, done, err := e.openDataset(ins, e.openOptions("", false))
		if err != nil {
			return err
		}
		defer done()
		p := e.newProgress(ds.RowCount(), ds.Size())
		defer p.done()
		o, err := e.readOptions(ds, rf, &selectFlags{fields: *fields}, p)
		if err != nil {
			return err
		}
		o.Workers, o.OutputMemory = w.n, w.memory
		_, err = ds.WriteProto(e.ctx, out, form, &trevni.ProtoOptions{ReadOptions: *o})
		return err
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
