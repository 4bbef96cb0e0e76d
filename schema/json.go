package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// object is a JSON object that remembers the order of its keys. As with
// Jackson, which Java's parser uses, a repeated key keeps its first position
// and its last value.
type object struct {
	keys []string
	vals map[string]any
}

func (o *object) get(key string) (any, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// decodeJSON decodes one JSON value nested at most maxDepth deep. Objects
// become *object, numbers json.Number; arrays, strings, booleans and null
// decode as usual.
func decodeJSON(text string, maxDepth int) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	v, err := decodeValue(dec, maxDepth)
	if err != nil {
		return nil, jsonError(dec, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("unexpected data after the schema")
		}
		return nil, jsonError(dec, err)
	}
	return v, nil
}

func jsonError(dec *json.Decoder, err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at offset %d: %w", se.Offset, err)
	}
	return fmt.Errorf("invalid JSON at offset %d: %w", dec.InputOffset(), err)
}

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth <= 0 {
			return nil, fmt.Errorf("%w: JSON nests too deeply (raise ParseOptions.MaxDepth)", ErrTooLarge)
		}
		switch t {
		case '{':
			o := &object{vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string) // the decoder only yields string keys here
				v, err := decodeValue(dec, depth-1)
				if err != nil {
					return nil, err
				}
				if _, dup := o.vals[k]; !dup {
					o.keys = append(o.keys, k)
				}
				o.vals[k] = v
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec, depth-1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return a, nil
		}
		return nil, fmt.Errorf("unexpected %q", rune(t))
	default:
		return tok, nil
	}
}

// plain converts a decoded value to ordinary Go JSON values, turning every
// *object into a map[string]any.
func plain(v any) any {
	switch t := v.(type) {
	case *object:
		m := make(map[string]any, len(t.keys))
		for _, k := range t.keys {
			m[k] = plain(t.vals[k])
		}
		return m
	case []any:
		a := make([]any, len(t))
		for i, e := range t {
			a[i] = plain(e)
		}
		return a
	}
	return v
}

// jsonKind names the JSON type of a decoded value, for error messages.
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
	case *object, map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
