package schema

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// String returns the schema as compact JSON text, laid out as Java's
// Schema.toString lays it out: a named type is defined where it first
// occurs and referred to by name afterwards, names are written relative to
// the enclosing namespace, and properties are kept. Parsing the text gives
// back an equivalent schema.
func (s *Schema) String() string {
	w := &writer{defined: map[string]bool{}}
	w.schema(s, "")
	return w.buf.String()
}

// MarshalJSON returns the same text as String.
func (s *Schema) MarshalJSON() ([]byte, error) { return []byte(s.String()), nil }

// Canonical returns the schema's Parsing Canonical Form, as the Avro
// specification defines it: full names, only the attributes that matter
// for reading binary data, in a fixed order, without white space.
func (s *Schema) Canonical() string {
	w := &writer{defined: map[string]bool{}, canonical: true}
	w.schema(s, "")
	return w.buf.String()
}

// Fingerprint64 returns the CRC-64-AVRO (Rabin) fingerprint of the
// schema's Parsing Canonical Form, as used by Avro's single-object
// encoding.
func (s *Schema) Fingerprint64() uint64 {
	return rabin([]byte(s.Canonical()))
}

type writer struct {
	buf       bytes.Buffer
	defined   map[string]bool
	canonical bool
}

// ref writes how a named type is referred to from namespace ns.
func (w *writer) ref(s *Schema, ns string) {
	if !w.canonical && s.Namespace() == ns {
		w.str(s.ShortName())
		return
	}
	w.str(s.Name)
}

func (w *writer) schema(s *Schema, ns string) {
	if s.Kind.IsNamed() {
		if w.defined[s.Name] {
			w.ref(s, ns)
			return
		}
		w.defined[s.Name] = true
	}
	switch s.Kind {
	case Union:
		w.buf.WriteByte('[')
		for i, b := range s.Branches {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			w.schema(b, ns)
		}
		w.buf.WriteByte(']')
		return
	case Record, Enum, Fixed:
		w.named(s, ns)
		return
	}
	hasAttrs := s.Kind == Array || s.Kind == Map
	if !w.canonical && (s.Logical != "" || len(s.Props) > 0) {
		hasAttrs = true
	}
	if !hasAttrs {
		w.str(s.Kind.String())
		return
	}
	w.buf.WriteByte('{')
	w.key("type")
	w.str(s.Kind.String())
	switch s.Kind {
	case Array:
		w.comma()
		w.key("items")
		w.schema(s.Items, ns)
	case Map:
		w.comma()
		w.key("values")
		w.schema(s.Values, ns)
	}
	w.extras(s)
	w.buf.WriteByte('}')
}

func (w *writer) named(s *Schema, ns string) {
	w.buf.WriteByte('{')
	space := s.Namespace()
	if w.canonical {
		w.key("name")
		w.str(s.Name)
		w.comma()
		w.key("type")
		w.str(s.Kind.String())
	} else {
		w.key("type")
		if s.IsError {
			w.str("error")
		} else {
			w.str(s.Kind.String())
		}
		w.comma()
		w.key("name")
		w.str(s.ShortName())
		if space != ns {
			w.comma()
			w.key("namespace")
			w.str(space)
		}
		if s.Doc != "" {
			w.comma()
			w.key("doc")
			w.str(s.Doc)
		}
	}
	switch s.Kind {
	case Record:
		w.comma()
		w.key("fields")
		w.buf.WriteByte('[')
		for i, f := range s.Fields {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			w.field(f, space)
		}
		w.buf.WriteByte(']')
	case Enum:
		w.comma()
		w.key("symbols")
		w.buf.WriteByte('[')
		for i, sym := range s.Symbols {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			w.str(sym)
		}
		w.buf.WriteByte(']')
		if s.EnumDefault != "" && !w.canonical {
			w.comma()
			w.key("default")
			w.str(s.EnumDefault)
		}
	case Fixed:
		w.comma()
		w.key("size")
		w.buf.WriteString(strconv.Itoa(s.Size))
	}
	if !w.canonical {
		w.extras(s)
		if len(s.Aliases) > 0 {
			w.comma()
			w.key("aliases")
			w.buf.WriteByte('[')
			for i, a := range s.Aliases {
				if i > 0 {
					w.buf.WriteByte(',')
				}
				if i := strings.LastIndexByte(a, '.'); i >= 0 && a[:i] == space {
					a = a[i+1:]
				}
				w.str(a)
			}
			w.buf.WriteByte(']')
		}
	}
	w.buf.WriteByte('}')
}

