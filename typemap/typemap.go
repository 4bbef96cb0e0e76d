package typemap

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/trevni-go/trevni/schema"
)

// ErrValue reports a value that does not match its schema.
var ErrValue = errors.New("value does not match the schema")

func mismatch(s *schema.Schema, v any, want string) error {
	return fmt.Errorf("%w: %s wants %s, got %T", ErrValue, describe(s), want, v)
}

func describe(s *schema.Schema) string {
	d := s.Kind.String()
	if s.Kind.IsNamed() {
		d += " " + s.Name
	}
	if s.Logical != "" {
		d += " (" + string(s.Logical) + ")"
	}
	return d
}

var epoch = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)

// ToStored converts v, a goavro native value of the simple schema s, to the
// value stored in its Trevni column (see the package documentation). A
// []byte is returned as given, not copied.
func ToStored(s *schema.Schema, v any) (any, error) {
	switch s.Kind {
	case schema.Null:
		if v != nil {
			return nil, mismatch(s, v, "nil")
		}
		return nil, nil
	case schema.Boolean:
		b, ok := v.(bool)
		if !ok {
			return nil, mismatch(s, v, "a bool")
		}
		return b, nil
	case schema.Int:
		return intToStored(s, v)
	case schema.Long:
		return longToStored(s, v)
	case schema.Float:
		return toFloat32(s, v)
	case schema.Double:
		return toFloat64(s, v)
	case schema.String:
		switch t := v.(type) {
		case string:
			return t, nil
		case []byte:
			return string(t), nil
		}
		return nil, mismatch(s, v, "a string")
	case schema.Bytes:
		if s.Logical == schema.LogicalDecimal {
			if r, ok := v.(*big.Rat); ok {
				if r == nil {
					return nil, mismatch(s, v, "a non-nil *big.Rat")
				}
				return signedBytes(unscaled(r, s.Scale)), nil
			}
		}
		switch t := v.(type) {
		case []byte:
			return t, nil
		case string:
			return []byte(t), nil
		}
		if s.Logical == schema.LogicalDecimal {
			return nil, mismatch(s, v, "a *big.Rat")
		}
		return nil, mismatch(s, v, "a []byte")
	case schema.Fixed:
		if s.Logical == schema.LogicalDecimal {
			if r, ok := v.(*big.Rat); ok {
				if r == nil {
					return nil, mismatch(s, v, "a non-nil *big.Rat")
				}
				b, ok := fixedSignedBytes(unscaled(r, s.Scale), s.Size)
				if !ok {
					return nil, fmt.Errorf("%w: decimal %s does not fit in %s of %d bytes",
						ErrValue, r.FloatString(s.Scale), describe(s), s.Size)
				}
				return b, nil
			}
		}
		var b []byte
		switch t := v.(type) {
		case []byte:
			b = t
		case string:
			b = []byte(t)
		default:
			if s.Logical == schema.LogicalDecimal {
				return nil, mismatch(s, v, "a *big.Rat")
			}
			return nil, mismatch(s, v, "a []byte")
		}
		if len(b) != s.Size {
			return nil, fmt.Errorf("%w: %s wants %d bytes, got %d", ErrValue, describe(s), s.Size, len(b))
		}
		return b, nil
	case schema.Enum:
		sym, ok := v.(string)
		if !ok {
			return nil, mismatch(s, v, "a symbol (string)")
		}
		i := s.SymbolIndex(sym)
		if i < 0 {
			return nil, fmt.Errorf("%w: %q is not a symbol of %s", ErrValue, sym, describe(s))
		}
		return int32(i), nil
	}
	return nil, fmt.Errorf("%w: %s is not stored as a single value", ErrValue, describe(s))
}

func intToStored(s *schema.Schema, v any) (any, error) {
	switch s.Logical {
	case schema.LogicalDate:
		if t, ok := v.(time.Time); ok {
			days := t.Unix() / 86400 // toward zero, as goavro does
			if days < math.MinInt32 || days > math.MaxInt32 {
				return nil, fmt.Errorf("%w: %v is out of the range of %s", ErrValue, t, describe(s))
			}
			return int32(days), nil
		}
	case schema.LogicalTimeMillis:
		if d, ok := v.(time.Duration); ok {
			ms := d / time.Millisecond
			if ms < math.MinInt32 || ms > math.MaxInt32 {
				return nil, fmt.Errorf("%w: %v is out of the range of %s", ErrValue, d, describe(s))
			}
			return int32(ms), nil
		}
	}
	i, ok := toInt(v, 32)
	if !ok {
		return nil, mismatch(s, v, "an integer that fits in 32 bits")
	}
	return int32(i), nil
}

