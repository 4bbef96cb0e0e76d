package assemble

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/fieldpath"
	"github.com/trevni-go/trevni/internal/jsontext"
	"github.com/trevni-go/trevni/internal/shortval"
	"github.com/trevni-go/trevni/internal/utf8check"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/typemap"
)

// sink is what the one interpreter of read plans, walk, does with the
// values it reads. Every decision about the data (which union branch,
// which enum symbol, how many elements, whether a string is UTF-8, how a
// value is promoted, where a default goes) is taken once, in walk; the
// sink only decides how the result is written out.
type sink uint8

const (
	toValue  sink = iota // goavro native values, returned
	toBinary             // Avro's binary encoding, appended
	toJSON               // Avro's JSON encoding, appended
	toCheck              // nothing: the data is only checked (Validate)
	toPlain              // plain JSON, appended
)

// text reports whether the sink writes JSON text, Avro's or plain: the
// two share records, arrays and maps.
func (sk sink) text() bool { return sk == toJSON || sk == toPlain }

// jsonEntry locates one map entry in a scratch buffer: its raw key at
// [key, text), then its encoded text ("key":value) at [text, end).
type jsonEntry struct{ key, text, end int }

// record reads the next record to sink sk: it returns the value (toValue)
// or appends the record's encoding to dst. Errors are *schema.Error of the
// record's absolute number, with the field path.
func (ar *AvroReader) record(dst []byte, sk sink) ([]byte, any, error) {
	if err := ar.nextRecord(); err != nil {
		return dst, nil, err
	}
	ar.val = nil
	out, err := ar.walk(dst, ar.root, sk, 0)
	v := ar.val
	ar.val = nil // the reader keeps no reference to the caller's record
	if err == nil && sk != toValue && ar.spent+int64(len(out)-len(dst)) > ar.maxBytes {
		// An encoding is charged its bytes once, whole: while it was
		// built, only its arrays' and maps' slots were.
		err = ar.overBudget()
	}
	if err != nil {
		return dst, nil, fieldpath.Record(err, ar.row)
	}
	ar.returnedRecord()
	return out, v, nil
}

// nextRecord starts the next record to return, the bookkeeping every
// record read shares (record, ProtoReader.ReadWire): io.EOF once the limit
// (SetLimit) is reached or at the end (StopAt); with a filter, the
// columns move to the next record that satisfies it. The caller then reads
// the record's values from the columns and calls returnedRecord.
func (ar *AvroReader) nextRecord() error {
	if ar.limit == 0 {
		return io.EOF
	}
	if ar.filter != nil {
		if err := ar.nextMatch(); err != nil {
			return err
		}
	}
	return ar.startRow()
}

// returnedRecord counts the record nextRecord started as read and
// returned: the reader moves past it, and the limit counts it.
func (ar *AvroReader) returnedRecord() {
	ar.row++
	ar.returned++
	if ar.limit > 0 {
		ar.limit--
	}
}

// errTooManyElements reports a record beyond the reader's bound on array
// and map elements.
var errTooManyElements = errors.New("record has too many array and map elements")

// length reads an array or map length, bounding the elements per record,
// and charges each element's slot to the record's byte budget before it is
// built, whatever the output.
func (ar *AvroReader) length(c *format.ColumnReader) (int, error) {
	n, err := c.NextLength()
	if err != nil {
		return 0, err
	}
	if ar.elems += n; ar.elems > ar.maxElems {
		return 0, fmt.Errorf("%w: %w: more than %d", format.ErrFormat, errTooManyElements, ar.maxElems)
	}
	return n, ar.charge(valueCost * int64(n))
}

// The sizes charged to a record's byte budget, whatever the output: a
// value's slot (an interface in the native form), and a record's map.
const (
	valueCost  = 16
	recordCost = 64
)

// charge adds n bytes to the size of the record being assembled, failing
// once it passes the reader's budget.
// It is small enough to inline: it runs for every value of variable size.
func (ar *AvroReader) charge(n int64) error {
	if ar.spent += n; ar.spent > ar.maxBytes {
		return ar.overBudget()
	}
	return nil
}

// overBudget is charge's error.
func (ar *AvroReader) overBudget() error {
	return fmt.Errorf("%w: more than %d bytes assembled (Options.MaxRecordBytes)", format.ErrRecordSize, ar.maxBytes)
}

