package assemble

import (
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/trevni-go/trevni/internal/jsontext"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/typemap"
)

// Plain JSON is JSON as jq users expect it, not Avro's JSON encoding:
// unions unwrapped, bytes and fixed in base64, decimals as exact numbers,
// logical types of time as strings. The functions here write one value of
// a simple type; walk's plain sink (toPlain) calls them.

// appendPlainFloat writes f as encoding/json writes a float64 (bits 64)
// or float32 (bits 32); see jsontext.AppendPlainFloat.
func appendPlainFloat(b []byte, f float64, bits int) []byte {
	return jsontext.AppendPlainFloat(b, f, bits)
}

// appendPlainLong writes an int or long of schema s: a date, time or
// timestamp as a string, any other as a number. A time of day outside
// the day is written as the number it is.
func appendPlainLong(b []byte, s *schema.Schema, v int64) []byte {
	switch s.Logical {
	case schema.LogicalDate:
		b = append(b, '"')
		b = appendDate(b, v)
		return append(b, '"')
	case schema.LogicalTimeMillis:
		if v >= 0 && v < 86_400_000 {
			b = append(b, '"')
			b = appendClock(b, v, 1_000, 3)
			return append(b, '"')
		}
	case schema.LogicalTimeMicros:
		if v >= 0 && v < 86_400_000_000 {
			b = append(b, '"')
			b = appendClock(b, v, 1_000_000, 6)
			return append(b, '"')
		}
	case schema.LogicalTimestampMillis:
		return appendTimestamp(b, v, 1_000, 3, true)
	case schema.LogicalTimestampMicros:
		return appendTimestamp(b, v, 1_000_000, 6, true)
	case schema.LogicalTimestampNanos:
		return appendTimestamp(b, v, 1_000_000_000, 9, true)
	case schema.LogicalLocalTimestampMillis:
		return appendTimestamp(b, v, 1_000, 3, false)
	case schema.LogicalLocalTimestampMicros:
		return appendTimestamp(b, v, 1_000_000, 6, false)
	case schema.LogicalLocalTimestampNanos:
		return appendTimestamp(b, v, 1_000_000_000, 9, false)
	}
	return strconv.AppendInt(b, v, 10)
}

// floorDiv returns the quotient and remainder of a/d rounded down, the
// remainder in [0, d).
func floorDiv(a, d int64) (int64, int64) {
	q, r := a/d, a%d
	if r < 0 {
		q, r = q-1, r+d
	}
	return q, r
}

// appendTimestamp writes v, in units of 1/perSecond second since the Unix
// epoch, as an RFC 3339 string with digits fractional digits, ending in Z
// when utc (a local timestamp has no zone).
func appendTimestamp(b []byte, v, perSecond int64, digits int, utc bool) []byte {
	perDay := 86_400 * perSecond
	days, rem := floorDiv(v, perDay)
	b = append(b, '"')
	b = appendDate(b, days)
	b = append(b, 'T')
	b = appendClock(b, rem, perSecond, digits)
	if utc {
		b = append(b, 'Z')
	}
	return append(b, '"')
}

// appendClock writes v, in units of 1/perSecond second after midnight
// (below a day), as HH:MM:SS and digits fractional digits.
func appendClock(b []byte, v, perSecond int64, digits int) []byte {
	secs, frac := v/perSecond, v%perSecond
	b = appendDigits(b, secs/3600, 2)
	b = append(b, ':')
	b = appendDigits(b, secs/60%60, 2)
	b = append(b, ':')
	b = appendDigits(b, secs%60, 2)
	b = append(b, '.')
	return appendDigits(b, frac, digits)
}

// appendDigits writes v ≥ 0 in decimal with at least n digits.
func appendDigits(b []byte, v int64, n int) []byte {
	var buf [20]byte
	i := len(buf)
	for v > 0 || n > 0 {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
		n--
	}
	return append(b, buf[i:]...)
}

// appendDate writes the day days after 1970-01-01 in the proleptic
// Gregorian calendar as YYYY-MM-DD; a year beyond 9999 is written with a
// plus sign, one before year 0 with a minus sign (ISO 8601's expanded
// years).
func appendDate(b []byte, days int64) []byte {
	// Days to civil date, counting in eras of 400 years from 0000-03-01.
	z := days + 719_468
	era, doe := floorDiv(z, 146_097)
	yoe := (doe - doe/1_460 + doe/36_524 - doe/146_096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	switch {
	case y < 0:
		b = append(b, '-')
		y = -y
	case y > 9999:
		b = append(b, '+')
	}
	b = appendDigits(b, y, 4)
	b = append(b, '-')
	b = appendDigits(b, m, 2)
	b = append(b, '-')
	return appendDigits(b, d, 2)
}

// appendPlainBytes writes a string, bytes or fixed value v of schema s:
// a string as a JSON string, a decimal as an exact JSON number, a uuid in
// a fixed of 16 as its string, other bytes in standard base64. scratch is
// working space for decimals, returned for reuse.
func appendPlainBytes(b []byte, s *schema.Schema, v []byte, scratch []byte) ([]byte, []byte) {
	switch {
	case s.Kind == schema.String:
		return jsontext.AppendStringBytesUTF8(b, v), scratch
	case s.Logical == schema.LogicalDecimal:
		return appendDecimal(b, v, s.Scale, scratch)
	case s.Logical == schema.LogicalUUID && len(v) == 16:
		const hex = "0123456789abcdef"
		b = append(b, '"')
		for i, c := range v {
			if i == 4 || i == 6 || i == 8 || i == 10 {
				b = append(b, '-')
			}
			b = append(b, hex[c>>4], hex[c&15])
		}
		return append(b, '"'), scratch
	}
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, v)
	return append(b, '"'), scratch
}

