package shred

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// TestDecoderLong checks the decoder's varints against encoding/binary:
// every length from 1 to 10 bytes, at every distance from the end of the
// data (the 8-byte path and the byte loop), and random bytes, overlong
// and truncated ones included.
func TestDecoderLong(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	check := func(b []byte) {
		d := &decoder{b: b}
		got, err := d.long()
		want, n := binary.Varint(b)
		switch {
		case n > 0:
			if err != nil || got != want || d.pos != n {
				t.Fatalf("% x: got %d at %d (%v), want %d at %d", b, got, d.pos, err, want, n)
			}
		case n == 0 || n < -binary.MaxVarintLen64:
			// Truncated, or more than 10 bytes.
			if err == nil {
				t.Fatalf("% x: got %d, want an error", b, got)
			}
		}
		// A 10th byte above 1 (n == -10) overflows; Avro's readers drop
		// the extra bits, and either answer is taken.
	}
	for range 200000 {
		var v int64
		switch r.IntN(4) {
		case 0:
			v = int64(r.Uint64())
		case 1:
			v = int64(r.Uint64() >> r.IntN(64))
		case 2:
			v = -int64(r.Uint64() >> r.IntN(64))
		default:
			v = []int64{0, -1, 1, math.MaxInt64, math.MinInt64, 63, -64, 64, -65}[r.IntN(9)]
		}
		b := binary.AppendVarint(nil, v)
		pad := r.IntN(10)
		for range pad {
			b = append(b, byte(r.Uint32()))
		}
		check(b)
		check(b[:len(b)-pad-r.IntN(len(b)-pad)]) // truncated, or whole when 0 cut
		raw := make([]byte, r.IntN(14))
		for i := range raw {
			raw[i] = byte(r.Uint32()) | byte(r.IntN(2))<<7
		}
		check(raw)
	}
}
