package format

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"

	"github.com/trevni-go/trevni/internal/jsontext"
	"github.com/trevni-go/trevni/internal/utf8check"
)

// DefaultMaxRowElements bounds the array elements a RowReader assembles
// for one row, so that a hostile length cannot exhaust memory.
const DefaultMaxRowElements = 1 << 24

// DefaultMaxRowBytes bounds the size of one row as a RowReader assembles
// it: the JSON text ReadJSON appends, or an estimate of the memory of
// the values Read builds.
const DefaultMaxRowBytes = 64 << 20

// Row is one top-level row read schema-less: one entry per top-level
// column, in column order.
type Row []Field

// Field is one column's entry in a row or in an array element.
//
// Value holds, for a column that is not an array, its value (as
// ColumnReader.Value returns it); for an array column without children, a
// []any of its values; and for an array column with children, a []Element.
type Field struct {
	Column int
	Name   string
	Value  any
}

// Element is one element of an array column that has children: the
// column's own value (nil for null-typed parents) and the children's fields.
type Element struct {
	Value  any
	Fields []Field
}

// RowReader reads whole rows of every column, or of the columns
// RowsOptions selects, nesting children in their parents' elements. It is
// meant for inspecting files of any origin; the assemble package reads
// records faster and with projection.
type RowReader struct {
	rd        *Reader
	cols      []*ColumnReader // by column number; nil for a column not read
	used      []int           // the columns read, in order
	roots     []int           // the top-level columns read
	kids      [][]int         // by column: its children that are read
	trees     [][]int         // by top-level column: it and the columns nested in it that are read
	keys      [][]byte        // by column: its name as a JSON key, with the ':' after it
	MaxElems  int             // elements per row; 0 means DefaultMaxRowElements
	MaxBytes  int64           // bytes per row assembled; 0 means DefaultMaxRowBytes
	rowElems  int
	rowBytes  int64 // Read: the estimated size of the row so far
	jsonStart int   // ReadJSON: where the row begins in dst
	rowNumber int64
	plain     bool // RowsOptions.Plain
}

// RowsOptions selects what a RowReader reads.
type RowsOptions struct {
	// Columns lists the columns to read, by number, in any order; nil
	// reads every column. Each brings its ancestors (the array columns it
	// is nested in), which give rows their shape: a row holds the
	// selected columns in column order, nested in their ancestors'
	// elements, and nothing of the columns not selected, whose blocks are
	// never read. A column does not bring its children: list them too.
	Columns []int
	// Plain makes ReadJSON write values as plain JSON does (tojson
	// --plain, package assemble): bytes in standard base64 instead of
	// hex, floats as encoding/json writes them (10000000000, 1e-7)
	// instead of as Java does (1.0E10, 1.0E-7).
	Plain bool
}

// Rows returns a reader of every row of the file.
func (rd *Reader) Rows() (*RowReader, error) { return rd.RowsOf(nil) }

// RowsOf returns a reader of every row of the file, of the columns opts
// selects (every column when opts is nil). A column number out of range
// is an error wrapping ErrUsage.
func (rd *Reader) RowsOf(opts *RowsOptions) (*RowReader, error) {
	n := len(rd.cols)
	want := make([]bool, n)
	if opts == nil || opts.Columns == nil {
		for i := range want {
			want[i] = true
		}
	} else {
		for _, i := range opts.Columns {
			if i < 0 || i >= n {
				return nil, fmt.Errorf("%w: no column %d (the file has %d)", ErrUsage, i, n)
			}
			for p := i; p >= 0 && !want[p]; p = rd.parents[p] {
				want[p] = true
			}
		}
	}
	rr := &RowReader{rd: rd, cols: make([]*ColumnReader, n), kids: make([][]int, n), trees: make([][]int, n), keys: make([][]byte, n)}
	rr.plain = opts != nil && opts.Plain
	for i := range rd.cols {
		if !want[i] {
			continue
		}
		c, err := rd.Values(i)
		if err != nil {
			rr.Close()
			return nil, err
		}
		rr.cols[i] = c
		rr.used = append(rr.used, i)
		root := i
		for rd.parents[root] >= 0 {
			root = rd.parents[root]
		}
		rr.trees[root] = append(rr.trees[root], i)
		if p := rd.parents[i]; p < 0 {
			rr.roots = append(rr.roots, i)
		} else {
			rr.kids[p] = append(rr.kids[p], i)
		}
	}
	// The keys share one buffer, sized for the longest escapes (6 bytes a
	// byte) so that it is never moved.
	size := 0
	for _, i := range rr.used {
		size += 6*len(rd.cols[i].Name) + 4
	}
	keys := make([]byte, 0, size)
	for _, i := range rr.used {
		start := len(keys)
		keys = append(jsontext.AppendStringUTF8(keys, rd.cols[i].Name), ':')
		rr.keys[i] = keys[start:len(keys):len(keys)]
	}
	return rr, nil
}

