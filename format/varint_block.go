package format

import (
	"encoding/binary"
	"math/bits"
)

// Block decoding of varints: ReadLongs and ReadInts decode a block's
// zig-zag varints 64 bytes at a time where 80 bytes are left. The high
// bits of the 64 bytes are gathered into one word first (a set bit for a
// byte that continues its value), which says how to decode them:
//   - 64 values of one byte each are taken in a plain loop;
//   - values of 2.7 to 8 bytes on average (8 to 24 end in the 64 bytes)
//     are decoded independently of one another (decodeChunk): where
//     each ends is known before any is decoded, so the next one's start does
//     not wait for this one's bytes, as it does value by value (ints of
//     three bytes, 8 ns a value one at a time, take 3 in chunks);
//   - shorter values are decoded one at a time (the plain decoders) over
//     the next 512 bytes, where branches on the value's length predict well
//     and cost less than decodeChunk's work (values of one and two bytes
//     mixed take twice as long in chunks).
// What a chunk does not take (a value longer than a long or an int may be,
// and the last 80 bytes of a block) is decoded by the plain decoders, and
// what they do not take (an error, or a value near the block's end) is left
// to the single-value reads, which report the error where it is.

const (
	// varintChunk is how many bytes' high bits make one word; a value is
	// loaded as the 8 bytes at its start (and a long's 9th and 10th byte
	// after them), so varintChunk+16 bytes must be left in the block for a
	// chunk to be taken.
	varintChunk = 64
	// chunkMaxValues and chunkMinValues are the most and the fewest
	// values that may end in a chunk for it to be decoded by decodeChunk:
	// 2.7 to 8 bytes a value on average (longer ones, 9 or 10 bytes, take
	// as long one at a time).
	chunkMaxValues = varintChunk * 3 / 8
	chunkMinValues = varintChunk / 8
	// plainRun is how many bytes the plain decoders take when a chunk's
	// values are short, before the next chunk is looked at.
	plainRun = 8 * varintChunk
)

// continuations returns the high bits of a's first 64 bytes, byte i's as
// bit i.
func continuations(a *[varintChunk + 16]byte) uint64 {
	const high, gather = 0x8080808080808080, 0x0002040810204081
	return (binary.LittleEndian.Uint64(a[0:])&high)*gather>>56 |
		(binary.LittleEndian.Uint64(a[8:])&high)*gather>>56<<8 |
		(binary.LittleEndian.Uint64(a[16:])&high)*gather>>56<<16 |
		(binary.LittleEndian.Uint64(a[24:])&high)*gather>>56<<24 |
		(binary.LittleEndian.Uint64(a[32:])&high)*gather>>56<<32 |
		(binary.LittleEndian.Uint64(a[40:])&high)*gather>>56<<40 |
		(binary.LittleEndian.Uint64(a[48:])&high)*gather>>56<<48 |
		(binary.LittleEndian.Uint64(a[56:])&high)*gather>>56<<56
}

// decodeOneByte decodes 64 values of one byte each from a into out.
func decodeOneByte[T int32 | int64](a *[varintChunk + 16]byte, out []T) {
	out = out[:varintChunk]
	for k := range out {
		u := uint64(a[k])
		out[k] = T(int64(u>>1) ^ -int64(u&1))
	}
}

// decodeChunk decodes into out the values that end in the 64 bytes at
// the start of a (ends: a set bit for each byte that ends a value), up to
// len(out) and up to the first one that does not end in the bytes of last
// (the high bits of a word's first 5 bytes for an int; for a long, of all
// 8, and a long's 9th and 10th bytes are taken too), and returns how many
// bytes and values it took. Of each value's bits those of keep are kept
// before its zig-zag is undone (an int's low 32).
func decodeChunk[T int32 | int64](a *[varintChunk + 16]byte, ends uint64, out []T, last, keep uint64) (int, int) {
	if n := bits.OnesCount64(ends); n < len(out) {
		out = out[:n]
	}
	start := 0
	for i := range out {
		s := start & (varintChunk - 1)
		// The bits of ends up to its lowest set one: as many as the bytes
		// up to this value's end. (bits.TrailingZeros64 is BSF on amd64,
		// whose result waits on its register's last value, here the
		// value's, which would chain each start to the value before.)
		start = bits.OnesCount64(ends ^ (ends - 1))
		ends &= ends - 1
		w := binary.LittleEndian.Uint64(a[s:])
		var u uint64
		if stop := ^w & last; stop != 0 {
			u = pack7(w&(stop^(stop-1))) & keep
		} else if last != 0x8080808080808080 {
			return s, i
		} else if n := start - s; n == 9 {
			u = pack7(w) | uint64(a[s+8])<<56
		} else if n == 10 {
			u = pack7(w) | uint64(a[s+8]&0x7f)<<56 | uint64(a[s+9])<<63
		} else {
			return s, i
		}
		out[i] = T(int64(u>>1) ^ -int64(u&1))
	}
	return start, len(out)
}

// decodeLongs decodes Avro longs (zig-zag varints) from b at pos into
// out, as decoder.readLong does, and returns the position after them and
// how many it decoded. It stops early at a value it leaves to readLong:
// one of more than one byte within 8 bytes of b's end (10 for one of 9 or
// 10 bytes), or one longer than 10 bytes (an error).
func decodeLongs(b []byte, pos int, out []int64) (int, int) {
	return decodeVarints(b, pos, out, 0x8080808080808080, ^uint64(0), plainLongs, decodeChunkPEXT64)
}

