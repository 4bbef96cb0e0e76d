package trevniarrow

import (
	"cmp"
	"context"
	"fmt"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"io"
	"runtime"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/utf8check"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

// The direct path of WriteParquet: for a data set of Trevni 2 files whose
// schema is made of records, arrays, maps, ["null", T] unions, enums,
// fixed and primitives (of no logical type, or a date, time, timestamp or
// duration), read whole, each Parquet column chunk is written
// straight from the Trevni columns beneath it, with no Arrow arrays and no
// records assembled. A Parquet leaf's definition and repetition levels
// come from the lengths of the Trevni array and union columns on its path
// (an array's length says how many items repeat; a ["null", T] union's
// branch column holds a length of 0 for null and 1 for T). The leaves of a
// row group are written in parallel, each by one goroutine reading its own
// columns. The Parquet schema and key-value metadata are those pqarrow
// writes for the data set's Arrow schema (taken from an empty file it
// writes), so that the file is the one the Arrow path writes, value for
// value; only the pages may be cut elsewhere.

// stepKind is what a node on a Parquet leaf's path adds to its levels.
type stepKind uint8

const (
	// stepDefined: an optional Parquet node whose value is always there
	// (a definition level, always reached).
	stepDefined stepKind = iota
	// stepOptional: a ["null", T] union, from its branch column's length
	// (0 or 1).
	stepOptional
	// stepRepeated: an array, from its column's lengths.
	stepRepeated
)

// step is one node of a leaf's path that adds a level.
type step struct {
	kind stepKind
	col  int   // the union's branch column or the array's column
	rep  int16 // an array's repetition level
}

// directLeaf is the plan of one Parquet leaf column.
type directLeaf struct {
	steps   []step
	col     int // the Trevni column of the values
	typ     format.ValueType
	cols    []int    // the distinct Trevni columns read: steps' and col
	symbols []string // an enum's: its ordinals are written as these strings
	fixed   int      // a fixed's size, its values FIXED_LEN_BYTE_ARRAY
	path    string
}

// directPlan is the plan of a data set the direct path writes.
type directPlan struct {
	leaves []directLeaf
	schema *pqschema.Schema
	meta   metadata.KeyValueMetadata
	names  []string // the names of the Trevni columns the leaves number, in layout order
	cols   []int    // the file column of each of them

	filterFields []string // the fields a filter reads (frontdoor.FilterFields)
}

// directSchema returns the schema of the records the direct path writes:
// the data set's, or its projection on ro's Fields; nil if there is none.
func directSchema(ds *trevni.Dataset, ro *ReadOptions) *schema.Schema {
	s := ds.Schema()
	if s == nil || len(ro.Fields) == 0 {
		return s
	}
	ps, err := assemble.ProjectSchema(s, ro.Fields)
	if err != nil {
		return nil
	}
	return ps
}

// planDirect returns the direct plan of writing ds as Parquet with props,
// or nil when the direct path does not cover it (the Arrow path does). as
// is the Arrow schema of the records written (directSchema's).
func planDirect(ds *trevni.Dataset, ro *ReadOptions, as *arrow.Schema, props *parquet.WriterProperties) *directPlan {
	s := directSchema(ds, ro)
	if s == nil || s.Kind != schema.Record || len(s.Fields) == 0 {
		return nil
	}
	for _, p := range ds.Parts() {
		if p.SchemaText() != ds.SchemaText() {
			return nil
		}
	}
	// The data set's columns, within its layout limits, name the file
	// columns of the records' (a projection's are among them).
	all, err := ds.Columns()
	if err != nil {
		return nil
	}
	lay, err := layout.New(s, nil)
	if err != nil {
		return nil
	}
	sc, kv, err := parquetSchema(as, props)
	if err != nil {
		return nil
	}
	p := &directPlan{schema: sc, meta: kv}
	at := make(map[string]int, len(all))
	for i, c := range all {
		at[c.Meta().Name] = i
	}
	for _, c := range lay.Columns {
		i, ok := at[c.Meta().Name]
		if !ok || all[i].Meta().Type != c.Meta().Type {
			return nil
		}
		p.names = append(p.names, c.Meta().Name)
		p.cols = append(p.cols, i)
	}
	if !p.record(lay.Root, sc.Root(), nil, 0) || len(p.leaves) != sc.NumColumns() {
		return nil
	}
	for i := range p.leaves {
		p.leaves[i].path = sc.Column(i).Path()
	}
	return p
}

// entry plans the value of n at Parquet node pq, whose own repetition it
// reads: a ["null", T] union is an optional node; an optional node of a
// value always there adds a level always reached.
func (p *directPlan) entry(n *layout.Node, pq pqschema.Node, steps []step, rep int16) bool {
	if n.Kind == schema.Union {
		if len(n.Branches) != 2 || pq.RepetitionType() != parquet.Repetitions.Optional {
			return false
		}
		b := 0
		if n.Branches[0] == nil {
			b = 1
		}
		if n.Branches[b] == nil || n.Branches[1-b] != nil {
			return false
		}
		return p.inner(n.Branches[b], pq, append(steps, step{kind: stepOptional, col: n.BranchCols[b]}), rep)
	}
	switch pq.RepetitionType() {
	case parquet.Repetitions.Required:
	case parquet.Repetitions.Optional:
		steps = append(steps, step{kind: stepDefined})
	default:
		return false
	}
	return p.inner(n, pq, steps, rep)
}

// inner plans the value of n (not a union) at pq.
func (p *directPlan) inner(n *layout.Node, pq pqschema.Node, steps []step, rep int16) bool {
	if n.Schema == nil {
		return false
	}
	switch n.Kind {
	case schema.Record:
		return p.record(n, pq, steps, rep)
	case schema.Array, schema.Map:
		// A LIST group of one repeated group of the element, or a MAP
		// group of one repeated group of the key and the value.
		g, ok := pq.(*pqschema.GroupNode)
		if !ok || g.NumFields() != 1 {
			return false
		}
		inner, ok := g.Field(0).(*pqschema.GroupNode)
		if !ok || inner.RepetitionType() != parquet.Repetitions.Repeated {
			return false
		}
		steps = append(steps, step{kind: stepRepeated, col: n.Col, rep: rep + 1})
		if n.Kind == schema.Array {
			return inner.NumFields() == 1 && p.entry(n.Items, inner.Field(0), steps, rep+1)
		}
		if inner.NumFields() != 2 || inner.Field(0).RepetitionType() != parquet.Repetitions.Required {
			return false
		}
		key, ok := inner.Field(0).(*pqschema.PrimitiveNode)
		if !ok || key.PhysicalType() != parquet.Types.ByteArray {
			return false
		}
		p.addLeaf(directLeaf{steps: steps, col: n.KeyCol, typ: format.String})
		return p.entry(n.Items, inner.Field(1), steps, rep+1)
	}
	leaf, ok := pq.(*pqschema.PrimitiveNode)
	if !ok || n.Col < 0 {
		return false
	}
	l := directLeaf{steps: steps, col: n.Col, typ: n.Type}
	var phys parquet.Type
	switch n.Kind {
	case schema.Boolean:
		phys = parquet.Types.Boolean
	case schema.Int:
		phys = parquet.Types.Int32
	case schema.Long:
		phys = parquet.Types.Int64
	case schema.Float:
		phys = parquet.Types.Float
	case schema.Double:
		phys = parquet.Types.Double
	case schema.String, schema.Bytes:
		phys = parquet.Types.ByteArray
	case schema.Enum:
		phys, l.symbols = parquet.Types.ByteArray, n.Schema.Symbols
	case schema.Fixed:
		if leaf.TypeLength() != n.Schema.Size {
			return false
		}
		phys, l.fixed = parquet.Types.FixedLenByteArray, n.Schema.Size
	default:
		return false
	}
	if leaf.PhysicalType() != phys || !sameLogical(n.Schema.Logical, leaf.LogicalType()) {
		return false
	}
	p.addLeaf(l)
	return true
}

// sameLogical says whether the values of an Avro logical type are the
// Parquet logical type's as they are stored: no logical type, a date,
// time or timestamp in the same unit, or a duration, whose twelve bytes
// are an INTERVAL's.
func sameLogical(l schema.LogicalType, pl pqschema.LogicalType) bool {
	unit := func() (pqschema.TimeUnitType, bool) {
		switch t := pl.(type) {
		case pqschema.TimeLogicalType:
			return t.TimeUnit(), true
		case pqschema.TimestampLogicalType:
			return t.TimeUnit(), true
		}
		return 0, false
	}
	u, timed := unit()
	switch l {
	case schema.LogicalNone:
		return !timed
	case schema.LogicalDate:
		_, ok := pl.(pqschema.DateLogicalType)
		return ok
	case schema.LogicalDuration:
		_, ok := pl.(pqschema.IntervalLogicalType)
		return ok
	case schema.LogicalTimeMillis, schema.LogicalTimestampMillis, schema.LogicalLocalTimestampMillis:
		return timed && u == pqschema.TimeUnitMillis
	case schema.LogicalTimeMicros, schema.LogicalTimestampMicros, schema.LogicalLocalTimestampMicros:
		return timed && u == pqschema.TimeUnitMicros
	case schema.LogicalTimestampNanos, schema.LogicalLocalTimestampNanos:
		return timed && u == pqschema.TimeUnitNanos
	}
	return false
}

// addLeaf adds a leaf of the plan, with the distinct columns it reads.
func (p *directPlan) addLeaf(l directLeaf) {
	l.steps = append([]step(nil), l.steps...)
	for _, st := range l.steps {
		if st.kind != stepDefined && !containsInt(l.cols, st.col) {
			l.cols = append(l.cols, st.col)
		}
	}
	if !containsInt(l.cols, l.col) {
		l.cols = append(l.cols, l.col)
	}
	p.leaves = append(p.leaves, l)
}

// record plans a record's fields at the group pq.
func (p *directPlan) record(n *layout.Node, pq pqschema.Node, steps []step, rep int16) bool {
	g, ok := pq.(*pqschema.GroupNode)
	if !ok || n.Kind != schema.Record || len(n.Fields) == 0 || g.NumFields() != len(n.Fields) {
		return false
	}
	for i, f := range n.Fields {
		if !p.entry(f, g.Field(i), steps, rep) {
			return false
		}
	}
	return true
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// writeDirect writes the data set as Parquet by plan p and returns the
// number of rows written.
func writeDirect(ctx context.Context, w io.Writer, ds *trevni.Dataset, p *directPlan, props *parquet.WriterProperties, o *ParquetOptions) (int64, error) {
	p.filterFields = frontdoor.FilterFields(ds, o.Read.Where)
	pw, err := newPQWriter(w, p.schema, props, p.meta)
	if err != nil {
		return 0, fmt.Errorf("Parquet: %w", err)
	}
	var (
		rows    int64
		bytes   int64
		reports []trevni.PartReport
	)
	if o.Report != nil {
		defer func() { o.Report(reports) }()
	}
	sel := newSpan(&o.Read.ReadOptions)
	for _, part := range ds.Parts() {
		if sel.done() {
			break
		}
		from, end := sel.part(part.RowCount())
		if from >= end {
			continue
		}
		n, read, rep, err := p.writePart(ctx, pw, part, o, sel, from, end, rows, bytes)
		rows += n
		bytes += read
		sel.took(n)
		if rep != nil {
			reports = append(reports, *rep)
		}
		if err != nil {
			pw.abort()
			return rows, fmt.Errorf("%s: %w", part.Name(), err)
		}
	}
	if err := pw.close(); err != nil {
		return rows, fmt.Errorf("Parquet: %w", err)
	}
	if o.Read.Progress != nil {
		o.Read.Progress(rows, bytes)
	}
	return rows, nil
}

// span is what the read options leave of a data set's rows: an offset
// and a count of rows, both counted before the filter, and a limit of
// records, counted after it.
type span struct {
	skip  int64 // rows still to pass over
	rows  int64 // rows still to read, -1 for all
	limit int64 // records still wanted, -1 for all
}

func newSpan(o *trevni.ReadOptions) *span {
	s := &span{skip: max(o.Offset, 0), rows: -1, limit: -1}
	if o.Rows > 0 {
		s.rows = o.Rows
	}
	if o.Limit > 0 {
		s.limit = o.Limit
	}
	return s
}

// done says whether nothing more is wanted.
func (s *span) done() bool { return s.rows == 0 || s.limit == 0 }

// part returns the rows [from, end) of the next part, of n rows, to read.
func (s *span) part(n int64) (from, end int64) {
	from = min(s.skip, n)
	s.skip -= from
	end = n
	if s.rows >= 0 {
		end = min(n, from+s.rows)
		s.rows -= end - from
	}
	return from, end
}

// took counts n records written.
func (s *span) took(n int64) {
	if s.limit > 0 {
		s.limit = max(s.limit-n, 0)
	}
}

// segment is a run of a part's rows that a row group reads: rows first
// to first+n-1, of which those keep marks are written (all of them if
// keep is nil).
type segment struct {
	first, n int64
	keep     []bool
}

// Matches of a filter at most joinGap rows apart are read in one segment,
// the rows between them read and dropped (a seek costs the skipping of
// the values of a block up to the row); farther apart, the readers seek.
// A row group's segments span at most maxSpan rows, which bounds their
// marks.
const (
	joinGap = 4096
	maxSpan = 1 << 21
)

// selector yields the segments of a part's row groups.
type selector struct {
	next, end int64                // the rows [next, end) not yet yielded
	limit     int64                // records still wanted, -1 for all
	filter    *assemble.AvroReader // the filter's matches, nil without one
	pending   int64                // a match read and not yet yielded, -1 if none
}

// group returns the segments of the next row group, of at most most rows
// written, and the number written; none at the end.
func (s *selector) group(most int64) ([]segment, int64, error) {
	if s.limit >= 0 {
		most = min(most, s.limit)
	}
	if s.filter == nil {
		n := min(most, s.end-s.next)
		if n <= 0 {
			return nil, 0, nil
		}
		seg := segment{first: s.next, n: n}
		s.next += n
		if s.limit > 0 {
			s.limit -= n
		}
		return []segment{seg}, n, nil
	}
	var (
		segs      []segment
		rows, spn int64
	)
	for rows < most && spn < maxSpan {
		row := s.pending
		if row < 0 {
			r, err := s.filter.NextMatch()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, rows, err
			}
			row = r
		}
		s.pending = -1
		if k := len(segs) - 1; k >= 0 && row-(segs[k].first+segs[k].n) <= joinGap && row-segs[k].first < maxSpan {
			seg := &segs[k]
			gap := row - (seg.first + seg.n)
			if gap > 0 && seg.keep == nil {
				seg.keep = make([]bool, seg.n, seg.n+gap+1)
				fill(seg.keep, true)
			}
			if seg.keep != nil {
				seg.keep = append(seg.keep, make([]bool, gap)...)
				seg.keep = append(seg.keep, true)
			}
			seg.n += gap + 1
			spn += gap + 1
		} else {
			segs = append(segs, segment{first: row, n: 1})
			spn++
		}
		rows++
	}
	if s.limit > 0 {
		s.limit -= rows
	}
	return segs, rows, nil
}

// leafState is a leaf's readers and the levels and values of the rows
// read and not yet written.
type leafState struct {
	leaf  *directLeaf
	rd    map[int]*format.ColumnReader
	list  []*format.ColumnReader // rd's readers, to start each row on
	steps []*format.ColumnReader // the reader of each step's column
	vals  *format.ColumnReader
	pos   int64 // the row the readers are before
	defs  []int16
	reps  []int16
	bools []bool
	i32   []int32
	i64   []int64
	f32   []float32
	f64   []float64
	data  []byte // the bytes of byte-array values, end to end
	ends  []int  // each value's end in data
	ba    []parquet.ByteArray
	fba   []parquet.FixedLenByteArray
	row   int64 // the part's row being read, for errors
	start int   // the row's first level in defs
	lens  []int32
	syms  []int32 // an enum's ordinals, before they become symbols
	keep  []bool  // the rows of the segment being read that are written (nil: all)
	kept  int     // the rows of the segment already flushed
}

// maxRowLevels bounds the levels one record gives one Parquet column: a
// file whose lengths claim more is refused.
const maxRowLevels = 1 << 24

// rowBytes returns about the stored bytes a row of the part takes in the
// columns cols, for sizing row groups.
func rowBytes(rd *format.Reader, cols []int) float64 {
	rows := rd.RowCount()
	if rows == 0 {
		return 1
	}
	var total int64
	for _, c := range cols {
		bs, err := rd.Blocks(c)
		if err != nil {
			continue
		}
		for _, b := range bs {
			total += int64(b.CompressedSize)
		}
	}
	return max(float64(total)/float64(rows), 1)
}

// writePart writes rows [from, end) of one part (those the filter
// selects, as many as sel still wants) in row groups, and returns with
// them what was read (nil if the part could not be opened).
func (p *directPlan) writePart(ctx context.Context, pw *pqWriter, part *trevni.Part, o *ParquetOptions, sel *span, from, end, before, readBefore int64) (rows, read int64, rep *trevni.PartReport, err error) {
	f, err := part.Open(ctx)
	if err != nil {
		return 0, 0, nil, err
	}
	defer f.Close()
	// A Trevni 1 or CLMN file is read through its columns as Trevni 2
	// lays them out (the front door's format.Source reader).
	rd, err := frontdoor.AsTrevni(ctx, f)
	if err != nil {
		return 0, 0, nil, err
	}
	for i, name := range p.names {
		m, err := rd.Column(p.cols[i])
		if err != nil {
			return 0, 0, nil, err
		}
		if m.Name != name {
			return 0, 0, nil, fmt.Errorf("column %d is %q, where the schema lays out %q", p.cols[i], m.Name, name)
		}
	}
	s := &selector{next: from, end: end, limit: sel.limit, pending: -1}
	if o.Read.Where != "" {
		s.filter, err = assemble.NewAvroReader(rd, &assemble.Options{Filter: o.Read.Where, Fields: p.filterFields})
		if err != nil {
			return 0, 0, nil, err
		}
		if from > 0 {
			if err := s.filter.SeekRow(from); err != nil {
				return 0, 0, nil, err
			}
		}
		s.filter.StopAt(end)
		s.filter.SetLimit(sel.limit)
	}
	states := make([]*leafState, len(p.leaves))
	defer func() {
		rep = p.report(part, f, rd, states, s.filter, rows)
		for _, st := range states {
			if st != nil {
				for _, c := range st.list {
					c.Close()
				}
			}
		}
	}()
	var used []int
	for i := range p.leaves {
		st := &leafState{leaf: &p.leaves[i], rd: map[int]*format.ColumnReader{}}
		states[i] = st
		for _, c := range st.leaf.cols {
			cr, err := rd.Values(p.cols[c])
			if err != nil {
				return 0, 0, nil, fmt.Errorf("column %s: %w", p.names[c], err)
			}
			if !containsInt(used, p.cols[c]) {
				used = append(used, p.cols[c])
			}
			cr.SetReadAheadEnd(end)
			st.rd[c] = cr
			st.list = append(st.list, cr)
		}
		st.vals = st.rd[st.leaf.col]
		for _, s := range st.leaf.steps {
			st.steps = append(st.steps, st.rd[s.col])
		}
	}
	// A row group holds its compressed pages until it ends: it ends at
	// RowGroupRows rows, or before, at about the bytes the options allow
	// (Read.BatchBytes, and Read.OutputMemory if set), its rows sized by
	// the bytes a row takes in the Trevni columns, then in the row groups
	// written.
	budget := int64(o.Read.BatchBytes)
	if budget <= 0 {
		budget = DefaultBatchBytes
	}
	if m := o.Read.OutputMemory; m > 0 {
		budget = min(budget, m)
	}
	perRow := rowBytes(rd, used)
	workers := len(states)
	if o.Read.Workers > 0 {
		workers = min(workers, o.Read.Workers)
	} else {
		workers = min(workers, runtime.GOMAXPROCS(0))
	}
	order := p.firstOrder()
	took := make([]time.Duration, len(states))
	for {
		if err := ctx.Err(); err != nil {
			return rows, f.BytesRead(), nil, err
		}
		most := max(min(int64(o.RowGroupRows), int64(float64(budget)/perRow)), 1)
		segs, n, err := s.group(most)
		if err != nil {
			return rows, f.BytesRead(), nil, err
		}
		if n == 0 {
			break
		}
		if s.filter != nil {
			// Where the matches end is known a row group at a time: no
			// block past the last is fetched ahead.
			last := segs[len(segs)-1]
			for _, st := range states {
				for _, c := range st.list {
					c.SetReadAheadEnd(last.first + last.n)
				}
			}
		}
		rgw, err := pw.appendRowGroup()
		if err != nil {
			return rows, f.BytesRead(), nil, fmt.Errorf("Parquet row group: %w", err)
		}
		var (
			wg    sync.WaitGroup
			next  = make(chan int, len(states))
			mu    sync.Mutex
			first error
		)
		for _, i := range order {
			next <- i
		}
		close(next)
		run := func() {
			for i := range next {
				mu.Lock()
				failed := first != nil
				mu.Unlock()
				if failed {
					return
				}
				start := time.Now()
				cw := rgw.cols[i]
				err := states[i].writeSegments(ctx, cw, segs)
				if err == nil {
					err = finishPages(cw)
				}
				took[i] = time.Since(start)
				if err != nil {
					mu.Lock()
					if first == nil {
						first = fmt.Errorf("Parquet column %s: %w", states[i].leaf.path, err)
					}
					mu.Unlock()
					return
				}
			}
		}
		if workers <= 1 {
			run()
		} else {
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					run()
				}()
			}
			wg.Wait()
		}
		if first != nil {
			return rows, f.BytesRead(), nil, first
		}
		// The next row group's leaves start with those that took longest
		// in this one, so that no long leaf starts last while the other
		// workers stand idle.
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(took[b], took[a]) })
		var held int64
		for _, cw := range rgw.cols {
			held += cw.TotalCompressedBytes()
		}
		if err := rgw.close(); err != nil {
			return rows, f.BytesRead(), nil, fmt.Errorf("Parquet row group from row %d: %w", before+rows, err)
		}
		perRow = max(float64(held)/float64(n), 1)
		rows += n
		if o.Read.Progress != nil {
			o.Read.Progress(before+rows, readBefore+f.BytesRead())
		}
	}
	return rows, f.BytesRead(), nil, nil
}

