package levels

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/utf8check"
)

// Reader reads one leaf's columns as runs of levels and values. It is
// not safe for concurrent use; the readers of a part's leaves may run on
// goroutines of their own.
type Reader struct {
	leaf       *Leaf
	run        Run
	rd         map[int]*format.ColumnReader
	list       []*format.ColumnReader   // rd's readers, to start each row on
	steps      []*format.ColumnReader   // the reader of each step's column (nil for Defined and Choice)
	choice     [][]*format.ColumnReader // the readers of each Choice step's branch columns
	vals       *format.ColumnReader     // nil for a leaf of nulls or of branches
	branchCols []*format.ColumnReader   // a leaf of branches: the reader of each branch column (nil for null)
	full       int16                    // the definition level of a value
	pos        int64                    // the row the readers are before
	row        int64                    // the part's row being read, for errors
	start      int                      // the row's first level in run.Defs
	lens       []int32
	syms       []int32 // an enum's ordinals, before they become symbols
	keep       []bool  // the rows of the segment being read that are kept (nil: all)
	kept       int     // the rows of the segment already flushed
	avg        float64 // the mean bytes of the byte strings a flat leaf read, 0 before any
	alts       [][]alt // the readers of each step's Alts
	eager      bool    // values are promoted as read, not at flush: a leaf of Alts

	// The direct route (direct.go): the leaf's values column and lengths
	// column apart (nil: none) read from their source's own encoding; nil
	// dvals where the leaf reads its ColumnReaders.
	dvals, dlens directColumn
	addFn        func([]byte) // r.addBytes, made once
	counts       []int32      // the values of each row of a values column
}

// alt is the reader of an Alt: of the leaf's levels and values after its
// step where the file's union takes another branch read as the same.
type alt struct {
	which int
	r     *Reader
}

// NewReader returns a reader of leaf l, whose columns open opens (a
// reader of each distinct column, before the part's first row). On an
// error the readers opened are closed.
func NewReader(l *Leaf, open func(col int) (*format.ColumnReader, error)) (*Reader, error) {
	if err := l.check(); err != nil {
		return nil, err
	}
	r := &Reader{leaf: l, rd: map[int]*format.ColumnReader{}}
	for _, c := range l.Columns() {
		cr, err := open(c)
		if err != nil {
			r.Close()
			return nil, err
		}
		r.rd[c] = cr
		r.list = append(r.list, cr)
	}
	r.init()
	r.setDirect()
	return r, nil
}

// init sets the reader of leaf r.leaf, whose columns' readers r.rd holds,
// up: its steps' readers and those of its Alts, which share them.
func (r *Reader) init() {
	l := r.leaf
	r.full = l.MaxDef()
	if !l.Null && l.Branch == nil && l.Const == nil && l.Col >= 0 {
		r.vals = r.rd[l.Col]
	}
	for _, c := range l.Branch {
		var cr *format.ColumnReader
		if c >= 0 {
			cr = r.rd[c]
		}
		r.branchCols = append(r.branchCols, cr)
	}
	r.steps = make([]*format.ColumnReader, len(l.Steps))
	r.choice = make([][]*format.ColumnReader, len(l.Steps))
	r.alts = make([][]alt, len(l.Steps))
	for i, s := range l.Steps {
		switch {
		case s.Kind == Optional && s.Cols == nil, s.Kind == Repeated:
			r.steps[i] = r.rd[s.Col]
		case s.Kind == Choice, s.Kind == Must, s.Kind == Optional:
			for _, c := range s.Cols {
				r.choice[i] = append(r.choice[i], r.rd[c])
			}
		}
		for _, a := range s.Also {
			// What a value becomes is the sink's choice, made on l.
			al := *a.Leaf
			al.Symbols, al.Decimal, al.UUID = l.Symbols, l.Decimal, l.UUID
			sub := &Reader{leaf: &al, rd: r.rd}
			sub.init()
			r.alts[i] = append(r.alts[i], alt{which: a.Which, r: sub})
			r.eager = true
		}
	}
}

// follow reads the rest of a record's levels and values from step i on
// by the Alt of step i-1 that the file's union takes (branch taken), if
// there is one, appending them to the reader's.
func (r *Reader) follow(i, taken int, def, rep int16) (bool, error) {
	for _, a := range r.alts[i-1] {
		if a.which != taken {
			continue
		}
		sub := a.r
		sub.run.reset()
		sub.start = 0
		if err := sub.walk(i, def, rep); err != nil {
			return true, err
		}
		if sub.leaf.Promote != format.Null && !sub.eager {
			sub.promote()
		}
		r.run.appendRun(&sub.run, r.leaf.ByteArray())
		return true, nil
	}
	return false, nil
}

// appendRun appends the levels and values of src, whose values are of
// the same type, to the run.
func (r *Run) appendRun(src *Run, bytes bool) {
	r.Defs = append(r.Defs, src.Defs...)
	r.Reps = append(r.Reps, src.Reps...)
	if bytes {
		at := len(r.Data)
		r.Data = append(r.Data, src.Data...)
		for _, e := range src.Ends {
			r.Ends = append(r.Ends, at+e)
		}
		return
	}
	r.Bools = append(r.Bools, src.Bools...)
	r.I32 = append(r.I32, src.I32...)
	r.I64 = append(r.I64, src.I64...)
	r.F32 = append(r.F32, src.F32...)
	r.F64 = append(r.F64, src.F64...)
}

// Columns returns the reader of each column the leaf reads, by column.
func (r *Reader) Columns() map[int]*format.ColumnReader { return r.rd }

