package format

import (
	"encoding/hex"
	"fmt"
	"github.com/trevni-go/trevni/internal/jsontext"
	"io"
	"math"
	"strconv"
)

// DefaultMaxRowElements bounds the array elements a RowReader assembles
// for one row, so that a hostile length cannot exhaust memory.
const DefaultMaxRowElements = 1 << 24

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

// RowReader reads whole rows of every column, nesting children in their
// parents' elements. It is meant for inspecting files of any origin; the
// assemble package reads records faster and with projection.
type RowReader struct {
	rd        *Reader
	cols      []*ColumnReader
	roots     []int
	MaxElems  int // elements per row; 0 means DefaultMaxRowElements
	rowElems  int
	rowNumber int64
}

// Rows returns a reader of every row of the file.
func (rd *Reader) Rows() (*RowReader, error) {
	rr := &RowReader{rd: rd, cols: make([]*ColumnReader, len(rd.cols))}
	for i := range rd.cols {
		c, err := rd.Values(i)
		if err != nil {
			return nil, err
		}
		rr.cols[i] = c
		if rd.parents[i] < 0 {
			rr.roots = append(rr.roots, i)
		}
	}
	return rr, nil
}

// Read returns the next row, or io.EOF after the last.
func (rr *RowReader) Read() (Row, error) {
	if rr.rowNumber >= rr.rd.rowCount {
		return nil, io.EOF
	}
	for _, c := range rr.cols {
		if err := c.StartRow(); err != nil {
			return nil, err
		}
	}
	rr.rowNumber++
	rr.rowElems = 0
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

func (rr *RowReader) entry(i int) (any, error) {
	c := rr.cols[i]
	if !c.meta.Array {
		return c.Value()
	}
	n, err := c.NextLength()
	if err != nil {
		return nil, err
	}
	max := rr.MaxElems
	if max <= 0 {
		max = DefaultMaxRowElements
	}
	if rr.rowElems += n; rr.rowElems > max {
		return nil, c.fail(fmt.Errorf("%w: row has more than %d array elements", ErrFormat, max))
	}
	kids := rr.rd.children[i]
	if len(kids) == 0 {
		vals := make([]any, 0, min(n, 1024))
		for k := 0; k < n; k++ {
			v, err := c.Value()
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
		}
		return vals, nil
	}
	elems := make([]Element, 0, min(n, 1024))
	for k := 0; k < n; k++ {
		v, err := c.Value()
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

// AppendJSON appends the row as one JSON object: full column names as keys,
// bytes as hex strings, array elements with children as objects (a parent's
// own non-null value under the key "value$"). Non-finite floats are written
// as the strings "NaN", "Infinity" and "-Infinity".
func (r Row) AppendJSON(dst []byte) []byte {
	return appendFields(dst, nil, r)
}

func appendFields(dst []byte, own any, fields []Field) []byte {
	dst = append(dst, '{')
	if own != nil {
		dst = append(dst, `"value$": `...)
		dst = appendJSONValue(dst, own)
	}
	for i, f := range fields {
		if i > 0 || own != nil {
			dst = append(dst, ", "...)
		}
		dst = jsontext.AppendString(dst, f.Name)
		dst = append(dst, ": "...)
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
		return appendFloat(dst, float64(v), 32)
	case float64:
		return appendFloat(dst, v, 64)
	case string:
		return jsontext.AppendString(dst, v)
	case []byte:
		dst = append(dst, '"')
		dst = hex.AppendEncode(dst, v)
		return append(dst, '"')
	case []any:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendJSONValue(dst, e)
		}
		return append(dst, ']')
	case []Element:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendFields(dst, e.Value, e.Fields)
		}
		return append(dst, ']')
	}
	return fmt.Appendf(dst, "%q", fmt.Sprint(v))
}

func appendFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	}
	return strconv.AppendFloat(dst, f, 'g', -1, bits)
}
