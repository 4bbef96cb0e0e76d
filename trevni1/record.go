package trevni1

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/trevni-go/trevni/internal/avrobin"
	"github.com/trevni-go/trevni/internal/utf8check"
	"github.com/trevni-go/trevni/schema"
)

// RecordWriter writes Avro records, in Avro's binary encoding, to a
// version-1 file laid out as the package documentation describes. The
// schema is stored as avro.schema.
type RecordWriter struct {
	w    *Writer
	plan *plan
	text string
	rows int64
	// decoding state
	data  []byte
	pos   int
	emit  bool
	items int64 // array and map items in the record so far
}

// NewRecordWriter returns a writer of records of the Avro record schema
// schemaText to out. A schema version 1 cannot express is an error
// naming the field.
func NewRecordWriter(out io.Writer, schemaText string, opts *WriterOptions) (*RecordWriter, error) {
	s, err := schema.Parse(schemaText)
	if err != nil {
		return nil, err
	}
	p, err := newPlan(s)
	if err != nil {
		return nil, err
	}
	var o WriterOptions
	if opts != nil {
		o = *opts
	}
	o.Meta = Meta{}
	if opts != nil {
		for i, k := range opts.Meta.Keys {
			if k != KeyAvroSchema {
				o.Meta.Add(k, opts.Meta.Values[i])
			}
		}
	}
	o.Meta.Add(KeyAvroSchema, []byte(schemaText))
	w, err := NewWriter(out, p.cols, &o)
	if err != nil {
		return nil, err
	}
	return &RecordWriter{w: w, plan: p, text: schemaText}, nil
}

// Columns returns the columns the schema lays out.
func (rw *RecordWriter) Columns() []ColumnSpec { return rw.plan.cols }

// RowCount returns the records written so far.
func (rw *RecordWriter) RowCount() int64 { return rw.rows }

// WriteBinary writes the record at the start of data and returns its
// length. A record that does not decode, or holds a value its column cannot
// (an enum ordinal out of range, a fixed of the wrong size, a value out of
// a fixedN range), is an error naming the record and field, and is not
// written: writing may go on.
func (rw *RecordWriter) WriteBinary(data []byte) (int, error) {
	if rw.w.err != nil {
		return 0, rw.w.err
	}
	rw.data, rw.pos, rw.emit, rw.items = data, 0, false, 0
	if err := rw.shred(rw.plan.root, 0, 0); err != nil {
		var se *schema.Error
		if errors.As(err, &se) {
			se.Record = rw.rows
		}
		return 0, err
	}
	n := rw.pos
	rw.pos, rw.emit, rw.items = 0, true, 0
	if err := rw.shred(rw.plan.root, 0, 0); err != nil {
		return 0, err // cannot happen: the first pass checked everything
	}
	if err := rw.w.EndRow(); err != nil {
		return 0, err
	}
	rw.rows++
	return n, nil
}

// Close writes the file, and removes the spill file whatever the outcome.
func (rw *RecordWriter) Close() error { return rw.w.Close() }

// Abort discards the records written and removes the spill file; nothing
// has reached the output.
func (rw *RecordWriter) Abort() { rw.w.Abort() }

// maxItems bounds the array and map items of one record, since items of
// null may take no bytes.
const maxItems = 1 << 24

// zeroSize reports whether n's values may take no bytes.
func zeroSize(n *node) bool {
	switch n.kind {
	case nLeaf:
		return n.typ == Null
	case nRecord:
		for _, c := range n.children {
			if !zeroSize(c) {
				return false
			}
		}
		return true
	}
	return false
}

func (rw *RecordWriter) valueErr(n *node, format string, args ...any) error {
	path := n.path
	return &schema.Error{Record: rw.rows, Path: path, Err: fmt.Errorf(format, args...)}
}

// binErr returns the error of avrobin's error code code, met at rw.pos in
// the value of n.
func (rw *RecordWriter) binErr(n *node, code int) error {
	return rw.valueErr(n, "byte %d of the record: %w", rw.pos, avrobin.ParseError(code))
}

func (rw *RecordWriter) varint(n *node) (int64, error) {
	v, k := avrobin.ConsumeLong(rw.data[rw.pos:])
	if k < 0 {
		return 0, rw.binErr(n, k)
	}
	rw.pos += k
	return v, nil
}

