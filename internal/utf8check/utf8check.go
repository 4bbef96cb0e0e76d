// Package utf8check checks that bytes are UTF-8, quickly for the short
// ASCII strings that make up most of a column of names, tags or map keys.
package utf8check

import (
	"encoding/binary"
	"unicode/utf8"
)

const highBits = 0x8080808080808080

// Valid reports whether b is valid UTF-8, as utf8.Valid does. A string of
// at most 16 bytes is first tested for a byte outside ASCII a word or two
// at a time (overlapping loads cover every length), which settles most
// strings of real data without the call.
func Valid(b []byte) bool {
	n := len(b)
	switch {
	case n > 16:
		return utf8.Valid(b)
	case n >= 8:
		if (binary.LittleEndian.Uint64(b)|binary.LittleEndian.Uint64(b[n-8:]))&highBits == 0 {
			return true
		}
	case n >= 4:
		if (binary.LittleEndian.Uint32(b)|binary.LittleEndian.Uint32(b[n-4:]))&0x80808080 == 0 {
			return true
		}
	default:
		var or byte
		for _, c := range b {
			or |= c
		}
		if or < utf8.RuneSelf {
			return true
		}
	}
	return utf8.Valid(b)
}
