package trevni

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/schema"
)

// largeSchema is Java's medium vector's schema (testdata/interop/medium).
const largeSchema = `{"type":"record","name":"Large","namespace":"vec","fields":[
 {"name":"id","type":"long"},
 {"name":"flag","type":"boolean"},
 {"name":"score","type":"double"},
 {"name":"small","type":"int"},
 {"name":"name","type":"string"},
 {"name":"tags","type":{"type":"array","items":"string"}},
 {"name":"opt","type":["null","int"]},
 {"name":"pts","type":{"type":"array","items":{"type":"record","name":"Pt","fields":[{"name":"x","type":"float"},{"name":"y","type":"float"}]}}}
]}`

// largeFlat reads scalars only: the struct reader's batch path.
type largeFlat struct {
	ID    int64 `avro:"id"`
	Flag  bool
	Score float64
	Small int32
	Name  string
}

func (v *largeFlat) key() string {
	return fmt.Sprintf("%d %v %x %d %q", v.ID, v.Flag, math.Float64bits(v.Score), v.Small, v.Name)
}

// largeFull reads the nested fields too: the general path.
type largeFull struct {
	ID   int64 `avro:"id"`
	Name string
	Tags []string
	Opt  *int32
	Pts  []struct{ X, Y float32 }
}

// key tells the record's values (an empty array whether nil or not).
func (v *largeFull) key() string {
	opt := "null"
	if v.Opt != nil {
		opt = fmt.Sprint(*v.Opt)
	}
	pts := make([]string, len(v.Pts))
	for i, p := range v.Pts {
		pts[i] = fmt.Sprintf("%x,%x", math.Float32bits(p.X), math.Float32bits(p.Y))
	}
	return fmt.Sprintf("%d %q %q %s %v", v.ID, v.Name, v.Tags, opt, pts)
}

// structRun is one reading of ReadStructs: each record as its key (the
// values are overwritten by the next step, their slices reused), and the
// error it ended with.
type structRun struct {
	recs []string
	err  error
}

// readStructsWith reads ds into T's on workers goroutines with tasks of
// taskRows rows, breaking out after stop records if stop is positive.
func readStructsWith[T any](ctx context.Context, ds *Dataset, o ReadOptions, workers int, taskRows int64, stop int) structRun {
	o.Workers, o.taskRows = workers, taskRows
	var run structRun
	for v, err := range ReadStructs[T](ctx, ds, &o) {
		if err != nil {
			run.err = err
			continue // the iterator stops on its own
		}
		run.recs = append(run.recs, any(v).(interface{ key() string }).key())
		if len(run.recs) == stop {
			break
		}
	}
	return run
}

// sameRun describes how two readings differ, or returns "".
func sameRun(a, b structRun) string {
	switch {
	case (a.err == nil) != (b.err == nil) || (a.err != nil && a.err.Error() != b.err.Error()):
		return fmt.Sprintf("errors differ:\n%v\n%v", a.err, b.err)
	case len(a.recs) != len(b.recs):
		return fmt.Sprintf("%d and %d records", len(a.recs), len(b.recs))
	}
	for i := range a.recs {
		if a.recs[i] != b.recs[i] {
			return fmt.Sprintf("record %d: %s and %s", i, a.recs[i], b.recs[i])
		}
	}
	return ""
}

// largeDataset writes n random records of largeSchema in parts of small
// blocks and opens them as one data set.
func largeDataset(t *testing.T, seed uint64, n int) (*Dataset, *schema.Schema, []any) {
	t.Helper()
	return writeParts(t, avrorand.New(seed, avrorand.Options{}), largeSchema, seed, n, 100)
}

