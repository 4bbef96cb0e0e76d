package avrojson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/typemap"
)

// Decode parses one value in Avro's JSON encoding of schema s and returns
// it as a goavro native value. Unlike goavro's textual decoder, it reads
// bytes and fixed values as code points 0-255 (goavro counts their UTF-8
// bytes), and it accepts "NaN", "Infinity" and "-Infinity" for floats.
// A record field missing from the JSON takes its default.
func Decode(s *schema.Schema, data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("text after the value")
	}
	// encoding/json turns bytes that are not UTF-8, and escapes of lone
	// surrogates, into U+FFFD: refuse them instead.
	if err := checkText(data); err != nil {
		return nil, err
	}
	return fromJSON(s, v)
}

// checkText checks that every string of data, a valid JSON text, is valid
// UTF-8 and escapes no lone surrogate. Its error names the string's place:
// a path of object keys and array indexes.
func checkText(data []byte) error {
	if utf8.Valid(data) && !bytes.Contains(data, []byte(`\ud`)) && !bytes.Contains(data, []byte(`\uD`)) {
		return nil // the common case: no raw bad byte, no surrogate escape
	}
	type frame struct {
		object bool
		key    []byte // the raw key of the current member, in an object
		index  int    // the current element, in an array
	}
	var stack []frame
	expectKey := false
	for i := 0; i < len(data); {
		switch data[i] {
		case '{':
			stack = append(stack, frame{object: true})
			expectKey = true
		case '[':
			stack = append(stack, frame{})
			expectKey = false
		case '}', ']':
			stack = stack[:len(stack)-1]
		case ',':
			if top := &stack[len(stack)-1]; top.object {
				expectKey = true
			} else {
				top.index++
			}
		case ':':
			expectKey = false
		case '"':
			end := i + 1
			for data[end] != '"' {
				if data[end] == '\\' {
					end++
				}
				end++
			}
			raw := data[i+1 : end]
			if msg := checkString(raw); msg != "" {
				var path strings.Builder
				frames := stack
				if expectKey {
					frames = stack[:len(stack)-1] // the key's object has no member yet
				}
				for k, f := range frames {
					if f.object {
						if k > 0 {
							path.WriteByte('.')
						}
						path.WriteString(strings.ToValidUTF8(unquote(f.key), "\uFFFD"))
					} else {
						fmt.Fprintf(&path, "[%d]", f.index)
					}
				}
				where := "the value"
				switch {
				case expectKey && path.Len() > 0:
					where = "a key of " + path.String()
				case expectKey:
					where = "a key"
				case path.Len() > 0:
					where = path.String()
				}
				return fmt.Errorf("%s: %s", where, msg)
			}
			if expectKey {
				stack[len(stack)-1].key = raw
			}
			i = end
		}
		i++
	}
	return nil
}

// checkString checks the raw text of a JSON string (between the quotes),
// and describes its first problem, or returns "".
func checkString(raw []byte) string {
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\' && i+5 < len(raw) && raw[i+1] == 'u':
			r := hexRune(raw[i+2 : i+6])
			switch {
			case utf16.IsSurrogate(r) && r < 0xdc00:
				if i+11 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
					if r2 := hexRune(raw[i+8 : i+12]); r2 >= 0xdc00 && r2 <= 0xdfff {
						i += 12
						continue
					}
				}
				return fmt.Sprintf("the escape \\u%s is a lone surrogate (not followed by a low surrogate)", raw[i+2:i+6])
			case utf16.IsSurrogate(r):
				return fmt.Sprintf("the escape \\u%s is a lone low surrogate", raw[i+2:i+6])
			}
			i += 6
		case c == '\\':
			i += 2
		case c < utf8.RuneSelf:
			i++
		default:
			r, n := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && n == 1 {
				return fmt.Sprintf("a string holds byte 0x%02x, which is not valid UTF-8", c)
			}
			i += n
		}
	}
	return ""
}

// hexRune reads four hexadecimal digits; JSON's syntax has been checked.
func hexRune(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		}
	}
	return r
}

// unquote returns the text of a raw JSON string, for messages.
func unquote(raw []byte) string {
	var s string
	if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s) != nil {
		return string(raw)
	}
	return s
}

