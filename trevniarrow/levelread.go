package trevniarrow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/assemble/levels"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

// The columnar path of RecordReader: each batch's arrays are built from
// the levels of the Trevni columns beneath them (assemble/levels), with
// no records assembled and no Avro binary between. The parts are read
// one after another; a batch's rows are those of a row group of the
// levels' Selector (a range's rows, or a filter's matches, as many as
// the limit still wants), and its top-level columns are read and built
// on Workers goroutines, each reading the columns of its own.

// colReader reads a data set's batches from its columns.
type colReader struct {
	ctx    context.Context
	ds     *trevni.Dataset
	o      *ReadOptions
	schema *arrow.Schema
	avro   *schema.Schema // the records' schema: the data set's, projected

	plans   map[string]*colPlan // by the parts' schema text
	span    *levels.Span
	k       int // the next part
	cur     *colPart
	reports []trevni.PartReport
	rows    int64   // records returned
	read    int64   // bytes read from the parts closed
	perRow  float64 // bytes of a batch's arrays per row, in the batches before; 0 before the first
	budget  int64   // the most bytes of a batch's arrays
	workers int

	filterFields []string
}

// colPlan is the plan of reading the parts of one schema: the leaves'
// buffers and the builders of the top-level columns.
type colPlan struct {
	plan   *levels.Plan
	lay    *layout.Layout
	b      *lbuilder
	bufs   []*leafBuf // every leaf read: the plan's, then branch leaves
	tops   []topCol
	record bool   // the records are records: each top is a field
	reader string // the reader schema the part's filter resolves to, "" for the part's own
}

// topCol is a top-level column: its builder and the leaves it reads.
type topCol struct {
	col    lcol
	leaves []*leafBuf
	flat   bool // one flat leaf: its values are taken a batch at a time
}

// colPart is a part being read.
type colPart struct {
	part    *trevni.Part
	f       *trevni.File
	rd      *format.Reader
	cp      *colPlan
	readers []*levels.Reader // of cp.bufs
	filter  *assemble.AvroReader
	sel     *levels.Selector
	rows    int64 // records returned from the part
	perRow  float64
}

// newColReader returns the reader of ds's batches.
func newColReader(ctx context.Context, ds *trevni.Dataset, o *ReadOptions) (*colReader, error) {
	if len(ds.Parts()) == 0 {
		return nil, errors.New("a data set of no parts")
	}
	// The schema, and the layout limits of the data set (its Columns
	// fails past them).
	if _, err := ds.Columns(); err != nil {
		return nil, err
	}
	c := &colReader{ctx: ctx, ds: ds, o: o, plans: map[string]*colPlan{}}
	// Every part's plan first: a reader schema that cannot read a part
	// is an error before any batch.
	for _, p := range ds.Parts() {
		if _, err := c.planOf(p); err != nil {
			return nil, err
		}
	}
	cp, _ := c.planOf(ds.Parts()[0])
	c.avro = cp.plan.Schema
	as, err := ArrowSchema(c.avro, &o.Schema)
	if err != nil {
		return nil, fmt.Errorf("Arrow schema: %w", err)
	}
	c.schema = as
	for _, cp := range c.plans {
		if err := c.build(cp); err != nil {
			return nil, err
		}
	}
	c.span = levels.NewSpan(o.Offset, o.Rows, o.Limit)
	c.budget = int64(o.BatchBytes)
	c.workers = 1
	if o.Workers > 1 {
		c.workers = min(o.Workers, runtime.GOMAXPROCS(0)*4)
		memory := o.OutputMemory
		if memory <= 0 {
			memory = int64(o.Workers+1) * trevni.DefaultOutputMemory
		}
		// The batch built, the levels and values it is built from, and
		// the batch the caller holds (until its next call of Next).
		c.budget = min(c.budget, max(memory/3, 1))
	}
	if o.Where != "" {
		c.filterFields = frontdoor.FilterFields(ds, o.Where)
	}
	// The first part opened here, so that a filter that does not compile
	// is an error of NewRecordReader's.
	if err := c.nextPart(); err != nil && err != io.EOF {
		c.close()
		return nil, err
	}
	return c, nil
}

