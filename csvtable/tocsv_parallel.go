package csvtable

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/ordered"
)

// ParallelOptions configures WriteTrevniCSV.
type ParallelOptions struct {
	// Workers is the number of goroutines that read and encode rows; 1
	// or less reads on the calling goroutine, as Copy does.
	Workers int
	// Progress, if set, is called now and then with the rows written.
	Progress func(rows int64)

	taskRows int64 // the rows of a task, if positive (tests)
}

// parallelTaskRows is the rows of one worker's task, about: each ends
// where a block of the largest column read begins.
const parallelTaskRows = 64 << 10

// WriteTrevniCSV writes the records of the Trevni file rd (written from
// Avro records of a flat schema), holding the fields named in sel as
// NewTrevniSource takes them, to w as CSV with cells separated by comma:
// the header row, then one row per record, on opts.Workers goroutines.
// The rows are cut into ranges read by the workers and written in order,
// the output byte for byte that of Copy into NewCSVSink. On an error the
// rows before the failing one are written, and the error is the one Copy
// gives. It returns the rows written.
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
	bw := bufio.NewWriterSize(w, 256<<10)
	if _, err := bw.Write(cs.out); err != nil { // the header
		return 0, err
	}
	// The tasks end where the blocks of the largest column read begin.
	var cuts []int64
	var most int64 = -1
	for _, i := range src.ar.ColumnsRead() {
		bs, err := rd.Blocks(i)
		if err != nil {
			return 0, err
		}
		var n int64
		for k := range bs {
			n += int64(bs[k].UncompressedSize)
		}
		if n > most {
			most, cuts = n, cuts[:0]
			for k := range bs {
				cuts = append(cuts, bs[k].FirstRow)
			}
		}
	}
	rows, next := rd.RowCount(), int64(0)
	taskRows := int64(parallelTaskRows)
	if o.taskRows > 0 {
		taskRows = o.taskRows
	}
	type task struct{ from, to int64 }
	nextTask := func() (task, bool, error) {
		if next >= rows {
			return task{}, false, nil
		}
		end := min(next+taskRows, rows)
		if k := sort.Search(len(cuts), func(i int) bool { return cuts[i] >= end }); k < len(cuts) {
			end = cuts[k]
		} else {
			end = rows
		}
		t := task{next, end}
		next = end
		return t, true, nil
	}
	produce := func(ctx context.Context, t task, out *ordered.Out) error {
		var s *trevniSource
		if t.from == 0 {
			s = src
		} else {
			ns, err := NewTrevniSource(rd, sel)
			if err != nil {
				return err
			}
			s = ns.(*trevniSource)
			if err := s.ar.SeekRow(t.from); err != nil {
				return err
			}
			s.row = t.from
		}
		s.ar.StopAt(t.to)
		enc := &csvSink{fields: s.fields, comma: comma, ends: make([]int, len(s.fields))}
		cells := make([]Cell, len(s.fields))
		for k := 1; ; k++ {
			if err := s.Next(cells); err != nil {
				if errors.Is(err, io.EOF) {
					return nil
				}
				return err
			}
			c := out.Chunk()
			enc.out = c.Data
			enc.encode(cells)
			c.Data = enc.out
			if !out.Record() || (k%checkEvery == 0 && ctx.Err() != nil) {
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
	err = ordered.Run(ctx, &ordered.Options{Workers: o.Workers}, nextTask, produce,
		func(_ task, c *ordered.Chunk) error {
			if _, err := bw.Write(c.Data); err != nil {
				return err
			}
			wrote(int64(len(c.Ends)))
			return ctx.Err()
		},
		func(t task, err error) error {
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