// SetReadAheadEnd tells every column reader the row before which it
// reads blocks ahead (see format.ColumnReader.SetReadAheadEnd).
func (r *Reader) SetReadAheadEnd(end int64) {
	for _, c := range r.list {
		c.SetReadAheadEnd(end)
	}
}

// Close closes the column readers.
func (r *Reader) Close() {
	for _, c := range r.list {
		c.Close()
	}
}

// Segment is a run of a part's rows that a row group reads: rows First
// to First+N-1, of which those Keep marks are kept (all of them if Keep
// is nil).
type Segment struct {
	First, N int64
	Keep     []bool
}

// maxRowLevels bounds the levels one record gives one leaf: a file
// whose lengths claim more is refused.
const maxRowLevels = 1 << 24

// Read reads the segments' rows of the leaf, seeking the readers to each
// segment that does not follow the last, and hands their levels and
// values to sink a run at a time (runs end at whole rows, after at most
// about flushLevels levels). It checks ctx every few thousand rows.
func (r *Reader) Read(ctx context.Context, segs []Segment, sink func(*Run) error) error {
	return r.writeSegments(ctx, sink, segs)
}

// writeSegments reads the segments' rows of the leaf's columns into runs for sink,
// seeking the readers to each segment that does not follow the last.
func (r *Reader) writeSegments(ctx context.Context, sink func(*Run) error, segs []Segment) error {
	for _, seg := range segs {
		if r.pos != seg.First && r.dvals != nil {
			r.seekDirect(seg.First)
		} else if r.pos != seg.First {
			for _, c := range r.list {
				if err := c.SeekRow(seg.First); err != nil {
					return fmt.Errorf("row %d: %w", seg.First, err)
				}
			}
		}
		r.keep, r.kept = seg.Keep, 0
		err := r.write(ctx, sink, seg.First, seg.N)
		r.keep = nil
		if err != nil {
			return err
		}
		r.pos = seg.First + seg.N
	}
	return nil
}

// write reads rows from to from+n of the leaf's columns into runs for sink.
func (r *Reader) write(ctx context.Context, sink func(*Run) error, from, n int64) error {
	if r.flat() {
		return r.writeFlat(ctx, sink, from, n)
	}
	if i := r.leaf.single(); i >= 0 {
		if r.batched(i) {
			return r.writeBatched(ctx, sink, from, n, i)
		}
		return r.writeSingle(ctx, sink, from, n, i)
	}
	for q := range n {
		if q%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r.row = from + q
		for _, c := range r.list {
			if err := c.StartRow(); err != nil {
				return fmt.Errorf("row %d: %w", r.row, err)
			}
		}
		r.start = len(r.run.Defs)
		if err := r.walk(0, 0, 0); err != nil {
			return fmt.Errorf("row %d: %w", r.row, err)
		}
		if len(r.run.Defs) >= flushLevels {
			if err := r.flush(sink); err != nil {
				return err
			}
		}
	}
	return r.flush(sink)
}

// single returns the index of the leaf's one step that reads a column (an
// array or a ["null", T] union), the others only optional Parquet nodes
// always there; -1 if it has none or several.
func (l *Leaf) single() int {
	if l.Null || l.Branch != nil || l.Const != nil || l.EnumMap != nil || l.absent() {
		return -1
	}
	at := -1
	for i, s := range l.Steps {
		if s.Kind == Choice || s.Kind == Must || s.Cols != nil || s.Also != nil {
			return -1
		}
		if s.Kind != Defined {
			if at >= 0 {
				return -1
			}
			at = i
		}
	}
	return at
}

// writeSingle writes rows from to from+n of a leaf of one step that reads
// a column, step i (see single): each row's length from the step's column
// gives its levels, and its values follow in one run of the value column,
// with no walk down the steps.
func (r *Reader) writeSingle(ctx context.Context, sink func(*Run) error, from, n int64, i int) error {
	s := &r.leaf.Steps[i]
	lens, vals := r.steps[i], r.vals
	// A null or empty row's definition level counts the steps before the
	// step (all always there); a value's counts them all.
	empty, full := int16(i), int16(len(r.leaf.Steps))
	most := maxRowLevels
	if s.Kind == Optional {
		most = 1
	}
	for q := range n {
		if q%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r.row = from + q
		if err := lens.StartRow(); err != nil {
			return fmt.Errorf("row %d: %w", r.row, err)
		}
		if vals != lens {
			if err := vals.StartRow(); err != nil {
				return fmt.Errorf("row %d: %w", r.row, err)
			}
		}
		k, err := lens.NextLength()
		if err != nil {
			return fmt.Errorf("row %d: %w", r.row, err)
		}
		if k == 0 {
			r.run.Defs = append(r.run.Defs, empty)
			r.run.Reps = append(r.run.Reps, 0)
			continue
		}
		if k > most {
			if s.Kind == Optional {
				return fmt.Errorf("row %d: union branch column %d has length %d", r.row, s.Col, k)
			}
			return fmt.Errorf("row %d: more than %d values in one record", r.row, maxRowLevels)
		}
		at := len(r.run.Defs)
		r.run.Defs, r.run.Reps = extend(r.run.Defs, k), extend(r.run.Reps, k)
		defs, reps := r.run.Defs[at:], r.run.Reps[at:]
		for j := range defs {
			defs[j] = full
			reps[j] = s.Rep
		}
		reps[0] = 0
		if err := r.values(k); err != nil {
			return fmt.Errorf("row %d: %w", r.row, err)
		}
		if len(r.run.Defs) >= flushLevels {
			if err := r.flush(sink); err != nil {
				return err
			}
		}
	}
	return r.flush(sink)
}

