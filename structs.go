package trevni

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
)

// ReadStructs returns an iterator over the records of ds read into Go
// structs of type T (see assemble.StructReader for the types that fit):
// T's fields are the projection, so only their columns are read. opts may
// give a filter, an offset and a limit; its Fields must be empty. The *T
// yielded is overwritten by the next step: copy it to keep it. The
// iterator stops after the last record or the first error, which it
// yields.
func ReadStructs[T any](ctx context.Context, ds *Dataset, opts *ReadOptions) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		var o ReadOptions
		if opts != nil {
			o = *opts
		}
		if len(o.Fields) > 0 {
			yield(nil, errors.New("trevni: ReadStructs: the struct type is the selection: give no Fields"))
			return
		}
		if ds.opts.ReaderSchema != "" {
			yield(nil, errors.New("trevni: ReadStructs: the struct type is the reader schema: open the data set without one"))
			return
		}
		sp, err := newSpan(&o)
		if err != nil {
			yield(nil, err)
			return
		}
		for _, p := range ds.parts {
			if sp.done() {
				return
			}
			from, to, read := sp.next(p.rows)
			if !read {
				continue
			}
			matched, ok := readStructsPart[T](ctx, p, &o, from, to, sp.remaining, yield)
			if !ok {
				return
			}
			sp.took(matched)
		}
	}
}

// readStructsPart yields the records of one part and returns how many
// matched, and false when iteration must stop.
func readStructsPart[T any](ctx context.Context, p *Part, o *ReadOptions, from, to, remaining int64, yield func(*T, error) bool) (int64, bool) {
	f, err := p.openFor(ctx, openRecords)
	if err != nil {
		yield(nil, err)
		return 0, false
	}
	defer f.Close()
	var rd *format.Reader
	rd, err = f.records(ctx)
	if err != nil {
		yield(nil, err)
		return 0, false
	}
	sr, err := assemble.NewStructReader[T](rd, &assemble.Options{Filter: o.Where, Layout: p.ds.opts.Layout, MaxRecordBytes: p.ds.opts.MaxRecordBytes})
	if err == nil && from > 0 {
		err = sr.Reader().SeekRow(from)
	}
	if err != nil {
		yield(nil, fmt.Errorf("%s: %w", p.Name(), err))
		return 0, false
	}
	sr.Reader().StopAt(to)
	sr.Reader().SetLimit(remaining)
	var n int64
	for v, err := range sr.All() {
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			yield(nil, fmt.Errorf("%s: %w", p.Name(), err))
			return n, false
		}
		n++
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return n, false
			}
		}
		if !yield(v, nil) {
			return n, false
		}
	}
	return n, true
}
