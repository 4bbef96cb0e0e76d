package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/frontdoor"
)

const recodecHelp = `
Recodec rewrites a Trevni file with another codec, keeping its rows,
columns and metadata: every block is decompressed and compressed again
with the codec --codec names, without decoding a value, and stored with
the checksum --checksum names (by default the file's own), computed
again from the decompressed block. The block boundaries, the first
values of trevni.values columns and the per-block statistics stay as
they are; --stats=false drops the statistics. --stats (true) asks that
every column have statistics: a file written from Avro (with
avro.schema) whose columns lack some (as Java's do) is then rewritten
record by record, as fromavro writes, with statistics computed from the
values and blocks cut again; one without avro.schema is refused.

Examples (the file names stand for your own):

	trevni recodec --codec zstd big.trv small.trv
	trevni recodec --codec deflate --checksum crc32 --stats=false in.trv for-java.trv
`

// optionalBool is a boolean flag that knows whether it was given.
type optionalBool struct {
	set, value bool
}

func (b *optionalBool) String() string {
	if b == nil || !b.set {
		return ""
	}
	return fmt.Sprint(b.value)
}

func (b *optionalBool) Set(s string) error {
	switch s {
	case "true", "1", "t", "T", "TRUE", "True":
		b.value = true
	case "false", "0", "f", "F", "FALSE", "False":
		b.value = false
	default:
		return fmt.Errorf("want true or false, not %q", s)
	}
	b.set = true
	return nil
}

// IsBoolFlag lets the flag be given as --stats alone.
func (b *optionalBool) IsBoolFlag() bool { return true }

// recodecCommand sets up "trevni recodec".
func recodecCommand(fs *flag.FlagSet) runFunc {
	codec := fs.String("codec", "", "the output's Trevni codec `NAME`: "+codecNames(trevniCodecs)+" (required; Java cannot read zstd)")
	checksum := fs.String("checksum", "", "the output's block checksum `NAME`: null or crc32 (default: the input's)")
	var st optionalBool
	fs.Var(&st, "stats", "--stats=false drops the per-block column statistics; --stats adds any missing, rewriting the records of a file written from Avro (default: kept as they are)")
	workers := addWorkersFlag(fs)
	return func(e *env, ins []string, out *output) error {
		n, err := workers()
		if err != nil {
			return err
		}
		if ins[0] == "-" {
			return e.usagef("recodec reads a file, not standard input")
		}
		if *codec == "" {
			return e.usagef("recodec needs --codec (one of %s)", codecNames(trevniCodecs))
		}
		c, err := e.checkCodec(*codec, trevniCodecs)
		if err != nil {
			return err
		}
		if _, err := trevni.ParseChecksum(*checksum); *checksum != "" && err != nil {
			return e.usagef("--checksum %q: unknown checksum (want %s)", *checksum, strings.Join(checksumNames, " or "))
		}
		ds, rd, done, err := e.openTrevni2(ins[0], "recodec rewrites")
		if err != nil {
			return err
		}
		defer done()
		if st.set && st.value {
			missing, err := columnWithoutStats(rd)
			if err != nil {
				return fmt.Errorf("%s: %w", ds.Parts()[0].Name(), err)
			}
			if missing != "" {
				if !rd.Meta().Has("avro.schema") {
					return fmt.Errorf("%s: column %q has no statistics, and recodec computes them only for files written from Avro (with avro.schema): leave out --stats", ds.Parts()[0].Name(), missing)
				}
				ck := *checksum
				if ck == "" {
					ck = rd.Checksum()
				}
				return e.recodecRecords(ds, rd, out, c, ck)
			}
		}
		opts := &format.ConcatOptions{Codec: c, Checksum: *checksum, DropStats: st.set && !st.value, Workers: n}
		rows, err := format.Concat(e.ctx, out, []*format.Reader{rd}, opts)
		if err != nil {
			var pe *format.PartError
			if errors.As(err, &pe) {
				return fmt.Errorf("%s: %w", ds.Parts()[0].Name(), pe.Err)
			}
			return fmt.Errorf("%s: %w", ds.Parts()[0].Name(), err)
		}
		e.wrote(out, func() string { return pluralCount(rows, "row") + " with codec " + c })
		return nil
	}
}

// columnWithoutStats returns the name of the first column of rd that has
// blocks and no statistics, or "".
func columnWithoutStats(rd *format.Reader) (string, error) {
	for i := range rd.NumColumns() {
		s, err := rd.BlockStats(i)
		if err != nil {
			return "", err
		}
		blocks, err := rd.Blocks(i)
		if err != nil {
			return "", err
		}
		if s == nil && len(blocks) > 0 {
			cm, _ := rd.Column(i)
			return cm.Name, nil
		}
	}
	return "", nil
}

// recodecRecords writes the records of the data set ds, whose one file
// rd was written from Avro, to out with codec and checksum and
// statistics, as fromavro writes: the values are decoded (statistics need
// them) and the blocks are cut again. The file metadata is kept.
func (e *env) recodecRecords(ds *trevni.Dataset, rd *format.Reader, out *output, codec, checksum string) error {
	m := rd.Meta()
	opts := e.rewriteOptions(m, codec, checksum)
	var err error
	if opts.TempDir, err = out.TempDir(); err != nil {
		return err
	}
	r, err := ds.NewReader(e.ctx, nil)
	if err != nil {
		return err
	}
	defer r.Close()
	aw, err := trevni.NewWriter(out, m.GetString("avro.schema"), opts)
	if err != nil {
		return fmt.Errorf("%s: %w", out.Name(), err)
	}
	defer aw.Abort()
	var rec []byte
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
		if err := aw.WriteBinary(rec); err != nil {
			return fmt.Errorf("%s: %w", out.Name(), err)
		}
	}
	if err := aw.Close(); err != nil {
		return fmt.Errorf("%s: %w", out.Name(), err)
	}
	e.wrote(out, func() string {
		return pluralCount(aw.Records(), "row") + " with codec " + codec + " and statistics, blocks cut again"
	})
	return nil
}

// recodecSpec is the command "trevni recodec".
func recodecSpec() *command {
	return &command{
		name: "recodec", output: lastOutput, args: "IN.trv OUT.trv", minArgs: 2, maxArgs: 2,
		summary: "rewrite a Trevni file's blocks with another codec, values not decoded",
		help:    recodecHelp, setup: recodecCommand,
	}
}

// openTrevni2 opens the one input of a command that rewrites a Trevni 2
// file (recodec, split): its data set, and the part's own reader. A Trevni
// 1 or CLMN file is refused with the way to convert it. done closes both.
func (e *env) openTrevni2(in, verb string) (ds *trevni.Dataset, rd *format.Reader, done func(), err error) {
	ds, dsDone, err := e.openDataset([]string{in}, e.openOptions("", false))
	if err != nil {
		return nil, nil, nil, err
	}
	part := ds.Parts()[0]
	if part.Format() != trevni.Trevni2 {
		dsDone()
		return nil, nil, nil, fmt.Errorf("%s: %s: %s Trevni 2 files; %s", ds.Parts()[0].Name(), formatArticle(part.Format()), verb, convertHint([]any{ds}))
	}
	f, err := part.Open(e.ctx)
	if err != nil {
		dsDone()
		return nil, nil, nil, err
	}
	return ds, frontdoor.TrevniReader(f), func() { f.Close(); dsDone() }, nil
}
