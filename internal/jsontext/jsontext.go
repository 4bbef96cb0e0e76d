// Package jsontext writes JSON strings: the project's one JSON string
// escaper, used by the Avro JSON encoder, the format's row dump and the
// command line's JSON output alike. It escapes as Java's Jackson does, so
// that our text is byte for byte what Java prints.
package jsontext

import (
	"unicode/utf16"
	"unicode/utf8"
)

const hexDigits = "0123456789ABCDEF"

// AppendString writes s as a JSON string escaped as Java's Jackson does:
// control characters as \uXXXX (or their short escapes), characters beyond
// the Basic Multilingual Plane as surrogate-pair escapes.
func AppendString(dst []byte, s string) []byte {
	return appendText(dst, s, utf8.DecodeRuneInString)
}

// AppendStringBytes is AppendString for a string held as UTF-8 bytes.
func AppendStringBytes(dst []byte, s []byte) []byte {
	return appendText(dst, s, utf8.DecodeRune)
}

func appendText[T string | []byte](dst []byte, s T, decode func(T) (rune, int)) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			dst = appendASCII(dst, c)
			i++
			continue
		}
		r, n := decode(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			dst = append(dst, `\uFFFD`...)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			dst = appendU(appendU(dst, r1), r2)
		default:
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return append(dst, '"')
}

func appendU(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

func appendASCII(dst []byte, c byte) []byte {
	switch {
	case c == '"' || c == '\\':
		return append(dst, '\\', c)
	case c == '\n':
		return append(dst, '\\', 'n')
	case c == '\r':
		return append(dst, '\\', 'r')
	case c == '\t':
		return append(dst, '\\', 't')
	case c == '\b':
		return append(dst, '\\', 'b')
	case c == '\f':
		return append(dst, '\\', 'f')
	case c < 0x20:
		return appendU(dst, rune(c))
	}
	return append(dst, c)
}

// AppendLatin1 writes bytes as a JSON string of the code points 0-255,
// one per byte, as Avro's JSON encoding holds bytes and fixed values.
func AppendLatin1(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	for _, c := range b {
		if c < utf8.RuneSelf {
			dst = appendASCII(dst, c)
			continue
		}
		dst = utf8.AppendRune(dst, rune(c))
	}
	return append(dst, '"')
}
