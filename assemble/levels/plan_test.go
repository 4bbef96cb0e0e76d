package levels_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/assemble/levels"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

const planSchema = `{"type":"record","name":"r","fields":[
	{"name":"a","type":"int"},
	{"name":"b","type":{"type":"record","name":"b","fields":[
		{"name":"c","type":"string"},
		{"name":"d","type":{"type":"array","items":"long"}}]}},
	{"name":"e","type":["null",{"type":"record","name":"e","fields":[
		{"name":"f","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}}]}]},
	{"name":"u","type":["null","int",{"type":"map","values":"string"}]}]}`

func mustLayout(t *testing.T, text string) *layout.Layout {
	t.Helper()
	s, err := schema.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	lay, err := layout.New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return lay
}

// The tree of a plan names each leaf's place in the reader's schema, with
// the levels a sink reads its nodes' values from.
func TestPlanTree(t *testing.T) {
	lay := mustLayout(t, planSchema)
	p, err := levels.NewPlan(lay, nil)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, l := range p.Leaves {
		paths = append(paths, l.Path)
	}
	want := []string{"a", "b.c", "b.d[]", "e.f", "u", "u[key]", "u[]"}
	if len(paths) != len(want) {
		t.Fatalf("leaves %q, want %q", paths, want)
	}
	for i := range want {
		if paths[i] != want[i] {
			t.Fatalf("leaves %q, want %q", paths, want)
		}
	}
	e := p.Root.Children[2]
	if e.Kind != levels.Record || !e.Nullable || e.Def != 1 || e.Name != "e" || e.Field.Name != "e" {
		t.Fatalf("e: %+v", e)
	}
	d := p.Root.Children[1].Children[1]
	if d.Kind != levels.List || d.Def != 0 || d.Children[0].Def != 1 || d.Children[0].Rep != 1 {
		t.Fatalf("b.d: %+v, items %+v", d, d.Children[0])
	}
	u := p.Root.Children[3]
	if u.Kind != levels.Union || !u.Nullable || len(u.Children) != 3 || u.Children[0].Leaf != -1 || u.Def != 1 {
		t.Fatalf("u: %+v", u)
	}
	if m := u.Children[2]; m.Kind != levels.Map || m.Def != 2 || m.Children[0].Name != "key" || m.Children[1].Def != 3 {
		t.Fatalf("u's map: %+v", m)
	}
	bl, err := p.BranchLeaf(u)
	if err != nil || len(bl.Steps) != 0 || len(bl.Branch) != 3 || bl.Branch[0] != -1 || bl.MaxDef() != 0 {
		t.Fatalf("branch leaf %+v, %v", bl, err)
	}
	if _, err := p.BranchLeaf(e); err == nil {
		t.Fatal("a branch leaf of a record")
	}
	// Parquet's decimals are nullable: one level more.
	f := e.Children[0]
	before := p.Leaves[f.Leaf].MaxDef()
	p.MakeNullable(f)
	if l := p.Leaves[f.Leaf]; l.MaxDef() != before+1 || f.Def != before+1 || l.Steps[len(l.Steps)-1].Kind != levels.Defined {
		t.Fatalf("nullable decimal: %+v, node Def %d", l, f.Def)
	}
	if cols := p.Columns(); len(cols) != len(lay.Columns) {
		t.Fatalf("columns %v of %d", cols, len(lay.Columns))
	}
}

