package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Parse parses an Avro schema written as JSON text.
//
// It follows the Avro specification and, where the specification leaves
// room, Java's Schema.Parser: names may use Unicode letters and digits;
// a name without a dot is looked up first in the enclosing namespace and
// then in the null namespace; a named type must be defined before (or, for
// recursion, inside) its first use; a union default may match any branch;
// an unknown or invalid logical type is ignored (and kept as a property).
// Defaults are checked against their field's type and rejected with an
// error when they do not match, as Java does since 1.9 (ParseWith's
// options can relax that).
func Parse(text string) (*Schema, error) { return ParseWith(text, nil) }

// ParseOptions configures ParseWith. A nil *ParseOptions, like the zero
// value, is Parse's behaviour.
type ParseOptions struct {
	// AllowInvalidDefaults keeps a field default that does not match the
	// field's type instead of rejecting the schema, as Java 1.8 and older
	// did (and so wrote into data files). Such a default is an error only
	// where it is used, when a reader schema adds the field.
	AllowInvalidDefaults bool
	// MaxDepth bounds how deeply complex types (records, arrays, maps
	// and unions) may nest, counted as package schema/layout counts them.
	// 0 means DefaultMaxDepth. The JSON text itself may nest at most
	// 4*MaxDepth+16 deep (ignored properties included).
	MaxDepth int
}

// DefaultMaxDepth is the nesting depth ParseOptions allows by default,
// the same as the column layout's (package schema/layout).
const DefaultMaxDepth = 1000

// ParseWith parses an Avro schema written as JSON text, as Parse does,
// with the options opts (nil means Parse's behaviour).
func ParseWith(text string, opts *ParseOptions) (*Schema, error) {
	var o ParseOptions
	if opts != nil {
		o = *opts
	}
	maxDepth := o.MaxDepth
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	v, err := decodeJSON(text, 4*maxDepth+16)
	if err != nil {
		return nil, &Error{Record: -1, Err: err}
	}
	p := &parser{maxDepth: maxDepth, names: map[string]*Schema{}}
	s, err := p.parse(v, "", path{})
	if err != nil {
		return nil, err
	}
	// Defaults are checked once every type is complete: a default may
	// involve a record whose fields were still being parsed.
	for _, d := range p.defaults {
		if !o.AllowInvalidDefaults && !validDefault(d.field.Type, d.field.Default) {
			return nil, d.path.errorf("default value %s does not match the field's type %s",
				compactJSON(d.field.Default), describe(d.field.Type))
		}
	}
	return s, nil
}

// MustParse is like Parse but panics if the schema is invalid. It is meant
// for schemas written in the program.
func MustParse(text string) *Schema {
	s, err := Parse(text)
	if err != nil {
		panic(err)
	}
	return s
}

type parser struct {
	maxDepth int
	depth    int // how deeply the node being parsed nests
	names    map[string]*Schema
	defaults []pendingDefault
}

type pendingDefault struct {
	field *Field
	path  path
}

// path is the location of the node being parsed, as human-readable steps.
// It is a list from the innermost step outwards, so that going one level
// deeper costs one small allocation, not a copy of the whole path.
type path struct{ last *pathStep }

type pathStep struct {
	prev  *pathStep
	step  string
	depth int
}

func (p path) with(step string) path {
	d := 1
	if p.last != nil {
		d = p.last.depth + 1
	}
	return path{&pathStep{prev: p.last, step: step, depth: d}}
}

func (p path) depth() int {
	if p.last == nil {
		return 0
	}
	return p.last.depth
}

// maxPathSteps bounds the steps an error message shows: the outermost and
// innermost halves are kept and the middle is counted.
const maxPathSteps = 24

func (p path) String() string {
	n := p.depth()
	steps := make([]string, 0, min(n, maxPathSteps+1))
	i := n
	for s := p.last; s != nil; s = s.prev {
		i--
		switch {
		case i < maxPathSteps/2 || i >= n-maxPathSteps/2:
			steps = append(steps, s.step)
		case i == n-maxPathSteps/2-1:
			steps = append(steps, "... "+strconv.Itoa(n-maxPathSteps)+" more steps ...")
		}
	}
	slices.Reverse(steps)
	return strings.Join(steps, ", ")
}

func (p path) errorf(format string, args ...any) error {
	return &Error{Record: -1, Path: p.String(), Err: fmt.Errorf(format, args...)}
}

