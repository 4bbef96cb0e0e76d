package trevni1

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/trevni-go/trevni/internal/avrobin"
)

// TestNextLongAsConsumeLong decodes varints of every length, and bytes
// that are no varint (too long, cut short, of a tenth byte too big), by
// nextLong and by avrobin.ConsumeLong: the values and lengths (or error
// codes) must be the same.
func TestNextLongAsConsumeLong(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 2))
	for i := range 200_000 {
		var b []byte
		switch i % 3 {
		case 0:
			x := int64(r.Uint64() >> r.IntN(64))
			if r.IntN(2) == 0 {
				x = -x
			}
			b = binary.AppendUvarint(nil, avrobin.EncodeZigZag(x))
		case 1:
			b = make([]byte, r.IntN(13))
			for j := range b {
				b[j] = byte(r.Uint32()) | 0x80
			}
			if len(b) > 0 && r.IntN(2) == 0 {
				b[r.IntN(len(b))] &= 0x7f
			}
		default:
			b = binary.AppendUvarint(nil, r.Uint64()>>r.IntN(64))
		}
		b = append(b, make([]byte, r.IntN(9))...)
		got, gn := nextLong(b)
		want, wn := avrobin.ConsumeLong(b)
		if got != want || gn != wn {
			t.Fatalf("% x: %d, %d; ConsumeLong %d, %d", b, got, gn, want, wn)
		}
	}
}