// Columns returns the numbers of the columns the reader reads, in order:
// those selected and their ancestors.
func (rr *RowReader) Columns() []int { return append([]int(nil), rr.used...) }

// Column returns the reader of column i, or nil if i is not read. Its
// Loaded says how much of the column was read; SetReadAhead(false) keeps
// it from fetching a block before it is needed (for a caller that seeks
// past blocks).
func (rr *RowReader) Column(i int) *ColumnReader {
	if i < 0 || i >= len(rr.cols) {
		return nil
	}
	return rr.cols[i]
}

// Row returns the number of the row the next Read returns.
func (rr *RowReader) Row() int64 { return rr.rowNumber }

// Close releases the column readers' buffers.
func (rr *RowReader) Close() {
	for _, c := range rr.cols {
		if c != nil {
			c.Close()
		}
	}
}

// SeekRow positions the reader before row (which may equal the row count),
// so that the next Read returns it. Each top-level column is moved with
// the columns nested in it: when the row lies ahead within the current
// block of every one of them, by passing over the rows between without
// building them; otherwise by seeking each (ColumnReader.SeekRow), so that
// no block in between is read.
func (rr *RowReader) SeekRow(row int64) error {
	if row < 0 || row > rr.rd.rowCount {
		return fmt.Errorf("%w: seek to row %d of %d", ErrUsage, row, rr.rd.rowCount)
	}
	k := row - rr.rowNumber
	for _, root := range rr.roots {
		tree := rr.trees[root]
		near := k >= 0 && row < rr.rd.rowCount
		for _, i := range tree {
			if !near {
				break
			}
			near = rr.cols[i].Block() >= 0 && rr.cols[i].RowsLeftInBlock() >= k+1
		}
		if !near {
			for _, i := range tree {
				if err := rr.cols[i].SeekRow(row); err != nil {
					return err
				}
			}
			continue
		}
		for n := int64(0); n < k; n++ {
			for _, i := range tree {
				if err := rr.cols[i].StartRow(); err != nil {
					return err
				}
			}
			rr.rowElems = 0
			if err := rr.skip(root); err != nil {
				return err
			}
		}
	}
	rr.rowNumber = row
	return nil
}

func (rr *RowReader) startRow() error {
	for _, i := range rr.used {
		if err := rr.cols[i].StartRow(); err != nil {
			return err
		}
	}
	rr.rowElems, rr.rowBytes = 0, 0
	return nil
}

// Sizes Read charges to a row's budget: a value (an interface), an
// Element and a Field, each twice its size, for the slices that hold them
// grow by doubling and leave their old arrays to the garbage collector; an
// Element twice more, for the slice of its own fields and the heap it
// leaves behind (measured: TestHostileRecordSize in cmd/trevni).
const (
	valueCost   = 2 * 16
	elementCost = 4 * 40
	fieldCost   = 2 * 40
)

// charge adds n bytes to the row's size, failing once it passes the
// budget.
func (rr *RowReader) charge(c *ColumnReader, n int64) error {
	rr.rowBytes += n
	return rr.checkSize(c, rr.rowBytes)
}

// checkSize fails if a row of size bytes is over the budget.
func (rr *RowReader) checkSize(c *ColumnReader, size int64) error {
	max := rr.MaxBytes
	if max <= 0 {
		max = DefaultMaxRowBytes
	}
	if size > max {
		return c.fail(fmt.Errorf("%w: row %d is larger than %d bytes assembled (RowReader.MaxBytes)", ErrRecordSize, rr.rowNumber-1, max))
	}
	return nil
}

// Read returns the next row, or io.EOF after the last.
func (rr *RowReader) Read() (Row, error) {
	if rr.rowNumber >= rr.rd.rowCount {
		return nil, io.EOF
	}
	if err := rr.startRow(); err != nil {
		return nil, err
	}
	rr.rowNumber++
	row := make(Row, 0, len(rr.roots))
	for _, i := range rr.roots {
		v, err := rr.entry(i)
		if err != nil {
			return nil, err
		}
		row = append(row, Field{Column: i, Name: rr.rd.cols[i].Name, Value: v})
	}
	return row, nil
}

