package trevni

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/ordered"
	"github.com/trevni-go/trevni/internal/rowtasks"
	"github.com/trevni-go/trevni/predicate"
)

// Reading on several workers (ReadOptions.Workers). The rows each part has
// to give are cut into tasks, ranges of rows ending where a block of the
// part's largest column read ends; each worker assembles a task's records
// with its own assembling reader, sought to the range's first row, into
// chunks of encoded records, and the calling goroutine writes the chunks
// in row order (package internal/ordered). The limit is the writer's to
// keep: it counts the records it writes, cuts the chunk where the limit
// falls and stops the workers. A task that fails is not believed on its
// own: the writer reads the part again on one goroutine from its first
// row, passing over the records already written, so that the error, and
// the records written before it, are those of the sequential reader.

// How tasks are sized. The writing methods' workers hold at most
// ReadOptions.OutputMemory of encoded records waiting for the writer, in
// chunks (ordered.Sizes): each task its share. A task aims at twice its
// share of output, judged from the output of the tasks before (from the
// bytes of the columns read, times three, until there is one), so that
// the worker of the next task fills its share while the one before is
// written and neither waits long. But a task should hold several blocks
// of every column read, since the blocks where two tasks meet are read by
// both: at least rowtasks.MinBlocks of each, about. ReadStructs' tasks
// are sized alike, its batches of T the chunks; frontdoor.ReadBatches' hold a few
// batches (batchAhead) of their share of the memory.

// DefaultOutputMemory is ReadOptions.OutputMemory's default for each
// worker, and one more.
const DefaultOutputMemory = 1 << 20

// encodeFunc appends the encoding of pr's next record to dst, or returns
// io.EOF after the last.
type encodeFunc func(pr partReader, dst []byte) ([]byte, error)

// pout is what the workers make of a task's records, and how the writer
// passes them on: encodings (byteOut, the writing methods) or Go values
// (structOut, ReadStructs).
type pout interface {
	// fill reads rd's records, to the end of its range, into out's
	// chunks; at the end it returns nil or io.EOF.
	fill(ctx context.Context, pp *ppart, rd partReader, out *ordered.Out) error
	// records returns the records c holds.
	records(c *ordered.Chunk) int
	// write passes on the first n records of c.
	write(c *ordered.Chunk, n int) error
	// one returns the fallback's reading of rd one record at a time:
	// read reads the next record (io.EOF after the last), put passes it
	// on.
	one(rd partReader) (read, put func() error)
	// taskBytes returns the output a task of pp should aim at: what it
	// may hold waiting for the writer.
	taskBytes(pp *ppart) int64
	// trustFirst reports whether the error of the task where the
	// sequential reader starts is taken as it is (it reads as that
	// reader does) rather than read again.
	trustFirst() bool
}

// byteOut is the output of the writing methods: each record encoded by
// newEnc's function, handed to w a chunk at a time (data holding the
// records ending at ends).
type byteOut struct {
	newEnc func() encodeFunc
	w      func(data []byte, ends []int) error
	task   int64 // the output a task aims at
	// deep: the memory is the default, and a task larger than twice its
	// share (the least a task holds is larger) may hold half its output,
	// in chunks of chunk bytes.
	deep  bool
	chunk int64
}

func (b *byteOut) fill(ctx context.Context, _ *ppart, rd partReader, out *ordered.Out) error {
	enc := b.newEnc()
	c := out.Chunk()
	var err error
	for k := 1; ; k++ {
		c.Data, err = enc(rd, c.Data)
		if err != nil || !out.Record() {
			return err
		}
		c = out.Chunk()
		if k%4096 == 0 && ctx.Err() != nil {
			return nil
		}
	}
}

func (b *byteOut) records(c *ordered.Chunk) int { return len(c.Ends) }

func (b *byteOut) write(c *ordered.Chunk, n int) error {
	if n == 0 {
		return nil
	}
	return b.w(c.Data[:c.Ends[n-1]], c.Ends[:n])
}

