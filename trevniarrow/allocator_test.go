package trevniarrow_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
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

// ReadOptions.Allocator holds the record reader's batches: every batch
// read with it equals the one read without (random schemas, several parts,
// dictionaries, unions), holds memory of the allocator while the caller
// holds it, even past Next when retained, and gives it all back when
// released: memory.CheckedAllocator finds nothing left.
func TestRecordReaderAllocator(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(8) {
		ds, _, _ := writeRandomParts(t, seed, 900, 400)
		read := func(o *trevniarrow.ReadOptions) []arrow.RecordBatch {
			rr, err := trevniarrow.NewRecordReader(ctx, ds, o)
			if err != nil {
				t.Fatal(err)
			}
			defer rr.Release()
			var recs []arrow.RecordBatch
			for rr.Next() {
				rec := rr.RecordBatch()
				rec.Retain() // kept past Next: the caller's
				recs = append(recs, rec)
			}
			if err := rr.Err(); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			return recs
		}
		for _, unions := range []bool{false, true} {
			plain := read(&trevniarrow.ReadOptions{BatchRows: 128, Schema: trevniarrow.SchemaOptions{UnionsAsStructs: unions}})
			mem := newCounted()
			held := read(&trevniarrow.ReadOptions{BatchRows: 128, Schema: trevniarrow.SchemaOptions{UnionsAsStructs: unions}, Allocator: mem})
			if len(held) != len(plain) || len(held) == 0 {
				t.Fatalf("seed %d: %d batches with the allocator, %d without", seed, len(held), len(plain))
			}
			if mem.CurrentAlloc() == 0 || mem.n.Load() == 0 {
				t.Errorf("seed %d: batches held, yet the allocator holds nothing", seed)
			}
			for i := range plain {
				// Byte for byte: float columns may hold NaNs, which
				// array.RecordEqual calls unequal to themselves.
				if plain[i].NumCols() != held[i].NumCols() || plain[i].NumRows() != held[i].NumRows() {
					t.Fatalf("seed %d, batch %d: %d columns of %d rows with the allocator, %d of %d without", seed, i, held[i].NumCols(), held[i].NumRows(), plain[i].NumCols(), plain[i].NumRows())
				}
				for c := range plain[i].Columns() {
					if why := dataDiffers(plain[i].Column(c).Data(), held[i].Column(c).Data()); why != "" {
						t.Fatalf("seed %d, batch %d, column %s: %s", seed, i, plain[i].ColumnName(c), why)
					}
				}
				plain[i].Release()
				held[i].Release()
			}
			mem.AssertSize(t, 0)
		}
		ds.Close()
	}
}

// dataDiffers says how two arrays' data differ, type, length, offset,
// nulls, each buffer's bytes, children and dictionary; "" if they do not.
func dataDiffers(a, b arrow.ArrayData) string {
	if !arrow.TypeEqual(a.DataType(), b.DataType()) || a.Len() != b.Len() || a.Offset() != b.Offset() || a.NullN() != b.NullN() {
		return fmt.Sprintf("%v of %d (offset %d, %d nulls) against %v of %d (offset %d, %d nulls)", a.DataType(), a.Len(), a.Offset(), a.NullN(), b.DataType(), b.Len(), b.Offset(), b.NullN())
	}
	if len(a.Buffers()) != len(b.Buffers()) || len(a.Children()) != len(b.Children()) {
		return "a different number of buffers or children"
	}
	for i, ab := range a.Buffers() {
		bb := b.Buffers()[i]
		if (ab == nil) != (bb == nil) || ab != nil && !bytes.Equal(ab.Bytes(), bb.Bytes()) {
			return fmt.Sprintf("buffer %d differs", i)
		}
	}
	for i, ac := range a.Children() {
		if why := dataDiffers(ac, b.Children()[i]); why != "" {
			return fmt.Sprintf("child %d: %s", i, why)
		}
	}
	ad, _ := a.Dictionary().(*array.Data)
	bd, _ := b.Dictionary().(*array.Data)
	if (ad == nil) != (bd == nil) {
		return "a dictionary on one side only"
	}
	if ad != nil {
		if why := dataDiffers(ad, bd); why != "" {
			return "dictionary: " + why
		}
	}
	return ""
}
