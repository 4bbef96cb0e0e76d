package trevni1

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/trevni-go/trevni/internal/testing/memtest"
)

var spillCols = []ColumnSpec{
	{Name: "id", Type: Long, MaxDef: 1},
	{Name: "name", Type: String, MaxDef: 1},
	{Name: "score", Type: Double, MaxDef: 1},
	{Name: "ok", Type: Boolean, MaxDef: 1},
}

// writeSpillRows writes rows random rows (seeded) with opts to out.
func writeSpillRows(out io.Writer, rows int, opts *WriterOptions) error {
	w, err := NewWriter(out, spillCols, opts)
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(1, 2))
	name := make([]byte, 0, 40)
	for i := range rows {
		name = name[:0]
		for range r.IntN(30) {
			name = append(name, byte('a'+r.IntN(26)))
		}
		var score any = r.Float64()
		if r.IntN(7) == 0 {
			score = nil
		}
		if err := w.WriteRow(int64(i)*r.Int64N(1000), name, score, i%3 == 0); err != nil {
			w.Abort()
			return err
		}
	}
	return w.Close()
}

// spillFiles returns the names in dir.
func spillFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// Spilling changes where finished blocks wait, not the file: the bytes are
// those of a writer that never spills, for every codec and with checksums.
func TestSpillByteIdentical(t *testing.T) {
	for _, codec := range []string{"", CodecDeflate, CodecSnappy, CodecGzip} {
		for _, bs := range []int{0, 512} {
			t.Run(fmt.Sprintf("%s/%d", codec, bs), func(t *testing.T) {
				dir := t.TempDir()
				var mem, again bytes.Buffer
				base := WriterOptions{Codec: codec, Checksum: ChecksumCRC32, BlockSize: bs, TempDir: dir}
				o := base
				o.MemoryBudget = -1
				if err := writeSpillRows(&mem, 20000, &o); err != nil {
					t.Fatal(err)
				}
				o = base
				o.MemoryBudget = 1 // every finished block spills
				if err := writeSpillRows(&again, 20000, &o); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(mem.Bytes(), again.Bytes()) {
					t.Fatalf("spilled file of %d bytes differs from the in-memory one of %d", again.Len(), mem.Len())
				}
				if n := spillFiles(t, dir); len(n) != 0 {
					t.Fatalf("left behind: %v", n)
				}
				rd, err := NewReader(bytes.NewReader(again.Bytes()), int64(again.Len()), nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := rd.Verify(); err != nil {
					t.Fatal(err)
				}
				if rd.RowCount() != 20000 {
					t.Fatalf("%d rows", rd.RowCount())
				}
			})
		}
	}
}

// The spill file exists while blocks wait in it, and is removed by Close,
// by Abort and after an error.
func TestSpillFileRemoved(t *testing.T) {
	for _, end := range []string{"close", "abort", "misuse", "output"} {
		t.Run(end, func(t *testing.T) {
			dir := t.TempDir()
			var out io.Writer = io.Discard
			if end == "output" {
				out = failWriter{}
			}
			w, err := NewWriter(out, spillCols, &WriterOptions{MemoryBudget: 1, TempDir: dir, BlockSize: 256})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 5000 {
				if err := w.WriteRow(int64(i), "some text", 1.5, true); err != nil {
					t.Fatal(err)
				}
			}
			if n := spillFiles(t, dir); len(n) != 1 {
				t.Fatalf("spill files while writing: %v", n)
			}
			switch end {
			case "close":
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
			case "abort":
				w.Abort()
				if err := w.Close(); err == nil {
					t.Fatal("Close after Abort succeeded")
				}
			case "misuse":
				w.Int(0, 0, 1) // a row left open
				if err := w.Close(); !errors.Is(err, ErrUsage) {
					t.Fatalf("Close inside a row: %v", err)
				}
			case "output":
				if err := w.Close(); err == nil {
					t.Fatal("Close to a failing output succeeded")
				}
			}
			if n := spillFiles(t, dir); len(n) != 0 {
				t.Fatalf("left behind after %s: %v", end, n)
			}
		})
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// With a memory budget, the writer's peak heap does not grow with the rows:
// eight times the rows (some 30 MB of blocks) take about the same.
func TestSpillPeakMemoryIndependentOfRows(t *testing.T) {
	dir := t.TempDir()
	// The bound is judged on the least peaks of up to three measurements
	// of each write (memtest.Retry): garbage not yet collected only ever
	// adds to a sample, and a loaded machine leaves more of it.
	least := memtest.Least{}
	rows := []int{100_000, 800_000}
	peaks := make([]uint64, len(rows))
	memtest.Retry(3, func() bool {
		for i, n := range rows {
			peak, err := least.PeakHeap(fmt.Sprint(n), func() error {
				return writeSpillRows(io.Discard, n, &WriterOptions{MemoryBudget: 1 << 20, TempDir: dir})
			})
			if err != nil {
				t.Fatal(err)
			}
			peaks[i] = peak
		}
		return peaks[1] <= 2*peaks[0]
	})
	t.Logf("peak heap %d KB at 100,000 rows, %d KB at 800,000", peaks[0]>>10, peaks[1]>>10)
	if peaks[1] > 2*peaks[0] {
		t.Errorf("peak heap %d bytes at 800,000 rows against %d at 100,000", peaks[1], peaks[0])
	}
	if n := spillFiles(t, dir); len(n) != 0 {
		t.Fatalf("left behind: %v", n)
	}
}
