// Package avrojson writes goavro native values in Avro's JSON encoding,
// with record fields in schema order and map keys sorted, so that output is
// deterministic and reads like Java's.
package avrojson

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/trevni-go/trevni/internal/jsontext"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/typemap"
)

// Append appends the Avro JSON encoding of v, a goavro native value of
// schema s. Bytes and fixed values are strings whose code points 0-255 are
// the bytes; a union value other than null is an object whose one key names
// the branch; logical types are written as their underlying values. Non-
// finite floats are written as the strings "NaN", "Infinity" and
// "-Infinity", as Java's encoder does.
func Append(dst []byte, s *schema.Schema, v any) ([]byte, error) {
	switch s.Kind {
	case schema.Record:
		m, ok := v.(map[string]any)
		if !ok {
			return dst, fmt.Errorf("%w: record %s is %T", typemap.ErrValue, s.Name, v)
		}
		dst = append(dst, '{')
		for i, f := range s.Fields {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsontext.AppendString(dst, f.Name)
			dst = append(dst, ':')
			var err error
			if dst, err = Append(dst, f.Type, m[f.Name]); err != nil {
				return dst, fmt.Errorf("%s: %w", f.Name, err)
			}
		}
		return append(dst, '}'), nil
	case schema.Array:
		list, ok := v.([]any)
		if !ok {
			return dst, fmt.Errorf("%w: array is %T", typemap.ErrValue, v)
		}
		dst = append(dst, '[')
		for i, e := range list {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = Append(dst, s.Items, e); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case schema.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return dst, fmt.Errorf("%w: map is %T", typemap.ErrValue, v)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsontext.AppendString(dst, k)
			dst = append(dst, ':')
			var err error
			if dst, err = Append(dst, s.Values, m[k]); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	case schema.Union:
		b, inner, err := typemap.ResolveUnion(s, v)
		if err != nil {
			return dst, err
		}
		br := s.Branches[b]
		if br.Kind == schema.Null {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '{')
		dst = jsontext.AppendString(dst, br.FullName())
		dst = append(dst, ':')
		if dst, err = Append(dst, br, inner); err != nil {
			return dst, err
		}
		return append(dst, '}'), nil
	case schema.Enum:
		sym, ok := v.(string)
		if !ok {
			return dst, fmt.Errorf("%w: enum %s is %T", typemap.ErrValue, s.Name, v)
		}
		return jsontext.AppendString(dst, sym), nil
	}
	stored, err := typemap.ToStored(s, v)
	if err != nil {
		return dst, err
	}
	switch x := stored.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int32:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case float32:
		return AppendFloat(dst, float64(x), 32), nil
	case float64:
		return AppendFloat(dst, x, 64), nil
	case string:
		return jsontext.AppendString(dst, x), nil
	case []byte:
		return jsontext.AppendLatin1(dst, x), nil
	}
	return dst, fmt.Errorf("%w: unexpected %T", typemap.ErrValue, stored)
}

// AppendFloat writes f as Java's Double.toString and Float.toString do
// (with the shortest digits that read back exactly): plain decimal from
// 10^-3 up to 10^7, "computerized scientific notation" (1.0E-300) beyond.
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
	abs := math.Abs(f)
	if abs >= 1e-3 && abs < 1e7 {
		b := strconv.AppendFloat(dst, f, 'f', -1, bits)
		if !slices.Contains(b[len(dst):], '.') {
			b = append(b, '.', '0')
		}
		return b
	}
	// Shortest digits in exponent form, then Java's layout: d.dddE[-]x.
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, bits)
	if k := slices.Index(e, 'e'); k == 1 || k == 2 && e[0] == '-' {
		// Java writes at least two digits, the closest to the value:
		// 4.9E-324 rather than 5.0E-324.
		e = strconv.AppendFloat(tmp[:0], f, 'e', 1, bits)
	}
	k := slices.Index(e, 'e')
	mant, exp := e[:k], e[k+1:]
	dst = append(dst, mant...)
	if !slices.Contains(mant, '.') {
		dst = append(dst, '.', '0')
	}
	dst = append(dst, 'E')
	if exp[0] == '-' {
		dst = append(dst, '-')
	}
	exp = exp[1:]
	for len(exp) > 1 && exp[0] == '0' {
		exp = exp[1:]
	}
	return append(dst, exp...)
}