func longToStored(s *schema.Schema, v any) (any, error) {
	switch s.Logical {
	case schema.LogicalTimeMicros:
		if d, ok := v.(time.Duration); ok {
			return int64(d / time.Microsecond), nil
		}
	case schema.LogicalTimestampMillis, schema.LogicalTimestampMicros, schema.LogicalTimestampNanos,
		schema.LogicalLocalTimestampMillis, schema.LogicalLocalTimestampMicros, schema.LogicalLocalTimestampNanos:
		if t, ok := v.(time.Time); ok {
			n, ok := timestamp(s.Logical, t)
			if !ok {
				return nil, fmt.Errorf("%w: %v is out of the range of %s", ErrValue, t, describe(s))
			}
			return n, nil
		}
	}
	i, ok := toInt(v, 64)
	if !ok {
		return nil, mismatch(s, v, "an integer")
	}
	return i, nil
}

// timestamp counts the units of lt from the Unix epoch to t: whole seconds
// scaled, plus the fraction rounded down, as goavro computes it. For a
// local timestamp, t's wall clock is read as if it were UTC.
func timestamp(lt schema.LogicalType, t time.Time) (int64, bool) {
	var unit int64
	switch lt {
	case schema.LogicalTimestampMillis, schema.LogicalLocalTimestampMillis:
		unit = 1e3
	case schema.LogicalTimestampMicros, schema.LogicalLocalTimestampMicros:
		unit = 1e6
	default:
		unit = 1e9
	}
	switch lt {
	case schema.LogicalLocalTimestampMillis, schema.LogicalLocalTimestampMicros, schema.LogicalLocalTimestampNanos:
		y, mo, d := t.Date()
		h, mi, sec := t.Clock()
		t = time.Date(y, mo, d, h, mi, sec, t.Nanosecond(), time.UTC)
	}
	secs := t.Unix()
	if secs > math.MaxInt64/unit || secs < math.MinInt64/unit {
		return 0, false
	}
	whole := secs * unit
	frac := int64(t.Nanosecond()) / (1e9 / unit)
	if whole > math.MaxInt64-frac {
		return 0, false
	}
	return whole + frac, true
}

// toInt converts a Go number to an integer of the given size, if it holds
// one exactly.
func toInt(v any, bits int) (int64, bool) {
	var i int64
	switch t := v.(type) {
	case int:
		i = int64(t)
	case int8:
		i = int64(t)
	case int16:
		i = int64(t)
	case int32:
		i = int64(t)
	case int64:
		i = t
	case uint:
		if uint64(t) > math.MaxInt64 {
			return 0, false
		}
		i = int64(t)
	case uint8:
		i = int64(t)
	case uint16:
		i = int64(t)
	case uint32:
		i = int64(t)
	case uint64:
		if t > math.MaxInt64 {
			return 0, false
		}
		i = int64(t)
	case float32:
		return floatToInt(float64(t), bits)
	case float64:
		return floatToInt(t, bits)
	default:
		return 0, false
	}
	if bits == 32 && (i < math.MinInt32 || i > math.MaxInt32) {
		return 0, false
	}
	return i, true
}

func floatToInt(f float64, bits int) (int64, bool) {
	lim := math.Ldexp(1, bits-1)
	if f != math.Trunc(f) || f < -lim || f >= lim {
		return 0, false
	}
	return int64(f), true
}

func toFloat32(s *schema.Schema, v any) (any, error) {
	switch t := v.(type) {
	case float32:
		return t, nil
	case float64:
		return float32(t), nil // as goavro: rounded
	}
	if i, ok := toInt(v, 64); ok {
		if f := float32(i); f < 0x1p63 && int64(f) == i {
			return f, nil
		}
	}
	return nil, mismatch(s, v, "a float32 (or a number it holds exactly)")
}

func toFloat64(s *schema.Schema, v any) (any, error) {
	switch t := v.(type) {
	case float64:
		return t, nil
	case float32:
		return float64(t), nil
	}
	if i, ok := toInt(v, 64); ok {
		if f := float64(i); f < 0x1p63 && int64(f) == i {
			return f, nil
		}
	}
	return nil, mismatch(s, v, "a float64 (or a number it holds exactly)")
}