func (p *parser) parse(v any, ns string, at path) (*Schema, error) {
	if isComplex(v) {
		if p.depth >= p.maxDepth {
			return nil, at.errorf("%w: types nest more than %d deep (ParseOptions.MaxDepth)", ErrTooLarge, p.maxDepth)
		}
		p.depth++
		defer func() { p.depth-- }()
	}
	switch t := v.(type) {
	case string:
		return p.lookup(t, ns, at)
	case []any:
		return p.parseUnion(t, ns, at)
	case *object:
		return p.parseObject(t, ns, at)
	}
	return nil, at.errorf("a schema must be a string, an object or an array, not %s", jsonKind(v))
}

// lookup resolves a type name: a primitive, or a named type defined
// earlier.
func (p *parser) lookup(name, ns string, at path) (*Schema, error) {
	if k, ok := primitiveKind(name); ok {
		return &Schema{Kind: k}, nil
	}
	if !strings.Contains(name, ".") && ns != "" {
		if s, ok := p.names[ns+"."+name]; ok {
			return s, nil
		}
	}
	if s, ok := p.names[name]; ok {
		return s, nil
	}
	switch name {
	case "record", "enum", "fixed", "array", "map":
		return nil, at.errorf("type %q must be written as an object with its attributes", name)
	}
	return nil, at.errorf("unknown type %q", name)
}

// isComplex reports whether v, a schema's JSON, is a union or an object
// of a complex type (record, array, map): the nodes that nest, and that
// ParseOptions.MaxDepth counts, as the column layout does.
func isComplex(v any) bool {
	switch t := v.(type) {
	case []any:
		return true
	case *object:
		tv, _ := t.get("type")
		switch tv {
		case "record", "error", "array", "map":
			return true
		}
	}
	return false
}

func (p *parser) parseUnion(branches []any, ns string, at path) (*Schema, error) {
	u := &Schema{Kind: Union, Branches: make([]*Schema, 0, len(branches))}
	seen := map[string]int{}
	for i, b := range branches {
		bat := at.with("union branch " + strconv.Itoa(i))
		s, err := p.parse(b, ns, bat)
		if err != nil {
			return nil, err
		}
		if s.Kind == Union {
			return nil, bat.errorf("a union cannot contain a union directly")
		}
		key := s.FullName()
		if j, dup := seen[key]; dup {
			return nil, bat.errorf("union already has a branch of type %q (branch %d)", key, j)
		}
		seen[key] = i
		u.Branches = append(u.Branches, s)
	}
	return u, nil
}

func (p *parser) parseObject(o *object, ns string, at path) (*Schema, error) {
	tv, ok := o.get("type")
	if !ok {
		return nil, at.errorf(`missing "type"`)
	}
	t, ok := tv.(string)
	if !ok {
		return nil, at.errorf(`"type" must be a string, not %s`, jsonKind(tv))
	}
	if k, ok := primitiveKind(t); ok {
		s := &Schema{Kind: k}
		finish(s, o, "type")
		return s, nil
	}
	switch t {
	case "record":
		return p.parseRecord(o, ns, at)
	case "error": // a record, as Avro protocols declare errors; Java accepts it in schemas
		r, err := p.parseRecord(o, ns, at)
		if r != nil {
			r.IsError = true
		}
		return r, err
	case "enum":
		return p.parseEnum(o, ns, at)
	case "fixed":
		return p.parseFixed(o, ns, at)
	case "array":
		iv, ok := o.get("items")
		if !ok {
			return nil, at.errorf(`array is missing "items"`)
		}
		items, err := p.parse(iv, ns, at.with("items"))
		if err != nil {
			return nil, err
		}
		s := &Schema{Kind: Array, Items: items}
		finish(s, o, "type", "items")
		return s, nil
	case "map":
		vv, ok := o.get("values")
		if !ok {
			return nil, at.errorf(`map is missing "values"`)
		}
		values, err := p.parse(vv, ns, at.with("values"))
		if err != nil {
			return nil, err
		}
		s := &Schema{Kind: Map, Values: values}
		finish(s, o, "type", "values")
		return s, nil
	}
	// {"type": "SomeName"} refers to a named type.
	return p.lookup(t, ns, at)
}

// finish sets the node's logical type and keeps its other attributes, all
// but the keys listed.
func finish(s *Schema, o *object, known ...string) {
	skip := map[string]bool{}
	for _, k := range known {
		skip[k] = true
	}
	if lt, ok := o.get("logicalType"); ok {
		if name, ok := lt.(string); ok && setLogical(s, LogicalType(name), o) {
			skip["logicalType"] = true
			if s.Logical == LogicalDecimal {
				skip["precision"] = true
				skip["scale"] = true
			}
		}
	}
	s.Props = props(o, skip)
}

