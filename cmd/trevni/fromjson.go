package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"

	"github.com/trevni-go/trevni/internal/avrojson"
	"github.com/trevni-go/trevni/shred"
)

const fromjsonHelp = `
Fromjson converts Avro JSON records, one per line (as tojson writes them),
to a Trevni file of the schema given with --schema. Bytes and fixed values
are strings of code points 0-255; a record field missing from a line takes
its default.

Examples (the file names stand for your own):

	trevni fromjson --schema event.avsc events.jsonl events.trv
`

func fromjsonCommand(fs *flag.FlagSet) runFunc {
	schemaFile := inputFileVar(fs, "schema", "the records' Avro schema `FILE.avsc` (required)")
	tf := addTrevniFlags(fs)
	return func(e *env, ins []string, out *output) error {
		if *schemaFile == "" {
			return e.usagef("--schema is required")
		}
		opts, err := tf.options(e)
		if err != nil {
			return err
		}
		text, s, err := e.readSchemaFile(*schemaFile)
		if err != nil {
			return err
		}
		if opts.TempDir, err = out.TempDir(); err != nil {
			return err
		}
		in, err := e.openInput(ins[0])
		if err != nil {
			return err
		}
		defer in.Close()
		aw, err := shred.NewAvroWriter(out, text, &shred.Options{WriterOptions: opts, Layout: e.limits.layout()})
		if err != nil {
			return fmt.Errorf("%s: %w", *schemaFile, err)
		}
		defer aw.Abort()
		p := e.newProgress(0, inputSize(ins[0]))
		defer p.done()
		br := bufio.NewReaderSize(&ctxReader{ctx: e.ctx, r: in}, 1<<20)
		var read int64
		for line := 1; ; line++ {
			text, err := br.ReadBytes('\n')
			read += int64(len(text))
			if err != nil && err != io.EOF {
				return fmt.Errorf("%s:%d: %w", displayName(ins[0], false), line, err)
			}
			if t := bytes.TrimSpace(text); len(t) > 0 {
				v, derr := avrojson.Decode(s, t)
				if derr != nil {
					return fmt.Errorf("%s:%d: %w", displayName(ins[0], false), line, derr)
				}
				if werr := aw.Write(v); werr != nil {
					return fmt.Errorf("%s:%d: %w", displayName(ins[0], false), line, werr)
				}
				if aw.RowCount()%4096 == 0 {
					p.setRows(aw.RowCount())
					p.setBytes(read)
				}
			}
			if err == io.EOF {
				break
			}
		}
		if err := aw.Close(); err != nil {
			return fmt.Errorf("%s: %w", out.Name(), err)
		}
		p.done()
		e.summary(out, aw.RowCount(), opts)
		return nil
	}
}

// fromjsonSpec is the command "trevni fromjson".
func fromjsonSpec() *command {
	return &command{
		name: "fromjson", output: lastOutput, args: "IN.jsonl OUT.trv", minArgs: 2, maxArgs: 2,
		summary: "convert Avro JSON lines to Trevni",
		help:    fromjsonHelp, setup: fromjsonCommand,
	}
}
