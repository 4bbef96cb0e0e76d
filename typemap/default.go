package typemap

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/trevni-go/trevni/schema"
)

// DefaultValue converts a field default, as decoded JSON (numbers as
// json.Number, the way schema.Parse keeps them), to the goavro native value
// of schema s. Per the Avro specification, bytes and fixed defaults are
// strings whose code points 0-255 are the bytes, and a union's default is a
// value of its first branch (any branch is accepted here, first match wins).
func DefaultValue(s *schema.Schema, v any) (any, error) {
	switch s.Kind {
	case schema.Null:
		if v != nil {
			return nil, defaultMismatch(s, v)
		}
		return nil, nil
	case schema.Boolean:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case schema.Int, schema.Long:
		bits := 32
		if s.Kind == schema.Long {
			bits = 64
		}
		n, ok := jsonInt(v, bits)
		if !ok {
			return nil, defaultMismatch(s, v)
		}
		if bits == 32 {
			return FromStored(s, int32(n))
		}
		return FromStored(s, n)
	case schema.Float, schema.Double:
		f, ok := jsonFloat(v)
		if !ok {
			return nil, defaultMismatch(s, v)
		}
		if s.Kind == schema.Float {
			return float32(f), nil
		}
		return f, nil
	case schema.String:
		if str, ok := v.(string); ok {
			return FromStored(s, str)
		}
	case schema.Bytes, schema.Fixed:
		str, ok := v.(string)
		if !ok {
			return nil, defaultMismatch(s, v)
		}
		b := make([]byte, 0, len(str))
		for _, r := range str {
			if r > 255 {
				return nil, fmt.Errorf("%w: default of %s has code point %U above 255", ErrValue, describe(s), r)
			}
			b = append(b, byte(r))
		}
		if s.Kind == schema.Fixed && len(b) != s.Size {
			return nil, fmt.Errorf("%w: default of %s has %d bytes, want %d", ErrValue, describe(s), len(b), s.Size)
		}
		return FromStored(s, b)
	case schema.Enum:
		if sym, ok := v.(string); ok && s.SymbolIndex(sym) >= 0 {
			return sym, nil
		}
	case schema.Array:
		list, ok := v.([]any)
		if !ok {
			return nil, defaultMismatch(s, v)
		}
		out := make([]any, len(list))
		for i, e := range list {
			var err error
			if out[i], err = DefaultValue(s.Items, e); err != nil {
				return nil, err
			}
		}
		return out, nil
	case schema.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, defaultMismatch(s, v)
		}
		out := make(map[string]any, len(m))
		for k, e := range m {
			var err error
			if out[k], err = DefaultValue(s.Values, e); err != nil {
				return nil, err
			}
		}
		return out, nil
	case schema.Record:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, defaultMismatch(s, v)
		}
		out := make(map[string]any, len(s.Fields))
		for _, f := range s.Fields {
			fv, present := m[f.Name]
			if !present {
				if !f.HasDefault {
					return nil, fmt.Errorf("%w: default of record %s lacks field %s", ErrValue, s.Name, f.Name)
				}
				fv = f.Default
			}
			var err error
			if out[f.Name], err = DefaultValue(f.Type, fv); err != nil {
				return nil, err
			}
		}
		return out, nil
	case schema.Union:
		var first error
		for i, b := range s.Branches {
			nv, err := DefaultValue(b, v)
			if err == nil {
				return WrapUnion(s, i, nv), nil
			}
			if first == nil {
				first = err
			}
		}
		return nil, first
	}
	return nil, defaultMismatch(s, v)
}

func defaultMismatch(s *schema.Schema, v any) error {
	return fmt.Errorf("%w: default %v does not fit %s", ErrValue, v, describe(s))
}

func jsonInt(v any, bits int) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := strconv.ParseInt(string(n), 10, bits)
		if err == nil {
			return i, true
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil || f != math.Trunc(f) {
			return 0, false
		}
		return floatToInt(f, bits)
	case float64:
		return floatToInt(n, bits)
	}
	return 0, false
}

func jsonFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(n), 64)
		return f, err == nil
	case float64:
		return n, true
	}
	return 0, false
}
