package main

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
)

const recodecHelp = `
Recodec rewrites a Trevni file with another codec, keeping its rows,
columns and metadata: every block is decompressed and compressed again
with the codec --codec names, without decoding a value, and stored with
the checksum --checksum names (by default the file's own), computed
again from the decompressed block. The block boundaries, the first
values of trevni.values columns and the per-block statistics stay as
they are; --stats=false drops the statistics. --stats (true) asks that
every column have statistics: a file whose columns lack some is refused
for now (rewrite it with toavro, then fromavro, to add them).

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
	fs.Var(&st, "stats", "--stats=false drops the per-block column statistics; --stats requires them (default: kept as they are)")
	return func(e *env, ins []string, out *output) error {
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
		if *checksum != "" && !slices.Contains(checksumNames, *checksum) && *checksum != "crc-32" {
			return e.usagef("--checksum %q: unknown checksum (want %s)", *checksum, strings.Join(checksumNames, " or "))
		}
		ds, done, err := e.openDataset(ins, e.openOptions("", false))
		if err != nil {
			return err
		}
		defer done()
		part := ds.Parts()[0]
		if part.Format() != trevni.Trevni2 {
			return fmt.Errorf("%s: a %s file: recodec rewrites Trevni 2 files; convert it first (trevni toavro %s x.avro, then trevni fromavro x.avro x.trv)", part.Name(), part.Format(), part.Name())
		}
		f, err := part.Open(e.ctx)
		if err != nil {
			return err
		}
		defer f.Close()
		rd := f.Trevni()
		if st.set && st.value {
			for i := range rd.NumColumns() {
				s, err := rd.BlockStats(i)
				if err != nil {
					return fmt.Errorf("%s: %w", part.Name(), err)
				}
				blocks, err := rd.Blocks(i)
				if err != nil {
					return fmt.Errorf("%s: %w", part.Name(), err)
				}
				if s == nil && len(blocks) > 0 {
					cm, _ := rd.Column(i)
					return fmt.Errorf("%s: column %q has no statistics, and recodec does not compute them yet: leave out --stats, or rewrite the file (trevni toavro, then trevni fromavro)", part.Name(), cm.Name)
				}
			}
		}
		opts := &format.ConcatOptions{Codec: c, Checksum: *checksum, DropStats: st.set && !st.value}
		rows, err := format.Concat(e.ctx, out, []*format.Reader{rd}, opts)
		if err != nil {
			var pe *format.PartError
			if errors.As(err, &pe) {
				return fmt.Errorf("%s: %w", part.Name(), pe.Err)
			}
			return fmt.Errorf("%s: %w", part.Name(), err)
		}
		e.wrote(out, func() string { return pluralCount(rows, "row") + " with codec " + c })
		return nil
	}
}

// recodecSpec is the command "trevni recodec".
func recodecSpec() *command {
	return &command{
		name: "recodec", output: lastOutput, args: "IN.trv OUT.trv", minArgs: 2, maxArgs: 2,
		summary: "rewrite a Trevni file's blocks with another codec, values not decoded",
		help:    recodecHelp, setup: recodecCommand,
	}
}
