package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
)

const splitHelp = `
Split writes the records of a Trevni file written from Avro (one with
avro.schema) to several Trevni files of consecutive records, named
PREFIX-00000.trv, PREFIX-00001.trv and so on: --rows N records each, or,
with --bytes SIZE, as many records as fit in SIZE bytes of their Avro
binary encoding (at least one each). Each part has the input's schema,
codec, checksum and every other key of its file metadata (your own
included), and statistics; concat joins them back into the same records.

With --by-blocks, the parts are cut only at rows where a block of every
column ends, and each part is made of the input's own blocks, copied as
stored (their statistics and first values with them): nothing is decoded
or compressed again. A part then ends at the first such row at or after
--rows N records from its start, or holds as many of the input's stored
bytes (blocks and checksums, all columns) as fit in --bytes SIZE, at
least one run of blocks. Columns cut their blocks independently (by
size, as Java's writer does), so a file may have few such rows, or none
but its last: the parts are then fewer and larger, down to one; meta
--blocks shows where each column's blocks end. Concat of the parts gives
back the input's bytes (with right CRC-32s where Java wrote zeros).

The parts are written to temporary files and all renamed into place at
the end, so that a failure leaves none; an existing part is refused
without --force.

Examples (the file names stand for your own):

	trevni split --rows 100000 big.trv parts/big
	trevni split --bytes 64MiB big.trv parts/big
	trevni split --by-blocks --bytes 64MiB big.trv parts/big
`

// splitCommand sets up "trevni split".
func splitCommand(fs *flag.FlagSet) runFunc {
	rows := fs.Int64("rows", 0, "`N` records in each part")
	size := fs.String("bytes", "", "records of up to `SIZE` in their Avro binary encoding in each part, such as 64MiB (with --by-blocks, stored bytes)")
	byBlocks := fs.Bool("by-blocks", false, "cut only where every column's block ends, copying the input's blocks as stored")
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
		if *byBlocks {
			return e.splitByBlocks(rd, prefix, *rows, limit)
		}
		r, err := ds.NewReader(e.ctx, nil)
		if err != nil {
			return err
		}
		defer r.Close()
		// The parts' file metadata is the input's: the codec and checksum
		// as the writer's options, avro.schema as the shredder sets it,
		// and every other key in its order.
		fm := rd.Meta()
		opts := e.rewriteOptions(fm, fm.GetString(format.KeyCodec), fm.GetString(format.KeyChecksum))
		var outs []*output
		defer func() {
			for _, o := range outs {
				o.Abort() // nothing after Commit
			}
		}()
		var (
			aw         *trevni.Writer
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

// splitByBlocks writes the parts of split --by-blocks: rd's rows cut
// where every column's block ends (format.Reader.BlockEnds), each part
// the input's blocks of its rows copied as stored (format.Reader.Slice,
// then format.Concat), at least rows rows (rows > 0) or up to limit
// stored bytes (limit > 0) each.
func (e *env) splitByBlocks(rd *format.Reader, prefix string, rows, limit int64) error {
	ends, err := rd.BlockEnds()
	if err != nil {
		return err
	}
	// stored[k] is the stored bytes of every column's blocks before row
	// ends[k].
	stored := make([]int64, len(ends))
	for i := range rd.NumColumns() {
		blocks, err := rd.Blocks(i)
		if err != nil {
			return err
		}
		ck := int64(0)
		if rd.ColumnChecksum(i) == format.ChecksumCRC32 {
			ck = 4
		}
		var sum int64
		b := 0
		for k, end := range ends {
			for b < len(blocks) && blocks[b].FirstRow < end {
				sum += int64(blocks[b].CompressedSize) + ck
				b++
			}
			stored[k] += sum
		}
	}
	cuts := []int64{0}
	var from int64 // stored bytes before the part being made
	for k, end := range ends {
		last := k == len(ends)-1
		switch {
		case last:
		case rows > 0 && end-cuts[len(cuts)-1] >= rows:
		case limit > 0 && stored[k+1]-from > limit:
		default:
			continue
		}
		cuts = append(cuts, end)
		from = stored[k]
	}
	if len(cuts) == 1 {
		cuts = append(cuts, 0) // no rows: one part without rows
	}
	var outs []*output
	defer func() {
		for _, o := range outs {
			o.Abort() // nothing after Commit
		}
	}()
	for k := 0; k+1 < len(cuts); k++ {
		if err := e.ctx.Err(); err != nil {
			return err
		}
		if k > 99999 {
			return errors.New("split would write more than 100000 parts: give a larger --rows or --bytes")
		}
		view, err := rd.Slice(cuts[k], cuts[k+1]-cuts[k])
		if err != nil {
			return err
		}
		out, err := e.createOutput(fmt.Sprintf("%s-%05d.trv", prefix, k))
		if err != nil {
			return err
		}
		outs = append(outs, out)
		if _, err := format.Concat(e.ctx, out, []*format.Reader{view}, nil); err != nil {
			var pe *format.PartError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return fmt.Errorf("%s: rows %d to %d: %w", out.Name(), cuts[k], cuts[k+1]-1, err)
		}
	}
	for _, o := range outs {
		if err := o.Commit(); err != nil {
			return err
		}
	}
	if !e.quiet {
		fmt.Fprintf(e.stderr, "trevni: split: wrote %s of %s-NNNNN.trv, the input's blocks as stored: %s\n", plural(int64(len(outs)), "part"), prefix, pluralCount(rd.RowCount(), "row"))
		if len(outs) == 1 && len(ends) == 1 && (rows > 0 && rd.RowCount() > rows || limit > 0 && stored[0] > limit) {
			fmt.Fprintf(e.stderr, "trevni: split: the columns' blocks end together only at the last row, so --by-blocks could not cut the file (split without it writes parts of exactly the size asked, compressing them again)\n")
		}
	}
	return nil
}

// newSplitPart creates part k of split's output and a writer of the
// records of schema text to it.
func (e *env) newSplitPart(prefix string, k int, text string, opts *trevni.WriteOptions) (*trevni.Writer, *output, error) {
	if k > 99999 {
		return nil, nil, errors.New("split would write more than 100000 parts: give a larger --rows or --bytes")
	}
	out, err := e.createOutput(fmt.Sprintf("%s-%05d.trv", prefix, k))
	if err != nil {
		return nil, nil, err
	}
	part := *opts
	if part.TempDir, err = out.TempDir(); err != nil {
		out.Abort()
		return nil, nil, err
	}
	aw, err := trevni.NewWriter(out, text, &part)
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
