package trevniparquet_test

import (
	"bytes"
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/trevni-go/trevni"

	"github.com/trevni-go/trevni/trevniparquet"
)

// The allocators passed in the options allocate what arrow-go allocates
// (the Parquet writer's pages and levels on both paths, the Parquet
// reader's pages and arrays), and everything they
// allocate is freed by the time the writers return, or the reader's
// batches are released and the file closed: memory.CheckedAllocator finds
// no leak.
func TestAllocatorsFreeAll(t *testing.T) {
	ctx := context.Background()
	direct, _, _ := writeDirectRandom(t, 77, 40)
	names := []string{direct, "../testdata/interop/unions/unions.snappy.crc32.trv"}
	for _, v := range []string{"tiny", "nested_records", "maps"} {
		more, _ := filepath.Glob(filepath.Join("../testdata/interop", v, "*.snappy.crc32.trv"))
		names = append(names, more...)
	}
	for _, name := range names {
		ds, err := trevni.Open(ctx, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		check := func(what string, mem *countedAllocator) {
			t.Helper()
			if mem.n.Load() == 0 {
				t.Errorf("%s: %s allocated nothing through the allocator", name, what)
			}
			if n := mem.CurrentAlloc(); n != 0 {
				t.Errorf("%s: %s leaves %d bytes allocated", name, what, n)
			}
		}
		var pq bytes.Buffer
		for _, codec := range []string{"snappy", "zstd"} {
			mem := newCounted()
			pq.Reset()
			if _, err := trevniparquet.Write(ctx, &pq, ds, &trevniparquet.WriteOptions{Codec: codec, RowGroupRows: 7, Allocator: mem}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			check("WriteParquet", mem)
			arrowMem := newCounted()
			var viaArrow bytes.Buffer
			if _, err := trevniparquet.WriteArrow(ctx, &viaArrow, ds, &trevniparquet.WriteOptions{Codec: codec, RowGroupRows: 7, Allocator: arrowMem}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			check("WriteParquet through Arrow", arrowMem)
		}
		ds.Close()

		mem := newCounted()
		pf, err := trevniparquet.Open(bytes.NewReader(pq.Bytes()), &trevniparquet.ReadOptions{BatchRows: 5, Allocator: mem})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rr, err := pf.RecordReader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rows := int64(0)
		for rr.Next() {
			rows += rr.RecordBatch().NumRows()
		}
		if err := rr.Err(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rr.Release()
		if rows != pf.NumRows() {
			t.Fatalf("%s: %d rows read of %d", name, rows, pf.NumRows())
		}
		w, err := trevni.Create(context.Background(), filepath.Join(t.TempDir(), "back.trv"), pf.AvroSchema(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pf.WriteTo(ctx, w); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := pf.Close(); err != nil {
			t.Fatal(err)
		}
		check("reading Parquet", mem)
	}
}

// countedAllocator is a checked allocator that counts its allocations.
type countedAllocator struct {
	*memory.CheckedAllocator
	n atomic.Int64
}

func newCounted() *countedAllocator {
	return &countedAllocator{CheckedAllocator: memory.NewCheckedAllocator(memory.NewGoAllocator())}
}

func (a *countedAllocator) Allocate(size int) []byte {
	a.n.Add(1)
	return a.CheckedAllocator.Allocate(size)
}