// batched says whether the batch reads of arrays read a leaf of one step
// that reads a column, step i: a top-level array column holding the
// lengths and the values, or a top-level array column of nulls holding the
// lengths and a column beneath it, not an array, holding the values.
func (r *Reader) batched(i int) bool {
	if r.leaf.UUID || r.leaf.Decimal > 0 {
		return false
	}
	lm, vm := r.steps[i].Meta(), r.vals.Meta()
	if !lm.Array || lm.Parent != "" {
		return false
	}
	if r.steps[i] == r.vals {
		return true
	}
	return lm.Type == format.Null && !vm.Array && vm.Parent != ""
}

// batchRows is the most rows writeBatched reads at once, and batchItems
// the most values beneath an array it reads at once (but for a row of
// more).
const (
	batchRows  = 4096
	batchItems = 64 << 10
)

// writeBatched is writeSingle by the batch reads of arrays (see batched):
// the lengths and the values of many rows are read at once, and the
// levels follow from the lengths.
func (r *Reader) writeBatched(ctx context.Context, sink func(*Run) error, from, n int64, i int) error {
	s := &r.leaf.Steps[i]
	lens, vals := r.steps[i], r.vals
	most := int32(maxRowLevels)
	if s.Kind == Optional {
		most = 1
	}
	for done := int64(0); done < n; {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := int(min(n-done, batchRows))
		r.lens = grow(r.lens, k)
		// The lengths are checked before the values beneath them are
		// read, and after the values of a column holding both (whose
		// batch read may stop early, its items bounded).
		var got int
		var err error
		switch {
		case r.dvals != nil && lens == vals:
			got, err = r.readArraysDirect(r.lens, from+done)
		case r.dvals != nil:
			got, err = r.dlens.DirectRead(r.lens, nil, math.MaxInt)
		case lens == vals:
			got, err = r.readArrays(r.lens, from+done)
		default:
			got, err = lens.ReadLengths(r.lens)
		}
		if err == nil && (got == 0 || lens != vals && got < k) {
			err = io.ErrUnexpectedEOF
		}
		if err == nil {
			r.lens = r.lens[:got]
			err = r.checkLengths(s, most, from+done)
		}
		if err != nil {
			return fmt.Errorf("rows %d to %d: %w", from+done, from+done+int64(k)-1, err)
		}
		// The values beneath an array are read for runs of rows of at
		// most batchItems values (or one row of more), so that what a
		// leaf holds stays bounded however long the arrays; a column
		// holding both has had the batch's read already.
		all := r.lens
		empty, full := int16(i), int16(len(r.leaf.Steps))
		if lens == vals {
			r.levels(all, empty, full, s.Rep)
		}
		for first := 0; lens != vals && first < len(all); {
			end, items := first, 0
			for end < len(all) && (end == first || items+int(all[end]) <= batchItems) {
				items += int(all[end])
				end++
			}
			run := all[first:end]
			read := r.readItems
			if r.dvals != nil {
				read = r.readItemsDirect
			}
			if err := read(run, from+done+int64(first)); err != nil {
				return fmt.Errorf("rows %d to %d: %w", from+done+int64(first), from+done+int64(end)-1, err)
			}
			r.levels(run, empty, full, s.Rep)
			if len(r.run.Defs) >= flushLevels {
				if err := r.flush(sink); err != nil {
					return err
				}
			}
			first = end
		}
		if len(r.run.Defs) >= flushLevels {
			if err := r.flush(sink); err != nil {
				return err
			}
		}
		done += int64(got)
	}
	return r.flush(sink)
}

// levels adds the levels of rows of the given lengths of a leaf's one
// step that reads a column: a row of length 0 has one level, of a null
// or an empty array (definition level empty, the steps before the
// step); a row of length l, l levels of values (definition level full),
// the first of repetition level 0 and the others rep.
func (r *Reader) levels(lens []int32, empty, full, rep int16) {
	levels := 0
	for _, l := range lens {
		levels += max(int(l), 1)
	}
	at := len(r.run.Defs)
	r.run.Defs, r.run.Reps = extend(r.run.Defs, levels), extend(r.run.Reps, levels)
	defs, reps := r.run.Defs[at:], r.run.Reps[at:]
	fill(defs, full)
	fill(reps, rep)
	j := 0
	for _, l := range lens {
		reps[j] = 0
		if l == 0 {
			defs[j] = empty
			l = 1
		}
		j += int(l)
	}
}

// checkLengths checks the lengths of rows read from row first on: a
// union's are 0 or 1, and an array's at most maxRowLevels.
func (r *Reader) checkLengths(s *Step, most int32, first int64) error {
	for r, l := range r.lens {
		if l > most {
			if s.Kind == Optional {
				return fmt.Errorf("row %d: union branch column %d has length %d", first+int64(r), s.Col, l)
			}
			return fmt.Errorf("row %d: more than %d values in one record", first+int64(r), maxRowLevels)
		}
	}
	return nil
}

