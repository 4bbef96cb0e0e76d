// Package jsontext writes JSON strings and numbers as Java prints them: the
// project's one JSON string escaper and float formatter, used by the Avro
// JSON encoder, the format's row dump and the command line's JSON output
// alike. It escapes as Java's Jackson does and formats floats as Java's
// Float.toString and Double.toString, so that our text is byte for byte
// what Java prints.
package jsontext

import (
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

const hexDigits = "0123456789ABCDEF"

// AppendString writes s as a JSON string escaped as Java's Jackson does
// when it writes bytes (as Avro's JSON encoder has it do): control
// characters as \uXXXX (or their short escapes), characters beyond the
// Basic Multilingual Plane as surrogate-pair escapes, invalid UTF-8 as
// \uFFFD.
func AppendString(dst []byte, s string) []byte {
	return appendText(dst, s, utf8.DecodeRuneInString, true)
}

// AppendStringBytes is AppendString for a string held as UTF-8 bytes.
func AppendStringBytes(dst []byte, s []byte) []byte {
	return appendText(dst, s, utf8.DecodeRune, true)
}

// AppendStringUTF8 is AppendString with the characters beyond the Basic
// Multilingual Plane written as they are, in UTF-8, as Jackson does when
// it writes characters (to a java.io.Writer); the other escapes are the
// same. The interop dump.jsonl files are written this way.
func AppendStringUTF8(dst []byte, s string) []byte {
	return appendText(dst, s, utf8.DecodeRuneInString, false)
}

// AppendStringBytesUTF8 is AppendStringUTF8 for a string held as UTF-8
// bytes.
func AppendStringBytesUTF8(dst []byte, s []byte) []byte {
	return appendText(dst, s, utf8.DecodeRune, false)
}

func appendText[T string | []byte](dst []byte, s T, decode func(T) (rune, int), escapeAstral bool) []byte {
	dst = append(dst, '"')
	start := 0 // s[start:i] is still to be copied as it is
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendASCII(dst, c)
			i++
			start = i
			continue
		}
		r, n := decode(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\uFFFD`...)
			start = i + n
		case r > 0xffff && escapeAstral:
			dst = append(dst, s[start:i]...)
			r1, r2 := utf16.EncodeRune(r)
			dst = appendU(appendU(dst, r1), r2)
			start = i + n
		}
		i += n
	}
	dst = append(dst, s[start:]...)
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

// AppendPlainFloat writes f as encoding/json writes a float64 (bits 64)
// or float32 (bits 32): the shortest digits that read back exactly, in
// exponent form only below 1e-6 and from 1e21. NaN and the infinities,
// which JSON has no number for, are the strings "NaN", "Infinity" and
// "-Infinity".
func AppendPlainFloat(b []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		// e-07 → e-7, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
