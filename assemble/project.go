package assemble

import (
	"fmt"
	"sort"
	"strings"

	"github.com/trevni-go/trevni/schema"
)

// projector derives the schema of records holding only selected fields.
type projector struct {
	// named maps a record's full name to the selection it was projected
	// with ("*" for whole), since a name can have one definition only.
	named map[string]string
}

// key renders a selection, so that two uses of a record can be compared.
// It writes into one builder, so that it is linear in the selection's
// size, however deep.
func (sel selection) key() string {
	var b strings.Builder
	sel.writeKey(&b)
	return b.String()
}

func (sel selection) writeKey(b *strings.Builder) {
	if sel == nil {
		b.WriteByte('*')
		return
	}
	names := make([]string, 0, len(sel))
	for n := range sel {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b.WriteString(n)
		if sub := sel[n]; sub != nil {
			b.WriteByte('(')
			sub.writeKey(b)
			b.WriteByte(')')
		}
		b.WriteByte(',')
	}
}

// project returns s with only the selected fields of its records (arrays,
// maps and unions passed through), sharing what the selection leaves
// whole.
func (pj *projector) project(s *schema.Schema, sel selection, path string, depth int) (*schema.Schema, error) {
	if depth > maxSelectionDepth {
		return nil, fmt.Errorf("assemble: field selection nests too deep at %s", path)
	}
	switch s.Kind {
	case schema.Record:
		k := sel.key()
		if prev, ok := pj.named[s.Name]; ok {
			if prev != k {
				return nil, fmt.Errorf("assemble: field selection: record %s is used in several places with different fields selected (at %s)", s.Name, path)
			}
			if sel == nil {
				return s, nil
			}
		}
		pj.named[s.Name] = k
		if sel == nil {
			return s, nil
		}
		for name := range sel {
			if s.Field(name) == nil {
				return nil, incompatible(join(path, name), "selected, but %s has no such field", s.Name)
			}
		}
		c := *s
		c.Fields = nil
		for _, f := range s.Fields {
			sub, ok := sel[f.Name]
			if !ok {
				continue
			}
			t, err := pj.project(f.Type, sub, join(path, f.Name), depth+1)
			if err != nil {
				return nil, err
			}
			fc := *f
			fc.Type = t
			if t != f.Type {
				fc.HasDefault, fc.Default = false, nil // a default of the whole record no longer fits
			}
			c.Fields = append(c.Fields, &fc)
		}
		return &c, nil
	case schema.Array, schema.Map:
		if sel == nil {
			return s, nil
		}
		c := *s
		var err error
		if s.Kind == schema.Array {
			c.Items, err = pj.project(s.Items, sel, path+"[]", depth+1)
		} else {
			c.Values, err = pj.project(s.Values, sel, path+"[]", depth+1)
		}
		return &c, err
	case schema.Union:
		if sel == nil {
			return s, nil
		}
		c := *s
		c.Branches = make([]*schema.Schema, len(s.Branches))
		for i, b := range s.Branches {
			if b.Kind != schema.Record && b.Kind != schema.Array && b.Kind != schema.Map {
				c.Branches[i] = b // null and the like: the selection passes them
				continue
			}
			var err error
			if c.Branches[i], err = pj.project(b, sel, path, depth+1); err != nil {
				return nil, err
			}
		}
		return &c, nil
	}
	if sel != nil {
		return nil, incompatible(path, "selects fields of %s, which has none", describe(s))
	}
	return s, nil
}

// projectSchema returns the schema of s's records with only the fields
// sel selects.
func projectSchema(s *schema.Schema, sel selection) (*schema.Schema, error) {
	pj := &projector{named: map[string]string{}}
	p, err := pj.project(s, sel, "", 0)
	if err != nil {
		return nil, err
	}
	// Check the text: a named type defined twice would not parse back.
	return schema.Parse(p.String())
}

// ProjectSchema returns the schema of s's records holding only the fields
// that paths select, as Options.Fields selects them: dotted paths of field
// names (Avro names, or source names as schema.ResolvePath takes them),
// passing through arrays, maps and unions; a path naming a record keeps
// all of it. The result is a reader schema that reads files of s.
func ProjectSchema(s *schema.Schema, paths []string) (*schema.Schema, error) {
	paths, err := schema.ResolvePaths(s, paths)
	if err != nil {
		return nil, fmt.Errorf("assemble: %w", err)
	}
	sel, err := parseSelection(paths)
	if err != nil || sel == nil {
		return s, err
	}
	return projectSchema(s, sel)
}
