package clmn

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// fixedValues returns n big-endian values of width w, drawn to cover every
// varint length, the extremes among them.
func fixedValues(r *rand.Rand, w, n int) []byte {
	b := make([]byte, 0, w*n)
	for i := range n {
		u := r.Uint64() >> r.IntN(64)
		switch i % 7 {
		case 0:
			u = math.MaxUint64
		case 1:
			u = 1 << 63
		case 2:
			u = 0
		}
		if w == 4 {
			b = binary.BigEndian.AppendUint32(b, uint32(u))
		} else {
			b = binary.BigEndian.AppendUint64(b, u)
		}
	}
	return b
}

// TestAppendFixedAsEncodingBinary checks the Trevni 2 encoding of CLMN's
// big-endian values against encoding/binary's zig-zag varints and
// little-endian words, appended after bytes already there.
func TestAppendFixedAsEncodingBinary(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 7, 100, 1000} {
		for _, typ := range []Type{Int32, Int64, Float64} {
			w := int(typ.width())
			b := fixedValues(r, w, n)
			var want []byte
			for i := 0; i < n; i++ {
				switch typ {
				case Int32:
					want = binary.AppendVarint(want, int64(int32(binary.BigEndian.Uint32(b[4*i:]))))
				case Int64:
					want = binary.AppendVarint(want, int64(binary.BigEndian.Uint64(b[8*i:])))
				case Float64:
					want = binary.LittleEndian.AppendUint64(want, binary.BigEndian.Uint64(b[8*i:]))
				}
			}
			prefix := []byte{1, 2, 3}
			got := appendFixed(prefix[:3:3], typ, b)
			if !bytes.Equal(got[:3], prefix) || !bytes.Equal(got[3:], want) {
				t.Fatalf("%s, %d values: % x, want % x", typ, n, got[3:], want)
			}
		}
	}
}

// BenchmarkAppendFixed re-encodes 4,096 values of each fixed-size type.
func BenchmarkAppendFixed(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, typ := range []Type{Int32, Int64, Float64} {
		src := fixedValues(r, int(typ.width()), 4096)
		dst := make([]byte, 0, 10*4096)
		b.Run(typ.String(), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				dst = appendFixed(dst[:0], typ, src)
			}
		})
	}
}