// planOf returns the plan of part p's schema, made once.
func (c *colReader) planOf(p *trevni.Part) (*colPlan, error) {
	text := p.SchemaText()
	if cp := c.plans[text]; cp != nil {
		return cp, nil
	}
	ws, err := layout.ParseStored(text, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: schema: %w", p.Name(), err)
	}
	lay, err := layout.New(ws, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name(), err)
	}
	po := &levels.PlanOptions{Fields: c.o.Fields}
	reader := ""
	if text != c.ds.SchemaText() {
		po.Reader, reader = frontdoor.Schema(c.ds), c.ds.SchemaText()
	}
	plan, err := levels.NewPlan(lay, po)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name(), err)
	}
	cp := &colPlan{plan: plan, lay: lay, reader: reader}
	c.plans[text] = cp
	return cp, nil
}

// build makes a plan's builders of the Arrow schema's columns.
func (c *colReader) build(cp *colPlan) error {
	b := &lbuilder{plan: cp.plan, branch: map[*levels.Node]*leafBuf{}, o: &c.o.Schema}
	for i := range cp.plan.Leaves {
		l := cp.plan.Leaves[i]
		b.leaves = append(b.leaves, &leafBuf{leaf: l, maxDef: l.MaxDef(), flat: flatLeaf(&l)})
	}
	cp.b = b
	root := cp.plan.Root
	cp.record = c.avro.Kind == schema.Record
	var tops []*levels.Node
	if cp.record {
		tops = root.Children
	} else {
		tops = []*levels.Node{root}
	}
	fields := c.schema.Fields()
	if cp.record && len(root.Children) == 0 && len(fields) == 1 {
		// SchemaOptions.Parquet's field of nulls of a record of none.
		cp.tops = []topCol{{col: &lnullCol{}}}
	} else if len(tops) != len(fields) {
		return fmt.Errorf("%d columns of the records, %d of the Arrow schema", len(tops), len(fields))
	}
	for i, n := range tops {
		extra := len(b.extra)
		col, err := b.col(n, fields[i].Type, fields[i].Nullable)
		if err != nil {
			return err
		}
		t := topCol{col: col}
		t.leaves = append(t.leaves, b.leaves[n.First:n.End]...)
		t.leaves = append(t.leaves, b.extra[extra:]...)
		if len(t.leaves) == 1 && t.leaves[0].flat && n.Kind == levels.Value {
			t.flat = true
		}
		cp.tops = append(cp.tops, t)
	}
	cp.bufs = append(append([]*leafBuf(nil), b.leaves...), b.extra...)
	return nil
}

// nextPart opens the next part with rows to read; io.EOF when none is
// left.
func (c *colReader) nextPart() error {
	c.closePart()
	parts := c.ds.Parts()
	for c.k < len(parts) && !c.span.Done() {
		p := parts[c.k]
		c.k++
		from, end := c.span.Part(p.RowCount())
		if from >= end {
			continue
		}
		cp, err := c.planOf(p)
		if err != nil {
			return err
		}
		if cp.b == nil {
			if err := c.build(cp); err != nil {
				return err
			}
		}
		if err := c.openPart(p, cp, from, end); err != nil {
			return fmt.Errorf("%s: %w", p.Name(), err)
		}
		return nil
	}
	return io.EOF
}

