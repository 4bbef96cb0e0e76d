package schema

import (
	"fmt"
	"slices"
	"strings"
)

// Difference reports where schemas a and b first differ in what they say
// about data, or "" when they describe the same data: the same kinds,
// names, logical types (with their parameters), record fields (names, in
// order), enum symbols, fixed sizes, union branches and properties of
// nodes and fields. Documentation, aliases, field defaults and orders and
// enum defaults are not compared: they say nothing of data already
// written. The result names the place by its field path ("a.b", "[]" for
// array items, "{}" for map values, "|N" for union branch N) and says what
// a has there, then what b has.
func Difference(a, b *Schema) string {
	d := differ{seen: map[[2]*Schema]bool{}}
	return d.diff(a, b, "")
}

type differ struct {
	seen map[[2]*Schema]bool // named pairs being compared (recursive schemas)
}

func at(path string) string {
	if path == "" {
		return "the schema"
	}
	return strings.TrimPrefix(path, ".")
}

func (d *differ) diff(a, b *Schema, path string) string {
	if a == b {
		return ""
	}
	if a.Kind != b.Kind || a.Kind.IsNamed() && a.Name != b.Name {
		return fmt.Sprintf("%s: %s, then %s", at(path), describe(a), describe(b))
	}
	if a.Logical != b.Logical || a.Precision != b.Precision || a.Scale != b.Scale {
		return fmt.Sprintf("%s: %s, then %s", at(path), describeLogical(a), describeLogical(b))
	}
	if !sameProps(a.Props, b.Props) {
		return fmt.Sprintf("%s: properties %s, then %s", at(path), propsText(a.Props), propsText(b.Props))
	}
	if a.Kind.IsNamed() {
		pair := [2]*Schema{a, b}
		if d.seen[pair] {
			return ""
		}
		d.seen[pair] = true
	}
	switch a.Kind {
	case Record:
		for i := range max(len(a.Fields), len(b.Fields)) {
			if i >= len(a.Fields) || i >= len(b.Fields) || a.Fields[i].Name != b.Fields[i].Name {
				return fmt.Sprintf("%s: fields %s, then %s", at(path), fieldNames(a), fieldNames(b))
			}
			fa, fb := a.Fields[i], b.Fields[i]
			p := path + "." + fa.Name
			if !sameProps(fa.Props, fb.Props) {
				return fmt.Sprintf("%s: field properties %s, then %s", at(p), propsText(fa.Props), propsText(fb.Props))
			}
			if s := d.diff(fa.Type, fb.Type, p); s != "" {
				return s
			}
		}
	case Enum:
		if !slices.Equal(a.Symbols, b.Symbols) {
			return fmt.Sprintf("%s: symbols %q, then %q", at(path), a.Symbols, b.Symbols)
		}
	case Fixed:
		if a.Size != b.Size {
			return fmt.Sprintf("%s: fixed of %d bytes, then %d", at(path), a.Size, b.Size)
		}
	case Array:
		return d.diff(a.Items, b.Items, path+"[]")
	case Map:
		return d.diff(a.Values, b.Values, path+"{}")
	case Union:
		if len(a.Branches) != len(b.Branches) {
			return fmt.Sprintf("%s: union of %d branches, then %d", at(path), len(a.Branches), len(b.Branches))
		}
		for i := range a.Branches {
			if s := d.diff(a.Branches[i], b.Branches[i], fmt.Sprintf("%s|%d", path, i)); s != "" {
				return s
			}
		}
	}
	return ""
}

func describeLogical(s *Schema) string {
	switch {
	case s.Logical == LogicalNone:
		return describe(s)
	case s.Logical == LogicalDecimal:
		return fmt.Sprintf("%s (decimal(%d, %d))", describe(s), s.Precision, s.Scale)
	}
	return fmt.Sprintf("%s (%s)", describe(s), s.Logical)
}

func fieldNames(s *Schema) string {
	names := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		names[i] = f.Name
	}
	return fmt.Sprintf("%q", names)
}

// sameProps reports whether two property lists hold the same keys and
// values, in any order.
func sameProps(a, b []Property) bool {
	if len(a) != len(b) {
		return false
	}
	for _, p := range a {
		v, ok := findProp(b, p.Key)
		if !ok || compactJSON(plain(v)) != compactJSON(plain(p.Value)) {
			return false
		}
	}
	return true
}

func propsText(props []Property) string {
	m := make(map[string]any, len(props))
	for _, p := range props {
		m[p.Key] = plain(p.Value)
	}
	return compactJSON(m)
}
