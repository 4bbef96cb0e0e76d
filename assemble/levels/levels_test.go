package levels_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/trevni-go/trevni/assemble/levels"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/shred"
	"github.com/trevni-go/trevni/typemap"
)

// level is one level of a leaf and its value, if it has one.
type level struct {
	def, rep int16
	val      any
}

// planner makes the leaves of a layout the way the Parquet mapping does
// (a ["null", T] union optional, a union of several branches a group of
// optional branches, arrays and maps repeated, nulls and records of no
// fields a leaf of nulls), with no optional node always there.
type planner struct{ leaves []levels.Leaf }

func (p *planner) entry(n *layout.Node, steps []levels.Step, rep int16) {
	switch n.Kind {
	case schema.Union:
		var cols []int
		hasNull := false
		for i, b := range n.Branches {
			if b == nil {
				hasNull = true
				continue
			}
			cols = append(cols, n.BranchCols[i])
		}
		if len(n.Branches) == 2 && hasNull && len(cols) == 1 {
			for i, b := range n.Branches {
				if b != nil {
					p.inner(b, append(steps, levels.Step{Kind: levels.Optional, Col: n.BranchCols[i]}), rep)
				}
			}
			return
		}
		k := 0
		for _, b := range n.Branches {
			if b != nil {
				p.inner(b, append(steps[:len(steps):len(steps)], levels.Step{Kind: levels.Choice, Cols: cols, Which: k, Nullable: hasNull}), rep)
				k++
			}
		}
	case schema.Null:
		p.add(levels.Leaf{Steps: steps, Col: -1, Null: true})
	default:
		p.inner(n, steps, rep)
	}
}

func (p *planner) inner(n *layout.Node, steps []levels.Step, rep int16) {
	switch n.Kind {
	case schema.Record:
		if len(n.Fields) == 0 {
			p.add(levels.Leaf{Steps: steps, Col: -1, Null: true})
		}
		for _, f := range n.Fields {
			p.entry(f, steps, rep)
		}
	case schema.Array, schema.Map:
		steps = append(steps, levels.Step{Kind: levels.Repeated, Col: n.Col, Rep: rep + 1})
		if n.Kind == schema.Map {
			p.add(levels.Leaf{Steps: steps, Col: n.KeyCol, Type: format.String})
		}
		p.entry(n.Items, steps, rep+1)
	default:
		p.add(levels.Leaf{Steps: steps, Col: n.Col, Type: n.Type})
	}
}

func (p *planner) add(l levels.Leaf) {
	l.Steps = slices.Clone(l.Steps)
	p.leaves = append(p.leaves, l)
}

// striper computes the levels of values by brute force, from the
// records, leaf by leaf in the planner's order, and the levels of the
// branch each union of several branches takes (out of the plan's
// BranchLeaf), union by union in the order of the schema.
type striper struct {
	t     *testing.T
	out   [][]level
	leaf  int
	bout  [][]level
	union int
}

// multi says whether s is a union of several branches (not ["null", T]).
func multi(s *schema.Schema) bool {
	if s.Kind != schema.Union {
		return false
	}
	hasNull, nonNull := false, 0
	for _, b := range s.Branches {
		if b.Kind == schema.Null {
			hasNull = true
		} else {
			nonNull++
		}
	}
	return !(len(s.Branches) == 2 && hasNull && nonNull == 1)
}

// leafLevel gives the next leaf a level.
func (st *striper) leafLevel(lv level) {
	st.out[st.leaf] = append(st.out[st.leaf], lv)
	st.leaf++
}

// absent gives the leaves and unions of a value of s at an entry (or
// within, for absentInner) that is not there one level each, of no value.
func (st *striper) absent(s *schema.Schema, def, rep int16) {
	if s.Kind != schema.Union {
		st.absentInner(s, def, rep)
		return
	}
	if multi(s) {
		st.bout[st.union] = append(st.bout[st.union], level{def, rep, nil})
		st.union++
	}
	for _, b := range s.Branches {
		if b.Kind != schema.Null {
			st.absentInner(b, def, rep)
		}
	}
}