// openPart opens part p to read rows [from, end) by plan cp.
func (c *colReader) openPart(p *trevni.Part, cp *colPlan, from, end int64) (err error) {
	f, err := p.Open(c.ctx)
	if err != nil {
		return err
	}
	cur := &colPart{part: p, f: f, cp: cp}
	defer func() {
		if err != nil {
			cur.close()
			return
		}
		c.cur = cur
	}()
	if f.RowCount() != p.RowCount() {
		return fmt.Errorf("changed while being read (%d rows, then %d)", p.RowCount(), f.RowCount())
	}
	// A Trevni 1 or CLMN file is read through its columns as Trevni 2
	// lays them out.
	if cur.rd, err = frontdoor.AsTrevni(c.ctx, f); err != nil {
		return err
	}
	for _, col := range cp.plan.Columns() {
		m, err := cur.rd.Column(col)
		if err != nil {
			return err
		}
		if want := cp.lay.Columns[col].Meta(); m.Name != want.Name || m.Type != want.Type {
			return fmt.Errorf("column %d is %q (%s), where the schema lays out %q (%s)", col, m.Name, m.Type, want.Name, want.Type)
		}
	}
	if c.o.Where != "" {
		ao := &assemble.Options{Filter: c.o.Where, Fields: c.filterFields, ReaderSchema: cp.reader}
		cur.filter, err = assemble.NewAvroReader(cur.rd, ao)
		if err != nil && c.filterFields != nil {
			// A selection of the filter's fields the reader refuses (a
			// path into an array in a union) is read whole instead.
			ao.Fields = nil
			cur.filter, err = assemble.NewAvroReader(cur.rd, ao)
		}
		if err != nil {
			return err
		}
		if from > 0 {
			if err := cur.filter.SeekRow(from); err != nil {
				return err
			}
		}
		cur.filter.StopAt(end)
		cur.filter.SetLimit(c.span.Limit())
		cur.sel = levels.NewSelector(from, end, c.span.Limit(), cur.filter)
	} else {
		cur.sel = levels.NewSelector(from, end, c.span.Limit(), nil)
	}
	var used []int
	for _, lb := range cp.bufs {
		lr, err := levels.NewReader(&lb.leaf, func(col int) (*format.ColumnReader, error) {
			cr, err := cur.rd.Values(col)
			if err != nil {
				return nil, fmt.Errorf("column %s: %w", cp.lay.Columns[col].Name, err)
			}
			if !slices.Contains(used, col) {
				used = append(used, col)
			}
			cr.SetReadAheadEnd(end)
			return cr, nil
		})
		if err != nil {
			return err
		}
		cur.readers = append(cur.readers, lr)
	}
	cur.perRow = 2 * storedPerRow(cur.rd, used)
	return nil
}

// close closes the part's readers and its file.
func (p *colPart) close() {
	for _, r := range p.readers {
		r.Close()
	}
	p.f.Close()
}

// closePart closes the part being read, keeping its report.
func (c *colReader) closePart() {
	cur := c.cur
	if cur == nil {
		return
	}
	c.cur = nil
	rep := cur.report()
	cur.close()
	rep.Fetched = cur.f.Fetched()
	c.reports = append(c.reports, *rep)
	c.read += cur.f.BytesRead()
	c.span.Took(cur.rows)
}

// close ends reading.
func (c *colReader) close() {
	c.closePart()
}

// next returns the next batch, io.EOF after the last.
func (c *colReader) next() (arrow.RecordBatch, int64, error) {
	for {
		if err := c.ctx.Err(); err != nil {
			return nil, 0, err
		}
		if c.cur == nil {
			if err := c.nextPart(); err != nil {
				return nil, 0, err
			}
			continue
		}
		cur := c.cur
		per := c.perRow
		if per <= 0 {
			per = cur.perRow
		}
		most := max(min(int64(c.o.BatchRows), int64(float64(c.budget)/max(per, 1))), 1)
		segs, n, err := cur.sel.Group(most)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", cur.part.Name(), err)
		}
		if n == 0 {
			c.closePart()
			continue
		}
		if cur.filter != nil {
			// Where the matches end is known a batch at a time: no block
			// past the last is fetched ahead.
			last := segs[len(segs)-1]
			for _, r := range cur.readers {
				r.SetReadAheadEnd(last.First + last.N)
			}
		}
		rec, mem, err := c.batch(cur, segs, n)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", cur.part.Name(), err)
		}
		cur.rows += n
		c.rows += n
		c.perRow = max(float64(mem)/float64(n), 1)
		if c.o.Progress != nil {
			c.o.Progress(c.rows, c.bytesRead())
		}
		return rec, mem, nil
	}
}

// bytesRead returns the bytes read from the parts so far.
func (c *colReader) bytesRead() int64 {
	n := c.read
	if c.cur != nil {
		n += c.cur.f.BytesRead()
	}
	return n
}