// extras writes the logical type and the other properties.
func (w *writer) extras(s *Schema) {
	if w.canonical {
		return
	}
	if s.Logical != "" {
		w.comma()
		w.key("logicalType")
		w.str(string(s.Logical))
		if s.Logical == LogicalDecimal {
			w.comma()
			w.key("precision")
			w.buf.WriteString(strconv.Itoa(s.Precision))
			w.comma()
			w.key("scale")
			w.buf.WriteString(strconv.Itoa(s.Scale))
		}
	}
	w.props(s.Props)
}

func (w *writer) props(ps []Property) {
	for _, p := range ps {
		w.comma()
		w.key(p.Key)
		w.value(p.Value)
	}
}

func (w *writer) field(f *Field, ns string) {
	w.buf.WriteByte('{')
	w.key("name")
	w.str(f.Name)
	w.comma()
	w.key("type")
	w.schema(f.Type, ns)
	if !w.canonical {
		if f.Doc != "" {
			w.comma()
			w.key("doc")
			w.str(f.Doc)
		}
		if f.HasDefault {
			w.comma()
			w.key("default")
			w.value(f.Default)
		}
		if f.Order != Ascending {
			w.comma()
			w.key("order")
			w.str(f.Order.String())
		}
		if len(f.Aliases) > 0 {
			w.comma()
			w.key("aliases")
			w.value(f.Aliases)
		}
		w.props(f.Props)
	}
	w.buf.WriteByte('}')
}

// comma separates a member from the previous one.
func (w *writer) comma() { w.buf.WriteByte(',') }

func (w *writer) key(k string) {
	w.str(k)
	w.buf.WriteByte(':')
}

// str writes a JSON string, escaping only what JSON requires (and, as
// Jackson does, every control character), so text stays readable UTF-8.
func (w *writer) str(s string) {
	const hex = "0123456789abcdef"
	w.buf.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				w.buf.WriteString(`\ufffd`)
			} else {
				w.buf.WriteString(s[i : i+n])
			}
			i += n
			continue
		}
		switch c {
		case '"':
			w.buf.WriteString(`\"`)
		case '\\':
			w.buf.WriteString(`\\`)
		case '\n':
			w.buf.WriteString(`\n`)
		case '\r':
			w.buf.WriteString(`\r`)
		case '\t':
			w.buf.WriteString(`\t`)
		case '\b':
			w.buf.WriteString(`\b`)
		case '\f':
			w.buf.WriteString(`\f`)
		default:
			if c < 0x20 {
				w.buf.WriteString(`\u00`)
				w.buf.WriteByte(hex[c>>4])
				w.buf.WriteByte(hex[c&0xf])
			} else {
				w.buf.WriteByte(c)
			}
		}
		i++
	}
	w.buf.WriteByte('"')
}

// value writes a decoded JSON value; map keys are sorted.
func (w *writer) value(v any) {
	switch t := v.(type) {
	case nil:
		w.buf.WriteString("null")
	case bool:
		w.buf.WriteString(strconv.FormatBool(t))
	case json.Number:
		w.buf.WriteString(string(t))
	case string:
		w.str(t)
	case []string:
		w.buf.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			w.str(e)
		}
		w.buf.WriteByte(']')
	case []any:
		w.buf.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			w.value(e)
		}
		w.buf.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		w.buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			w.key(k)
			w.value(t[k])
		}
		w.buf.WriteByte('}')
	default:
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			w.buf.WriteString("null")
			return
		}
		w.buf.Write(bytes.TrimRight(b.Bytes(), "\n"))
	}
}

// The CRC-64-AVRO fingerprint of the Avro specification.
const rabinEmpty = 0xc15d213aa4d7a795

var rabinTable = func() (t [256]uint64) {
	for i := range t {
		fp := uint64(i)
		for range 8 {
			fp = fp>>1 ^ rabinEmpty&-(fp&1)
		}
		t[i] = fp
	}
	return t
}()

func rabin(b []byte) uint64 {
	fp := uint64(rabinEmpty)
	for _, c := range b {
		fp = fp>>8 ^ rabinTable[byte(fp)^c]
	}
	return fp
}
