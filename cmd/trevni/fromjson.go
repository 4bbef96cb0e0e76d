package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/internal/plainjson"
	"github.com/trevni-go/trevni/schema"
)

const fromjsonHelp = `
Fromjson converts JSON records, one per line, to a Trevni file. By
default the lines are Avro's JSON encoding (as tojson writes them) of the
schema given with --schema: bytes and fixed values are strings of code
points 0-255, and a record field missing from a line takes its default.

With --plain the lines are plain JSON (as tojson --plain writes them):
unions bare, bytes and fixed in base64, decimals exact numbers, dates,
times and timestamps strings, NaN and the infinities strings. A union
takes its first branch that fits the value, so a value that plain JSON
cannot tell from an earlier branch's (a small long in ["int","long"])
comes back as that branch's.

With --infer there is no schema: fromjson reads the plain JSON lines
twice, first to infer the schema from all of them (the union of the
objects' keys in the order first seen; boolean, long, double where any
number has a fraction, decimal where an integer is beyond a long, string,
date, time or timestamp where the strings all are (ISO 8601: a timestamp
local without a zone, in UTC with Z or an offset, as DuckDB's
read_json_auto makes them), records, arrays; nullable where null or absent; a key that is not an
Avro name, such as @timestamp or log.level, made one, _timestamp or
log_level, the key kept in json.name, which the outputs other than Avro
JSON print), then to convert them.
No digit is lost: a place where integers beyond 2^53 meet numbers with
a fraction is a decimal holding them all (refused beyond 76 digits: give
--schema), where a double would round the integers. --print-schema writes the inferred schema to OUT
instead of converting.

Several inputs (the parts of a data set; a quoted glob gives the files
it matches, a directory its *.jsonl, *.ndjson and *.json files but those
whose name starts with _ or ., in name order) make one file, their lines
in that order; --infer infers the schema from all of them.

The lines are decoded and shredded on --workers goroutines (one per core
by default), each taking ranges of whole lines; the records are written
in the order of the lines, --memory bounding them all together.

Examples (the file names stand for your own):

	trevni fromjson --schema event.avsc events.jsonl events.trv
	trevni fromjson --plain --schema event.avsc plain.jsonl events.trv
	trevni fromjson --infer plain.jsonl events.trv
	trevni fromjson --infer --print-schema plain.jsonl -
`

func fromjsonCommand(fs *flag.FlagSet) runFunc {
	schemaFile := inputFileVar(fs, "schema", "the records' Avro schema `FILE.avsc` (required unless --infer)")
	plain := fs.Bool("plain", false, "read plain JSON (as tojson --plain writes it) rather than Avro's JSON encoding")
	infer := fs.Bool("infer", false, "infer the schema from the plain JSON lines (implies --plain; reads the input twice)")
	printSchema := fs.Bool("print-schema", false, "with --infer, write the inferred schema to OUT instead of converting")
	tf := addTrevniFlags(fs)
	workers := addWorkersFlag(fs)
	return func(e *env, ins []string, out *output) error {
		switch {
		case *infer && *schemaFile != "":
			return e.usagef("--infer and --schema exclude each other")
		case !*infer && *schemaFile == "":
			return e.usagef("--schema is required, unless --infer")
		case *printSchema && !*infer:
			return e.usagef("--print-schema goes with --infer")
		}
		opts, err := tf.options(e)
		if err != nil {
			return err
		}
		if ins, err = converterInputs(ins, ".jsonl", ".ndjson", ".json"); err != nil {
			return err
		}
		if len(ins) > 1 && slices.Contains(ins, "-") {
			return e.usagef("standard input can only be the one input")
		}
		name := displayName(ins[0], false)
		var text string
		// The inputs, opened in turn for the conversion: with --infer, read
		// once before it.
		open := func(in string) (io.Reader, func() error, error) {
			f, err := e.openInput(in)
			if err != nil {
				return nil, nil, err
			}
			return f, f.Close, nil
		}
		if *infer {
			inf := &plainjson.Inferrer{}
			reread, done, err := e.inferInputs(ins, func(in string, r io.Reader) error {
				return eachLine(e, r, displayName(in, false), nil, func(line []byte) error { return inf.Add(line) })
			})
			if err != nil {
				return err
			}
			defer done()
			if len(ins) > 1 {
				name = fmt.Sprintf("%s and %d more", name, len(ins)-1)
			}
			if text, err = inf.Schema(); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if *printSchema {
				_, err := io.WriteString(out, text)
				return err
			}
			if _, err = schema.Parse(text); err != nil {
				return fmt.Errorf("%s: inferred schema: %w", name, err)
			}
			open = reread
		} else if text, _, err = e.readSchemaFile(*schemaFile); err != nil {
			return err
		}
		jopts := &trevni.JSONOptions{Plain: *plain || *infer}
		if opts.TempDir, err = out.TempDir(); err != nil {
			return err
		}
		n, err := workers()
		if err != nil {
			return err
		}
		var total, done int64 // the inputs' bytes, those of the inputs converted
		for _, in := range ins {
			total += inputSize(in)
		}
		p := e.newProgress(0, total)
		defer p.done()
		wo := frontWriteOptions(opts, e.limits.layout(), n)
		wo.Progress = func(rows, read int64) {
			p.setRows(rows)
			p.setBytes(done + read)
		}
		aw, err := trevni.NewWriter(out, text, wo)
		if err != nil {
			if *infer {
				return fmt.Errorf("%s: inferred schema: %w", name, err)
			}
			return fmt.Errorf("%s: %w", *schemaFile, err)
		}
		defer aw.Abort()
		for _, name := range ins {
			in, closeIn, err := open(name)
			if err != nil {
				return err
			}
			err = aw.AppendJSONLines(e.ctx, frontdoor.ContextReader(e.ctx, in), jopts)
			closeIn()
			if err != nil {
				name := displayName(name, false)
				var le *trevni.LineError
				if errors.As(err, &le) {
					return fmt.Errorf("%s:%d: %w", name, le.Line, le.Err)
				}
				return fmt.Errorf("%s: %w", name, err)
			}
			done += inputSize(name)
		}
		if err := aw.Close(); err != nil {
			return fmt.Errorf("%s: %w", out.Name(), err)
		}
		p.done()
		e.summary(out, aw.Records(), opts)
		return nil
	}
}

// eachLine calls do with every line of r that is not blank, its errors
// placed as name:line, and progress (if not nil) after each with the
// bytes read so far.
func eachLine(e *env, r io.Reader, name string, progress func(read int64), do func(line []byte) error) error {
	br := bufio.NewReaderSize(frontdoor.ContextReader(e.ctx, r), 1<<20)
	var read int64
	for line := 1; ; line++ {
		text, err := br.ReadBytes('\n')
		read += int64(len(text))
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if t := bytes.TrimSpace(text); len(t) > 0 {
			if derr := do(t); derr != nil {
				return fmt.Errorf("%s:%d: %w", name, line, derr)
			}
			if progress != nil {
				progress(read)
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// fromjsonSpec is the command "trevni fromjson".
func fromjsonSpec() *command {
	return &command{
		name: "fromjson", output: lastOutput, args: "IN.jsonl... OUT", minArgs: 2, maxArgs: -1,
		summary: "convert Avro JSON or plain JSON lines to Trevni",
		help:    fromjsonHelp, setup: fromjsonCommand,
	}
}
