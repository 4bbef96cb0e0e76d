package format

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// varintShapes are the columns of ints and longs the block decoders are
// measured on, a 64 KiB block of each: vec.Large's id (i*7919 less up to
// 999: five bytes a value) and small (-500 to 499: one or two bytes),
// values of one byte, longs of any length (one to ten bytes), random longs
// (nine or ten), ints of three bytes, of two or three (half each), and of
// five.
var varintShapes = []struct {
	name string
	long bool
	draw func(r *rand.Rand, i int) int64
}{
	{"id", true, func(r *rand.Rand, i int) int64 { return int64(i+200_000)*7919 - int64(r.IntN(1000)) }},
	{"small", false, func(r *rand.Rand, _ int) int64 { return int64(r.IntN(1000) - 500) }},
	{"onebyte", false, func(r *rand.Rand, _ int) int64 { return int64(r.IntN(128) - 64) }},
	{"anylength", true, func(r *rand.Rand, _ int) int64 { return r.Int64() >> r.IntN(64) }},
	{"random", true, func(r *rand.Rand, _ int) int64 { return int64(r.Uint64()) }},
	{"int3", false, func(r *rand.Rand, _ int) int64 { return int64(r.IntN(100000)) }},
	{"int2or3", false, func(r *rand.Rand, _ int) int64 { return int64(r.IntN(16000) - 8000) }},
	{"int5", false, func(r *rand.Rand, _ int) int64 { return int64(r.Int32()) }},
}

// varintBlock returns a block of about size bytes of the zig-zag varints
// of shape's values, and how many values it holds.
func varintBlock(shape int, size int) ([]byte, int) {
	r := rand.New(rand.NewPCG(uint64(shape), 9))
	var b []byte
	n := 0
	for len(b) < size {
		b = binary.AppendVarint(b, varintShapes[shape].draw(r, n))
		n++
	}
	return b, n
}

// BenchmarkDecodeVarintBlock decodes whole 64 KiB blocks of ints and
// longs as ReadInts and ReadLongs do (decodeInts and decodeLongs, the
// single-value reads where they stop), 4096 values a call. MB/s counts
// the block's bytes.
func BenchmarkDecodeVarintBlock(b *testing.B) {
	for s, shape := range varintShapes {
		b.Run(shape.name, func(b *testing.B) {
			block, n := varintBlock(s, 64<<10)
			longs, ints := make([]int64, 4096), make([]int32, 4096)
			b.SetBytes(int64(len(block)))
			b.ReportAllocs()
			d := decoder{b: block}
			for b.Loop() {
				d.pos = 0
				for left := n; left > 0; {
					k := min(left, 4096)
					var err error
					if shape.long {
						err = decodeAll(&d, longs[:k], decodeLongs, (*decoder).readLong)
					} else {
						err = decodeAll(&d, ints[:k], decodeInts, (*decoder).readInt)
					}
					if err != nil {
						b.Fatal(err)
					}
					left -= k
				}
				if d.pos != len(block) {
					b.Fatalf("decoded %d of %d bytes", d.pos, len(block))
				}
			}
		})
	}
}

// decodeAll fills out from d as readVarints does within a block: the
// batch decoder, and the single-value read where it stops.
func decodeAll[T int32 | int64](d *decoder, out []T, batch func([]byte, int, []T) (int, int), one func(*decoder) (T, error)) error {
	for i := 0; i < len(out); {
		var k int
		d.pos, k = batch(d.b, d.pos, out[i:])
		if i += k; i == len(out) {
			break
		}
		v, err := one(d)
		if err != nil {
			return err
		}
		out[i] = v
		i++
	}
	return nil
}
