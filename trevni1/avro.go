package trevni1

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/trevni-go/trevni/schema"
)

// The Avro side of version 1.
//
// A record schema is laid out as Dremel lays out nested data: one column
// per leaf (a primitive, an enum, a fixed or a timestamp record), named by
// its dotted field path, with
//   - a nullable union ["null", T] (either order) adding one definition
//     level below it;
//   - an array adding one definition level (the array is not empty) and
//     one repetition level (the next item); its items add no name;
//   - a map being an array of entries whose leaves are "path.key"
//     (string) and "path.value" (and below);
//   - a union of one branch adding nothing.
// A union of two or more non-null branches is a choice, which levels cannot
// express: such a schema is refused with an error naming the field.

// Property and names of the Avro mapping.
const (
	// PropType on an int or long schema names the version-1 type of its
	// column when it is not the default (int, long): fixed8, fixed16,
	// fixed32 on int; fixed64 on long.
	PropType = "trevni1.type"
	// TimestampName is the full name of the Avro record an Impala
	// timestamp maps to: {nanosOfDay: long, julianDay: int}, the two parts
	// of its 12 bytes (the day number's 32 bits as an int).
	TimestampName = "trevni1.Timestamp"
	// RowName is the full name of the record a file without avro.schema
	// reads as.
	RowName = "trevni1.Row"
	// MaxColumns bounds the columns a schema may lay out.
	MaxColumns = 1 << 20
)

// TimestampSchema is the Avro schema of an Impala timestamp.
const TimestampSchema = `{"type":"record","name":"Timestamp","namespace":"trevni1","fields":[{"name":"nanosOfDay","type":"long"},{"name":"julianDay","type":"int"}]}`

type nodeKind uint8

const (
	nLeaf nodeKind = iota
	nRecord
	nOptional
	nArray
	nMap
	nUnion1
)

// node is one position of the layout tree.
type node struct {
	kind     nodeKind
	s        *schema.Schema
	path     string
	def, rep int // levels of entries defined down to this node
	lo, hi   int // its leaves' columns
	children []*node
	// optional: the union indexes of null and of the value.
	nullIdx, valIdx int
	typ             Type // leaf
}

// plan is a schema's layout.
type plan struct {
	root *node
	cols []ColumnSpec
}

func schemaErr(path string, format string, args ...any) error {
	return &schema.Error{Record: -1, Path: path, Err: fmt.Errorf(format, args...)}
}

