package utf8check

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// TestValidAgreesWithStdlib compares Valid with utf8.Valid on random bytes
// of every length around the short-string bound, mostly ASCII with some
// bytes of multi-byte and broken sequences.
func TestValidAgreesWithStdlib(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 3))
	pieces := [][]byte{{'a'}, {'~'}, {0}, []byte("é"), []byte("中"), []byte("😀"), {0xff}, {0xc3}, {0x80}, {0xed, 0xa0, 0x80}}
	for range 20000 {
		var b []byte
		for n := r.IntN(40); len(b) < n; {
			if r.IntN(8) == 0 {
				b = append(b, pieces[r.IntN(len(pieces))]...)
			} else {
				b = append(b, byte(' '+r.IntN(95)))
			}
		}
		if Valid(b) != utf8.Valid(b) {
			t.Fatalf("Valid(%q) = %v, utf8.Valid says %v", b, Valid(b), utf8.Valid(b))
		}
	}
}

func BenchmarkValidShortASCII(b *testing.B) {
	s := []byte("tag-name-12")
	b.Run("len11", func(b *testing.B) { benchValid(b, s) })
	b.Run("len5", func(b *testing.B) { benchValid(b, s[:5]) })
	b.Run("len2", func(b *testing.B) { benchValid(b, s[:2]) })
}

func benchValid(b *testing.B, s []byte) {
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		if !Valid(s) {
			b.Fatal("invalid")
		}
	}
}