func props(o *object, skip map[string]bool) []Property {
	var ps []Property
	for _, k := range o.keys {
		if !skip[k] {
			ps = append(ps, Property{Key: k, Value: plain(o.vals[k])})
		}
	}
	return ps
}

// setLogical attaches the logical type lt to s if the specification allows
// it there and its parameters are valid, and reports whether it did.
func setLogical(s *Schema, lt LogicalType, o *object) bool {
	ok := false
	switch lt {
	case LogicalDecimal:
		if s.Kind != Bytes && s.Kind != Fixed {
			return false
		}
		prec, okp := intAttr(o, "precision")
		scale, oks := intAttr(o, "scale")
		if _, present := o.get("scale"); !present {
			scale, oks = 0, true
		}
		if !okp || !oks || prec <= 0 || scale < 0 || scale > prec {
			return false
		}
		if s.Kind == Fixed && prec > maxDecimalPrecision(s.Size) {
			return false
		}
		s.Precision, s.Scale = prec, scale
		ok = true
	case LogicalBigDecimal:
		ok = s.Kind == Bytes
	case LogicalUUID:
		ok = s.Kind == String || s.Kind == Fixed && s.Size == 16
	case LogicalDuration:
		ok = s.Kind == Fixed && s.Size == 12
	case LogicalDate, LogicalTimeMillis:
		ok = s.Kind == Int
	case LogicalTimeMicros, LogicalTimestampMillis, LogicalTimestampMicros, LogicalTimestampNanos,
		LogicalLocalTimestampMillis, LogicalLocalTimestampMicros, LogicalLocalTimestampNanos:
		ok = s.Kind == Long
	}
	if ok {
		s.Logical = lt
	}
	return ok
}

// maxDecimalPrecision is the number of decimal digits that a two's
// complement number of size bytes always holds, computed as Java does.
func maxDecimalPrecision(size int) int {
	if size <= 0 {
		return 0
	}
	return int(math.Floor(math.Log10(2) * float64(8*size-1)))
}

// intAttr returns an attribute holding an integral JSON number.
func intAttr(o *object, key string) (int, bool) {
	v, ok := o.get(key)
	if !ok {
		return 0, false
	}
	n, ok := v.(json.Number)
	if !ok || !isIntegral(n) {
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 32)
	if err != nil {
		return 0, false
	}
	return int(i), true
}

// isIntegral reports whether a JSON number is written as an integer, which
// is what Jackson (and so Java's default checks) calls integral.
func isIntegral(n json.Number) bool { return !strings.ContainsAny(string(n), ".eE") }

// named parses the name, namespace, aliases and doc of a named type,
// registers it and returns the namespace for its children.
func (p *parser) named(s *Schema, o *object, ns string, at path) (path, string, error) {
	nv, ok := o.get("name")
	if !ok {
		return at, "", at.errorf(`%s is missing "name"`, s.Kind)
	}
	name, ok := nv.(string)
	if !ok {
		return at, "", at.errorf(`%s "name" must be a string, not %s`, s.Kind, jsonKind(nv))
	}
	full := name
	if !strings.Contains(name, ".") {
		if nsv, ok := o.get("namespace"); ok && nsv != nil {
			space, ok := nsv.(string)
			if !ok {
				return at, "", at.errorf(`%s %q: "namespace" must be a string, not %s`, s.Kind, name, jsonKind(nsv))
			}
			ns = space
		}
		if ns != "" {
			full = ns + "." + name
		}
	}
	named := at.with(s.Kind.String() + " " + full)
	if err := checkFullName(full); err != nil {
		return named, "", named.errorf("invalid name: %v", err)
	}
	if _, ok := primitiveKind(full[strings.LastIndexByte(full, '.')+1:]); ok {
		return named, "", named.errorf("a named type cannot take the name of a primitive type")
	}
	if _, dup := p.names[full]; dup {
		return named, "", named.errorf("type %q is already defined", full)
	}
	s.Name = full
	p.names[full] = s
	space := s.Namespace()

	if av, ok := o.get("aliases"); ok {
		aliases, err := stringList(av)
		if err != nil {
			return named, "", named.errorf(`"aliases": %v`, err)
		}
		for _, a := range aliases {
			if !strings.Contains(a, ".") && space != "" {
				a = space + "." + a
			}
			if err := checkFullName(a); err != nil {
				return named, "", named.errorf("invalid alias: %v", err)
			}
			s.Aliases = append(s.Aliases, a)
		}
	}
	if dv, ok := o.get("doc"); ok {
		if doc, ok := dv.(string); ok {
			s.Doc = doc
		}
	}
	return named, space, nil
}