// readArrays reads the lengths and values of len(lens) rows of a
// top-level array column holding both. Row first is the first of them, for errors.
func (r *Reader) readArrays(lens []int32, first int64) (int, error) {
	c := r.vals
	switch r.leaf.Type {
	case format.Boolean:
		n, v, err := format.ReadArrays(c, lens, r.run.Bools)
		r.run.Bools = v
		return n, err
	case format.Int:
		if r.leaf.Symbols != nil {
			n, v, err := format.ReadArrays(c, lens, r.syms[:0])
			r.syms = v
			if err == nil {
				err = r.symbolsOf(v)
			}
			return n, err
		}
		n, v, err := format.ReadArrays(c, lens, r.run.I32)
		r.run.I32 = v
		return n, err
	case format.Long:
		n, v, err := format.ReadArrays(c, lens, r.run.I64)
		r.run.I64 = v
		return n, err
	case format.Float:
		n, v, err := format.ReadArrays(c, lens, r.run.F32)
		r.run.F32 = v
		return n, err
	case format.Double:
		n, v, err := format.ReadArrays(c, lens, r.run.F64)
		r.run.F64 = v
		return n, err
	case format.String, format.Bytes:
		at := len(r.run.Ends)
		n, err := c.ReadArrayBytesTo(lens, r.addBytes)
		if i, bad := r.badBytes(at); i >= 0 {
			return n, fmt.Errorf("row %d: %s", first+int64(rowOf(lens[:n], i-at)), bad)
		}
		return n, err
	}
	return 0, fmt.Errorf("column type %s", r.leaf.Type)
}

// readItems reads the values of rows of a column beneath an array,
// lens[i] of them for the i-th row. Row first is the first of them, for errors.
func (r *Reader) readItems(lens []int32, first int64) error {
	c := r.vals
	var err error
	switch r.leaf.Type {
	case format.Boolean:
		r.run.Bools, err = format.ReadItems(c, lens, r.run.Bools)
	case format.Int:
		if r.leaf.Symbols != nil {
			r.syms, err = format.ReadItems(c, lens, r.syms[:0])
			if err == nil {
				err = r.symbolsOf(r.syms)
			}
			return err
		}
		r.run.I32, err = format.ReadItems(c, lens, r.run.I32)
	case format.Long:
		r.run.I64, err = format.ReadItems(c, lens, r.run.I64)
	case format.Float:
		r.run.F32, err = format.ReadItems(c, lens, r.run.F32)
	case format.Double:
		r.run.F64, err = format.ReadItems(c, lens, r.run.F64)
	case format.String, format.Bytes:
		at := len(r.run.Ends)
		err = c.ReadItemBytesTo(lens, r.addBytes)
		if i, bad := r.badBytes(at); i >= 0 {
			return fmt.Errorf("row %d: %s", first+int64(rowOf(lens, i-at)), bad)
		}
	default:
		err = fmt.Errorf("column type %s", r.leaf.Type)
	}
	return err
}

// symbolsOf appends the symbols of enum ordinals to the byte-array values.
func (r *Reader) symbolsOf(ords []int32) error {
	syms := r.leaf.Symbols
	for _, v := range ords {
		if v < 0 || int(v) >= len(syms) {
			return fmt.Errorf("enum ordinal %d of %d symbols", v, len(syms))
		}
		r.run.Data = append(r.run.Data, syms[v]...)
		r.run.Ends = append(r.run.Ends, len(r.run.Data))
	}
	return nil
}

// addBytes appends a string or bytes value to the leaf's byte-array
// values; badBytes checks them after.
func (r *Reader) addBytes(v []byte) {
	r.run.Data = append(r.run.Data, v...)
	r.run.Ends = append(r.run.Ends, len(r.run.Data))
}

// badBytes returns the index in r.run.Ends of the first of the byte-array
// values from index at on that is bad (a string that is not UTF-8, or a
// fixed not of its size), and what is wrong with it; -1 if none is. The
// strings are checked together: if their bytes end to end are UTF-8 and
// none starts with a continuation byte, every one is UTF-8 (no value ends
// inside a character); only if not is each checked alone.
func (r *Reader) badBytes(at int) (int, string) {
	start := 0
	if at > 0 {
		start = r.run.Ends[at-1]
	}
	if fixed := r.leaf.Fixed; fixed > 0 {
		for i, prev := at, start; i < len(r.run.Ends); i++ {
			if n := r.run.Ends[i] - prev; n != fixed {
				return i, fmt.Sprintf("a fixed of %d bytes, not %d", n, fixed)
			}
			prev = r.run.Ends[i]
		}
	}
	if r.leaf.ValueType() != format.String {
		return -1, ""
	}
	whole := utf8.Valid(r.run.Data[start:])
	for i, prev := at, start; whole && i < len(r.run.Ends); i++ {
		if r.run.Ends[i] > prev && !utf8.RuneStart(r.run.Data[prev]) {
			whole = false
		}
		prev = r.run.Ends[i]
	}
	if whole {
		return -1, ""
	}
	for i, prev := at, start; i < len(r.run.Ends); i++ {
		if !utf8check.Valid(r.run.Data[prev:r.run.Ends[i]]) {
			return i, "a string that is not UTF-8"
		}
		prev = r.run.Ends[i]
	}
	return -1, ""
}

// rowOf returns the index of the row of lens that holds value j (counted
// from the first row's first value).
func rowOf(lens []int32, j int) int {
	for r, l := range lens {
		if j < int(l) {
			return r
		}
		j -= int(l)
	}
	return len(lens)
}

// values reads the next k values of the leaf, which one record holds.
func (r *Reader) values(k int) error {
	c := r.vals
	switch r.leaf.Type {
	case format.Int:
		if r.leaf.Symbols == nil {
			return readEach(&r.run.I32, k, c.ReadInt)
		}
	case format.Long:
		return readEach(&r.run.I64, k, c.ReadLong)
	case format.Float:
		return readEach(&r.run.F32, k, c.ReadFloat)
	case format.Double:
		return readEach(&r.run.F64, k, c.ReadDouble)
	}
	for range k {
		if err := r.value(); err != nil {
			return err
		}
	}
	return nil
}

// readEach appends k values read one by one to *vals; on an error, those
// read before it.
func readEach[T any](vals *[]T, k int, read func() (T, error)) error {
	at := len(*vals)
	s := extend(*vals, k)
	for j := range s[at:] {
		v, err := read()
		if err != nil {
			*vals = s[:at+j]
			return err
		}
		s[at+j] = v
	}
	*vals = s
	return nil
}