// appendDecimal writes the decimal of unscaled value v (big-endian two's
// complement) and the scale as an exact JSON number, with scale digits
// after the point (scale 2 of 123450 is 1234.50). scratch is working
// space, returned for reuse.
func appendDecimal(b []byte, v []byte, scale int, scratch []byte) ([]byte, []byte) {
	neg := len(v) > 0 && v[0]&0x80 != 0
	if len(v) <= 8 {
		var n int64
		if neg {
			n = -1
		}
		for _, c := range v {
			n = n<<8 | int64(c)
		}
		if n != math.MinInt64 {
			digits := len(b)
			if n < 0 {
				b = append(b, '-')
				n = -n
				digits++
			}
			b = strconv.AppendInt(b, n, 10)
			return placePoint(b, digits, scale), scratch
		}
	}
	// The magnitude, base 256, divided by 10^9 again and again; the
	// remainders are the digits, nine at a time, least significant
	// first.
	mag := append(scratch[:0], v...)
	if neg {
		carry := 1
		for i := len(mag) - 1; i >= 0; i-- {
			x := int(^mag[i]) + carry
			mag[i], carry = byte(x), x>>8
		}
	}
	n, lo := len(mag), 0
	for {
		for lo < n && mag[lo] == 0 {
			lo++
		}
		if lo == n {
			break
		}
		var rem uint64
		for i := lo; i < n; i++ {
			x := rem<<8 | uint64(mag[i])
			mag[i], rem = byte(x/1e9), x%1e9
		}
		for range 9 {
			mag = append(mag, byte('0'+rem%10))
			rem /= 10
		}
	}
	chunks := mag[n:]
	end := len(chunks)
	for end > 0 && chunks[end-1] == '0' {
		end--
	}
	digits := len(b)
	if neg {
		b = append(b, '-')
		digits++
	}
	if end == 0 {
		b = append(b, '0')
	}
	for i := end - 1; i >= 0; i-- {
		b = append(b, chunks[i])
	}
	return placePoint(b, digits, scale), mag[:0]
}

// placePoint puts a decimal point scale digits from the end of the digits
// at b[start:], padding with zeros in front (0.05).
func placePoint(b []byte, start, scale int) []byte {
	if scale <= 0 {
		return b
	}
	n := len(b) - start
	if n <= scale {
		pad := scale - n + 1 // 0. and the zeros
		b = slices.Grow(b, pad+1)
		b = b[:len(b)+pad+1]
		copy(b[start+pad+1:], b[start:start+n])
		b[start], b[start+1] = '0', '.'
		for i := start + 2; i < start+pad+1; i++ {
			b[i] = '0'
		}
		return b
	}
	b = append(b, 0)
	p := len(b) - 1 - scale
	copy(b[p+1:], b[p:len(b)-1])
	b[p] = '.'
	return b
}

// appendPlainNative writes the goavro native value v of schema s (a
// default) in plain JSON, as the plain sink writes the same value read
// from a file.
func appendPlainNative(b []byte, s *schema.Schema, v any) ([]byte, error) {
	switch s.Kind {
	case schema.Union:
		i, inner, err := typemap.ResolveUnion(s, v)
		if err != nil {
			return b, err
		}
		return appendPlainNative(b, s.Branches[i], inner)
	case schema.Record:
		m, ok := v.(map[string]any)
		if !ok {
			return b, fmt.Errorf("record %s: %T is not a map", s.Name, v)
		}
		b = append(b, '{')
		for i, f := range s.Fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsontext.AppendStringUTF8(b, f.SourceName())
			b = append(b, ':')
			var err error
			if b, err = appendPlainNative(b, f.Type, m[f.Name]); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	case schema.Array:
		l, ok := v.([]any)
		if !ok {
			return b, fmt.Errorf("array: %T is not a list", v)
		}
		b = append(b, '[')
		for i, e := range l {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendPlainNative(b, s.Items, e); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case schema.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return b, fmt.Errorf("map: %T is not a map", v)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsontext.AppendStringUTF8(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendPlainNative(b, s.Values, m[k]); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	case schema.Enum:
		sym, ok := v.(string)
		if !ok {
			return b, fmt.Errorf("enum %s: %T is not a symbol", s.Name, v)
		}
		return jsontext.AppendStringUTF8(b, sym), nil
	}
	stored, err := typemap.ToStored(s, v)
	if err != nil {
		return b, err
	}
	switch x := stored.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int32:
		return appendPlainLong(b, s, int64(x)), nil
	case int64:
		return appendPlainLong(b, s, x), nil
	case float32:
		return appendPlainFloat(b, float64(x), 32), nil
	case float64:
		return appendPlainFloat(b, x, 64), nil
	case string:
		return jsontext.AppendStringUTF8(b, x), nil
	case []byte:
		b, _ = appendPlainBytes(b, s, x, nil)
		return b, nil
	}
	return b, fmt.Errorf("%s: stored as %T", s.Kind, stored)
}
