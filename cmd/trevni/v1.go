package main

// Trevni version 1 (Impala's variant, package trevni1) in the tool:
// the commands that read a file (meta, dump, validate, tojson, toavro,
// schema) run their version-1 form when the input, named or standard
// input, starts with "Trv\x01" (and tojson and meta their CLMN form when it
// starts with "CLMN"), and fromavro writes version 1 with --version 1. Two hooks in runCommand
// reach this file: v1Hook before the flags are parsed, and the function it
// returns once they are.

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/avrojson"
	"github.com/trevni-go/trevni/internal/ocf"
	"github.com/trevni-go/trevni/shred"
	"github.com/trevni-go/trevni/trevni1"
	"github.com/trevni-go/trevni/trevni1/convert"
)

// v1Hook is called with a command's flag set before parsing, so that it can
// add the flags of the command's version-1 form (fromavro --version). The
// function it returns gets the positional arguments and the command's own
// run function, and returns the one to run.
func v1Hook(name string, fs *flag.FlagSet) func(args []string, run runFunc) runFunc {
	switch name {
	case "fromavro":
		version := fs.Int("version", 2, "Trevni version to write: 2, or 1 (Impala's variant with definition and repetition levels)")
		return func(args []string, run runFunc) runFunc {
			if *version == 1 {
				return func(e *env, ins []string, out *output) error { return v1FromAvro(e, fs, ins, out) }
			}
			if *version != 2 {
				return func(*env, []string, *output) error { return &usageError{msg: "--version must be 1 or 2"} }
			}
			return run
		}
	case "meta", "dump", "validate", "tojson", "toavro", "schema":
		if fs.Lookup("impala-booleans") == nil {
			fs.Bool("impala-booleans", false, "version-1 input: read a boolean block that Impala's size bug left short as Impala's scanner did (the missing bits from the bytes after it) instead of failing")
		}
		return func(_ []string, run runFunc) runFunc {
			return func(e *env, args []string, out *output) error {
				if len(args) == 0 {
					return run(e, args, out)
				}
				magic := e.sniffInput(args[0])
				impala, _ := flagString(fs, "impala-booleans")
				switch {
				case magic == trevni1.Magic:
					return v1Command(e, name, fs, args[0], out)
				case magic == clmn.Magic && (name == "tojson" || name == "meta"):
					if impala == "true" {
						return e.usagef("--impala-booleans applies to version-1 files only")
					}
					return v1CLMN(e, name, fs, args[0], out)
				case impala == "true":
					return e.usagef("--impala-booleans applies to version-1 files only")
				}
				return run(e, args, out)
			}
		}
	}
	return func(_ []string, run runFunc) runFunc { return run }
}

// sniffInput returns the first four bytes of a file argument (fewer when
// it is shorter, "" when it cannot be opened: the command reports that
// itself). Standard input that allows no random access is read for those
// bytes only, which are then put back in front of the rest, so that the
// command still creates its output before it waits for its input.
func (e *env) sniffInput(path string) string {
	var m [4]byte
	if path != "-" {
		if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
			return "" // a named pipe can be read once: by the command
		}
		f, err := os.Open(path)
		if err != nil {
			return ""
		}
		defer f.Close()
		n, _ := io.ReadFull(f, m[:])
		return string(m[:n])
	}
	switch in := e.stdin.(type) {
	case *os.File:
		if fi, err := in.Stat(); err == nil && fi.Mode().IsRegular() {
			// Read in place from the current offset, as stdinReaderAt does.
			off, err := in.Seek(0, io.SeekCurrent)
			if err != nil {
				return ""
			}
			n, _ := in.ReadAt(m[:], off)
			return string(m[:n])
		}
	case io.ReaderAt: // *bytes.Reader, *strings.Reader: used from offset 0
		n, _ := in.ReadAt(m[:], 0)
		return string(m[:n])
	}
	n, _ := io.ReadFull(e.stdin, m[:])
	e.stdin = io.MultiReader(bytes.NewReader(slices.Clone(m[:n])), e.stdin)
	return string(m[:n])
}

// v1CLMN runs tojson or meta on a CLMN file named or on standard input,
// with tojson's --fields.
func v1CLMN(e *env, name string, fs *flag.FlagSet, inPath string, out *output) error {
	pretty, _ := flagString(fs, "pretty")
	if name == "meta" {
		return clmnMeta(e, inPath, out, pretty == "true")
	}
	where, _ := flagString(fs, "where")
	report, _ := flagString(fs, "report")
	if where != "" || report == "true" {
		return e.usagef("--where and --report need a Trevni file")
	}
	schemaFile, _ := flagString(fs, "schema")
	fields, _ := flagString(fs, "fields")
	return clmnToJSON(e, inPath, out, schemaFile, pretty == "true", flagRange(fs), fieldList(fields))
}

