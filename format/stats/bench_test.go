package stats_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/format/stats"
)

// BenchmarkAdd measures the per-value cost of gathering statistics, which a
// writer pays for every value it writes: ns/op is per value, and allocs/op
// must be 0. MB/s counts 8 bytes per long or double and the bytes of each
// string.
func BenchmarkAdd(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	longs := make([]int64, 4096)
	doubles := make([]float64, 4096)
	strs := make([]string, 4096)
	bs := make([][]byte, 4096)
	size := 0
	for i := range longs {
		longs[i] = r.Int64N(1 << 40)
		doubles[i] = r.NormFloat64()
		strs[i] = fmt.Sprintf("customer-%08d-%s", r.IntN(1e8), "region-name-padding"[:r.IntN(19)])
		bs[i] = []byte(strs[i])
		size += len(strs[i])
	}
	run := func(name string, typ stats.Type, bytesPer int64, add func(a *stats.Accumulator, i int)) {
		b.Run(name, func(b *testing.B) {
			a, err := stats.NewAccumulator(typ, false, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(bytesPer)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				add(a, i&4095)
				if i&65535 == 65535 {
					a.EndBlock(65536)
				}
			}
		})
	}
	run("long", stats.Long, 8, func(a *stats.Accumulator, i int) { a.AddLong(longs[i]) })
	run("double", stats.Double, 8, func(a *stats.Accumulator, i int) { a.AddDouble(doubles[i]) })
	run("string", stats.String, int64(size/len(strs)), func(a *stats.Accumulator, i int) { a.AddString(strs[i]) })
	run("bytes", stats.Bytes, int64(size/len(strs)), func(a *stats.Accumulator, i int) { a.AddBytes(bs[i]) })
}

// BenchmarkWriterOverhead writes one column through format.Writer (null
// codec), with its statistics off (WriterOptions.DisableStats) and on (the
// default), to show what statistics cost a writer.
// MB/s counts 8 bytes per long and the bytes of each string.
func BenchmarkWriterOverhead(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	const rows = 1 << 16
	longs := make([]int64, rows)
	strs := make([]string, rows)
	size := 0
	for i := range longs {
		longs[i] = int64(i)*37 + r.Int64N(1000)
		strs[i] = fmt.Sprintf("customer-%08d", r.IntN(1e8))
		size += len(strs[i])
	}
	for _, typ := range []format.ValueType{format.Long, format.String} {
		for _, withStats := range []bool{false, true} {
			b.Run(fmt.Sprintf("%v/stats=%v", typ, withStats), func(b *testing.B) {
				if typ == format.Long {
					b.SetBytes(8 * rows)
				} else {
					b.SetBytes(int64(size))
				}
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					w, err := format.NewWriter(io.Discard, []format.ColumnMeta{{Name: "c", Type: typ}},
						&format.WriterOptions{Codec: "null", Checksum: "null", Concurrency: 1, DisableStats: !withStats})
					if err != nil {
						b.Fatal(err)
					}
					for j := 0; j < rows; j++ {
						w.StartRow()
						if typ == format.Long {
							w.WriteLong(0, longs[j])
						} else {
							w.WriteString(0, strs[j])
						}
						if err := w.EndRow(); err != nil {
							b.Fatal(err)
						}
					}
					if err := w.Close(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