// unscaled returns r scaled by 10^scale, rounded toward negative infinity
// (big.Int's Euclidean division by a positive denominator), as goavro does.
func unscaled(r *big.Rat, scale int) *big.Int {
	n := new(big.Int).Mul(r.Num(), pow10(scale))
	return n.Div(n, r.Denom())
}

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// signedBytes returns the shortest big-endian two's complement form of n,
// as Java's BigInteger.toByteArray and goavro produce it.
func signedBytes(n *big.Int) []byte {
	switch n.Sign() {
	case 0:
		return []byte{0}
	case 1:
		b := n.Bytes()
		if b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// For n < 0, the form has room for the bits of -n-1 plus a sign bit.
	m := new(big.Int).Neg(n)
	m.Sub(m, big.NewInt(1))
	size := m.BitLen()/8 + 1
	b, _ := fixedSignedBytes(n, size)
	return b
}

// fixedSignedBytes returns n in big-endian two's complement on size bytes,
// and false if it does not fit.
func fixedSignedBytes(n *big.Int, size int) ([]byte, bool) {
	b := make([]byte, size)
	if n.Sign() >= 0 {
		if n.BitLen() > 8*size-1 {
			return nil, false
		}
		return n.FillBytes(b), true
	}
	m := new(big.Int).Neg(n)
	m.Sub(m, big.NewInt(1))
	if m.BitLen() > 8*size-1 {
		return nil, false
	}
	// -n-1 with every bit flipped is n.
	m.FillBytes(b)
	for i := range b {
		b[i] = ^b[i]
	}
	return b, true
}

// fromSignedBytes reads a big-endian two's complement integer; empty input
// is zero.
func fromSignedBytes(b []byte) *big.Int {
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(len(b))*8))
	}
	return n
}

// FromStored converts a value read from the Trevni column of the simple
// schema s back to goavro's native form: the value goavro's decoder returns
// for the same data. A []byte is returned as given, not copied.
func FromStored(s *schema.Schema, v any) (any, error) {
	switch s.Kind {
	case schema.Null:
		if v != nil {
			return nil, mismatch(s, v, "nil")
		}
		return nil, nil
	case schema.Boolean:
		b, ok := v.(bool)
		if !ok {
			return nil, mismatch(s, v, "a bool")
		}
		return b, nil
	case schema.Int:
		i, ok := toInt(v, 32)
		if !ok || isFloat(v) {
			return nil, mismatch(s, v, "an int32")
		}
		switch s.Logical {
		case schema.LogicalDate:
			return epoch.AddDate(0, 0, int(i)).UTC(), nil
		case schema.LogicalTimeMillis:
			return time.Duration(i) * time.Millisecond, nil
		}
		return int32(i), nil
	case schema.Long:
		i, ok := toInt(v, 64)
		if !ok || isFloat(v) {
			return nil, mismatch(s, v, "an int64")
		}
		switch s.Logical {
		case schema.LogicalTimeMicros:
			return time.Duration(i) * time.Microsecond, nil // wraps beyond ±292 years, as goavro's does
		case schema.LogicalTimestampMillis:
			return time.Unix(i/1e3, i%1e3*1e6).UTC(), nil
		case schema.LogicalTimestampMicros:
			return time.Unix(i/1e6, i%1e6*1e3).UTC(), nil
		}
		return i, nil
	case schema.Float:
		f, ok := v.(float32)
		if !ok {
			return nil, mismatch(s, v, "a float32")
		}
		return f, nil
	case schema.Double:
		f, ok := v.(float64)
		if !ok {
			return nil, mismatch(s, v, "a float64")
		}
		return f, nil
	case schema.String:
		switch t := v.(type) {
		case string:
			return t, nil
		case []byte:
			return string(t), nil
		}
		return nil, mismatch(s, v, "a string")
	case schema.Bytes, schema.Fixed:
		var b []byte
		switch t := v.(type) {
		case []byte:
			b = t
		case string:
			b = []byte(t)
		default:
			return nil, mismatch(s, v, "a []byte")
		}
		if s.Kind == schema.Fixed && len(b) != s.Size {
			return nil, fmt.Errorf("%w: %s wants %d bytes, got %d", ErrValue, describe(s), s.Size, len(b))
		}
		if s.Logical == schema.LogicalDecimal {
			return new(big.Rat).SetFrac(fromSignedBytes(b), pow10(s.Scale)), nil
		}
		return b, nil
	case schema.Enum:
		i, ok := toInt(v, 32)
		if !ok || isFloat(v) || i < 0 || i >= int64(len(s.Symbols)) {
			return nil, fmt.Errorf("%w: %v is not an ordinal of %s", ErrValue, v, describe(s))
		}
		return s.Symbols[i], nil
	}
	return nil, fmt.Errorf("%w: %s is not stored as a single value", ErrValue, describe(s))
}

func isFloat(v any) bool {
	switch v.(type) {
	case float32, float64:
		return true
	}
	return false
}