// flagRange returns the --offset and --limit of fs (parsed already by the
// command's own flags).
func flagRange(fs *flag.FlagSet) *rangeFlags {
	offStr, _ := flagString(fs, "offset")
	limStr, _ := flagString(fs, "limit")
	rf := &rangeFlags{limit: -1}
	rf.offset, _ = strconv.ParseInt(offStr, 10, 64)
	if limStr != "" {
		rf.limit, _ = strconv.ParseInt(limStr, 10, 64)
	}
	return rf
}

// flagString returns the value of a flag of fs, and whether it was set on
// the command line.
func flagString(fs *flag.FlagSet, name string) (string, bool) {
	f := fs.Lookup(name)
	if f == nil {
		return "", false
	}
	set := false
	fs.Visit(func(g *flag.Flag) { set = set || g.Name == name })
	return f.Value.String(), set
}

func v1Command(e *env, name string, fs *flag.FlagSet, inPath string, out *output) error {
	if v, _ := flagString(fs, "proto"); v == "true" {
		return fmt.Errorf("%s: a version-1 file is not written from protobuf", inPath)
	}
	if v, _ := flagString(fs, "fields"); v != "" {
		return e.usagef("--fields does not apply to version-1 files")
	}
	if v, _ := flagString(fs, "where"); v != "" && name == "dump" {
		return e.usagef("--where does not apply to version-1 files")
	}
	if v, _ := flagString(fs, "report"); v == "true" && name == "dump" {
		return e.usagef("--report does not apply to version-1 files")
	}
	ra, size, done, err := e.randomAccess(inPath)
	if err != nil {
		return err
	}
	defer done()
	impala, _ := flagString(fs, "impala-booleans")
	rd, err := trevni1.NewReader(ra, size, &trevni1.ReaderOptions{ImpalaBooleans: impala == "true", MaxBlockSize: e.limits.maxBlock, BlockMemory: e.limits.blockMemory})
	if err != nil {
		return fmt.Errorf("%s: %w", displayName(inPath, false), err)
	}
	switch name {
	case "meta":
		err = v1Meta(out, rd, fs)
	case "dump":
		limit, _ := flagString(fs, "limit")
		n, _ := strconv.ParseInt(limit, 10, 64)
		err = v1Dump(e, out, rd, n)
	case "validate":
		return v1Validate(e, inPath, rd)
	case "schema":
		err = v1Schema(out, rd, fs)
	case "tojson", "toavro":
		if v, _ := flagString(fs, "schema"); v != "" {
			err = v1ReaderSchema(e, name, out, rd, fs, v)
		} else {
			err = v1Records(e, name, out, rd, fs)
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", inPath, err)
	}
	if name == "toavro" {
		e.wrote(out, func() string { return fmt.Sprintf("%d records (version 1 input)", rd.RowCount()) })
	}
	return nil
}

// v1MetaJSON writes metadata entries in file order: text values as
// strings, others as {"hex": ...}.
func v1MetaJSON(b []byte, m *trevni1.Meta) []byte {
	b = append(b, '{')
	for i, k := range m.Keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSON(b, k)
		b = append(b, ':')
		if v := m.Values[i]; utf8.Valid(v) {
			b = appendJSON(b, string(v))
		} else {
			b = append(append(b, `{"hex":`...), appendJSON(nil, hex.EncodeToString(v))...)
			b = append(b, '}')
		}
	}
	return append(b, '}')
}

func appendJSON(b []byte, v any) []byte {
	j, _ := json.Marshal(v)
	return append(b, j...)
}

