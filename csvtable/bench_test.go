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
	"strconv"
	"testing"

	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/memtest"
	"github.com/trevni-go/trevni/shred"
)

// writeSampleLike writes a CSV of rows rows with the sample's six columns:
// id, name, age, salary, email, city.
func writeSampleLike(w io.Writer, rows int, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, 1))
	first := []string{"Catlee", "Lazarus", "Ward", "Philbert", "Melinde", "Marion", "Jobina", "Zsa zsa", "Clare", "Đông"}
	last := []string{"Haswall", "Brasseur", "Smooth", "Garvin", "O'Kane", "Selesnick", "Entwistle", "de Guerre"}
	cities := []string{"Novolugovoye", "Pau", "Mitry-Mory", "Escazú", "Gračec", "San José", "Mölndal", "Ust’-Kalmanka", "Thị Trấn Thuận Châu", "Bueng Khong Long"}
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString("id,name,age,salary,email,city\n")
	var b []byte
	for i := 1; i <= rows; i++ {
		fn, ln := first[r.IntN(len(first))], last[r.IntN(len(last))]
		b = strconv.AppendInt(b[:0], int64(i), 10)
		b = append(b, ',')
		b = append(b, fn...)
		b = append(b, ' ')
		b = append(b, ln...)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(18+r.IntN(73)), 10)
		b = append(b, ',')
		b = strconv.AppendFloat(b, float64(3000000+r.IntN(12000000))/100, 'f', -1, 64)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r.Uint32()), 36)
		b = append(b, "@example.com,"...)
		b = append(b, cities[r.IntN(len(cities))]...)
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// sampleLikeFile writes a CSV file of rows rows in tb's temporary
// directory, which the testing package removes when tb ends.
func sampleLikeFile(tb testing.TB, rows int) string {
	p := filepath.Join(tb.TempDir(), fmt.Sprintf("sample-%d.csv", rows))
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	if err := writeSampleLike(f, rows, 1); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return p
}

// convertFile converts a CSV file (types inferred in a first pass) to
// Trevni or CLMN at out.
func convertFile(in, out string, toCLMN bool, memory int64) (int64, error) {
	return convertFileWorkers(in, out, toCLMN, memory, 0)
}

// convertFileWorkers is convertFile on workers goroutines (0: one per
// core), the inference pass and the conversion.
func convertFileWorkers(in, out string, toCLMN bool, memory int64, workers int) (int64, error) {
	f, err := os.Open(in)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fields, _, err := Infer(bufio.NewReaderSize(f, 1<<20), ',', &ReaderOptions{Workers: workers})
	if err != nil {
		return 0, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	src, err := NewCSVSource(bufio.NewReaderSize(f, 1<<20), fields, ',', nil)
	if err != nil {
		return 0, err
	}
	o, err := os.Create(out)
	if err != nil {
		return 0, err
	}
	defer o.Close()
	bo := bufio.NewWriterSize(o, 1<<20)
	var sink Sink
	if toCLMN {
		sink, err = NewCLMNSink(bo, ForCLMN(fields), &clmn.WriterOptions{TempDir: filepath.Dir(out)})
	} else {
		sink, err = NewTrevniSink(bo, fields, &shred.Options{Workers: workers, WriterOptions: format.WriterOptions{Codec: "deflate", Checksum: "crc32", MemoryBudget: memory, TempDir: filepath.Dir(out)}})
	}
	if err != nil {
		return 0, err
	}
	rows, err := Copy(context.Background(), sink, src, nil)
	if err != nil {
		return rows, err
	}
	return rows, bo.Flush()
}

func benchConvert(b *testing.B, toCLMN bool) {
	in := sampleLikeFile(b, 1_000_000)
	fi, _ := os.Stat(in)
	out := filepath.Join(b.TempDir(), "out")
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := convertFile(in, out, toCLMN, 8<<20); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCSVToTrevniWorkers converts a CSV of 200,000 rows of the
// sample's six columns to Trevni as BenchmarkCSVToTrevni does, on 1 and 2
// workers (both passes); MB/s of CSV.
func BenchmarkCSVToTrevniWorkers(b *testing.B) {
	in := sampleLikeFile(b, 200_000)
	fi, _ := os.Stat(in)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			out := filepath.Join(b.TempDir(), "out")
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			for b.Loop() {
				if _, err := convertFileWorkers(in, out, false, 8<<20, workers); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCSVToTrevni converts a CSV of a million rows of the sample's six
// columns to Trevni (deflate, crc32): inference pass and conversion; MB/s of
// CSV.
func BenchmarkCSVToTrevni(b *testing.B) { benchConvert(b, false) }

// BenchmarkCSVToCLMN is the same to CLMN.
func BenchmarkCSVToCLMN(b *testing.B) { benchConvert(b, true) }

func benchRead2(b *testing.B, toCLMN bool) {
	in := sampleLikeFile(b, 1_000_000)
	out := filepath.Join(b.TempDir(), "t")
	if _, err := convertFile(in, out, toCLMN, 8<<20); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var src Source
		if toCLMN {
			rd, err := clmn.NewReader(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				b.Fatal(err)
			}
			src, err = NewCLMNSource(rd, []string{"salary", "city"})
			if err != nil {
				b.Fatal(err)
			}
		} else {
			rd, err := format.NewReader(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				b.Fatal(err)
			}
			src, err = NewTrevniSource(rd, []string{"salary", "city"})
			if err != nil {
				b.Fatal(err)
			}
		}
		cells := make([]Cell, 2)
		n := 0
		for {
			err := src.Next(cells)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 1_000_000 {
			b.Fatalf("%d rows", n)
		}
	}
}

// BenchmarkRead2of6Trevni reads two of the six columns (salary, city) of a
// million rows from Trevni; MB/s of the whole file.
func BenchmarkRead2of6Trevni(b *testing.B) { benchRead2(b, false) }

// BenchmarkRead2of6CLMN is the same from CLMN.
func BenchmarkRead2of6CLMN(b *testing.B) { benchRead2(b, true) }

// The conversions' memory does not grow with the row count: eight times the
// rows take about the same peak heap.
func TestPeakMemoryIndependentOfRows(t *testing.T) {
	dir := t.TempDir()
	ins := []string{sampleLikeFile(t, 50_000), sampleLikeFile(t, 400_000)}
	for _, toCLMN := range []bool{false, true} {
		// The bound is judged on the least peaks of up to three
		// measurements of each conversion (memtest.Retry): garbage not yet
		// collected only ever adds to a sample, and a loaded machine
		// leaves more of it.
		least := memtest.Least{}
		peaks := make([]uint64, len(ins))
		memtest.Retry(3, func() bool {
			for i, in := range ins {
				peak, err := least.PeakHeap(in, func() error {
					_, err := convertFile(in, filepath.Join(dir, "out"), toCLMN, 2<<20)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				peaks[i] = peak
			}
			return peaks[1] <= 2*peaks[0]
		})
		t.Logf("CLMN %v: peak heap %d MB at 50,000 rows, %d MB at 400,000", toCLMN, peaks[0]>>20, peaks[1]>>20)
		// Growing with the rows would take about eight times as much.
		if peaks[1] > 2*peaks[0] {
			t.Errorf("CLMN %v: peak heap %d bytes at 400,000 rows against %d at 50,000", toCLMN, peaks[1], peaks[0])
		}
	}
}
