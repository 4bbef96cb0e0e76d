package duckscan

/*
#include "calls.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"io"
	"unsafe"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

// The direct path: when every column a scan reads is a top-level field of
// a primitive type (boolean, int, long, float, double, string, bytes, no
// logical type) and every part is Trevni 2, each column's values are
// read from its Trevni column straight into DuckDB's vector, with no
// record assembly and no Arrow batch between. Any other scan goes
// through trevniarrow's batches and DuckDB's Arrow import.

// directType returns the Trevni value type that a field of schema s is
// stored as when the direct path can read it, and whether it can.
func directType(s *schema.Schema) (format.ValueType, bool) {
	switch {
	case s.Logical != schema.LogicalNone, s.Kind == schema.Null, s.Kind == schema.Enum, s.Kind == schema.Fixed:
		return 0, false
	}
	return layout.ColumnType(s)
}

// directCol is one column read by the direct path.
type directCol struct {
	out    int // the output column
	column int // the Trevni column
	name   string
	typ    format.ValueType
	cr     *format.ColumnReader
	vec    C.duckdb_vector       // the vector ReadBytesTo fills
	assign func(i int, b []byte) // stores a string or bytes value in vec
}

// directReader reads a unit by the direct path.
type directReader struct {
	ds   *trevni.Dataset
	f    *trevni.File
	rd   *format.Reader
	cols []directCol
	part string
	rows int64 // rows of the unit
	left int64 // rows left to read
}

// openDirect opens the unit u for the direct path, reading the fields
// of the output columns cols (their indexes in bd.names; -1 for none).
// It returns nil, nil when the part's columns are not stored as the
// direct path reads them (the caller takes the Arrow path).
func openDirect(ctx context.Context, bd *bindData, u unit, cols []int) (*directReader, error) {
	ds, err := trevni.OpenFiles(ctx, []string{u.part}, bd.open)
	if err != nil {
		return nil, err
	}
	f, err := ds.Parts()[0].Open(ctx)
	if err != nil {
		ds.Close()
		return nil, err
	}
	d := &directReader{ds: ds, f: f, rd: f.Trevni(), part: u.part, rows: u.count, left: u.count}
	if d.rd == nil {
		d.close()
		return nil, nil
	}
	for out, c := range cols {
		if c < 0 {
			continue
		}
		name := bd.fields[c]
		i, ok := d.rd.ColumnIndex(name)
		if !ok {
			d.close()
			return nil, nil
		}
		meta, err := d.rd.Column(i)
		if err != nil || meta.Array || meta.Parent != "" || meta.Type != bd.direct[c] {
			d.close()
			return nil, nil
		}
		cr, err := d.rd.Values(i)
		if err != nil {
			d.close()
			return nil, fmt.Errorf("column %s: %w", name, err)
		}
		d.cols = append(d.cols, directCol{out: out, column: i, name: name, typ: meta.Type, cr: cr})
		if u.offset > 0 {
			if err := cr.SeekRow(u.offset); err != nil {
				d.close()
				return nil, fmt.Errorf("column %s: seeking row %d: %w", name, u.offset, err)
			}
		}
	}
	return d, nil
}

// fill reads the next rows into output's vectors and returns how many (0
// at the end of the unit).
func (d *directReader) fill(output C.duckdb_data_chunk) (int, error) {
	n := int(min(d.left, int64(vectorSize())))
	if n == 0 {
		return 0, nil
	}
	for i := range d.cols {
		c := &d.cols[i]
		vec := C.td_data_chunk_get_vector(output, C.idx_t(c.out))
		if err := c.read(vec, n); err != nil {
			return 0, fmt.Errorf("%s: column %s, row %d: %w", d.part, c.name, c.cr.Row(), err)
		}
	}
	d.left -= int64(n)
	return n, nil
}

// read reads n values, one per row, into vec, by the column reader's
// batch reads: straight into the vector's memory for fixed-size types,
// and for strings and bytes by ReadBytesTo, each value handed to DuckDB
// (which copies it) while it is in the block buffer.
func (c *directCol) read(vec C.duckdb_vector, n int) error {
	p := C.td_vector_get_data(vec)
	cr := c.cr
	var k int
	var err error
	switch c.typ {
	case format.Boolean:
		k, err = cr.ReadBools(unsafe.Slice((*bool)(p), n))
	case format.Int:
		k, err = cr.ReadInts(unsafe.Slice((*int32)(p), n))
	case format.Long:
		k, err = cr.ReadLongs(unsafe.Slice((*int64)(p), n))
	case format.Float:
		k, err = cr.ReadFloats(unsafe.Slice((*float32)(p), n))
	case format.Double:
		k, err = cr.ReadDoubles(unsafe.Slice((*float64)(p), n))
	case format.String, format.Bytes:
		if c.assign == nil {
			c.assign = func(i int, b []byte) {
				C.td_vector_assign_string_element_len(c.vec, C.idx_t(i), bytesPtr(b), C.idx_t(len(b)))
			}
		}
		c.vec = vec
		k, err = cr.ReadBytesTo(n, c.assign)
	default:
		return fmt.Errorf("no direct read of %s values", c.typ)
	}
	if err == nil && k < n {
		err = io.ErrUnexpectedEOF // the unit promised more rows than the file has
	}
	return err
}

// report returns what the read cost.
func (d *directReader) report() trevni.PartReport {
	read := d.rows - d.left
	r := trevni.PartReport{Part: d.part, Scan: assemble.ScanReport{RowsScanned: read, RowsMatched: read, FileSize: d.rd.Size()}}
	for _, c := range d.cols {
		blocks, bytes := c.cr.Loaded()
		all, _ := d.rd.Blocks(c.column)
		r.Scan.Columns = append(r.Scan.Columns, assemble.ColumnScan{Column: c.column, Name: c.name, Blocks: len(all), BlocksRead: blocks, BytesRead: bytes})
		r.Scan.BytesRead += bytes
	}
	r.Fetched = d.f.Fetched()
	return r
}

// close closes the files.
func (d *directReader) close() error {
	for _, c := range d.cols {
		c.cr.Close()
	}
	return errors.Join(d.f.Close(), d.ds.Close())
}