func v1Meta(out io.Writer, rd *trevni1.Reader, fs *flag.FlagSet) error {
	blocks, _ := flagString(fs, "blocks")
	pretty, _ := flagString(fs, "pretty")
	b := fmt.Appendf(nil, `{"version":1,"fileLength":%d,"rowCount":%d,"columnCount":%d,"metadata":`, rd.Size(), rd.RowCount(), rd.NumColumns())
	b = v1MetaJSON(b, rd.Meta())
	b = append(b, `,"columns":[`...)
	for i := range rd.NumColumns() {
		c := rd.Column(i)
		bl := rd.Blocks(i)
		if i > 0 {
			b = append(b, ',')
		}
		codec, check := c.Codec, c.Checksum
		if codec == "" {
			codec = "none"
		}
		if check == "" {
			check = "null"
		}
		b = fmt.Appendf(b, `{"number":%d,"name":%s,"type":%q,"definition":%d,"repetition":%d,"codec":%q,"checksum":%q,"metadata":`,
			i, appendJSON(nil, c.Name), c.Type, c.MaxDef, c.MaxRep, codec, check)
		b = v1MetaJSON(b, &c.Meta)
		b = fmt.Appendf(b, `,"start":%d,"dataStart":%d,"blockCount":%d`, rd.ColumnStart(i), rd.ColumnStart(i)+4+12*int64(len(bl)), len(bl))
		if blocks == "true" {
			b = append(b, `,"blocks":[`...)
			for j, x := range bl {
				if j > 0 {
					b = append(b, ',')
				}
				b = fmt.Appendf(b, `{"rows":%d,"uncompressed":%d,"compressed":%d,"start":%d}`, x.Rows, x.Uncompressed, x.Compressed, x.Start)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	b = append(b, "]}"...)
	if pretty == "true" {
		var buf bytes.Buffer
		json.Indent(&buf, b, "", "  ")
		b = buf.Bytes()
	}
	_, err := out.Write(append(b, '\n'))
	return err
}

// v1Value appends the JSON of a column reader's current value.
func v1Value(b []byte, cr *trevni1.ColumnReader) []byte {
	if cr.Null() {
		return append(b, "null"...)
	}
	switch cr.Column().Type {
	case trevni1.Null:
		return append(b, "null"...)
	case trevni1.Boolean:
		return strconv.AppendBool(b, cr.Bool())
	case trevni1.Float:
		return v1Float(b, float64(math.Float32frombits(cr.Float32Bits())), 32)
	case trevni1.Double:
		return v1Float(b, math.Float64frombits(cr.Float64Bits()), 64)
	case trevni1.Timestamp:
		ts := cr.Timestamp()
		return fmt.Appendf(b, `{"nanosOfDay":%d,"julianDay":%d}`, ts.NanosOfDay, ts.JulianDay)
	case trevni1.String:
		return appendJSON(b, string(cr.Bytes()))
	case trevni1.Bytes:
		return appendJSON(b, hex.EncodeToString(cr.Bytes()))
	}
	return strconv.AppendInt(b, cr.Int64(), 10)
}

func v1Float(b []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, bits)
}

// v1Dump prints each row (the first limit, if it is not negative) as an
// object of its columns: a flat column's value or null; a column with
// repetition levels, the array of its entries in the row (null where an
// entry has no value).
func v1Dump(e *env, out io.Writer, rd *trevni1.Reader, limit int64) error {
	n := rd.NumColumns()
	crs := make([]*trevni1.ColumnReader, n)
	has := make([]bool, n) // crs[i] holds the first entry of the next row
	for i := range crs {
		crs[i] = rd.Values(i)
	}
	var b []byte
	for row := int64(0); row < rd.RowCount() && (limit < 0 || row < limit); row++ {
		if row%1024 == 0 {
			if err := e.interrupted(); err != nil {
				return err
			}
		}
		b = append(b[:0], '{')
		for i, cr := range crs {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendJSON(b, cr.Column().Name), ':')
			if !has[i] {
				if err := cr.Next(); err != nil {
					return v1EOF(err, i, row)
				}
			}
			has[i] = false
			if cr.Column().MaxRep == 0 {
				b = v1Value(b, cr)
				continue
			}
			b = append(b, '[')
			for first := true; ; first = false {
				if !first {
					b = append(b, ',')
				}
				b = v1Value(b, cr)
				err := cr.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					return err
				}
				if cr.Rep == 0 {
					has[i] = true
					break
				}
			}
			b = append(b, ']')
		}
		b = append(b, "}\n"...)
		if _, err := out.Write(b); err != nil {
			return err
		}
	}
	return nil
}

func v1EOF(err error, col int, row int64) error {
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("column #%d ends before row %d", col, row)
	}
	return err
}

