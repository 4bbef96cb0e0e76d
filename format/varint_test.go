package format

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

// TestReadVarints checks readInt and readLong, whose varints of up to
// eight bytes are decoded a word at a time, against encoding/binary: every
// varint length, every distance from the end of the block (so that both
// the word and the byte loop are taken), and varints that run past the
// most bytes an int or a long may take, or past the end.
func TestReadVarints(t *testing.T) {
	var longs []int64
	for bitsN := 0; bitsN < 64; bitsN++ {
		v := int64(1) << bitsN
		longs = append(longs, v-1, v, v+1, -v, -v+1, -v-1)
	}
	longs = append(longs, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32)
	for _, v := range longs {
		enc := binary.AppendVarint(nil, v)
		for pad := 0; pad <= 10; pad++ {
			// The varint, then pad bytes that would continue it if read.
			b := append(append([]byte(nil), enc...), make([]byte, pad)...)
			for i := len(enc); i < len(b); i++ {
				b[i] = 0xff
			}
			d := decoder{b: b}
			got, err := d.readLong()
			if err != nil || got != v || d.pos != len(enc) {
				t.Fatalf("readLong of %d (%d bytes, %d after): %d, pos %d, %v", v, len(enc), pad, got, d.pos, err)
			}
			d = decoder{b: b}
			i, err := d.readInt()
			if len(enc) <= 5 {
				// Five bytes hold 35 bits: an int is the low 32 of its
				// zig-zag form.
				u, _ := binary.Uvarint(enc)
				want := int32(uint32(u)>>1) ^ -int32(uint32(u)&1)
				if err != nil || i != want || d.pos != len(enc) {
					t.Fatalf("readInt of %d (%d bytes, %d after): %d, pos %d, %v; want %d", v, len(enc), pad, i, d.pos, err, want)
				}
			} else if !errors.Is(err, errIntVarint) {
				t.Fatalf("readInt of a %d-byte varint (%d after): %d, %v", len(enc), pad, i, err)
			}
		}
	}
	// Varints without an end: too long for a long, or cut by the block's end.
	for n := 1; n <= 12; n++ {
		b := make([]byte, n)
		for i := range b {
			b[i] = 0x80
		}
		d := decoder{b: b}
		_, err := d.readLong()
		want := errTruncated
		if n >= 10 {
			want = errLongVarint
		}
		if !errors.Is(err, want) {
			t.Fatalf("readLong of %d continuation bytes: %v, want %v", n, err, want)
		}
		d = decoder{b: b}
		_, err = d.readInt()
		if want = errTruncated; n >= 5 {
			want = errIntVarint
		}
		if !errors.Is(err, want) {
			t.Fatalf("readInt of %d continuation bytes: %v, want %v", n, err, want)
		}
	}
}
