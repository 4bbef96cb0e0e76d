package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/internal/ocf"
)

const fromavroHelp = `
Fromavro converts an Avro object container file (any codec: null, deflate,
snappy, bzip2, xz, zstandard) to a Trevni file, one column per simple
value, laid out as Java's trevni-avro lays it out, so that Java reads the
result. The Avro schema is stored in the file as avro.schema. Records are
decoded straight from Avro's binary encoding into the columns.

The default codec and checksum, deflate and crc32, are ones Java reads.
With --codec null and --stats=false the file is byte for byte what Java
writes for the same records, when the container's schema text is in the
compact form Java writes (any container Java wrote): the schema is stored
as the container gives it, where Java stores its own rendering.

Several input files of one schema (the parts of a data set) make one
Trevni file, their records in the order the files are given. A quoted
glob gives the files it matches, and a directory its *.avro files (not
those whose name starts with _ or .), in name order, as Spark and Hive
write the parts of a data set.

Records are decoded and shredded on --workers goroutines (one per core by
default), each taking ranges of the container's blocks; the columns are
joined in row order, so the records are those one worker writes, with
blocks ending where ranges do. --memory bounds them all together. With
--codec null --stats=false one worker writes Java's bytes.

Examples (the file names stand for your own):

	trevni fromavro events.avro events.trv
	trevni fromavro part-*.avro events.trv
	trevni fromavro 'events/*.avro' events.trv
	trevni fromavro events/ events.trv
	trevni fromavro --codec snappy --block-size 262144 - events.trv < events.avro
`

func fromavroCommand(fs *flag.FlagSet) runFunc {
	tf := addTrevniFlags(fs)
	version := fs.Int("version", 2, "Trevni version to write: 2, or 1 (Impala's variant with definition and repetition levels)")
	workers := addWorkersFlag(fs)
	return func(e *env, ins []string, out *output) error {
		ins, err := converterInputs(ins, ".avro")
		if err != nil {
			return err
		}
		switch *version {
		case 1:
			return v1FromAvro(e, tf, isSet(fs, "block-size"), isSet(fs, "checksum"), ins, out)
		case 2:
		default:
			return e.usagef("--version must be 1 or 2")
		}
		opts, err := tf.options(e)
		if err != nil {
			return err
		}
		n, err := workers()
		if err != nil {
			return err
		}
		if len(ins) == 1 {
			return e.toTrevni(ins[0], out, &opts, func(out io.Writer, in io.Reader, progress func(int64, int64)) (int64, error) {
				wo := frontWriteOptions(opts, e.limits.layout(), n)
				wo.Progress = progress
				return trevni.ConvertAvroStream(e.ctx, out, in, wo)
			})
		}
		return e.fromAvroFiles(ins, out, opts, n)
	}
}

// fromAvroFiles converts several Avro container files of one schema (the
// parts of a data set, say) into one Trevni file, in the order given.
// workers goroutines decode and shred each file's blocks.
func (e *env) fromAvroFiles(ins []string, out *output, opts format.WriterOptions, workers int) error {
	var total int64
	for _, in := range ins {
		if in == "-" {
			return e.usagef("standard input can only be the one input")
		}
		total += inputSize(in)
	}
	var err error
	if opts.TempDir, err = out.TempDir(); err != nil {
		return err
	}
	// The first file's schema, as written there, becomes the file's.
	first, err := e.openInput(ins[0])
	if err != nil {
		return err
	}
	r, err := ocf.NewReader(first)
	first.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", ins[0], err)
	}
	p := e.newProgress(0, total)
	defer p.done()
	var done int64
	wo := frontWriteOptions(opts, e.limits.layout(), workers)
	wo.Progress = func(rows, n int64) {
		p.setRows(rows)
		p.setBytes(done + n)
	}
	aw, err := trevni.NewWriter(out, r.Schema(), wo)
	if err != nil {
		return fmt.Errorf("%s: %w", ins[0], err)
	}
	defer aw.Abort()
	for _, name := range ins {
		f, err := e.openInput(name)
		if err != nil {
			return err
		}
		err = aw.AppendAvro(e.ctx, frontdoor.ContextReader(e.ctx, f))
		f.Close()
		if err != nil {
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

// isSet reports whether the flag called name was given on the command
// line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// fromavroSpec is the command "trevni fromavro".
func fromavroSpec() *command {
	return &command{
		name: "fromavro", output: lastOutput, args: "IN.avro... OUT.trv", minArgs: 2, maxArgs: -1,
		summary: "convert an Avro container file to Trevni",
		help:    fromavroHelp, setup: fromavroCommand,
	}
}
