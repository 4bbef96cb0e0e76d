package csvtable

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/ordered"
	"github.com/trevni-go/trevni/internal/rowtasks"
)

// ParallelOptions configures WriteTrevniCSV.
type ParallelOptions struct {
	// Workers is the number of goroutines that read and encode rows; 1
	// or less reads on the calling goroutine, as Copy does.
	Workers int
	// OutputMemory bounds the encoded rows that the workers hold waiting
	// to be written in order, in all (ordered.Sizes cuts it into chunks
	// and each task's share): each task aims at twice its share of
	// output, but holds at least four blocks of each column read. 0 means
	// DefaultOutputMemory for each worker and one more, and then a task
	// that must be larger than twice its share may hold half its output,
	// up to 8 MiB, so that the next worker need not wait for it. Besides
	// it, each worker holds its reader's block buffers.
	OutputMemory int64
	// Progress, if set, is called now and then with the rows written.
	Progress func(rows int64)

	taskRows int64 // the rows of a task, if positive (tests)
}

// DefaultOutputMemory is ParallelOptions.OutputMemory's default for each
// worker, and one more (as trevni.DefaultOutputMemory).
const DefaultOutputMemory = 1 << 20

// csvTask is a range of rows of WriteTrevniCSV's, and the chunks it may
// hold waiting, if more than its share (ordered.Options.Ahead).
type csvTask struct {
	from, to int64
	ahead    int
}

// Ahead returns the chunks the task may hold waiting, if more than its
// share.
func (t csvTask) Ahead() int { return t.ahead }