// walk reads one record's levels and values from step i on.
func (r *Reader) walk(i int, def, rep int16) error {
	if i == len(r.leaf.Steps) {
		r.level(def, rep)
		if r.leaf.Null {
			return nil
		}
		if r.leaf.Branch != nil {
			return r.taken()
		}
		if r.leaf.Const != nil {
			return r.constantOf(r.leaf.Const)
		}
		if err := r.value(); err != nil {
			return err
		}
		if r.eager && r.leaf.Promote != format.Null {
			r.promoteLast()
		}
		return nil
	}
	s := &r.leaf.Steps[i]
	switch s.Kind {
	case Defined:
		return r.walk(i+1, def+1, rep)
	case Absent:
		r.level(def, rep)
		return nil
	case Default:
		return r.preset(s.Preset, def, rep)
	case Must:
		taken, err := r.branch(i)
		if err != nil {
			return err
		}
		if taken != s.Which {
			if taken < 0 {
				return fmt.Errorf("the file holds a null where the reader's type takes none")
			}
			if ok, err := r.follow(i+1, taken, def, rep); ok {
				return err
			}
			return fmt.Errorf("the file's union takes branch column %d, which the reader's type does not read", s.Cols[taken])
		}
		return r.walk(i+1, def, rep)
	case Optional:
		if s.Cols != nil {
			taken, err := r.branch(i)
			switch {
			case err != nil:
				return err
			case taken < 0:
				r.level(def, rep)
				return nil
			case taken == s.Which:
				return r.walk(i+1, def+1, rep)
			}
			if ok, err := r.follow(i+1, taken, def+1, rep); ok {
				return err
			}
			return fmt.Errorf("the file's union branch column %d is taken, and the reader's union has no such branch", s.Cols[taken])
		}
		k, err := r.steps[i].NextLength()
		if err != nil {
			return err
		}
		switch k {
		case 0:
			r.level(def, rep)
			return nil
		case 1:
			return r.walk(i+1, def+1, rep)
		}
		return fmt.Errorf("union branch column %d has length %d", s.Col, k)
	case Choice:
		taken, err := r.branch(i)
		if err != nil {
			return err
		}
		if taken >= 0 && s.Foreign != nil && s.Foreign[taken] {
			return fmt.Errorf("the file's union branch column %d is taken, and the reader's union has no such branch", s.Cols[taken])
		}
		if s.Nullable {
			if taken < 0 {
				r.level(def, rep)
				return nil
			}
			def++
		} else if taken < 0 {
			return fmt.Errorf("no branch of a union of no null is taken")
		}
		if taken != s.Which {
			if ok, err := r.follow(i+1, taken, def+1, rep); ok {
				return err
			}
			r.level(def, rep)
			return nil
		}
		return r.walk(i+1, def+1, rep)
	}
	k, err := r.steps[i].NextLength()
	if err != nil {
		return err
	}
	if k == 0 {
		r.level(def, rep)
		return nil
	}
	for j := range k {
		rp := s.Rep
		if j == 0 {
			rp = rep
		}
		if err := r.walk(i+1, def+1, rp); err != nil {
			return err
		}
		if len(r.run.Defs)-r.start > maxRowLevels {
			return fmt.Errorf("more than %d values in one record", maxRowLevels)
		}
	}
	return nil
}

// level adds a level.
func (r *Reader) level(def, rep int16) {
	r.run.Defs = append(r.run.Defs, def)
	r.run.Reps = append(r.run.Reps, rep)
}

// branch reads the lengths of the branch columns of Choice step i and
// returns the index of the branch taken, -1 for none (null). The value of
// a simple branch not on the leaf's path, held in its branch column, is
// skipped; one on the path is read by the walk.
func (r *Reader) branch(i int) (int, error) {
	s := &r.leaf.Steps[i]
	taken := -1
	for b, c := range r.choice[i] {
		k, err := c.NextLength()
		if err != nil {
			return 0, err
		}
		switch {
		case k == 0:
			continue
		case k != 1:
			return 0, fmt.Errorf("union branch column %d has length %d", s.Cols[b], k)
		case taken >= 0:
			return 0, fmt.Errorf("union branch columns %d and %d both taken", s.Cols[taken], s.Cols[b])
		}
		taken = b
		if b != s.Which && !r.reads(i, b) && c.Meta().Type != format.Null {
			if err := c.Skip(); err != nil {
				return 0, err
			}
		}
	}
	return taken, nil
}

// reads says whether an Alt of step i reads branch b.
func (r *Reader) reads(i, b int) bool {
	for _, a := range r.alts[i] {
		if a.which == b {
			return true
		}
	}
	return false
}

// preset adds the levels and values of a Default step reached at
// definition level def and repetition level rep.
func (r *Reader) preset(pr *Preset, def, rep int16) error {
	k := 0
	for j, d := range pr.Defs {
		rp := pr.Reps[j]
		if j == 0 {
			rp = rep
		}
		r.level(def+d, rp)
		if def+d == r.full && !r.leaf.Null {
			if k >= len(pr.Vals) {
				return fmt.Errorf("a default's values cut short")
			}
			if err := r.constantOf(pr.Vals[k]); err != nil {
				return err
			}
			k++
		}
	}
	return nil
}

