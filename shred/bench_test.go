package shred

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/ocf"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/internal/testing/longtest"
	"github.com/trevni-go/trevni/internal/testing/veclarge"
	"github.com/trevni-go/trevni/schema"
)

// deepSchema nests records in arrays in maps in unions, five levels deep.
const deepSchema = `{"type":"record","name":"Deep","namespace":"bench","fields":[
	{"name":"id","type":"long"},
	{"name":"u","type":["null",{"type":"map","values":{"type":"array","items":{"type":"record","name":"L1","fields":[
		{"name":"a","type":"int"},
		{"name":"s","type":"string"},
		{"name":"kids","type":{"type":"array","items":{"type":"record","name":"L2","fields":[
			{"name":"x","type":"double"},
			{"name":"tag","type":["null","string",{"type":"record","name":"L3","fields":[
				{"name":"m","type":{"type":"map","values":"long"}},
				{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}}]}]}]}}}]}}}]},
	{"name":"tail","type":{"type":"array","items":"float"}}]}`

// benchData is a set of records, in Avro binary.
type benchData struct {
	name   string
	schema string
	recs   [][]byte
	size   int64 // bytes of Avro binary
}

// benchSets returns the interop medium records and deterministic deep
// records of about the same size.
func benchSets(b testing.TB) []*benchData {
	f, err := os.Open(filepath.Join(interopDir, "medium", "input.avro"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	r, err := ocf.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	medium := &benchData{name: "medium", schema: r.Schema()}
	codec, err := goavro.NewCodec(r.Schema())
	if err != nil {
		b.Fatal(err)
	}
	for {
		count, data, err := r.NextBlock()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		for ; count > 0; count-- {
			_, rest, err := codec.NativeFromBinary(data)
			if err != nil {
				b.Fatal(err)
			}
			medium.recs = append(medium.recs, bytes.Clone(data[:len(data)-len(rest)])) // the reader reuses its block buffer
			data = rest
		}
	}
	deep := &benchData{name: "deep", schema: deepSchema}
	s := schema.MustParse(deepSchema)
	codec, err = goavro.NewCodec(deepSchema)
	if err != nil {
		b.Fatal(err)
	}
	g := avrorand.New(42, avrorand.Options{MaxLen: 4})
	for deep.size < 2<<20 {
		rec, err := codec.BinaryFromNative(nil, g.Value(s))
		if err != nil {
			b.Fatal(err)
		}
		deep.recs = append(deep.recs, rec)
		deep.size += int64(len(rec))
	}
	for _, r := range medium.recs {
		medium.size += int64(len(r))
	}
	return []*benchData{medium, deep, largeSet(2 << 20)}
}

// largeSet returns about size bytes of deterministic vec.Large records,
// drawn as bench/peerbench/genlarge draws them (internal/testing/veclarge).
func largeSet(size int64) *benchData {
	d := &benchData{name: "large", schema: veclarge.Schema}
	g := veclarge.New()
	for i := 0; d.size < size; i++ {
		b := g.Append(nil, i)
		d.recs = append(d.recs, b)
		d.size += int64(len(b))
	}
	return d
}

// container returns the records as an Avro object container file.
func (d *benchData) container(b testing.TB, codec string) []byte {
	var buf bytes.Buffer
	w, err := ocf.NewWriter(&buf, d.schema, ocf.WriterOptions{Codec: codec, SyncMarker: [16]byte{1}})
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range d.recs {
		if err := w.Append(r); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// reportRows reports the rows written per second.
func reportRows(b *testing.B, rows int) {
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkFromAvro converts an Avro container file to Trevni through the
// fast path (FromContainer, which decodes the binary straight into the
// columns) and the generic one (goavro's NativeFromBinary, then Write).
// The codec is both the container's and the Trevni file's.
func BenchmarkFromAvro(b *testing.B) {
	for _, d := range benchSets(b) {
		for _, codec := range []string{"null", "deflate"} {
			in := d.container(b, codec)
			opts := &Options{WriterOptions: format.WriterOptions{Codec: codec}}
			b.Run(d.name+"/"+codec+"/fast", func(b *testing.B) {
				b.SetBytes(d.size)
				b.ReportAllocs()
				for b.Loop() {
					n, err := FromContainer(context.Background(), io.Discard, bytes.NewReader(in), opts)
					if err != nil || n != int64(len(d.recs)) {
						b.Fatalf("%d rows: %v", n, err)
					}
				}
				reportRows(b, len(d.recs))
			})
			b.Run(d.name+"/"+codec+"/generic", func(b *testing.B) {
				b.SetBytes(d.size)
				b.ReportAllocs()
				codec, err := goavro.NewCodec(d.schema)
				if err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					r, err := ocf.NewReader(bytes.NewReader(in))
					if err != nil {
						b.Fatal(err)
					}
					aw, err := NewAvroWriter(io.Discard, r.Schema(), opts)
					if err != nil {
						b.Fatal(err)
					}
					for {
						count, data, err := r.NextBlock()
						if err == io.EOF {
							break
						}
						if err != nil {
							b.Fatal(err)
						}
						for ; count > 0; count-- {
							v, rest, err := codec.NativeFromBinary(data)
							if err != nil {
								b.Fatal(err)
							}
							data = rest
							if err := aw.Write(v); err != nil {
								b.Fatal(err)
							}
						}
					}
					if err := aw.Close(); err != nil {
						b.Fatal(err)
					}
				}
				reportRows(b, len(d.recs))
			})
		}
	}
}

// BenchmarkFromAvroWorkers converts the snappy container of each set to
// a snappy Trevni file on 1, 2 and 4 workers (Options.Workers): the
// parallel path's throughput and allocations against the sequential one.
func BenchmarkFromAvroWorkers(b *testing.B) {
	for _, d := range benchSets(b) {
		in := d.container(b, "snappy")
		for _, workers := range []int{1, 2, 4} {
			opts := &Options{WriterOptions: format.WriterOptions{Codec: "snappy"}, Workers: workers}
			b.Run(fmt.Sprintf("%s/workers=%d", d.name, workers), func(b *testing.B) {
				b.SetBytes(d.size)
				b.ReportAllocs()
				for b.Loop() {
					n, err := FromContainer(context.Background(), io.Discard, bytes.NewReader(in), opts)
					if err != nil || n != int64(len(d.recs)) {
						b.Fatalf("%d rows: %v", n, err)
					}
				}
				reportRows(b, len(d.recs))
			})
		}
	}
}

// BenchmarkWrite measures the shredding alone, on one goroutine with the
// null codec: WriteBinary of each record's Avro binary (binary), and Write
// of the same records already decoded by goavro (values).
func BenchmarkWrite(b *testing.B) {
	for _, d := range benchSets(b) {
		codec, err := goavro.NewCodec(d.schema)
		if err != nil {
			b.Fatal(err)
		}
		values := make([]any, len(d.recs))
		for i, r := range d.recs {
			if values[i], _, err = codec.NativeFromBinary(r); err != nil {
				b.Fatal(err)
			}
		}
		opts := &Options{WriterOptions: format.WriterOptions{Codec: "null", Concurrency: 1}}
		run := func(b *testing.B, write func(aw *AvroWriter, i int) error) {
			b.SetBytes(d.size)
			b.ReportAllocs()
			for b.Loop() {
				aw, err := NewAvroWriter(io.Discard, d.schema, opts)
				if err != nil {
					b.Fatal(err)
				}
				for i := range d.recs {
					if err := write(aw, i); err != nil {
						b.Fatal(err)
					}
				}
				aw.Abort()
			}
			reportRows(b, len(d.recs))
		}
		b.Run(d.name+"/binary", func(b *testing.B) {
			run(b, func(aw *AvroWriter, i int) error { return aw.WriteBinary(d.recs[i]) })
		})
		b.Run(d.name+"/values", func(b *testing.B) {
			run(b, func(aw *AvroWriter, i int) error { return aw.Write(values[i]) })
		})
	}
}

// TestWriteBinaryAllocs checks the fast path's promise of no allocation
// per value, for records with maps: the decoder reads each map entry's
// value where the entry starts, after sorting the entries by key.
func TestWriteBinaryAllocs(t *testing.T) {
	const text = `{"type":"record","name":"M","fields":[
		{"name":"m","type":{"type":"map","values":"long"}},
		{"name":"a","type":{"type":"array","items":{"type":"record","name":"P","fields":[{"name":"x","type":"int"}]}}}]}`
	codec, err := goavro.NewCodec(text)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	for i := range 16 {
		m[string(rune('a'+i))] = int64(i)
	}
	rec, err := codec.BinaryFromNative(nil, map[string]any{"m": m, "a": []any{map[string]any{"x": 1}, map[string]any{"x": 2}}})
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewAvroWriter(io.Discard, text, &Options{WriterOptions: format.WriterOptions{Concurrency: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	write := func() {
		if err := w.WriteBinary(rec); err != nil {
			t.Fatal(err)
		}
	}
	write() // the scratch space for map entries grows once
	if allocs := testing.AllocsPerRun(200, write); allocs >= 1 {
		t.Errorf("WriteBinary of a record with a 16-entry map allocates %v times", allocs)
	}
}

// peakHeap samples the heap in use until stopped and returns the most seen.
func peakHeap() (stop func() uint64) {
	done := make(chan struct{})
	var peak uint64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// TestMemoryBudget writes 200 MiB of Avro records through WriteBinary with
// an 8 MiB memory budget and checks that the heap in use stays within the
// budget plus a fixed overhead: finished blocks past the budget spill to
// disk. The overhead is the columns' current block buffers (two of 64 KiB
// each), the 25% headroom of every block buffer (the budget counts a
// block's bytes, not its buffer's capacity: BlockSize*5/4), and a few MiB
// (the spill file's 1 MiB write buffer, the collector's slack).
func TestMemoryBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("converts 200 MiB")
	}
	const (
		budget   = 8 << 20
		fixedMiB = 4
	)
	// The default form converts 64 MiB, eight times the budget; the long
	// form (see LongRounds) 200 MiB, which shows a slow growth better.
	input := int64(longtest.Rounds(64, 200)) << 20
	d := benchSets(t)[0]
	w, err := NewAvroWriter(io.Discard, d.schema, &Options{WriterOptions: format.WriterOptions{Codec: "null", MemoryBudget: budget, TempDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	// Collect often, so that the heap in use is what the writer keeps
	// rather than garbage the collector's pacing lets pile up (with the
	// default GOGC=100, up to as much again as is live).
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	stop := peakHeap()
	start := time.Now()
	var written int64
	for i := 0; written < input; i++ {
		rec := d.recs[i%len(d.recs)]
		if err := w.WriteBinary(rec); err != nil {
			t.Fatal(err)
		}
		written += int64(len(rec))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	peak := stop()
	runtime.ReadMemStats(&after)

	overhead := uint64(2*(64<<10)*len(w.Columns()) + budget/4 + fixedMiB<<20)
	grew := peak - min(peak, before.HeapInuse)
	t.Logf("%d MiB in %d rows, %d columns, in %v (%.0f MB/s): heap in use %.1f MiB before, peak %.1f MiB (+%.1f MiB); allowed +%.1f MiB (budget %d MiB + %.1f MiB); %.1f MiB allocated in all (GOGC=10)",
		written>>20, w.RowCount(), len(w.Columns()), elapsed.Round(time.Millisecond), float64(written)/1e6/elapsed.Seconds(),
		mib(before.HeapInuse), mib(peak), mib(grew), mib(budget+overhead), budget>>20, mib(overhead),
		mib(after.TotalAlloc-before.TotalAlloc))
	if grew > budget+overhead {
		t.Errorf("heap grew by %.1f MiB, more than the %d MiB budget + %.1f MiB", mib(grew), budget>>20, mib(overhead))
	}
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }
