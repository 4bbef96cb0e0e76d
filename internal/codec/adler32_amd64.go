//go:build amd64 && !purego

package codec

import "golang.org/x/sys/cpu"

// haveVector says whether adlerVector may be used: the processor has AVX2.
var haveVector = cpu.X86.HasAVX2

// adlerVectorMax is the most bytes adlerSumsAVX2 sums at once: its
// weighted sums, eight 32-bit lanes that each gain at most 2·16,065 a
// 32 bytes, and their total stay below 2³².
const adlerVectorMax = 64 << 10

// adlerVector extends the checksum adler by the longest prefix of p that
// is a multiple of 32 bytes and returns the checksum and the rest of p.
func adlerVector(adler uint32, p []byte) (uint32, []byte) {
	s1, s2 := uint64(adler&0xffff), uint64(adler>>16)
	for len(p) >= 32 {
		n := min(len(p), adlerVectorMax) &^ 31
		sum, prefix, weighted := adlerSumsAVX2(p[:n])
		// Byte j of block k (32 bytes each, m blocks, j = 32k + i) counts
		// n - j = 32(m-1-k) + (32-i) times in s2: prefix is Σ over blocks
		// of the bytes of the blocks before it, weighted Σ (32-i)·byte.
		s2 = (s2 + uint64(n)*s1 + 32*prefix + weighted) % adlerMod
		s1 = (s1 + sum) % adlerMod
		p = p[n:]
	}
	return uint32(s2<<16 | s1), p
}

// adlerSumsAVX2 returns, of the len(p)/32 blocks of 32 bytes of p (at most
// adlerVectorMax bytes), the sum of their bytes, the sum over blocks of
// the bytes before each block, and the sum of each byte times 32 less its
// place in its block.
//
//go:noescape
func adlerSumsAVX2(p []byte) (sum, prefix, weighted uint64)
