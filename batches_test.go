package trevni

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/schema"
)

// encBatcher is a Batcher of copies of the records' encodings: a batch is
// full once it holds maxBytes, and Add refuses a record whose CRC-32
// divides by failEvery, if set.
type encBatcher struct {
	recs      [][]byte
	size      int
	maxBytes  int
	failEvery uint32
}

func (e *encBatcher) Add(rec []byte) (bool, error) {
	if e.failEvery > 0 && crc32.ChecksumIEEE(rec)%e.failEvery == 0 {
		return false, fmt.Errorf("refused record %x", rec)
	}
	e.recs = append(e.recs, bytes.Clone(rec))
	e.size += len(rec)
	return e.maxBytes > 0 && e.size >= e.maxBytes, nil
}

func (e *encBatcher) Flush() ([][]byte, int64) {
	b := e.recs
	e.recs, e.size = nil, 0
	return b, int64(len(b))
}

// batchRun is one reading by ReadBatches.
type batchRun struct {
	recs    [][]byte // the records yielded
	batches int
	err     error
	n       int64 // the reader's count
	matched int64 // the reports'
}

// readBatchesWith reads ds's records with ReadBatches on workers workers,
// tasks of taskRows rows, batches of at most rows records (and maxBytes
// bytes), breaking out after stop batches if stop is positive.
func readBatchesWith(t *testing.T, ctx context.Context, ds *Dataset, o ReadOptions, workers int, taskRows int64, rows, maxBytes int, failEvery uint32, stop int) batchRun {
	t.Helper()
	o.Workers = workers
	r, err := ds.NewReader(ctx, &o)
	if err != nil {
		return batchRun{err: err}
	}
	defer r.Close()
	r.taskRows = taskRows
	var run batchRun
	newBatcher := func() (frontdoor.Batcher[[][]byte], error) {
		return &encBatcher{maxBytes: maxBytes, failEvery: failEvery}, nil
	}
	for b, err := range frontdoor.ReadBatches(r, rows, newBatcher) {
		if err != nil {
			run.err = err
			break
		}
		if b.Records <= 0 || b.Records > len(b.Value) || len(b.Value) > rows {
			t.Fatalf("a batch of %d records yielding %d, batches of at most %d", len(b.Value), b.Records, rows)
		}
		run.recs = append(run.recs, b.Value[:b.Records]...)
		run.batches++
		if run.batches == stop {
			break
		}
	}
	run.n = r.Records()
	for _, p := range r.Report() {
		run.matched += p.Scan.RowsMatched
	}
	return run
}

// isPrefix reports whether a is a prefix of b.
func isPrefix(a, b [][]byte) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sameBatches compares a run on workers (got) with one on one goroutine
// (want), and with the records of the same reading without errors of Add
// (all).
func sameBatches(want, got batchRun, all [][]byte) string {
	switch {
	case (want.err == nil) != (got.err == nil) || (want.err != nil && want.err.Error() != got.err.Error()):
		return fmt.Sprintf("errors differ:\n%v\n%v", want.err, got.err)
	case want.err != nil:
		// The batch being built when the error came is dropped: the
		// records before are a prefix.
		if !isPrefix(got.recs, all) || !isPrefix(want.recs, all) {
			return "records before the error are not a prefix of the records"
		}
		return ""
	case len(want.recs) != len(got.recs) || !isPrefix(got.recs, want.recs):
		return fmt.Sprintf("records differ (%d and %d)", len(want.recs), len(got.recs))
	case want.n != got.n || got.n != int64(len(got.recs)):
		return fmt.Sprintf("the readers count %d and %d records, %d yielded", want.n, got.n, len(got.recs))
	case want.matched != got.matched:
		return fmt.Sprintf("reports count %d and %d records matched", want.matched, got.matched)
	}
	return ""
}

