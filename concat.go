package trevni

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/frontdoor"
)

// Concat joins the Trevni files parts (each name as Open takes it: globs,
// directories, URLs) into the one Trevni file dst, written as Create
// writes, by copying their blocks without decoding a value, and returns
// the rows written. Each name is opened on its own, so that files of
// other columns are named with the first column that differs; see
// Dataset.Concat for the rest. opts' Store and Stores serve the parts'
// reads as the upload's.
func Concat(ctx context.Context, dst string, parts []string, opts *WriteOptions) (int64, error) {
	var oo *OpenOptions
	if opts != nil {
		oo = &OpenOptions{Stores: opts.Stores, StoreRetries: opts.StoreRetries, StoreBackoff: opts.StoreBackoff, StoreStall: opts.StoreStall}
	}
	names, err := frontdoor.ExpandNames(ctx, parts, oo.stores(), oo.storeOptions())
	if err != nil {
		return 0, err
	}
	var all []*Part
	for _, name := range names {
		ds, err := Open(ctx, name, oo)
		if err != nil {
			return 0, err
		}
		defer ds.Close()
		all = append(all, ds.parts...)
	}
	out, _, err := create(ctx, dst, opts)
	if err != nil {
		return 0, err
	}
	n, err := concatParts(ctx, out.w, all, opts)
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
	return concatParts(ctx, w, ds.parts, opts)
}

// concatDatasets is frontdoor.ConcatDatasets: the parts of data sets
// opened on their own, joined as Dataset.Concat joins one's.
func concatDatasets(ctx context.Context, w io.Writer, dss []any, opts any) (int64, error) {
	var parts []*Part
	for _, ds := range dss {
		parts = append(parts, ds.(*Dataset).parts...)
	}
	wo, _ := opts.(*WriteOptions)
	return concatParts(ctx, w, parts, wo)
}

// concatParts joins parts into one Trevni file written to w.
func concatParts(ctx context.Context, w io.Writer, parts []*Part, opts *WriteOptions) (int64, error) {
	if err := opts.checkCodec(); err != nil {
		return 0, err
	}
	var o WriteOptions
	if opts != nil {
		o = *opts
	}
	rds := make([]*format.Reader, 0, len(parts))
	for _, p := range parts {
		if p.format != Trevni2 {
			return 0, fmt.Errorf("%s: %s: %w", p.Name(), p.format.file(), frontdoor.ErrNotTrevni2)
		}
	}
	for _, p := range parts {
		f, err := p.Open(ctx)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		if len(rds) > 0 {
			if err := format.SameColumns(parts[0].Name(), rds[0], p.Name(), f.trevni); err != nil {
				return 0, err
			}
		}
		rds = append(rds, f.trevni)
	}
	rows, err := format.Concat(ctx, w, rds, &format.ConcatOptions{
		SameSchema: sameAvroSchema, Codec: string(o.Codec), Checksum: string(o.Checksum),
		DropStats: o.NoStats, Workers: max(o.Workers, 1),
	})
	if err != nil {
		var pe *format.PartError
		if errors.As(err, &pe) {
			if errors.Is(pe.Err, format.ErrUsage) {
				return rows, fmt.Errorf("%s and %s cannot be joined: %w", parts[0].Name(), parts[pe.Part].Name(), pe.Err)
			}
			return rows, partErr(parts[pe.Part].Name(), pe.Err)
		}
		return rows, err
	}
	return rows, nil
}
