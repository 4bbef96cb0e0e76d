// Package shortval copies values of at most 16 bytes a word or two at a
// time: overlapping loads and stores cover every length without a call
// to memmove, and the words loaded show whether the value is ASCII (so
// valid UTF-8) without a pass of its own. The Trevni writer (format) and
// the Avro encoder of assemble append short strings and bytes with it.
// Each function is small enough for the compiler to inline, which the
// callers' hot paths count on.
package shortval

import "encoding/binary"

// Max is the longest value Load and Store take.
const Max = 16

// Load returns the bytes of v, of at most Max bytes, as two words: for 8
// bytes or more its first and last eight, for 4 to 7 its first and last
// four, for 1 to 3 its first, middle and last bytes in lo.
func Load(v []byte) (lo, hi uint64) {
	switch n := len(v); {
	case n >= 8:
		return binary.LittleEndian.Uint64(v), binary.LittleEndian.Uint64(v[n-8:])
	case n >= 4:
		return uint64(binary.LittleEndian.Uint32(v)), uint64(binary.LittleEndian.Uint32(v[n-4:]))
	case n > 0:
		return uint64(v[0]) | uint64(v[n>>1])<<8 | uint64(v[n-1])<<16, 0
	}
	return 0, 0
}

// ASCII reports whether the words Load returned hold ASCII bytes only.
func ASCII(lo, hi uint64) bool { return (lo|hi)&0x8080808080808080 == 0 }

// Store writes into d, as long as the value Load read, the value's bytes
// from the words Load returned.
func Store(d []byte, lo, hi uint64) {
	switch n := len(d); {
	case n >= 8:
		binary.LittleEndian.PutUint64(d, lo)
		binary.LittleEndian.PutUint64(d[n-8:], hi)
	case n >= 4:
		binary.LittleEndian.PutUint32(d, uint32(lo))
		binary.LittleEndian.PutUint32(d[n-4:], uint32(hi))
	case n > 0:
		d[0], d[n>>1], d[n-1] = byte(lo), byte(lo>>8), byte(lo>>16)
	}
}