// taken reads the branch a leaf of branches' union takes, as a value:
// the index of the branch whose column has length 1, or of the null
// branch if none has; the value of a simple branch, in its branch
// column, is skipped.
func (r *Reader) taken() error {
	taken, null := -1, -1
	for b, c := range r.branchCols {
		if c == nil {
			null = b
			continue
		}
		k, err := c.NextLength()
		if err != nil {
			return err
		}
		switch {
		case k == 0:
			continue
		case k != 1:
			return fmt.Errorf("union branch column %d has length %d", r.leaf.Branch[b], k)
		case taken >= 0:
			return fmt.Errorf("union branch columns %d and %d both taken", r.leaf.Branch[taken], r.leaf.Branch[b])
		}
		taken = b
		if c.Meta().Type != format.Null {
			if err := c.Skip(); err != nil {
				return err
			}
		}
	}
	if taken < 0 {
		if null < 0 {
			return fmt.Errorf("no branch of a union of no null is taken")
		}
		taken = null
	}
	if m := r.leaf.BranchMap; m != nil {
		if m[taken] < 0 {
			return fmt.Errorf("the file's union branch %d is taken, and the reader's union has no such branch", taken)
		}
		taken = m[taken]
	}
	r.run.I32 = append(r.run.I32, int32(taken))
	return nil
}

// value reads one value of the leaf.
func (r *Reader) value() error {
	c := r.vals
	switch r.leaf.Type {
	case format.Boolean:
		v, err := c.ReadBool()
		r.run.Bools = append(r.run.Bools, v)
		return err
	case format.Int:
		v, err := c.ReadInt()
		if err == nil && r.leaf.EnumMap != nil {
			if v < 0 || int(v) >= len(r.leaf.EnumMap) {
				return fmt.Errorf("enum ordinal %d of %d symbols", v, len(r.leaf.EnumMap))
			}
			m := r.leaf.EnumMap[v]
			if m < 0 {
				return fmt.Errorf("the file's enum ordinal %d has no symbol in the reader's enum, which has no default", v)
			}
			v = m
		}
		if err == nil && r.leaf.Symbols != nil {
			if v < 0 || int(v) >= len(r.leaf.Symbols) {
				return fmt.Errorf("enum ordinal %d of %d symbols", v, len(r.leaf.Symbols))
			}
			r.run.Data = append(r.run.Data, r.leaf.Symbols[v]...)
			r.run.Ends = append(r.run.Ends, len(r.run.Data))
			return nil
		}
		r.run.I32 = append(r.run.I32, v)
		return err
	case format.Long:
		v, err := c.ReadLong()
		r.run.I64 = append(r.run.I64, v)
		return err
	case format.Float:
		v, err := c.ReadFloat()
		r.run.F32 = append(r.run.F32, v)
		return err
	case format.Double:
		v, err := c.ReadDouble()
		r.run.F64 = append(r.run.F64, v)
		return err
	case format.String, format.Bytes:
		v, err := c.ReadBytes()
		if err != nil {
			return err
		}
		if r.leaf.ValueType() == format.String && !utf8check.Valid(v) {
			return fmt.Errorf("a string that is not UTF-8")
		}
		if r.leaf.Fixed > 0 && len(v) != r.leaf.Fixed {
			return fmt.Errorf("a fixed of %d bytes, not %d", len(v), r.leaf.Fixed)
		}
		switch {
		case r.leaf.UUID:
			if r.run.Data, err = appendUUID(r.run.Data, v); err != nil {
				return err
			}
		case r.leaf.Decimal > 0:
			if r.run.Data, err = appendDecimal(r.run.Data, v, r.leaf.Decimal); err != nil {
				return err
			}
		default:
			r.run.Data = append(r.run.Data, v...)
		}
		r.run.Ends = append(r.run.Ends, len(r.run.Data))
		return nil
	}
	return fmt.Errorf("column type %s", r.leaf.Type)
}

// promote turns the values held from the leaf's Type to its Promote
// type (byte strings are the same bytes).
func (r *Reader) promote() {
	run := &r.run
	switch r.leaf.Type {
	case format.Int:
		switch r.leaf.Promote {
		case format.Long:
			run.I64 = convert(run.I64[:0], run.I32)
		case format.Float:
			run.F32 = convert(run.F32[:0], run.I32)
		case format.Double:
			run.F64 = convert(run.F64[:0], run.I32)
		}
		run.I32 = run.I32[:0]
	case format.Long:
		switch r.leaf.Promote {
		case format.Float:
			run.F32 = convert(run.F32[:0], run.I64)
		case format.Double:
			run.F64 = convert(run.F64[:0], run.I64)
		}
		run.I64 = run.I64[:0]
	case format.Float:
		run.F64 = convert(run.F64[:0], run.F32)
		run.F32 = run.F32[:0]
	}
}

// promoteLast promotes the last value held from the leaf's Type to its
// Promote type (a leaf of Alts, whose values are held promoted).
func (r *Reader) promoteLast() {
	run := &r.run
	switch r.leaf.Type {
	case format.Int:
		v := run.I32[len(run.I32)-1]
		run.I32 = run.I32[:len(run.I32)-1]
		switch r.leaf.Promote {
		case format.Long:
			run.I64 = append(run.I64, int64(v))
		case format.Float:
			run.F32 = append(run.F32, float32(v))
		case format.Double:
			run.F64 = append(run.F64, float64(v))
		}
	case format.Long:
		v := run.I64[len(run.I64)-1]
		run.I64 = run.I64[:len(run.I64)-1]
		switch r.leaf.Promote {
		case format.Float:
			run.F32 = append(run.F32, float32(v))
		case format.Double:
			run.F64 = append(run.F64, float64(v))
		}
	case format.Float:
		v := run.F32[len(run.F32)-1]
		run.F32 = run.F32[:len(run.F32)-1]
		run.F64 = append(run.F64, float64(v))
	}
}