func (b *byteOut) one(rd partReader) (read, put func() error) {
	enc := b.newEnc()
	var buf []byte
	ends := []int{0}
	read = func() (err error) {
		buf, err = enc(rd, buf[:0])
		return err
	}
	put = func() error {
		ends[0] = len(buf)
		return b.w(buf, ends)
	}
	return read, put
}

func (b *byteOut) taskBytes(*ppart) int64 { return b.task }

func (b *byteOut) trustFirst() bool { return true }

// workers returns the number of workers the reader's writing methods run
// on: 1 when reading on several would not help or keep its promises.
func (r *Reader) workers() int {
	n := r.opts.Workers
	if n <= 1 || r.make == nil || r.counting || r.span.done() {
		return 1
	}
	for _, p := range r.ds.parts[max(r.k-1, 0):] {
		if r.ds.opts.isURL(p.Name()) && p.download == nil {
			// Over HTTP the reader hints the blocks a part's range
			// needs to the read-ahead (fetch.go): one reader a part
			// keeps what is fetched as it was.
			return 1
		}
	}
	return n
}

// ppart is a part read by the workers.
type ppart struct {
	p        *Part
	f        *File
	rd       *format.Reader
	from, to int64             // the rows the workers read
	cuts     []int64           // the first rows of the blocks of the largest column read
	ranges   []predicate.Range // with a filter, the rows its statistics leave
	inPerRow int64             // bytes of the columns read per row
	minRows  int64             // the fewest rows a task holds
	initial  partReader        // the reader NewReader opened, for the first task

	// The workers' readers of the part: all made (their reports are the
	// part's), and those free for another task.
	readersMu   sync.Mutex
	readers     []partReader
	idleReaders []partReader
	given       bool  // the first task is given out
	next        int64 // the row the next task starts from, about

	// The sequential reader's view, for the fallback (prun.sequential):
	seqFrom  int64 // the row it seeks to
	seqLimit int64 // its limit; negative for none
	prior    int64 // records it returned before the workers took over

	// The writer's:
	started bool  // the writer has reached the part
	written int64 // records written from the part by the workers' run
	scan    assemble.ScanReport
	done    bool // the part's remaining records were read on one goroutine
}

// ptask is one range of rows of a part.
type ptask struct {
	pp       *ppart
	from, to int64
	last     bool // the part's last task
	ahead    int  // the chunks it may hold waiting, if more than its share
}

// Ahead returns the chunks the task may hold waiting, if more than its
// share (ordered.Options.Ahead).
func (t *ptask) Ahead() int { return t.ahead }

// prun is one writing of a reader's remaining records on several workers.
type prun struct {
	r       *Reader
	workers int
	out     pout

	// The generator's, called by one worker at a time:
	span  span // the rows left to cut, as the reader's span, no limit
	cur   *ppart
	first *ppart

	mu   sync.Mutex
	open []*ppart     // the parts opened and not closed
	left atomic.Int64 // records still wanted; negative for no limit

	// The output of the tasks done, and the rows they covered.
	outBytes, outRows atomic.Int64
}

// outPerRow returns the output of a row of pp, about: as in the tasks
// before, or at first three times what the columns read hold.
func (pr *prun) outPerRow(pp *ppart) int64 {
	if rows := pr.outRows.Load(); rows > 0 {
		return max(pr.outBytes.Load()/rows, 1)
	}
	return 3 * pp.inPerRow
}

// taskRows returns the rows the next task of pp holds, about.
func (pr *prun) taskRows(pp *ppart) int64 {
	if pr.r.taskRows > 0 {
		return pr.r.taskRows
	}
	per := pr.outPerRow(pp)
	n := pr.out.taskBytes(pp) / per
	// A part with less than a task for each worker is shared out.
	n = min(n, (pp.to-pp.from+int64(pr.workers)-1)/int64(pr.workers))
	return max(n, pp.minRows)
}