func fromJSON(s *schema.Schema, v any) (any, error) {
	switch s.Kind {
	case schema.Record:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, mismatch(s, v)
		}
		out := make(map[string]any, len(s.Fields))
		for _, f := range s.Fields {
			fv, present := m[f.Name]
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
			nv, err := fromJSON(f.Type, fv)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.Name, err)
			}
			out[f.Name] = nv
		}
		for k := range m {
			if s.Field(k) == nil {
				return nil, fmt.Errorf("%w: record %s has no field %q", typemap.ErrValue, s.Name, k)
			}
		}
		return out, nil
	case schema.Array:
		list, ok := v.([]any)
		if !ok {
			return nil, mismatch(s, v)
		}
		out := make([]any, len(list))
		for i, e := range list {
			nv, err := fromJSON(s.Items, e)
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
			nv, err := fromJSON(s.Values, e)
			if err != nil {
				return nil, fmt.Errorf("[%q]: %w", k, err)
			}
			out[k] = nv
		}
		return out, nil
	case schema.Union:
		if v == nil {
			for i, b := range s.Branches {
				if b.Kind == schema.Null {
					return typemap.WrapUnion(s, i, nil), nil
				}
			}
			return nil, fmt.Errorf("%w: null for a union without null", typemap.ErrValue)
		}
		m, ok := v.(map[string]any)
		if !ok || len(m) != 1 {
			return nil, fmt.Errorf("%w: a union value is null or an object with one key naming the branch", typemap.ErrValue)
		}
		for k, e := range m {
			i := s.Branch(k)
			if i < 0 {
				for j, b := range s.Branches {
					if typemap.UnionKey(b) == k || b.Kind.IsNamed() && b.ShortName() == k {
						i = j
					}
				}
			}
			if i < 0 {
				return nil, fmt.Errorf("%w: the union has no branch %q", typemap.ErrValue, k)
			}
			nv, err := fromJSON(s.Branches[i], e)
			if err != nil {
				return nil, err
			}
			return typemap.WrapUnion(s, i, nv), nil
		}
	case schema.Enum:
		sym, ok := v.(string)
		if !ok || s.SymbolIndex(sym) < 0 {
			return nil, fmt.Errorf("%w: %v is not a symbol of enum %s", typemap.ErrValue, v, s.Name)
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
		n, ok := v.(json.Number)
		if !ok {
			return nil, mismatch(s, v)
		}
		bits := 64
		if s.Kind == schema.Int {
			bits = 32
		}
		i, err := strconv.ParseInt(string(n), 10, bits)
		if err != nil {
			return nil, fmt.Errorf("%w: %s is not a %s", typemap.ErrValue, n, s.Kind)
		}
		if bits == 32 {
			return typemap.FromStored(s, int32(i))
		}
		return typemap.FromStored(s, i)
	case schema.Float, schema.Double:
		var f float64
		switch x := v.(type) {
		case json.Number:
			var err error
			if f, err = strconv.ParseFloat(string(x), 64); err != nil {
				return nil, fmt.Errorf("%w: %s is not a number", typemap.ErrValue, x)
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
		if s.Kind == schema.Float {
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
		str, ok := v.(string)
		if !ok {
			return nil, mismatch(s, v)
		}
		b := make([]byte, 0, len(str))
		for _, r := range str {
			if r > 0xff {
				return nil, fmt.Errorf("%w: %s holds code point %U, above 255", typemap.ErrValue, s.Kind, r)
			}
			b = append(b, byte(r))
		}
		if s.Kind == schema.Fixed && len(b) != s.Size {
			return nil, fmt.Errorf("%w: fixed %s of %d bytes holds %d", typemap.ErrValue, s.Name, s.Size, len(b))
		}
		return typemap.FromStored(s, b)
	}
	return nil, mismatch(s, v)
}

func mismatch(s *schema.Schema, v any) error {
	return fmt.Errorf("%w: %s does not take %s", typemap.ErrValue, s.Kind, jsonKind(v))
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

// CheckText checks that every string of data, a valid JSON text, is valid
// UTF-8 and escapes no lone surrogate (encoding/json would turn either into
// U+FFFD without a word).
func CheckText(data []byte) error { return checkText(data) }