// decodeVarints is decodeLongs and decodeInts: chunks where 80 bytes are
// left, and plain, the decoder value by value, for what they do not take.
// last and keep are decodeChunk's; pext is the chunk decoder in assembly
// (decodeChunkPEXT64 or 32), used where havePEXT says it may be and the
// values are not too long for it.
func decodeVarints[T int32 | int64](b []byte, pos int, out []T, last, keep uint64, plain func([]byte, int, []T) (int, int), pext func(*[varintChunk + 16]byte, uint64, []T) (int, int)) (int, int) {
	i := 0
	for i < len(out) && len(b)-pos >= varintChunk+16 {
		a := (*[varintChunk + 16]byte)(b[pos:])
		c := continuations(a)
		var p, k int
		switch {
		case c == 0 && len(out)-i >= varintChunk:
			decodeOneByte(a, out[i:])
			p, k = varintChunk, varintChunk
		case havePEXT && !longRun(c, last):
			p, k = pext(a, ^c, out[i:])
		case chunkMinValues <= bits.OnesCount64(^c) && bits.OnesCount64(^c) <= chunkMaxValues:
			p, k = decodeChunk(a, ^c, out[i:], last, keep)
		}
		if k == 0 {
			p, k = plain(b[:min(len(b), pos+plainRun)], pos, out[i:])
			p -= pos
		}
		if k == 0 {
			return pos, i
		}
		pos += p
		i += k
	}
	pos, k := plain(b, pos, out[i:])
	return pos, i + k
}

// longRun reports whether c, a chunk's continuation bits, has a run
// that makes a value longer than decodeChunkPEXT64 (8 bytes) or
// decodeChunkPEXT32 (5 bytes, last of an int) take: 8 or 5 bytes in a
// row that continue. (Such a run may be the last value's, which a chunk
// leaves to the next one; the chunk then goes to the Go decoders.)
func longRun(c, last uint64) bool {
	r := c & (c >> 1)
	r &= r >> 2 // 4 in a row
	if last != 0x8080808080808080 {
		return r&(c>>4) != 0
	}
	return r&(r>>4) != 0
}

// plainLongs is decodeLongs value by value: a value of one or two bytes
// is taken as it is, a longer one from the 8 bytes loaded at once: the
// lowest clear high bit ends it, the bytes after it are masked off, and
// the 7-bit groups are packed by three shifts.
func plainLongs(b []byte, pos int, out []int64) (int, int) {
	for i := range out {
		if pos < len(b) && b[pos] < 0x80 {
			u := uint64(b[pos])
			out[i] = int64(u>>1) ^ -int64(u&1)
			pos++
			continue
		}
		if pos+1 < len(b) && b[pos+1] < 0x80 {
			u := uint64(b[pos]&0x7f) | uint64(b[pos+1])<<7
			out[i] = int64(u>>1) ^ -int64(u&1)
			pos += 2
			continue
		}
		if len(b)-pos < 8 {
			return pos, i
		}
		w := binary.LittleEndian.Uint64(b[pos:])
		var u uint64
		if stop := ^w & 0x8080808080808080; stop != 0 {
			u = pack7(w & (stop ^ (stop - 1)))
			pos += bits.TrailingZeros64(stop)/8 + 1
		} else {
			if len(b)-pos < 10 {
				return pos, i
			}
			u = pack7(w)
			if y := uint64(b[pos+8]); y < 0x80 {
				u |= y << 56
				pos += 9
			} else if y9 := uint64(b[pos+9]); y9 < 0x80 {
				u |= (y&0x7f)<<56 | y9<<63
				pos += 10
			} else {
				return pos, i
			}
		}
		out[i] = int64(u>>1) ^ -int64(u&1)
	}
	return pos, len(out)
}

// decodeInts decodes Avro ints into out as decodeLongs does longs, as
// decoder.readInt does (of a 5-byte varint the low 32 bits are kept). It
// stops early at a value of more than one byte within 8 bytes of b's end,
// or one longer than 5 bytes.
func decodeInts(b []byte, pos int, out []int32) (int, int) {
	return decodeVarints(b, pos, out, 0x8080808080, 0xffffffff, plainInts, decodeChunkPEXT32)
}

// plainInts is decodeInts value by value, as plainLongs.
func plainInts(b []byte, pos int, out []int32) (int, int) {
	for i := range out {
		if pos < len(b) && b[pos] < 0x80 {
			u := uint32(b[pos])
			out[i] = int32(u>>1) ^ -int32(u&1)
			pos++
			continue
		}
		if pos+1 < len(b) && b[pos+1] < 0x80 {
			u := uint32(b[pos]&0x7f) | uint32(b[pos+1])<<7
			out[i] = int32(u>>1) ^ -int32(u&1)
			pos += 2
			continue
		}
		if len(b)-pos < 8 {
			return pos, i
		}
		w := binary.LittleEndian.Uint64(b[pos:])
		stop := ^w & 0x8080808080
		if stop == 0 {
			return pos, i
		}
		u := uint32(pack7(w & (stop ^ (stop - 1))))
		pos += bits.TrailingZeros64(stop)/8 + 1
		out[i] = int32(u>>1) ^ -int32(u&1)
	}
	return pos, len(out)
}
