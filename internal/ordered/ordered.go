// Package ordered runs tasks that encode records on several goroutines and
// hands their output to one consumer in task order, in chunks of bounded
// size, holding a bounded number of chunks at once. It knows nothing of
// what the records are: the readers that split a file's rows into ranges
// (the front door's Reader and ReadStructs, CSV tables) give it their
// tasks. A chunk holds encoded records (Data and Ends) or values of any
// type (Items, handed on by Out.Send).
package ordered

import (
	"context"
	"errors"
	"sync"
)

// Chunk is a piece of one task's output: whole records, encoded one after
// the other in Data, each ending where Ends says.
type Chunk struct {
	// Data holds the records' encodings.
	Data []byte
	// Ends holds, for each record, the offset in Data just past it.
	Ends []int
	// Items, for tasks whose records are values rather than encodings,
	// holds them: a task keeps what it finds here (chunks are reused
	// once consumed) and fills it. N is the number of records it holds.
	Items any
	N     int
}

// Options configures Run.
type Options struct {
	// Workers is the number of goroutines running tasks; less than 1
	// means 1.
	Workers int
	// ChunkBytes is the size at which a task's chunk is handed on: a
	// chunk holds at most ChunkBytes plus one record. 0 means
	// DefaultChunkBytes.
	ChunkBytes int
	// Ahead is how many full chunks a task may have waiting for the
	// consumer before it waits itself; 0 means 1. A task (of Run's type
	// T) with a method Ahead() int that returns more may have that many.
	Ahead int
	// Values: the tasks hand on Items (Out.Send) rather than Data, so no
	// chunk is given room for ChunkBytes of data.
	Values bool
}

// DefaultChunkBytes is the default of Options.ChunkBytes.
const DefaultChunkBytes = 1 << 20

// Sizes returns the chunk size and depth (Options.ChunkBytes and Ahead)
// that keep the chunks of a Run on workers goroutines within about memory
// bytes in all (see Run for what it holds), and the output a task should
// aim at: twice what it may hold waiting. A worker whose task is not yet
// being consumed waits once it holds its share; a task twice that size
// lets the workers take turns without waiting, each filling its share
// while the task before it is consumed. memory is shared among the
// workers' tasks and one more (the one being consumed, or one waiting),
// each holding Ahead chunks and the one being filled; chunks are at least
// 16 KiB and at most DefaultChunkBytes.
func Sizes(workers int, memory int64) (chunkBytes, ahead int, taskBytes int64) {
	const minChunk = 16 << 10
	workers = max(workers, 1)
	share := max(memory/int64(workers+1), 2*minChunk)
	chunk := min(max(share/4, minChunk), DefaultChunkBytes)
	ahead = int(max(share/chunk-1, 1))
	return int(chunk), ahead, 2 * int64(ahead+1) * chunk
}

// ErrStop, returned by a consume or finish function, ends Run early with
// no error: the output wanted is complete (a limit is reached).
var ErrStop = errors.New("ordered: stop")

// Out is where a task's records go. A task appends a record's encoding to
// Chunk().Data and then calls Record.
type Out struct {
	r     *runner
	s     chan *Chunk
	c     *Chunk
	bytes int64 // in the chunks handed on
}

// Bytes returns the bytes of the records written so far (for values,
// as Send was told).
func (o *Out) Bytes() int64 { return o.bytes + int64(len(o.c.Data)) }

// Chunk returns the chunk being filled. It changes after a call of
// Record.
func (o *Out) Chunk() *Chunk { return o.c }

// Record marks the end of the record just appended, handing the chunk on
// once it is full. It reports false once the run is stopping: the task
// should then return at once.
func (o *Out) Record() bool {
	o.c.Ends = append(o.c.Ends, len(o.c.Data))
	if len(o.c.Data) < o.r.chunkBytes {
		return true
	}
	return o.send(true)
}

// Send hands on the chunk, holding n values in Items taking about bytes
// of memory, and takes an empty one (whose Items are those of a chunk
// consumed, if any). It reports false once the run is stopping: the task
// should then return at once.
func (o *Out) Send(n int, bytes int64) bool {
	o.c.N = n
	o.bytes += bytes
	return o.send(true)
}

// send hands the chunk on and, with more, takes an empty one.
func (o *Out) send(more bool) bool {
	n := len(o.c.Data) // the chunk is the consumer's once sent
	select {
	case o.s <- o.c:
	case <-o.r.stop:
		return false
	}
	o.bytes += int64(n)
	if more {
		o.c = o.r.get()
	}
	return true
}

// slot is one task's place in the order.
type slot[T any] struct {
	t      T
	chunks chan *Chunk
	err    error // the task's, read once chunks is closed
	genErr error // next's error: there is no task
}