// A reader schema's fields are matched by name and alias; what the plan
// does not resolve is ErrUnsupported, what cannot be read
// assemble.ErrIncompatible.
func TestPlanReaderSchema(t *testing.T) {
	lay := mustLayout(t, planSchema)
	reader := func(text string) *schema.Schema {
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	p, err := levels.NewPlan(lay, &levels.PlanOptions{Reader: reader(`{"type":"record","name":"r","fields":[
		{"name":"x","aliases":["a"],"type":"int"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Leaves) != 1 || p.Leaves[0].Col != 0 || p.Leaves[0].Path != "x" {
		t.Fatalf("renamed: %+v", p.Leaves)
	}
	_, err = levels.NewPlan(lay, &levels.PlanOptions{Reader: reader(`{"type":"record","name":"r","fields":[
		{"name":"z","type":"int"}]}`)})
	if !errors.Is(err, assemble.ErrIncompatible) {
		t.Fatalf("a field of no default: %v", err)
	}
	_, err = levels.NewPlan(lay, &levels.PlanOptions{Fields: []string{"nope"}})
	if !errors.Is(err, assemble.ErrIncompatible) {
		t.Fatalf("a field not there: %v", err)
	}
	_, err = levels.NewPlan(lay, &levels.PlanOptions{Reader: reader(`{"type":"record","name":"r","fields":[
		{"name":"a","type":"string"}]}`)})
	if !errors.Is(err, assemble.ErrIncompatible) {
		t.Fatalf("an int read as a string: %v", err)
	}
	// Resolved: promotions, defaults, a field made nullable.
	p, err = levels.NewPlan(lay, &levels.PlanOptions{Reader: reader(`{"type":"record","name":"r","fields":[
		{"name":"a","type":["null","double"]},
		{"name":"k","type":"long","default":3},
		{"name":"r2","type":{"type":"record","name":"r2","fields":[]},"default":{}}]}`)})
	if err != nil || len(p.Leaves) != 3 || !p.Leaves[2].Null || p.Root.Children[2].Kind != levels.Record {
		t.Fatalf("a default of a record: %v", err)
	}
	// A default holding levels of its own: a Default step of its levels
	// and values.
	p, err = levels.NewPlan(lay, &levels.PlanOptions{Reader: reader(`{"type":"record","name":"r","fields":[
		{"name":"l","type":{"type":"array","items":"int"},"default":[4,5]}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if l := p.Leaves[0]; len(l.Steps) != 1 || l.Steps[0].Kind != levels.Default || l.MaxDef() != 1 || l.MaxRep() != 1 ||
		fmt.Sprint(l.Steps[0].Preset) != "&{[1 1] [0 1] [4 5] 1}" {
		t.Fatalf("a default of an array: %+v", l)
	}
	p, err = levels.NewPlan(lay, &levels.PlanOptions{Reader: reader(`{"type":"record","name":"r","fields":[
		{"name":"a","type":["null","double"]},
		{"name":"k","type":"long","default":3},
		{"name":"n","type":["null",{"type":"array","items":"int"}],"default":null}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if l := p.Leaves[0]; l.Col != 0 || l.Type != format.Int || l.Promote != format.Double || l.Steps[0].Kind != levels.Defined {
		t.Fatalf("a promoted, nullable: %+v", l)
	}
	if l := p.Leaves[1]; l.Col != -1 || l.Const != int64(3) || len(l.Steps) != 0 {
		t.Fatalf("a default: %+v", l)
	}
	if l := p.Leaves[2]; l.Col != -1 || len(l.Steps) != 2 || l.Steps[0].Kind != levels.Absent || l.MaxDef() != 2 {
		t.Fatalf("a default null: %+v", l)
	}
	// A union's branches read as the reader's: the map the reader lacks
	// is foreign (an error where taken), the reader's string never taken.
	p, err = levels.NewPlan(lay, &levels.PlanOptions{Reader: reader(`{"type":"record","name":"r","fields":[
		{"name":"u","type":["string","null","long"]}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Leaves) != 2 || p.Leaves[0].Steps[0].Which != -1 || p.Leaves[1].Steps[0].Which != 0 || p.Leaves[1].Promote != format.Long ||
		fmt.Sprint(p.Leaves[1].Steps[0].Foreign) != "[false true]" {
		t.Fatalf("a union resolved: %+v", p.Leaves)
	}
	if bl, err := p.BranchLeaf(p.Root.Children[0]); err != nil || fmt.Sprint(bl.BranchMap) != "[1 2 -1]" {
		t.Fatalf("its branch leaf: %+v, %v", bl, err)
	}
	// A union read as one of its branches: a Must step, no level.
	p, err = levels.NewPlan(lay, &levels.PlanOptions{Reader: reader(`{"type":"record","name":"r","fields":[{"name":"u","type":"long"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if l := p.Leaves[0]; len(p.Leaves) != 1 || l.Steps[0].Kind != levels.Must || l.Steps[0].Which != 0 || l.MaxDef() != 0 || l.Promote != format.Long {
		t.Fatalf("a union read as long: %+v", p.Leaves)
	}
}
