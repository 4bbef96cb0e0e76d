package trevni

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"sync"
	"sync/atomic"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/internal/ordered"
)

// batchAhead is how many batches of a task may wait for the consumer
// before its worker waits; a task aims at taskBatches batches, so that
// one fits in what it may hold and the next worker's task is not held
// back, while a batch cut short at a task's end is at least half full,
// about. At most (Workers+1) × (batchAhead+1) batches are held at once
// (ordered.Run), so each batch is cut at that share of the output memory.
const (
	batchAhead  = 2
	taskBatches = 1.5
)

// firstBatchRatio is the bytes of a batch taken for each byte of its
// records' Avro encoding until a batch has told (Flush): more than most
// Batchers take, so that the first batches are cut early rather than
// late.
const firstBatchRatio = 8

// readBatchesAny is frontdoor.ReadBatches: r's remaining records in
// batches of at most rows records, on r's workers.
func readBatchesAny(r any, rows int, newBatcher func() (frontdoor.Batcher[any], error)) iter.Seq2[frontdoor.Batch[any], error] {
	return readBatchesOf(r.(*Reader), rows, newBatcher)
}

// readBatchesOf is frontdoor.ReadBatches for batches of type B.
func readBatchesOf[B any](r *Reader, rows int, newBatcher func() (frontdoor.Batcher[B], error)) iter.Seq2[frontdoor.Batch[B], error] {
	if rows <= 0 {
		rows = frontdoor.DefaultBatchRows
	}
	return func(yield func(frontdoor.Batch[B], error) bool) {
		if workers := r.workers(); workers > 1 {
			readBatchesParallel(r, workers, rows, newBatcher, yield)
			return
		}
		readBatches(r, rows, newBatcher, yield)
	}
}

// readBatches is ReadBatches on the calling goroutine.
func readBatches[B any](r *Reader, rows int, newBatcher func() (frontdoor.Batcher[B], error), yield func(frontdoor.Batch[B], error) bool) {
	bt, err := newBatcher()
	if err != nil {
		yield(frontdoor.Batch[B]{}, err)
		return
	}
	var (
		buf     []byte
		pending int
	)
	for err == nil {
		if err = r.ctx.Err(); err != nil {
			break
		}
		for range 256 { // records between looks at the context
			if buf, err = r.ReadBinary(buf[:0]); err != nil {
				break
			}
			full, aerr := bt.Add(buf)
			if aerr != nil {
				yield(frontdoor.Batch[B]{}, fmt.Errorf("%s: row %d: %w", r.file.part.Name(), r.part.Row()-1, aerr))
				return
			}
			if pending++; full || pending >= rows {
				v, _ := bt.Flush()
				n := pending
				pending = 0
				if !yield(frontdoor.Batch[B]{Value: v, Records: n}, nil) {
					return
				}
			}
		}
	}
	if err != io.EOF {
		yield(frontdoor.Batch[B]{}, err)
		return
	}
	if pending > 0 {
		v, _ := bt.Flush()
		yield(frontdoor.Batch[B]{Value: v, Records: pending}, nil)
	}
}

// readBatchesParallel is ReadBatches on workers goroutines: the writing
// methods' tasks (parallel.go), each task's records added to a worker's
// Batcher, its batches handed on as values.
func readBatchesParallel[B any](r *Reader, workers, rows int, newBatcher func() (frontdoor.Batcher[B], error), yield func(frontdoor.Batch[B], error) bool) {
	memory := r.opts.OutputMemory
	if memory <= 0 {
		memory = int64(workers+1) * DefaultOutputMemory
	}
	maxBytes := max(memory/int64((workers+1)*(batchAhead+1)), 1)
	out := &batchOut[B]{rows: rows, maxBytes: maxBytes, newBatcher: newBatcher, yield: yield}
	_, err := r.runParallel(workers, out, &ordered.Options{Ahead: batchAhead, Values: true})
	if out.broke {
		return
	}
	if err == nil {
		err = out.flushFallback()
	}
	if err != nil && !out.broke {
		yield(frontdoor.Batch[B]{}, err)
	}
}

