package duckscan

import (
	"context"
	"fmt"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/schema"
)

// UnionByNameParameter, true, reads parts whose record schemas differ
// only in fields some of them lack, as DuckDB's readers' union_by_name
// does: a field a part lacks must be nullable (["null", T]) where it is,
// and reads as NULL in that part. The columns are those of the first part
// that has each, in the order met.
const UnionByNameParameter = "union_by_name"

// unionSchema returns the reader schema of the parts of source for
// union_by_name: every part's record fields, a field missing from some
// part given the default null.
func unionSchema(ctx context.Context, source string, open *trevni.OpenOptions) (string, error) {
	if open == nil {
		open = &trevni.OpenOptions{}
	}
	names, err := frontdoor.ExpandNames(ctx, []string{source}, open.Stores, open.Store)
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
		s := ds.Schema()
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
			} else if fields[i].Type.String() != f.Type.String() {
				return "", fmt.Errorf("field %s is %s in %s and %s in %s: %s := true joins parts that differ only in fields some lack", f.Name, fields[i].Type, present[f.Name][0], f.Type, name, UnionByNameParameter)
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
			return "", fmt.Errorf("field %s, which some parts lack, is %s in %s: it must be nullable ([\"null\", T]) for %s := true", f.Name, t, present[f.Name][0], UnionByNameParameter)
		}
		f.Default, f.HasDefault = nil, true
	}
	merged := *root
	merged.Fields = fields
	return merged.String(), nil
}