// Random schemas and records in parts of small blocks, read with random
// filters, offsets, row ranges and limits into batches of a few records:
// on 2 and 7 workers, with tasks of a few rows and at random a small
// OutputMemory, the batches hold the records of one goroutine, in order,
// and the error is the same; a Batcher that refuses some records gives the
// same error.
func TestReadBatchesProperty(t *testing.T) {
	ctx := context.Background()
	var filtered, limited, refused, multi int
	for seed := range uint64(10) {
		ds, s, recs := randomDataset(t, seed, 150)
		r := rand.New(rand.NewPCG(seed, 28))
		exprs := compiledExprs(t, r, s, recs)
		rows := ds.RowCount()
		for k := range 5 {
			o := drawReadOptions(t, r, exprs, k, rows)
			if o.Where != "" {
				filtered++
			}
			if o.Limit != 0 {
				limited++
			}
			if k == 2 && s.Kind == schema.Record && len(s.Fields) > 1 {
				o.Fields = []string{s.Fields[len(s.Fields)-1].Name, s.Fields[0].Name}
			}
			batchRows := 1 + r.IntN(20)
			maxBytes := 0
			if r.IntN(2) == 0 {
				maxBytes = 1 + r.IntN(200)
			}
			var fail uint32
			if k == 4 {
				fail = uint32(5 + r.IntN(40))
			}
			all := readBatchesWith(t, ctx, ds, o, 1, 0, batchRows, maxBytes, 0, 0)
			want := readBatchesWith(t, ctx, ds, o, 1, 0, batchRows, maxBytes, fail, 0)
			if want.err != nil && fail > 0 && all.err == nil {
				refused++
			}
			for _, w := range []int{2, 7} {
				task := 1 + r.Int64N(30)
				wo := o
				if r.IntN(2) == 0 {
					// Batches cut by their share of the memory too.
					wo.OutputMemory = 1 + r.Int64N(8<<10)
				}
				got := readBatchesWith(t, ctx, ds, wo, w, task, batchRows, maxBytes, fail, 0)
				if d := sameBatches(want, got, all.recs); d != "" {
					t.Fatalf("seed %d, %+v, batches of %d rows and %d bytes, refusing 1 in %d, %d workers, tasks of %d rows: %s", seed, o, batchRows, maxBytes, fail, w, task, d)
				}
				if got.batches > want.batches {
					multi++
				}
			}
		}
	}
	if filtered == 0 || limited == 0 || refused == 0 || multi == 0 {
		t.Fatalf("%d filtered runs, %d limited, %d refused, %d cut at tasks", filtered, limited, refused, multi)
	}
}

// A damaged block anywhere, in either column of either part: on any number
// of workers the error is the one the sequential reader gives, and the
// records before it are a prefix of the records.
func TestReadBatchesErrors(t *testing.T) {
	ctx := context.Background()
	dir, files := corruptParts(t)
	fine := t.TempDir()
	for p, data := range files {
		if err := os.WriteFile(filepath.Join(fine, fmt.Sprintf("p%d.trv", p)), data, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	whole, err := Open(ctx, fine, nil)
	if err != nil {
		t.Fatal(err)
	}
	all := readBatchesWith(t, ctx, whole, ReadOptions{}, 1, 0, 100, 0, 0, 0)
	if all.err != nil || len(all.recs) != 2000 {
		t.Fatalf("%d records, %v", len(all.recs), all.err)
	}
	cases := forEachDamagedBlock(t, dir, files, 5, func(c damagedRead) {
		want := readBatchesWith(t, ctx, c.ds, c.opts, 1, 0, 64, 0, 0, 0)
		if c.opts.Offset == 0 && c.opts.Limit == 0 && c.opts.Where == "" && (want.err == nil || !bytes.Contains([]byte(want.err.Error()), []byte("p1.trv: "))) {
			t.Fatalf("column %d block %d, %+v: error %v", c.col, c.block, c.opts, want.err)
		}
		ref := readBatchesWith(t, ctx, whole, c.opts, 1, 0, 64, 0, 0, 0)
		for _, w := range []int{2, 3, 7} {
			for _, task := range []int64{37, 250} {
				got := readBatchesWith(t, ctx, c.ds, c.opts, w, task, 64, 0, 0, 0)
				if d := sameBatches(want, got, ref.recs); d != "" {
					t.Fatalf("column %d block %d, %+v, %d workers, tasks of %d: %s", c.col, c.block, c.opts, w, task, d)
				}
			}
		}
	})
	if cases < 8 {
		t.Fatalf("%d cases", cases)
	}
}

// Breaking out of the loop, or cancelling the context, stops every
// worker: no goroutine is left running, and a cancelled reading yields
// the context's error.
func TestReadBatchesStop(t *testing.T) {
	dir, files := corruptParts(t)
	for p, data := range files {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%d.trv", p)), data, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	for _, stop := range []int{1, 3, 10} {
		got := readBatchesWith(t, context.Background(), ds, ReadOptions{}, 3, 50, 10, 0, 0, stop)
		if got.err != nil || got.batches != stop {
			t.Fatalf("breaking after %d batches: %d batches, %v", stop, got.batches, got.err)
		}
	}
	for _, early := range []bool{true, false} {
		ctx, cancel := context.WithCancel(context.Background())
		r, err := ds.NewReader(ctx, &ReadOptions{Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		r.taskRows = 50
		if early {
			cancel()
		}
		var yerr error
		n := 0
		for _, err := range frontdoor.ReadBatches(r, 10, func() (frontdoor.Batcher[[][]byte], error) { return &encBatcher{}, nil }) {
			if err != nil {
				yerr = err
				break
			}
			if n++; n == 2 {
				cancel()
			}
		}
		r.Close()
		cancel()
		if !errors.Is(yerr, context.Canceled) {
			t.Fatalf("cancelled early %v: %v, want the context's error", early, yerr)
		}
	}
	for range 100 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%d goroutines, %d before", runtime.NumGoroutine(), before)
}
