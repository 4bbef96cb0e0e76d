package trevniarrow

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/trevni-go/trevni"
)

// IPCOptions says how a data set is written in the Arrow IPC format. A nil
// *IPCOptions writes every record as a file.
type IPCOptions struct {
	// Read selects the records and sizes the batches.
	Read ReadOptions
	// Stream writes the IPC stream format (for a pipe) instead of the
	// file format.
	Stream bool
	// Report, if set, is called once reading ends, on an error too, with
	// what was read from each part of the data set.
	Report func([]trevni.PartReport)
	// Allocator, if set, allocates the IPC writer's buffers (nil: a Go
	// allocator), each freed by the time WriteIPC returns.
	Allocator memory.Allocator
}

// WriteIPC writes the records of a data set that opts selects in the Arrow
// IPC file (or stream) format to w, and returns the number written.
func WriteIPC(ctx context.Context, w io.Writer, ds *trevni.Dataset, opts *IPCOptions) (int64, error) {
	var o IPCOptions
	if opts != nil {
		o = *opts
	}
	rr, err := NewRecordReader(ctx, ds, &o.Read)
	if err != nil {
		return 0, err
	}
	defer rr.Release()
	if o.Report != nil {
		defer func() { o.Report(rr.Report()) }()
	}
	mem := o.Allocator
	if mem == nil {
		mem = memory.NewGoAllocator()
	}
	var iw interface {
		Write(arrow.RecordBatch) error
		Close() error
	}
	if o.Stream {
		iw = ipc.NewWriter(w, ipc.WithSchema(rr.Schema()), ipc.WithAllocator(mem))
	} else {
		fw, err := ipc.NewFileWriter(w, ipc.WithSchema(rr.Schema()), ipc.WithAllocator(mem))
		if err != nil {
			return 0, fmt.Errorf("Arrow IPC: %w", err)
		}
		iw = fw
	}
	var n int64
	for rr.Next() {
		if err := iw.Write(rr.RecordBatch()); err != nil {
			iw.Close()
			return n, fmt.Errorf("Arrow IPC: %w", err)
		}
		n += rr.RecordBatch().NumRows()
	}
	if err := rr.Err(); err != nil {
		iw.Close()
		return n, err
	}
	if err := iw.Close(); err != nil {
		return n, fmt.Errorf("Arrow IPC: %w", err)
	}
	return n, nil
}
