package trevniio

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
)

// benchParts and benchRowsPerPart size the data set of the benchmarks: 8
// parts, as a data set made by a job of 8 tasks.
const (
	benchParts       = 8
	benchRowsPerPart = 50_000
)

var (
	benchOnce sync.Once
	benchDir  string
)

// benchSet writes the data set once per test binary.
func benchSet(b *testing.B) string {
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "trevniio-bench")
		if err != nil {
			b.Fatal(err)
		}
		sizes := make([]int64, benchParts)
		for i := range sizes {
			sizes[i] = benchRowsPerPart
		}
		makeSet(b, dir, sizes...)
		benchDir = dir
	})
	return benchDir
}

// BenchmarkReadPipeline reads the 8 parts through Read on the local
// runner, split into restrictions of 10,000 rows, and counts the records.
func BenchmarkReadPipeline(b *testing.B) {
	dir := benchSet(b)
	b.ResetTimer()
	for range b.N {
		p, s := beam.NewPipelineWithRoot()
		recs := Read(s, filepath.Join(dir, "*.trv"), &ReadOptions{SplitRows: 10_000})
		passert.Count(s, recs, "records", benchParts*benchRowsPerPart)
		if err := ptest.Run(p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchParts*benchRowsPerPart*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkReadSequential reads the same parts one after the other in this
// process with assemble.AvroReader.ReadBinary.
func BenchmarkReadSequential(b *testing.B) {
	dir := benchSet(b)
	names, err := Expand(filepath.Join(dir, "*.trv"))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		rows := 0
		var buf []byte
		for _, n := range names {
			f, err := os.Open(n)
			if err != nil {
				b.Fatal(err)
			}
			st, _ := f.Stat()
			rd, err := format.NewReader(f, st.Size(), nil)
			if err != nil {
				b.Fatal(err)
			}
			ar, err := assemble.NewAvroReader(rd, nil)
			if err != nil {
				b.Fatal(err)
			}
			for {
				if buf, err = ar.ReadBinary(buf[:0]); err != nil {
					break
				}
				rows++
			}
			f.Close()
		}
		if rows != benchParts*benchRowsPerPart {
			b.Fatalf("read %d rows", rows)
		}
	}
	b.ReportMetric(float64(benchParts*benchRowsPerPart*b.N)/b.Elapsed().Seconds(), "rows/s")
}
