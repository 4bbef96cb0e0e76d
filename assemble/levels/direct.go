package levels

import (
	"fmt"
	"io"
	"math"

	"github.com/trevni-go/trevni/format"
)

// directColumn is a column of a format.Source (format.ColumnReader.Source)
// that hands a leaf its records' lengths and values straight from the
// source's own encoding, with no Trevni 2 block made and decoded between:
// package trevni1's columns made from one version-1 column of the shapes
// its fast paths know (top-level fields, top-level arrays, ["null", T]).
// A leaf whose columns all offer it, read by writeFlat or writeBatched,
// reads them so (the direct route); any other reads the ColumnReaders.
type directColumn interface {
	// Direct reports whether DirectRead reads the column, its values
	// held as Go values of type t (format.Null: lengths only).
	Direct(t format.ValueType) bool
	// DirectSeek makes row the next record DirectRead reads.
	DirectSeek(row int64)
	// DirectRead reads the next records, up to len(lens): each one's
	// length (or its number of values, for a column of values) into lens,
	// its values appended to vals (*[]bool, *[]int32, *[]int64,
	// *[]float32, *[]float64, or a func([]byte) handed each string; nil
	// for none). It stops early, after a block, once most values are read.
	DirectRead(lens []int32, vals any, most int) (int, error)
	// DirectLoaded returns the blocks DirectRead entered and their stored
	// bytes, as format.ColumnReader.Loaded counts the blocks it loads.
	DirectLoaded() (int, int64)
}

// noDirect turns the direct route off (a switch of the tests).
var noDirect bool

// directOf returns the direct route of column reader c, if its source
// offers one for values of type t.
func directOf(c *format.ColumnReader, t format.ValueType) directColumn {
	if c == nil {
		return nil
	}
	d, ok := c.Source().(directColumn)
	if !ok || !d.Direct(t) {
		return nil
	}
	return d
}

// setDirect sets the direct route up where the leaf's reads are writeFlat's
// or writeBatched's and its every column offers one: dvals for the values
// (and the lengths of a column holding both), dlens for the lengths of a
// column apart, each positioned where its ColumnReader is.
func (r *Reader) setDirect() {
	if noDirect || r.eager || r.vals == nil {
		return
	}
	var lens *format.ColumnReader
	switch {
	case r.flat():
	case r.leaf.single() >= 0 && r.batched(r.leaf.single()):
		lens = r.steps[r.leaf.single()]
	default:
		return
	}
	for _, c := range r.list {
		if c != r.vals && c != lens {
			return
		}
	}
	dv := directOf(r.vals, r.leaf.Type)
	if dv == nil {
		return
	}
	var dl directColumn
	if lens != nil && lens != r.vals {
		if dl = directOf(lens, format.Null); dl == nil {
			return
		}
		dl.DirectSeek(lens.Row() + 1)
	}
	dv.DirectSeek(r.vals.Row() + 1)
	r.dvals, r.dlens = dv, dl
	r.addFn = r.addBytes
}

// seekDirect positions the direct route's columns at row.
func (r *Reader) seekDirect(row int64) {
	r.dvals.DirectSeek(row)
	if r.dlens != nil {
		r.dlens.DirectSeek(row)
	}
}

// loaded returns the blocks column reader c loaded and their stored
// bytes, or those its direct route entered.
func (r *Reader) loaded(c *format.ColumnReader) (int, int64) {
	if r.dvals != nil {
		if c == r.vals {
			return r.dvals.DirectLoaded()
		}
		if r.dlens != nil {
			return r.dlens.DirectLoaded()
		}
	}
	return c.Loaded()
}

// directValues returns where the direct route puts the values of the
// leaf: the run's slice of its type (an enum's ordinals in r.syms), or
// r.addFn for byte strings.
func (r *Reader) directValues() any {
	switch r.leaf.Type {
	case format.Boolean:
		return &r.run.Bools
	case format.Int:
		if r.leaf.Symbols != nil {
			r.syms = r.syms[:0]
			return &r.syms
		}
		return &r.run.I32
	case format.Long:
		return &r.run.I64
	case format.Float:
		return &r.run.F32
	case format.Double:
		return &r.run.F64
	}
	return r.addFn
}

// held returns how many values of the leaf's type the run holds (an
// enum's ordinals in r.syms).
func (r *Reader) held() int {
	switch r.leaf.Type {
	case format.Boolean:
		return len(r.run.Bools)
	case format.Int:
		if r.leaf.Symbols != nil {
			return len(r.syms)
		}
		return len(r.run.I32)
	case format.Long:
		return len(r.run.I64)
	case format.Float:
		return len(r.run.F32)
	case format.Double:
		return len(r.run.F64)
	}
	return len(r.run.Ends)
}

// directDone checks the values the direct route appended to the run, from
// the before-th on (held's count), as many as lens says, of rows of
// lengths lens from row first on, and turns an enum's ordinals into
// symbols.
func (r *Reader) directDone(lens []int32, before int, first int64) error {
	want := 0
	for _, l := range lens {
		want += int(l)
	}
	if got := r.held() - before; got != want {
		return fmt.Errorf("%d values where their lengths say %d", got, want)
	}
	at := before
	if r.leaf.Symbols != nil && r.leaf.Type == format.Int {
		return r.symbolsOf(r.syms)
	}
	if r.leaf.ByteArray() {
		if i, bad := r.badBytes(at); i >= 0 {
			return fmt.Errorf("row %d: %s", first+int64(rowOf(lens, i-at)), bad)
		}
	}
	return nil
}

// readFlatDirect is writeFlat's read of k rows from row first by the
// direct route: one value a row.
func (r *Reader) readFlatDirect(k int, first int64) (int, error) {
	r.run.reset()
	r.lens = grow(r.lens, k)
	vals := r.directValues()
	got, err := r.dvals.DirectRead(r.lens, vals, math.MaxInt)
	for i, l := range r.lens[:got] {
		if l != 1 {
			return i, fmt.Errorf("row %d: %d values where a record has one", first+int64(i), l)
		}
	}
	if err == nil {
		err = r.directDone(r.lens[:got], 0, first)
	}
	if r.leaf.ByteArray() && got > 0 {
		r.avg = max(float64(len(r.run.Data))/float64(got), 1)
	}
	return got, err
}

// readArraysDirect is readArrays by the direct route.
func (r *Reader) readArraysDirect(lens []int32, first int64) (int, error) {
	vals := r.directValues()
	at := r.held()
	got, err := r.dvals.DirectRead(lens, vals, format.MaxArrayItems)
	if err == nil {
		err = r.directDone(lens[:got], at, first)
	}
	return got, err
}

// readItemsDirect is readItems by the direct route: the values of the
// rows whose lengths lens holds (read from the lengths column), whose
// numbers of values in the values column must be those.
func (r *Reader) readItemsDirect(lens []int32, first int64) error {
	vals := r.directValues()
	at := r.held()
	r.counts = grow(r.counts, len(lens))
	got, err := r.dvals.DirectRead(r.counts, vals, math.MaxInt)
	if err == nil && got < len(lens) {
		err = fmt.Errorf("rows %d to %d: %w", first+int64(got), first+int64(len(lens))-1, io.ErrUnexpectedEOF)
	}
	if err != nil {
		return err
	}
	for i, l := range lens {
		if r.counts[i] != l {
			return fmt.Errorf("row %d: %d values beneath an array of %d items", first+int64(i), r.counts[i], l)
		}
	}
	return r.directDone(lens, at, first)
}
