package trevniarrow_test

import (
	"bytes"
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/trevniarrow"
)

// The allocator passed in IPCOptions allocates the IPC writer's buffers,
// and everything it allocates is freed by the time WriteIPC returns:
// memory.CheckedAllocator finds no leak. (trevniparquet's
// TestAllocatorsFreeAll checks the Parquet writers and reader.)
func TestAllocatorsFreeAll(t *testing.T) {
	ctx := context.Background()
	names := []string{"../testdata/interop/unions/unions.snappy.crc32.trv"}
	for _, v := range []string{"tiny", "nested_records", "maps"} {
		more, _ := filepath.Glob(filepath.Join("../testdata/interop", v, "*.snappy.crc32.trv"))
		names = append(names, more...)
	}
	for _, name := range names {
		ds, err := trevni.Open(ctx, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, stream := range []bool{false, true} {
			mem := newCounted()
			var ipcOut bytes.Buffer
			if _, err := trevniarrow.WriteIPC(ctx, &ipcOut, ds, &trevniarrow.IPCOptions{Stream: stream, Allocator: mem}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if mem.n.Load() == 0 {
				t.Errorf("%s: WriteIPC allocated nothing through the allocator", name)
			}
			if n := mem.CurrentAlloc(); n != 0 {
				t.Errorf("%s: WriteIPC leaves %d bytes allocated", name, n)
			}
			if ipcOut.Len() == 0 {
				t.Errorf("%s: WriteIPC wrote nothing", name)
			}
		}
		ds.Close()
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