type runner struct {
	chunkBytes int
	values     bool
	stop       chan struct{}

	// The chunks consumed, for the workers to fill again: a chunk is
	// made only when none is free, so that the chunks in use and free
	// together are never more than were once in use at the same time.
	mu   sync.Mutex
	free []*Chunk
}

func (r *runner) get() *Chunk {
	r.mu.Lock()
	if n := len(r.free); n > 0 {
		c := r.free[n-1]
		r.free = r.free[:n-1]
		r.mu.Unlock()
		c.Data, c.Ends, c.N = c.Data[:0], c.Ends[:0], 0
		return c
	}
	r.mu.Unlock()
	if r.values {
		return &Chunk{}
	}
	return &Chunk{Data: make([]byte, 0, r.chunkBytes+r.chunkBytes/8)}
}

func (r *runner) put(c *Chunk) {
	r.mu.Lock()
	r.free = append(r.free, c)
	r.mu.Unlock()
}

// ahead returns the chunks task t may have waiting.
func ahead[T any](t T, o *Options) int {
	if a, ok := any(t).(interface{ Ahead() int }); ok {
		return max(a.Ahead(), o.Ahead)
	}
	return o.Ahead
}

// Run runs tasks on opts.Workers goroutines and passes their chunks to
// consume, on the calling goroutine, in task order.
//
// next returns the tasks in order, false after the last; it is called by
// one worker at a time. An error from it ends the run, once the tasks
// before have been consumed, with that error. produce runs one task,
// writing its records to out; it should watch ctx, which is cancelled
// when the run stops. consume takes each chunk of a task in order, and
// finish then takes the error produce returned for it (nil if none):
// either may end the run by returning an error, or ErrStop to end it
// without one. A task's chunks are all consumed before finish learns its
// error, so that the records before a failing one go out first. A panic
// in consume or finish stops the workers before it goes on.
//
// At most (Workers+1) × Ahead + Workers + 1 chunks are held at once,
// those in use and those free together (a chunk is made only when none is
// free): tasks are handed out in order, and no more than Workers of them
// wait for the consumer besides the one it consumes; each holds up to
// Ahead chunks handed on (its own Ahead, if it has one), each worker one
// it fills, and the consumer the one it consumes. A chunk holds at most
// ChunkBytes and one record.
func Run[T any](ctx context.Context, opts *Options, next func() (T, bool, error),
	produce func(ctx context.Context, t T, out *Out) error,
	consume func(t T, c *Chunk) error, finish func(t T, err error) error) error {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.Workers = max(o.Workers, 1)
	if o.ChunkBytes <= 0 {
		o.ChunkBytes = DefaultChunkBytes
	}
	o.Ahead = max(o.Ahead, 1)
	r := &runner{chunkBytes: o.ChunkBytes, values: o.Values, stop: make(chan struct{})}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	slots := make(chan *slot[T], o.Workers)
	var (
		mu    sync.Mutex // next, and the order of slots
		ended bool
		wg    sync.WaitGroup
	)
	stopped := func() bool {
		select {
		case <-r.stop:
			return true
		default:
			return false
		}
	}
	// take returns the next task's slot, or nil when there is none or the
	// run is stopping.
	take := func() *slot[T] {
		mu.Lock()
		defer mu.Unlock()
		if ended || stopped() {
			return nil
		}
		t, ok, err := next()
		if !ok || err != nil {
			ended = true
		}
		var s *slot[T]
		if ok || err != nil {
			depth := o.Ahead
			if err == nil {
				depth = ahead(t, &o)
			}
			s = &slot[T]{t: t, chunks: make(chan *Chunk, depth), genErr: err}
			select {
			case slots <- s:
			case <-r.stop:
				s = nil
			}
		}
		if ended {
			close(slots)
		}
		if s != nil && s.genErr != nil {
			close(s.chunks)
			return nil
		}
		return s
	}
	for range o.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				s := take()
				if s == nil {
					return
				}
				out := &Out{r: r, s: s.chunks, c: r.get()}
				err := produce(wctx, s.t, out)
				if (len(out.c.Ends) > 0 || out.c.N > 0) && !stopped() {
					out.send(false)
				} else {
					r.put(out.c)
				}
				s.err = err
				close(s.chunks)
			}
		}()
	}
	halted := false
	halt := func(err error) error {
		halted = true
		close(r.stop)
		cancel()
		wg.Wait()
		if err == ErrStop {
			return nil
		}
		return err
	}
	defer func() {
		if !halted {
			// consume or finish panicked: the workers are stopped all
			// the same, and the panic goes on.
			halt(nil)
		}
	}()
	for s := range slots {
		if s.genErr != nil {
			return halt(s.genErr)
		}
		for c := range s.chunks {
			if err := consume(s.t, c); err != nil {
				return halt(err)
			}
			r.put(c)
		}
		if err := finish(s.t, s.err); err != nil {
			return halt(err)
		}
	}
	halted = true
	wg.Wait()
	return nil
}
