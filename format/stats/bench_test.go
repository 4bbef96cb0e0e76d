package stats_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

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