// writeParallel writes the reader's remaining records on workers
// goroutines: each encoded by newEnc's function, handed to write in row
// order, a chunk at a time (data holding the records ending at ends). It
// returns the records written, and ctx's error as it is if it ends.
func (r *Reader) writeParallel(workers int, newEnc func() encodeFunc, write func(data []byte, ends []int) error) (int64, error) {
	memory := r.opts.OutputMemory
	if memory <= 0 {
		memory = int64(workers+1) * DefaultOutputMemory
	}
	chunk, ahead, task := ordered.Sizes(workers, memory)
	out := &byteOut{newEnc: newEnc, w: write, task: task, deep: r.opts.OutputMemory <= 0, chunk: int64(chunk)}
	return r.runParallel(workers, out, &ordered.Options{ChunkBytes: chunk, Ahead: ahead})
}

// runParallel reads the reader's remaining records on workers goroutines
// into out, which passes them on in row order, in chunks that opts
// sizes. It returns the records passed on, and ctx's error as it is if it
// ends.
func (r *Reader) runParallel(workers int, out pout, opts *ordered.Options) (int64, error) {
	pr := &prun{r: r, workers: workers, out: out, span: r.span}
	pr.span.remaining = -1
	left := r.span.remaining
	if r.part != nil {
		// The part NewReader opened carries on, from where its reader
		// is, on the workers; its reader takes the first task.
		prior := r.part.Report().RowsMatched
		pp, err := pr.newPart(r.file.part, r.file, r.part.Row(), r.to)
		if err != nil {
			pr.closeAll()
			return 0, err
		}
		pp.initial, pp.seqFrom, pp.seqLimit, pp.prior = r.part, r.from, left, prior
		pp.readers = append(pp.readers, r.part)
		pp.started = true
		if left >= 0 {
			left = max(left-prior, 0)
		}
		pr.first = pp
		r.file, r.part, r.ar, r.pm = nil, nil, nil, nil
	}
	pr.left.Store(left)
	start := r.n
	o := *opts
	o.Workers = workers
	err := ordered.Run(r.ctx, &o, pr.nextTask, pr.produce, pr.consume, pr.finish)
	pr.closeAll()
	r.k = len(r.ds.parts)
	r.span.remaining, r.span.rowsLeft = 0, 0
	if cerr := r.ctx.Err(); cerr != nil && err != nil && errors.Is(err, cerr) {
		// Stopped: which worker saw it first does not matter.
		err = cerr
	}
	if err == nil && r.opts.Progress != nil {
		r.opts.Progress(r.n, r.bytes)
	}
	return r.n - start, err
}

// newPart prepares part p, opened as f, to be cut into tasks of rows
// [from, to).
func (pr *prun) newPart(p *Part, f *File, from, to int64) (*ppart, error) {
	rd, err := f.records(pr.r.ctx)
	if err != nil {
		f.Close()
		return nil, err
	}
	if pr.workers >= runtime.GOMAXPROCS(0) && !f.shared {
		// The workers keep the cores busy: a block read ahead would
		// only take memory. (The first task's reader keeps its own.)
		// A reader shared with other reads of the data set is left as
		// it is (opened without reading ahead unless the options ask):
		// changing it would race with their column readers.
		rd.SetReadAhead(false)
	}
	pp := &ppart{p: p, f: f, rd: rd, from: from, to: to, seqFrom: from, seqLimit: -1}
	pr.mu.Lock()
	pr.open = append(pr.open, pp)
	pr.mu.Unlock()
	if from >= to {
		return pp, nil
	}
	// The columns the records take: the largest sets where the tasks
	// end, and all of them how many rows a task holds.
	proto, err := pr.r.make(rd)
	if err != nil {
		return nil, partErr(p.Name(), err)
	}
	shape, err := rowtasks.Measure(rd, proto.ColumnsRead())
	if err != nil {
		return nil, partErr(p.Name(), err)
	}
	pp.cuts, pp.inPerRow, pp.minRows = shape.Cuts, shape.InPerRow, shape.MinRows
	if pred := proto.Filter(); pred != nil {
		pp.ranges = candidates(rd, pred, from, to)
	}
	return pp, nil
}

