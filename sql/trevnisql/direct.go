package trevnisql

import (
	"context"
	"errors"
	"fmt"
	"unsafe"

	bindings "github.com/duckdb/duckdb-go-bindings"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
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
	if s.Logical != schema.LogicalNone {
		return 0, false
	}
	switch s.Kind {
	case schema.Boolean:
		return format.Boolean, true
	case schema.Int:
		return format.Int, true
	case schema.Long:
		return format.Long, true
	case schema.Float:
		return format.Float, true
	case schema.Double:
		return format.Double, true
	case schema.String:
		return format.String, true
	case schema.Bytes:
		return format.Bytes, true
	}
	return 0, false
}

// directCol is one column read by the direct path.
type directCol struct {
	out    int // the output column
	column int // the Trevni column
	name   string
	typ    format.ValueType
	cr     *format.ColumnReader
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
	ds, err := trevni.OpenFiles(ctx, []string{u.part}, bd.s.open)
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
		name := bd.names[c]
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
func (d *directReader) fill(output bindings.DataChunk) (int, error) {
	n := int(min(d.left, int64(bindings.VectorSize())))
	if n == 0 {
		return 0, nil
	}
	for i := range d.cols {
		c := &d.cols[i]
		vec := bindings.DataChunkGetVector(output, bindings.IdxT(c.out))
		if err := c.read(vec, n); err != nil {
			return 0, fmt.Errorf("%s: column %s, row %d: %w", d.part, c.name, c.cr.Row(), err)
		}
	}
	d.left -= int64(n)
	return n, nil
}

// read reads n values, one per row, into vec. Each type has its own
// loop, so that the reads are direct calls.
func (c *directCol) read(vec bindings.Vector, n int) error {
	p := bindings.VectorGetData(vec)
	cr := c.cr
	var err error
	switch c.typ {
	case format.Boolean:
		dst := unsafe.Slice((*bool)(p), n)
		for i := range dst {
			if err = cr.StartRow(); err == nil {
				dst[i], err = cr.ReadBool()
			}
			if err != nil {
				return err
			}
		}
	case format.Int:
		dst := unsafe.Slice((*int32)(p), n)
		for i := range dst {
			if err = cr.StartRow(); err == nil {
				dst[i], err = cr.ReadInt()
			}
			if err != nil {
				return err
			}
		}
	case format.Long:
		dst := unsafe.Slice((*int64)(p), n)
		for i := range dst {
			if err = cr.StartRow(); err == nil {
				dst[i], err = cr.ReadLong()
			}
			if err != nil {
				return err
			}
		}
	case format.Float:
		dst := unsafe.Slice((*float32)(p), n)
		for i := range dst {
			if err = cr.StartRow(); err == nil {
				dst[i], err = cr.ReadFloat()
			}
			if err != nil {
				return err
			}
		}
	case format.Double:
		dst := unsafe.Slice((*float64)(p), n)
		for i := range dst {
			if err = cr.StartRow(); err == nil {
				dst[i], err = cr.ReadDouble()
			}
			if err != nil {
				return err
			}
		}
	case format.String, format.Bytes:
		for i := range n {
			var b []byte
			if err = cr.StartRow(); err == nil {
				b, err = cr.ReadBytes()
			}
			if err != nil {
				return err
			}
			bindings.VectorAssignStringElementLen(vec, bindings.IdxT(i), b)
		}
	default:
		return fmt.Errorf("no direct read of %s values", c.typ)
	}
	return nil
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
