package stats

import (
	"bytes"
	"math"
)

// FromFirstValues derives block statistics from the first value of every
// block of a column with Trevni's value index (trevni.values), as Java
// writes it for a column sorted in increasing order: block i's values then
// lie between its first value and the next block's. rows gives each
// block's row count; firsts holds the first values as package format reads
// them (bool, int32, int64, float32, float64, string or []byte, by type).
//
// The index does not promise that the column is sorted, so this is only as
// sound as that assumption, which the caller must be entitled to make. It
// returns nil, meaning no statistics, when the first values are not in
// increasing order (the column is then certainly not sorted), when a value
// does not fit t, or when t is not ordered. Float columns are marked as
// possibly holding NaN, which sorts nowhere.
func FromFirstValues(t Type, rows []int64, firsts []any) []Block {
	if len(rows) != len(firsts) || len(rows) == 0 || t == Null {
		return nil
	}
	out := make([]Block, len(rows))
	for i := range out {
		b := &out[i]
		b.Rows, b.Values, b.HasBounds = rows[i], rows[i], true
		if !setBound(t, b, firsts[i], true) {
			return nil
		}
		if i+1 < len(firsts) {
			if !setBound(t, b, firsts[i+1], false) {
				return nil
			}
		} else {
			switch {
			case t.IsInteger():
				b.MaxInt = math.MaxInt64
				if t == Boolean {
					b.MaxInt = 1
				}
			case t.IsFloat():
				b.MaxFloat = math.Inf(1)
			default:
				b.NoMax, b.MaxInexact = true, true
			}
		}
		if t.IsBytes() && !b.NoMax {
			b.MaxInexact = true // the next block's first value need not be in this block
		}
		if t.IsFloat() {
			b.NaN = true
		}
		switch {
		case t.IsInteger() && b.MinInt > b.MaxInt,
			t.IsFloat() && !(b.MinFloat <= b.MaxFloat),
			t.IsBytes() && !b.NoMax && bytes.Compare(b.MinBytes, b.MaxBytes) > 0:
			return nil
		}
		if b.Rows == 0 {
			b.HasBounds, b.NaN, b.MinInexact, b.MaxInexact, b.NoMax = false, false, false, false, false
		}
	}
	return out
}

func setBound(t Type, b *Block, v any, lo bool) bool {
	var i int64
	var f float64
	var s []byte
	switch v := v.(type) {
	case bool:
		if t != Boolean {
			return false
		}
		if v {
			i = 1
		}
	case int32:
		if t != Int && t != Fixed32 {
			return false
		}
		i = int64(v)
	case int64:
		if t != Long && t != Fixed64 {
			return false
		}
		i = v
	case float32:
		if t != Float || v != v {
			return false
		}
		f = float64(v)
	case float64:
		if t != Double || v != v {
			return false
		}
		f = v
	case string:
		if t != String {
			return false
		}
		s = []byte(v)
	case []byte:
		if t != Bytes {
			return false
		}
		s = v
	default:
		return false
	}
	if lo {
		b.MinInt, b.MinFloat, b.MinBytes = i, f, s
		if f == 0 && t.IsFloat() {
			b.MinFloat = math.Copysign(0, -1)
		}
	} else {
		b.MaxInt, b.MaxFloat, b.MaxBytes = i, f, s
	}
	return true
}
