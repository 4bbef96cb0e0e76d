package trevni

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/internal/testing/memtest"
)

// liveBatch is a batch of liveBatcher's: copies of the records'
// encodings, and the bytes it was said to hold.
type liveBatch struct {
	recs  [][]byte
	bytes int64
}

// liveBatcher builds liveBatches, counting in live the bytes of the
// records added to any batch (each its encoding and 16 bytes more) until
// the consumer lets the batch go, and in peak the most live ever held.
type liveBatcher struct {
	cur        liveBatch
	live, peak *atomic.Int64
}

func (b *liveBatcher) Add(rec []byte) (bool, error) {
	b.cur.recs = append(b.cur.recs, bytes.Clone(rec))
	n := int64(len(rec)) + 16
	b.cur.bytes += n
	l := b.live.Add(n)
	for p := b.peak.Load(); l > p && !b.peak.CompareAndSwap(p, l); p = b.peak.Load() {
	}
	return false, nil
}

func (b *liveBatcher) Flush() (liveBatch, int64) {
	v := b.cur
	b.cur = liveBatch{}
	return v, v.bytes
}

// On 2 and 3 workers with batches of any number of rows, ReadBatches
// holds at most about OutputMemory of batches at once (counted by the
// Batcher as it builds them, until the consumer lets each go): within a
// quarter more, and a record for each batch it may hold; and the records
// are those one goroutine reads.
func TestReadBatchesOutputMemory(t *testing.T) {
	ctx := context.Background()
	ds, _, _ := largeDataset(t, 5, 6000)
	read := func(workers int, memory int64) ([][]byte, int64, int) {
		r, err := ds.NewReader(ctx, &ReadOptions{Workers: workers, OutputMemory: memory})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var live, peak atomic.Int64
		var recs [][]byte
		batches := 0
		newBatcher := func() (frontdoor.Batcher[liveBatch], error) { return &liveBatcher{live: &live, peak: &peak}, nil }
		for b, err := range frontdoor.ReadBatches(r, 1<<30, newBatcher) {
			if err != nil {
				t.Fatalf("%d workers, OutputMemory %d: %v", workers, memory, err)
			}
			recs = append(recs, b.Value.recs[:b.Records]...)
			live.Add(-b.Value.bytes)
			batches++
		}
		return recs, peak.Load(), batches
	}
	want, _, _ := read(1, 0)
	var largest int64
	for _, rec := range want {
		largest = max(largest, int64(len(rec))+16)
	}
	for _, w := range []int{2, 3} {
		for _, memory := range []int64{16 << 10, 64 << 10, 0} {
			got, peak, batches := read(w, memory)
			if len(got) != len(want) || !isPrefix(got, want) {
				t.Fatalf("%d workers, OutputMemory %d: %d records, want %d, or others", w, memory, len(got), len(want))
			}
			if memory == 0 {
				continue
			}
			bound := memory + memory/4 + int64(3*(w+1))*largest
			t.Logf("%d workers, OutputMemory %d: %d batches, at most %d bytes held (bound %d)", w, memory, batches, peak, bound)
			if peak > bound {
				t.Errorf("%d workers, OutputMemory %d: %d bytes of batches held at once, more than %d", w, memory, peak, bound)
			}
		}
	}
}

// twoFields is a projection of a record of an id and a long name.
type twoFields struct {
	ID   int64  `avro:"id"`
	Name string `avro:"name"`
}

// namesDataset writes n records of an id and a name of 200 to 300 bytes
// in one file of 64 KiB blocks.
func namesDataset(t *testing.T, n int) *Dataset {
	t.Helper()
	dir := t.TempDir()
	text := `{"type":"record","name":"R","fields":[{"name":"id","type":"long"},{"name":"name","type":"string"}]}`
	o := &WriteOptions{BlockSize: 64 << 10, Codec: Snappy}
	w, err := Create(context.Background(), filepath.Join(dir, "names.trv"), text, o)
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("x", 300)
	for i := range n {
		if err := w.Write(map[string]any{"id": int64(i), "name": fmt.Sprintf("%d%s", i, pad[:200+i%100])}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ds, err := Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ds.Close() })
	return ds
}

// ReadStructs on two workers holds the batches of structs within
// OutputMemory: eight times the rows take about the same peak heap, a
// heap within OutputMemory and what the readers hold, and the least
// OutputMemory less; the records are those of one goroutine. The batches
// are refilled (Reuse): without it each batch is the caller's, dropped by
// this loop, and the heap holds what the collector has not yet reclaimed
// of them, which is the collector's pacing rather than the reader's bound.
func TestReadStructsOutputMemory(t *testing.T) {
	ctx := context.Background()
	least := memtest.Least{}
	read := func(name string, ds *Dataset, workers int, memory int64) (n, sum int64, peak uint64) {
		var err error
		peak, err = least.PeakHeap(name, func() error {
			for v, err := range ReadStructs[twoFields](ctx, ds, &ReadOptions{Workers: workers, OutputMemory: memory, Reuse: true}) {
				if err != nil {
					return err
				}
				n++
				sum += v.ID + int64(len(v.Name))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return n, sum, peak
	}
	const memory = 2 << 20
	small, large := namesDataset(t, 20_000), namesDataset(t, 160_000)
	wantN, wantSum, _ := read("one worker", large, 1, 0)
	n, sum, eight := read("large", large, 2, memory)
	if n != wantN || sum != wantSum || n != 160_000 {
		t.Fatalf("two workers: %d records (sum %d), one: %d (sum %d)", n, sum, wantN, wantSum)
	}
	// Three readers of two columns, each column's block buffers about
	// 220 KiB at most, and 2 MiB of the rest (the names of the records,
	// a string each, and the garbage the heap's samples catch).
	const bound = memory + 3*2*(220<<10) + 2<<20
	// Each bound is judged on the least peaks of up to three reads
	// (memtest.Retry): garbage the collector has not yet reached on a
	// loaded machine only ever adds to a sample (a read of the least
	// OutputMemory peaked at 9.1 MiB at a load of 40 on two cores, at
	// 3.6 MiB on a quiet one).
	var one, least1 uint64
	base, _ := memtest.PeakHeap(func() error { return nil }) // the heap before reading
	first := true
	memtest.Retry(3, func() bool {
		if !first {
			_, _, eight = read("large", large, 2, memory)
		}
		first = false
		_, _, one = read("small", small, 2, memory)
		_, _, least1 = read("least", large, 2, 1)
		return eight <= one+one/2 && eight-min(base, eight) <= bound && least1 < eight
	})
	t.Logf("peak heap on two workers, OutputMemory 2 MiB: %d KiB at 20,000 rows, %d KiB at 160,000; the least OutputMemory %d KiB; %d KiB before reading", one>>10, eight>>10, least1>>10, base>>10)
	// Growing with the rows would take about eight times as much.
	if eight > one+one/2 {
		t.Errorf("peak heap %d KiB at 160,000 rows against %d KiB at 20,000", eight>>10, one>>10)
	}
	if eight-min(base, eight) > bound {
		t.Errorf("peak heap %d KiB, %d KiB before reading: more than %d KiB read", eight>>10, base>>10, bound>>10)
	}
	if least1 >= eight {
		t.Errorf("peak heap %d KiB with the least OutputMemory, %d KiB with 2 MiB", least1>>10, eight>>10)
	}
}
