package jsontext

import (
	"math"
	"strconv"
)

// AppendFloat writes f, a float64 (bits 64) or a float32 (bits 32), as
// Java's Double.toString and Float.toString do (with the shortest digits
// that read back exactly): plain decimal with at least one fractional
// digit from 10^-3 up to 10^7 (1097.0, -0.0), "computerized scientific
// notation" beyond (1.0E-300, 1.4E-45 for the least float32). The digits
// are those of Java 19 and later: the shortest, and in scientific notation
// at least two, the closest to the value (4.9E-324, 9.9E-324). Java 17 and
// earlier print more digits or others for some values (Float.MIN_NORMAL
// as 1.17549435E-38, not 1.1754944E-38; 2 × Double.MIN_VALUE as 1.0E-323).
// Non-finite values are the JSON strings "NaN", "Infinity" and
// "-Infinity", as Java's Avro JSON encoder writes them.
func AppendFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	if abs := math.Abs(f); abs >= 1e-3 && abs < 1e7 {
		// Plain notation, with a fractional digit: the shortest digits
		// of an integral value have none, those of another value some.
		dst = strconv.AppendFloat(dst, f, 'f', -1, bits)
		if f == math.Trunc(f) {
			dst = append(dst, '.', '0')
		}
		return dst
	}
	// Computerized scientific notation: strconv's shortest d.ddde±dd
	// written as Java does, d.dddE[-]d.
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, bits)
	k := eIndex(e)
	if k == 1 || k == 2 && e[0] == '-' {
		// Java writes at least two digits, the closest to the value:
		// 4.9E-324 rather than 5.0E-324 (and 9.9E-324, not 1.0E-323).
		e = strconv.AppendFloat(tmp[:0], f, 'e', 1, bits)
		k = eIndex(e)
	}
	dst = append(dst, e[:k]...)
	dst = append(dst, 'E')
	if e[k+1] == '-' {
		dst = append(dst, '-')
	}
	x := e[k+2:]
	if x[0] == '0' { // at least two digits in strconv's exponent
		x = x[1:]
	}
	return append(dst, x...)
}

// eIndex returns the index of the 'e' in strconv's 'e' format of a finite
// number, [-]d[.ddd]e±dd[d].
func eIndex(e []byte) int {
	if k := len(e) - 4; e[k] == 'e' {
		return k
	}
	return len(e) - 5
}
