package trevniarrow_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/trevni-go/trevni/internal/testing/longtest"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/internal/testing/memtest"
	"github.com/trevni-go/trevni/internal/testing/predrand"
	"github.com/trevni-go/trevni/predicate"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/trevniarrow"
)

// writeRandomParts writes n random records of a random schema, in small
// blocks, into parts of partRows records and opens them as one data set.
func writeRandomParts(t *testing.T, seed uint64, n, partRows int) (*trevni.Dataset, *schema.Schema, []any) {
	t.Helper()
	g := avrorand.New(seed, avrorand.Options{MaxLen: 3})
	text := g.Schema()
	s, err := schema.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var recs []any
	for p := 0; p*partRows < n; p++ {
		o := &trevni.WriteOptions{BlockSize: 256 + int(seed%4)*200}
		w, err := trevni.Create(context.Background(), filepath.Join(dir, fmt.Sprintf("p%d.trv", p)), text, o)
		if err != nil {
			t.Fatal(err)
		}
		for range min(partRows, n-p*partRows) {
			v := g.Value(s)
			if err := w.Write(v); err != nil {
				t.Fatal(err)
			}
			recs = append(recs, v)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := trevni.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ds, s, recs
}

// arrowRun is what a RecordReader read: its batches, and its error.
type arrowRun struct {
	batches []arrow.RecordBatch
	rows    int64
	err     error
}

// readArrow reads ds with o into batches, kept.
func readArrow(t *testing.T, ctx context.Context, ds *trevni.Dataset, o trevniarrow.ReadOptions) arrowRun {
	t.Helper()
	rr, err := trevniarrow.NewRecordReader(ctx, ds, &o)
	if err != nil {
		return arrowRun{err: err}
	}
	defer rr.Release()
	var run arrowRun
	for rr.Next() {
		rec := rr.RecordBatch()
		if rec.NumRows() == 0 || rec.NumRows() > int64(o.BatchRows) {
			t.Fatalf("a batch of %d rows, batches of at most %d", rec.NumRows(), o.BatchRows)
		}
		rec.Retain()
		run.batches = append(run.batches, rec)
		run.rows += rec.NumRows()
	}
	run.err = rr.Err()
	return run
}

// sameBatches says whether two runs' batches hold as many rows each.
func sameBatches(a, b arrowRun) bool {
	if len(a.batches) != len(b.batches) {
		return false
	}
	for i := range a.batches {
		if a.batches[i].NumRows() != b.batches[i].NumRows() {
			return false
		}
	}
	return true
}

// sameRows reports where two runs' batches hold different rows, whatever
// their sizes, or their errors differ.
func sameRows(a, b arrowRun) string {
	if (a.err == nil) != (b.err == nil) || (a.err != nil && a.err.Error() != b.err.Error()) {
		return fmt.Sprintf("errors differ:\n%v\n%v", a.err, b.err)
	}
	if a.err != nil {
		return ""
	}
	if a.rows != b.rows {
		return fmt.Sprintf("%d and %d rows", a.rows, b.rows)
	}
	var ia, ib, ra, rb int64 // batch and row in it
	for row := int64(0); row < a.rows; row++ {
		for ra == a.batches[ia].NumRows() {
			ia, ra = ia+1, 0
		}
		for rb == b.batches[ib].NumRows() {
			ib, rb = ib+1, 0
		}
		x, y := a.batches[ia].NewSlice(ra, ra+1), b.batches[ib].NewSlice(rb, rb+1)
		// NaNs are equal, other floats exactly.
		eq := array.RecordApproxEqual(x, y, array.WithNaNsEqual(true), array.WithAbsTolerance(0))
		x.Release()
		y.Release()
		if !eq {
			return fmt.Sprintf("row %d differs", row)
		}
		ra, rb = ra+1, rb+1
	}
	return ""
}

// Random schemas and records in parts of small blocks, read with random
// filters, offsets and limits (across parts) into batches of a few rows:
// on 3 workers (which read a batch's columns in parallel) the batches are
// those of one, with unions as dense unions and as structs.
func TestRecordReaderWorkersProperty(t *testing.T) {
	ctx := context.Background()
	var filtered, limited, cut int
	// Two data sets by default, six in the long form.
	for seed := range uint64(longtest.Rounds(2, 6)) {
		ds, s, recs := writeRandomParts(t, seed, 4000, 2500)
		l, err := layout.New(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(seed, 29))
		exprs := predrand.New(r, s, recs)
		exprs.Check = func(e string) error {
			_, err := predicate.Compile(e, s, l)
			return err
		}
		rows := ds.RowCount()
		for k := range 3 {
			var o trevniarrow.ReadOptions
			o.BatchRows = 50 + r.IntN(400)
			o.Schema.UnionsAsStructs = k == 2
			if k == 1 {
				o.Where = exprs.Expr(2)
				filtered++
			}
			if r.IntN(2) == 0 {
				o.Offset = r.Int64N(rows)
			}
			if r.IntN(2) == 0 {
				o.Limit = 1 + r.Int64N(rows)
				limited++
			}
			o.Workers = 1
			want := readArrow(t, ctx, ds, o)
			if want.err != nil {
				t.Fatalf("seed %d, %+v: %v", seed, o.ReadOptions, want.err)
			}
			o.Workers = 3
			got := readArrow(t, ctx, ds, o)
			if d := sameRows(want, got); d != "" {
				t.Fatalf("seed %d, %+v, batches of %d rows: %s", seed, o.ReadOptions, o.BatchRows, d)
			}
			if !sameBatches(want, got) {
				t.Fatalf("seed %d, %+v: batches of other sizes on 3 workers", seed, o.ReadOptions)
			}
			if len(got.batches) > 1 {
				cut++
			}
		}
	}
	if filtered == 0 || limited == 0 || cut == 0 {
		t.Fatalf("%d filtered runs, %d limited, %d of several batches", filtered, limited, cut)
	}
}

// badUUIDs writes records whose uuid string is not one at row bad, in
// parts of 3000 records, and opens them.
func badUUIDs(t *testing.T, n, bad int) *trevni.Dataset {
	t.Helper()
	const text = `{"type":"record","name":"R","fields":[{"name":"id","type":"long"},{"name":"u","type":{"type":"string","logicalType":"uuid"}}]}`
	dir := t.TempDir()
	for p := 0; p*3000 < n; p++ {
		o := &trevni.WriteOptions{BlockSize: 512}
		w, err := trevni.Create(context.Background(), filepath.Join(dir, fmt.Sprintf("p%d.trv", p)), text, o)
		if err != nil {
			t.Fatal(err)
		}
		for i := p * 3000; i < min(n, (p+1)*3000); i++ {
			u := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
			if i == bad {
				u = "not a uuid"
			}
			if err := w.Write(map[string]any{"id": int64(i), "u": u}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := trevni.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// A record the batch builder refuses, in any range of any part: on 3
// workers the error is the one of one worker, naming the part and the
// row in it; with a limit before it there is none.
func TestRecordReaderWorkersError(t *testing.T) {
	ctx := context.Background()
	for _, bad := range []int{0, 1700, 2999, 3000, 5555} {
		ds := badUUIDs(t, 6000, bad)
		for _, ro := range []trevni.ReadOptions{{}, {Offset: 1000}, {Where: "id >= 2000"}, {Limit: int64(bad)}} {
			o := trevniarrow.ReadOptions{ReadOptions: ro, BatchRows: 300}
			o.Workers = 1
			want := readArrow(t, ctx, ds, o)
			skipped := ro.Offset > int64(bad) || (ro.Where != "" && bad < 2000) || ro.Limit > 0
			wantMsg := fmt.Sprintf("p%d.trv: row %d: ", bad/3000, bad%3000)
			if skipped != (want.err == nil) || (want.err != nil && !strings.Contains(want.err.Error(), wantMsg)) {
				t.Fatalf("bad row %d, %+v: %v, want an error with %q: %v", bad, ro, want.err, wantMsg, skipped)
			}
			o.Workers = 3
			got := readArrow(t, ctx, ds, o)
			if d := sameRows(want, got); d != "" {
				t.Fatalf("bad row %d, %+v: %s", bad, ro, d)
			}
		}
	}
}

// Cancelling the context, or closing the reader early, stops every
// worker: the reader ends with the context's error, and no goroutine is
// left running.
func TestRecordReaderWorkersStop(t *testing.T) {
	ds := badUUIDs(t, 6000, -1)
	before := runtime.NumGoroutine()
	for _, cancelAt := range []int{0, 1, 3} {
		ctx, cancel := context.WithCancel(context.Background())
		rr, err := trevniarrow.NewRecordReader(ctx, ds, &trevniarrow.ReadOptions{ReadOptions: trevni.ReadOptions{Workers: 3}, BatchRows: 100})
		if err != nil {
			t.Fatal(err)
		}
		if cancelAt == 0 {
			cancel()
		}
		n := 0
		for rr.Next() {
			if n++; n == cancelAt {
				cancel()
			}
		}
		if !errors.Is(rr.Err(), context.Canceled) {
			t.Fatalf("cancelled after %d batches: %v, want the context's error", cancelAt, rr.Err())
		}
		rr.Release()
		cancel()
	}
	for _, closeAt := range []int{1, 5} {
		rr, err := trevniarrow.NewRecordReader(context.Background(), ds, &trevniarrow.ReadOptions{ReadOptions: trevni.ReadOptions{Workers: 3}, BatchRows: 100})
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < closeAt && rr.Next(); n++ {
		}
		if err := rr.Close(); err != nil {
			t.Fatal(err)
		}
		if rr.Next() {
			t.Fatal("a batch after Close")
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

// namesDataset writes n records of an id and a name of 200 to 300 bytes
// in one file of 64 KiB blocks.
func namesDataset(t *testing.T, n int) *trevni.Dataset {
	t.Helper()
	dir := t.TempDir()
	text := `{"type":"record","name":"R","fields":[{"name":"id","type":"long"},{"name":"name","type":"string"}]}`
	o := &trevni.WriteOptions{BlockSize: 64 << 10, Codec: trevni.Snappy}
	w, err := trevni.Create(context.Background(), filepath.Join(dir, "names.trv"), text, o)
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
	ds, err := trevni.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ds.Close() })
	return ds
}

// A RecordReader on two workers, with the default batch rows, holds its
// batches within OutputMemory: eight times the rows take about the same
// peak heap, within OutputMemory and what the readers hold, and the rows
// are one worker's.
func TestRecordReaderWorkersOutputMemory(t *testing.T) {
	ctx := context.Background()
	least := memtest.Least{}
	read := func(name string, ds *trevni.Dataset, workers int, memory int64) (rows, sum int64, peak uint64) {
		var err error
		peak, err = least.PeakHeap(name, func() error {
			o := &trevniarrow.ReadOptions{}
			o.Workers, o.OutputMemory = workers, memory
			rr, err := trevniarrow.NewRecordReader(ctx, ds, o)
			if err != nil {
				return err
			}
			defer rr.Release()
			for rr.Next() {
				rec := rr.RecordBatch()
				ids := rec.Column(0).(*array.Int64)
				names := rec.Column(1).(*array.String)
				for i := range rec.NumRows() {
					sum += ids.Value(int(i)) + int64(len(names.Value(int(i))))
				}
				rows += rec.NumRows()
			}
			return rr.Err()
		})
		if err != nil {
			t.Fatal(err)
		}
		return rows, sum, peak
	}
	const memory = 2 << 20
	small, large := namesDataset(t, 20_000), namesDataset(t, 160_000)
	wantRows, wantSum, _ := read("one worker", large, 1, 0)
	rows, sum, eight := read("large", large, 2, memory)
	if rows != wantRows || sum != wantSum || rows != 160_000 {
		t.Fatalf("two workers: %d rows (sum %d), one: %d (sum %d)", rows, sum, wantRows, wantSum)
	}
	// A quarter more than OutputMemory (batches are cut by an estimate),
	// three readers of two columns, each column's block buffers about
	// 220 KiB at most, and 2 MiB of the rest (the garbage the heap's
	// samples catch).
	const bound = memory + memory/4 + 3*2*(220<<10) + 2<<20
	base, _ := memtest.PeakHeap(func() error { return nil }) // the heap before reading
	// Each bound is judged on the least peaks of up to three reads
	// (memtest.Retry): garbage the collector has not yet reached only
	// ever adds to a sample (single reads of the same data peaked
	// anywhere from 4.9 to 9.5 MiB on a lightly loaded machine, and
	// failed the bound below one run in three).
	var one uint64
	first := true
	memtest.Retry(3, func() bool {
		if !first {
			_, _, eight = read("large", large, 2, memory)
		}
		first = false
		_, _, one = read("small", small, 2, memory)
		return eight <= one+one/2 && eight-min(base, eight) <= bound
	})
	t.Logf("peak heap on two workers, OutputMemory 2 MiB: %d KiB at 20,000 rows, %d KiB at 160,000; %d KiB before reading", one>>10, eight>>10, base>>10)
	// Growing with the rows would take about eight times as much.
	if eight > one+one/2 {
		t.Errorf("peak heap %d KiB at 160,000 rows against %d KiB at 20,000", eight>>10, one>>10)
	}
	if eight-min(base, eight) > bound {
		t.Errorf("peak heap %d KiB, %d KiB before reading: more than %d KiB read", eight>>10, base>>10, bound>>10)
	}
}