// batch reads the segments' n rows kept of the part into a batch.
func (c *colReader) batch(cur *colPart, segs []levels.Segment, n int64) (arrow.RecordBatch, int64, error) {
	cp := cur.cp
	reader := make(map[*leafBuf]*levels.Reader, len(cp.bufs))
	for i, lb := range cp.bufs {
		reader[lb] = cur.readers[i]
	}
	errs := make([]error, len(cp.tops))
	data := make([]arrow.ArrayData, len(cp.tops))
	mem := make([]int64, len(cp.tops))
	one := func(i int) {
		defer func() {
			// The leaves' levels agree by construction (each reads the
			// columns above it itself); should damaged columns ever
			// make them disagree, the batch fails, naming the column.
			if r := recover(); r != nil {
				errs[i] = fmt.Errorf("column %s: damaged levels: %v", c.schema.Field(min(i, c.schema.NumFields()-1)).Name, r)
			}
		}()
		t := &cp.tops[i]
		for _, lb := range t.leaves {
			lb.reset()
			if err := reader[lb].Read(c.ctx, segs, lb.add); err != nil {
				errs[i] = err
				return
			}
		}
		if t.flat {
			var err error
			switch col := t.col.(type) {
			case interface{ all(int) error }:
				err = col.all(int(n))
			default:
				err = readRows(t.col, segs, n)
			}
			if err != nil {
				errs[i] = err
				return
			}
		} else if err := readRows(t.col, segs, n); err != nil {
			errs[i] = err
			return
		}
		mem[i] = int64(t.col.bytes())
		data[i] = t.col.finish()
	}
	if c.workers <= 1 || len(cp.tops) <= 1 {
		for i := range cp.tops {
			if one(i); errs[i] != nil {
				break
			}
		}
	} else {
		next := make(chan int, len(cp.tops))
		for i := range cp.tops {
			next <- i
		}
		close(next)
		var wg sync.WaitGroup
		for range min(c.workers, len(cp.tops)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					one(i)
				}
			}()
		}
		wg.Wait()
	}
	release := func() {
		for _, d := range data {
			if d != nil {
				d.Release()
			}
		}
	}
	// The error of the first column that failed, as one goroutine
	// reading the columns in order would report it.
	for _, err := range errs {
		if err != nil {
			release()
			for _, t := range cp.tops {
				t.col.finish().Release() // the builders start anew
			}
			return nil, 0, err
		}
	}
	var total int64
	for _, m := range mem {
		total += m
	}
	var cols []arrow.Array
	if cp.record {
		for _, d := range data {
			cols = append(cols, array.MakeFromData(d))
		}
	} else {
		cols = []arrow.Array{array.MakeFromData(data[0])}
	}
	release()
	rec := array.NewRecordBatch(c.schema, cols, n)
	for _, col := range cols {
		col.Release()
	}
	return rec, total, nil
}

// readRows appends the next n values of a top-level column, one a row
// kept of the segments.
func readRows(col lcol, segs []levels.Segment, n int64) error {
	for q := range n {
		if err := col.read(); err != nil {
			return fmt.Errorf("row %d: %w", keptRow(segs, q), err)
		}
	}
	return nil
}

// keptRow returns the part's row of the q-th row the segments keep.
func keptRow(segs []levels.Segment, q int64) int64 {
	for _, s := range segs {
		if s.Keep == nil {
			if q < s.N {
				return s.First + q
			}
			q -= s.N
			continue
		}
		for i, k := range s.Keep {
			if !k {
				continue
			}
			if q == 0 {
				return s.First + int64(i)
			}
			q--
		}
	}
	return -1
}

// report returns what reading the part read: for each column, the most
// blocks any of its readers read, the filter's included.
func (p *colPart) report() *trevni.PartReport {
	return &trevni.PartReport{Part: p.part.Name(), Scan: frontdoor.ScanReport(levels.ScanReport(p.rd, p.readers, p.filter, p.rows, nil)).(trevni.ScanReport)}
}

// storedPerRow returns about the bytes a row of the part takes in the
// columns cols, uncompressed, for sizing the first batch.
func storedPerRow(rd *format.Reader, cols []int) float64 {
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
			total += int64(b.UncompressedSize)
		}
	}
	return max(float64(total)/float64(rows), 1)
}
