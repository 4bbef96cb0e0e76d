package trevni

import (
	"context"
	"fmt"

	"github.com/trevni-go/trevni/csvtable"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/trevni1"
)

// records returns a Trevni 2 reader of the file's records: the file
// itself, or for a Trevni 1 or CLMN file a reader of its columns as
// Trevni 2 lays them out (format.Source), each block of a column made
// from the file's own block as it is read: no copy, no temporary file.
func (f *File) records(ctx context.Context) (*format.Reader, error) {
	if f.trevni != nil {
		return f.trevni, nil
	}
	if f.columns != nil {
		return f.columns, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	opts := &f.part.ds.opts
	ro := opts.reader()
	var err error
	switch {
	case f.v1 != nil:
		// No read-ahead: a version-1 block holds several columns' values,
		// and columns read ahead each miss the source's cache of the
		// blocks they share (toavro of 100,000 vec.Large records: 508
		// million instructions with it, 499 without; docs/performance.md,
		// fifth round).
		ro.ReadAhead = false
		var src *trevni1.Source
		if src, err = trevni1.NewSource(f.v1); err == nil {
			f.columns, err = format.NewSourceReader(src, &ro)
		}
	case f.avro != nil:
		f.columns, err = format.NewSourceReader(f.avro, &ro)
	case f.ext != nil:
		f.columns, err = format.NewSourceReader(f.ext, &ro)
	default:
		// No read-ahead either, as before the flat options: a CLMN
		// file's cost is its inflating, which read-ahead does not lessen.
		ro.ReadAhead = false
		f.columns, err = csvtable.CLMNColumns(f.clmn, &ro, sourceBlockSize(f.clmn.NumColumns()))
	}
	if err != nil {
		f.columns = nil
		return nil, fmt.Errorf("%s: reading its records: %w", f.part.Name(), err)
	}
	return f.columns, nil
}

// sourceBuffers bounds the block buffers that reading every column of a
// CLMN file at once starts with, one block per column.
const sourceBuffers = 32 << 20

// sourceBlockSize returns about the bytes of a block of a CLMN file of
// cols columns: the default, or less for a file of so many columns that
// their blocks would pass sourceBuffers, down to 1 KiB.
func sourceBlockSize(cols int) int {
	return max(1<<10, min(format.DefaultBlockSize, sourceBuffers/max(cols, 1)))
}
