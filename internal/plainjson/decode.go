// Package plainjson reads plain JSON, the JSON that "trevni tojson --plain"
// writes, back into goavro native values of an Avro schema, and infers an
// Avro schema from lines of plain JSON.
//
// Plain JSON drops what Avro's JSON encoding keeps to be unambiguous: a
// union's value is written bare, without the branch's name. Decode takes
// the first branch of a union that accepts the JSON value (null for JSON
// null), so a value of a later branch that an earlier branch also accepts
// (a long in ["int","long"] that fits an int, a record in a union of two
// records both of whose fields it has, a string in ["string","bytes"])
// comes back as the earlier branch's value. A float takes only numbers
// that a float32 writes (0.1, not 0.1000000001), so that a double after it
// in the union keeps its digits; a record with every field of the
// object is taken before one that fills fields from their defaults; and a time of day takes a number only
// outside the day (within it, plain JSON writes a string).
package plainjson

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/trevni-go/trevni/internal/avrojson"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/typemap"
)

// maxExponent bounds the exponent of a decimal's JSON number, so that
// 1e999999999 is refused rather than expanded.
const maxExponent = 10_000

// Decode parses one plain JSON value of schema s and returns it as a
// goavro native value, the value "tojson --plain" wrote it from:
// bytes and fixed from base64, decimals from exact JSON numbers, dates,
// times and timestamps from their strings, uuids from strings, enums from
// their symbols, floats also from "NaN", "Infinity" and "-Infinity". A
// record field missing from the JSON takes its default. A union takes the
// first branch that accepts the value (see the package comment).
func Decode(s *schema.Schema, data []byte) (any, error) {
	v, err := parse(data)
	if err != nil {
		return nil, err
	}
	return fromPlain(s, v)
}

// parse reads data, one JSON value, with numbers as json.Number.
func parse(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("text after the value")
	}
	if err := avrojson.CheckText(data); err != nil {
		return nil, err
	}
	return v, nil
}

// hasKey reports whether record s has a field read from the JSON key k:
// its source name (schema.Field.SourceName: "@timestamp" for a field
// renamed _timestamp), which is its name unless renamed.
func hasKey(s *schema.Schema, k string) bool {
	if f := s.Field(k); f != nil && f.SourceName() == k {
		return true
	}
	for _, f := range s.Fields {
		if len(f.Props) > 0 && f.SourceName() == k {
			return true
		}
	}
	return false
}