func (rw *RecordWriter) take(n *node, k int) ([]byte, error) {
	if k < 0 || k > len(rw.data)-rw.pos {
		return nil, rw.valueErr(n, "length %d at byte %d of the record, %d bytes left", k, rw.pos, len(rw.data)-rw.pos)
	}
	b := rw.data[rw.pos : rw.pos+k]
	rw.pos += k
	return b, nil
}

// nulls adds an entry at definition level def to every column under n.
func (rw *RecordWriter) nulls(n *node, rep, def int) {
	if !rw.emit {
		return
	}
	for c := n.lo; c < n.hi; c++ {
		rw.w.Null(c, rep, def)
	}
}

// shred decodes the value of n at rw.pos; in the second pass it adds the
// entries, rep being the repetition level of the first entry of each column.
func (rw *RecordWriter) shred(n *node, rep, def int) error {
	s := n.s
	switch n.kind {
	case nRecord:
		for _, c := range n.children {
			if err := rw.shred(c, rep, def); err != nil {
				return err
			}
		}
		return nil
	case nUnion1:
		i, err := rw.varint(n)
		if err != nil {
			return err
		}
		if i != 0 {
			return rw.valueErr(n, "union index %d of a one-branch union", i)
		}
		return rw.shred(n.children[0], rep, def)
	case nOptional:
		i, err := rw.varint(n)
		if err != nil {
			return err
		}
		switch i {
		case int64(n.nullIdx):
			rw.nulls(n, rep, def)
			return nil
		case int64(n.valIdx):
			return rw.shred(n.children[0], rep, n.def)
		}
		return rw.valueErr(n, "union index %d out of range", i)
	case nArray, nMap:
		first := true
		for {
			count, k := avrobin.ConsumeBlockCount(rw.data[rw.pos:])
			if k < 0 {
				return rw.binErr(n, k)
			}
			rw.pos += k
			if count == 0 {
				break
			}
			if count > int64(len(rw.data)-rw.pos) && !zeroSize(n.children[0]) {
				return rw.valueErr(n, "%d items cannot fit in %d bytes", count, len(rw.data)-rw.pos)
			}
			if rw.items += count; rw.items > maxItems {
				return rw.valueErr(n, "more than %d array or map items in one record", maxItems)
			}
			for range count {
				r := n.rep
				if first {
					r, first = rep, false
				}
				if n.kind == nMap {
					if err := rw.shred(n.children[0], r, n.def); err != nil {
						return err
					}
					if err := rw.shred(n.children[1], r, n.def); err != nil {
						return err
					}
				} else if err := rw.shred(n.children[0], r, n.def); err != nil {
					return err
				}
			}
		}
		if first {
			rw.nulls(n, rep, def)
		}
		return nil
	}
	// A leaf.
	col := n.lo
	switch n.typ {
	case Null:
		if rw.emit {
			rw.w.NullValue(col, rep)
		}
	case Boolean:
		b, err := rw.take(n, 1)
		if err != nil {
			return err
		}
		if b[0] > 1 {
			return rw.valueErr(n, "boolean byte %d", b[0])
		}
		if rw.emit {
			rw.w.Bool(col, rep, b[0] == 1)
		}
	case Fixed8, Fixed16, Int, Long, Fixed32, Fixed64:
		v, err := rw.varint(n)
		if err != nil {
			return err
		}
		if lo, hi := n.typ.intRange(); v < lo || v > hi {
			return rw.valueErr(n, "%d does not fit a %s column", v, n.typ)
		}
		if s.Kind == schema.Enum && (v < 0 || v >= int64(len(s.Symbols))) {
			return rw.valueErr(n, "enum ordinal %d out of range", v)
		}
		if rw.emit {
			rw.w.Int(col, rep, v)
		}
	case Float:
		v, k := avrobin.ConsumeFloat(rw.data[rw.pos:])
		if k < 0 {
			return rw.binErr(n, k)
		}
		rw.pos += k
		if rw.emit {
			rw.w.Float32(col, rep, v)
		}
	case Double:
		v, k := avrobin.ConsumeDouble(rw.data[rw.pos:])
		if k < 0 {
			return rw.binErr(n, k)
		}
		rw.pos += k
		if rw.emit {
			rw.w.Float64(col, rep, v)
		}
	case String, Bytes:
		var b []byte
		if s.Kind == schema.Fixed {
			var err error
			if b, err = rw.take(n, s.Size); err != nil {
				return err
			}
		} else {
			var k int
			if b, k = avrobin.ConsumeBytes(rw.data[rw.pos:]); k < 0 {
				return rw.binErr(n, k)
			}
			rw.pos += k
		}
		if s.Kind == schema.String && !utf8check.Valid(b) {
			return rw.valueErr(n, "string is not valid UTF-8")
		}
		if rw.emit {
			rw.w.Bytes(col, rep, b)
		}
	case Timestamp:
		nanos, err := rw.varint(n)
		if err != nil {
			return err
		}
		day, err := rw.varint(n)
		if err != nil {
			return err
		}
		if day < math.MinInt32 || day > math.MaxInt32 {
			return rw.valueErr(n, "julianDay %d is not an int", day)
		}
		if rw.emit {
			rw.w.Timestamp(col, rep, TimestampValue{NanosOfDay: nanos, JulianDay: uint32(int32(day))})
		}
	}
	return nil
}