// convert appends the values of src, converted, to dst.
func convert[D int64 | float32 | float64, S int32 | int64 | float32](dst []D, src []S) []D {
	for _, v := range src {
		dst = append(dst, D(v))
	}
	return dst
}

// constantOf adds a default value of the leaf's.
func (r *Reader) constantOf(c any) error {
	switch v := c.(type) {
	case bool:
		r.run.Bools = append(r.run.Bools, v)
	case int32:
		if r.leaf.Symbols != nil {
			if v < 0 || int(v) >= len(r.leaf.Symbols) {
				return fmt.Errorf("enum ordinal %d of %d symbols", v, len(r.leaf.Symbols))
			}
			r.run.Data = append(r.run.Data, r.leaf.Symbols[v]...)
			r.run.Ends = append(r.run.Ends, len(r.run.Data))
			return nil
		}
		r.run.I32 = append(r.run.I32, v)
	case int64:
		r.run.I64 = append(r.run.I64, v)
	case float32:
		r.run.F32 = append(r.run.F32, v)
	case float64:
		r.run.F64 = append(r.run.F64, v)
	case string:
		return r.bytesValue([]byte(v))
	case []byte:
		return r.bytesValue(v)
	default:
		return fmt.Errorf("a default of %T", v)
	}
	return nil
}

// bytesValue adds a byte string value, a UUID's 16 bytes or a decimal
// of the leaf's width.
func (r *Reader) bytesValue(v []byte) error {
	var err error
	switch {
	case r.leaf.UUID:
		if r.run.Data, err = appendUUID(r.run.Data, v); err != nil {
			return err
		}
	case r.leaf.Decimal > 0:
		if r.run.Data, err = appendDecimal(r.run.Data, v, r.leaf.Decimal); err != nil {
			return err
		}
	default:
		r.run.Data = append(r.run.Data, v...)
	}
	r.run.Ends = append(r.run.Ends, len(r.run.Data))
	return nil
}

// appendUUID appends the 16 bytes of a UUID's canonical text.
func appendUUID(dst, text []byte) ([]byte, error) {
	if len(text) != 36 || text[8] != '-' || text[13] != '-' || text[18] != '-' || text[23] != '-' {
		return dst, fmt.Errorf("uuid %q is not of the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", text)
	}
	var hi byte
	k := 0
	for i, ch := range text {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			continue
		}
		var x byte
		switch {
		case ch >= '0' && ch <= '9':
			x = ch - '0'
		case ch >= 'a' && ch <= 'f':
			x = ch - 'a' + 10
		case ch >= 'A' && ch <= 'F':
			x = ch - 'A' + 10
		default:
			return dst, fmt.Errorf("uuid %q has a character that is not a hex digit", text)
		}
		if k%2 == 0 {
			hi = x << 4
		} else {
			dst = append(dst, hi|x)
		}
		k++
	}
	return dst, nil
}

// appendDecimal appends a big-endian two's complement decimal of any
// length (none is 0) as width bytes, sign-extended or cut: the bytes cut
// must be sign extension.
func appendDecimal(dst, v []byte, width int) ([]byte, error) {
	var ext byte
	if len(v) > 0 && v[0]&0x80 != 0 {
		ext = 0xff
	}
	for len(v) > width {
		if v[0] != ext || (v[1]&0x80 != 0) != (ext != 0) {
			return dst, fmt.Errorf("a decimal of %d bytes does not fit in %d", len(v), width)
		}
		v = v[1:]
	}
	for range width - len(v) {
		dst = append(dst, ext)
	}
	return append(dst, v...), nil
}

// flush hands the levels and values held to sink, and empties them.
func (r *Reader) flush(sink func(*Run) error) error {
	if r.keep != nil {
		r.drop()
	}
	if len(r.run.Defs) == 0 {
		return nil
	}
	if r.leaf.Promote != format.Null && !r.eager {
		r.promote()
	}
	err := sink(&r.run)
	r.run.reset()
	return err
}

// flat reports whether the leaf is a top-level field that is neither an
// array nor a union (its steps only optional Parquet nodes that are always
// there), whose values are one per row in a top-level Trevni column that
// the batch reads read, and not an enum (written as its symbols).
func (r *Reader) flat() bool {
	if r.leaf.Null || r.leaf.Branch != nil || r.leaf.Const != nil || r.leaf.Promote != format.Null || r.leaf.EnumMap != nil || r.leaf.UUID || r.leaf.Decimal > 0 {
		return false
	}
	for _, s := range r.leaf.Steps {
		if s.Kind != Defined {
			return false
		}
	}
	m := r.vals.Meta()
	return !m.Array && m.Parent == "" && r.leaf.Symbols == nil
}

// flatBatch is the most rows writeFlat reads before it hands them to the
// column writer.
const flatBatch = flushLevels

// flushLevels is how many levels a leaf holds, with their values, before
// it hands them to the column writer. Every leaf keeps its buffers from
// one row group to the next, so they are kept small: the column writer
// takes values 1024 at a time however many it is given.
const flushLevels = 16 << 10

