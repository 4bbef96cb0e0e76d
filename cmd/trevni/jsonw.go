package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/trevni-go/trevni/internal/jsontext"
)

// jsonWriter builds compact JSON in the order it is written, which Go maps
// cannot keep. Strings are escaped by jsontext.AppendString, the project's
// one JSON string escaper. It inserts the commas; the caller keeps keys and values
// paired and containers balanced.
type jsonWriter struct {
	b     []byte
	comma bool // a value precedes at this level
}

func (w *jsonWriter) sep() {
	if w.comma {
		w.b = append(w.b, ',')
	}
	w.comma = true
}

func (w *jsonWriter) beginObject() { w.sep(); w.b = append(w.b, '{'); w.comma = false }
func (w *jsonWriter) endObject()   { w.b = append(w.b, '}'); w.comma = true }
func (w *jsonWriter) beginArray()  { w.sep(); w.b = append(w.b, '['); w.comma = false }
func (w *jsonWriter) endArray()    { w.b = append(w.b, ']'); w.comma = true }

// key writes an object key; the next call writes its value.
func (w *jsonWriter) key(k string) {
	w.sep()
	w.b = jsontext.AppendString(w.b, k)
	w.b = append(w.b, ':')
	w.comma = false
}

func (w *jsonWriter) str(s string) { w.sep(); w.b = jsontext.AppendString(w.b, s) }
func (w *jsonWriter) int(n int64)  { w.sep(); w.b = strconv.AppendInt(w.b, n, 10) }
func (w *jsonWriter) bool(v bool)  { w.sep(); w.b = strconv.AppendBool(w.b, v) }
func (w *jsonWriter) null()        { w.sep(); w.b = append(w.b, "null"...) }

// bytesValue writes metadata bytes: a string when they are valid UTF-8,
// otherwise an object {"hex": "..."} holding them in lowercase hex.
func (w *jsonWriter) bytesValue(v []byte) {
	if utf8.Valid(v) {
		w.str(string(v))
		return
	}
	w.beginObject()
	w.key("hex")
	w.str(hex.EncodeToString(v))
	w.endObject()
}

// value writes a column value as format.Row.AppendJSON does: bytes as a hex
// string, floats as Java prints them, non-finite ones as the strings "NaN",
// "Infinity", "-Infinity".
func (w *jsonWriter) value(v any) {
	switch v := v.(type) {
	case nil:
		w.null()
	case bool:
		w.bool(v)
	case int32:
		w.int(int64(v))
	case int64:
		w.int(v)
	case float32:
		w.sep()
		w.b = jsontext.AppendFloat(w.b, float64(v), 32)
	case float64:
		w.sep()
		w.b = jsontext.AppendFloat(w.b, v, 64)
	case string:
		w.sep()
		w.b = jsontext.AppendStringUTF8(w.b, v)
	case []byte:
		w.str(hex.EncodeToString(v))
	default:
		w.null()
	}
}

// indentJSON returns the JSON text b indented two spaces a level when
// pretty is set, and b itself otherwise.
func indentJSON(b []byte, pretty bool) ([]byte, error) {
	if !pretty {
		return b, nil
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
