package codec

import (
	"hash/adler32"
	"math/rand/v2"
	"testing"
)

// TestAdler32MatchesHashAdler32 compares the checksum, and that of the
// eight-bytes-at-a-time code alone (where the vector code is used), with
// hash/adler32's over random, all-0xff and all-zero data of every length
// up to a few chunks, of lengths around and past the vector code's
// longest run, and over data checksummed in random pieces.
func TestAdler32MatchesHashAdler32(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const most = 3*adlerMax + 100
	const long = 3*(64<<10) + 1000
	data := map[string][]byte{"random": make([]byte, long), "ff": make([]byte, long), "zero": make([]byte, long)}
	for i := range long {
		data["random"][i] = byte(r.Uint32())
		data["ff"][i] = 0xff
	}
	lengths := []int{64<<10 - 1, 64 << 10, 64<<10 + 31, 64<<10 + 32, 64<<10 + 33, 2 * (64 << 10), long}
	for n := 0; n <= most; n += 1 + n/50 {
		lengths = append(lengths, n)
	}
	for name, b := range data {
		for _, n := range lengths {
			want := adler32.Checksum(b[:n])
			if got := Adler32(b[:n]); got != want {
				t.Fatalf("%s, %d bytes: %08x, hash/adler32 %08x", name, n, got, want)
			}
			if got := adlerWords(1, b[:n]); got != want {
				t.Fatalf("%s, %d bytes, eight at a time: %08x, hash/adler32 %08x", name, n, got, want)
			}
		}
		for range 200 {
			n := r.IntN(most)
			a, rest := uint32(1), b[:n]
			for len(rest) > 0 {
				k := min(len(rest), r.IntN(200))
				a, rest = AdlerUpdate(a, rest[:k]), rest[k:]
			}
			if want := adler32.Checksum(b[:n]); a != want {
				t.Fatalf("%s, %d bytes in pieces: %08x, hash/adler32 %08x", name, n, a, want)
			}
		}
	}
}

func BenchmarkAdler32(b *testing.B) {
	src := make([]byte, 64<<10)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range src {
		src[i] = byte(r.Uint32())
	}
	b.Run("ours", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			Adler32(src)
		}
	})
	b.Run("words", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			adlerWords(1, src)
		}
	})
	b.Run("hash-adler32", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			adler32.Checksum(src)
		}
	})
}