// Random records in parts of small blocks, read into structs of scalars
// (the batch path) and of nested fields with random filters, offsets, row
// ranges and limits: on 2, 3 and 7 workers with tasks of a few rows and
// at random a small OutputMemory, ReadStructs yields the records, and ends
// with the error, it yields on one.
func TestReadStructsWorkersProperty(t *testing.T) {
	ctx := context.Background()
	var filtered, limited, records int
	for seed := range uint64(10) {
		ds, s, recs := largeDataset(t, seed, 400)
		r := rand.New(rand.NewPCG(seed, 28))
		exprs := compiledExprs(t, r, s, recs)
		rows := ds.RowCount()
		for k := range 4 {
			o := drawReadOptions(t, r, exprs, k, rows)
			if o.Where != "" {
				filtered++
			}
			if o.Limit != 0 {
				limited++
			}
			read := readStructsWith[largeFlat]
			if k >= 2 {
				read = readStructsWith[largeFull]
			}
			want := read(ctx, ds, o, 1, 0, 0)
			if want.err != nil {
				t.Fatalf("seed %d, %+v: %v", seed, o, want.err)
			}
			records += len(want.recs)
			for _, w := range []int{2, 3, 7} {
				task := 1 + r.Int64N(40)
				wo := o
				if r.IntN(2) == 0 {
					wo.OutputMemory = 1 + r.Int64N(64<<10) // batches of a few records
				}
				if d := sameRun(want, read(ctx, ds, wo, w, task, 0)); d != "" {
					t.Fatalf("seed %d, struct %d, %+v, %d workers, tasks of %d rows: %s", seed, k/2, o, w, task, d)
				}
			}
		}
	}
	if filtered == 0 || limited == 0 || records < 1000 {
		t.Fatalf("%d filtered runs, %d limited, %d records", filtered, limited, records)
	}
}

// Java's medium vector, read into structs on workers with tasks of a few
// rows, gives what one goroutine gives, whose names and ids are Java's.
func TestReadStructsWorkersInterop(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"testdata/interop/medium/medium.null.none.trv", "testdata/interop/medium/medium.snappy.crc32.trv"} {
		ds, err := Open(ctx, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []ReadOptions{{}, {Offset: 33, Limit: 500}, {Where: "small > 0"}} {
			for k, read := range []func(context.Context, *Dataset, ReadOptions, int, int64, int) structRun{readStructsWith[largeFlat], readStructsWith[largeFull]} {
				want := read(ctx, ds, o, 1, 0, 0)
				if want.err != nil || len(want.recs) == 0 {
					t.Fatalf("%s: %d records, %v", name, len(want.recs), want.err)
				}
				for _, w := range []int{2, 7} {
					if d := sameRun(want, read(ctx, ds, o, w, 61, 0)); d != "" {
						t.Fatalf("%s, struct %d, %+v, %d workers: %s", name, k, o, w, d)
					}
				}
			}
		}
	}
}

// misfit does not fit largeSchema: name is a string.
type misfit struct {
	Name int64 `avro:"name"`
}

func (v *misfit) key() string { return fmt.Sprint(v.Name) }

// A struct that does not fit the schema: the same error on workers.
func TestReadStructsWorkersMisfit(t *testing.T) {
	ctx := context.Background()
	ds, _, _ := largeDataset(t, 4, 300)
	want := readStructsWith[misfit](ctx, ds, ReadOptions{Offset: 10}, 1, 0, 0)
	if want.err == nil || !strings.Contains(want.err.Error(), "p0.trv: ") {
		t.Fatalf("%d records, %v", len(want.recs), want.err)
	}
	if d := sameRun(want, readStructsWith[misfit](ctx, ds, ReadOptions{Offset: 10}, 3, 5, 0)); d != "" {
		t.Fatal(d)
	}
}

// idString is the struct of corruptParts' records.
type idString struct {
	ID int64  `avro:"id"`
	S  string `avro:"s"`
}

func (v *idString) key() string { return fmt.Sprintf("%d %q", v.ID, v.S) }

// A damaged block anywhere, in either column of either part, and records
// larger than the bound: on any number of workers, ReadStructs yields the
// records before the trouble and then the error that one goroutine
// yields.
func TestReadStructsWorkersErrors(t *testing.T) {
	ctx := context.Background()
	dir, files := corruptParts(t)
	cases := forEachDamagedBlock(t, dir, files, 6, func(c damagedRead) {
		want := readStructsWith[idString](ctx, c.ds, c.opts, 1, 0, 0)
		if c.opts.Offset == 0 && c.opts.Limit == 0 && c.opts.Where == "" && (want.err == nil || !strings.Contains(want.err.Error(), "p1.trv: ")) {
			t.Fatalf("column %d block %d, %+v: error %v", c.col, c.block, c.opts, want.err)
		}
		for _, w := range []int{2, 3, 7} {
			for _, task := range []int64{37, 250} {
				if d := sameRun(want, readStructsWith[idString](ctx, c.ds, c.opts, w, task, 0)); d != "" {
					t.Fatalf("column %d block %d, %+v, %d workers, tasks of %d: %s", c.col, c.block, c.opts, w, task, d)
				}
			}
		}
	})
	tooLarge := 0
	for seed := range uint64(6) {
		ds, _, _ := largeDataset(t, seed, 200)
		ds.opts.MaxRecordBytes = 60
		want := readStructsWith[largeFull](ctx, ds, ReadOptions{}, 1, 0, 0)
		if errors.Is(want.err, format.ErrRecordSize) {
			tooLarge++
		}
		for _, w := range []int{2, 7} {
			if d := sameRun(want, readStructsWith[largeFull](ctx, ds, ReadOptions{}, w, 4, 0)); d != "" {
				t.Fatalf("seed %d, records of at most 60 bytes, %d workers: %s", seed, w, d)
			}
		}
	}
	if cases < 8 || tooLarge == 0 {
		t.Fatalf("%d cases, %d with records too large", cases, tooLarge)
	}
}

