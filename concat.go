package trevni

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/trevni-go/trevni/format"
)

// Concat joins the Trevni files parts (each name as Open takes it: globs,
// directories, URLs) into the one Trevni file dst, written as Create
// writes, by copying their blocks without decoding a value, and returns
// the rows written. See Dataset.Concat.
func Concat(ctx context.Context, dst string, parts []string, opts *WriteOptions) (int64, error) {
	var oo *Options
	if opts != nil && opts.Store != nil {
		oo = &Options{Store: opts.Store}
	}
	ds, err := OpenFiles(ctx, parts, oo)
	if err != nil {
		return 0, err
	}
	defer ds.Close()
	out, _, err := create(ctx, dst, opts)
	if err != nil {
		return 0, err
	}
	n, err := ds.Concat(ctx, out.w, opts)
	if err != nil {
		out.abort()
		return n, err
	}
	return n, out.commit()
}

// Concat writes to w one Trevni file holding the rows of the data set's
// parts in order, copying their blocks without decoding a value, and
// returns the rows written. The parts must be Trevni 2 files of the same
// columns and schema (schemas that differ only in documentation, aliases
// or defaults are the same); the first that is not names the first
// difference. Unlike the other writers, Concat keeps the first part's
// codec and checksum when opts gives none; a part stored otherwise has
// its blocks compressed again (on opts.Workers goroutines), and NoStats
// drops the block statistics. Other options do not apply.
func (ds *Dataset) Concat(ctx context.Context, w io.Writer, opts *WriteOptions) (int64, error) {
	var o WriteOptions
	if opts != nil {
		o = *opts
	}
	rds := make([]*format.Reader, 0, len(ds.parts))
	for _, p := range ds.parts {
		if p.format != Trevni2 {
			return 0, fmt.Errorf("%s: a %s file: Concat joins Trevni 2 files", p.Name(), p.format)
		}
		f, err := p.Open(ctx)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		if len(rds) > 0 {
			if err := format.SameColumns(ds.parts[0].Name(), rds[0], p.Name(), f.trevni); err != nil {
				return 0, err
			}
		}
		rds = append(rds, f.trevni)
	}
	rows, err := format.Concat(ctx, w, rds, &format.ConcatOptions{
		SameSchema: SameAvroSchema, Codec: string(o.Codec), Checksum: string(o.Checksum),
		DropStats: o.NoStats, Workers: max(o.Workers, 1),
	})
	if err != nil {
		var pe *format.PartError
		if errors.As(err, &pe) {
			if errors.Is(pe.Err, format.ErrUsage) {
				return rows, fmt.Errorf("%s and %s cannot be joined: %w", ds.parts[0].Name(), ds.parts[pe.Part].Name(), pe.Err)
			}
			return rows, fmt.Errorf("%s: %w", ds.parts[pe.Part].Name(), pe.Err)
		}
		return rows, err
	}
	return rows, nil
}