// WriteTrevniCSV writes the records of the Trevni file rd (written from
// Avro records of a flat schema), holding the fields named in sel as
// NewTrevniSource takes them, to w as CSV with cells separated by comma:
// the header row, then one row per record, on opts.Workers goroutines.
// The rows are cut into ranges read by the workers and written in order,
// the output byte for byte that of Copy into NewCSVSink. On an error the
// rows before the failing one are written, and the error is the one Copy
// gives. It returns the rows written.
//
// Each worker reads its ranges with a reader of rd of its own, sought to
// each range in turn; with workers as many as the cores, the readers it
// makes read no block ahead (it calls rd.SetReadAhead(false)), since no
// core is left to read ahead on.
func WriteTrevniCSV(ctx context.Context, w io.Writer, rd *format.Reader, sel []string, comma rune, opts *ParallelOptions) (int64, error) {
	var o ParallelOptions
	if opts != nil {
		o = *opts
	}
	first, err := NewTrevniSource(rd, sel)
	if err != nil {
		return 0, err
	}
	src := first.(*trevniSource)
	sink, err := NewCSVSink(w, src.fields, comma)
	if err != nil {
		return 0, err
	}
	if o.Workers <= 1 {
		return Copy(ctx, sink, src, &CopyOptions{Progress: o.Progress})
	}
	cs := sink.(*csvSink)
	comma = cs.comma
	bw := bufio.NewWriterSize(w, 64<<10)
	if _, err := bw.Write(cs.out); err != nil { // the header
		return 0, err
	}
	if o.Workers >= runtime.GOMAXPROCS(0) {
		// The workers keep the cores busy: a block read ahead would only
		// take memory. (The first task's reader keeps its own.)
		rd.SetReadAhead(false)
	}
	memory := o.OutputMemory
	if memory <= 0 {
		memory = int64(o.Workers+1) * DefaultOutputMemory
	}
	chunk, ahead, taskBytes := ordered.Sizes(o.Workers, memory)
	// The tasks end where the blocks of the largest column read begin;
	// the bytes of all of them, a row's and a block's, size the tasks.
	shape, err := rowtasks.Measure(rd, src.ar.ColumnsRead())
	if err != nil {
		return 0, err
	}
	cuts, inPerRow, minRows := shape.Cuts, shape.InPerRow, shape.MinRows
	rows, next := rd.RowCount(), int64(0)
	// The output of the tasks done, and their rows: a row's output as
	// they had it, or at first three times its columns' bytes.
	var outBytes, outRows atomic.Int64
	perRow := func() int64 {
		if n := outRows.Load(); n > 0 {
			return max(outBytes.Load()/n, 1)
		}
		return 3 * inPerRow
	}
	nextTask := func() (csvTask, bool, error) {
		if next >= rows {
			return csvTask{}, false, nil
		}
		per := perRow()
		n := o.taskRows
		if n <= 0 {
			n = taskBytes / per
			// A file with less than a task for each worker is shared out.
			n = max(min(n, (rows+int64(o.Workers)-1)/int64(o.Workers)), minRows)
		}
		end := min(next+n, rows)
		if k := sort.Search(len(cuts), func(i int) bool { return cuts[i] >= end }); k < len(cuts) {
			end = cuts[k]
		} else {
			end = rows
		}
		t := csvTask{from: next, to: end}
		if o.OutputMemory <= 0 && o.taskRows <= 0 {
			// deepen: a task larger than twice its share of the default
			// memory may hold half its output (until a task has told,
			// judged from its columns' bytes, the least it may be).
			if outRows.Load() == 0 {
				per = inPerRow
			}
			t.ahead = rowtasks.DeepAhead(end-next, per, int64(chunk))
		}
		next = end
		return t, true, nil
	}
	// The workers' sources between tasks, at a record's end: any task but
	// the first (src's) takes one, sought to its first row.
	var (
		idleMu sync.Mutex
		idle   []*trevniSource
	)
	source := func(t csvTask) (*trevniSource, error) {
		if t.from == 0 {
			return src, nil
		}
		idleMu.Lock()
		var s *trevniSource
		if n := len(idle); n > 0 {
			s, idle = idle[n-1], idle[:n-1]
		}
		idleMu.Unlock()
		if s == nil {
			ns, err := NewTrevniSource(rd, sel)
			if err != nil {
				return nil, err
			}
			s = ns.(*trevniSource)
		}
		if err := s.ar.SeekRow(t.from); err != nil {
			return nil, err
		}
		s.row = t.from
		return s, nil
	}
	produce := func(ctx context.Context, t csvTask, out *ordered.Out) error {
		s, err := source(t)
		if err != nil {
			return err
		}
		s.ar.StopAt(t.to)
		enc := &csvSink{fields: s.fields, comma: comma, ends: make([]int, len(s.fields))}
		cells := make([]Cell, len(s.fields))
		k := 0
		defer func() {
			outBytes.Add(out.Bytes())
			outRows.Add(int64(k))
		}()
		for {
			if err := s.Next(cells); err != nil {
				if errors.Is(err, io.EOF) {
					idleMu.Lock()
					idle = append(idle, s) // at a record's end: fit for another task
					idleMu.Unlock()
					return nil
				}
				return err
			}
			c := out.Chunk()
			enc.out = c.Data
			enc.encode(cells)
			c.Data = enc.out
			if k++; !out.Record() || (k%checkEvery == 0 && ctx.Err() != nil) {
				return ctx.Err()
			}
		}
	}
	var written int64
	wrote := func(n int64) {
		before := written
		written += n
		if o.Progress != nil && written/checkEvery != before/checkEvery {
			o.Progress(written)
		}
	}
	err = ordered.Run(ctx, &ordered.Options{Workers: o.Workers, ChunkBytes: chunk, Ahead: ahead}, nextTask, produce,
		func(_ csvTask, c *ordered.Chunk) error {
			if _, err := bw.Write(c.Data); err != nil {
				return err
			}
			wrote(int64(len(c.Ends)))
			return ctx.Err()
		},
		func(t csvTask, err error) error {
			if err == nil || ctx.Err() != nil || t.from == 0 {
				return err
			}
			// The rows again on one goroutine from the first, past those
			// written, to the sequential reader's error.
			s, serr := NewTrevniSource(rd, sel)
			if serr != nil {
				return serr
			}
			cells := make([]Cell, len(s.Fields()))
			for skip := written; ; skip-- {
				if err := s.Next(cells); err != nil {
					if errors.Is(err, io.EOF) {
						return ordered.ErrStop // a worker's trouble only: the rows are all written
					}
					return err
				}
				if skip > 0 {
					continue
				}
				cs.out = cs.out[:0]
				cs.encode(cells)
				if _, err := bw.Write(cs.out); err != nil {
					return err
				}
				wrote(1)
			}
		})
	if err != nil {
		if cerr := ctx.Err(); cerr != nil && errors.Is(err, cerr) {
			err = fmt.Errorf("csvtable: copy stopped at row %d: %w", written, cerr)
		}
		return written, err
	}
	if o.Progress != nil {
		o.Progress(written)
	}
	return written, bw.Flush()
}
