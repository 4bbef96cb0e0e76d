package main

// Trevni version 1 (Impala's variant, package trevni1) in the tool: what
// is particular to the format, reached through the front door's
// File.Trevni1 (meta, dump, validate), and fromavro --version 1, which
// writes it. Records of version-1 files are read by the front door as
// those of any other format.

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/internal/ocf"
	"github.com/trevni-go/trevni/trevni1"
)

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

// v1Meta describes a version-1 file's header as compact JSON (meta).
func v1Meta(rd *trevni1.Reader, blocks bool) []byte {
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
		if blocks {
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
	return append(b, "]}"...)
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
func v1Dump(e *env, out io.Writer, rd *trevni1.Reader, limit int64) (int64, error) {
	n := rd.NumColumns()
	crs := make([]*trevni1.ColumnReader, n)
	has := make([]bool, n) // crs[i] holds the first entry of the next row
	for i := range crs {
		crs[i] = rd.Values(i)
	}
	var b []byte
	row := int64(0)
	for ; row < rd.RowCount() && (limit < 0 || row < limit); row++ {
		if row%1024 == 0 {
			if err := e.interrupted(); err != nil {
				return row, err
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
					return row, v1EOF(err, i, row)
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
					return row, err
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
			return row, err
		}
	}
	return row, nil
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

// v1FromAvro converts Avro container files of one schema to a version-1
// file: --codec none (or null), deflate (zlib, as Impala), gzip, bzip2 or
// snappy; --checksum null or crc32; --memory bounds the finished blocks
// held in memory before they spill to the output's private temporary
// directory.
func v1FromAvro(e *env, tf *trevniFlags, blockSizeSet, checksumSet bool, ins []string, out *output) error {
	if blockSizeSet {
		return e.usagef("--block-size does not apply to version 1 (blocks are cut by Impala's rule on its 64 KiB buffer)")
	}
	opts := trevni1.WriterOptions{MaxBlockSize: e.limits.maxBlock}
	if m := tf.memory; m != "" {
		budget, err := parseSize(m)
		if err != nil || budget <= 0 {
			return e.usagef("--memory %q: want a size such as 64MiB", m)
		}
		opts.MemoryBudget = budget
	}
	opts.Codec = tf.codec
	if c := tf.checksum; checksumSet {
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
			r, err := ocf.NewReader(frontdoor.ContextReader(e.ctx, in))
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
