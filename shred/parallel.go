package shred

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/ocf"
)

// This file holds the parallel path of AppendContainer, FromContainer and
// WriteLines: a reader goroutine cuts the input into ranges (of container
// blocks, still compressed, or of whole lines); workers decode and shred
// each range into segments, format.Writers of their own; the calling
// goroutine moves the segments' blocks into the file's Writer in row
// order (format.Writer.AppendWriter).
//
// Memory: of the budget B (WriterOptions.MemoryBudget), the file's Writer
// keeps B/2 of finished blocks before it spills; the segments' finished
// blocks take at most B/4 (each worker owns two segments, and hands one
// over once it holds B/(8N)); the ranges read ahead take at most B/4 of
// stored bytes (2N ranges in flight, each of B/(8N) and at most one
// container block more). Each worker also holds one decompressed block
// and its segments' blocks being filled, as the sequential path holds
// its own.

// parallelWorkers returns how many workers AppendContainer and
// WriteLines run: 1 for the sequential path.
func (aw *AvroWriter) parallelWorkers() int {
	n := aw.workers
	if n == 0 {
		n = runtime.GOMAXPROCS(0)
	}
	o := &aw.wopts
	if n <= 1 || ((o.Codec == "" || o.Codec == format.CodecNull) && o.DisableStats) {
		return 1 // the mode that writes Java's bytes (either checksum) stays sequential
	}
	// A segment's share of the budget (B/(8N)) holds at least two
	// blocks' worth, or the blocks cut at every segment's end would be
	// too many: a smaller budget takes fewer workers.
	if b := aw.w.MemoryBudget(); b > 0 {
		bs := int64(o.BlockSize)
		if bs <= 0 {
			bs = format.DefaultBlockSize
		}
		n = min(n, int(min(b/(16*bs), math.MaxInt32)))
	}
	return max(n, 1)
}

// workRange is a run of the input handed to one worker: container
// blocks, or whole lines.
type workRange struct {
	index    int
	firstRow int64 // the input's number of the range's first record
	buf      []byte
	err      error        // the reader's error after the range
	parts    chan segPart // the range's segments, in order; closed at its end
	// Container ranges: the blocks, whose Data lie in buf.
	blocks []ocf.RawBlock
	// Line ranges: the number of the first line (from 1), and the input
	// bytes consumed after the range.
	firstLine int64
	end       int64
}

// segPart is a segment holding the next rows of a range, or the error
// that ended the range.
type segPart struct {
	seg *segment
	end int64 // input bytes consumed after the segment's last row
	err error
}

// segment is a worker's AvroWriter over a format.Writer of its own, whose
// blocks are moved into the file's.
type segment struct {
	aw   *AvroWriter
	home chan *segment // the worker's segments not handed over
	pw   *ProtoWriter  // writing messages into aw (protoparallel.go), made on first use
}

// newSegment returns a segment writing the columns of aw; checked turns
// the per-row checks on, as the path it stands for has them
// (format.Writer.CheckRows).
func (aw *AvroWriter) newSegment(home chan *segment, checked bool) (*segment, error) {
	o := aw.wopts
	o.Meta = format.MetaData{}
	o.Concurrency = 1   // the workers are the parallelism
	o.MemoryBudget = -1 // the worker hands it over before it holds too much
	w, err := format.NewWriter(io.Discard, aw.metas, &o)
	if err != nil {
		return nil, err
	}
	if err := w.CheckRows(checked); err != nil {
		return nil, err
	}
	if err := w.ShareBuffers(aw.w); err != nil {
		return nil, err
	}
	return &segment{aw: &AvroWriter{w: w, schema: aw.schema, root: aw.root, prog: aw.prog, cols: aw.cols, keepOrder: aw.keepOrder}, home: home}, nil
}

// pipeline is what the reader, the workers and the joiner of one run
// share.
type pipeline struct {
	aw         *AvroWriter
	n          int   // workers
	checked    bool  // segments check rows
	base       int64 // rows the file held before the input
	segBudget  int64 // a segment is handed over once it holds this much
	rangeBytes int   // input bytes a range holds, and a block or line more
	slots      chan []byte
	ranges     chan *workRange
	order      chan *workRange
	failed     atomic.Int64 // the first range that failed
}