// dataErr reports bad data found in column col, with the column, block
// and row, as the format's own errors do.
func (ar *AvroReader) dataErr(col int, what string, args ...any) error {
	c := ar.cols[col]
	return &format.Error{Offset: -1, Column: c.Meta().Name, Index: col, Block: c.Block(), Row: c.Row(),
		Err: fmt.Errorf("%w: %s", format.ErrFormat, fmt.Sprintf(what, args...))}
}

// branch reads the branch lengths of a union in the file and returns the
// branch taken.
func (ar *AvroReader) branch(n *layout.Node) (int, error) {
	taken := -1
	for i, col := range n.BranchCols {
		if col < 0 {
			continue
		}
		l, err := ar.cols[col].NextLength()
		if err != nil {
			return 0, err
		}
		switch {
		case l == 0:
		case l == 1 && taken < 0:
			taken = i
		default:
			return 0, ar.dataErr(col, "union branch column holds length %d", l)
		}
	}
	if taken < 0 {
		for i, b := range n.Branches {
			if b == nil {
				return i, nil
			}
		}
		col := -1
		for _, c := range n.BranchCols {
			if c >= 0 {
				col = c
				break
			}
		}
		return 0, ar.dataErr(col, "no branch taken in a union without null")
	}
	return taken, nil
}

// walk reads one value of plan p and hands it to sink sk: it appends the
// value's encoding to b (toBinary, toJSON) or leaves the value in ar.val
// (toValue). depth counts the plan levels above p; the layout bounds it.
// It calls the step the plan was compiled with (stepFor), and is small
// enough to be inlined: a nested value costs one call, not a dispatch and
// a call.
func (ar *AvroReader) walk(b []byte, p *plan, sk sink, depth int) ([]byte, error) {
	return p.step(ar, b, p, sk, depth)
}

// stepFor returns the walk of a plan of kind op.
func stepFor(op op) func(ar *AvroReader, b []byte, p *plan, sk sink, depth int) ([]byte, error) {
	switch op {
	case opSimple:
		return (*AvroReader).walkSimple
	case opRecord:
		return (*AvroReader).walkRecord
	case opArray:
		return (*AvroReader).walkArray
	case opMap:
		return (*AvroReader).walkMap
	case opWriterUnion:
		return (*AvroReader).walkWriterUnion
	case opReaderUnion:
		return (*AvroReader).walkReaderUnion
	case opEnum:
		return (*AvroReader).walkEnum
	}
	return func(_ *AvroReader, b []byte, p *plan, _ sink, _ int) ([]byte, error) {
		return b, fmt.Errorf("assemble: unknown plan step %d", p.op)
	}
}

// walkWriterUnion reads the branch of a union in the file, which picks
// the value.
func (ar *AvroReader) walkWriterUnion(b []byte, p *plan, sk sink, depth int) ([]byte, error) {
	br, err := ar.branch(p.w)
	if err != nil {
		return b, err
	}
	if p.w.Branches[br] == nil {
		if p.nullErr != nil {
			return b, p.nullErr
		}
		return ar.walkUnion(b, p.rs, p.nullIdx, nil, sk, depth)
	}
	if p.branchErr[br] != nil {
		return b, p.branchErr[br]
	}
	return ar.walkUnion(b, p.rs, p.readerIdx[br], p.branches[br], sk, depth)
}

// walkReaderUnion reads a value that is not a union in the file as a
// branch of the reader's union.
func (ar *AvroReader) walkReaderUnion(b []byte, p *plan, sk sink, depth int) ([]byte, error) {
	return ar.walkUnion(b, p.rs, p.branch, p.items, sk, depth)
}

