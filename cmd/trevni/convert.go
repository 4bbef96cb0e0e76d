package main

import (
	"bufio"
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/avrojson"
	"github.com/trevni-go/trevni/internal/avrorand"
	"github.com/trevni-go/trevni/internal/ocf"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/protoload"
	"github.com/trevni-go/trevni/schema/protoschema"
	"github.com/trevni-go/trevni/shred"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Defaults for the Trevni files the tool writes: deflate and crc32, which
// Java reads, and Java's block size.
const (
	defaultCodec    = format.CodecDeflate
	defaultChecksum = format.ChecksumCRC32
)

// The codecs built into the tool, by the names each format stores: the
// codecs of Trevni blocks (trevni.codec) and of Avro container files
// (avro.codec). zstd and zstandard name the same codec and are both
// accepted on either side.
var (
	trevniCodecs = []string{"null", "deflate", "snappy", "bzip2", "zstd"}
	avroCodecs   = []string{"null", "deflate", "snappy", "bzip2", "xz", "zstandard"}
)

// codecAliases maps other accepted names to the one a format stores.
var codecAliases = map[string][]string{
	"zstd":      {"zstandard"},
	"zstandard": {"zstd"},
}

// codecNames lists the names accepted for the codecs of a format.
func codecNames(codecs []string) string {
	var names []string
	for _, c := range codecs {
		names = append(names, c)
		names = append(names, codecAliases[c]...)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// checkCodec returns the name a format stores for the codec the user
// named, or a usage error listing the names accepted.
func (e *env) checkCodec(name string, codecs []string) (string, error) {
	for _, c := range codecs {
		if name == c || slices.Contains(codecAliases[c], name) {
			return c, nil
		}
	}
	return "", e.usagef("--codec %q: unknown codec (want %s)", name, codecNames(codecs))
}

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
	fs.StringVar(&f.memory, "memory", "64MiB", "`SIZE` of finished blocks kept in memory before they spill to a temporary file beside the output")
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
	if !slices.Contains(checksumNames, f.checksum) && f.checksum != "crc-32" { // the spec's spelling
		return format.WriterOptions{}, e.usagef("--checksum %q: unknown checksum (want %s)", f.checksum, strings.Join(checksumNames, " or "))
	}
	if f.blockSize <= 0 || f.blockSize > format.MaxWriterBlockSize {
		return format.WriterOptions{}, e.usagef("--block-size must be between 1 and %d (larger blocks would exceed what readers accept)", format.MaxWriterBlockSize)
	}
	budget, err := parseSize(f.memory)
	if err != nil || budget <= 0 {
		return format.WriterOptions{}, e.usagef("--memory %q: want a size such as 64MiB", f.memory)
	}
	return format.WriterOptions{Codec: codec, Checksum: f.checksum, BlockSize: f.blockSize, MemoryBudget: budget, DisableStats: !f.stats}, nil
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

// inputSize returns the size of a file argument, or 0 when unknown.
func inputSize(path string) int64 {
	if path == "-" {
		return 0
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		return fi.Size()
	}
	return 0
}

// summary prints what a command wrote, unless --quiet or writing to
// standard output.
func (e *env) summary(out *output, rows int64, o format.WriterOptions) {
	if e.quiet || out.file == nil {
		return
	}
	cols := "? columns"
	var size int64
	if rc, err := format.Open(out.Name()); err == nil {
		cols = pluralCount(int64(rc.NumColumns()), "column")
		size = rc.Size()
		rc.Close()
	}
	fmt.Fprintf(e.stderr, "trevni: %s: wrote %s: %s, %s, %s (codec %s, checksum %s)\n",
		e.name, out.Name(), pluralCount(rows, "row"), cols, pluralCount(size, "byte"), o.Codec, o.Checksum)
}

// toTrevni runs a conversion of the stream at inPath into the Trevni file
// at outPath: it opens both (the output first, so that a bad output name
// fails before a large input is read), shows progress, and commits the
// output and prints a summary when convert succeeds.
func (e *env) toTrevni(inPath, outPath string, opts *format.WriterOptions,
	convert func(out io.Writer, in io.Reader, progress func(rows, bytesIn int64)) (int64, error)) error {
	out, err := e.createOutput(outPath)
	if err != nil {
		return err
	}
	defer out.Abort()
	if opts.TempDir, err = out.TempDir(); err != nil {
		return err
	}
	in, err := e.openInput(inPath)
	if err != nil {
		return err
	}
	defer in.Close()
	p := e.newProgress(0, inputSize(inPath))
	defer p.done()
	rows, err := convert(out, &ctxReader{ctx: e.ctx, r: in}, func(rows, n int64) {
		p.setRows(rows)
		p.setBytes(n)
	})
	if err != nil {
		return fmt.Errorf("%s: %w", displayName(inPath, false), err)
	}
	if err := out.Commit(); err != nil {
		return err
	}
	p.done()
	e.summary(out, rows, *opts)
	return nil
}

// readSchemaFile reads and parses an Avro schema file, and returns its
// text (trimmed) and the schema.
func (e *env) readSchemaFile(path string) (string, *schema.Schema, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", nil, err
	}
	text := strings.TrimSpace(string(b))
	s, err := schema.ParseWith(text, &schema.ParseOptions{MaxDepth: e.limits.maxDepth})
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", path, err)
	}
	return text, s, nil
}

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
Trevni file, their records in the order the files are given.

Examples (the file names stand for your own):

	trevni fromavro events.avro events.trv
	trevni fromavro part-*.avro events.trv
	trevni fromavro --codec snappy --block-size 262144 - events.trv < events.avro
`

func fromavroCommand(fs *flag.FlagSet) runFunc {
	tf := addTrevniFlags(fs)
	return func(e *env, args []string) error {
		ins, outPath := args[:len(args)-1], args[len(args)-1]
		opts, err := tf.options(e)
		if err != nil {
			return err
		}
		if len(ins) == 1 {
			return e.toTrevni(ins[0], outPath, &opts, func(out io.Writer, in io.Reader, progress func(int64, int64)) (int64, error) {
				return shred.FromContainer(e.ctx, out, in, &shred.Options{WriterOptions: opts, Layout: e.limits.layout(), Progress: progress})
			})
		}
		return e.fromAvroFiles(ins, outPath, opts)
	}
}

// fromAvroFiles converts several Avro container files of one schema (the
// parts of a data set, say) into one Trevni file, in the order given.
func (e *env) fromAvroFiles(ins []string, outPath string, opts format.WriterOptions) error {
	var total int64
	for _, in := range ins {
		if in == "-" {
			return e.usagef("standard input can only be the one input")
		}
		total += inputSize(in)
	}
	out, err := e.createOutput(outPath)
	if err != nil {
		return err
	}
	defer out.Abort()
	if opts.TempDir, err = out.TempDir(); err != nil {
		return err
	}
	// The first file's schema, as written there, becomes the file's.
	first, err := os.Open(ins[0])
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
	aw, err := shred.NewAvroWriter(out, r.Schema(), &shred.Options{WriterOptions: opts, Layout: e.limits.layout(), Progress: func(rows, n int64) {
		p.setRows(rows)
		p.setBytes(done + n)
	}})
	if err != nil {
		return fmt.Errorf("%s: %w", ins[0], err)
	}
	defer aw.Abort()
	for _, name := range ins {
		f, err := e.openInput(name)
		if err != nil {
			return err
		}
		err = aw.AppendContainer(e.ctx, &ctxReader{ctx: e.ctx, r: f})
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		done += inputSize(name)
	}
	if err := aw.Close(); err != nil {
		return fmt.Errorf("%s: %w", out.Name(), err)
	}
	if err := out.Commit(); err != nil {
		return err
	}
	p.done()
	e.summary(out, aw.RowCount(), opts)
	return nil
}

const toavroHelp = `
Toavro converts a Trevni file written from Avro (by this tool or by Java's
trevni-avro) back to an Avro object container file. With --schema, records
are read as that reader schema: a projection (only the columns it needs
are read) or an evolution of the file's schema, resolved as Avro resolves
schemas. --fields, --where and --report work as for tojson.

Examples (the file names stand for your own):

	trevni toavro events.trv events.avro
	trevni toavro --codec zstandard --schema summary.avsc events.trv summary.avro
	trevni toavro --fields id,amount --where "region = 'EU'" orders.trv eu.avro
`

func toavroCommand(fs *flag.FlagSet) runFunc {
	codecFlag := fs.String("codec", "deflate", "Avro codec `NAME`: "+codecNames(avroCodecs))
	readerSchema := inputFileVar(fs, "schema", "reader schema `FILE.avsc` for projection or evolution")
	rf := addRangeFlags(fs)
	sf := addSelectFlags(fs)
	return func(e *env, args []string) error {
		codec, err := e.checkCodec(*codecFlag, avroCodecs)
		if err != nil {
			return err
		}
		ins, outPath, err := e.datasetArgs(args, lastOutput)
		if err != nil {
			return err
		}
		out, err := e.createOutput(outPath)
		if err != nil {
			return err
		}
		defer out.Abort()
		text, err := e.readerSchemaText(*readerSchema)
		if err != nil {
			return err
		}
		parts, err := e.scanParts(ins, text, &format.ReaderOptions{ReadAhead: true})
		if err != nil {
			return err
		}
		defer closeParts(parts)
		p := e.newProgress(totals(parts))
		defer p.done()
		rows, err := e.toContainer(out, parts, text, rf, sf, codec, p)
		if err != nil {
			return err
		}
		if err := out.Commit(); err != nil {
			return err
		}
		p.done()
		if !e.quiet && out.file != nil {
			fmt.Fprintf(e.stderr, "trevni: toavro: wrote %s: %s (codec %s)\n", out.Name(), pluralCount(rows, "record"), codec)
		}
		return nil
	}
}

const tojsonHelp = `
Tojson prints the records of a Trevni file written from Avro as Avro JSON,
one record per line (or indented with --pretty): record fields in schema
order, map keys sorted, unions as {"branch": value}, bytes as strings of
code points 0-255. The text is that of Java's Avro JSON encoder. With
--schema, records are read as that reader schema (projection, evolution).

--offset and --limit select a range of records; the records skipped are not
read, since every column seeks straight to the first one wanted.

--fields keeps only the named fields (dotted paths) and reads only their
columns. --where keeps only the records satisfying a filter expression
(amount > 4500 AND region IN ('EU', 'US'); see "Filters" in the README),
and reads no block whose statistics rule out a match; with it, --limit
counts the records written. --report prints what was read to standard error.

Examples (the file names stand for your own):

	trevni tojson --limit 10 events.trv
	trevni tojson --schema ids.avsc events.trv ids.jsonl
	trevni tojson --fields id,customer.name --where "amount > 4500" --report orders.trv
`

func tojsonCommand(fs *flag.FlagSet) runFunc {
	readerSchema := inputFileVar(fs, "schema", "reader schema `FILE.avsc` for projection or evolution")
	pretty := fs.Bool("pretty", false, "indent each record over several lines")
	rf := addRangeFlags(fs)
	sf := addSelectFlags(fs)
	return func(e *env, args []string) error {
		ins, outPath, err := e.datasetArgs(args, optionalOutput)
		if err != nil {
			return err
		}
		return e.writeJSON(ins, cmp.Or(outPath, "-"), *readerSchema, *pretty, rf, sf)
	}
}

// writeJSON prints the records of the data set ins as Avro JSON lines to
// outPath (tojson and head), through the reader schema file if given, in
// the range of rf, with the fields and filter of sf.
func (e *env) writeJSON(ins []string, outPath, readerSchemaFile string, pretty bool, rf *rangeFlags, sf *selectFlags) error {
	out, err := e.createOutput(outPath)
	if err != nil {
		return err
	}
	defer out.Abort()
	text, err := e.readerSchemaText(readerSchemaFile)
	if err != nil {
		return err
	}
	parts, err := e.scanParts(ins, text, &format.ReaderOptions{ReadAhead: true})
	if err != nil {
		return err
	}
	defer closeParts(parts)
	p := e.newProgress(totals(parts))
	defer p.done()
	err = e.eachAvro(parts, text, rf, sf, p, func(ar *assemble.AvroReader, in *trevniInput, before int64) error {
		progress := func(n int64) { p.setRows(before + n) }
		if _, err := assemble.ToJSON(e.ctx, out, ar, &assemble.JSONOptions{Pretty: pretty, Progress: progress}); err != nil {
			return fmt.Errorf("%s: %w", in.Name(), err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return out.Commit()
}

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
	return func(e *env, args []string) error {
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
		out, err := e.createOutput(args[1])
		if err != nil {
			return err
		}
		defer out.Abort()
		if opts.TempDir, err = out.TempDir(); err != nil {
			return err
		}
		in, err := e.openInput(args[0])
		if err != nil {
			return err
		}
		defer in.Close()
		aw, err := shred.NewAvroWriter(out, text, &shred.Options{WriterOptions: opts, Layout: e.limits.layout()})
		if err != nil {
			return fmt.Errorf("%s: %w", *schemaFile, err)
		}
		defer aw.Abort()
		p := e.newProgress(0, inputSize(args[0]))
		defer p.done()
		br := bufio.NewReaderSize(&ctxReader{ctx: e.ctx, r: in}, 1<<20)
		var read int64
		for line := 1; ; line++ {
			text, err := br.ReadBytes('\n')
			read += int64(len(text))
			if err != nil && err != io.EOF {
				return fmt.Errorf("%s:%d: %w", displayName(args[0], false), line, err)
			}
			if t := bytes.TrimSpace(text); len(t) > 0 {
				v, derr := avrojson.Decode(s, t)
				if derr != nil {
					return fmt.Errorf("%s:%d: %w", displayName(args[0], false), line, derr)
				}
				if werr := aw.Write(v); werr != nil {
					return fmt.Errorf("%s:%d: %w", displayName(args[0], false), line, werr)
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
		if err := out.Commit(); err != nil {
			return err
		}
		p.done()
		e.summary(out, aw.RowCount(), opts)
		return nil
	}
}

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
	return func(e *env, args []string) error {
		count, err := strconv.ParseInt(args[1], 10, 64)
		if err != nil || count < 0 {
			return e.usagef("COUNT %q is not a number of records", args[1])
		}
		opts, err := tf.options(e)
		if err != nil {
			return err
		}
		text, s, err := e.readSchemaFile(args[0])
		if err != nil {
			return err
		}
		out, err := e.createOutput(args[2])
		if err != nil {
			return err
		}
		defer out.Abort()
		if opts.TempDir, err = out.TempDir(); err != nil {
			return err
		}
		aw, err := shred.NewAvroWriter(out, text, &shred.Options{WriterOptions: opts, Layout: e.limits.layout()})
		if err != nil {
			return fmt.Errorf("%s: %w", args[0], err)
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
		if err := out.Commit(); err != nil {
			return err
		}
		p.done()
		e.summary(out, count, opts)
		return nil
	}
}

// rangeFlags select a range of records: --offset and --limit.
type rangeFlags struct{ offset, limit int64 }

func addRangeFlags(fs *flag.FlagSet) *rangeFlags {
	r := &rangeFlags{}
	fs.Int64Var(&r.offset, "offset", 0, "skip the first `N` records (they are not read: the columns seek)")
	fs.Int64Var(&r.limit, "limit", -1, "write at most `N` records; -1 means all")
	return r
}

// apply positions a reader on the range, through its SeekRow and StopAt.
func (r *rangeFlags) apply(e *env, rows int64, seek func(int64) error, stop func(int64)) error {
	if r.offset < 0 {
		return e.usagef("--offset must not be negative")
	}
	if r.offset > 0 {
		if err := seek(min(r.offset, rows)); err != nil {
			return err
		}
	}
	if r.limit >= 0 {
		end := r.offset + r.limit
		if end < r.offset {
			end = math.MaxInt64 // the sum overflows: to the end
		}
		stop(end)
	}
	return nil
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

const fromprotoHelp = `
Fromproto converts a stream of protobuf messages to a Trevni file: binary
messages each preceded by its length as a varint (--input delimited, as
Java's writeDelimitedTo and Go's protodelim write them), or protojson, one
message per line (--input json). The message type comes from a descriptor
set (protoc --descriptor_set_out, buf build -o) or from .proto files, which
are compiled without protoc (imports are searched in the -I directories,
and the well-known types are built in). With neither, --message may name
one of the well-known types (google.protobuf.Timestamp, Duration, Struct
and the others), the only types built into the tool.

The file is an ordinary Avro-Trevni file of the Avro schema derived from
the message type (see the README's mapping), so tojson and Java read it;
it also stores the message's descriptors, so toproto needs no .proto.

Examples (the file names stand for your own):

	trevni fromproto --proto trace.proto -I protos --message opentelemetry.proto.trace.v1.TracesData spans.bin spans.trv
	trevni fromproto --descriptor-set api.pb --message acme.Event --input json events.jsonl events.trv
`

func fromprotoCommand(fs *flag.FlagSet) runFunc {
	descSet := inputFileVar(fs, "descriptor-set", "binary FileDescriptorSet `FILE`")
	protoFile := inputFileVar(fs, "proto", ".proto `FILE` to compile")
	var imports stringList
	fs.Var(&imports, "I", "import `DIR` for --proto (repeatable)")
	message := fs.String("message", "", "full `NAME` of the message type (required)")
	input := fs.String("input", "delimited", "input `FORM`: delimited or json")
	recursion := fs.Int("recursion-limit", 0, "the number `N` of times a message type may recur on a path before the rest is stored as bytes")
	tf := addTrevniFlags(fs)
	return func(e *env, args []string) error {
		if *message == "" {
			return e.usagef("--message is required")
		}
		if *descSet != "" && *protoFile != "" {
			return e.usagef("give --descriptor-set or --proto, not both")
		}
		var form protoschema.Framing
		switch *input {
		case "delimited":
			form = protoschema.Delimited
		case "json":
			form = protoschema.JSONLines
		default:
			return e.usagef("--input %q: want delimited or json", *input)
		}
		if *recursion < 0 {
			return e.usagef("--recursion-limit must not be negative")
		}
		opts, err := tf.options(e)
		if err != nil {
			return err
		}
		md, err := e.findMessage(*descSet, *protoFile, imports, *message)
		if err != nil {
			return err
		}
		return e.toTrevni(args[0], args[1], &opts, func(out io.Writer, in io.Reader, progress func(int64, int64)) (int64, error) {
			// Made here, once toTrevni has set opts.TempDir.
			po := &shred.ProtoOptions{File: shred.Options{WriterOptions: opts, Layout: e.limits.layout(), Progress: progress}, Mapping: &protoschema.Options{RecursionLimit: *recursion}}
			return shred.FromProtoStream(e.ctx, out, in, form, md, po)
		})
	}
}

// findMessage loads the named message type from a descriptor set, from
// .proto files, or from the types linked into the tool: the well-known
// types.
func (e *env) findMessage(descSet, protoFile string, imports []string, name string) (protoreflect.MessageDescriptor, error) {
	var files protoload.DescriptorResolver = protoregistry.GlobalFiles
	switch {
	case descSet != "":
		f, err := protoload.LoadDescriptorSet(descSet)
		if err != nil {
			return nil, fileError(descSet, err)
		}
		files = f
	case protoFile != "":
		dirs := imports
		if len(dirs) == 0 {
			dirs = []string{filepath.Dir(protoFile)}
			protoFile = filepath.Base(protoFile)
		} else if rel, ok := relativeTo(protoFile, dirs); ok {
			protoFile = rel
		}
		f, err := protoload.CompileProto(e.ctx, dirs, protoFile)
		if err != nil {
			return nil, err
		}
		files = f
	}
	md, err := protoload.FindMessage(files, name)
	if err != nil && descSet == "" && protoFile == "" {
		return nil, fmt.Errorf("%w (give --descriptor-set or --proto)", err)
	}
	return md, err
}

// fileError returns err naming the file at its start, as every message
// of the tool begins, unless it already does.
func fileError(name string, err error) error {
	if strings.HasPrefix(err.Error(), name+":") {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

// relativeTo returns path relative to the first import directory holding
// it, as the compiler wants import paths.
func relativeTo(path string, dirs []string) (string, bool) {
	for _, d := range dirs {
		if rel, err := filepath.Rel(d, path); err == nil && !strings.HasPrefix(rel, "..") {
			return rel, true
		}
	}
	return path, false
}

const toprotoHelp = `
Toproto turns a Trevni file written by fromproto back into protobuf
messages, using the descriptors stored in the file (no .proto needed):
length-delimited binary (--output delimited) or protojson lines
(--output json). --fields keeps only the named fields (dotted paths of
protobuf field names, comma-separated); only their columns are read.

Examples (the file names stand for your own):

	trevni toproto spans.trv spans.bin
	trevni toproto --output json --fields resource_spans.scope_spans.spans.name spans.trv -
`

func toprotoCommand(fs *flag.FlagSet) runFunc {
	output := fs.String("output", "delimited", "output `FORM`: delimited or json")
	fields := fs.String("fields", "", "comma-separated field `PATHS` to keep")
	rf := addRangeFlags(fs)
	return func(e *env, args []string) error {
		var form protoschema.Framing
		switch *output {
		case "delimited":
			form = protoschema.Delimited
		case "json":
			form = protoschema.JSONLines
		default:
			return e.usagef("--output %q: want delimited or json", *output)
		}
		var sel []string
		if *fields != "" {
			sel = strings.Split(*fields, ",")
		}
		ins, outPath, err := e.datasetArgs(args, lastOutput)
		if err != nil {
			return err
		}
		out, err := e.createOutput(outPath)
		if err != nil {
			return err
		}
		defer out.Abort()
		opts := &format.ReaderOptions{ReadAhead: true}
		parts, err := e.scanParts(ins, "", opts)
		if err != nil {
			return err
		}
		defer closeParts(parts)
		p := e.newProgress(totals(parts))
		defer p.done()
		err = e.eachPart(parts, opts, rf, p, func(in *trevniInput, from, to, before int64) error {
			pr, err := assemble.NewProtoReader(in.Reader, &assemble.ProtoOptions{Fields: sel, Layout: e.limits.layout()})
			if err == nil && from > 0 {
				err = pr.SeekRow(from)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", in.Name(), err)
			}
			pr.StopAt(to)
			progress := func(n int64) { p.setRows(before + from + n) }
			if _, err := assemble.ToProtoStream(e.ctx, out, pr, form, &assemble.ProtoStreamOptions{Progress: progress}); err != nil {
				return fmt.Errorf("%s: %w", in.Name(), err)
			}
			return nil
		})
		if err != nil {
			return err
		}
		return out.Commit()
	}
}
