package trevni

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/trevni-go/trevni/csvtable"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/shred"
	"github.com/trevni-go/trevni/trevni1/convert"
)

// AsTrevni returns a Trevni 2 reader of the file's records, for the code
// that reads Trevni 2 files only (package csvtable's sources, say): the
// file's own reader (Trevni) for a Trevni 2 file, otherwise its Trevni 2
// copy, the one a Dataset reads records through, made on the first call
// in a temporary directory (Options.TempDir) that Close removes.
func (f *File) AsTrevni(ctx context.Context) (*format.Reader, error) { return f.records(ctx) }

// records returns a Trevni 2 reader of the file's records: the file itself,
// or for a Trevni 1 or CLMN file its Trevni 2 copy, made on the first call
// in a private temporary directory that Close removes.
func (f *File) records(ctx context.Context) (*format.Reader, error) {
	if f.trevni != nil {
		return f.trevni, nil
	}
	if f.copied != nil {
		return f.copied, nil
	}
	opts := &f.part.ds.opts
	dir, err := os.MkdirTemp(opts.TempDir, "trevni-copy-")
	if err != nil {
		return nil, fmt.Errorf("%s: a Trevni 2 copy: %w", f.part.Name(), err)
	}
	f.copyDir = dir
	tmp, err := os.Create(filepath.Join(dir, "copy.trv"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%s: a Trevni 2 copy: %w", f.part.Name(), err)
	}
	f.copy = tmp
	so := &shred.Options{Layout: opts.Layout}
	so.WriterOptions.TempDir = dir
	if opts.Reader != nil {
		// The copy's blocks stay within what its reader accepts.
		so.WriterOptions.MaxBlockSize = opts.Reader.MaxBlockSize
	}
	// Every column of the copy starts with a block buffer: for a file of
	// very many columns, smaller blocks keep those buffers within
	// copyBuffers in all.
	so.WriterOptions.BlockSize = copyBlockSize(f.numColumns())
	switch {
	case f.v1 != nil:
		_, err = convert.ToV2(ctx, tmp, f.v1, so)
	default:
		var src csvtable.Source
		if src, err = csvtable.NewCLMNSource(f.clmn, nil); err == nil {
			var sink csvtable.Sink
			if sink, err = csvtable.NewTrevniSink(tmp, src.Fields(), so); err == nil {
				if _, err = csvtable.Copy(ctx, sink, src, nil); err != nil {
					sink.Abort()
				} else {
					err = sink.Close()
				}
			}
		}
	}
	if err == nil {
		err = ctx.Err()
	}
	var size int64
	if err == nil {
		var fi os.FileInfo
		if fi, err = tmp.Stat(); err == nil {
			size = fi.Size()
		}
	}
	if err == nil {
		ro := format.ReaderOptions{}
		if opts.Reader != nil {
			ro = *opts.Reader
		}
		ro.Prefetch = nil
		f.copied, err = format.NewReader(tmp, size, &ro)
	}
	if err != nil {
		f.close()
		return nil, fmt.Errorf("%s: reading its records: %w", f.part.Name(), err)
	}
	return f.copied, nil
}

// copyBuffers bounds the block buffers the writer of a Trevni 2 copy
// starts with, one per column.
const copyBuffers = 32 << 20

// copyBlockSize returns the block size of a Trevni 2 copy of cols
// columns: the default, or less for a file of so many columns that their
// buffers would pass copyBuffers, down to 1 KiB.
func copyBlockSize(cols int) int {
	return max(1<<10, min(format.DefaultBlockSize, copyBuffers/max(cols, 1)))
}

// numColumns returns the number of columns of a Trevni 1 or CLMN file.
func (f *File) numColumns() int {
	if f.v1 != nil {
		return f.v1.NumColumns()
	}
	return f.clmn.NumColumns()
}