// walkRecord reads a record's fields. The binary sink, the one whole-file
// conversions use, has a loop of its own that decides nothing per field.
func (ar *AvroReader) walkRecord(b []byte, p *plan, sk sink, depth int) ([]byte, error) {
	var err error
	if sk == toBinary {
		for i := range p.fields {
			f := &p.fields[i]
			if f.p == nil { // not in the file: the reader's default
				b = append(b, f.defBin...)
				continue
			}
			if f.p.bin != binNone {
				b, err = ar.appendBinary(b, f.p)
			} else {
				b, err = ar.walk(b, f.p, sk, depth+1)
			}
			if err != nil {
				return b, fieldpath.At(err, f.name)
			}
		}
		return b, nil
	}
	var rec map[string]any
	switch sk {
	case toValue:
		// A Go value's size is charged to the record's budget as it is
		// built; an encoding's bytes once, whole, by record.
		if err := ar.charge(recordCost + valueCost*int64(len(p.fields))); err != nil {
			return b, err
		}
		rec = make(map[string]any, len(p.fields))
	case toJSON, toPlain:
		b = append(b, '{')
	}
	for i := range p.fields {
		f := &p.fields[i]
		if sk.text() {
			if i > 0 {
				b = append(b, ',')
			}
			if sk == toPlain {
				b = append(b, f.plainKey...)
			} else {
				b = append(b, f.key...)
			}
		}
		if f.p == nil { // not in the file: the reader's default
			switch sk {
			case toValue:
				rec[f.name] = copyDefault(f.def)
			case toJSON:
				b = append(b, f.defJSON...)
			case toPlain:
				b = append(b, f.defPlain...)
			}
			continue
		}
		if b, err = ar.walk(b, f.p, sk, depth+1); err != nil {
			return b, fieldpath.At(err, f.name)
		}
		if sk == toValue {
			rec[f.name] = ar.val
		}
	}
	switch sk {
	case toValue:
		ar.val = rec
	case toJSON, toPlain:
		b = append(b, '}')
	}
	return b, nil
}

// walkArray reads an array's length and items.
func (ar *AvroReader) walkArray(b []byte, p *plan, sk sink, depth int) ([]byte, error) {
	n, err := ar.length(ar.cols[p.w.Col])
	if err != nil {
		return b, err
	}
	if sk == toBinary && !p.itemsFree {
		// The whole-file conversions' loop, deciding nothing per item.
		if n > 0 {
			b = appendLong(b, int64(n))
		}
		for i := 0; i < n; i++ {
			if p.items.bin != binNone {
				b, err = ar.appendBinary(b, p.items)
			} else {
				b, err = ar.walk(b, p.items, sk, depth+1)
			}
			if err != nil {
				return b, fieldpath.At(err, fieldpath.Index(i))
			}
		}
		return append(b, 0), nil
	}
	var list []any
	switch sk {
	case toValue:
		list = make([]any, 0, min(n, 1024))
	case toBinary:
		if n > 0 {
			b = appendLong(b, int64(n))
		}
	case toJSON, toPlain:
		b = append(b, '[')
	}
	for i := 0; i < n; i++ {
		if sk.text() && i > 0 {
			b = append(b, ',')
		}
		start, spent := len(b), ar.spent
		if b, err = ar.walk(b, p.items, sk, depth+1); err != nil {
			return b, fieldpath.At(err, fieldpath.Index(i))
		}
		if sk == toValue {
			list = append(list, ar.val)
		}
		if p.itemsFree && n > 1 {
			// Items that read no column are all alike: the first
			// stands for the rest, which are counted, not read.
			if item := ar.spent - spent; item > 0 && int64(n-1) > (ar.maxBytes-ar.spent)/item {
				return b, fieldpath.At(ar.charge(int64(n-1)*item), fieldpath.Index(i+1))
			}
			ar.spent += int64(n-1) * (ar.spent - spent)
			b, list = repeat(b, start, list, ar.val, n-1, sk)
			break
		}
	}
	switch sk {
	case toValue:
		ar.val = list
	case toBinary:
		b = append(b, 0)
	case toJSON, toPlain:
		b = append(b, ']')
	}
	return b, nil
}

// walkEnum reads an enum ordinal and maps it to the reader's symbol.
func (ar *AvroReader) walkEnum(b []byte, p *plan, sk sink, _ int) ([]byte, error) {
	o, err := ar.cols[p.w.Col].ReadInt()
	if err != nil {
		return b, err
	}
	if o < 0 || int(o) >= len(p.enumMap) {
		return b, ar.dataErr(p.w.Col, "enum %s has no ordinal %d", p.w.Schema.Name, o)
	}
	k := p.enumMap[o]
	if k < 0 {
		return b, fmt.Errorf("%w: symbol %s of the file's enum %s is not in the reader's enum %s, which has no default", ErrIncompatible, p.w.Schema.Symbols[o], p.w.Schema.Name, p.rs.Name)
	}
	switch sk {
	case toValue:
		ar.val = p.rs.Symbols[k]
	case toBinary:
		b = appendLong(b, int64(k))
	case toJSON:
		b = jsontext.AppendString(b, p.rs.Symbols[k])
	case toPlain:
		b = jsontext.AppendStringUTF8(b, p.rs.Symbols[k])
	}
	return b, nil
}

