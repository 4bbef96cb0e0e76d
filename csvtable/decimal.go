package csvtable

import (
	"errors"
	"fmt"
	"math/big"
)

// parseDecimal parses decimal text ([+-]digits[.digits]) as a value of the
// decimal field f, appending to dst the unscaled value's big-endian two's
// complement bytes: as few as hold it for bytes, f.Size (sign-extended)
// for fixed. The digits must fit f.Precision, and the fraction f.Scale
// digits (more are an error unless they are zeros): nothing is rounded.
func parseDecimal(dst []byte, f *Field, s string) ([]byte, error) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	intPart, frac := s, ""
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			intPart, frac = s[:i], s[i+1:]
			break
		}
	}
	if intPart == "" && frac == "" {
		return dst, errors.New("not a decimal number")
	}
	for _, part := range [2]string{intPart, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return dst, errors.New("not a decimal number")
			}
		}
	}
	for len(frac) > f.Scale {
		if frac[len(frac)-1] != '0' {
			return dst, fmt.Errorf("more than %d digits after the point", f.Scale)
		}
		frac = frac[:len(frac)-1]
	}
	for len(intPart) > 0 && intPart[0] == '0' {
		intPart = intPart[1:]
	}
	if len(intPart)+f.Scale > f.Precision {
		return dst, fmt.Errorf("more than %d digits before the point (precision %d, scale %d)", f.Precision-f.Scale, f.Precision, f.Scale)
	}
	// The unscaled value: at most Precision digits.
	var u big.Int
	digits := make([]byte, 0, len(intPart)+f.Scale)
	digits = append(append(digits, intPart...), frac...)
	for i := len(frac); i < f.Scale; i++ {
		digits = append(digits, '0')
	}
	if len(digits) > 0 {
		u.SetString(string(digits), 10)
	}
	if neg {
		u.Neg(&u)
	}
	return appendTwos(dst, &u, f.Size)
}

// appendTwos appends v in big-endian two's complement: in size bytes, or
// as few as hold it when size is 0.
func appendTwos(dst []byte, v *big.Int, size int) ([]byte, error) {
	n := (v.BitLen() + 8) / 8 // room for the sign bit
	if size > 0 {
		if n > size {
			return dst, fmt.Errorf("does not fit %d bytes", size)
		}
		n = size
	}
	start := len(dst)
	dst = append(dst, make([]byte, n)...)
	out := dst[start:]
	if v.Sign() >= 0 {
		v.FillBytes(out)
		return dst, nil
	}
	// -v - 1, inverted, is v in two's complement.
	var m big.Int
	m.Neg(v)
	m.Sub(&m, big.NewInt(1))
	m.FillBytes(out)
	for i := range out {
		out[i] = ^out[i]
	}
	return dst, nil
}

// appendDecimal appends the decimal text of the unscaled two's complement
// bytes b at scale: every scale digit after the point, so the digits are
// exact.
func appendDecimal(dst, b []byte, scale int) []byte {
	var v big.Int
	v.SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		var m big.Int
		m.Lsh(big.NewInt(1), uint(8*len(b)))
		v.Sub(&v, &m)
	}
	if v.Sign() < 0 {
		dst = append(dst, '-')
		v.Neg(&v)
	}
	digits := v.Append(nil, 10)
	for len(digits) <= scale {
		digits = append([]byte{'0'}, digits...)
	}
	dst = append(dst, digits[:len(digits)-scale]...)
	if scale > 0 {
		dst = append(dst, '.')
		dst = append(dst, digits[len(digits)-scale:]...)
	}
	return dst
}

// maxDecimalPrecision bounds the digits of a decimal field, so that a
// schema cannot make each value's text huge.
const maxDecimalPrecision = 1000