func (st *striper) absentInner(s *schema.Schema, def, rep int16) {
	switch s.Kind {
	case schema.Record:
		if len(s.Fields) == 0 {
			st.leafLevel(level{def, rep, nil})
		}
		for _, f := range s.Fields {
			st.absent(f.Type, def, rep)
		}
	case schema.Array:
		st.absent(s.Items, def, rep)
	case schema.Map:
		st.leafLevel(level{def, rep, nil})
		st.absent(s.Values, def, rep)
	default:
		st.leafLevel(level{def, rep, nil})
	}
}

func (st *striper) entry(s *schema.Schema, v any, def, rep, depth int16) {
	if s.Kind != schema.Union {
		st.inner(s, v, def, rep, depth)
		return
	}
	k, inner, err := typemap.ResolveUnion(s, v)
	if err != nil {
		st.t.Fatal(err)
	}
	if !multi(s) {
		for _, b := range s.Branches {
			if b.Kind == schema.Null {
				continue
			}
			if s.Branches[k].Kind == schema.Null {
				st.absentInner(b, def, rep)
			} else {
				st.inner(b, inner, def+1, rep, depth)
			}
		}
		return
	}
	st.bout[st.union] = append(st.bout[st.union], level{def, rep, int32(k)})
	st.union++
	hasNull := slices.ContainsFunc(s.Branches, func(b *schema.Schema) bool { return b.Kind == schema.Null })
	if hasNull {
		if s.Branches[k].Kind == schema.Null {
			for _, b := range s.Branches {
				if b.Kind != schema.Null {
					st.absentInner(b, def, rep)
				}
			}
			return
		}
		def++
	}
	for i, b := range s.Branches {
		switch {
		case b.Kind == schema.Null:
		case i == k:
			st.inner(b, inner, def+1, rep, depth)
		default:
			st.absentInner(b, def, rep)
		}
	}
}