// namedKeys are the attributes every named type interprets itself.
var namedKeys = []string{"type", "name", "namespace", "aliases", "doc"}

func docKeys(o *object, keys []string) []string {
	// A doc that is not a string is kept as a property.
	if dv, ok := o.get("doc"); ok {
		if _, isString := dv.(string); !isString {
			out := make([]string, 0, len(keys))
			for _, k := range keys {
				if k != "doc" {
					out = append(out, k)
				}
			}
			return out
		}
	}
	return keys
}

func (p *parser) parseRecord(o *object, ns string, at path) (*Schema, error) {
	s := &Schema{Kind: Record}
	at, space, err := p.named(s, o, ns, at)
	if err != nil {
		return nil, err
	}
	fv, ok := o.get("fields")
	if !ok {
		return nil, at.errorf(`record is missing "fields"`)
	}
	fields, ok := fv.([]any)
	if !ok {
		return nil, at.errorf(`"fields" must be an array, not %s`, jsonKind(fv))
	}
	s.Fields = make([]*Field, 0, len(fields))
	seen := map[string]bool{}
	for i, v := range fields {
		fo, ok := v.(*object)
		if !ok {
			return nil, at.errorf("field %d must be an object, not %s", i, jsonKind(v))
		}
		f, err := p.parseField(s, fo, i, space, seen)
		if err != nil {
			return nil, err
		}
		s.Fields = append(s.Fields, f)
	}
	finish(s, o, append(docKeys(o, namedKeys), "fields")...)
	return s, nil
}

func (p *parser) parseField(r *Schema, o *object, i int, ns string, seen map[string]bool) (*Field, error) {
	at := path{}.with("record " + r.Name + " field " + strconv.Itoa(i))
	nv, ok := o.get("name")
	if !ok {
		return nil, at.errorf(`missing "name"`)
	}
	name, ok := nv.(string)
	if !ok {
		return nil, at.errorf(`"name" must be a string, not %s`, jsonKind(nv))
	}
	at = path{}.with("field " + r.Name + "." + name)
	if err := checkName(name); err != nil {
		return nil, at.errorf("invalid field name: %v", err)
	}
	if seen[name] {
		return nil, at.errorf("record %s already has a field %q", r.Name, name)
	}
	seen[name] = true
	tv, ok := o.get("type")
	if !ok {
		return nil, at.errorf(`missing "type"`)
	}
	t, err := p.parse(tv, ns, at)
	if err != nil {
		return nil, err
	}
	f := &Field{Name: name, Type: t}
	skip := map[string]bool{"name": true, "type": true}
	if dv, ok := o.get("doc"); ok {
		if doc, ok := dv.(string); ok {
			f.Doc = doc
			skip["doc"] = true
		}
	}
	if dv, ok := o.get("default"); ok {
		f.Default, f.HasDefault = plain(dv), true
		skip["default"] = true
		p.defaults = append(p.defaults, pendingDefault{f, at})
	}
	if ov, ok := o.get("order"); ok {
		switch ov {
		case "ascending":
			f.Order = Ascending
		case "descending":
			f.Order = Descending
		case "ignore":
			f.Order = Ignore
		default:
			return nil, at.errorf(`"order" must be "ascending", "descending" or "ignore", not %s`, compactJSON(plain(ov)))
		}
		skip["order"] = true
	}
	if av, ok := o.get("aliases"); ok {
		aliases, err := stringList(av)
		if err != nil {
			return nil, at.errorf(`"aliases": %v`, err)
		}
		for _, a := range aliases {
			if err := checkName(a); err != nil {
				return nil, at.errorf("invalid alias: %v", err)
			}
		}
		f.Aliases = aliases
		skip["aliases"] = true
	}
	f.Props = props(o, skip)
	return f, nil
}