// nextTask returns the next task, opening the next part to read when the
// current one is all given out (as Reader.next does).
func (pr *prun) nextTask() (*ptask, bool, error) {
	r := pr.r
	for {
		if pr.first != nil {
			pr.cur, pr.first = pr.first, nil
		}
		if pp := pr.cur; pp != nil {
			if t := pp.cut(pr); t != nil {
				return t, true, nil
			}
			pr.cur = nil
		}
		if r.k >= len(r.ds.parts) || pr.span.done() {
			return nil, false, nil
		}
		p := r.ds.parts[r.k]
		r.k++
		from, to, read := pr.span.next(p.rows)
		if !read {
			pr.mu.Lock()
			r.before += p.rows
			pr.mu.Unlock()
			continue
		}
		f, err := p.openFor(r.ctx, openRecords)
		if err != nil {
			return nil, false, err
		}
		if f.RowCount() != p.rows {
			f.Close()
			return nil, false, fmt.Errorf("%s: changed while being read (%d rows, then %d)", p.Name(), p.rows, f.RowCount())
		}
		pp, err := pr.newPart(p, f, from, to)
		if err != nil {
			return nil, false, err
		}
		pr.cur = pp
	}
}

// cut returns the part's next task, or nil when all its rows are given
// out. The first task starts at the part's first row, where the
// sequential reader seeks; the others at a row the filter's block
// statistics leave. Each ends where a block of the largest column read
// begins, so that few blocks are read by two workers.
func (pp *ppart) cut(pr *prun) *ptask {
	if !pp.given {
		pp.given = true
		if pp.from >= pp.to {
			// One empty task, so that the part is closed in order.
			return &ptask{pp: pp, from: pp.from, to: pp.from, last: true}
		}
		return pr.deepen(pp.task(pp.from, pr.taskRows(pp)))
	}
	pos := pp.next
	if pos >= pp.to {
		return nil
	}
	if pp.ranges != nil {
		k := pp.rangeAfter(pos)
		if k == len(pp.ranges) {
			return nil
		}
		if pos = max(pos, pp.ranges[k].First); pos >= pp.to {
			return nil
		}
	}
	return pr.deepen(pp.task(pos, pr.taskRows(pp)))
}

// deepen lets a task whose output is expected to be more than twice its
// share of the default memory hold half of it, in chunks, so that the
// next worker need not wait for it to be written (the least a task
// holds, four blocks of each column, can be that large where a record's
// output is much larger than its columns' bytes: JSON).
func (pr *prun) deepen(t *ptask) *ptask {
	if b, ok := pr.out.(*byteOut); ok && b.deep && pr.r.taskRows <= 0 {
		// Until a task has told, the least output a row may have: the
		// bytes of its columns.
		per := t.pp.inPerRow
		if rows := pr.outRows.Load(); rows > 0 {
			per = max(pr.outBytes.Load()/rows, 1)
		}
		t.ahead = rowtasks.DeepAhead(t.to-t.from, per, b.chunk)
	}
	return t
}

// task returns the task starting at row pos.
func (pp *ppart) task(pos, rows int64) *ptask {
	end := min(pos+rows, pp.to)
	if k := sort.Search(len(pp.cuts), func(i int) bool { return pp.cuts[i] >= end }); k < len(pp.cuts) && pp.cuts[k] < pp.to {
		end = pp.cuts[k]
	} else {
		end = pp.to
	}
	pp.next = end
	last := end >= pp.to
	if !last && pp.ranges != nil {
		k := pp.rangeAfter(end)
		last = k == len(pp.ranges) || pp.ranges[k].First >= pp.to
	}
	return &ptask{pp: pp, from: pos, to: end, last: last}
}