// RecordReader reads a version-1 file's rows as Avro records of
// AvroSchema, in Avro's binary encoding.
type RecordReader struct {
	rd   *Reader
	plan *plan
	s    *schema.Schema
	text string
	cur  []*ColumnReader
	eof  []bool
	row  int64
}

// NewRecordReader returns a reader of rd's records. The columns must be
// those the schema lays out, in order, with the same types and levels.
func NewRecordReader(rd *Reader) (*RecordReader, error) {
	text, err := rd.AvroSchema()
	if err != nil {
		return nil, err
	}
	s, err := schema.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("trevni1: %s: %w", KeyAvroSchema, err)
	}
	p, err := newPlan(s)
	if err != nil {
		return nil, fmt.Errorf("trevni1: %s: %w", KeyAvroSchema, err)
	}
	if len(p.cols) != len(rd.cols) {
		return nil, fmt.Errorf("%w: %s lays out %d columns, the file has %d", ErrFormat, KeyAvroSchema, len(p.cols), len(rd.cols))
	}
	for i, want := range p.cols {
		got := &rd.cols[i]
		if got.Type != want.Type || got.MaxDef != want.MaxDef || got.MaxRep != want.MaxRep {
			return nil, rd.colErr(i, -1, -1, rd.starts[i], fmt.Errorf("%w: column is %s with levels %d/%d; %s lays out field %s as %s with %d/%d",
				ErrFormat, got.Type, got.MaxDef, got.MaxRep, KeyAvroSchema, want.Name, want.Type, want.MaxDef, want.MaxRep))
		}
	}
	rr := &RecordReader{rd: rd, plan: p, s: s, text: text, eof: make([]bool, len(rd.cols))}
	for i := range rd.cols {
		rr.cur = append(rr.cur, rd.Values(i))
	}
	return rr, nil
}

// Schema returns the records' schema.
func (rr *RecordReader) Schema() *schema.Schema { return rr.s }

// SchemaText returns the records' schema as JSON text.
func (rr *RecordReader) SchemaText() string { return rr.text }

// RowCount returns the number of records in the file.
func (rr *RecordReader) RowCount() int64 { return rr.rd.rows }

func (rr *RecordReader) advance(c int) error {
	err := rr.cur[c].Next()
	if errors.Is(err, io.EOF) {
		rr.eof[c] = true
		return nil
	}
	return err
}

func (rr *RecordReader) bad(c int, format string, args ...any) error {
	cr := rr.cur[c]
	return cr.fail(fmt.Errorf("%w: %s", ErrFormat, fmt.Sprintf(format, args...)))
}

// ReadBinary appends the next record's Avro binary encoding to dst. It
// returns io.EOF after the last record.
func (rr *RecordReader) ReadBinary(dst []byte) ([]byte, error) {
	if rr.row >= rr.rd.rows {
		return dst, io.EOF
	}
	if rr.row == 0 {
		for c := range rr.cur {
			if err := rr.advance(c); err != nil {
				return dst, err
			}
		}
	}
	dst, err := rr.assemble(dst, rr.plan.root, 0, 0)
	if err != nil {
		return dst, err
	}
	rr.row++
	if rr.row == rr.rd.rows {
		for c := range rr.cur {
			if !rr.eof[c] {
				return dst, rr.bad(c, "entries after the file's last row")
			}
		}
	}
	return dst, nil
}

