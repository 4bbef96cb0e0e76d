package shortval

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestLoadStore: for every length up to Max and random bytes, ASCII or
// not, Store of what Load read gives back the value's bytes, and ASCII
// agrees with a byte-by-byte look at them.
func TestLoadStore(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= Max; n++ {
		for round := range 200 {
			v := make([]byte, n)
			for i := range v {
				v[i] = byte(r.IntN(128))
				if round%3 == 0 && r.IntN(n+1) == 0 {
					v[i] |= 0x80
				}
			}
			lo, hi := Load(v)
			d := bytes.Repeat([]byte{0xEE}, n)
			Store(d, lo, hi)
			if !bytes.Equal(d, v) {
				t.Fatalf("%d bytes %x: stored %x", n, v, d)
			}
			ascii := true
			for _, c := range v {
				ascii = ascii && c < 0x80
			}
			if ASCII(lo, hi) != ascii {
				t.Fatalf("%d bytes %x: ASCII says %v", n, v, !ascii)
			}
		}
	}
}