func (st *striper) inner(s *schema.Schema, v any, def, rep, depth int16) {
	switch s.Kind {
	case schema.Null:
		st.leafLevel(level{def, rep, nil})
	case schema.Record:
		if len(s.Fields) == 0 {
			st.leafLevel(level{def, rep, nil})
			return
		}
		m := v.(map[string]any)
		for _, f := range s.Fields {
			st.entry(f.Type, m[f.Name], def, rep, depth)
		}
	case schema.Array:
		a := v.([]any)
		if len(a) == 0 {
			st.absent(s.Items, def, rep)
			return
		}
		first, firstU := st.leaf, st.union
		mine := depth + 1
		for i, e := range a {
			st.leaf, st.union = first, firstU
			r := mine
			if i == 0 {
				r = rep
			}
			st.entry(s.Items, e, def+1, r, depth+1)
		}
	case schema.Map:
		m := v.(map[string]any)
		if len(m) == 0 {
			st.leafLevel(level{def, rep, nil})
			st.absent(s.Values, def, rep)
			return
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		first, firstU := st.leaf, st.union
		mine := depth + 1
		for i, k := range keys {
			st.leaf, st.union = first, firstU
			r := mine
			if i == 0 {
				r = rep
			}
			st.leafLevel(level{def + 1, r, k})
			st.entry(s.Values, m[k], def+1, r, depth+1)
		}
	default:
		sv, err := typemap.ToStored(s, v)
		if err != nil {
			st.t.Fatal(err)
		}
		st.leafLevel(level{def, rep, sv})
	}
}

// stored returns the value of a run at index j as the stored value.
func stored(l *levels.Leaf, r *levels.Run, j int) any {
	switch {
	case l.ByteArray():
		start := 0
		if j > 0 {
			start = r.Ends[j-1]
		}
		b := bytes.Clone(r.Data[start:r.Ends[j]])
		if l.ValueType() == format.String {
			return string(b)
		}
		return b
	case l.ValueType() == format.Boolean:
		return r.Bools[j]
	case l.ValueType() == format.Int:
		return r.I32[j]
	case l.ValueType() == format.Long:
		return r.I64[j]
	case l.ValueType() == format.Float:
		return r.F32[j]
	}
	return r.F64[j]
}

// The property: over random schemas and records, each leaf's levels and
// values read from the Trevni columns are those striped from the records
// by brute force, for all the rows and for segments of rows kept in part.
func TestLevelsAgainstRecords(t *testing.T) {
	ctx := context.Background()
	tried, branches := 0, 0
	for seed := range uint64(150) {
		g := avrorand.New(seed, avrorand.Options{MaxDepth: 3, MaxLen: 3})
		text := g.Schema()
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		lay, err := layout.New(s, nil)
		if err != nil {
			continue
		}
		var buf bytes.Buffer
		w, err := shred.NewAvroWriter(&buf, text, &shred.Options{WriterOptions: format.WriterOptions{BlockSize: 64}})
		if err != nil {
			t.Fatal(err)
		}
		n := 1 + int(seed%40)
		recs := make([]any, n)
		for i := range recs {
			recs[i] = g.Value(s)
			if err := w.Write(recs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		rd, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
		if err != nil {
			t.Fatal(err)
		}
		p := &planner{}
		if s.Kind == schema.Record {
			p.inner(lay.Root, nil, 0)
		} else {
			p.entry(lay.Root, nil, 0)
		}
		plan, err := levels.NewPlan(lay, nil)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, text)
		}
		checkPlan(t, plan, p.leaves, text)
		if s.Kind == schema.Record && len(s.Fields) >= 2 {
			// A projection's leaves are the full plan's of the fields
			// selected, reading the same columns of the file.
			f := s.Fields[len(s.Fields)-1]
			proj, err := levels.NewPlan(lay, &levels.PlanOptions{Fields: []string{f.Name}})
			if err != nil {
				t.Fatalf("seed %d: fields %s: %v", seed, f.Name, err)
			}
			last := plan.Root.Children[len(plan.Root.Children)-1]
			if len(proj.Root.Children) != 1 || proj.Root.Children[0].Name != f.Name {
				t.Fatalf("seed %d: projection's root %+v", seed, proj.Root)
			}
			for i := range proj.Leaves {
				g, w := proj.Leaves[i], plan.Leaves[last.First+i]
				if fmt.Sprint(g.Steps) != fmt.Sprint(w.Steps) || g.Col != w.Col || g.Path != w.Path {
					t.Fatalf("seed %d: projected leaf %d: %+v, want %+v", seed, i, g, w)
				}
			}
			if len(proj.Leaves) != last.End-last.First {
				t.Fatalf("seed %d: %d projected leaves, want %d", seed, len(proj.Leaves), last.End-last.First)
			}
		}
		var unions []*levels.Node
		var walk func(n *levels.Node)
		walk = func(n *levels.Node) {
			if n.Kind == levels.Union {
				unions = append(unions, n)
			}
			for _, c := range n.Children {
				walk(c)
			}
		}
		walk(plan.Root)
		// Rows kept: all, or a segment of every third row from row 1.
		keepAll := seed%2 == 0
		var segs []levels.Segment
		var rows []int
		if keepAll {
			segs = []levels.Segment{{First: 0, N: int64(n)}}
			for i := range n {
				rows = append(rows, i)
			}
		} else if n > 1 {
			seg := levels.Segment{First: 1, N: int64(n - 1)}
			for i := 1; i < n; i++ {
				seg.Keep = append(seg.Keep, (i-1)%3 == 0)
				if (i-1)%3 == 0 {
					rows = append(rows, i)
				}
			}
			segs = []levels.Segment{seg}
		}
		want := make([][]level, len(p.leaves))
		st := &striper{t: t, out: want, bout: make([][]level, len(unions))}
		for _, i := range rows {
			st.leaf, st.union = 0, 0
			st.entry(s, recs[i], 0, 0, 0)
			if st.leaf != len(p.leaves) || st.union != len(unions) {
				t.Fatalf("seed %d: %d leaves and %d unions striped, %d and %d planned\n%s", seed, st.leaf, st.union, len(p.leaves), len(unions), text)
			}
		}
		all := slices.Clone(plan.Leaves)
		for _, u := range unions {
			bl, err := plan.BranchLeaf(u)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			all = append(all, bl)
			want = append(want, st.bout[len(all)-len(plan.Leaves)-1])
			branches++
		}
		for li := range all {
			l := &all[li]
			lr, err := levels.NewReader(l, func(c int) (*format.ColumnReader, error) { return rd.Values(c) })
			if err != nil {
				t.Fatalf("seed %d leaf %d: %v", seed, li, err)
			}
			got, err := readLevels(ctx, lr, l, segs)
			lr.Close()
			if err != nil {
				t.Fatalf("seed %d leaf %d: %v\n%s", seed, li, err, text)
			}
			if fmt.Sprint(got) != fmt.Sprint(want[li]) {
				t.Fatalf("seed %d leaf %d (%+v):\n got %v\nwant %v\n%s", seed, li, *l, got, want[li], text)
			}
		}
		tried++
	}
	if tried < 100 || branches < 30 {
		t.Fatalf("only %d schemas laid out, %d unions of several branches", tried, branches)
	}
}

// checkPlan checks a plan of a layout's own schema: its leaves are those
// the test's planner makes (the Parquet mapping), and its tree says what
// a sink needs to know of them.
func checkPlan(t *testing.T, p *levels.Plan, want []levels.Leaf, text string) {
	t.Helper()
	if len(p.Leaves) != len(want) {
		t.Fatalf("%d leaves planned, %d wanted\n%s", len(p.Leaves), len(want), text)
	}
	for i := range want {
		g, w := p.Leaves[i], want[i]
		if fmt.Sprint(g.Steps) != fmt.Sprint(w.Steps) || g.Col != w.Col || g.Type != w.Type || g.Null != w.Null {
			t.Fatalf("leaf %d: %+v, want %+v\n%s", i, g, w, text)
		}
		if g.Node == nil || g.Node.Leaf != i || g.Schema == nil {
			t.Fatalf("leaf %d: node %+v\n%s", i, g.Node, text)
		}
	}
	var walk func(n *levels.Node)
	walk = func(n *levels.Node) {
		if n.First > n.End || n.End > len(p.Leaves) {
			t.Fatalf("%s: leaves %d to %d", n.Path, n.First, n.End)
		}
		for i := n.First; i < n.End; i++ {
			l := &p.Leaves[i]
			// A leaf's levels down to the node are the node's.
			var d int16
			for _, s := range l.Steps[:n.Step] {
				d++
				if s.Kind == levels.Choice && s.Nullable {
					d++
				}
			}
			own := int16(0)
			if n.Nullable && n.Kind != levels.Union {
				own = 1
			}
			if n.Kind == levels.Union && n.Nullable {
				own = 1
			}
			if n.Kind == levels.Value && l.Null {
				own = 1
			}
			if d+own != n.Def && !(n.Parent != nil && n.Parent.Kind == levels.Union) {
				t.Fatalf("%s (%s): leaf %d reaches it at %d+%d, its Def is %d\n%s", n.Path, n.Kind, i, d, own, n.Def, text)
			}
		}
		if n.Kind == levels.Value && n.Leaf >= 0 && p.Leaves[n.Leaf].MaxDef() != n.Def {
			t.Fatalf("%s: leaf %d of MaxDef %d, node Def %d\n%s", n.Path, n.Leaf, p.Leaves[n.Leaf].MaxDef(), n.Def, text)
		}
		if n.Kind == levels.Record && n.Leaf >= 0 && p.Leaves[n.Leaf].MaxDef() != n.Def+1 {
			t.Fatalf("%s: record's leaf %d of MaxDef %d, node Def %d\n%s", n.Path, n.Leaf, p.Leaves[n.Leaf].MaxDef(), n.Def, text)
		}
		for _, c := range n.Children {
			if c.Parent != n || c.First < n.First || c.End > n.End {
				t.Fatalf("%s: child %s out of place", n.Path, c.Path)
			}
			walk(c)
		}
	}
	walk(p.Root)
}