// repeat adds n more copies of the array item just written to b at start
// (or held in v).
func repeat(b []byte, start int, list []any, v any, n int, sk sink) ([]byte, []any) {
	switch sk {
	case toValue:
		for range n {
			list = append(list, copyDefault(v))
		}
	case toBinary:
		if item := len(b) - start; item > 0 {
			b = slices.Grow(b, n*item)
			for range n {
				b = append(b, b[start:start+item]...)
			}
		}
	case toJSON, toPlain:
		item := len(b) - start
		b = slices.Grow(b, n*(item+1))
		for range n {
			b = append(b, ',')
			b = append(b, b[start:start+item]...)
		}
	}
	return b, list
}

func (ar *AvroReader) walkMap(b []byte, p *plan, sk sink, depth int) ([]byte, error) {
	n, err := ar.length(ar.cols[p.w.Col])
	if err != nil {
		return b, err
	}
	var m map[string]any
	var scratch []byte
	var entries []jsonEntry
	switch sk {
	case toValue:
		m = make(map[string]any, min(n, 1024))
	case toBinary:
		if n > 0 {
			b = appendLong(b, int64(n))
		}
	case toJSON, toPlain:
		// Entries are encoded into the scratch buffer of the map's
		// depth, after their raw keys, and copied out in key order.
		for len(ar.jsonScratch) <= depth {
			ar.jsonScratch = append(ar.jsonScratch, nil)
			ar.jsonEntries = append(ar.jsonEntries, nil)
		}
		scratch, entries = ar.jsonScratch[depth][:0], ar.jsonEntries[depth][:0]
	}
	keys := ar.cols[p.w.KeyCol]
	for i := 0; i < n; i++ {
		k, err := keys.ReadBytes()
		if err != nil {
			return b, fieldpath.At(err, fieldpath.Index(i))
		}
		if sk == toValue {
			if err := ar.charge(valueCost + int64(len(k))); err != nil {
				return b, fieldpath.At(err, fieldpath.Index(i))
			}
		}
		if !utf8check.Valid(k) {
			return b, fieldpath.At(ar.dataErr(p.w.KeyCol, "map key is not valid UTF-8"), fieldpath.Index(i))
		}
		switch sk {
		case toValue:
			key := string(k)
			if _, err = ar.walk(b, p.items, sk, depth+1); err != nil {
				return b, fieldpath.At(err, fieldpath.Key(key))
			}
			m[key] = ar.val
			continue
		case toBinary:
			b = appendLong(b, int64(len(k)))
			b = append(b, k...)
		case toJSON, toPlain:
			e := jsonEntry{key: len(scratch)}
			scratch = append(scratch, k...)
			e.text = len(scratch)
			if sk == toJSON {
				scratch = jsontext.AppendStringBytes(scratch, k)
			} else {
				scratch = jsontext.AppendStringBytesUTF8(scratch, k)
			}
			scratch = append(scratch, ':')
			if scratch, err = ar.walk(scratch, p.items, sk, depth+1); err != nil {
				return b, fieldpath.At(err, fieldpath.Key(string(k)))
			}
			e.end = len(scratch)
			entries = append(entries, e)
			continue
		}
		if b, err = ar.walk(b, p.items, sk, depth+1); err != nil {
			return b, fieldpath.At(err, fieldpath.Key(string(k)))
		}
	}
	switch sk {
	case toValue:
		ar.val = m
	case toBinary:
		b = append(b, 0)
	case toJSON, toPlain:
		slices.SortStableFunc(entries, func(x, y jsonEntry) int {
			return bytes.Compare(scratch[x.key:x.text], scratch[y.key:y.text])
		})
		b = append(b, '{')
		for i, e := range entries {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, scratch[e.text:e.end]...)
		}
		ar.jsonScratch[depth], ar.jsonEntries[depth] = scratch, entries
		b = append(b, '}')
	}
	return b, nil
}

