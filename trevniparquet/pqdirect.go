package trevniparquet

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/assemble/levels"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"

	"github.com/trevni-go/trevni/trevniarrow"
)

// The direct path of Write: each Parquet column chunk is written
// straight from the Trevni columns beneath it, with no Arrow arrays and no
// records assembled. A Parquet leaf's definition and repetition levels
// and its values come from the columnar read layer (assemble/levels),
// whose plan (levels.Plan, the one the Arrow reader uses too) is matched
// here with the Parquet schema pqarrow gives the records' Arrow schema,
// so that the file is the one the Arrow path writes, value for value;
// only the pages may be cut elsewhere. The leaves of a row group are written in parallel, each
// by one goroutine reading its own columns.

// directPlan is the plan of a data set the direct path writes.
type directPlan struct {
	leaves []levels.Leaf // levels.Plan's, matched with the Parquet schema
	schema *pqschema.Schema
	meta   metadata.KeyValueMetadata
	names  []string // the names of the Trevni columns the leaves number, in layout order
	cols   []int    // the file column of each of them

	filterFields []string // the fields a filter reads (frontdoor.FilterFields)
}

// directSchema returns the schema of the records the direct path writes:
// the data set's, or its projection on ro's Fields; nil if there is none.
func directSchema(ds *trevni.Dataset, ro *trevniarrow.ReadOptions) *schema.Schema {
	s := frontdoor.Schema(ds)
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
// or nil when the direct path does not cover it (the Arrow path does): a
// data set whose parts have schemas of their own, resolved to the data
// set's as records, or a schema whose plan (levels.Plan, the one map of a
// layout to leaves that every columnar sink uses) does not match the
// Parquet schema. as is the Arrow schema of the records written
// (directSchema's).
func planDirect(ds *trevni.Dataset, ro *trevniarrow.ReadOptions, as *arrow.Schema, props *parquet.WriterProperties) *directPlan {
	s := frontdoor.Schema(ds)
	if s == nil {
		return nil
	}
	for _, p := range ds.Parts() {
		if p.SchemaText() != ds.SchemaText() {
			return nil
		}
	}
	// The data set's columns, within its layout limits, are the file
	// columns the layout of its schema numbers.
	all, err := frontdoor.LayoutColumns(ds)
	if err != nil {
		return nil
	}
	lay, err := layout.New(s, nil)
	if err != nil {
		return nil
	}
	plan, err := levels.NewPlan(lay, &levels.PlanOptions{Fields: ro.Fields})
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
	m := &matcher{plan: plan}
	root := sc.Root()
	if plan.Root.Kind == levels.Record {
		if !m.record(plan.Root, root) {
			return nil
		}
	} else if root.NumFields() != 1 || !m.entry(plan.Root, root.Field(0)) {
		return nil
	}
	if m.next != len(plan.Leaves) || len(plan.Leaves) != sc.NumColumns() {
		return nil
	}
	p.leaves = plan.Leaves
	for i := range p.leaves {
		l := &p.leaves[i]
		l.Path = sc.Column(i).Path()
		if l.MaxDef() != sc.Column(i).MaxDefinitionLevel() || l.MaxRep() != sc.Column(i).MaxRepetitionLevel() {
			return nil
		}
	}
	return p
}

// matcher matches a plan's tree with the Parquet schema pqarrow gives the
// records' Arrow schema, depth first (the order of both the plan's leaves
// and the Parquet columns), making the plan's nodes optional where the
// Parquet schema's are (a decimal) and choosing how each leaf's values
// are written.
type matcher struct {
	plan *levels.Plan
	next int // the plan's leaf the next Parquet column must be
}

// leaf says whether the next Parquet column is n's leaf, and moves on.
func (m *matcher) leaf(n *levels.Node) bool {
	if n.Leaf != m.next {
		return false
	}
	m.next++
	return true
}

// entry matches node n with Parquet node pq, whose own repetition it
// reads: a nullable node is an optional one; a union of several branches
// a group of an optional field per non-null branch, optional if the union
// has a null branch; a null an optional leaf never defined; an optional
// node of a value always there is made nullable (a level always reached).
func (m *matcher) entry(n *levels.Node, pq pqschema.Node) bool {
	if n.Kind == levels.Union {
		return m.union(n, pq)
	}
	if n.Kind == levels.Value && n.Schema.Kind == schema.Null {
		return pq.RepetitionType() == parquet.Repetitions.Optional && m.null(n, pq)
	}
	switch pq.RepetitionType() {
	case parquet.Repetitions.Required:
		if n.Nullable {
			return false
		}
	case parquet.Repetitions.Optional:
		if !n.Nullable {
			m.plan.MakeNullable(n)
		}
	default:
		return false
	}
	return m.inner(n, pq)
}

// union matches a Union node with pq (see entry).
func (m *matcher) union(n *levels.Node, pq pqschema.Node) bool {
	g, ok := pq.(*pqschema.GroupNode)
	want := parquet.Repetitions.Required
	if n.Nullable {
		want = parquet.Repetitions.Optional
	}
	if !ok || g.RepetitionType() != want {
		return false
	}
	k := 0
	for _, c := range n.Children {
		if c.Kind == levels.Value && c.Schema.Kind == schema.Null {
			continue // the null branch: no field
		}
		if k >= g.NumFields() || g.Field(k).RepetitionType() != parquet.Repetitions.Optional || !m.inner(c, g.Field(k)) {
			return false
		}
		k++
	}
	return k == g.NumFields() && k > 0
}

// null matches a leaf of nulls with an optional leaf of pqarrow's INT32
// of the Null logical type.
func (m *matcher) null(n *levels.Node, pq pqschema.Node) bool {
	leaf, ok := pq.(*pqschema.PrimitiveNode)
	if !ok || leaf.PhysicalType() != parquet.Types.Int32 || pq.RepetitionType() != parquet.Repetitions.Optional {
		return false
	}
	if _, ok := leaf.LogicalType().(pqschema.NullLogicalType); !ok {
		return false
	}
	return m.leaf(n)
}

// record matches a Record node's fields with the group pq's; a record of
// no fields has the one field of nulls SchemaOptions.Parquet gives it.
func (m *matcher) record(n *levels.Node, pq pqschema.Node) bool {
	g, ok := pq.(*pqschema.GroupNode)
	if !ok || n.Kind != levels.Record {
		return false
	}
	if len(n.Children) == 0 {
		return g.NumFields() == 1 && m.null(n, g.Field(0))
	}
	if g.NumFields() != len(n.Children) {
		return false
	}
	for i, c := range n.Children {
		if !m.entry(c, g.Field(i)) {
			return false
		}
	}
	return true
}

// inner matches the value of n (not a union) with pq.
func (m *matcher) inner(n *levels.Node, pq pqschema.Node) bool {
	switch n.Kind {
	case levels.Record:
		return m.record(n, pq)
	case levels.List, levels.Map:
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
		if n.Kind == levels.List {
			return len(n.Children) == 1 && inner.NumFields() == 1 && m.entry(n.Children[0], inner.Field(0))
		}
		if len(n.Children) != 2 || inner.NumFields() != 2 || inner.Field(0).RepetitionType() != parquet.Repetitions.Required {
			return false
		}
		key, ok := inner.Field(0).(*pqschema.PrimitiveNode)
		if !ok || key.PhysicalType() != parquet.Types.ByteArray || !m.leaf(n.Children[0]) {
			return false
		}
		return m.entry(n.Children[1], inner.Field(1))
	case levels.Value:
	default:
		return false
	}
	leaf, ok := pq.(*pqschema.PrimitiveNode)
	if !ok || n.Leaf < 0 || n.Leaf != m.next {
		return false
	}
	l := &m.plan.Leaves[n.Leaf]
	if l.Col < 0 {
		return false
	}
	rs := n.Schema
	logical := rs.Logical
	var phys parquet.Type
	switch rs.Kind {
	case schema.Boolean:
		phys = parquet.Types.Boolean
	case schema.Int:
		phys = parquet.Types.Int32
	case schema.Long:
		phys = parquet.Types.Int64
		if mark, _ := rs.Prop(trevniarrow.PropArrowType); logical == schema.LogicalNone {
			switch mark {
			case "uint32":
				// An INT32 of UINT_32: the longs written as the 32
				// bits, each checked in range (chunkSink).
				phys = parquet.Types.Int32
			case "time64[ns]":
				// A TIME in nanoseconds: the long is its value.
				logical = schema.LogicalTimestampNanos
				if _, ok := leaf.LogicalType().(pqschema.TimeLogicalType); !ok {
					return false
				}
			}
		}
	case schema.Float:
		phys = parquet.Types.Float
	case schema.Double:
		phys = parquet.Types.Double
	case schema.String, schema.Bytes, schema.Fixed:
		phys = parquet.Types.ByteArray
		if rs.Kind == schema.Fixed {
			phys = parquet.Types.FixedLenByteArray
		}
		switch lt := leaf.LogicalType().(type) {
		case pqschema.DecimalLogicalType:
			// A decimal is a FIXED_LEN_BYTE_ARRAY of its precision's
			// width, its big-endian bytes sign-extended or cut to it.
			if logical != schema.LogicalDecimal || int(lt.Precision()) != rs.Precision || int(lt.Scale()) != rs.Scale {
				return false
			}
			phys, l.Decimal, logical = parquet.Types.FixedLenByteArray, leaf.TypeLength(), schema.LogicalNone
		case pqschema.UUIDLogicalType:
			// A UUID is its sixteen bytes: a fixed's, or its text's.
			if logical != schema.LogicalUUID || leaf.TypeLength() != 16 {
				return false
			}
			phys, l.UUID, logical = parquet.Types.FixedLenByteArray, rs.Kind == schema.String, schema.LogicalNone
		default:
			if logical == schema.LogicalDecimal || logical == schema.LogicalUUID {
				// Stored as plain bytes (a precision no Arrow decimal
				// holds, a fixed UUID not of 16 bytes).
				logical = schema.LogicalNone
			}
		}
		if l.Fixed > 0 && phys == parquet.Types.FixedLenByteArray && l.Decimal == 0 && leaf.TypeLength() != l.Fixed {
			return false
		}
	case schema.Enum:
		phys, l.Symbols = parquet.Types.ByteArray, rs.Symbols
	default:
		return false
	}
	if leaf.PhysicalType() != phys || !sameLogical(logical, leaf.LogicalType()) {
		return false
	}
	m.next++
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
func writeDirect(ctx context.Context, w io.Writer, ds *trevni.Dataset, p *directPlan, props *parquet.WriterProperties, o *WriteOptions) (int64, error) {
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
	sel := levels.NewSpan(o.Read.Offset, o.Read.Rows, o.Read.Limit)
	for _, part := range ds.Parts() {
		if sel.Done() {
			break
		}
		from, end := sel.Part(part.RowCount())
		if from >= end {
			continue
		}
		n, read, rep, err := p.writePart(ctx, pw, part, o, sel, from, end, rows, bytes)
		rows += n
		bytes += read
		sel.Took(n)
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
func (p *directPlan) writePart(ctx context.Context, pw *pqWriter, part *trevni.Part, o *WriteOptions, sel *levels.Span, from, end, before, readBefore int64) (rows, read int64, rep *trevni.PartReport, err error) {
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
	var filter *assemble.AvroReader
	if o.Read.Where != "" {
		filter, err = assemble.NewAvroReader(rd, &assemble.Options{Filter: o.Read.Where, Fields: p.filterFields})
		if err != nil && p.filterFields != nil {
			// A selection of the filter's fields the reader refuses (a
			// path into an array in a union) is read whole instead: only
			// the filter's columns are read all the same.
			filter, err = assemble.NewAvroReader(rd, &assemble.Options{Filter: o.Read.Where})
		}
		if err != nil {
			return 0, 0, nil, err
		}
		if from > 0 {
			if err := filter.SeekRow(from); err != nil {
				return 0, 0, nil, err
			}
		}
		filter.StopAt(end)
		filter.SetLimit(sel.Limit())
	}
	var s *levels.Selector
	if filter != nil {
		s = levels.NewSelector(from, end, sel.Limit(), filter)
	} else {
		s = levels.NewSelector(from, end, sel.Limit(), nil)
	}
	states := make([]*levels.Reader, len(p.leaves))
	defer func() {
		rep = p.report(part, f, rd, states, filter, rows)
		for _, st := range states {
			if st != nil {
				st.Close()
			}
		}
	}()
	var used []int
	for i := range p.leaves {
		st, err := levels.NewReader(&p.leaves[i], func(c int) (*format.ColumnReader, error) {
			cr, err := rd.Values(p.cols[c])
			if err != nil {
				return nil, fmt.Errorf("column %s: %w", p.names[c], err)
			}
			if !containsInt(used, p.cols[c]) {
				used = append(used, p.cols[c])
			}
			cr.SetReadAheadEnd(end)
			return cr, nil
		})
		if err != nil {
			return 0, 0, nil, err
		}
		states[i] = st
	}
	// A row group holds its compressed pages until it ends: it ends at
	// RowGroupRows rows, or before, at about the bytes the options allow
	// (Read.BatchBytes, and Read.OutputMemory if set), its rows sized by
	// the bytes a row takes in the Trevni columns, then in the row groups
	// written.
	budget := int64(o.Read.BatchBytes)
	if budget <= 0 {
		budget = trevniarrow.DefaultBatchBytes
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
	bufs := make([]chunkBufs, len(states))
	for {
		if err := ctx.Err(); err != nil {
			return rows, f.BytesRead(), nil, err
		}
		most := max(min(int64(o.RowGroupRows), int64(float64(budget)/perRow)), 1)
		segs, n, err := s.Group(most)
		if err != nil {
			return rows, f.BytesRead(), nil, err
		}
		if n == 0 {
			break
		}
		if filter != nil {
			// Where the matches end is known a row group at a time: no
			// block past the last is fetched ahead.
			last := segs[len(segs)-1]
			for _, st := range states {
				st.SetReadAheadEnd(last.First + last.N)
			}
		}
		rgw, err := pw.appendRowGroup()
		if err != nil {
			return rows, f.BytesRead(), nil, fmt.Errorf("Parquet row group: %w", err)
		}
		// The first leaf to fail stops the others.
		gctx, cancel := context.WithCancel(ctx)
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
				err := states[i].Read(gctx, segs, chunkSink(cw, &bufs[i]))
				if err == nil {
					err = finishPages(cw)
				}
				took[i] = time.Since(start)
				if err != nil {
					mu.Lock()
					if first == nil {
						first = fmt.Errorf("Parquet column %s: %w", p.leaves[i].Path, err)
						cancel()
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
		cancel()
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
	weight := func(l *levels.Leaf) int {
		w := 0
		for _, s := range l.Steps {
			if s.Kind != levels.Defined {
				w = 2
			}
		}
		if l.ByteArray() {
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

// report returns what writing a part read, through levels.ScanReport (the
// one part report of the columnar readers): the file's columns that the
// leaves' readers and the filter read.
func (p *directPlan) report(part *trevni.Part, f *trevni.File, rd *format.Reader, states []*levels.Reader, filter *assemble.AvroReader, rows int64) *trevni.PartReport {
	return &trevni.PartReport{Part: part.Name(), Fetched: f.Fetched(), Scan: frontdoor.ScanReport(levels.ScanReport(rd, states, filter, rows, func(c int) int { return p.cols[c] })).(trevni.ScanReport)}
}

// chunkBufs are a leaf's slices of byte strings, kept from one row
// group to the next.
type chunkBufs struct {
	ba  []parquet.ByteArray
	fba []parquet.FixedLenByteArray
	i32 []int32 // the longs of a UINT_32 column, as its 32 bits
}

// chunkSink returns the sink of a leaf's runs that writes them to cw: the
// levels a column of no such levels has are left out, and byte strings
// are handed over as slices of the run's bytes.
func chunkSink(cw file.ColumnChunkWriter, b *chunkBufs) func(*levels.Run) error {
	noDefs := cw.Descr().MaxDefinitionLevel() == 0
	noReps := cw.Descr().MaxRepetitionLevel() == 0
	// An INT32 of an 8- or 16-bit integer type (an int the Avro schema
	// marks so, trevniarrow.PropArrowType) takes only values of its range.
	var lo, hi int32
	narrow := false
	if lt, ok := cw.Descr().LogicalType().(pqschema.IntLogicalType); ok && lt.BitWidth() < 32 {
		narrow, lo, hi = true, -1<<(lt.BitWidth()-1), 1<<(lt.BitWidth()-1)-1
		if !lt.IsSigned() {
			lo, hi = 0, 1<<lt.BitWidth()-1
		}
	}
	// An INT32 of UINT_32 written from longs (a long marked uint32).
	uint32s := func(vals []int64) ([]int32, error) {
		b.i32 = slices.Grow(b.i32[:0], len(vals))[:len(vals)]
		for i, v := range vals {
			if v < 0 || v > math.MaxUint32 {
				return nil, fmt.Errorf("%d out of the range of the column's Parquet %s, the type the Avro schema's %q names", v, cw.Descr().LogicalType(), trevniarrow.PropArrowType)
			}
			b.i32[i] = int32(uint32(v))
		}
		return b.i32, nil
	}
	return func(r *levels.Run) error {
		defs, reps := r.Defs, r.Reps
		if noDefs {
			defs = nil
		}
		if noReps {
			reps = nil
		}
		var err error
		switch w := cw.(type) {
		case *file.BooleanColumnChunkWriter:
			_, err = w.WriteBatch(r.Bools, defs, reps)
		case *file.Int32ColumnChunkWriter:
			if len(r.I64) > 0 {
				vals, err := uint32s(r.I64)
				if err != nil {
					return err
				}
				_, err = w.WriteBatch(vals, defs, reps)
				return err
			}
			if narrow {
				for _, v := range r.I32 {
					if v < lo || v > hi {
						return fmt.Errorf("%d out of the range of the column's Parquet %s, the type the Avro schema's %q names", v, cw.Descr().LogicalType(), trevniarrow.PropArrowType)
					}
				}
			}
			_, err = w.WriteBatch(r.I32, defs, reps)
		case *file.Int64ColumnChunkWriter:
			_, err = w.WriteBatch(r.I64, defs, reps)
		case *file.Float32ColumnChunkWriter:
			_, err = w.WriteBatch(r.F32, defs, reps)
		case *file.Float64ColumnChunkWriter:
			_, err = w.WriteBatch(r.F64, defs, reps)
		case *file.ByteArrayColumnChunkWriter:
			b.ba = slices.Grow(b.ba[:0], len(r.Ends))[:len(r.Ends)]
			start := 0
			for i, end := range r.Ends {
				b.ba[i] = r.Data[start:end:end]
				start = end
			}
			_, err = w.WriteBatch(b.ba, defs, reps)
		case *file.FixedLenByteArrayColumnChunkWriter:
			b.fba = slices.Grow(b.fba[:0], len(r.Ends))[:len(r.Ends)]
			start := 0
			for i, end := range r.Ends {
				b.fba[i] = r.Data[start:end:end]
				start = end
			}
			_, err = w.WriteBatch(b.fba, defs, reps)
		default:
			err = fmt.Errorf("unexpected Parquet column writer %T", cw)
		}
		return err
	}
}
