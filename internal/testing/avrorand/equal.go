package avrorand

import (
	"bytes"
	"math"
	"math/big"
	"time"
)

// EqualNative reports whether two goavro native values are the same
// value: of the same Go types, with floats compared bit for bit (so NaN
// equals the same NaN and -0 differs from +0), times by instant, decimals
// by value, and nil and empty byte slices alike.
func EqualNative(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool, int32, int64, string, time.Duration:
		return a == b
	case float32:
		y, ok := b.(float32)
		return ok && math.Float32bits(x) == math.Float32bits(y)
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	case *big.Rat:
		y, ok := b.(*big.Rat)
		return ok && (x == y || x != nil && y != nil && x.Cmp(y) == 0)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !EqualNative(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !EqualNative(v, w) {
				return false
			}
		}
		return true
	}
	return false
}
