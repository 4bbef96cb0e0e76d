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

// This file holds the parallel path of AppendContainer and FromContainer:
// a reader goroutine cuts the container into ranges of blocks, still
// compressed; workers decompress and shred each range into segments,
// format.Writers of their own; the calling goroutine moves the segments'
// blocks into the file's Writer in row order (format.Writer.AppendWriter).
//
// Memory: of the budget B (WriterOptions.MemoryBudget), the file's Writer
// keeps B/2 of finished blocks before it spills; the segments' finished
// blocks take at most B/4 (each worker owns two segments, and hands one
// over once it holds B/(8N)); the ranges read ahead take at most B/4 of
// stored bytes (2N ranges in flight, each of B/(8N) and at most one
// container block more). Each worker also holds one decompressed block
// and its segments' blocks being filled, as the sequential path holds
// its own.

// parallelWorkers returns how many workers AppendContainer runs: 1 for
// the sequential path.
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

// avroRange is a run of a container's blocks, handed to one worker.
type avroRange struct {
	index    int
	firstRow int64 // the container's number of the first record
	buf      []byte
	blocks   []ocf.RawBlock
	err      error         // the reader's error after the blocks
	parts    chan segPart  // the range's segments, in order; closed at its end
	free     chan<- []byte // where buf goes once shredded
}

// segPart is a segment holding the next rows of a range, or the error
// that ended the range.
type segPart struct {
	seg *segment
	end int64 // container bytes consumed after the segment's last block
	err error
}

// segment is a worker's AvroWriter over a format.Writer of its own, whose
// blocks are moved into the file's.
type segment struct {
	aw   *AvroWriter
	home chan *segment // the worker's segments not handed over
}

// newSegment returns a segment writing the columns of aw.
func (aw *AvroWriter) newSegment(home chan *segment) (*segment, error) {
	o := aw.wopts
	o.Meta = format.MetaData{}
	o.Concurrency = 1   // the workers are the parallelism
	o.MemoryBudget = -1 // the worker hands it over before it holds too much
	w, err := format.NewWriter(io.Discard, aw.metas, &o)
	if err != nil {
		return nil, err
	}
	if err := w.CheckRows(false); err != nil {
		return nil, err
	}
	if err := w.ShareBuffers(aw.w); err != nil {
		return nil, err
	}
	return &segment{aw: &AvroWriter{w: w, schema: aw.schema, root: aw.root, cols: aw.cols}, home: home}, nil
}

// appendParallel is appendContainer on n workers.
func (aw *AvroWriter) appendParallel(ctx context.Context, r *ocf.Reader, n int) error {
	budget := aw.w.MemoryBudget()
	share := budget / 4
	if budget < 0 {
		share = format.DefaultMemoryBudget / 4 // no bound asked: the default sizes
	} else {
		aw.w.SetMemoryBudget(budget - 2*share)
		defer aw.w.SetMemoryBudget(budget)
	}
	segBudget := share / int64(2*n)
	rangeBytes := int(min(share/int64(2*n), 64<<20))
	base := aw.w.RowCount()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel() // runs first: stops the goroutines before waiting

	slots := make(chan []byte, 2*n) // range buffers, one per range in flight
	for range 2 * n {
		slots <- nil
	}
	ranges := make(chan *avroRange, n)
	order := make(chan *avroRange, 2*n)
	var failed atomic.Int64 // the first range that failed
	failed.Store(math.MaxInt64)

	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(order)
		defer close(ranges)
		readRanges(ctx, r, rangeBytes, slots, order, ranges, &failed)
	}()
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			aw.shredRanges(ctx, r, base, segBudget, ranges, &failed)
		}()
	}

	for {
		var rg *avroRange
		select {
		case rg = <-order:
		case <-ctx.Done():
			return fmt.Errorf("shred: %w", ctx.Err())
		}
		if rg == nil {
			return nil
		}
		for done := false; !done; {
			var p segPart
			var ok bool
			select {
			case p, ok = <-rg.parts:
			case <-ctx.Done():
				return fmt.Errorf("shred: %w", ctx.Err())
			}
			if !ok {
				done = true
				continue
			}
			if p.err != nil {
				return p.err
			}
			if err := aw.w.AppendWriter(p.seg.aw.w); err != nil {
				return err
			}
			p.seg.home <- p.seg
			if aw.progress != nil {
				aw.progress(aw.RowCount(), p.end)
			}
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("shred: %w", err)
			}
		}
		rg.free <- rg.buf[:0]
	}
}