// Breaking out of the loop, panicking in it, or cancelling the context
// stops the workers: none is left running, and the records before are
// those of one goroutine.
func TestReadStructsWorkersStop(t *testing.T) {
	ds, _, _ := largeDataset(t, 3, 3000)
	ctx := context.Background()
	before := runtime.NumGoroutine()
	all := readStructsWith[largeFlat](ctx, ds, ReadOptions{}, 1, 0, 0)
	for _, stop := range []int{1, 5, 100, 2999} {
		got := readStructsWith[largeFlat](ctx, ds, ReadOptions{}, 3, 7, stop)
		if d := sameRun(structRun{recs: all.recs[:stop]}, got); d != "" {
			t.Fatalf("break after %d: %s", stop, d)
		}
	}
	func() {
		defer func() {
			if p := recover(); p != "stop" {
				t.Fatalf("recovered %v", p)
			}
		}()
		for range ReadStructs[largeFlat](ctx, ds, &ReadOptions{Workers: 3, taskRows: 7}) {
			panic("stop")
		}
	}()
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n := 0
	var last error
	for _, err := range ReadStructs[largeFlat](cctx, ds, &ReadOptions{Workers: 3, taskRows: 7}) {
		if err != nil {
			last = err
			continue
		}
		if n++; n == 10 {
			cancel()
		}
	}
	if !errors.Is(last, context.Canceled) {
		t.Fatalf("cancelled: %v after %d records", last, n)
	}
	for range 100 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%d goroutines, %d before", runtime.NumGoroutine(), before)
}

// A block that fails its checksum, met by the struct reader's batch path
// in batches of any size (1 is the sequential ReadStructs'): the records
// before it, then the same error naming the record. (A batch of one once
// read the block before's data again as the damaged block's.)
func TestStructReaderDamagedBatches(t *testing.T) {
	_, files := corruptParts(t)
	rd, err := format.NewReader(bytes.NewReader(files[1]), int64(len(files[1])), nil)
	if err != nil {
		t.Fatal(err)
	}
	blocks, _ := rd.Blocks(0)
	for _, b := range []int{1, len(blocks) / 2} {
		bad := bytes.Clone(files[1])
		bad[blocks[b].Offset+int64(blocks[b].CompressedSize)/2] ^= 0x55
		want := fmt.Sprintf("record %d: trevni: column \"id\" (#0), block %d, row %d, ", blocks[b].FirstRow, b, blocks[b].FirstRow)
		for _, k := range []int{1, 7, 300} {
			rd, err := format.NewReader(bytes.NewReader(bad), int64(len(bad)), nil)
			if err != nil {
				t.Fatal(err)
			}
			sr, err := assemble.NewStructReader[idString](rd, nil)
			if err != nil {
				t.Fatal(err)
			}
			buf := make([]idString, k)
			var total int64
			for {
				n, err := sr.Read(buf)
				for i := range n {
					if buf[i].ID != 1000+total+int64(i) {
						t.Fatalf("block %d, batches of %d: record %d has id %d", b, k, total+int64(i), buf[i].ID)
					}
				}
				total += int64(n)
				if err != nil {
					if total != blocks[b].FirstRow || !strings.HasPrefix(err.Error(), want) {
						t.Fatalf("block %d, batches of %d: %d records, then %v", b, k, total, err)
					}
					break
				}
			}
		}
	}
}