// finishPages builds the last page of a column chunk that is not
// dictionary-encoded (its levels, values and statistics, compressed), as
// the row group's Close would: Close writes the chunks one after another,
// and their last pages are a large part of the work (a chunk of a row
// group is often one or two pages), which here is done in the leaf's
// goroutine, in parallel. The pages are those Close would cut. A chunk
// still dictionary-encoded is left to Close, which writes its dictionary
// page before its data pages.
func finishPages(cw file.ColumnChunkWriter) error {
	switch cw.CurrentEncoder().Encoding() {
	case parquet.Encodings.PlainDict, parquet.Encodings.RLEDict:
		return nil
	}
	if f, ok := cw.(interface{ FlushBufferedDataPages() error }); ok {
		return f.FlushBufferedDataPages()
	}
	return nil
}

// firstOrder returns the order in which the leaves of a first row group
// start: those with levels first, then those of byte arrays, then the
// others, as a guess of which take longest.
func (p *directPlan) firstOrder() []int {
	weight := func(l *directLeaf) int {
		w := 0
		for _, s := range l.steps {
			if s.kind != stepDefined {
				w = 2
			}
		}
		if l.typ == format.String || l.typ == format.Bytes || l.symbols != nil {
			w++
		}
		return w
	}
	order := make([]int, len(p.leaves))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return weight(&p.leaves[b]) - weight(&p.leaves[a]) })
	return order
}