// newPlan lays out a record schema.
func newPlan(s *schema.Schema) (*plan, error) {
	if s.Kind != schema.Record {
		return nil, schemaErr("", "version 1 stores records; the schema is %s", s.Kind)
	}
	p := &plan{}
	root, err := p.walk(s, "", 0, 0, map[*schema.Schema]bool{})
	if err != nil {
		return nil, err
	}
	p.root = root
	return p, nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func isTimestamp(s *schema.Schema) bool {
	return s.Kind == schema.Record && s.Name == TimestampName && len(s.Fields) == 2 &&
		s.Fields[0].Name == "nanosOfDay" && s.Fields[0].Type.Kind == schema.Long &&
		s.Fields[1].Name == "julianDay" && s.Fields[1].Type.Kind == schema.Int
}

func (p *plan) walk(s *schema.Schema, path string, def, rep int, onPath map[*schema.Schema]bool) (*node, error) {
	n := &node{s: s, path: path, def: def, rep: rep, lo: len(p.cols)}
	where := path
	if where == "" {
		where = "the top level"
	}
	leaf := func(t Type) (*node, error) {
		if len(p.cols) >= MaxColumns {
			return nil, schemaErr(path, "more than %d columns", MaxColumns)
		}
		n.kind, n.typ = nLeaf, t
		name := path
		if name == "" {
			name = "value"
		}
		p.cols = append(p.cols, ColumnSpec{Name: name, Type: t, MaxDef: def, MaxRep: rep})
		n.hi = len(p.cols)
		return n, nil
	}
	switch s.Kind {
	case schema.Null:
		return leaf(Null)
	case schema.Boolean:
		return leaf(Boolean)
	case schema.Int, schema.Long:
		t := Int
		if s.Kind == schema.Long {
			t = Long
		}
		if v, ok := s.Prop(PropType); ok {
			name, _ := v.(string)
			pt, err := ParseType(name)
			ok := err == nil && ((s.Kind == schema.Int && (pt == Fixed8 || pt == Fixed16 || pt == Fixed32 || pt == Int)) ||
				(s.Kind == schema.Long && (pt == Fixed64 || pt == Long)))
			if !ok {
				return nil, schemaErr(path, "%s %v cannot apply to %s", PropType, v, s.Kind)
			}
			t = pt
		}
		return leaf(t)
	case schema.Float:
		return leaf(Float)
	case schema.Double:
		return leaf(Double)
	case schema.String:
		return leaf(String)
	case schema.Bytes, schema.Fixed:
		return leaf(Bytes)
	case schema.Enum:
		return leaf(Int)
	case schema.Record:
		if isTimestamp(s) {
			return leaf(Timestamp)
		}
		if onPath[s] {
			return nil, schemaErr(path, "recursive type %s cannot be laid out", s.Name)
		}
		onPath[s] = true
		defer delete(onPath, s)
		n.kind = nRecord
		for _, f := range s.Fields {
			c, err := p.walk(f.Type, join(path, f.Name), def, rep, onPath)
			if err != nil {
				return nil, err
			}
			n.children = append(n.children, c)
		}
	case schema.Union:
		nonNull, nullIdx := -1, -1
		for i, b := range s.Branches {
			if b.Kind == schema.Null {
				nullIdx = i
			} else if nonNull < 0 {
				nonNull = i
			} else {
				return nil, schemaErr(path, "union of %s and %s in %s: version 1 has definition and repetition levels, which express only [\"null\", T] unions",
					s.Branches[nonNull].FullName(), b.FullName(), where)
			}
		}
		if nonNull < 0 && len(s.Branches) != 1 {
			return nil, schemaErr(path, "union without a non-null branch in %s", where)
		}
		if len(s.Branches) == 1 {
			c, err := p.walk(s.Branches[0], path, def, rep, onPath)
			if err != nil {
				return nil, err
			}
			n.kind, n.children = nUnion1, []*node{c}
			break
		}
		c, err := p.walk(s.Branches[nonNull], path, def+1, rep, onPath)
		if err != nil {
			return nil, err
		}
		n.kind, n.children, n.nullIdx, n.valIdx = nOptional, []*node{c}, nullIdx, nonNull
		n.def = def + 1
	case schema.Array:
		c, err := p.walk(s.Items, path, def+1, rep+1, onPath)
		if err != nil {
			return nil, err
		}
		n.kind, n.children, n.def, n.rep = nArray, []*node{c}, def+1, rep+1
	case schema.Map:
		k, err := p.walk(schema.MustParse(`"string"`), join(path, "key"), def+1, rep+1, onPath)
		if err != nil {
			return nil, err
		}
		v, err := p.walk(s.Values, join(path, "value"), def+1, rep+1, onPath)
		if err != nil {
			return nil, err
		}
		n.kind, n.children, n.def, n.rep = nMap, []*node{k, v}, def+1, rep+1
	default:
		return nil, schemaErr(path, "unknown type %s", s.Kind)
	}
	n.hi = len(p.cols)
	if (n.kind == nOptional || n.kind == nArray) && n.hi == n.lo {
		return nil, schemaErr(path, "%s holds no column to carry its levels (a record without fields)", s.Kind)
	}
	if n.def > 1000 {
		return nil, schemaErr(path, "nested more than 1000 levels deep")
	}
	return n, nil
}

// Layout returns the columns an Avro record schema lays out as, or an error
// naming the first field version 1 cannot express.
func Layout(schemaText string) ([]ColumnSpec, error) {
	s, err := schema.Parse(schemaText)
	if err != nil {
		return nil, err
	}
	p, err := newPlan(s)
	if err != nil {
		return nil, err
	}
	return p.cols, nil
}

// isAvroName reports whether s is a valid Avro name.
func isAvroName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// flatSchema derives the Avro schema of a file without avro.schema: a
// record of one field per column, named after it, ["null", T] where the
// column's maximum definition level is 1.
func flatSchema(rd *Reader) (string, error) {
	var b strings.Builder
	b.WriteString(`{"type":"record","name":"Row","namespace":"trevni1","fields":[`)
	seen := map[string]bool{}
	tsDefined := false
	for i := range rd.cols {
		c := &rd.cols[i]
		fail := func(format string, args ...any) error {
			return rd.colErr(i, -1, -1, rd.starts[i], fmt.Errorf("%w: no %s metadata, and "+format, append([]any{ErrFormat, KeyAvroSchema}, args...)...))
		}
		if c.MaxRep > 0 || c.MaxDef > 1 {
			return "", fail("a nested column (repetition %d, definition %d) cannot be read as a field", c.MaxRep, c.MaxDef)
		}
		if !isAvroName(c.Name) || seen[c.Name] {
			return "", fail("the column name is not a distinct Avro name")
		}
		if c.Type == Null && c.MaxDef > 0 {
			return "", fail("a nullable null column has no Avro type")
		}
		seen[c.Name] = true
		var t string
		switch c.Type {
		case Fixed8, Fixed16, Fixed32:
			t = fmt.Sprintf(`{"type":"int",%q:%q}`, PropType, c.Type)
		case Fixed64:
			t = fmt.Sprintf(`{"type":"long",%q:%q}`, PropType, c.Type)
		case Timestamp:
			t = `"trevni1.Timestamp"`
			if !tsDefined {
				t, tsDefined = TimestampSchema, true
			}
		default:
			t = `"` + c.Type.String() + `"`
		}
		if c.MaxDef > 0 {
			t = `["null",` + t + `]`
		}
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(c.Name)
		fmt.Fprintf(&b, `{"name":%s,"type":%s}`, name, t)
	}
	b.WriteString("]}")
	return b.String(), nil
}

// AvroSchema returns the Avro schema the file's records read as: its
// avro.schema metadata, or for a file without it (as Impala wrote them) a
// record of one field per column (see the package documentation).
func (rd *Reader) AvroSchema() (string, error) {
	if v, ok := rd.meta.Get(KeyAvroSchema); ok {
		return string(v), nil
	}
	return flatSchema(rd)
}