// runParallel runs read on a goroutine of its own, to cut the input into
// ranges (p.next gives each its buffer, p.hand hands it on), n workers
// that shred each range with the function newShred makes for each of
// them, and the joiner here. It returns the first error in row order.
func (aw *AvroWriter) runParallel(ctx context.Context, n int, checked bool, read func(ctx context.Context, p *pipeline), newShred func() func(ctx context.Context, w *worker, rg *workRange) error) error {
	budget := aw.w.MemoryBudget()
	share := budget / 4
	if budget < 0 {
		share = format.DefaultMemoryBudget / 4 // no bound asked: the default sizes
	} else {
		aw.w.SetMemoryBudget(budget - 2*share)
		defer aw.w.SetMemoryBudget(budget)
	}
	p := &pipeline{aw: aw, n: n, checked: checked, base: aw.w.RowCount(),
		segBudget:  share / int64(2*n),
		rangeBytes: int(min(share/int64(2*n), 64<<20)),
		slots:      make(chan []byte, 2*n), // range buffers, one per range in flight
		ranges:     make(chan *workRange, n),
		order:      make(chan *workRange, 2*n),
	}
	for range 2 * n {
		p.slots <- nil
	}
	p.failed.Store(math.MaxInt64)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel() // runs first: stops the goroutines before waiting

	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(p.order)
		defer close(p.ranges)
		read(ctx, p)
	}()
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &worker{p: p, home: make(chan *segment, 2)}
			w.run(ctx, newShred())
		}()
	}

	for {
		var rg *workRange
		select {
		case rg = <-p.order:
		case <-ctx.Done():
			return fmt.Errorf("shred: %w", ctx.Err())
		}
		if rg == nil {
			return nil
		}
		for done := false; !done; {
			var part segPart
			var ok bool
			select {
			case part, ok = <-rg.parts:
			case <-ctx.Done():
				return fmt.Errorf("shred: %w", ctx.Err())
			}
			if !ok {
				done = true
				continue
			}
			if part.err != nil {
				return part.err
			}
			if err := aw.w.AppendWriter(part.seg.aw.w); err != nil {
				return err
			}
			part.seg.home <- part.seg
			if aw.progress != nil {
				aw.progress(aw.RowCount(), part.end)
			}
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("shred: %w", err)
			}
		}
		p.slots <- rg.buf[:0]
	}
}

// next returns the buffer of the next range, numbered i, waiting for one
// while 2N ranges are in flight; false means stop reading (the run is
// over, or an earlier range failed).
func (p *pipeline) next(ctx context.Context, i int) ([]byte, bool) {
	var buf []byte
	select {
	case buf = <-p.slots:
	case <-ctx.Done():
		return nil, false
	}
	return buf, int64(i) <= p.failed.Load()
}

// hand hands rg to the joiner and to the workers, and reports whether
// reading goes on.
func (p *pipeline) hand(ctx context.Context, rg *workRange) bool {
	select {
	case p.order <- rg:
	case <-ctx.Done():
		return false
	}
	select {
	case p.ranges <- rg:
	case <-ctx.Done():
		return false
	}
	return true
}

// worker is one worker's state: its two segments and the one it fills.
type worker struct {
	p    *pipeline
	home chan *segment
	made int
	seg  *segment
	// segStart is the row (of the input) seg starts at.
	segStart int64
}

// run shreds the ranges the worker takes with shred.
func (w *worker) run(ctx context.Context, shred func(ctx context.Context, w *worker, rg *workRange) error) {
	p := w.p
	for {
		var rg *workRange
		select {
		case rg = <-p.ranges:
		case <-ctx.Done():
			return
		}
		if rg == nil {
			return
		}
		if int64(rg.index) > p.failed.Load() {
			close(rg.parts) // the joiner stops before it
			continue
		}
		if err := shred(ctx, w, rg); err != nil {
			send(ctx, rg.parts, segPart{err: err})
			for old := p.failed.Load(); int64(rg.index) < old && !p.failed.CompareAndSwap(old, int64(rg.index)); old = p.failed.Load() {
			}
		}
		close(rg.parts)
	}
}

// start takes a segment to fill with the rows from the input's row on,
// waiting for one to come back from the joiner when both are handed
// over.
func (w *worker) start(ctx context.Context, row int64) error {
	var s *segment
	select {
	case s = <-w.home:
	default:
		if w.made < 2 {
			var err error
			if s, err = w.p.aw.newSegment(w.home, w.p.checked); err != nil {
				return err
			}
			w.made++
			break
		}
		select {
		case s = <-w.home:
		case <-ctx.Done():
			return fmt.Errorf("shred: %w", ctx.Err())
		}
	}
	w.seg, w.segStart = s, row
	return s.aw.w.SetFirstRow(w.p.base + row)
}