// report returns what writing a part read: for each column, the most
// blocks any of its readers read (a column on the path of several leaves
// has a reader for each), the filter's reader's included.
func (p *directPlan) report(part *trevni.Part, f *trevni.File, rd *format.Reader, states []*leafState, filter *assemble.AvroReader, rows int64) *trevni.PartReport {
	cols := map[int]*assemble.ColumnScan{}
	scan := func(c int) *assemble.ColumnScan {
		if cs := cols[c]; cs != nil {
			return cs
		}
		cs := &assemble.ColumnScan{Column: c}
		if m, err := rd.Column(c); err == nil {
			cs.Name = m.Name
		}
		if bs, err := rd.Blocks(c); err == nil {
			cs.Blocks = len(bs)
		}
		cols[c] = cs
		return cs
	}
	for _, st := range states {
		if st == nil {
			continue
		}
		for c, cr := range st.rd {
			cs := scan(p.cols[c])
			if blocks, bytes := cr.Loaded(); blocks > cs.BlocksRead {
				cs.BlocksRead, cs.BytesRead = blocks, bytes
			}
		}
	}
	r := &trevni.PartReport{Part: part.Name(), Fetched: f.Fetched()}
	r.Scan = assemble.ScanReport{RowsScanned: rows, RowsMatched: rows, FileSize: rd.Size()}
	if filter != nil {
		fr := filter.Report()
		r.Scan.RowsScanned = fr.RowsScanned
		for _, c := range fr.Columns {
			cs := scan(c.Column)
			if c.BlocksRead > cs.BlocksRead {
				cs.BlocksRead, cs.BytesRead = c.BlocksRead, c.BytesRead
			}
		}
	}
	keys := make([]int, 0, len(cols))
	for c := range cols {
		keys = append(keys, c)
	}
	slices.Sort(keys)
	for _, c := range keys {
		cs := cols[c]
		cs.BlocksSkipped = cs.Blocks - cs.BlocksRead
		r.Scan.BytesRead += cs.BytesRead
		r.Scan.Columns = append(r.Scan.Columns, *cs)
	}
	return r
}

