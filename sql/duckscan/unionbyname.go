package duckscan

import (
	"context"
	"fmt"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/schema"
)

// UnionByNameParameter, true, reads parts whose record schemas differ
// in fields some of them lack, and in the types of fields as DuckDB's
// readers' union_by_name joins them: a field a part lacks reads as NULL
// in that part, and is nullable; a field nullable (["null", T]) in one
// part and not in another is nullable; a number of one type in one part
// and another in another is of the wider (int, long, float, double, in
// that order, as Avro promotes them). The columns are those of the first
// part that has each, in the order met.
const UnionByNameParameter = "union_by_name"

// unionSchema returns the reader schema of the parts of source for
// union_by_name: every part's record fields, a field missing from some
// part made nullable, of the default null, and each field of a type
// every part's reads as (see UnionByNameParameter).
func unionSchema(ctx context.Context, source string, open *trevni.OpenOptions) (string, error) {
	if open == nil {
		open = &trevni.OpenOptions{}
	}
	so := &frontdoor.StoreOptions{Retries: open.StoreRetries, Backoff: open.StoreBackoff, Stall: open.StoreStall}
	names, err := frontdoor.ExpandNames(ctx, []string{source}, open.Stores, so)
	if err != nil {
		return "", err
	}
	var root *schema.Schema
	var fields []*schema.Field
	index := map[string]int{}        // field name: its index in fields
	present := map[string][]string{} // field name: the parts that have it
	for _, name := range names {
		ds, err := trevni.Open(ctx, name, open)
		if err != nil {
			return "", err
		}
		s := frontdoor.Schema(ds)
		ds.Close()
		if s == nil || s.Kind != schema.Record {
			return "", fmt.Errorf("%s: %s := true joins parts of record schemas", name, UnionByNameParameter)
		}
		if root == nil {
			root = s
		}
		for _, f := range s.Fields {
			i, ok := index[f.Name]
			if !ok {
				index[f.Name] = len(fields)
				c := *f
				fields = append(fields, &c)
			} else if t, ok := joinTypes(fields[i].Type, f.Type); ok {
				fields[i].Type = t
			} else {
				return "", fmt.Errorf("field %s is %s in %s and %s in %s: %s := true joins parts whose fields differ only in nullability and in numbers of wider types", f.Name, fields[i].Type, present[f.Name][0], f.Type, name, UnionByNameParameter)
			}
			present[f.Name] = append(present[f.Name], name)
		}
	}
	for _, f := range fields {
		if len(present[f.Name]) == len(names) {
			continue
		}
		t := f.Type
		if t.Kind != schema.Union || len(t.Branches) == 0 || t.Branches[0].Kind != schema.Null {
			if v := nullOf(t); v != nil {
				t = orNull(v) // [T, "null"]: null first, for the default null
			} else if t.Kind == schema.Union {
				return "", fmt.Errorf("field %s, which some parts lack, is %s in %s: a union must have a null branch first for %s := true", f.Name, t, present[f.Name][0], UnionByNameParameter)
			} else {
				t = orNull(t)
			}
			if t == nil {
				return "", fmt.Errorf("field %s, which some parts lack, is %s in %s: it cannot be made nullable for %s := true", f.Name, f.Type, present[f.Name][0], UnionByNameParameter)
			}
			f.Type = t
		}
		f.Default, f.HasDefault = nil, true
	}
	merged := *root
	merged.Fields = fields
	return merged.String(), nil
}

// joinTypes returns the type both a and b, fields' types of two parts,
// are read as by union_by_name: either if they are the same, the
// nullable one if they differ only in that, the wider of two numbers
// (nullable if either is); ok false if none.
func joinTypes(a, b *schema.Schema) (t *schema.Schema, ok bool) {
	if a.String() == b.String() {
		return a, true
	}
	ta, na := nonNullOf(a)
	tb, nb := nonNullOf(b)
	switch {
	case ta.String() == tb.String():
		t = ta
	case numberRank(ta) > 0 && numberRank(tb) > 0:
		t = ta
		if numberRank(tb) > numberRank(ta) {
			t = tb
		}
	default:
		return nil, false
	}
	if !na && !nb {
		return t, true
	}
	if na && t == ta && a.Branches[0].Kind == schema.Null {
		return a, true
	}
	if nb && t == tb && b.Branches[0].Kind == schema.Null {
		return b, true
	}
	t = orNull(t)
	return t, t != nil
}

// nonNullOf returns T of ["null", T] or [T, "null"] and true, else s and
// false.
func nonNullOf(s *schema.Schema) (*schema.Schema, bool) {
	if t := nullOf(s); t != nil {
		return t, true
	}
	return s, false
}

// nullOf returns T of a union of null and one other type T, in either
// order; nil for any other schema.
func nullOf(s *schema.Schema) *schema.Schema {
	if s.Kind != schema.Union || len(s.Branches) != 2 {
		return nil
	}
	if t := nonNull(s); t != s && t.Kind != schema.Null {
		return t
	}
	return nil
}

// numberRank orders the plain numbers by Avro's promotions (int, long,
// float, double: 1 to 4); 0 for any other type, a number of a logical
// type included.
func numberRank(s *schema.Schema) int {
	if s.Logical != "" {
		return 0
	}
	switch s.Kind {
	case schema.Int:
		return 1
	case schema.Long:
		return 2
	case schema.Float:
		return 3
	case schema.Double:
		return 4
	}
	return 0
}

// orNull returns the union ["null", t]; nil if it does not parse (a
// named type t defines is then defined twice, say).
func orNull(t *schema.Schema) *schema.Schema {
	u, err := schema.Parse(`["null",` + t.String() + `]`)
	if err != nil {
		return nil
	}
	return u
}