// walkUnion writes a value as branch idx of the reader's union rs (idx -1:
// the reader's schema is not a union); inner nil is a null.
func (ar *AvroReader) walkUnion(b []byte, rs *schema.Schema, idx int, inner *plan, sk sink, depth int) ([]byte, error) {
	switch sk {
	case toValue:
		ar.val = nil
		if inner != nil {
			if _, err := ar.walk(b, inner, sk, depth+1); err != nil {
				return b, err
			}
		}
		if idx >= 0 {
			ar.val = typemap.WrapUnion(rs, idx, ar.val)
		}
		return b, nil
	case toBinary:
		if idx >= 0 {
			b = appendLong(b, int64(idx))
		}
	case toPlain:
		if inner == nil {
			return append(b, "null"...), nil
		}
		return ar.walk(b, inner, sk, depth+1)
	case toJSON:
		if inner == nil {
			return append(b, "null"...), nil
		}
		if idx >= 0 {
			b = append(b, '{')
			b = jsontext.AppendString(b, rs.Branches[idx].FullName())
			b = append(b, ':')
			b, err := ar.walk(b, inner, sk, depth+1)
			if err != nil {
				return b, err
			}
			return append(b, '}'), nil
		}
	}
	if inner == nil {
		return b, nil
	}
	return ar.walk(b, inner, sk, depth+1)
}

// walkSimple reads one simple value and promotes it to the reader's type.
func (ar *AvroReader) walkSimple(b []byte, p *plan, sk sink, _ int) ([]byte, error) {
	c := ar.cols[p.w.Col]
	rs := p.rs
	switch p.w.Type {
	case format.Null:
		switch sk {
		case toValue:
			ar.val = nil
		case toJSON, toPlain:
			b = append(b, "null"...)
		}
		return b, nil
	case format.Boolean:
		v, err := c.ReadBool()
		if err != nil {
			return b, err
		}
		switch sk {
		case toValue:
			ar.val = v
		case toBinary:
			if v {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		case toJSON, toPlain:
			b = strconv.AppendBool(b, v)
		}
		return b, nil
	case format.Int, format.Long:
		var v int64
		var err error
		if p.w.Type == format.Int {
			var i int32
			i, err = c.ReadInt()
			v = int64(i)
		} else {
			v, err = c.ReadLong()
		}
		if err != nil {
			return b, err
		}
		switch rs.Kind {
		case schema.Float:
			return ar.putFloat(b, float32(v), sk), nil
		case schema.Double:
			return ar.putDouble(b, float64(v), sk), nil
		}
		switch sk {
		case toValue:
			if rs.Kind == schema.Int {
				ar.val = int32(v)
			} else {
				ar.val = v
			}
			if rs.Logical != schema.LogicalNone {
				ar.val, err = typemap.FromStored(rs, ar.val)
			}
			return b, err
		case toBinary:
			b = appendLong(b, v)
		case toJSON:
			b = strconv.AppendInt(b, v, 10)
		case toPlain:
			b = appendPlainLong(b, rs, v)
		}
		return b, nil
	case format.Float:
		v, err := c.ReadFloat()
		if err != nil {
			return b, err
		}
		switch {
		case rs.Kind == schema.Double:
			return ar.putDouble(b, float64(v), sk), nil
		case sk == toBinary:
			return binary.LittleEndian.AppendUint32(b, math.Float32bits(v)), nil
		}
		return ar.putFloat(b, v, sk), nil
	case format.Double:
		v, err := c.ReadDouble()
		if err != nil {
			return b, err
		}
		if sk == toBinary {
			return binary.LittleEndian.AppendUint64(b, math.Float64bits(v)), nil
		}
		return ar.putDouble(b, v, sk), nil
	}
	// String and bytes; fixed is stored as bytes.
	v, err := c.ReadBytes()
	if err != nil {
		return b, err
	}
	// A Go value's string is charged here; an encoding's copy of it is
	// at most a block.
	if sk == toValue {
		if err := ar.charge(int64(len(v))); err != nil {
			return b, err
		}
	}
	switch rs.Kind {
	case schema.String:
		if !utf8check.Valid(v) {
			return b, ar.dataErr(p.w.Col, "string is not valid UTF-8")
		}
	case schema.Fixed:
		if len(v) != rs.Size {
			return b, ar.dataErr(p.w.Col, "fixed %s of %d bytes holds %d", rs.Name, rs.Size, len(v))
		}
	}
	switch sk {
	case toValue:
		if rs.Kind == schema.String {
			ar.val = string(v)
			return b, nil
		}
		ar.val, err = typemap.FromStored(rs, append([]byte(nil), v...))
		return b, err
	case toBinary:
		if rs.Kind != schema.Fixed {
			b = appendLong(b, int64(len(v)))
		}
		b = append(b, v...)
	case toJSON:
		if rs.Kind == schema.String {
			b = jsontext.AppendStringBytes(b, v)
		} else {
			b = jsontext.AppendLatin1(b, v)
		}
	case toPlain:
		b, ar.plainScratch = appendPlainBytes(b, rs, v, ar.plainScratch)
	}
	return b, nil
}

// appendBinary is walkSimple for the binary sink and a plan of a binOp,
// with no decision left but the binOp's.
func (ar *AvroReader) appendBinary(b []byte, p *plan) ([]byte, error) {
	c := ar.cols[p.w.Col]
	switch p.bin {
	case binBool:
		v, err := c.ReadBool()
		if err != nil {
			return b, err
		}
		if v {
			return append(b, 1), nil
		}
		return append(b, 0), nil
	case binInt:
		v, err := c.ReadInt()
		if err != nil {
			return b, err
		}
		return appendLong(b, int64(v)), nil
	case binLong:
		v, err := c.ReadLong()
		if err != nil {
			return b, err
		}
		return appendLong(b, v), nil
	case binFloat:
		v, err := c.ReadFloat()
		if err != nil {
			return b, err
		}
		return binary.LittleEndian.AppendUint32(b, math.Float32bits(v)), nil
	case binDouble:
		v, err := c.ReadDouble()
		if err != nil {
			return b, err
		}
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v)), nil
	}
	v, err := c.ReadBytes()
	if err != nil {
		return b, err
	}
	if b2, ok := appendShort(b, v, p.bin == binString); ok {
		return b2, nil
	}
	if p.bin == binString && !utf8check.Valid(v) {
		return b, ar.dataErr(p.w.Col, "string is not valid UTF-8")
	}
	b = appendLong(b, int64(len(v)))
	return append(b, v...), nil
}