// check verifies that column c's current entry can belong where the
// assembly is: repetition level rep, definition level at least minDef.
func (rr *RecordReader) check(c, rep, minDef int) error {
	if rr.eof[c] {
		return rr.bad(c, "column ends before row %d", rr.row)
	}
	cr := rr.cur[c]
	if cr.Rep != rep || cr.Def < minDef {
		return rr.bad(c, "entry with repetition %d, definition %d where row %d needs repetition %d, definition at least %d", cr.Rep, cr.Def, rr.row, rep, minDef)
	}
	return nil
}

// skip consumes the one entry each column under n has for an absent value
// (definition level below n.def).
func (rr *RecordReader) skip(n *node, rep, minDef int) error {
	for c := n.lo; c < n.hi; c++ {
		if err := rr.check(c, rep, minDef); err != nil {
			return err
		}
		if rr.cur[c].Def >= n.def {
			return rr.bad(c, "definition %d where the value of %s is absent", rr.cur[c].Def, n.path)
		}
		if err := rr.advance(c); err != nil {
			return err
		}
	}
	return nil
}

func (rr *RecordReader) assemble(dst []byte, n *node, rep, minDef int) ([]byte, error) {
	switch n.kind {
	case nRecord:
		var err error
		for _, c := range n.children {
			if dst, err = rr.assemble(dst, c, rep, minDef); err != nil {
				return dst, err
			}
		}
		return dst, nil
	case nUnion1:
		return rr.assemble(append(dst, 0), n.children[0], rep, minDef)
	case nOptional:
		if err := rr.check(n.lo, rep, minDef); err != nil {
			return dst, err
		}
		if rr.cur[n.lo].Def < n.def {
			return avrobin.AppendLong(dst, int64(n.nullIdx)), rr.skip(n, rep, minDef)
		}
		return rr.assemble(avrobin.AppendLong(dst, int64(n.valIdx)), n.children[0], rep, n.def)
	case nArray, nMap:
		if err := rr.check(n.lo, rep, minDef); err != nil {
			return dst, err
		}
		if rr.cur[n.lo].Def < n.def {
			return append(dst, 0), rr.skip(n, rep, minDef)
		}
		start := len(dst)
		var count int64
		r := rep
		for {
			var err error
			for _, c := range n.children {
				if dst, err = rr.assemble(dst, c, r, n.def); err != nil {
					return dst, err
				}
			}
			count++
			r = n.rep
			if rr.eof[n.lo] || rr.cur[n.lo].Rep != n.rep {
				break
			}
		}
		// Prefix the items with their count, and end the array.
		var cb [10]byte
		hdr := avrobin.AppendLong(cb[:0], count)
		dst = append(dst, hdr...)
		copy(dst[start+len(hdr):], dst[start:len(dst)-len(hdr)])
		copy(dst[start:], hdr)
		return append(dst, 0), nil
	}
	c := n.lo
	if err := rr.check(c, rep, minDef); err != nil {
		return dst, err
	}
	cr := rr.cur[c]
	if cr.Def != n.def {
		return dst, rr.bad(c, "definition %d where %s needs a value (definition %d)", cr.Def, n.path, n.def)
	}
	s := n.s
	switch n.typ {
	case Null:
	case Boolean:
		dst = append(dst, byte(cr.Int64()))
	case Fixed8, Fixed16, Int, Long, Fixed32, Fixed64:
		v := cr.Int64()
		if s.Kind == schema.Enum && (v < 0 || v >= int64(len(s.Symbols))) {
			return dst, rr.bad(c, "enum ordinal %d out of range for %s", v, n.path)
		}
		dst = avrobin.AppendLong(dst, v)
	case Float:
		dst = binary.LittleEndian.AppendUint32(dst, cr.Float32Bits())
	case Double:
		dst = binary.LittleEndian.AppendUint64(dst, cr.Float64Bits())
	case String, Bytes:
		b := cr.Bytes()
		if s.Kind == schema.Fixed {
			if len(b) != s.Size {
				return dst, rr.bad(c, "%d bytes for %s, a fixed of size %d", len(b), n.path, s.Size)
			}
		} else {
			dst = avrobin.AppendLong(dst, int64(len(b)))
		}
		dst = append(dst, b...)
	case Timestamp:
		ts := cr.Timestamp()
		dst = avrobin.AppendLong(avrobin.AppendLong(dst, ts.NanosOfDay), int64(int32(ts.JulianDay)))
	}
	return dst, rr.advance(c)
}