// handOver hands the segment to the joiner if it holds its share of the
// budget, and starts another at row, the next row of the range; end is
// the input bytes consumed after the segment's rows.
func (w *worker) handOver(ctx context.Context, rg *workRange, end, row int64) error {
	if w.seg.aw.w.Buffered() < w.p.segBudget {
		return nil
	}
	if !send(ctx, rg.parts, segPart{seg: w.seg, end: end}) {
		return fmt.Errorf("shred: %w", ctx.Err())
	}
	return w.start(ctx, row)
}

// finish hands the last segment of rg to the joiner, whose rows end
// before row and leave end input bytes consumed, or keeps it if it holds
// no rows.
func (w *worker) finish(ctx context.Context, rg *workRange, row, end int64) error {
	if row == w.segStart {
		w.seg.home <- w.seg // nothing to join
		return nil
	}
	if !send(ctx, rg.parts, segPart{seg: w.seg, end: end}) {
		return fmt.Errorf("shred: %w", ctx.Err())
	}
	return nil
}

// send sends part on parts unless ctx is done first, and reports whether
// it did: the joiner may have stopped.
func send(ctx context.Context, parts chan<- segPart, part segPart) bool {
	select {
	case parts <- part:
		return true
	case <-ctx.Done():
		return false
	}
}

// appendParallel is appendContainer on n workers.
func (aw *AvroWriter) appendParallel(ctx context.Context, r *ocf.Reader, n int) error {
	read := func(ctx context.Context, p *pipeline) { readBlockRanges(ctx, r, p) }
	return aw.runParallel(ctx, n, false, read, func() func(ctx context.Context, w *worker, rg *workRange) error {
		dec, err := r.NewDecompressor()
		var data []byte // the worker's decompressed blocks
		return func(ctx context.Context, w *worker, rg *workRange) error {
			if err != nil { // the container's codec
				return err
			}
			return w.shredBlocks(ctx, rg, dec, &data)
		}
	})
}

// readBlockRanges reads the container's blocks into ranges of about
// p.rangeBytes stored bytes, until the end of the container, an error or
// the first failed range.
func readBlockRanges(ctx context.Context, r *ocf.Reader, p *pipeline) {
	var row int64
	for i := 0; ; i++ {
		buf, ok := p.next(ctx, i)
		if !ok {
			return
		}
		rg := &workRange{index: i, firstRow: row, parts: make(chan segPart, 2)}
		end := false
		var sizes []int
		for len(buf) < p.rangeBytes {
			b, next, err := r.NextRawBlock(buf)
			buf = next
			if err == io.EOF {
				end = true
				break
			}
			if err == nil && b.Count > math.MaxInt64-row {
				err = fmt.Errorf("avro block %d: %w: more than %d records", b.Index, ErrBinary, int64(math.MaxInt64))
			}
			if err != nil {
				rg.err, end = err, true
				break
			}
			rg.blocks = append(rg.blocks, b)
			sizes = append(sizes, len(b.Data))
			row += b.Count
		}
		// The blocks' bytes, in the buffer as it grew.
		pos := 0
		for k, size := range sizes {
			rg.blocks[k].Data = buf[pos : pos+size : pos+size]
			pos += size
		}
		rg.buf = buf
		if len(rg.blocks) == 0 && rg.err == nil {
			p.slots <- buf[:0]
			return
		}
		if !p.hand(ctx, rg) || end {
			return
		}
	}
}

// shredBlocks shreds the container blocks of rg into segments handed to
// the joiner, and returns the error that ends the range, as the
// sequential path words it.
func (w *worker) shredBlocks(ctx context.Context, rg *workRange, dec *ocf.Decompressor, data *[]byte) error {
	row := rg.firstRow
	if err := w.start(ctx, row); err != nil {
		return err
	}
	var end int64
	for k := range rg.blocks {
		b := &rg.blocks[k]
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("avro block %d: %w", b.Index, err)
		}
		recs, err := dec.Decompress(*data, b)
		if err != nil {
			return err
		}
		if !dec.Null() {
			*data = recs[:0] // the worker's buffer, kept for the next block
		}
		aw := w.seg.aw
		for count := b.Count; count > 0; count-- {
			n, err := aw.writeBinary(recs, row, false)
			if err != nil {
				return fmt.Errorf("avro block %d: %w", b.Index, err)
			}
			recs = recs[n:]
			row++
		}
		if len(recs) != 0 {
			return fmt.Errorf("avro block %d: %w: %d bytes left after its records", b.Index, ErrBinary, len(recs))
		}
		end = b.End
		if k < len(rg.blocks)-1 {
			if err := w.handOver(ctx, rg, end, row); err != nil {
				return err
			}
		}
	}
	if err := w.finish(ctx, rg, row, end); err != nil {
		return err
	}
	return rg.err
}