func (ar *AvroReader) putFloat(b []byte, v float32, sk sink) []byte {
	switch sk {
	case toValue:
		ar.val = v
	case toBinary:
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	case toJSON:
		b = jsontext.AppendFloat(b, float64(v), 32)
	case toPlain:
		b = appendPlainFloat(b, float64(v), 32)
	}
	return b
}

func (ar *AvroReader) putDouble(b []byte, v float64, sk sink) []byte {
	switch sk {
	case toValue:
		ar.val = v
	case toBinary:
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	case toJSON:
		b = jsontext.AppendFloat(b, v, 64)
	case toPlain:
		b = appendPlainFloat(b, v, 64)
	}
	return b
}

// appendShort appends v, of at most 16 bytes, after its length of one
// byte, where b has room for 17 more bytes: v is loaded a word or two at
// a time (overlapping loads cover every length), and the same words show
// whether a string (str) is ASCII, so valid UTF-8, which saves checking it
// apart, calling memmove and encoding the length in a loop. It reports
// false, having appended nothing, for anything else (a longer value, no
// room, a string not ASCII), which the caller appends the usual way.
func appendShort(b, v []byte, str bool) ([]byte, bool) {
	n, start := len(v), len(b)
	if n > shortval.Max || cap(b)-start <= shortval.Max {
		return b, false
	}
	lo, hi := shortval.Load(v)
	if str && !shortval.ASCII(lo, hi) {
		return b, false
	}
	b = b[:start+1+n]
	b[start] = byte(n << 1)
	shortval.Store(b[start+1:start+1+n], lo, hi)
	return b, true
}

// appendLong appends v in Avro's zig-zag varint encoding.
func appendLong(b []byte, v int64) []byte { return binary.AppendVarint(b, v) }

// copyDefault returns a copy of a value that the caller may change
// without changing the original.
func copyDefault(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = copyDefault(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = copyDefault(e)
		}
		return l
	case []byte:
		return append([]byte(nil), x...)
	}
	return v
}