// length reads the next length of array column i, within the row's
// element budget.
func (rr *RowReader) length(c *ColumnReader) (int, error) {
	n, err := c.NextLength()
	if err != nil {
		return 0, err
	}
	max := rr.MaxElems
	if max <= 0 {
		max = DefaultMaxRowElements
	}
	if rr.rowElems += n; rr.rowElems > max {
		return 0, c.fail(fmt.Errorf("%w: row has more than %d array elements", ErrFormat, max))
	}
	return n, nil
}

// skip passes over column i's entry of the current row (or element), and
// its children's, without building values.
func (rr *RowReader) skip(i int) error {
	c := rr.cols[i]
	if !c.meta.Array {
		return c.Skip()
	}
	n, err := rr.length(c)
	if err != nil {
		return err
	}
	for k := 0; k < n; k++ {
		if err := c.Skip(); err != nil {
			return err
		}
		for _, kid := range rr.kids[i] {
			if err := rr.skip(kid); err != nil {
				return err
			}
		}
	}
	return nil
}

func (rr *RowReader) entry(i int) (any, error) {
	c := rr.cols[i]
	if !c.meta.Array {
		return rr.value(c)
	}
	n, err := rr.length(c)
	if err != nil {
		return nil, err
	}
	kids := rr.kids[i]
	if len(kids) == 0 && len(rr.rd.children[i]) == 0 {
		vals := make([]any, 0, min(n, 1024))
		for k := 0; k < n; k++ {
			v, err := rr.value(c)
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
		}
		return vals, nil
	}
	elems := make([]Element, 0, min(n, 1024))
	for k := 0; k < n; k++ {
		if err := rr.charge(c, elementCost+fieldCost*int64(len(kids))); err != nil {
			return nil, err
		}
		v, err := rr.value(c)
		if err != nil {
			return nil, err
		}
		el := Element{Value: v, Fields: make([]Field, 0, len(kids))}
		for _, kid := range kids {
			kv, err := rr.entry(kid)
			if err != nil {
				return nil, err
			}
			el.Fields = append(el.Fields, Field{Column: kid, Name: rr.rd.cols[kid].Name, Value: kv})
		}
		elems = append(elems, el)
	}
	return elems, nil
}

// value reads c's next value, charging its size to the row.
func (rr *RowReader) value(c *ColumnReader) (any, error) {
	v, err := c.Value()
	if err != nil {
		return nil, err
	}
	n := int64(valueCost)
	switch v := v.(type) {
	case string:
		n += int64(len(v))
	case []byte:
		n += int64(len(v))
	}
	return v, rr.charge(c, n)
}

// AppendJSON appends the row as one JSON object: full column names as keys,
// bytes as hex strings, array elements with children as objects (a parent's
// own non-null value under the key "value$"). Floats are written as Java's
// Float.toString and Double.toString write them (1097.0, -0.0, 1.4E-45),
// non-finite ones as the strings "NaN", "Infinity" and "-Infinity";
// strings are escaped as Java's Jackson does when writing characters,
// which leaves the characters beyond the Basic Multilingual Plane as they
// are. No space follows a comma or a colon, as in Java's trevni_tojson
// (Jackson's MinimalPrettyPrinter) and in tojson's output; the text is
// that of the interop dump.jsonl files with the spaces after their
// separators taken out (json.Compact of their lines).
func (r Row) AppendJSON(dst []byte) []byte {
	return appendFields(dst, nil, r)
}

func appendFields(dst []byte, own any, fields []Field) []byte {
	dst = append(dst, '{')
	if own != nil {
		dst = append(dst, `"value$":`...)
		dst = appendJSONValue(dst, own)
	}
	for i, f := range fields {
		if i > 0 || own != nil {
			dst = append(dst, ',')
		}
		dst = jsontext.AppendStringUTF8(dst, f.Name)
		dst = append(dst, ':')
		dst = appendJSONValue(dst, f.Value)
	}
	return append(dst, '}')
}

func appendJSONValue(dst []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		return strconv.AppendBool(dst, v)
	case int32:
		return strconv.AppendInt(dst, int64(v), 10)
	case int64:
		return strconv.AppendInt(dst, v, 10)
	case float32:
		return jsontext.AppendFloat(dst, float64(v), 32)
	case float64:
		return jsontext.AppendFloat(dst, v, 64)
	case string:
		return jsontext.AppendStringUTF8(dst, v)
	case []byte:
		dst = append(dst, '"')
		dst = hex.AppendEncode(dst, v)
		return append(dst, '"')
	case []any:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONValue(dst, e)
		}
		return append(dst, ']')
	case []Element:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendFields(dst, e.Value, e.Fields)
		}
		return append(dst, ']')
	}
	return fmt.Appendf(dst, "%q", fmt.Sprint(v))
}