func fromPlain(s *schema.Schema, v any) (any, error) {
	switch s.Kind {
	case schema.Record:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, mismatch(s, v)
		}
		for k := range m {
			if !hasKey(s, k) {
				return nil, fmt.Errorf("%w: record %s has no field %q", typemap.ErrValue, s.Name, k)
			}
		}
		out := make(map[string]any, len(s.Fields))
		for _, f := range s.Fields {
			fv, present := m[f.SourceName()]
			if !present {
				if !f.HasDefault {
					return nil, fmt.Errorf("%s: missing, and no default", f.Name)
				}
				d, err := typemap.DefaultValue(f.Type, f.Default)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", f.Name, err)
				}
				out[f.Name] = d
				continue
			}
			nv, err := fromPlain(f.Type, fv)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.Name, err)
			}
			out[f.Name] = nv
		}
		return out, nil
	case schema.Array:
		list, ok := v.([]any)
		if !ok {
			return nil, mismatch(s, v)
		}
		out := make([]any, len(list))
		for i, e := range list {
			nv, err := fromPlain(s.Items, e)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = nv
		}
		return out, nil
	case schema.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, mismatch(s, v)
		}
		out := make(map[string]any, len(m))
		for k, e := range m {
			nv, err := fromPlain(s.Values, e)
			if err != nil {
				return nil, fmt.Errorf("[%q]: %w", k, err)
			}
			out[k] = nv
		}
		return out, nil
	case schema.Union:
		var first error
		// Two passes: first a record takes only an object with all its
		// fields (as plain JSON writes it), then one missing some.
		for pass := range 2 {
			for i, b := range s.Branches {
				if (v == nil) != (b.Kind == schema.Null) || !unionFit(b, v, pass == 0) {
					continue
				}
				nv, err := fromPlain(b, v)
				if err == nil {
					return typemap.WrapUnion(s, i, nv), nil
				}
				if first == nil {
					first = err
				}
			}
		}
		if first != nil {
			return nil, fmt.Errorf("no branch of the union takes %s; the first tried: %w", jsonKind(v), first)
		}
		return nil, fmt.Errorf("%w: no branch of the union takes %s", typemap.ErrValue, jsonKind(v))
	case schema.Enum:
		sym, ok := v.(string)
		if !ok || s.SymbolIndex(sym) < 0 {
			return nil, fmt.Errorf("%w: %s is not a symbol of enum %s", typemap.ErrValue, describe(v), s.Name)
		}
		return sym, nil
	case schema.Null:
		if v != nil {
			return nil, mismatch(s, v)
		}
		return nil, nil
	case schema.Boolean:
		b, ok := v.(bool)
		if !ok {
			return nil, mismatch(s, v)
		}
		return b, nil
	case schema.Int, schema.Long:
		return fromPlainInteger(s, v)
	case schema.Float, schema.Double:
		bits := 64
		if s.Kind == schema.Float {
			bits = 32
		}
		var f float64
		switch x := v.(type) {
		case json.Number:
			var err error
			if f, err = strconv.ParseFloat(string(x), bits); err != nil {
				return nil, fmt.Errorf("%w: %s is not a %s", typemap.ErrValue, x, s.Kind)
			}
		case string:
			switch x {
			case "NaN":
				f = math.NaN()
			case "Infinity":
				f = math.Inf(1)
			case "-Infinity":
				f = math.Inf(-1)
			default:
				return nil, mismatch(s, v)
			}
		default:
			return nil, mismatch(s, v)
		}
		if bits == 32 {
			return float32(f), nil
		}
		return f, nil
	case schema.String:
		str, ok := v.(string)
		if !ok {
			return nil, mismatch(s, v)
		}
		return typemap.FromStored(s, str)
	case schema.Bytes, schema.Fixed:
		if s.Logical == schema.LogicalDecimal {
			return decimal(s, v)
		}
		str, ok := v.(string)
		if !ok {
			return nil, mismatch(s, v)
		}
		if s.Logical == schema.LogicalUUID && s.Kind == schema.Fixed && s.Size == 16 {
			if b, ok := parseUUID(str); ok {
				return b, nil
			}
		}
		b, err := base64.StdEncoding.Strict().DecodeString(str)
		if err != nil {
			return nil, fmt.Errorf("%w: %s of %q is not base64", typemap.ErrValue, s.Kind, str)
		}
		return typemap.FromStored(s, b)
	}
	return nil, mismatch(s, v)
}