func v1Validate(e *env, name string, rd *trevni1.Reader) error {
	var problems []error
	if err := rd.Verify(); err != nil {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			problems = j.Unwrap()
		} else {
			problems = []error{err}
		}
	}
	if err := e.interrupted(); err != nil {
		return err
	}
	// Records are checked when the file has a schema or can be read as
	// flat records; otherwise its columns are all there is.
	_, records := rd.Meta().Get(trevni1.KeyAvroSchema)
	if _, err := rd.AvroSchema(); err == nil {
		records = true
	}
	if len(problems) == 0 && records {
		if err := v1ReadRecords(rd, func([]byte) error { return e.interrupted() }); err != nil {
			problems = append(problems, err)
		}
	}
	for _, p := range problems {
		e.report(fmt.Errorf("%s: %w", name, p))
	}
	switch {
	case len(problems) == 1:
		return errReported
	case len(problems) > 1:
		return fmt.Errorf("%s: %d problems found", name, len(problems))
	}
	blocks := 0
	for i := range rd.NumColumns() {
		blocks += len(rd.Blocks(i))
	}
	_, err := fmt.Fprintf(e.stdout, "%s: ok: %s, %s, %s checked (version 1)\n", name,
		plural(rd.RowCount(), "row"), plural(int64(rd.NumColumns()), "column"), plural(int64(blocks), "block"))
	return err
}

// v1ReadRecords reads every record, in Avro binary.
func v1ReadRecords(rd *trevni1.Reader, f func([]byte) error) error {
	rr, err := trevni1.NewRecordReader(rd)
	if err != nil {
		return err
	}
	var buf []byte
	for {
		buf, err = rr.ReadBinary(buf[:0])
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := f(buf); err != nil {
			return err
		}
	}
}

func v1Schema(out io.Writer, rd *trevni1.Reader, fs *flag.FlagSet) error {
	text, err := rd.AvroSchema()
	if err != nil {
		return err
	}
	b := []byte(text)
	if pretty, _ := flagString(fs, "pretty"); pretty == "true" {
		var buf bytes.Buffer
		if err := json.Indent(&buf, b, "", "  "); err != nil {
			return err
		}
		b = buf.Bytes()
	}
	_, err = out.Write(append(b, '\n'))
	return err
}

// v1Records writes the records as Avro JSON lines (tojson) or an Avro
// container file (toavro), honouring --offset and --limit.
func v1Records(e *env, name string, out io.Writer, rd *trevni1.Reader, fs *flag.FlagSet) error {
	rr, err := trevni1.NewRecordReader(rd)
	if err != nil {
		return err
	}
	offStr, _ := flagString(fs, "offset")
	limStr, _ := flagString(fs, "limit")
	offset, _ := strconv.ParseInt(offStr, 10, 64)
	limit, _ := strconv.ParseInt(limStr, 10, 64)
	if offset < 0 {
		return e.usagef("--offset must not be negative")
	}
	var (
		codec *goavro.Codec
		w     *ocf.Writer
	)
	if name == "tojson" {
		if codec, err = goavro.NewCodec(rr.SchemaText()); err != nil {
			return err
		}
	} else {
		c, _ := flagString(fs, "codec")
		if w, err = ocf.NewWriter(out, rr.SchemaText(), ocf.WriterOptions{Codec: c}); err != nil {
			return err
		}
	}
	pretty, _ := flagString(fs, "pretty")
	var (
		buf  []byte
		line []byte
	)
	for i := int64(0); limit < 0 || i < offset+limit; i++ {
		if i%1024 == 0 {
			if err := e.interrupted(); err != nil {
				return err
			}
		}
		buf, err = rr.ReadBinary(buf[:0])
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if i < offset {
			continue
		}
		if w != nil {
			if err := w.Append(buf); err != nil {
				return err
			}
			continue
		}
		v, _, err := codec.NativeFromBinary(buf)
		if err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
		if line, err = avrojson.Append(line[:0], rr.Schema(), v); err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
		if pretty == "true" {
			var ind bytes.Buffer
			json.Indent(&ind, line, "", "  ")
			line = append(line[:0], ind.Bytes()...)
		}
		if _, err := out.Write(append(line, '\n')); err != nil {
			return err
		}
	}
	if w != nil {
		return w.Close()
	}
	return nil
}