// writeSegments reads the segments' rows of the leaf's columns into cw,
// seeking the readers to each segment that does not follow the last.
func (st *leafState) writeSegments(ctx context.Context, cw file.ColumnChunkWriter, segs []segment) error {
	for _, seg := range segs {
		if st.pos != seg.first {
			for _, c := range st.list {
				if err := c.SeekRow(seg.first); err != nil {
					return fmt.Errorf("row %d: %w", seg.first, err)
				}
			}
		}
		st.keep, st.kept = seg.keep, 0
		err := st.write(ctx, cw, seg.first, seg.n)
		st.keep = nil
		if err != nil {
			return err
		}
		st.pos = seg.first + seg.n
	}
	return nil
}

// write reads rows from to from+n of the leaf's columns into cw.
func (st *leafState) write(ctx context.Context, cw file.ColumnChunkWriter, from, n int64) error {
	if st.flat() {
		return st.writeFlat(ctx, cw, from, n)
	}
	if i := st.leaf.single(); i >= 0 {
		if st.batched(i) {
			return st.writeBatched(ctx, cw, from, n, i)
		}
		return st.writeSingle(ctx, cw, from, n, i)
	}
	for r := range n {
		if r%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		st.row = from + r
		for _, c := range st.list {
			if err := c.StartRow(); err != nil {
				return fmt.Errorf("row %d: %w", st.row, err)
			}
		}
		st.start = len(st.defs)
		if err := st.walk(0, 0, 0); err != nil {
			return fmt.Errorf("row %d: %w", st.row, err)
		}
		if len(st.defs) >= flushLevels {
			if err := st.flush(cw); err != nil {
				return err
			}
		}
	}
	return st.flush(cw)
}

