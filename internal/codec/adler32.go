package codec

import "encoding/binary"

// Adler-32 (RFC 1950), the checksum of zlib streams, which Trevni 1 blocks
// and CLMN columns end with. hash/adler32 adds a byte at a time (about four
// instructions a byte); this adds eight bytes at a time in 16-bit lanes of
// a word, and its sums a run of words at a time, for the same result.

const (
	adlerMod = 65521
	// adlerMax is the most bytes whose sums fit in 32 bits before they
	// are reduced (zlib's NMAX); a multiple of adlerRun's bytes.
	adlerMax = 5520
	// adlerRun is the most words whose lane sums cannot overflow their
	// 16 bits: a lane of the running sums takes 255·m(m+1) after m words.
	adlerRun = 15
)

// Adler32 returns the Adler-32 checksum of b.
func Adler32(b []byte) uint32 { return AdlerUpdate(1, b) }

// AdlerUpdate returns the Adler-32 checksum adler (of what came before)
// extended by p: 32 bytes at a time with AVX2 where the processor has it
// (adler32_amd64.s), eight at a time otherwise.
func AdlerUpdate(adler uint32, p []byte) uint32 {
	if haveVector && len(p) >= 64 {
		adler, p = adlerVector(adler, p)
	}
	return adlerWords(adler, p)
}

// adlerWords is AdlerUpdate eight bytes at a time.
func adlerWords(adler uint32, p []byte) uint32 {
	s1, s2 := adler&0xffff, adler>>16
	const (
		ones  = 0x0001000100010001
		index = 0x0000000100020003 // the top lane of x·index is Σ l·x[l]
	)
	for len(p) > 0 {
		chunk := p[:min(len(p), adlerMax)]
		p = p[len(chunk):]
		for len(chunk) >= 8 {
			m := min(len(chunk)>>3, adlerRun)
			var ev, od, sums uint64
			if m == adlerRun {
				ev, od, sums = adlerLanes((*[8 * adlerRun]byte)(chunk))
			} else {
				ev, od, sums = adlerLanesShort(chunk[:8*m])
			}
			chunk = chunk[8*m:]
			both := ev + od
			sum := uint32(both * ones >> 48)
			// Byte i of the n = 8m counts n-i times in s2: 8 times the
			// running totals of the words, less its place k in its word.
			s := (sums & 0x0000ffff0000ffff) + (sums >> 16 & 0x0000ffff0000ffff)
			runs := uint32(s) + uint32(s>>32)
			places := 2*uint32(both*index>>48) + uint32(od*ones>>48)
			s2 += 8*uint32(m)*s1 + 8*runs - places
			s1 += sum
		}
		for _, x := range chunk {
			s1 += uint32(x)
			s2 += s1
		}
		s1 %= adlerMod
		s2 %= adlerMod
	}
	return s2<<16 | s1
}

// adlerLanes returns, in 16-bit lanes l = 0..3, the sums of the bytes 2l
// (ev) and 2l+1 (od) of the words of w, and of the running totals of both
// after each word (sums: Σ over words t of the bytes of words 0..t).
func adlerLanes(w *[8 * adlerRun]byte) (ev, od, sums uint64) {
	const lanes = 0x00ff00ff00ff00ff
	for i := 0; i < 8*adlerRun; i += 24 {
		x := binary.LittleEndian.Uint64(w[i:])
		y := binary.LittleEndian.Uint64(w[i+8:])
		z := binary.LittleEndian.Uint64(w[i+16:])
		ev += x & lanes
		od += x >> 8 & lanes
		sums += ev + od
		ev += y & lanes
		od += y >> 8 & lanes
		sums += ev + od
		ev += z & lanes
		od += z >> 8 & lanes
		sums += ev + od
	}
	return ev, od, sums
}

// adlerLanesShort is adlerLanes of fewer words.
func adlerLanesShort(w []byte) (ev, od, sums uint64) {
	const lanes = 0x00ff00ff00ff00ff
	for ; len(w) >= 8; w = w[8:] {
		x := binary.LittleEndian.Uint64(w)
		ev += x & lanes
		od += x >> 8 & lanes
		sums += ev + od
	}
	return ev, od, sums
}