// readRanges reads the container's blocks into ranges of about
// rangeBytes stored bytes, taking a buffer from slots for each (which
// bounds the ranges in flight), and hands each to the joiner (order) and
// to the workers (ranges), until the end of the container, an error or
// the first failed range.
func readRanges(ctx context.Context, r *ocf.Reader, rangeBytes int, slots chan []byte, order, ranges chan<- *avroRange, failed *atomic.Int64) {
	var row int64
	for i := 0; ; i++ {
		var buf []byte
		select {
		case buf = <-slots:
		case <-ctx.Done():
			return
		}
		if int64(i) > failed.Load() {
			return
		}
		rg := &avroRange{index: i, firstRow: row, parts: make(chan segPart, 2), free: slots}
		end := false
		var sizes []int
		for len(buf) < rangeBytes && rg.err == nil {
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
			return
		}
		select {
		case order <- rg:
		case <-ctx.Done():
			return
		}
		select {
		case ranges <- rg:
		case <-ctx.Done():
			return
		}
		if end {
			return
		}
	}
}

// shredRanges is a worker: it shreds the ranges it takes into segments,
// numbering records from base, the rows the file held before the
// container.
func (aw *AvroWriter) shredRanges(ctx context.Context, r *ocf.Reader, base, segBudget int64, ranges <-chan *avroRange, failed *atomic.Int64) {
	dec, err := r.NewDecompressor()
	home := make(chan *segment, 2)
	made := 0
	// get returns a segment of the worker's, waiting for one to come back
	// from the joiner when both are handed over.
	get := func() (*segment, error) {
		select {
		case s := <-home:
			return s, nil
		default:
		}
		if made < 2 {
			made++
			return aw.newSegment(home)
		}
		select {
		case s := <-home:
			return s, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	var data []byte // decompressed blocks
	for {
		var rg *avroRange
		select {
		case rg = <-ranges:
		case <-ctx.Done():
			return
		}
		if rg == nil {
			return
		}
		if err != nil { // the decompressor: the container's codec
			send(ctx, rg.parts, segPart{err: err})
			close(rg.parts)
			continue
		}
		if int64(rg.index) > failed.Load() {
			close(rg.parts) // the joiner stops before it
			continue
		}
		if e := aw.shredRange(ctx, rg, base, segBudget, dec, &data, get); e != nil {
			send(ctx, rg.parts, segPart{err: e})
			for old := failed.Load(); int64(rg.index) < old && !failed.CompareAndSwap(old, int64(rg.index)); old = failed.Load() {
			}
		}
		close(rg.parts)
	}
}

// shredRange shreds the blocks of rg into segments handed to the joiner
// through rg.parts, and returns the error that ends the range, as the
// sequential path words it.
func (aw *AvroWriter) shredRange(ctx context.Context, rg *avroRange, base, segBudget int64, dec *ocf.Decompressor, data *[]byte, get func() (*segment, error)) error {
	seg, err := get()
	if err != nil {
		return fmt.Errorf("shred: %w", err)
	}
	row := rg.firstRow
	if err := seg.aw.w.SetFirstRow(base + row); err != nil {
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
		for count := b.Count; count > 0; count-- {
			n, err := seg.aw.writeBinary(recs, row, false)
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
		if seg.aw.w.Buffered() >= segBudget && k < len(rg.blocks)-1 {
			if !send(ctx, rg.parts, segPart{seg: seg, end: end}) {
				return ctx.Err()
			}
			if seg, err = get(); err != nil {
				return fmt.Errorf("shred: %w", err)
			}
			if err := seg.aw.w.SetFirstRow(base + row); err != nil {
				return err
			}
		}
	}
	if seg.aw.w.RowCount() == base+rg.firstRow && len(rg.blocks) == 0 {
		seg.home <- seg // nothing to join: a range of the reader's error alone
	} else if !send(ctx, rg.parts, segPart{seg: seg, end: end}) {
		return ctx.Err()
	}
	return rg.err
}

// send sends p on parts unless ctx is done first, and reports whether it
// did: the joiner may have stopped.
func send(ctx context.Context, parts chan<- segPart, p segPart) bool {
	select {
	case parts <- p:
		return true
	case <-ctx.Done():
		return false
	}
}