// writeFlat writes rows from to from+n of a flat leaf (see flat): its
// values by the column reader's batch reads, its definition levels all
// the same (and its repetition levels all 0).
func (r *Reader) writeFlat(ctx context.Context, sink func(*Run) error, from, n int64) error {
	def := int16(len(r.leaf.Steps))
	for done := int64(0); done < n; {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := int(min(n-done, flatBatch))
		if r.leaf.ByteArray() {
			// Byte strings are read about flatBytes at a time, so that a
			// run of long strings stays small: at first a few, to learn
			// their length.
			k = min(k, firstBytes)
			if r.avg > 0 {
				k = int(min(int64(n-done), max(min(flatBatch, int64(flatBytes/r.avg)), firstBytes)))
			}
		}
		var got int
		var err error
		if r.dvals != nil {
			got, err = r.readFlatDirect(k, from+done)
		} else {
			got, err = r.readFlat(k)
		}
		if err == nil && got < k {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return fmt.Errorf("rows %d to %d: %w", from+done, from+done+int64(k)-1, err)
		}
		r.run.Defs, r.run.Reps = grow(r.run.Defs, k), grow(r.run.Reps, k)
		fill(r.run.Defs, def)
		clear(r.run.Reps)
		if err := r.flush(sink); err != nil {
			return err
		}
		done += int64(k)
	}
	return nil
}

// readFlat is writeFlat's read of k rows by the column reader's batch
// reads.
func (r *Reader) readFlat(k int) (int, error) {
	c := r.vals
	switch r.leaf.Type {
	case format.Boolean:
		r.run.Bools = grow(r.run.Bools, k)
		return c.ReadBools(r.run.Bools)
	case format.Int:
		r.run.I32 = grow(r.run.I32, k)
		return c.ReadInts(r.run.I32)
	case format.Long:
		r.run.I64 = grow(r.run.I64, k)
		return c.ReadLongs(r.run.I64)
	case format.Float:
		r.run.F32 = grow(r.run.F32, k)
		return c.ReadFloats(r.run.F32)
	case format.Double:
		r.run.F64 = grow(r.run.F64, k)
		return c.ReadDoubles(r.run.F64)
	case format.String, format.Bytes:
		return r.readBytes(k)
	default:
		return 0, fmt.Errorf("column type %s", r.leaf.Type)
	}
}

// flatBytes is about the most bytes of byte strings writeFlat reads at a
// time, and firstBytes how many strings it reads first.
const (
	flatBytes  = 256 << 10
	firstBytes = 256
)

// readBytes reads the string or bytes values of the next k rows into
// r.run.Data and r.run.Ends, checking strings for UTF-8 and fixeds for their
// size.
func (r *Reader) readBytes(k int) (int, error) {
	r.run.Data, r.run.Ends = r.run.Data[:0], r.run.Ends[:0]
	got, err := r.vals.ReadBytesTo(k, func(_ int, v []byte) {
		r.run.Data = append(r.run.Data, v...)
		r.run.Ends = append(r.run.Ends, len(r.run.Data))
	})
	if i, bad := r.badBytes(0); i >= 0 {
		return i, fmt.Errorf("row %d: %s", r.vals.Row()-int64(got-1-i), bad)
	}
	if got > 0 {
		r.avg = max(float64(len(r.run.Data))/float64(got), 1)
	}
	return got, err
}

// extend returns s lengthened by k, its values kept, reusing its memory
// when it can.
func extend[T any](s []T, k int) []T {
	s = slices.Grow(s, k)
	return s[:len(s)+k]
}

// fill sets every element of s to v, by copies of doubling length.
func fill[T any](s []T, v T) {
	if len(s) == 0 {
		return
	}
	s[0] = v
	for n := 1; n < len(s); n *= 2 {
		copy(s[n:], s[:n])
	}
}

// grow returns s resized to n, reusing its memory when it can.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// drop removes from the levels and values held the rows of the segment
// being read that are not written (r.keep): the levels held are those of
// whole rows, each starting at a level of repetition level 0, and a level
// holds a value when its definition level is the leaf's deeper.
func (r *Reader) drop() {
	full := r.full
	row := r.kept - 1
	var lw, vw, vr, dw int // levels and values written back, values read, bytes written back
	bytes := r.leaf.ByteArray()
	held := r.leaf.Type // the type of the values held
	if r.eager {
		held = r.leaf.ValueType()
	}
	for i, d := range r.run.Defs {
		if r.run.Reps[i] == 0 {
			row++
		}
		if row >= len(r.keep) {
			break // cannot happen: the segment's rows end the levels
		}
		keep := r.keep[row]
		if keep {
			r.run.Defs[lw], r.run.Reps[lw] = d, r.run.Reps[i]
			lw++
		}
		if d != full {
			continue
		}
		if keep {
			switch {
			case bytes:
				start := 0
				if vr > 0 {
					start = r.run.Ends[vr-1]
				}
				n := copy(r.run.Data[dw:], r.run.Data[start:r.run.Ends[vr]])
				dw += n
				r.run.Ends[vw] = dw
			case held == format.Boolean:
				r.run.Bools[vw] = r.run.Bools[vr]
			case held == format.Int:
				r.run.I32[vw] = r.run.I32[vr]
			case held == format.Long:
				r.run.I64[vw] = r.run.I64[vr]
			case held == format.Float:
				r.run.F32[vw] = r.run.F32[vr]
			case held == format.Double:
				r.run.F64[vw] = r.run.F64[vr]
			}
			vw++
		}
		vr++
	}
	r.kept = row + 1
	r.run.Defs, r.run.Reps = r.run.Defs[:lw], r.run.Reps[:lw]
	switch {
	case bytes:
		r.run.Data, r.run.Ends = r.run.Data[:dw], r.run.Ends[:vw]
	case held == format.Boolean:
		r.run.Bools = r.run.Bools[:vw]
	case held == format.Int:
		r.run.I32 = r.run.I32[:vw]
	case held == format.Long:
		r.run.I64 = r.run.I64[:vw]
	case held == format.Float:
		r.run.F32 = r.run.F32[:vw]
	case held == format.Double:
		r.run.F64 = r.run.F64[:vw]
	}
}
