package csvtable

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/rowtasks"
	"github.com/trevni-go/trevni/internal/testing/memtest"
	"github.com/trevni-go/trevni/shred"
)

// Random flat tables written as Trevni files of small blocks, some with a
// damaged block: WriteTrevniCSV on 2, 3 and 7 workers, with tasks of a few
// rows, writes byte for byte what Copy into a CSV sink writes, or stops
// with the same error after the same rows.
func TestWriteTrevniCSVWorkers(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 2))
	damaged := 0
	for iter := range 40 {
		table := randomCSV(r)
		for len(table) > 1 && len(table) < 300 {
			table = append(table, table[1+r.IntN(len(table)-1)])
		}
		text := quoteAll(table)
		fields, _, err := Infer(strings.NewReader(text), ',', nil)
		if err != nil {
			t.Fatal(err)
		}
		data := toTrevni(t, text, fields)
		if iter%2 == 1 {
			rd, err := format.NewReader(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				t.Fatal(err)
			}
			col := r.IntN(rd.NumColumns())
			if bs, _ := rd.Blocks(col); len(bs) > 0 {
				b := bs[r.IntN(len(bs))]
				data = bytes.Clone(data)
				data[b.Offset+int64(b.CompressedSize)/2] ^= 0x20
			}
		}
		want, wantErr := trevniToCSV(t, data, nil)
		if wantErr != nil {
			damaged++
		}
		for _, w := range []int{2, 3, 7} {
			rd, err := format.NewReader(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			_, err = WriteTrevniCSV(context.Background(), &out, rd, nil, ',', &ParallelOptions{Workers: w, taskRows: 1 + r.Int64N(30)})
			if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
				t.Fatalf("iter %d, %d workers: error %v, want %v", iter, w, err, wantErr)
			}
			// Copy leaves what its sink holds unwritten on an error;
			// the workers write every row before the bad one.
			if got := out.String(); got != want && (wantErr == nil || !strings.HasPrefix(got, want)) {
				t.Fatalf("iter %d, %d workers: output differs\n got %q\nwant %q", iter, w, got, want)
			}
		}
	}
	if damaged == 0 {
		t.Fatal("no damaged file failed")
	}
}

// sampleLikeTrevni returns a Trevni file of the sample-like table of rows
// rows (writeSampleLike), written with blocks of blockSize bytes, in the
// test's temporary directory.
func sampleLikeTrevni(t *testing.T, rows, blockSize int) string {
	t.Helper()
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "sample.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := writeSampleLike(f, rows, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	fields, _, err := Infer(bufio.NewReader(f), ',', nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	src, err := NewCSVSource(bufio.NewReader(f), fields, ',', nil)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "sample.trv")
	o, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	bo := bufio.NewWriter(o)
	sink, err := NewTrevniSink(bo, fields, &shred.Options{WriterOptions: format.WriterOptions{Codec: "snappy", BlockSize: blockSize, TempDir: filepath.Dir(out)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Copy(context.Background(), sink, src, nil); err != nil {
		t.Fatal(err)
	}
	if err := bo.Flush(); err != nil {
		t.Fatal(err)
	}
	return out
}

// writeCSVFile writes the Trevni file at path as CSV (the fields of sel)
// to w with WriteTrevniCSV and opts.
func writeCSVFile(path string, w io.Writer, sel []string, opts *ParallelOptions) (int64, error) {
	rc, err := format.Open(path)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	return WriteTrevniCSV(context.Background(), w, rc.Reader, sel, ',', opts)
}

// The sample-like table in small blocks, written on 2 and 3 workers whose
// tasks are sized by OutputMemory alone, from the least it allows to the
// default, with all its fields or some: byte for byte one worker's
// output, with the same row count.
func TestWriteTrevniCSVOutputMemory(t *testing.T) {
	path := sampleLikeTrevni(t, 20_000, 4096)
	for _, sel := range [][]string{nil, {"city", "id", "salary"}} {
		var want bytes.Buffer
		n, err := writeCSVFile(path, &want, sel, nil)
		if err != nil || n != 20_000 {
			t.Fatalf("one worker: %d rows, %v", n, err)
		}
		for _, w := range []int{2, 3} {
			for _, memory := range []int64{1, 100 << 10, 0} {
				var got bytes.Buffer
				n, err := writeCSVFile(path, &got, sel, &ParallelOptions{Workers: w, OutputMemory: memory})
				if err != nil || n != 20_000 {
					t.Fatalf("%v, %d workers, OutputMemory %d: %d rows, %v", sel, w, memory, n, err)
				}
				if !bytes.Equal(got.Bytes(), want.Bytes()) {
					t.Fatalf("%v, %d workers, OutputMemory %d: output differs (%d bytes, want %d)", sel, w, memory, got.Len(), want.Len())
				}
			}
		}
	}
}

// WriteTrevniCSV on two workers holds about what OutputMemory and each
// worker's reader take, whatever the row count: eight times the rows take
// about the same peak heap, within the bound, and the least OutputMemory
// takes less; the default, which lets a large task hold more, stays
// within its own bound.
func TestWriteTrevniCSVPeakMemory(t *testing.T) {
	least := memtest.Least{}
	peak := func(path string, memory int64) uint64 {
		p, err := least.PeakHeap(fmt.Sprint(path, memory), func() error {
			_, err := writeCSVFile(path, io.Discard, nil, &ParallelOptions{Workers: 2, OutputMemory: memory})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	const memory = 3 << 20
	small, large := sampleLikeTrevni(t, 100_000, 64<<10), sampleLikeTrevni(t, 800_000, 64<<10)
	// Three readers (the first task's and each worker's) of six columns,
	// each column's block buffers about 220 KiB at most, and 512 KiB of
	// the rest (the writer's buffer, a task's cells, the heap's samples
	// catching garbage).
	const readers = 3*6*(220<<10) + 512<<10
	// Each bound is judged on the least peaks of up to three measurements
	// of each write (memtest.Retry): garbage not yet collected only ever
	// adds to a sample, and a loaded machine leaves more of it.
	var one, eight, lowest, def uint64
	memtest.Retry(3, func() bool {
		one, eight, lowest, def = peak(small, memory), peak(large, memory), peak(large, 1), peak(large, 0)
		return eight <= one+one/2 && eight <= memory+readers && lowest < eight && def <= memory+rowtasks.MaxDeepOutput+readers
	})
	t.Logf("peak heap on two workers, OutputMemory 3 MiB: %d KiB at 100,000 rows, %d KiB at 800,000; the least OutputMemory %d KiB; the default %d KiB", one>>10, eight>>10, lowest>>10, def>>10)
	// Growing with the rows would take about eight times as much.
	if eight > one+one/2 {
		t.Errorf("peak heap %d KiB at 800,000 rows against %d KiB at 100,000", eight>>10, one>>10)
	}
	if eight > memory+readers {
		t.Errorf("peak heap %d KiB, more than %d KiB", eight>>10, (memory+readers)>>10)
	}
	if lowest >= eight {
		t.Errorf("peak heap %d KiB with the least OutputMemory, %d KiB with 3 MiB", lowest>>10, eight>>10)
	}
	// The default: 3 MiB, and besides it a task that must be large may
	// hold half its output, up to 8 MiB.
	if def > memory+rowtasks.MaxDeepOutput+readers {
		t.Errorf("peak heap %d KiB with the default OutputMemory", def>>10)
	}
}