// batchOut passes the workers' batches to yield.
type batchOut[B any] struct {
	rows       int
	maxBytes   int64 // a batch's share of the output memory
	newBatcher func() (frontdoor.Batcher[B], error)
	yield      func(frontdoor.Batch[B], error) bool
	broke      bool // yield returned false

	mu   sync.Mutex
	idle []frontdoor.Batcher[B] // the workers' Batchers between tasks

	// What the tasks done handed on, to size the next: the bytes and
	// the number of full batches, and the bytes, records and the bytes
	// of the records' encodings of all.
	fullBytes, fullN, bytes, recs, enc atomic.Int64

	// The fallback's (one), on the consumer's goroutine: its Batcher,
	// the records added to the batch being built and, of them, those
	// passed on (put), whether the batch is full, whether it still reads
	// records passed over (all before the first passed on), and whether
	// what the part before left is to be passed on first.
	fb          frontdoor.Batcher[B]
	fbAdded     int
	fbKept      int
	fbFull      bool
	fbSkipping  bool
	fbFlushLast bool
	buf         []byte
}

// batcher returns an idle Batcher, or a new one.
func (b *batchOut[B]) batcher() (frontdoor.Batcher[B], error) {
	b.mu.Lock()
	if n := len(b.idle); n > 0 {
		bt := b.idle[n-1]
		b.idle = b.idle[:n-1]
		b.mu.Unlock()
		return bt, nil
	}
	b.mu.Unlock()
	return b.newBatcher()
}

func (b *batchOut[B]) fill(ctx context.Context, _ *ppart, rd partReader, out *ordered.Out) error {
	ar := rd.(*assemble.AvroReader)
	bt, err := b.batcher()
	if err != nil {
		return err
	}
	var (
		buf                                []byte
		pending                            int
		fullBytes, fullN, bytes, recs, enc int64
		pendingEnc, encLimit               int64
	)
	defer func() {
		b.fullBytes.Add(fullBytes)
		b.fullN.Add(fullN)
		b.bytes.Add(bytes)
		b.recs.Add(recs)
		b.enc.Add(enc)
	}()
	for k := 1; ; k++ {
		buf, err = ar.ReadBinary(buf[:0])
		if err != nil {
			break
		}
		full, aerr := bt.Add(buf)
		if aerr != nil {
			// The Batcher is dropped with its batch.
			return fmt.Errorf("row %d: %w", ar.Row()-1, aerr)
		}
		if pending == 0 {
			encLimit = b.encLimit(bytes, enc)
		}
		pending++
		pendingEnc += int64(len(buf))
		full = full || pending >= b.rows || pendingEnc >= encLimit
		if full {
			v, n := bt.Flush()
			fullBytes, fullN, bytes, recs, enc = fullBytes+n, fullN+1, bytes+n, recs+int64(pending), enc+pendingEnc
			c := out.Chunk()
			c.Items = v
			if !out.Send(pending, n) {
				return nil
			}
			pending, pendingEnc = 0, 0
		}
		if k%4096 == 0 && ctx.Err() != nil {
			break
		}
	}
	if pending > 0 {
		v, n := bt.Flush()
		if errors.Is(err, io.EOF) && ctx.Err() == nil {
			bytes, recs, enc = bytes+n, recs+int64(pending), enc+pendingEnc
			c := out.Chunk()
			c.Items = v
			if !out.Send(pending, n) {
				return nil
			}
		}
	}
	b.mu.Lock()
	b.idle = append(b.idle, bt)
	b.mu.Unlock()
	return err
}

// encLimit returns the bytes of Avro encoding at which a batch is cut,
// its share of the output memory: judged from the batches handed on (by
// all tasks, and by this one so far: bytes, from enc bytes of encoding),
// or at first firstBatchRatio bytes a byte.
func (b *batchOut[B]) encLimit(bytes, enc int64) int64 {
	bytes, enc = bytes+b.bytes.Load(), enc+b.enc.Load()
	if bytes <= 0 || enc <= 0 {
		return max(b.maxBytes/firstBatchRatio, 1)
	}
	return max(int64(float64(b.maxBytes)*float64(enc)/float64(bytes)), 1)
}

// taskBytes is what a task aims at: taskBatches batches, judged from the
// batches of the tasks done (those full, or else the bytes of a record),
// or until there are some from the bytes of the columns read times three,
// as the task cutting judges output; a batch at most its share of the
// output memory.
func (b *batchOut[B]) taskBytes(pp *ppart) int64 {
	var batch float64
	switch {
	case b.fullN.Load() > 0:
		batch = float64(b.fullBytes.Load()) / float64(b.fullN.Load())
	case b.recs.Load() > 0:
		batch = float64(b.rows) * float64(b.bytes.Load()) / float64(b.recs.Load())
	default:
		batch = float64(b.rows) * float64(3*pp.inPerRow)
	}
	return max(int64(taskBatches*min(batch, float64(b.maxBytes))), 1)
}

func (b *batchOut[B]) records(c *ordered.Chunk) int { return c.N }

func (b *batchOut[B]) write(c *ordered.Chunk, n int) error {
	// What the fallback built goes before.
	if err := b.flushFallback(); err != nil {
		return err
	}
	v, _ := c.Items.(B)
	c.Items = nil // the chunk is reused: it should not keep the batch
	if n == 0 {
		return nil
	}
	if !b.yield(frontdoor.Batch[B]{Value: v, Records: n}, nil) {
		b.broke = true
		return errBreak
	}
	return nil
}

// flushFallback yields the records the fallback passed on and has not
// yielded yet, in a batch.
func (b *batchOut[B]) flushFallback() error {
	if b.fbAdded == 0 {
		return nil
	}
	v, _ := b.fb.Flush()
	n := b.fbKept
	b.fbAdded, b.fbKept, b.fbFull = 0, 0, false
	if n > 0 && !b.yield(frontdoor.Batch[B]{Value: v, Records: n}, nil) {
		b.broke = true
		return errBreak
	}
	return nil
}

// one is the fallback's reading: read reads a record and adds it to the
// fallback's batch, so that an error of Add is one of reading, wrapped
// with the part's name as the reading's are; put passes it on, yielding
// the batch once full. The records read first and passed over, those the
// workers yielded already, are dropped from the batch when the first is
// passed on.
func (b *batchOut[B]) one(rd partReader) (read, put func() error) {
	ar := rd.(*assemble.AvroReader)
	b.fbSkipping, b.fbFlushLast = true, true
	add := func() error {
		if b.fb == nil {
			var err error
			if b.fb, err = b.newBatcher(); err != nil {
				return err
			}
		}
		full, err := b.fb.Add(b.buf)
		if err != nil {
			b.fb, b.fbAdded, b.fbKept, b.fbFull = nil, 0, 0, false
			return fmt.Errorf("row %d: %w", ar.Row()-1, err)
		}
		b.fbAdded++
		b.fbFull = full || b.fbAdded >= b.rows
		return nil
	}
	read = func() error {
		if b.fbFlushLast {
			b.fbFlushLast = false
			if err := b.flushFallback(); err != nil {
				return err
			}
		}
		var err error
		if b.buf, err = ar.ReadBinary(b.buf[:0]); err != nil {
			return err
		}
		if err := add(); err != nil {
			return err
		}
		if b.fbSkipping && b.fbFull {
			b.fb.Flush() // records passed over only, or the one to pass on, added again by put
			b.fbAdded, b.fbFull = 0, false
		}
		return nil
	}
	put = func() error {
		if b.fbSkipping {
			b.fbSkipping = false
			if b.fbAdded != 1 {
				// Records passed over before this one: a batch of it
				// alone.
				if b.fbAdded > 0 {
					b.fb.Flush()
					b.fbAdded, b.fbFull = 0, false
				}
				if err := add(); err != nil {
					return err
				}
			}
		}
		b.fbKept++
		if b.fbFull {
			return b.flushFallback()
		}
		return nil
	}
	return read, put
}

// trustFirst: a worker reads its records one at a time, as the
// sequential reader does.
func (b *batchOut[B]) trustFirst() bool { return true }