func (p *parser) parseEnum(o *object, ns string, at path) (*Schema, error) {
	s := &Schema{Kind: Enum}
	at, _, err := p.named(s, o, ns, at)
	if err != nil {
		return nil, err
	}
	sv, ok := o.get("symbols")
	if !ok {
		return nil, at.errorf(`enum is missing "symbols"`)
	}
	symbols, err := stringList(sv)
	if err != nil {
		return nil, at.errorf(`"symbols": %v`, err)
	}
	seen := map[string]bool{}
	for _, sym := range symbols {
		if err := checkName(sym); err != nil {
			return nil, at.errorf("invalid symbol: %v", err)
		}
		if seen[sym] {
			return nil, at.errorf("duplicate symbol %q", sym)
		}
		seen[sym] = true
	}
	s.Symbols = symbols
	s.indexSymbols()
	keys := append(docKeys(o, namedKeys), "symbols")
	if dv, ok := o.get("default"); ok && dv != nil {
		d, ok := dv.(string)
		if !ok {
			return nil, at.errorf(`"default" must be a string, not %s`, jsonKind(dv))
		}
		if !seen[d] {
			return nil, at.errorf("default %q is not one of the symbols", d)
		}
		s.EnumDefault = d
		keys = append(keys, "default")
	}
	finish(s, o, keys...)
	return s, nil
}

func (p *parser) parseFixed(o *object, ns string, at path) (*Schema, error) {
	s := &Schema{Kind: Fixed}
	at, _, err := p.named(s, o, ns, at)
	if err != nil {
		return nil, err
	}
	zv, ok := o.get("size")
	if !ok {
		return nil, at.errorf(`fixed is missing "size"`)
	}
	n, ok := zv.(json.Number)
	var size int64
	if ok && isIntegral(n) {
		size, err = strconv.ParseInt(string(n), 10, 32)
	}
	if !ok || !isIntegral(n) || err != nil || size < 0 {
		return nil, at.errorf(`"size" must be a non-negative integer, not %s`, compactJSON(plain(zv)))
	}
	s.Size = int(size)
	finish(s, o, append(docKeys(o, namedKeys), "size")...)
	return s, nil
}

func stringList(v any) ([]string, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("must be an array of strings, not %s", jsonKind(v))
	}
	out := make([]string, len(a))
	for i, e := range a {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("element %d must be a string, not %s", i, jsonKind(e))
		}
		out[i] = s
	}
	return out, nil
}

// checkName checks a simple name: a letter or underscore, then letters,
// digits and underscores. Like Java's default validator, it accepts Unicode
// letters and digits, not only ASCII ones.
func checkName(name string) error {
	if name == "" {
		return errors.New("empty name")
	}
	for i, r := range name {
		if r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r) {
			continue
		}
		return fmt.Errorf("%q: a name starts with a letter or '_' and goes on with letters, digits and '_'", name)
	}
	return nil
}

// checkFullName checks every dot-separated part of a full name.
func checkFullName(full string) error {
	for _, part := range strings.Split(full, ".") {
		if err := checkName(part); err != nil {
			if part == "" {
				return fmt.Errorf("%q has an empty part", full)
			}
			return err
		}
	}
	return nil
}

// validDefault reports whether v, a decoded JSON value, is a valid default
// for a value of type s. It accepts what Java's default check accepts.
func validDefault(s *Schema, v any) bool {
	switch s.Kind {
	case Null:
		return v == nil
	case Boolean:
		_, ok := v.(bool)
		return ok
	case Int, Long:
		n, ok := v.(json.Number)
		if !ok || !isIntegral(n) {
			return false
		}
		bits := 64
		if s.Kind == Int {
			bits = 32
		}
		_, err := strconv.ParseInt(string(n), 10, bits)
		return err == nil
	case Float, Double:
		_, ok := v.(json.Number)
		return ok
	case Bytes, String, Enum, Fixed:
		_, ok := v.(string)
		return ok
	case Array:
		a, ok := v.([]any)
		if !ok {
			return false
		}
		for _, e := range a {
			if !validDefault(s.Items, e) {
				return false
			}
		}
		return true
	case Map:
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for _, e := range m {
			if !validDefault(s.Values, e) {
				return false
			}
		}
		return true
	case Union:
		for _, b := range s.Branches {
			if validDefault(b, v) {
				return true
			}
		}
		return false
	case Record:
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for _, f := range s.Fields {
			fv, present := m[f.Name]
			if !present {
				// The field's own default, checked on its own, applies.
				if !f.HasDefault {
					return false
				}
				continue
			}
			if !validDefault(f.Type, fv) {
				return false
			}
		}
		return true
	}
	return false
}

// describe names a type for messages.
func describe(s *Schema) string {
	if s.Kind.IsNamed() {
		return s.Kind.String() + " " + s.Name
	}
	return s.Kind.String()
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
