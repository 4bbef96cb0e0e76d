// Package avrojson writes goavro native values in Avro's JSON encoding,
// with record fields in schema order and map keys sorted, so that output is
// deterministic and reads like Java's.
package avrojson

import (
	"fmt"
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
		return jsontext.AppendFloat(dst, float64(x), 32), nil
	case float64:
		return jsontext.AppendFloat(dst, x, 64), nil
	case string:
		return jsontext.AppendString(dst, x), nil
	case []byte:
		return jsontext.AppendLatin1(dst, x), nil
	}
	return dst, fmt.Errorf("%w: unexpected %T", typemap.ErrValue, stored)
}
