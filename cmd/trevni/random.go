package main

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
)

const randomHelp = `
Random writes COUNT random records of an Avro schema to a Trevni file:
every type, edge values (empty and multi-byte strings, extreme numbers,
empty arrays and maps, nulls), reproducible with --seed.

Examples (the file names stand for your own):

	trevni random --seed 7 event.avsc 100000 sample.trv
`

func randomCommand(fs *flag.FlagSet) runFunc {
	seed := fs.Uint64("seed", 1, "random seed `N`")
	tf := addTrevniFlags(fs)
	return func(e *env, ins []string, out *output) error {
		count, err := strconv.ParseInt(ins[1], 10, 64)
		if err != nil || count < 0 {
			return e.usagef("COUNT %q is not a number of records", ins[1])
		}
		opts, err := tf.options(e)
		if err != nil {
			return err
		}
		text, s, err := e.readSchemaFile(ins[0])
		if err != nil {
			return err
		}
		if opts.TempDir, err = out.TempDir(); err != nil {
			return err
		}
		aw, err := trevni.NewWriter(out, text, frontWriteOptions(opts, e.limits.layout(), 1))
		if err != nil {
			return fmt.Errorf("%s: %w", ins[0], err)
		}
		defer aw.Abort()
		gen := avrorand.New(*seed, avrorand.Options{})
		p := e.newProgress(count, 0)
		defer p.done()
		for i := int64(0); i < count; i++ {
			if i%4096 == 0 {
				if err := e.interrupted(); err != nil {
					return err
				}
				p.setRows(i)
			}
			if err := aw.Write(gen.Value(s)); err != nil {
				return fmt.Errorf("%s: record %d: %w", out.Name(), i, err)
			}
		}
		if err := aw.Close(); err != nil {
			return fmt.Errorf("%s: %w", out.Name(), err)
		}
		p.done()
		e.summary(out, count, opts)
		return nil
	}
}

// randomSpec is the command "trevni random".
func randomSpec() *command {
	return &command{
		name: "random", output: lastOutput, args: "SCHEMA.avsc COUNT OUT.trv", minArgs: 3, maxArgs: 3,
		summary: "write random records of an Avro schema",
		help:    randomHelp, setup: randomCommand,
	}
}
