// Package utf8check checks that bytes are UTF-8, quickly for the short
// ASCII strings that make up most of a column of names, tags or map keys.
package utf8check

import "unicode/utf8"

// Valid reports whether b is valid UTF-8, as utf8.Valid does. A short
// string is scanned in line for a byte outside ASCII before utf8.Valid is
// called, which saves the call for most strings of real data.
func Valid(b []byte) bool {
	if len(b) <= 16 {
		for _, c := range b {
			if c >= utf8.RuneSelf {
				return utf8.Valid(b)
			}
		}
		return true
	}
	return utf8.Valid(b)
}