// ReadJSON appends the next row to dst as Row.AppendJSON writes it, without
// building the row: no allocation per value. It returns io.EOF after the
// last row. On an error, dst may end with part of the row.
func (rr *RowReader) ReadJSON(dst []byte) ([]byte, error) {
	if rr.rowNumber >= rr.rd.rowCount {
		return dst, io.EOF
	}
	if err := rr.startRow(); err != nil {
		return dst, err
	}
	rr.rowNumber++
	rr.jsonStart = len(dst)
	dst = append(dst, '{')
	for k, i := range rr.roots {
		if k > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = rr.appendEntry(dst, i); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// appendEntry appends column i's key and its entry of the current row or
// element.
func (rr *RowReader) appendEntry(dst []byte, i int) ([]byte, error) {
	c := rr.cols[i]
	dst = append(dst, rr.keys[i]...)
	if !c.meta.Array {
		dst, err := rr.appendValue(dst, c)
		if err == nil {
			err = rr.checkSize(c, int64(len(dst)-rr.jsonStart))
		}
		return dst, err
	}
	n, err := rr.length(c)
	if err != nil {
		return dst, err
	}
	kids := rr.kids[i]
	plain := len(kids) == 0 && len(rr.rd.children[i]) == 0
	dst = append(dst, '[')
	for k := 0; k < n; k++ {
		if k > 0 {
			dst = append(dst, ',')
		}
		if err := rr.checkSize(c, int64(len(dst)-rr.jsonStart)); err != nil {
			return dst, err
		}
		if plain {
			if dst, err = rr.appendValue(dst, c); err != nil {
				return dst, err
			}
			continue
		}
		dst = append(dst, '{')
		if c.typ == Null {
			if err := c.Skip(); err != nil {
				return dst, err
			}
		} else {
			dst = append(dst, `"value$":`...)
			if dst, err = rr.appendValue(dst, c); err != nil {
				return dst, err
			}
		}
		for j, kid := range kids {
			if j > 0 || c.typ != Null {
				dst = append(dst, ',')
			}
			if dst, err = rr.appendEntry(dst, kid); err != nil {
				return dst, err
			}
		}
		dst = append(dst, '}')
	}
	return append(dst, ']'), nil
}

// appendValue appends c's next value as appendJSONValue writes it.
func (rr *RowReader) appendValue(dst []byte, c *ColumnReader) ([]byte, error) {
	switch c.typ {
	case Null:
		return append(dst, "null"...), c.Skip()
	case Boolean:
		v, err := c.ReadBool()
		return strconv.AppendBool(dst, v), err
	case Int:
		v, err := c.ReadInt()
		return strconv.AppendInt(dst, int64(v), 10), err
	case Fixed32:
		v, err := c.ReadFixed32()
		return strconv.AppendInt(dst, int64(v), 10), err
	case Long:
		v, err := c.ReadLong()
		return strconv.AppendInt(dst, v, 10), err
	case Fixed64:
		v, err := c.ReadFixed64()
		return strconv.AppendInt(dst, v, 10), err
	case Float:
		v, err := c.ReadFloat()
		if rr.plain {
			return jsontext.AppendPlainFloat(dst, float64(v), 32), err
		}
		return jsontext.AppendFloat(dst, float64(v), 32), err
	case Double:
		v, err := c.ReadDouble()
		if rr.plain {
			return jsontext.AppendPlainFloat(dst, v, 64), err
		}
		return jsontext.AppendFloat(dst, v, 64), err
	case String:
		v, err := c.ReadBytes()
		if err != nil {
			return dst, err
		}
		if !utf8check.Valid(v) {
			return dst, c.failData(errBadUTF8)
		}
		return jsontext.AppendStringBytesUTF8(dst, v), nil
	case Bytes:
		v, err := c.ReadBytes()
		if err != nil {
			return dst, err
		}
		dst = append(dst, '"')
		if rr.plain {
			dst = base64.StdEncoding.AppendEncode(dst, v)
		} else {
			dst = hex.AppendEncode(dst, v)
		}
		return append(dst, '"'), nil
	}
	v, err := c.Value()
	return appendJSONValue(dst, v), err
}
