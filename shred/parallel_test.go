package shred

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/ocf"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/internal/testing/memtest"
	"github.com/trevni-go/trevni/internal/testing/predrand"
	"github.com/trevni-go/trevni/predicate"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

// randomContainer returns an Avro container of n random records of a
// random schema, in blocks of about blockSize bytes, and the records.
func randomContainer(t testing.TB, seed uint64, n, blockSize int, codec string) (string, []byte, []any) {
	t.Helper()
	g := avrorand.New(seed, avrorand.Options{})
	text := g.Schema()
	s, err := schema.Parse(text)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	c, err := goavro.NewCodec(text)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	var buf bytes.Buffer
	w, err := ocf.NewWriter(&buf, text, ocf.WriterOptions{Codec: codec, SyncMarker: [16]byte{7}, BlockSize: blockSize})
	if err != nil {
		t.Fatal(err)
	}
	var recs []any
	for range n {
		v := g.Value(s)
		bin, err := c.BinaryFromNative(nil, v)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if err := w.Append(bin); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, v)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return text, buf.Bytes(), recs
}

// toJSON returns a Trevni file's records as Avro JSON lines, as tojson
// writes them.
func toJSON(t testing.TB, file []byte) string {
	t.Helper()
	rd, err := format.NewReader(bytes.NewReader(file), int64(len(file)), nil)
	if err != nil {
		t.Fatal(err)
	}
	ar, err := assemble.NewAvroReader(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := assemble.ToJSON(context.Background(), &out, ar, nil); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// smallBlocks is a Trevni file of tiny blocks and a tiny memory budget:
// segments of a few blocks, many of them, and the joined file spilling.
var smallBlocks = format.WriterOptions{Codec: "snappy", Checksum: "crc32", BlockSize: 256, MemoryBudget: 64 << 10}

// Random schemas and records written with 1 and with 2, 3 and 7 workers,
// in small blocks and small container blocks so that ranges and segments
// are many, read back the same records (tojson equal), every column's
// statistics agreeing with its blocks and filters that skip blocks by
// them keeping what a brute-force filter keeps.
func TestParallelProperty(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	segments := 0
	for seed := range uint64(12) {
		codec := []string{"null", "deflate", "snappy"}[seed%3]
		text, in, recs := randomContainer(t, seed, 300+int(seed)*20, 300, codec)
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		var want string
		for _, workers := range []int{1, 2, 3, 7} {
			var out bytes.Buffer
			calls := 0
			n, err := FromContainer(ctx, &out, bytes.NewReader(in), &Options{WriterOptions: smallBlocks, Workers: workers,
				Progress: func(rows, bytesIn int64) { calls++ }})
			if err != nil {
				t.Fatalf("seed %d, %d workers: %v", seed, workers, err)
			}
			if n != int64(len(recs)) {
				t.Fatalf("seed %d, %d workers: %d records, want %d", seed, workers, n, len(recs))
			}
			got := toJSON(t, out.Bytes())
			if workers == 1 {
				want = got
			} else {
				segments += calls
			}
			if got != want {
				t.Fatalf("seed %d, %d workers: records differ from one worker's\n got %.300s\nwant %.300s", seed, workers, got, want)
			}
			rd, err := format.NewReader(bytes.NewReader(out.Bytes()), int64(out.Len()), nil)
			if err != nil {
				t.Fatal(err)
			}
			if p := rd.Validate(func(err error) { t.Errorf("seed %d, %d workers: %v", seed, workers, err) }); p != 0 {
				t.FailNow()
			}
			for c := range rd.NumColumns() {
				if st, err := rd.BlockStats(c); st == nil || err != nil {
					t.Fatalf("seed %d, %d workers: column %d: statistics %v, %v", seed, workers, c, st, err)
				}
			}
			if workers == 3 {
				checkFiltered(t, out.Bytes(), s, recs, rand.New(rand.NewPCG(seed, 3)))
			}
		}
	}
	t.Logf("%d segments joined", segments)
	if segments < 12*3*10 {
		t.Fatalf("only %d segments joined: the test does not cut many", segments)
	}
}

// checkFiltered checks that filtered reads of file, which skip blocks by
// their statistics, keep exactly the records recs of s that the predicate
// keeps by brute force, for random expressions.
func checkFiltered(t *testing.T, file []byte, s *schema.Schema, recs []any, r *rand.Rand) {
	t.Helper()
	l, err := layout.New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := predrand.New(r, s, recs)
	if len(g.Paths()) == 0 {
		return
	}
	g.Check = func(e string) error {
		_, err := predicate.Compile(e, s, l)
		return err
	}
	all := strings.SplitAfter(toJSON(t, file), "\n")
	for range 8 {
		expr := g.Expr(2)
		p, err := predicate.Compile(expr, s, l)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for i, rec := range recs {
			if ok, err := p.Match(rec); err != nil {
				t.Fatal(err)
			} else if ok {
				want = append(want, strings.TrimSuffix(all[i], "\n"))
			}
		}
		rd, err := format.NewReader(bytes.NewReader(file), int64(len(file)), nil)
		if err != nil {
			t.Fatal(err)
		}
		ar, err := assemble.NewAvroReader(rd, &assemble.Options{Filter: expr})
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		var got []string
		for {
			b, err := ar.ReadJSON(nil)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", expr, err)
			}
			got = append(got, string(b))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: %d records kept, brute force %d", expr, len(got), len(want))
		}
	}
}

// AppendContainer with workers joins several containers after rows
// already written: the same records as one worker.
func TestParallelAppend(t *testing.T) {
	ctx := context.Background()
	text, in, _ := randomContainer(t, 5, 400, 200, "deflate")
	write := func(workers int) string {
		var out bytes.Buffer
		aw, err := NewAvroWriter(&out, text, &Options{WriterOptions: smallBlocks, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if err := aw.AppendContainer(ctx, bytes.NewReader(in)); err != nil {
				t.Fatalf("%d workers: %v", workers, err)
			}
		}
		if err := aw.Close(); err != nil {
			t.Fatal(err)
		}
		return toJSON(t, out.Bytes())
	}
	if got, want := write(3), write(1); got != want {
		t.Fatal("3 workers: the records differ from one worker's")
	}
}

// badContainer returns a container of 3000 records in small blocks, of
// which record bad (if any) holds a string that is not UTF-8.
func badContainer(t testing.TB, bad int) []byte {
	t.Helper()
	const text = `{"type":"record","name":"r","fields":[{"name":"a","type":"long"},{"name":"s","type":"string"}]}`
	var buf bytes.Buffer
	w, err := ocf.NewWriter(&buf, text, ocf.WriterOptions{Codec: "snappy", SyncMarker: [16]byte{3}, BlockSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3000 {
		rec := fmt.Appendf(nil, "%c%c%s", byte(i%60)*2, 10, "abcde")
		if i == bad {
			rec = []byte{2, 10, 'a', 'b', 0xff, 0xfe, 'e'} // not UTF-8
		}
		if err := w.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A bad record in any range stops every worker with the error the
// sequential path gives (the same record number); an error in a later
// range does not hide one in an earlier.
func TestParallelBadRecord(t *testing.T) {
	ctx := context.Background()
	opts := func(workers int) *Options {
		return &Options{WriterOptions: smallBlocks, Workers: workers}
	}
	for _, bad := range []int{0, 1234, 2999} {
		in := badContainer(t, bad)
		_, want := FromContainer(ctx, io.Discard, bytes.NewReader(in), opts(1))
		if want == nil || !strings.Contains(want.Error(), fmt.Sprint(bad)) {
			t.Fatalf("record %d: sequential error %v", bad, want)
		}
		for _, workers := range []int{2, 7} {
			_, err := FromContainer(ctx, io.Discard, bytes.NewReader(in), opts(workers))
			if err == nil || err.Error() != want.Error() {
				t.Fatalf("record %d, %d workers: error\n%v\nwant\n%v", bad, workers, err, want)
			}
			var se *schema.Error
			if !errors.As(err, &se) {
				t.Fatalf("record %d, %d workers: %v is no *schema.Error", bad, workers, err)
			}
		}
	}
	// A container cut short: the reader's error, after the records before.
	in := badContainer(t, -1)
	cut := in[:len(in)*2/3]
	_, want := FromContainer(ctx, io.Discard, bytes.NewReader(cut), opts(1))
	_, got := FromContainer(ctx, io.Discard, bytes.NewReader(cut), opts(3))
	if want == nil || got == nil || got.Error() != want.Error() {
		t.Fatalf("cut container: error %v, want %v", got, want)
	}
}

// Cancelling stops the workers and leaves no temporary file behind.
func TestParallelCancel(t *testing.T) {
	_, in, _ := randomContainer(t, 2, 3000, 200, "snappy")
	dir := t.TempDir()
	for _, after := range []int{1, 3, 20} {
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		o := &Options{WriterOptions: smallBlocks, Workers: 3, Progress: func(int64, int64) {
			if calls++; calls == after {
				cancel()
			}
		}}
		o.TempDir = dir
		o.MemoryBudget = 16 << 10 // the joined file spills
		_, err := FromContainer(ctx, io.Discard, bytes.NewReader(in), o)
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled after %d segments: %v", after, err)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Fatalf("cancelled after %d segments: %d files left in the temporary directory", after, len(left))
		}
	}
}

// The null codec with statistics off promises Java's bytes: it is written
// on one goroutine whatever Workers says, so the bytes are one worker's.
func TestParallelJavaModeSequential(t *testing.T) {
	_, in, _ := randomContainer(t, 4, 2000, 200, "null")
	write := func(workers int) []byte {
		o := &Options{WriterOptions: smallBlocks, Workers: workers}
		o.Codec, o.DisableStats = "null", true
		var out bytes.Buffer
		if _, err := FromContainer(context.Background(), &out, bytes.NewReader(in), o); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	if !bytes.Equal(write(7), write(1)) {
		t.Fatal("7 workers: the bytes differ from one worker's")
	}
	var stats bytes.Buffer // with statistics, the blocks end where ranges do
	if _, err := FromContainer(context.Background(), &stats, bytes.NewReader(in), &Options{WriterOptions: smallBlocks, Workers: 7}); err != nil {
		t.Fatal(err)
	}
	var one bytes.Buffer
	if _, err := FromContainer(context.Background(), &one, bytes.NewReader(in), &Options{WriterOptions: smallBlocks, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(stats.Bytes(), one.Bytes()) {
		t.Fatal("7 workers with statistics: the same bytes as one worker's; the test does not run the parallel path")
	}
}

// memContainer writes to a file a container of rows records of three
// columns (some 40 bytes each), in blocks of 64 KiB, and returns its name.
func memContainer(t *testing.T, rows int) string {
	t.Helper()
	const text = `{"type":"record","name":"m","fields":[{"name":"a","type":"long"},{"name":"s","type":"string"},{"name":"d","type":"double"}]}`
	name := t.TempDir() + "/in.avro"
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w, err := ocf.NewWriter(f, text, ocf.WriterOptions{Codec: "null", SyncMarker: [16]byte{5}})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var rec []byte
	for i := range rows {
		rec = long(rec[:0], r.Int64N(1<<40))
		s := fmt.Appendf(nil, "row %d %x", i, r.Uint64())
		rec = long(rec, int64(len(s)))
		rec = append(rec, s...)
		rec = append(rec, 1, 2, 3, 4, 5, 6, 7, byte(i))
		if err := w.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return name
}

// The memory budget holds over all workers together: the peak heap of a
// conversion on four workers passes one worker's (which holds the budget
// and what the sequential path holds besides) by no more than what each
// worker holds outside the budget, and does not grow with the rows.
func TestParallelMemoryBound(t *testing.T) {
	const budget = 4 << 20
	dir := t.TempDir()
	least := memtest.Least{}
	peak := func(in string, workers int) uint64 {
		p, err := least.PeakHeap(fmt.Sprint(in, workers), func() error {
			f, err := os.Open(in)
			if err != nil {
				return err
			}
			defer f.Close()
			o := &Options{Workers: workers}
			o.Codec, o.MemoryBudget, o.TempDir = "snappy", budget, dir
			_, err = FromContainer(context.Background(), io.Discard, f, o)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	small, large := memContainer(t, 100_000), memContainer(t, 400_000)
	// Outside the budget, a worker holds two segments, each with three
	// columns' blocks being filled and a compression buffer (80 KiB
	// each), and a decompressed container block (64 KiB): 704 KiB; and
	// the garbage awaiting collection that the heap's samples catch grows
	// with the goroutines allocating: 1.5 MiB.
	const perWorker = 3 << 19
	// Each bound is judged on the least peaks of up to three measurements
	// of each conversion (memtest.Retry): garbage not yet collected only
	// ever adds to a sample, and a loaded machine leaves more of it.
	var one, four, fourLarge uint64
	memtest.Retry(3, func() bool {
		one, four, fourLarge = peak(small, 1), peak(small, 4), peak(large, 4)
		return four <= one+4*perWorker && fourLarge <= four+four/4
	})
	t.Logf("peak heap: one worker %d KiB, four %d KiB, four at four times the rows %d KiB (budget %d KiB)", one>>10, four>>10, fourLarge>>10, budget>>10)
	if four > one+4*perWorker {
		t.Errorf("four workers: peak heap %d KiB, one worker's %d KiB and %d KiB more", four>>10, one>>10, 4*perWorker>>10)
	}
	if fourLarge > four+four/4 {
		t.Errorf("peak heap %d KiB at four times the rows against %d KiB", fourLarge>>10, four>>10)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("%d files left in the temporary directory", len(left))
	}
}
