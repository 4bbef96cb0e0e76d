package duckscan

/*
#include "calls.h"
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/shred"
)

// The copy function's columnar path: each chunk's vectors are written
// straight into the Trevni columns, a column at a time (a batch of the
// column writer, format.Writer.StartRows), following the layout of the
// schema the encoders' types make (shred.AvroWriter.Columnar). Each
// column gets the lengths and values the shredder would write for the
// records the encoders make, in the same order, so the file is the same
// byte for byte (TestCopyToColumnsAsRecords); there is no Avro binary in
// between. The encoders still bind the vectors, tell NULLs and encode the
// values of the less common fixed-size types (decimals, UUIDs,
// intervals...), whose Avro encoding is then written to the column as
// the shredder would decode it. A MAP of VARCHAR keys has its entries
// ordered by the shredder's own rule (shred.AvroWriter.OrderMapEntries:
// sorted by key, the last of equal keys kept), so that its keys and values
// come in the order the records would have them.

// A colWriter writes the value of a row of a DuckDB vector, NULL or not,
// into the columns of its layout node; its encoder binds the vector.
type colWriter interface {
	write(w *format.Writer, row int) error
}

// A valueWriter writes a value that is not NULL.
type valueWriter interface {
	put(w *format.Writer, row int) error
}

// copyColumns returns the column writers of a COPY's columns, whose
// encoders are encs and layout nodes the fields of root, the layout of
// sh (shred.AvroWriter.Columnar).
func copyColumns(encs []encoder, root *layout.Node, sh *shred.AvroWriter) ([]colWriter, error) {
	b := colBuilder{order: sh.OrderMapEntries}
	return b.columns(encs, root)
}

// A colBuilder makes the column writers of a COPY; order is the
// shredder's order of a map's entries.
type colBuilder struct {
	order func([]shred.MapEntry) []shred.MapEntry
}

// columns returns the column writers of encs, the fields of root.
func (b colBuilder) columns(encs []encoder, root *layout.Node) ([]colWriter, error) {
	if root.Kind != schema.Record || len(root.Fields) != len(encs) {
		return nil, fmt.Errorf("the layout's root has %d fields for %d columns", len(root.Fields), len(encs))
	}
	cols := make([]colWriter, len(encs))
	for i, e := range encs {
		c, err := b.nullableWriter(e, root.Fields[i])
		if err != nil {
			return nil, err
		}
		cols[i] = c
	}
	return cols, nil
}

// nullableWriter returns the writer of the values of e as values of n,
// the nullable type ["null", T] (putValue), a DuckDB UNION's union, or
// null.
func (b colBuilder) nullableWriter(e encoder, n *layout.Node) (colWriter, error) {
	switch e := e.(type) {
	case nullEnc:
		if n.Kind != schema.Null {
			return nil, fmt.Errorf("a NULL column laid out as %s", n.Kind)
		}
		return noValues{}, nil
	case *unionEnc:
		if n.Kind != schema.Union || len(n.Branches) != len(e.members)+1 {
			return nil, fmt.Errorf("a UNION of %d members laid out as %s", len(e.members), n.Kind)
		}
		u := &unionWriter{e: e, node: n, members: make([]valueWriter, len(e.members))}
		for i, m := range e.members {
			v, err := b.valueWriterOf(m, n.Branches[i+1])
			if err != nil {
				return nil, err
			}
			u.members[i] = v
		}
		return u, nil
	}
	if n.Kind != schema.Union || len(n.Branches) != 2 || n.Branches[0] != nil || n.Branches[1] == nil {
		return nil, fmt.Errorf("a nullable value laid out as %s", n.Kind)
	}
	v, err := b.valueWriterOf(e, n.Branches[1])
	if err != nil {
		return nil, err
	}
	return &optionWriter{e: e, col: n.BranchCols[1], v: v}, nil
}

// valueWriterOf returns the writer of the values of e, not NULL, as
// values of n.
func (b colBuilder) valueWriterOf(e encoder, n *layout.Node) (valueWriter, error) {
	simple := func() error {
		if n.Col < 0 || n.Kind == schema.Record || n.Kind == schema.Array || n.Kind == schema.Map || n.Kind == schema.Union {
			return fmt.Errorf("a simple value laid out as %s", n.Kind)
		}
		return nil
	}
	switch e := e.(type) {
	case *fixedEnc:
		return &fixedWriter{e: e, col: n.Col, kind: n.Kind}, simple()
	case *stringEnc:
		return &stringWriter{e: e, col: n.Col, text: n.Kind == schema.String}, simple()
	case *enumEnc:
		return &enumWriter{e: e, col: n.Col}, simple()
	case *mapEnc:
		if n.Kind != schema.Map {
			return nil, fmt.Errorf("a MAP laid out as %s", n.Kind)
		}
		value, err := b.nullableWriter(e.value, n.Items)
		if err != nil {
			return nil, err
		}
		return &mapWriter{e: e, col: n.Col, keyCol: n.KeyCol, value: value, order: b.order}, nil
	case *listEnc:
		if n.Kind != schema.Array {
			return nil, fmt.Errorf("a LIST laid out as %s", n.Kind)
		}
		item, err := b.nullableWriter(e.item, n.Items)
		if err != nil {
			return nil, err
		}
		return &listWriter{e: e, col: n.Col, item: item}, nil
	case *structEnc:
		if n.Kind != schema.Record || len(n.Fields) != len(e.fields) {
			return nil, fmt.Errorf("a STRUCT of %d fields laid out as %s", len(e.fields), n.Kind)
		}
		s := &structWriter{fields: make([]colWriter, len(e.fields))}
		for i, f := range e.fields {
			c, err := b.nullableWriter(f, n.Fields[i])
			if err != nil {
				return nil, err
			}
			s.fields[i] = c
		}
		return s, nil
	}
	return nil, fmt.Errorf("no column writer for the vectors of %T", e)
}

// noValues writes DuckDB's NULL type: Avro's null, which has no values.
type noValues struct{}

func (noValues) write(*format.Writer, int) error { return nil }

// optionWriter writes a value of ["null", T]: its branch's length (0 for
// NULL, else 1) in the branch column, then the value.
type optionWriter struct {
	e   encoder
	col int
	v   valueWriter
}

func (o *optionWriter) write(w *format.Writer, row int) error {
	if !o.e.valid(row) {
		w.WriteLength(o.col, 0)
		return nil
	}
	w.WriteLength(o.col, 1)
	return o.v.put(w, row)
}

// unionWriter writes a DuckDB UNION as the union ["null", members...]:
// a length in every member's branch column, 1 in the value's, then the
// value.
type unionWriter struct {
	e       *unionEnc
	node    *layout.Node
	members []valueWriter
}

func (u *unionWriter) write(w *format.Writer, row int) error {
	b := 0
	if u.e.valid(row) {
		tag := int(*(*uint8)(unsafe.Add(u.e.tags, row)))
		if tag >= len(u.members) {
			return fmt.Errorf("UNION tag %d of %d members", tag, len(u.members))
		}
		if u.e.members[tag].valid(row) {
			b = tag + 1
		}
	}
	for i, col := range u.node.BranchCols {
		if col >= 0 {
			w.WriteLength(col, b2i(i == b))
		}
	}
	if b == 0 {
		return nil
	}
	return u.members[b-1].put(w, row)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// fixedWriter writes the values of a fixedEnc to column col, of a node
// of the given kind: the common types straight from the vector, the
// others as the shredder decodes their Avro encoding (put).
type fixedWriter struct {
	e       *fixedEnc
	col     int
	kind    schema.Kind
	scratch []byte
}

func (f *fixedWriter) put(w *format.Writer, row int) error {
	p := unsafe.Add(f.e.data, row*f.e.size)
	switch f.e.id {
	case typeBoolean:
		w.WriteBool(f.col, *(*uint8)(p) != 0)
	case typeTinyint:
		w.WriteInt(f.col, int32(*(*int8)(p)))
	case typeSmallint:
		w.WriteInt(f.col, int32(*(*int16)(p)))
	case typeInteger, typeDate:
		w.WriteInt(f.col, *(*int32)(p))
	case typeUTinyint:
		w.WriteInt(f.col, int32(*(*uint8)(p)))
	case typeUSmallint:
		w.WriteInt(f.col, int32(*(*uint16)(p)))
	case typeUInteger:
		w.WriteLong(f.col, int64(*(*uint32)(p)))
	case typeBigint, typeTime, typeTimestamp, typeTimestampMS, typeTimestampNS, typeTimestampTZ:
		w.WriteLong(f.col, *(*int64)(p))
	case typeFloat:
		w.WriteFloat(f.col, *(*float32)(p))
	case typeDouble:
		w.WriteDouble(f.col, *(*float64)(p))
	default:
		return f.putEncoded(w, p)
	}
	return nil
}

// putEncoded writes the value at p through its Avro encoding, as the
// shredder decodes a value of the node's kind.
func (f *fixedWriter) putEncoded(w *format.Writer, p unsafe.Pointer) error {
	b, err := f.e.put(f.scratch[:0], p)
	f.scratch = b
	if err != nil {
		return err
	}
	switch f.kind {
	case schema.Boolean:
		w.WriteBool(f.col, b[0] == 1)
	case schema.Int, schema.Long:
		u, n := binary.Uvarint(b)
		if n != len(b) {
			return fmt.Errorf("a value of %d bytes encoded as a %s", len(b), f.kind)
		}
		v := int64(u>>1) ^ -int64(u&1)
		if f.kind == schema.Long {
			w.WriteLong(f.col, v)
		} else if v < math.MinInt32 || v > math.MaxInt32 {
			return fmt.Errorf("int %d out of range", v)
		} else {
			w.WriteInt(f.col, int32(v))
		}
	case schema.Float:
		w.WriteFloat(f.col, math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case schema.Double:
		w.WriteDouble(f.col, math.Float64frombits(binary.LittleEndian.Uint64(b)))
	case schema.String, schema.Bytes:
		u, n := binary.Uvarint(b)
		if n <= 0 || u>>1 != uint64(len(b)-n) {
			return fmt.Errorf("a value of %d bytes encoded as %s", len(b), f.kind)
		}
		if f.kind == schema.String {
			return writeText(w, f.col, b[n:])
		}
		w.WriteBytes(f.col, b[n:])
	case schema.Fixed:
		w.WriteBytes(f.col, b)
	default:
		return fmt.Errorf("a fixed-size value laid out as %s", f.kind)
	}
	return nil
}

// writeText writes a string, which the column writer refuses (and the
// COPY with it) unless it is UTF-8.
func writeText(w *format.Writer, col int, b []byte) error {
	if w.WriteStringBytes(col, b); w.Err() != nil {
		return fmt.Errorf("%w (a VARCHAR that is not UTF-8)", w.Err())
	}
	return nil
}

// stringWriter writes VARCHAR (text) and BLOB values.
type stringWriter struct {
	e    *stringEnc
	col  int
	text bool
}

func (s *stringWriter) put(w *format.Writer, row int) error {
	b := stringT(unsafe.Add(s.e.data, row*16))
	if s.text {
		return writeText(w, s.col, b)
	}
	w.WriteBytes(s.col, b)
	return nil
}

// enumWriter writes an ENUM as an Avro enum's index, or as its text.
type enumWriter struct {
	e   *enumEnc
	col int
}

func (e *enumWriter) put(w *format.Writer, row int) error {
	i, err := e.e.index(row)
	if err != nil {
		return err
	}
	if e.e.asEnum {
		w.WriteInt(e.col, int32(i))
		return nil
	}
	return writeText(w, e.col, unsafe.Slice(unsafe.StringData(e.e.symbols[i]), len(e.e.symbols[i])))
}

// listWriter writes a LIST or ARRAY: its length, then its items.
type listWriter struct {
	e    *listEnc
	col  int
	item colWriter
}

func (l *listWriter) put(w *format.Writer, row int) error {
	off, n := l.e.entry(row)
	if n > math.MaxInt32 {
		return fmt.Errorf("a LIST of %d items: more than a Trevni array may hold (%d)", n, math.MaxInt32)
	}
	w.WriteLength(l.col, n)
	for j := range n {
		if err := l.item.write(w, off+j); err != nil {
			return err
		}
	}
	return nil
}

// mapWriter writes a MAP of VARCHAR keys as an Avro map: its length,
// its keys, then its values, its entries in the shredder's order (order,
// shred.AvroWriter.OrderMapEntries), listed in scratch, which the writer
// keeps for the next row: nothing is allocated once it has grown. A map
// writer is reached again only through its own values, which a DuckDB
// type cannot hold, so a row's entries are never overwritten before its
// values are written.
type mapWriter struct {
	e           *mapEnc
	col, keyCol int
	value       colWriter
	order       func([]shred.MapEntry) []shred.MapEntry
	scratch     []shred.MapEntry
}

func (m *mapWriter) put(w *format.Writer, row int) error {
	off, n := m.e.entry(row)
	if n > math.MaxInt32 {
		return fmt.Errorf("a MAP of %d entries: more than a Trevni map may hold (%d)", n, math.MaxInt32)
	}
	ents := m.scratch[:0]
	for j := range n {
		ents = append(ents, shred.MapEntry{Key: stringT(unsafe.Add(m.e.keys.data, (off+j)*16)), Value: off + j})
	}
	m.scratch = ents
	ents = m.order(ents)
	w.WriteLength(m.col, len(ents))
	for _, e := range ents {
		if err := writeText(w, m.keyCol, e.Key); err != nil {
			return fmt.Errorf("MAP key %q: %w", e.Key, err)
		}
	}
	for _, e := range ents {
		if err := m.value.write(w, e.Value); err != nil {
			return fmt.Errorf("MAP key %q: %w", e.Key, err)
		}
	}
	return nil
}

// structWriter writes a STRUCT's fields.
type structWriter struct {
	fields []colWriter
}

func (s *structWriter) put(w *format.Writer, row int) error {
	for _, f := range s.fields {
		if err := f.write(w, row); err != nil {
			return err
		}
	}
	return nil
}

// writeChunkColumns writes the rows of a chunk, whose vectors the
// encoders are bound to, a column at a time: a batch of rows rows of fw,
// each column's values those of the COPY's column of the same index
// (root's field). first is the chunk's first record, for errors.
func writeChunkColumns(fw *format.Writer, root *layout.Node, cols []colWriter, names []string, rows int, first int64) error {
	if err := fw.StartRows(rows); err != nil {
		return fmt.Errorf("record %d: %w", first, err)
	}
	for i, c := range cols {
		n := root.Fields[i]
		for r := range rows {
			for col := n.First; col < n.End; col++ {
				fw.BatchRow(col, r)
			}
			err := c.write(fw, r)
			if err == nil {
				err = fw.Err()
			}
			if err != nil {
				return fmt.Errorf("record %d, column %s: %w", first+int64(r), names[i], err)
			}
		}
	}
	if err := fw.EndRows(); err != nil {
		return fmt.Errorf("records %d to %d: %w", first, first+int64(rows)-1, err)
	}
	return nil
}
