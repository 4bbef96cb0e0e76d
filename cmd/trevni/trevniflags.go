package main

import (
	"flag"
	"strconv"
	"strings"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema/layout"
)

// trevniFlags are the flags of every command that writes a Trevni file.
type trevniFlags struct {
	codec, checksum string
	blockSize       int
	memory          string
	stats           bool
}

func addTrevniFlags(fs *flag.FlagSet) *trevniFlags {
	f := &trevniFlags{}
	fs.StringVar(&f.codec, "codec", defaultCodec, "Trevni codec `NAME`: "+codecNames(trevniCodecs)+" (Java cannot read zstd)")
	fs.StringVar(&f.checksum, "checksum", defaultChecksum, "block checksum `NAME`: null or crc32")
	fs.IntVar(&f.blockSize, "block-size", format.DefaultBlockSize, "uncompressed `BYTES` at which a column's block is cut")
	fs.StringVar(&f.memory, "memory", "16MiB", "`SIZE` of finished blocks kept in memory before they spill to a temporary file beside the output")
	fs.BoolVar(&f.stats, "stats", true, "store per-block column statistics for --where (--stats=false: none, and null-codec files are byte for byte Java's)")
	return f
}

// options returns the writer options the flags select. The caller sets
// TempDir to the output's (see output.TempDir).
func (f *trevniFlags) options(e *env) (format.WriterOptions, error) {
	codec, err := e.checkCodec(f.codec, trevniCodecs)
	if err != nil {
		return format.WriterOptions{}, err
	}
	if _, err := trevni.ParseChecksum(f.checksum); err != nil {
		return format.WriterOptions{}, e.usagef("--checksum %q: unknown checksum (want %s)", f.checksum, strings.Join(checksumNames, " or "))
	}
	if f.blockSize <= 0 || f.blockSize > format.MaxWriterBlockSize {
		return format.WriterOptions{}, e.usagef("--block-size must be between 1 and %d (larger blocks would exceed what readers accept)", format.MaxWriterBlockSize)
	}
	budget, err := parseSize(f.memory)
	if err != nil || budget <= 0 {
		return format.WriterOptions{}, e.usagef("--memory %q: want a size such as 64MiB", f.memory)
	}
	return format.WriterOptions{Codec: codec, Checksum: f.checksum, BlockSize: f.blockSize, MemoryBudget: budget, DisableStats: !f.stats, MaxBlockSize: int(e.limits.maxBlock)}, nil
}

// parseSize reads a byte count with an optional unit: 1048576, 512KiB,
// 64MiB, 2GiB (also KB, MB, GB as powers of 1000).
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, err
	}
	return n * mult, nil
}

// frontWriteOptions returns the front door's options for the writer
// options the flags selected, the limits' layout bounds and workers
// goroutines.
func frontWriteOptions(o format.WriterOptions, l *layout.Options, workers int) *trevni.WriteOptions {
	w := &trevni.WriteOptions{
		Codec: trevni.Codec(o.Codec), Checksum: trevni.Checksum(o.Checksum),
		BlockSize: o.BlockSize, Memory: o.MemoryBudget, NoStats: o.DisableStats,
		MaxBlockSize: o.MaxBlockSize, TempDir: o.TempDir, Workers: workers,
	}
	if l != nil {
		w.MaxColumns, w.MaxDepth = l.MaxColumns, l.MaxDepth
	}
	return w
}

// rewriteOptions returns the front door's options of a command that
// writes the records of a Trevni file again (recodec --stats, split): the
// codec and checksum, the limits' bounds, and the file metadata fm holds
// beside the codec, checksum and schema, kept in its order. A codec or
// checksum "" (a header that names none) is the null one, as the file's.
func (e *env) rewriteOptions(fm *format.MetaData, codec, checksum string) *trevni.WriteOptions {
	if codec == "" {
		codec = string(trevni.NoCodec)
	}
	if checksum == "" {
		checksum = string(trevni.NoChecksum)
	}
	wo := frontWriteOptions(format.WriterOptions{Codec: codec, Checksum: checksum, MaxBlockSize: int(e.limits.maxBlock)}, e.limits.layout(), 1)
	for i := range fm.Len() {
		switch k := fm.Key(i); k {
		case format.KeyCodec, format.KeyChecksum, layout.MetaAvroSchema:
		default:
			wo.Meta = append(wo.Meta, trevni.MetaEntry{Key: k, Value: fm.Value(i)})
		}
	}
	return wo
}
