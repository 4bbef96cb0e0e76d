package trevniarrow_test

import (
	"context"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"io"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/trevniarrow"
)

// Trevni to Arrow batches and to Arrow IPC on Java's medium
// vector (vec.Large, snappy). MB/s is of the file's stored bytes.

const benchFile = "../testdata/interop/medium/medium.snappy.crc32.trv"

func openBench(b *testing.B) *trevni.Dataset {
	b.Helper()
	ds, err := trevni.Open(context.Background(), benchFile, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(ds.Size())
	b.ReportAllocs()
	return ds
}

func BenchmarkToArrow(b *testing.B) { benchToArrow(b, nil) }

// BenchmarkToArrowAllocator reads the batches into an allocator's buffers
// (ReadOptions.Allocator): what the copy a batch costs over BenchmarkToArrow.
func BenchmarkToArrowAllocator(b *testing.B) {
	benchToArrow(b, &trevniarrow.ReadOptions{Allocator: memory.NewGoAllocator()})
}

func benchToArrow(b *testing.B, opts *trevniarrow.ReadOptions) {
	ds := openBench(b)
	for b.Loop() {
		rr, err := trevniarrow.NewRecordReader(context.Background(), ds, opts)
		if err != nil {
			b.Fatal(err)
		}
		rows := int64(0)
		for rr.Next() {
			rows += rr.RecordBatch().NumRows()
		}
		if rr.Err() != nil || rows != ds.RowCount() {
			b.Fatalf("%d rows of %d: %v", rows, ds.RowCount(), rr.Err())
		}
		rr.Release()
	}
}

func BenchmarkToIPC(b *testing.B) {
	ds := openBench(b)
	for b.Loop() {
		if _, err := trevniarrow.WriteIPC(context.Background(), io.Discard, ds, nil); err != nil {
			b.Fatal(err)
		}
	}
}