// unionFit reports whether a union may try branch b for the plain JSON
// value v: a float only for a number that a float32 writes, a time of
// day only for its string or a number outside the day (as the writer
// writes them); in the first pass (whole) a record only for an object
// with all its fields, in the second a record only for one without them
// all, and nothing else.
func unionFit(b *schema.Schema, v any, whole bool) bool {
	if !whole && b.Kind != schema.Record {
		return false // tried in the first pass
	}
	switch {
	case b.Kind == schema.Record:
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if whole {
			return len(m) == len(b.Fields)
		}
		return len(m) < len(b.Fields)
	case b.Kind == schema.Float:
		return float32Number(v)
	case b.Logical == schema.LogicalTimeMillis || b.Logical == schema.LogicalTimeMicros:
		n, ok := v.(json.Number)
		if !ok {
			return true
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		day := int64(86_400_000)
		if b.Logical == schema.LogicalTimeMicros {
			day *= 1000
		}
		return err == nil && (i < 0 || i >= day)
	}
	return true
}

// float32Number reports whether v, if a number, is one that a float writes
// in plain JSON (the shortest digits of a float32), so that a union takes
// 0.1 as a float but 0.1000000001 as the double after it.
func float32Number(v any) bool {
	n, ok := v.(json.Number)
	if !ok {
		return true
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return false
	}
	g, err := strconv.ParseFloat(strconv.FormatFloat(float64(float32(f)), 'g', -1, 32), 64)
	return err == nil && (f == g || math.IsNaN(f))
}

// fromPlainInteger reads an int or long: a number, or for a date, a time of
// day or a timestamp, its string.
func fromPlainInteger(s *schema.Schema, v any) (any, error) {
	bits := 64
	if s.Kind == schema.Int {
		bits = 32
	}
	var i int64
	switch x := v.(type) {
	case json.Number:
		if s.Logical == schema.LogicalDate || isTimestamp(s.Logical) {
			return nil, mismatch(s, v) // written as strings only
		}
		var err error
		if i, err = strconv.ParseInt(string(x), 10, bits); err != nil {
			return nil, fmt.Errorf("%w: %s is not a %s", typemap.ErrValue, x, s.Kind)
		}
	case string:
		var ok bool
		i, ok = parseTime(s.Logical, x)
		if !ok {
			if s.Logical == schema.LogicalNone {
				return nil, mismatch(s, v)
			}
			return nil, fmt.Errorf("%w: %q is not a %s", typemap.ErrValue, x, s.Logical)
		}
		if bits == 32 && (i < math.MinInt32 || i > math.MaxInt32) {
			return nil, fmt.Errorf("%w: %q is beyond an int's %s", typemap.ErrValue, x, s.Logical)
		}
	default:
		return nil, mismatch(s, v)
	}
	if bits == 32 {
		return typemap.FromStored(s, int32(i))
	}
	return typemap.FromStored(s, i)
}

// decimal reads a decimal of schema s from an exact JSON number with no
// more digits after the point than the scale.
func decimal(s *schema.Schema, v any) (any, error) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, mismatch(s, v)
	}
	text := string(n)
	if e := strings.IndexAny(text, "eE"); e >= 0 {
		exp, err := strconv.Atoi(strings.TrimPrefix(text[e+1:], "+"))
		if err != nil || exp > maxExponent || exp < -maxExponent {
			return nil, fmt.Errorf("%w: decimal %s: exponent out of range", typemap.ErrValue, text)
		}
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		return nil, fmt.Errorf("%w: %s is not a decimal", typemap.ErrValue, text)
	}
	scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s.Scale)), nil)))
	if !scaled.IsInt() {
		return nil, fmt.Errorf("%w: %s has more than %d digits after the point", typemap.ErrValue, text, s.Scale)
	}
	if s.Precision > 0 {
		if digits := len(new(big.Int).Abs(scaled.Num()).String()); digits > s.Precision && scaled.Num().Sign() != 0 {
			return nil, fmt.Errorf("%w: %s has more than the precision's %d digits", typemap.ErrValue, text, s.Precision)
		}
	}
	if _, err := typemap.ToStored(s, r); err != nil {
		return nil, err
	}
	return r, nil
}

// parseUUID reads a uuid's 36-character string into its 16 bytes.
func parseUUID(str string) ([]byte, bool) {
	if len(str) != 36 || str[8] != '-' || str[13] != '-' || str[18] != '-' || str[23] != '-' {
		return nil, false
	}
	b := make([]byte, 0, 16)
	for i := 0; i < 36; i += 2 {
		if str[i] == '-' {
			i--
			continue
		}
		hi, ok1 := unhex(str[i])
		lo, ok2 := unhex(str[i+1])
		if !ok1 || !ok2 {
			return nil, false
		}
		b = append(b, hi<<4|lo)
	}
	return b, len(b) == 16
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func mismatch(s *schema.Schema, v any) error {
	return fmt.Errorf("%w: %s does not take %s", typemap.ErrValue, s.Kind, jsonKind(v))
}

func describe(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return jsonKind(v)
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
