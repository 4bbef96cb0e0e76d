package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/shred"
)

const splitHelp = `
Split writes the records of a Trevni file written from Avro (one with
avro.schema) to several Trevni files of consecutive records, named
PREFIX-00000.trv, PREFIX-00001.trv and so on: --rows N records each, or,
with --bytes SIZE, as many records as fit in SIZE bytes of their Avro
binary encoding (at least one each). Each part has the input's schema,
codec and checksum, and statistics; concat joins them back into the same
records. The parts are written to temporary files and all renamed into
place at the end, so that a failure leaves none; an existing part is
refused without --force.

Examples (the file names stand for your own):

	trevni split --rows 100000 big.trv parts/big
	trevni split --bytes 64MiB big.trv parts/big
`

// splitCommand sets up "trevni split".
func splitCommand(fs *flag.FlagSet) runFunc {
	rows := fs.Int64("rows", 0, "`N` records in each part")
	size := fs.String("bytes", "", "records of up to `SIZE` in their Avro binary encoding in each part, such as 64MiB")
	return func(e *env, ins []string, _ *output) error {
		in, prefix := ins[0], ins[1]
		if in == "-" {
			return e.usagef("split reads a file, not standard input")
		}
		var limit int64
		switch {
		case (*rows > 0) == (*size != ""):
			return e.usagef("split needs one of --rows N (more than 0) and --bytes SIZE")
		case *size != "":
			n, err := parseSize(*size)
			if err != nil || n <= 0 {
				return e.usagef("--bytes %q: want a size such as 64MiB", *size)
			}
			limit = n
		}
		ds, rd, done, err := e.openTrevni2(in, "split reads")
		if err != nil {
			return err
		}
		defer done()
		text := rd.Meta().GetString("avro.schema")
		if text == "" {
			return fmt.Errorf("%s: the file has no avro.schema metadata: split copies records written from Avro", ds.Parts()[0].Name())
		}
		r, err := ds.NewReader(e.ctx, nil)
		if err != nil {
			return err
		}
		defer r.Close()
		opts := format.WriterOptions{Codec: rd.Codec(), Checksum: rd.Checksum(), MaxBlockSize: int(e.limits.maxBlock)}
		var outs []*output
		defer func() {
			for _, o := range outs {
				o.Abort() // nothing after Commit
			}
		}()
		var (
			aw         *shred.AvroWriter
			cur        *output
			n, bytes   int64
			rec        []byte
			total      int64
			closeWrite = func() error {
				if aw == nil {
					return nil
				}
				err := aw.Close()
				aw = nil
				if err != nil {
					return fmt.Errorf("%s: %w", cur.Name(), err)
				}
				return nil
			}
		)
		defer func() {
			if aw != nil {
				aw.Abort()
			}
		}()
		for {
			if err := e.ctx.Err(); err != nil {
				return err
			}
			rec, err = r.ReadBinary(rec[:0])
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			full := aw != nil && ((*rows > 0 && n >= *rows) || (limit > 0 && bytes+int64(len(rec)) > limit))
			if full {
				if err := closeWrite(); err != nil {
					return err
				}
			}
			if aw == nil {
				if aw, cur, err = e.newSplitPart(prefix, len(outs), text, opts); err != nil {
					return err
				}
				outs = append(outs, cur)
				n, bytes = 0, 0
			}
			if err := aw.WriteBinary(rec); err != nil {
				return fmt.Errorf("%s: %w", cur.Name(), err)
			}
			n++
			bytes += int64(len(rec))
			total++
		}
		if len(outs) == 0 {
			// No record: one part without rows, which concat reads back.
			if aw, cur, err = e.newSplitPart(prefix, 0, text, opts); err != nil {
				return err
			}
			outs = append(outs, cur)
		}
		if err := closeWrite(); err != nil {
			return err
		}
		for _, o := range outs {
			if err := o.Commit(); err != nil {
				return err
			}
		}
		if !e.quiet {
			fmt.Fprintf(e.stderr, "trevni: split: wrote %s of %s-NNNNN.trv: %s\n", plural(int64(len(outs)), "part"), prefix, pluralCount(total, "row"))
		}
		return nil
	}
}

// newSplitPart creates part k of split's output and a writer of the
// records of schema text to it.
func (e *env) newSplitPart(prefix string, k int, text string, opts format.WriterOptions) (*shred.AvroWriter, *output, error) {
	if k > 99999 {
		return nil, nil, errors.New("split would write more than 100000 parts: give a larger --rows or --bytes")
	}
	out, err := e.createOutput(fmt.Sprintf("%s-%05d.trv", prefix, k))
	if err != nil {
		return nil, nil, err
	}
	if opts.TempDir, err = out.TempDir(); err != nil {
		out.Abort()
		return nil, nil, err
	}
	aw, err := shred.NewAvroWriter(out, text, &shred.Options{WriterOptions: opts, Layout: e.limits.layout()})
	if err != nil {
		out.Abort()
		return nil, nil, fmt.Errorf("%s: %w", out.Name(), err)
	}
	return aw, out, nil
}

// splitSpec is the command "trevni split".
func splitSpec() *command {
	return &command{
		name: "split", output: prefixOutput, args: "IN.trv OUT-PREFIX", minArgs: 2, maxArgs: 2,
		summary: "split a Trevni file into parts of N records or SIZE bytes",
		help:    splitHelp, setup: splitCommand,
	}
}
