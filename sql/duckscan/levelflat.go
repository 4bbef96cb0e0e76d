package duckscan

/*
#include "calls.h"
*/
import "C"

import (
	"fmt"
	"io"
	"unsafe"

	"github.com/trevni-go/trevni/assemble/levels"
	"github.com/trevni-go/trevni/format"
)

// The fast path of flat leaves: a top-level field of a number or a
// boolean, always there, read from the file's column of the same type,
// has one value a row and nothing else: its values are decoded by the
// column reader's batch reads straight into the DuckDB vector's memory
// (or, for the rows of a filter's segment, into a buffer and the kept
// ones copied), with no levels and no run between.

// directLeaf says whether leaf l of the plan takes the fast path: a
// top-level vector's own leaf of no steps, whose values are the column's
// as DuckDB stores them.
func directLeaf(l *leafPlan, m *format.ColumnMeta) bool {
	lf := &l.leaf
	if !l.flat() || len(lf.Steps) != 0 || lf.Null || lf.Col < 0 || lf.Const != nil || lf.Promote != format.Null ||
		lf.EnumMap != nil || lf.Symbols != nil || lf.Branch != nil || lf.UUID || lf.Decimal > 0 || m.Array || m.Parent != "" {
		return false
	}
	switch l.conv {
	case convBool:
		return lf.Type == format.Boolean
	case convI32:
		return lf.Type == format.Int
	case convI64:
		return lf.Type == format.Long
	case convF32:
		return lf.Type == format.Float
	case convF64:
		return lf.Type == format.Double
	}
	return false
}

// directReader reads a flat leaf's column for the fast path.
type directReader struct {
	cr  *format.ColumnReader
	pos int64 // the row the reader is before
	// The buffer of a filter's segments, of the column's type.
	bools []bool
	i32   []int32
	i64   []int64
	f32   []float32
	f64   []float64
}

// read reads the segments' rows of leaf l into its vector from row 0,
// and returns how many rows it wrote.
func (d *directReader) read(l *leafPlan, segs []levels.Segment) (int, error) {
	p := C.td_vector_get_data(l.node.vec)
	at := 0
	for _, seg := range segs {
		if d.pos != seg.First {
			if err := d.cr.SeekRow(seg.First); err != nil {
				return at, fmt.Errorf("row %d: %w", seg.First, err)
			}
		}
		var err error
		switch l.leaf.Type {
		case format.Boolean:
			at, err = readSeg(d.cr.ReadBools, p, at, seg, &d.bools)
		case format.Int:
			at, err = readSeg(d.cr.ReadInts, p, at, seg, &d.i32)
		case format.Long:
			at, err = readSeg(d.cr.ReadLongs, p, at, seg, &d.i64)
		case format.Float:
			at, err = readSeg(d.cr.ReadFloats, p, at, seg, &d.f32)
		case format.Double:
			at, err = readSeg(d.cr.ReadDoubles, p, at, seg, &d.f64)
		default:
			err = fmt.Errorf("column type %s", l.leaf.Type)
		}
		if err != nil {
			return at, fmt.Errorf("rows %d to %d: %w", seg.First, seg.First+seg.N-1, err)
		}
		d.pos = seg.First + seg.N
	}
	return at, nil
}

// readSeg reads the N rows of seg by read, those it keeps written to the
// vector data p from row at (straight into it when it keeps all), and
// returns the row after the last written.
func readSeg[T any](read func([]T) (int, error), p unsafe.Pointer, at int, seg levels.Segment, buf *[]T) (int, error) {
	n := int(seg.N)
	dst := unsafe.Slice((*T)(unsafe.Add(p, at*int(unsafe.Sizeof(*new(T))))), n)
	if seg.Keep == nil {
		got, err := read(dst)
		if err == nil && got < n {
			err = io.ErrUnexpectedEOF
		}
		return at + got, err
	}
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	b := (*buf)[:n]
	got, err := read(b)
	if err == nil && got < n {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return at, err
	}
	k := 0
	for i, keep := range seg.Keep {
		if keep {
			dst[k] = b[i]
			k++
		}
	}
	return at + k, nil
}