// rangeAfter returns the first of the filter's ranges that ends after row.
func (pp *ppart) rangeAfter(row int64) int {
	return sort.Search(len(pp.ranges), func(i int) bool { return pp.ranges[i].First+pp.ranges[i].Rows > row })
}

// produce assembles and encodes the records of one task.
func (pr *prun) produce(ctx context.Context, t *ptask, out *ordered.Out) error {
	pp := t.pp
	if t.from >= t.to {
		return nil
	}
	var (
		rd  partReader
		err error
	)
	if t.from == pp.from && pp.initial != nil {
		rd = pp.initial // already at the row
		pp.initial = nil
	} else {
		// The task where the sequential reader starts reads as it
		// does, with a reader of its own; the others take any.
		if rd, err = pp.reader(pr.r, t.from != pp.seqFrom); err == nil && (t.from > 0 || rd.Row() != 0) {
			err = rd.SeekRow(t.from)
		}
		if err != nil {
			return partErr(pp.p.Name(), err)
		}
	}
	rd.StopAt(t.to)
	rd.SetLimit(pr.left.Load()) // at most: the tasks before may take some
	err = pr.out.fill(ctx, pp, rd, out)
	pr.outBytes.Add(out.Bytes())
	pr.outRows.Add(t.to - t.from)
	if err == nil || errors.Is(err, io.EOF) {
		if err = ctx.Err(); err == nil {
			pp.readersMu.Lock()
			pp.idleReaders = append(pp.idleReaders, rd) // at a record's end: fit for another task
			pp.readersMu.Unlock()
		}
		return err
	}
	return partErr(pp.p.Name(), err)
}

// reader returns a reader of the part free for a task (with reuse), or a
// new one.
func (pp *ppart) reader(r *Reader, reuse bool) (partReader, error) {
	pp.readersMu.Lock()
	defer pp.readersMu.Unlock()
	if n := len(pp.idleReaders); n > 0 && reuse {
		rd := pp.idleReaders[n-1]
		pp.idleReaders = pp.idleReaders[:n-1]
		return rd, nil
	}
	rd, err := r.make(pp.rd)
	if err != nil {
		return nil, err
	}
	pp.readers = append(pp.readers, rd)
	return rd, nil
}

// consume writes a chunk of task t, up to the limit.
func (pr *prun) consume(t *ptask, c *ordered.Chunk) error {
	pp := t.pp
	pr.begin(pp)
	if pp.done {
		return nil // read on one goroutine already
	}
	n := pr.out.records(c)
	if left := pr.left.Load(); left >= 0 && int64(n) > left {
		n = int(left)
	}
	if err := pr.out.write(c, n); err != nil {
		return err
	}
	pr.wrote(pp, int64(n))
	if pr.left.Load() == 0 {
		return ordered.ErrStop
	}
	return pr.r.ctx.Err()
}

// begin notes, when the writer reaches a part, the limit the sequential
// reader would give the part's reader.
func (pr *prun) begin(pp *ppart) {
	if !pp.started {
		pp.started = true
		pp.seqLimit = pr.left.Load()
	}
}

// wrote counts n records written from pp.
func (pr *prun) wrote(pp *ppart, n int64) {
	r := pr.r
	pp.written += n
	before := r.n
	r.n += n
	if l := pr.left.Load(); l >= 0 {
		pr.left.Store(l - n)
	}
	if r.opts.Progress != nil && r.n/4096 != before/4096 {
		r.opts.Progress(r.n, pr.bytesRead())
	}
}

// finish takes a task's end: its report, its error, the part's closing.
func (pr *prun) finish(t *ptask, err error) error {
	pp := t.pp
	pr.begin(pp)
	if !pp.done {
		if err != nil {
			if cerr := pr.r.ctx.Err(); cerr != nil {
				return cerr
			}
			if t.from == pp.seqFrom && pr.out.trustFirst() {
				// The sequential reader's seek, and its rows from there
				// on: its error.
				return err
			}
			if err := pr.sequential(pp); err != nil {
				return err
			}
			if pr.left.Load() == 0 {
				// The part's later tasks may still run: closeAll
				// closes it once the workers are stopped.
				return ordered.ErrStop
			}
		}
	}
	if t.last {
		pr.closePart(pp)
	}
	return nil
}