// v1FromAvro converts Avro container files of one schema to a version-1
// file: --codec none (or null), deflate (zlib, as Impala), gzip, bzip2 or
// snappy; --checksum null or crc32; --memory bounds the finished blocks
// held in memory before they spill to the output's private temporary
// directory.
func v1FromAvro(e *env, fs *flag.FlagSet, ins []string, out *output) error {
	if _, set := flagString(fs, "block-size"); set {
		return e.usagef("--block-size does not apply to version 1 (blocks are cut by Impala's rule on its 64 KiB buffer)")
	}
	opts := trevni1.WriterOptions{MaxBlockSize: e.limits.maxBlock}
	if m, _ := flagString(fs, "memory"); m != "" {
		budget, err := parseSize(m)
		if err != nil || budget <= 0 {
			return e.usagef("--memory %q: want a size such as 64MiB", m)
		}
		opts.MemoryBudget = budget
	}
	opts.Codec, _ = flagString(fs, "codec")
	if c, set := flagString(fs, "checksum"); set {
		switch c {
		case "null", "none":
		case "crc32", "crc-32":
			opts.Checksum = trevni1.ChecksumCRC32
		default:
			return e.usagef("unknown checksum %q (want null or crc32)", c)
		}
	}
	switch opts.Codec {
	case "null", "none", "deflate", "gzip", "bzip2", "snappy":
	default:
		return e.usagef("unknown codec %q for version 1 (want none, deflate, gzip, bzip2 or snappy)", opts.Codec)
	}
	var err error
	if opts.TempDir, err = out.TempDir(); err != nil {
		return err
	}
	var rw *trevni1.RecordWriter
	defer func() {
		if rw != nil {
			rw.Abort() // removes the spill file; a no-op after Close
		}
	}()
	var schemaText string
	for _, name := range ins {
		in, err := e.openInput(name)
		if err != nil {
			return err
		}
		err = func() error {
			defer in.Close()
			r, err := ocf.NewReader(&ctxReader{ctx: e.ctx, r: in})
			if err != nil {
				return err
			}
			if rw == nil {
				schemaText = r.Schema()
				if rw, err = trevni1.NewRecordWriter(out, schemaText, &opts); err != nil {
					return err
				}
			} else if r.Schema() != schemaText {
				return errors.New("its schema differs from the first file's")
			}
			for {
				count, data, err := r.NextBlock()
				if errors.Is(err, io.EOF) {
					return nil
				}
				if err != nil {
					return err
				}
				for range count {
					n, err := rw.WriteBinary(data)
					if err != nil {
						return err
					}
					data = data[n:]
				}
				if len(data) != 0 {
					return fmt.Errorf("%d bytes after the last record of a block", len(data))
				}
			}
		}()
		if err != nil {
			return fmt.Errorf("%s: %w", displayName(name, false), err)
		}
	}
	if err := rw.Close(); err != nil {
		return err
	}
	e.wrote(out, func() string {
		return fmt.Sprintf("%d rows, %d columns (version 1, codec %s)", rw.RowCount(), len(rw.Columns()), opts.Codec)
	})
	return nil
}

// v1ReaderSchema runs tojson or toavro with a reader schema: the file is
// converted to a version-2 file in the output's private temporary
// directory (removed at the end), which is read through the reader-schema
// resolution of package assemble, as a version-2 file would be.
func v1ReaderSchema(e *env, name string, out *output, rd *trevni1.Reader, fs *flag.FlagSet, schemaFile string) error {
	text, _, err := e.readSchemaFile(schemaFile)
	if err != nil {
		return err
	}
	var codec string
	if name == "toavro" {
		c, _ := flagString(fs, "codec")
		if codec, err = e.checkCodec(c, avroCodecs); err != nil {
			return err
		}
	}
	dir, err := out.TempDir()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "trevni1-v2-*")
	if err != nil {
		return err
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}()
	if _, err := convert.ToV2(e.ctx, tmp, rd, &shred.Options{WriterOptions: format.WriterOptions{TempDir: dir, MaxBlockSize: int(e.limits.maxBlock)}}); err != nil {
		return err
	}
	fi, err := tmp.Stat()
	if err != nil {
		return err
	}
	r2, err := format.NewReader(&countingReaderAt{ctx: e.ctx, ra: tmp}, fi.Size(), &format.ReaderOptions{ReadAhead: true})
	if err != nil {
		return err
	}
	ar, err := assemble.NewAvroReader(r2, &assemble.Options{ReaderSchema: text})
	if err != nil {
		return err
	}
	if err := flagRange(fs).apply(e, ar.RowCount(), ar.SeekRow, ar.StopAt); err != nil {
		return err
	}
	if name == "tojson" {
		pretty, _ := flagString(fs, "pretty")
		_, err = assemble.ToJSON(e.ctx, out, ar, &assemble.JSONOptions{Pretty: pretty == "true"})
	} else {
		_, err = assemble.ToContainer(e.ctx, out, ar, &assemble.ContainerOptions{Codec: codec})
	}
	return err
}