// single returns the index of the leaf's one step that reads a column (an
// array or a ["null", T] union), the others only optional Parquet nodes
// always there; -1 if it has none or several.
func (l *directLeaf) single() int {
	at := -1
	for i, s := range l.steps {
		if s.kind != stepDefined {
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
func (st *leafState) writeSingle(ctx context.Context, cw file.ColumnChunkWriter, from, n int64, i int) error {
	s := &st.leaf.steps[i]
	lens, vals := st.steps[i], st.vals
	// A null or empty row's definition level counts the steps before the
	// step (all always there); a value's counts them all.
	empty, full := int16(i), int16(len(st.leaf.steps))
	most := maxRowLevels
	if s.kind == stepOptional {
		most = 1
	}
	for r := range n {
		if r%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		st.row = from + r
		if err := lens.StartRow(); err != nil {
			return fmt.Errorf("row %d: %w", st.row, err)
		}
		if vals != lens {
			if err := vals.StartRow(); err != nil {
				return fmt.Errorf("row %d: %w", st.row, err)
			}
		}
		k, err := lens.NextLength()
		if err != nil {
			return fmt.Errorf("row %d: %w", st.row, err)
		}
		if k == 0 {
			st.defs = append(st.defs, empty)
			st.reps = append(st.reps, 0)
			continue
		}
		if k > most {
			if s.kind == stepOptional {
				return fmt.Errorf("row %d: union branch column %d has length %d", st.row, s.col, k)
			}
			return fmt.Errorf("row %d: more than %d values in one record", st.row, maxRowLevels)
		}
		at := len(st.defs)
		st.defs, st.reps = extend(st.defs, k), extend(st.reps, k)
		defs, reps := st.defs[at:], st.reps[at:]
		for j := range defs {
			defs[j] = full
			reps[j] = s.rep
		}
		reps[0] = 0
		if err := st.values(k); err != nil {
			return fmt.Errorf("row %d: %w", st.row, err)
		}
		if len(st.defs) >= flushLevels {
			if err := st.flush(cw); err != nil {
				return err
			}
		}
	}
	return st.flush(cw)
}

// batched says whether the batch reads of arrays read a leaf of one step
// that reads a column, step i: a top-level array column holding the
// lengths and the values, or a top-level array column of nulls holding the
// lengths and a column beneath it, not an array, holding the values.
func (st *leafState) batched(i int) bool {
	lm, vm := st.steps[i].Meta(), st.vals.Meta()
	if !lm.Array || lm.Parent != "" {
		return false
	}
	if st.steps[i] == st.vals {
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
func (st *leafState) writeBatched(ctx context.Context, cw file.ColumnChunkWriter, from, n int64, i int) error {
	s := &st.leaf.steps[i]
	lens, vals := st.steps[i], st.vals
	most := int32(maxRowLevels)
	if s.kind == stepOptional {
		most = 1
	}
	for done := int64(0); done < n; {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := int(min(n-done, batchRows))
		st.lens = grow(st.lens, k)
		// The lengths are checked before the values beneath them are
		// read, and after the values of a column holding both (whose
		// batch read may stop early, its items bounded).
		var got int
		var err error
		if lens == vals {
			got, err = st.readArrays(st.lens, from+done)
		} else {
			got, err = lens.ReadLengths(st.lens)
		}
		if err == nil && (got == 0 || lens != vals && got < k) {
			err = io.ErrUnexpectedEOF
		}
		if err == nil {
			st.lens = st.lens[:got]
			err = st.checkLengths(s, most, from+done)
		}
		if err != nil {
			return fmt.Errorf("rows %d to %d: %w", from+done, from+done+int64(k)-1, err)
		}
		// The values beneath an array are read for runs of rows of at
		// most batchItems values (or one row of more), so that what a
		// leaf holds stays bounded however long the arrays; a column
		// holding both has had the batch's read already.
		all := st.lens
		empty, full := int16(i), int16(len(st.leaf.steps))
		if lens == vals {
			st.levels(all, empty, full, s.rep)
		}
		for first := 0; lens != vals && first < len(all); {
			end, items := first, 0
			for end < len(all) && (end == first || items+int(all[end]) <= batchItems) {
				items += int(all[end])
				end++
			}
			run := all[first:end]
			if err := st.readItems(run, from+done+int64(first)); err != nil {
				return fmt.Errorf("rows %d to %d: %w", from+done+int64(first), from+done+int64(end)-1, err)
			}
			st.levels(run, empty, full, s.rep)
			if len(st.defs) >= flushLevels {
				if err := st.flush(cw); err != nil {
					return err
				}
			}
			first = end
		}
		if len(st.defs) >= flushLevels {
			if err := st.flush(cw); err != nil {
				return err
			}
		}
		done += int64(got)
	}
	return st.flush(cw)
}

// levels adds the levels of rows of the given lengths of a leaf's one
// step that reads a column: a row of length 0 has one level, of a null
// or an empty array (definition level empty, the steps before the
// step); a row of length l, l levels of values (definition level full),
// the first of repetition level 0 and the others rep.
func (st *leafState) levels(lens []int32, empty, full, rep int16) {
	levels := 0
	for _, l := range lens {
		levels += max(int(l), 1)
	}
	at := len(st.defs)
	st.defs, st.reps = extend(st.defs, levels), extend(st.reps, levels)
	defs, reps := st.defs[at:], st.reps[at:]
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
func (st *leafState) checkLengths(s *step, most int32, first int64) error {
	for r, l := range st.lens {
		if l > most {
			if s.kind == stepOptional {
				return fmt.Errorf("row %d: union branch column %d has length %d", first+int64(r), s.col, l)
			}
			return fmt.Errorf("row %d: more than %d values in one record", first+int64(r), maxRowLevels)
		}
	}
	return nil
}

// readArrays reads the lengths and values of len(lens) rows of a
// top-level array column holding both. Row first is the first of them, for errors.
func (st *leafState) readArrays(lens []int32, first int64) (int, error) {
	c := st.vals
	switch st.leaf.typ {
	case format.Boolean:
		n, v, err := format.ReadArrays(c, lens, st.bools)
		st.bools = v
		return n, err
	case format.Int:
		if st.leaf.symbols != nil {
			n, v, err := format.ReadArrays(c, lens, st.syms[:0])
			st.syms = v
			if err == nil {
				err = st.symbolsOf(v)
			}
			return n, err
		}
		n, v, err := format.ReadArrays(c, lens, st.i32)
		st.i32 = v
		return n, err
	case format.Long:
		n, v, err := format.ReadArrays(c, lens, st.i64)
		st.i64 = v
		return n, err
	case format.Float:
		n, v, err := format.ReadArrays(c, lens, st.f32)
		st.f32 = v
		return n, err
	case format.Double:
		n, v, err := format.ReadArrays(c, lens, st.f64)
		st.f64 = v
		return n, err
	case format.String, format.Bytes:
		at := len(st.ends)
		n, err := c.ReadArrayBytesTo(lens, st.addBytes)
		if i, bad := st.badBytes(at); i >= 0 {
			return n, fmt.Errorf("row %d: %s", first+int64(rowOf(lens[:n], i-at)), bad)
		}
		return n, err
	}
	return 0, fmt.Errorf("column type %s", st.leaf.typ)
}

// readItems reads the values of rows of a column beneath an array,
// lens[i] of them for the i-th row. Row first is the first of them, for errors.
func (st *leafState) readItems(lens []int32, first int64) error {
	c := st.vals
	var err error
	switch st.leaf.typ {
	case format.Boolean:
		st.bools, err = format.ReadItems(c, lens, st.bools)
	case format.Int:
		if st.leaf.symbols != nil {
			st.syms, err = format.ReadItems(c, lens, st.syms[:0])
			if err == nil {
				err = st.symbolsOf(st.syms)
			}
			return err
		}
		st.i32, err = format.ReadItems(c, lens, st.i32)
	case format.Long:
		st.i64, err = format.ReadItems(c, lens, st.i64)
	case format.Float:
		st.f32, err = format.ReadItems(c, lens, st.f32)
	case format.Double:
		st.f64, err = format.ReadItems(c, lens, st.f64)
	case format.String, format.Bytes:
		at := len(st.ends)
		err = c.ReadItemBytesTo(lens, st.addBytes)
		if i, bad := st.badBytes(at); i >= 0 {
			return fmt.Errorf("row %d: %s", first+int64(rowOf(lens, i-at)), bad)
		}
	default:
		err = fmt.Errorf("column type %s", st.leaf.typ)
	}
	return err
}

// symbolsOf appends the symbols of enum ordinals to the byte-array values.
func (st *leafState) symbolsOf(ords []int32) error {
	syms := st.leaf.symbols
	for _, v := range ords {
		if v < 0 || int(v) >= len(syms) {
			return fmt.Errorf("enum ordinal %d of %d symbols", v, len(syms))
		}
		st.data = append(st.data, syms[v]...)
		st.ends = append(st.ends, len(st.data))
	}
	return nil
}

// addBytes appends a string or bytes value to the leaf's byte-array
// values; badBytes checks them after.
func (st *leafState) addBytes(v []byte) {
	st.data = append(st.data, v...)
	st.ends = append(st.ends, len(st.data))
}

// badBytes returns the index in st.ends of the first of the byte-array
// values from index at on that is bad (a string that is not UTF-8, or a
// fixed not of its size), and what is wrong with it; -1 if none is. The
// strings are checked together: if their bytes end to end are UTF-8 and
// none starts with a continuation byte, every one is UTF-8 (no value ends
// inside a character); only if not is each checked alone.
func (st *leafState) badBytes(at int) (int, string) {
	start := 0
	if at > 0 {
		start = st.ends[at-1]
	}
	if fixed := st.leaf.fixed; fixed > 0 {
		for i, prev := at, start; i < len(st.ends); i++ {
			if n := st.ends[i] - prev; n != fixed {
				return i, fmt.Sprintf("a fixed of %d bytes, not %d", n, fixed)
			}
			prev = st.ends[i]
		}
	}
	if st.leaf.typ != format.String {
		return -1, ""
	}
	whole := utf8.Valid(st.data[start:])
	for i, prev := at, start; whole && i < len(st.ends); i++ {
		if st.ends[i] > prev && !utf8.RuneStart(st.data[prev]) {
			whole = false
		}
		prev = st.ends[i]
	}
	if whole {
		return -1, ""
	}
	for i, prev := at, start; i < len(st.ends); i++ {
		if !utf8check.Valid(st.data[prev:st.ends[i]]) {
			return i, "a string that is not UTF-8"
		}
		prev = st.ends[i]
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
func (st *leafState) values(k int) error {
	c := st.vals
	switch st.leaf.typ {
	case format.Int:
		if st.leaf.symbols != nil {
			break
		}
		at := len(st.i32)
		st.i32 = extend(st.i32, k)
		for j := range st.i32[at:] {
			v, err := c.ReadInt()
			if err != nil {
				st.i32 = st.i32[:at+j]
				return err
			}
			st.i32[at+j] = v
		}
		return nil
	case format.Long:
		at := len(st.i64)
		st.i64 = extend(st.i64, k)
		for j := range st.i64[at:] {
			v, err := c.ReadLong()
			if err != nil {
				st.i64 = st.i64[:at+j]
				return err
			}
			st.i64[at+j] = v
		}
		return nil
	case format.Float:
		at := len(st.f32)
		st.f32 = extend(st.f32, k)
		for j := range st.f32[at:] {
			v, err := c.ReadFloat()
			if err != nil {
				st.f32 = st.f32[:at+j]
				return err
			}
			st.f32[at+j] = v
		}
		return nil
	case format.Double:
		at := len(st.f64)
		st.f64 = extend(st.f64, k)
		for j := range st.f64[at:] {
			v, err := c.ReadDouble()
			if err != nil {
				st.f64 = st.f64[:at+j]
				return err
			}
			st.f64[at+j] = v
		}
		return nil
	}
	for range k {
		if err := st.value(); err != nil {
			return err
		}
	}
	return nil
}

// walk reads one record's levels and values from step i on.
func (st *leafState) walk(i int, def, rep int16) error {
	if i == len(st.leaf.steps) {
		st.defs = append(st.defs, def)
		st.reps = append(st.reps, rep)
		return st.value()
	}
	s := &st.leaf.steps[i]
	switch s.kind {
	case stepDefined:
		return st.walk(i+1, def+1, rep)
	case stepOptional:
		k, err := st.steps[i].NextLength()
		if err != nil {
			return err
		}
		switch k {
		case 0:
			st.defs = append(st.defs, def)
			st.reps = append(st.reps, rep)
			return nil
		case 1:
			return st.walk(i+1, def+1, rep)
		}
		return fmt.Errorf("union branch column %d has length %d", s.col, k)
	}
	k, err := st.steps[i].NextLength()
	if err != nil {
		return err
	}
	if k == 0 {
		st.defs = append(st.defs, def)
		st.reps = append(st.reps, rep)
		return nil
	}
	for j := range k {
		r := s.rep
		if j == 0 {
			r = rep
		}
		if err := st.walk(i+1, def+1, r); err != nil {
			return err
		}
		if len(st.defs)-st.start > maxRowLevels {
			return fmt.Errorf("more than %d values in one record", maxRowLevels)
		}
	}
	return nil
}

// value reads one value of the leaf.
func (st *leafState) value() error {
	c := st.vals
	switch st.leaf.typ {
	case format.Boolean:
		v, err := c.ReadBool()
		st.bools = append(st.bools, v)
		return err
	case format.Int:
		v, err := c.ReadInt()
		if err == nil && st.leaf.symbols != nil {
			if v < 0 || int(v) >= len(st.leaf.symbols) {
				return fmt.Errorf("enum ordinal %d of %d symbols", v, len(st.leaf.symbols))
			}
			st.data = append(st.data, st.leaf.symbols[v]...)
			st.ends = append(st.ends, len(st.data))
			return nil
		}
		st.i32 = append(st.i32, v)
		return err
	case format.Long:
		v, err := c.ReadLong()
		st.i64 = append(st.i64, v)
		return err
	case format.Float:
		v, err := c.ReadFloat()
		st.f32 = append(st.f32, v)
		return err
	case format.Double:
		v, err := c.ReadDouble()
		st.f64 = append(st.f64, v)
		return err
	case format.String, format.Bytes:
		v, err := c.ReadBytes()
		if err != nil {
			return err
		}
		if st.leaf.typ == format.String && !utf8check.Valid(v) {
			return fmt.Errorf("a string that is not UTF-8")
		}
		if st.leaf.fixed > 0 && len(v) != st.leaf.fixed {
			return fmt.Errorf("a fixed of %d bytes, not %d", len(v), st.leaf.fixed)
		}
		st.data = append(st.data, v...)
		st.ends = append(st.ends, len(st.data))
		return nil
	}
	return fmt.Errorf("column type %s", st.leaf.typ)
}

// flush writes the levels and values held to cw.
func (st *leafState) flush(cw file.ColumnChunkWriter) error {
	if st.keep != nil {
		st.drop()
	}
	if len(st.defs) == 0 {
		return nil
	}
	defs, reps := st.defs, st.reps
	if cw.Descr().MaxDefinitionLevel() == 0 {
		defs = nil
	}
	if cw.Descr().MaxRepetitionLevel() == 0 {
		reps = nil
	}
	var err error
	switch w := cw.(type) {
	case *file.BooleanColumnChunkWriter:
		_, err = w.WriteBatch(st.bools, defs, reps)
	case *file.Int32ColumnChunkWriter:
		_, err = w.WriteBatch(st.i32, defs, reps)
	case *file.Int64ColumnChunkWriter:
		_, err = w.WriteBatch(st.i64, defs, reps)
	case *file.Float32ColumnChunkWriter:
		_, err = w.WriteBatch(st.f32, defs, reps)
	case *file.Float64ColumnChunkWriter:
		_, err = w.WriteBatch(st.f64, defs, reps)
	case *file.ByteArrayColumnChunkWriter:
		st.ba = grow(st.ba, len(st.ends))
		start := 0
		for i, end := range st.ends {
			st.ba[i] = st.data[start:end:end]
			start = end
		}
		_, err = w.WriteBatch(st.ba, defs, reps)
	case *file.FixedLenByteArrayColumnChunkWriter:
		st.fba = st.fba[:0]
		start := 0
		for _, end := range st.ends {
			st.fba = append(st.fba, st.data[start:end:end])
			start = end
		}
		_, err = w.WriteBatch(st.fba, defs, reps)
	default:
		err = fmt.Errorf("unexpected Parquet column writer %T", cw)
	}
	st.defs, st.reps = st.defs[:0], st.reps[:0]
	st.bools, st.i32, st.i64, st.f32, st.f64 = st.bools[:0], st.i32[:0], st.i64[:0], st.f32[:0], st.f64[:0]
	st.data, st.ends = st.data[:0], st.ends[:0]
	return err
}

// flat reports whether the leaf is a top-level field that is neither an
// array nor a union (its steps only optional Parquet nodes that are always
// there), whose values are one per row in a top-level Trevni column that
// the batch reads read, and not an enum (written as its symbols).
func (st *leafState) flat() bool {
	for _, s := range st.leaf.steps {
		if s.kind != stepDefined {
			return false
		}
	}
	m := st.vals.Meta()
	return !m.Array && m.Parent == "" && st.leaf.symbols == nil
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
func (st *leafState) writeFlat(ctx context.Context, cw file.ColumnChunkWriter, from, n int64) error {
	c := st.vals
	def := int16(len(st.leaf.steps))
	for done := int64(0); done < n; {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := int(min(n-done, flatBatch))
		var got int
		var err error
		switch st.leaf.typ {
		case format.Boolean:
			st.bools = grow(st.bools, k)
			got, err = c.ReadBools(st.bools)
		case format.Int:
			st.i32 = grow(st.i32, k)
			got, err = c.ReadInts(st.i32)
		case format.Long:
			st.i64 = grow(st.i64, k)
			got, err = c.ReadLongs(st.i64)
		case format.Float:
			st.f32 = grow(st.f32, k)
			got, err = c.ReadFloats(st.f32)
		case format.Double:
			st.f64 = grow(st.f64, k)
			got, err = c.ReadDoubles(st.f64)
		case format.String, format.Bytes:
			got, err = st.readBytes(k)
		default:
			return fmt.Errorf("column type %s", st.leaf.typ)
		}
		if err == nil && got < k {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return fmt.Errorf("rows %d to %d: %w", from+done, from+done+int64(k)-1, err)
		}
		st.defs, st.reps = grow(st.defs, k), grow(st.reps, k)
		fill(st.defs, def)
		clear(st.reps)
		if err := st.flush(cw); err != nil {
			return err
		}
		done += int64(k)
	}
	return nil
}

// readBytes reads the string or bytes values of the next k rows into
// st.data and st.ends, checking strings for UTF-8 and fixeds for their
// size.
func (st *leafState) readBytes(k int) (int, error) {
	st.data, st.ends = st.data[:0], st.ends[:0]
	got, err := st.vals.ReadBytesTo(k, func(_ int, v []byte) {
		st.data = append(st.data, v...)
		st.ends = append(st.ends, len(st.data))
	})
	if i, bad := st.badBytes(0); i >= 0 {
		return i, fmt.Errorf("row %d: %s", st.vals.Row()-int64(got-1-i), bad)
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
// being read that are not written (st.keep): the levels held are those of
// whole rows, each starting at a level of repetition level 0, and a level
// holds a value when its definition level is the leaf's deepest.
func (st *leafState) drop() {
	full := int16(len(st.leaf.steps))
	row := st.kept - 1
	var lw, vw, vr, dw int // levels and values written back, values read, bytes written back
	bytes := st.leaf.typ == format.String || st.leaf.typ == format.Bytes || st.leaf.symbols != nil
	for i, d := range st.defs {
		if st.reps[i] == 0 {
			row++
		}
		if row >= len(st.keep) {
			break // cannot happen: the segment's rows end the levels
		}
		keep := st.keep[row]
		if keep {
			st.defs[lw], st.reps[lw] = d, st.reps[i]
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
					start = st.ends[vr-1]
				}
				n := copy(st.data[dw:], st.data[start:st.ends[vr]])
				dw += n
				st.ends[vw] = dw
			case st.leaf.typ == format.Boolean:
				st.bools[vw] = st.bools[vr]
			case st.leaf.typ == format.Int:
				st.i32[vw] = st.i32[vr]
			case st.leaf.typ == format.Long:
				st.i64[vw] = st.i64[vr]
			case st.leaf.typ == format.Float:
				st.f32[vw] = st.f32[vr]
			case st.leaf.typ == format.Double:
				st.f64[vw] = st.f64[vr]
			}
			vw++
		}
		vr++
	}
	st.kept = row + 1
	st.defs, st.reps = st.defs[:lw], st.reps[:lw]
	switch {
	case bytes:
		st.data, st.ends = st.data[:dw], st.ends[:vw]
	case st.leaf.typ == format.Boolean:
		st.bools = st.bools[:vw]
	case st.leaf.typ == format.Int:
		st.i32 = st.i32[:vw]
	case st.leaf.typ == format.Long:
		st.i64 = st.i64[:vw]
	case st.leaf.typ == format.Float:
		st.f32 = st.f32[:vw]
	case st.leaf.typ == format.Double:
		st.f64 = st.f64[:vw]
	}
}