// sequential reads the rest of pp on the calling goroutine after a task
// failed: from the part's first row, as the sequential reader does,
// passing over the records written already, writing those after them
// until the error comes again (returned) or the part ends. An error that
// only a worker met (the shared block memory running out) so leaves the
// output as it would have been.
func (pr *prun) sequential(pp *ppart) error {
	pp.done = true
	name := pp.p.Name()
	rd, err := pr.r.make(pp.rd)
	if err == nil && pp.seqFrom > 0 {
		err = rd.SeekRow(pp.seqFrom)
	}
	if err != nil {
		return partErr(name, err)
	}
	rd.StopAt(pp.to)
	rd.SetLimit(pp.seqLimit)
	defer func() {
		rep := rd.Report()
		addScan(&pp.scan, &rep)
	}()
	skip := pp.prior + pp.written
	read, put := pr.out.one(rd)
	for {
		err = read()
		if errors.Is(err, io.EOF) {
			return pr.r.ctx.Err()
		}
		if err != nil {
			return partErr(name, err)
		}
		if skip > 0 {
			skip--
			continue
		}
		if pr.left.Load() == 0 {
			return nil
		}
		if err := put(); err != nil {
			return err
		}
		pr.wrote(pp, 1)
	}
}

// closePart closes pp's file and keeps its report.
func (pr *prun) closePart(pp *ppart) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	for i, q := range pr.open {
		if q == pp {
			pr.open = append(pr.open[:i], pr.open[i+1:]...)
			pr.closeLocked(pp)
			return
		}
	}
}

// closeAll closes the parts still open: those opened ahead of a stop.
func (pr *prun) closeAll() {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	for _, pp := range pr.open {
		pr.closeLocked(pp)
	}
	pr.open = nil
}

func (pr *prun) closeLocked(pp *ppart) {
	r := pr.r
	pp.f.Close() // first: what the read-ahead fetched is counted too
	scan := pp.scan
	for _, rd := range pp.readers { // the workers are done with the part
		rep := rd.Report()
		addScan(&scan, &rep)
	}
	scan.RowsMatched = pp.prior + pp.written
	if scan.FileSize == 0 {
		scan.FileSize = pp.rd.Size()
	}
	r.reports = append(r.reports, PartReport{Part: pp.p.Name(), Scan: scanReport(scan), Fetched: pp.f.Fetched()})
	r.before += pp.p.rows
	r.bytes += pp.f.BytesRead()
}

// bytesRead returns the bytes read from the parts so far.
func (pr *prun) bytesRead() int64 {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	n := pr.r.bytes
	for _, pp := range pr.open {
		n += pp.f.BytesRead()
	}
	return n
}

// addScan adds what a task read to what its part read.
func addScan(dst, src *assemble.ScanReport) {
	dst.RowsScanned += src.RowsScanned
	dst.RowsProven += src.RowsProven
	dst.BytesRead += src.BytesRead
	if src.FileSize > 0 {
		dst.FileSize = src.FileSize
	}
	for _, c := range src.Columns {
		i := sort.Search(len(dst.Columns), func(k int) bool { return dst.Columns[k].Column >= c.Column })
		if i == len(dst.Columns) || dst.Columns[i].Column != c.Column {
			dst.Columns = append(dst.Columns, assemble.ColumnScan{})
			copy(dst.Columns[i+1:], dst.Columns[i:])
			dst.Columns[i] = assemble.ColumnScan{Column: c.Column, Name: c.Name, Blocks: c.Blocks}
		}
		d := &dst.Columns[i]
		d.BlocksRead += c.BlocksRead
		d.BytesRead += c.BytesRead
		d.BlocksSkipped = max(0, d.Blocks-d.BlocksRead)
	}
}
